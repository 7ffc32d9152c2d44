"""Test helpers for output targets that are not regular files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest


def device_node(tmp_path: Path) -> Path:
    """A character device like /dev/full, made in ``tmp_path``: a test must never risk a real one."""
    path = tmp_path / "full"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return path
