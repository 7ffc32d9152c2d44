"""Files and folders acesim writes: atomic writes, output targets, output folders and their lock.

Every file is written under a temporary name beside its target and renamed
into place, so a kill, a full disk or any other ``OSError`` leaves either the
old file or the new one, never half of one, and no temporary file behind.
Files and folders are created with the ordinary modes (0666 and 0777 less the
umask), as any other program's output.

A target is refused unless it is absent or a regular file: writing "into" a
device node, a FIFO or a symlink by renaming over it would replace the node
instead of writing through it.

An output folder is locked for the life of a run by an OS file lock
(``fcntl.flock``) on a lock file inside it, so a second run into the same
folder is refused instead of mixing its records with the first's.  The lock
is the kernel's: it is released when the process (and any worker it forked)
ends, however it ends.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from acesim.common.errors import AcesimError

if TYPE_CHECKING:
    import pandas as pd

PARTIAL_SUFFIX = ".partial"
LOCK_FILE = ".acesim.lock"


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def check_target(path: Path) -> Path:
    """``path`` if a file may be written there: absent or a regular file, in a writable folder.

    Refused in one line: a folder, a symlink, a device node, a FIFO, a socket,
    or a missing or unwritable parent folder.
    """
    path = Path(path)
    if not path.name:
        raise AcesimError(f"cannot write {path}: it is a folder, not a file")
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise AcesimError(f"cannot write {path}: {_reason(error)}") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise AcesimError(f"refusing to write {path}: it is {_kind(mode)}, not a regular file")
    check_parent(path)
    return path


def _kind(mode: int) -> str:
    """What a file of ``mode`` (``os.lstat``'s) is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device node"
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def check_output_folder(out: Path, force: bool, what: str, is_ours: Callable[[Path], bool]) -> None:
    """Refuse output folder ``out`` in one line unless it is absent, or with ``force`` an acesim ``what``
    folder (``is_ours``) or empty; and unless its parent is a writable folder."""
    out = Path(out)
    try:
        mode = os.lstat(out).st_mode
    except (FileNotFoundError, NotADirectoryError):  # check_parent says what is missing
        mode = None
    except OSError as error:
        raise AcesimError(f"cannot write {out}: {_reason(error)}") from None
    if mode is not None:
        if not stat.S_ISDIR(mode):
            raise AcesimError(f"refusing to write {out}: it is {_kind(mode)}, not a folder")
        if not force:
            raise AcesimError(f"output {out} already exists; use --force to replace it")
        if _entries(out) and not is_ours(out):
            raise AcesimError(f"refusing to replace {out}: it is not an acesim {what} folder")
    check_parent(out)


def check_output_file(path: Path, force: bool, inputs: Iterable[Path | None] = ()) -> Path:
    """``path`` if a command may write its output file there (``check_target``), checked before any work.

    Refused in one line: an output that is one of the command's ``inputs``
    (even with ``force``: the answers would replace what they answer), and an
    existing file without ``force``.
    """
    path = check_target(path)
    for source in inputs:
        if source is not None and str(source) != "-" and _same_file(path, Path(source)):
            raise AcesimError(f"output {path} is also an input ({source}); choose another --out")
    if path.exists() and not force:
        raise AcesimError(f"output {path} already exists; use --force to replace it")
    return path


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): the same path names the same file
        return a.resolve() == b.resolve()


def check_parent(path: Path) -> None:
    """Refuse ``path`` in one line unless its parent is an existing, writable folder."""
    parent = Path(path).parent
    if parent.exists() and not parent.is_dir():
        raise AcesimError(f"cannot write {path}: {parent} is not a folder")
    if not parent.is_dir():
        raise AcesimError(f"cannot write {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise AcesimError(f"cannot write {path}: folder {parent} is not writable")


def _temporary_name(path: Path) -> Path:
    # unique, so two processes writing one target never share a temporary file
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}{PARTIAL_SUFFIX}")


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Call ``write(temporary path)`` and rename the result to ``path``; an ``OSError`` is one line.

    Whatever happens (an error, a full disk, Ctrl-C), the temporary file is
    removed and ``path`` keeps its old content.
    """
    path = check_target(Path(path))
    tmp = _temporary_name(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise AcesimError(f"cannot write {path}: {_reason(error)}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see ``write_atomically``)."""
    write_atomically(path, lambda tmp: tmp.write_bytes(data))


def write_text(path: Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, doc: dict) -> None:
    """Write ``doc`` as indented JSON to ``path`` atomically."""
    write_text(path, json.dumps(doc, indent=2) + "\n")


def write_csv(path: Path, frame: pd.DataFrame) -> None:
    """Write ``frame`` as CSV (no index) to ``path`` atomically."""
    write_atomically(path, lambda tmp: frame.to_csv(tmp, index=False))


def remove_partials(folder: Path) -> None:
    """Remove the temporary files a killed writer left anywhere under ``folder``."""
    for stale in Path(folder).rglob(f"*{PARTIAL_SUFFIX}"):
        if stale.is_file() or stale.is_symlink():
            stale.unlink(missing_ok=True)


# --- output folders ---------------------------------------------------------------


