"""The kernels' one door to Numba's compiler: ``njit``, with Numba's on-disk cache made safe for processes that
compile at the same time.

Numba keeps a kernel's cache as an index (types -> data file name) and numbered data files, written in separate
steps with no lock (numba/numba#10128).  Two processes that compile the same kernel for different types at once
can both read the index before either writes it, both take data file 1, and leave an index that names, for one
signature, the code compiled for the other's: a later process loads it and runs code built for other types.  The
test suite's two workers do exactly this when they compile the tests' own signatures, and the commands'
workers can whenever the cache is cold.  Each read and write of a kernel's index and data files here holds a
lock on the cache folder (``fcntl.flock``; shared to read, exclusive to write), for the milliseconds of file
work only, never while compiling.  Where ``fcntl`` does not exist (Windows) nothing changes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from numba import njit
from numba.core import caching

try:
    import fcntl
except ImportError:  # no POSIX locks (Windows): Numba's own behaviour
    fcntl = None

__all__ = ["njit"]

LOCK_NAME = "cache.lock"


@contextlib.contextmanager
def _cache_lock(folder: str | None, exclusive: bool) -> Iterator[None]:
    if fcntl is None or folder is None:  # or a Numba that names its cache folder otherwise
        yield
        return
    try:
        os.makedirs(folder, exist_ok=True)
        handle = os.open(os.path.join(folder, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:  # a read-only cache folder: Numba then writes nothing there
        yield
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(handle)  # releases the lock


def _lock_cache_files() -> None:
    files = caching.IndexDataCacheFile
    if getattr(files, "_acesim_locked", False):
        return
    save, load = files.save, files.load

    def locked_save(self, key, data):
        with _cache_lock(getattr(self, "_cache_path", None), exclusive=True):
            return save(self, key, data)

    def locked_load(self, key):
        with _cache_lock(getattr(self, "_cache_path", None), exclusive=False):
            return load(self, key)

    files.save, files.load = locked_save, locked_load
    files._acesim_locked = True


_lock_cache_files()
