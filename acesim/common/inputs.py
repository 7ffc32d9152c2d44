"""Reading the files a user names: rules, strategies, positions, batches.

Each is read whole as UTF-8 text, and only when it is a regular file: a FIFO
or a device would block or never end, so it is refused before it is opened.
"""

from __future__ import annotations

import json

import stat
from pathlib import Path
from typing import TextIO

from acesim.common.errors import AcesimError

# No input acesim reads comes near it; a larger file is a mistake, not data.
MAX_INPUT_BYTES = 64 * 2**20
# A rules, weights or position file is a few kilobytes; reading and parsing 50 MB of one took minutes.
MAX_SMALL_INPUT = 2**20


def read_text(path: str | Path, what: str, limit: int = MAX_INPUT_BYTES) -> str:
    """The text of ``path``, a ``what`` (e.g. "rules file") of at most ``limit`` bytes; a one-line
    ``AcesimError`` otherwise."""
    data = read_bytes(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise AcesimError(f"{what} {path} is not UTF-8 text") from None


def _check_regular(path: Path, what: str) -> None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise AcesimError(f"cannot read {what} {path}: no such file") from None
    except OSError as exc:
        raise AcesimError(f"cannot read {what} {path}: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise AcesimError(f"{what} {path} is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise AcesimError(f"{what} {path} is not a regular file")


def open_text(path: str | Path, what: str) -> TextIO:
    """``path`` opened to be read as UTF-8 text a line at a time, if it is a regular file."""
    path = Path(path)
    _check_regular(path, what)
    try:
        return path.open("r", encoding="utf-8")
    except OSError as exc:
        raise AcesimError(f"cannot read {what} {path}: {exc.strerror}") from None


def read_bytes(path: str | Path, what: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes."""
    path = Path(path)
    _check_regular(path, what)
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise AcesimError(f"cannot read {what} {path}: {exc.strerror}") from None
    if len(data) > limit:
        raise AcesimError(f"{what} {path} is larger than {_size(limit)}")
    return data


def _size(n: int) -> str:
    return f"{n // 2**20} MiB" if n >= 2**20 else f"{n // 2**10} KiB" if n >= 2**10 else f"{n} bytes"


def read_plan(folder: str | Path, name: str, run: str, limit: int) -> dict:
    """The JSON plan ``name`` of the run in ``folder``, for ``--resume``; ``run`` says what kind of run
    holds one (in the error when it is missing)."""
    folder = Path(folder)
    path = folder / name
    if not folder.is_dir():
        raise AcesimError(f"cannot resume {folder}: no such folder")
    if not path.exists() and not path.is_symlink():
        raise AcesimError(f"cannot resume {folder}: it has no {name}, so it is not {run}")
    try:
        # a regular file of bounded size only: a FIFO would block, a huge file fill the memory
        doc = json.loads(read_bytes(path, "plan", limit))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AcesimError(f"cannot resume {folder}: {name} is unreadable ({error})") from None
    if not isinstance(doc, dict):
        raise AcesimError(f"cannot resume {folder}: {name} is not a plan")
    return doc