class FolderLock:
    """An exclusive ``flock`` on ``folder/.acesim.lock``, taken without waiting.

    Re-entrant within a process (a run inside a command that already holds
    the lock); released by ``release``, when the object is dropped, or when
    the process ends.
    """

    _held: dict[str, tuple[int, int]] = {}  # resolved folder -> (fd, depth)

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.key = str(self.folder.resolve())
        fd, depth = self._held.get(self.key, (-1, 0))
        if depth == 0:
            fd = self._acquire()
        self._held[self.key] = (fd, depth + 1)
        self._active = True

    def _acquire(self) -> int:
        path = self.folder / LOCK_FILE
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
        except OSError as error:
            raise AcesimError(f"cannot lock {self.folder}: {_reason(error)}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise AcesimError(f"{self.folder} is being written by another acesim run; "
                                  "wait for it to end or choose another --out") from None
            raise AcesimError(f"cannot lock {self.folder}: {_reason(error)}") from None
        return fd

    def release(self) -> None:
        if not getattr(self, "_active", False):
            return
        self._active = False
        fd, depth = self._held.pop(self.key, (-1, 0))
        if depth > 1:
            self._held[self.key] = (fd, depth - 1)
        elif depth == 1:
            os.close(fd)  # closing the last descriptor releases the flock

    def __del__(self) -> None:
        self.release()

    def __enter__(self) -> FolderLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


@contextmanager
def locked(folder: Path | None) -> Iterator[FolderLock | None]:
    """The lock of output folder ``folder`` for the block (nothing for ``None``)."""
    if folder is None:
        yield None
        return
    lock = FolderLock(folder)
    try:
        yield lock
    finally:
        lock.release()


@contextmanager
def output_lock(out: Path | None) -> Iterator[None]:
    """Hold, for the block, the lock of an output that is replaced whole at its end (a report folder).

    Such an output is built beside its place and renamed into it, so a lock
    inside it would go with it: the lock is a file beside it,
    ``.NAME.acesim-lock``, there only while a run holds it.  A second run
    into the same output is refused in one line, as ``FolderLock`` refuses a
    second simulate.  After taking the lock the file must still be the one
    at its path: a run that opened it just before the holder removed it
    would otherwise hold a lock no one else sees.
    """
    if out is None:
        yield
        return
    out = Path(out)
    check_parent(out)
    path = out.with_name(f".{out.name}.acesim-lock")
    busy = f"{out} is being written by another acesim run; wait for it to end or choose another --out"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
    except OSError as error:
        raise AcesimError(f"cannot lock {out}: {_reason(error)}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise AcesimError(busy) from None
            raise AcesimError(f"cannot lock {out}: {_reason(error)}") from None
        try:
            same = os.fstat(fd).st_ino == os.lstat(path).st_ino
        except FileNotFoundError:
            same = False
        if not same:
            raise AcesimError(busy)
        try:
            yield
        finally:
            Path(path).unlink(missing_ok=True)  # under the lock, so no one holds the removed file
    finally:
        os.close(fd)


def _entries(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name != LOCK_FILE]


def prepare_folder(out: Path, force: bool, is_ours: Callable[[Path], bool], what: str) -> FolderLock:
    """Create output folder ``out`` empty, or empty it with ``force``; return its lock, held.

    An existing folder is refused without ``force``, and refused even with it
    unless ``is_ours(out)`` (an acesim output folder of kind ``what``, or
    empty).  It is emptied in place under its lock, so a run still writing
    there is refused rather than having its files removed from under it.
    Nothing is written or removed on error.
    """
    out = Path(out)
    check_output_folder(out, force, what, is_ours)
    if out.exists():
        lock = FolderLock(out)
        try:
            for entry in _entries(out):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
        except OSError as error:
            lock.release()
            raise AcesimError(f"cannot empty {out}: {_reason(error)}") from None
        return lock
    try:
        out.mkdir()
    except FileExistsError:
        raise AcesimError(f"output {out} appeared while preparing it (another run?); try again") from None
    except OSError as error:
        raise AcesimError(f"cannot write {out}: {_reason(error)}") from None
    return FolderLock(out)


def staging_folder(out: Path) -> Path:
    """A new empty folder beside ``out`` (umask modes) to build it in before ``replace_folder``."""
    out = Path(out)
    check_parent(out)
    staging = _temporary_name(out)
    try:
        staging.mkdir()
    except OSError as error:
        raise AcesimError(f"cannot write {out}: {_reason(error)}") from None
    return staging


@contextmanager
def building_folder(out: Path) -> Iterator[Path]:
    """A staging folder to build ``out`` in (``staging_folder``), put in its place (``replace_folder``) when
    the block ends; given up on any error, an ``OSError`` becoming one line naming ``out``."""
    out = Path(out)
    staging = staging_folder(out)
    try:
        yield staging
    except OSError as error:
        remove_folder(staging)
        raise AcesimError(f"cannot write {out}: {_reason(error)}") from None
    except BaseException:
        remove_folder(staging)
        raise
    replace_folder(staging, out)


def remove_folder(folder: Path) -> None:
    """Remove ``folder`` and everything in it, if it exists (a staging folder given up)."""
    shutil.rmtree(folder, ignore_errors=True)


def replace_folder(staging: Path, out: Path) -> None:
    """Put the finished ``staging`` folder in the place of ``out`` (removed first if it exists)."""
    try:
        if out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise AcesimError(f"cannot write {out}: {_reason(error)}") from None
