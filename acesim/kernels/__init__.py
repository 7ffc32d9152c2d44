"""Jitted kernels: plain functions over fixed-size NumPy arrays.

Nothing here imports from outside ``acesim.kernels`` but NumPy and Numba.

Numba's on-disk cache (``cache=True``) notices edits only to the file that
holds a cached function, not to kernels it calls from other files, so an edit
to ``board.py`` would leave ``plays.py`` running stale machine code.  A digest
of every kernel source guards the cache: when any kernel file changes, all
cached kernels are dropped and compiled afresh.

A kernel that calls another, not inlined, passes a constant argument as
``np.int64(...)`` or ``np.bool_(...)``: Numba types a bare constant by its
value (a literal type) and compiles the callee, and everything it calls, again
for that value (``tests/test_compiled_once.py``).

Numba compiles them at LLVM's second optimisation level unless ``NUMBA_OPT`` says otherwise
(``make test`` compiles at the first, into a cache of its own).

Kernels take ``njit`` from ``acesim.kernels.jit``, which first puts a lock
around Numba's cache files, so that processes compiling at once (the test
suite's workers, a command's workers on a cold cache) never leave an index
that names one signature's code for another's.
"""

import hashlib
import os
from pathlib import Path

# LLVM's second optimisation level unless the environment names one: these kernels run as fast as at
# Numba's default third and compile in less time, to the same records (docs/performance-log.md).
# Numba reads it when it is first imported, which every kernel module does through this package.
os.environ.setdefault("NUMBA_OPT", "2")


def _cache_folder(here: Path) -> Path:
    """Where Numba caches this folder's kernels: beside them, or under ``NUMBA_CACHE_DIR``
    in the folder Numba names after the source folder (``make test`` uses one of its own)."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if not chosen:
        return here / "__pycache__"
    folder = os.path.abspath(str(here))
    return Path(chosen) / f"{os.path.basename(folder)}_{hashlib.sha1(folder.encode()).hexdigest()}"


def cache_folder() -> Path:
    """Where Numba caches the kernels of this package."""
    return _cache_folder(Path(__file__).parent)


def cache_is_warm() -> bool:
    """Numba's cache holds the game kernels (``acesim.runs.warmup`` has run, or some earlier command did).

    Checked by a command before it compiles for minutes: files only, no kernel is loaded.
    """
    folder = cache_folder()
    return folder.is_dir() and any(p.name.startswith("game_loop.play_games-") for p in folder.glob("*.nbi"))


def _drop_stale_cache() -> None:
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for source in sorted(here.glob("*.py")):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    cache = _cache_folder(here)
    stamp = cache / "kernels.digest"
    try:
        if stamp.read_text() == digest.hexdigest():
            return
    except OSError:
        pass
    try:
        for stale in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            stale.unlink(missing_ok=True)
        cache.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass  # a read-only install: Numba then caches elsewhere or not at all


_drop_stale_cache()
