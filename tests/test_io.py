"""``acesim.common.files``: atomic writes, output targets, output folders and their lock (issue 15, faults 1, 3, 5, 6).

The same faults seen from the command line are in ``tests/test_faults_output.py``.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from acesim.common import files as io
from acesim.common.errors import AcesimError
from tests.devices import device_node


def _no_partials(folder: Path) -> bool:
    return not [p for p in folder.rglob("*") if p.name.endswith(io.PARTIAL_SUFFIX)]


def _special_targets(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    real = tmp_path / "real.txt"
    real.write_text("keep me")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    folder = tmp_path / "folder"
    folder.mkdir()
    return {"device": device_node(tmp_path), "fifo": fifo, "symlink": link, "folder": folder}


@pytest.mark.parametrize("kind", ["device", "fifo", "symlink", "folder"])
def test_a_target_that_is_not_a_regular_file_is_refused(tmp_path, kind):
    target = _special_targets(tmp_path)[kind]
    before = os.lstat(target)
    with pytest.raises(AcesimError, match="not a regular file|a folder"):
        io.write_text(target, "answers\n")
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert (tmp_path / "real.txt").read_text() == "keep me"
    assert _no_partials(tmp_path)


def test_writes_replace_a_regular_file_and_leave_no_temporary(tmp_path):
    path = tmp_path / "a.json"
    path.write_text("old")
    io.write_json(path, {"x": 1})
    assert json.loads(path.read_text()) == {"x": 1}
    io.write_csv(tmp_path / "t.csv", pd.DataFrame({"a": [1, 2]}))
    assert (tmp_path / "t.csv").read_text() == "a\n1\n2\n"
    assert _no_partials(tmp_path)


def _full_disk(tmp: Path):
    Path(tmp).write_bytes(b"half")
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_is_one_line_and_keeps_the_old_file(tmp_path):
    path = tmp_path / "summary.csv"
    path.write_text("old content")
    with pytest.raises(AcesimError, match="cannot write .*summary.csv: No space left on device"):
        io.write_atomically(path, _full_disk)
    assert path.read_text() == "old content"
    assert _no_partials(tmp_path) and sorted(p.name for p in tmp_path.iterdir()) == ["summary.csv"]


def test_an_interrupted_write_leaves_no_temporary(tmp_path):
    def interrupted(tmp):
        Path(tmp).write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        io.write_atomically(tmp_path / "x.txt", interrupted)
    assert list(tmp_path.iterdir()) == []


def _umask_modes(tmp_path: Path, umask: int) -> tuple[int, int]:
    """Modes of a file written by io and of a report staging folder, under ``umask`` (in a child process)."""
    code = (
        "import os, sys, stat; from pathlib import Path; from acesim.common import files as io\n"
        f"os.umask({umask}); d = Path(sys.argv[1])\n"
        "io.write_text(d / 'f.txt', 'x'); s = io.staging_folder(d / 'report')\n"
        "print(stat.S_IMODE(os.stat(d / 'f.txt').st_mode), stat.S_IMODE(os.stat(s).st_mode))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env,
                         check=True).stdout.split()
    return int(out[0]), int(out[1])


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_written_files_and_folders_honour_the_umask(tmp_path, umask):
    file_mode, folder_mode = _umask_modes(tmp_path, umask)
    assert file_mode == 0o666 & ~umask
    assert folder_mode == 0o777 & ~umask


def test_the_folder_lock_refuses_a_second_process(tmp_path):
    out = tmp_path / "run"
    lock = io.prepare_folder(out, False, lambda p: True, "output")
    code = "import sys; from acesim.common import files as io; io.FolderLock(sys.argv[1])"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    held = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, env=env)
    assert held.returncode != 0 and "being written by another acesim run" in held.stderr
    lock.release()
    free = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, env=env)
    assert free.returncode == 0, free.stderr


def test_the_folder_lock_is_reentrant_in_one_process(tmp_path):
    out = tmp_path / "run"
    outer = io.prepare_folder(out, False, lambda p: True, "output")
    with io.locked(out):
        pass
    assert io.FolderLock._held  # still held by the outer lock
    outer.release()
    assert str(out.resolve()) not in io.FolderLock._held


def test_force_refuses_a_folder_another_run_is_writing(tmp_path):
    out = tmp_path / "run"
    io.prepare_folder(out, False, lambda p: True, "output").release()
    (out / "plan.json").write_text("{}")
    code = ("import sys, time; from acesim.common import files as io; l = io.FolderLock(sys.argv[1]); "
            "print('locked', flush=True); time.sleep(30)")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    other = subprocess.Popen([sys.executable, "-c", code, str(out)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert other.stdout.readline().strip() == "locked"
        with pytest.raises(AcesimError, match="being written by another acesim run"):
            io.prepare_folder(out, True, lambda p: True, "output")
        assert (out / "plan.json").exists()  # nothing removed from under the other run
    finally:
        other.kill()
        other.wait()
