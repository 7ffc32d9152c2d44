"""Issue 15's faults as a hostile user meets them: --out targets, full disks, concurrent runs, strays, workers.

Every test here fails on the code before issue 15 (see the commit message);
``tests/test_io.py`` tests the ``acesim.common.files`` module itself.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from acesim.cli import app
from acesim.common.errors import AcesimError
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import load_strategy
from acesim.runs import simulate as sim
from tests.devices import device_node
from tests.test_cli import assert_one_line_error

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def run(*args: str):
    return runner.invoke(app, list(args))


def _no_partials(folder: Path) -> bool:
    return not [p for p in folder.rglob("*") if p.name.endswith(".partial")]


def _target(tmp_path: Path, kind: str, suffix: str = ".csv") -> Path:
    if kind == "device":
        return device_node(tmp_path)
    if kind == "fifo":
        path = tmp_path / f"fifo{suffix}"
        os.mkfifo(path)
        return path
    real = tmp_path / f"real{suffix}"
    real.write_text("keep me")
    link = tmp_path / f"link{suffix}"
    link.symlink_to(real)
    return link


def _unchanged(tmp_path: Path, target: Path, before: os.stat_result) -> None:
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev)
    for real in tmp_path.glob("real*"):
        assert real.read_text() == "keep me"
    assert _no_partials(tmp_path)


# --- fault 1: --out replaced what it should refuse ----------------------------------------


@pytest.mark.parametrize("kind", ["device", "fifo", "symlink"])
def test_moves_batch_out_refuses_what_is_not_a_regular_file(tmp_path, kind):
    query = tmp_path / "q.jsonl"
    query.write_text(json.dumps({"rules": "european", "position": Position.start().to_json(), "dice": [6, 3]})
                     + "\n")
    regular = run("moves", "--batch", str(query), "--out", str(tmp_path / "answers.jsonl"))
    assert regular.exit_code == 0, regular.output  # the query itself is good
    target = _target(tmp_path, kind, ".jsonl")
    before = os.lstat(target)
    result = run("moves", "--batch", str(query), "--out", str(target))
    assert_one_line_error(result, str(target), "not a regular file")
    _unchanged(tmp_path, target, before)


@pytest.mark.parametrize("kind", ["device", "fifo", "symlink"])
def test_ladder_out_refuses_what_is_not_a_regular_file(tmp_path, kind):
    target = _target(tmp_path, kind)
    before = os.lstat(target)
    result = run("ladder", "--strategies", "random,racer", "--games", "2", "--workers", "1", "--no-progress",
                 "--out", str(target))
    assert_one_line_error(result, "not a regular file")
    _unchanged(tmp_path, target, before)


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_train_out_force_refuses_what_is_not_a_regular_file(tmp_path, kind):
    target = _target(tmp_path, kind, ".npz")
    before = os.lstat(target)
    result = run("train", "--games", "2", "--eval-games", "2", "--workers", "1", "--no-progress", "--force",
                 "--out", str(target))
    assert_one_line_error(result, "not a regular file")
    _unchanged(tmp_path, target, before)


def test_ladder_out_keeps_an_existing_file_until_the_table_is_written(tmp_path, monkeypatch):
    """The old probe emptied and removed an existing --out before playing a game."""
    out = tmp_path / "ladder.csv"
    out.write_text("old table\n")
    import acesim.runs.ladder as ladder_module

    def interrupted(*args, **kwargs):
        assert out.read_text() == "old table\n"
        raise KeyboardInterrupt

    monkeypatch.setattr(ladder_module, "ladder", interrupted)
    result = run("ladder", "--strategies", "random,racer", "--games", "2", "--workers", "1", "--no-progress",
                 "--out", str(out), "--force")
    assert result.exit_code == 130
    assert out.read_text() == "old table\n"


def test_simulate_out_symlink_is_still_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    result = run("simulate", "--games", "3", "--no-progress", "--force", "--out", str(link))
    assert_one_line_error(result, "is a symlink, not a folder")
    assert link.is_symlink() and list(real.iterdir()) == []


# --- fault 5: a full disk while writing summaries, compare --out ----------------------------


def _full_disk_for(monkeypatch, fragment: str) -> None:
    real = pd.DataFrame.to_csv

    def full(self, path=None, *a, **k):
        if path is not None and fragment in str(path):
            Path(path).write_bytes(b"")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, path, *a, **k)

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)


def test_full_disk_while_writing_the_summary_is_one_line(tmp_path, monkeypatch):
    out = tmp_path / "run"
    _full_disk_for(monkeypatch, "summary")
    result = run("simulate", "--rules", "american", "--games", "6", "--strategy", "racer", "--vs", "safe",
                 "--workers", "1", "--no-progress", "--out", str(out))
    assert_one_line_error(result, "No space left on device")
    assert _no_partials(out) and not (out / "summary.csv").exists()
    monkeypatch.undo()
    again = run("simulate", "--no-progress", "--resume", str(out))
    assert again.exit_code == 0, again.output
    assert (out / "summary.csv").is_file()


def test_full_disk_during_compare_out_is_one_line_and_leaves_no_staging(tmp_path, monkeypatch):
    out = tmp_path / "cmp"
    _full_disk_for(monkeypatch, "tables")
    result = run("compare", "--rules", "american", "--games", "20", "--workers", "1", "--out", str(out))
    assert_one_line_error(result, "No space left on device")
    assert list(tmp_path.iterdir()) == []


def test_a_run_that_fails_before_its_first_chunk_can_be_rerun_without_force(tmp_path, monkeypatch):
    out = tmp_path / "run"

    def broken(*args):
        raise AcesimError("the engine broke")

    monkeypatch.setattr(sim, "chunk_frame", broken)
    failed = run("simulate", "--games", "4", "--workers", "1", "--no-progress", "--out", str(out))
    assert_one_line_error(failed, "the engine broke")
    assert not out.exists()


# --- fault 3: concurrent runs, stray chunks, damaged plans ---------------------------------


def test_a_second_concurrent_run_into_one_folder_is_refused(tmp_path):
    out = tmp_path / "run"
    first = subprocess.Popen(
        [sys.executable, "-m", "acesim.cli", "simulate", "--games", "200000", "--seed", "123", "--workers", "1",
         "--chunk-size", "100", "--no-progress", "--out", str(out)],
        env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (out / "plan.json").exists():
            assert first.poll() is None and time.monotonic() < deadline, "the first run did not start"
            time.sleep(0.1)
        second = run("simulate", "--games", "1000", "--seed", "456", "--workers", "1", "--no-progress", "--force",
                     "--out", str(out))
        assert_one_line_error(second, "being written by another acesim run")
        assert json.loads((out / "plan.json").read_text())["seed"] == 123
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()


def _small_run(tmp_path: Path, games=120, chunk=40) -> tuple[Path, sim.Plan]:
    plan = sim.make_plan([Ruleset.preset("american")], load_strategy("racer"), load_strategy("random"),
                         games, 5, chunk)
    out = tmp_path / "run"
    sim.prepare_output(out, False)
    sim.run(plan, out)
    return out, plan


def _stray(out: Path) -> None:
    records = out / sim.RECORDS_DIR
    (records / "chunk-000099.parquet").write_bytes((records / "chunk-000000.parquet").read_bytes())


def test_read_records_ignores_a_stray_chunk(tmp_path):
    out, plan = _small_run(tmp_path)
    before = sim.read_records(out)
    _stray(out)
    after = sim.read_records(out)
    assert len(after) == plan.games
    pd.testing.assert_frame_equal(before, after)


def test_resume_removes_a_stray_chunk(tmp_path):
    out, plan = _small_run(tmp_path)
    _stray(out)
    result = run("simulate", "--no-progress", "--resume", str(out))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (out / sim.RECORDS_DIR).iterdir())
    assert names == [f"chunk-{k:06d}.parquet" for k in range(3)]


def test_resume_with_a_folder_in_place_of_a_chunk_is_one_line(tmp_path):
    out, plan = _small_run(tmp_path)
    chunk = out / sim.RECORDS_DIR / "chunk-000001.parquet"
    chunk.unlink()
    chunk.mkdir()
    result = run("simulate", "--no-progress", "--resume", str(out))
    assert_one_line_error(result, "chunk-000001.parquet")


@pytest.mark.parametrize("damage", ["chunk_size 0", "weights cut short", "games -1"])
def test_resume_with_a_damaged_plan_is_one_line(tmp_path, damage):
    out, _ = _small_run(tmp_path)
    doc = json.loads((out / sim.PLAN_FILE).read_text())
    if damage == "chunk_size 0":
        doc["chunk_size"] = 0
    elif damage == "games -1":
        doc["games"] = -1
    else:
        doc["strategies"]["a"]["weights"] = doc["strategies"]["a"]["weights"][:3]
    (out / sim.PLAN_FILE).write_text(json.dumps(doc))
    result = run("simulate", "--no-progress", "--resume", str(out))
    assert_one_line_error(result, "plan.json")


# --- fault 4: worker counts ----------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["simulate", "--games", "10", "--workers", "1000"],
    ["simulate", "--games", "10", "--workers", str(2**70)],
    ["simulate", "--games", "10", "--scheduler", "local:1000000"],
    ["ladder", "--strategies", "random,racer", "--games", "2", "--workers", "300"],
    ["train", "--games", "2", "--workers", "300"],
    ["compare", "--rules", "american", "--games", "10", "--workers", "300"],
    ["bench", "simulate", "--games", "10", "--workers", "0"],
    ["bench", "simulate", "--games", "10", "--workers", "1000"],
])
def test_absurd_worker_counts_are_one_line(tmp_path, args):
    if args[0] == "train":
        args = [*args, "--out", str(tmp_path / "m.npz")]
    result = run(*args, *(["--no-progress"] if args[0] in ("simulate", "ladder", "train") else []))
    assert_one_line_error(result, "must be")


def test_workers_are_capped_by_the_free_memory(monkeypatch):
    """The cap of 256 would have exhausted this machine's memory (64 workers took 8.6 GB; issue 28)."""
    from acesim.common import tasks

    monkeypatch.setattr(tasks, "available_memory", lambda: 10 * tasks.WORKER_MEMORY + 5)
    assert tasks.memory_cap() == 10 and tasks.check_workers(10) == 10
    assert tasks.default_workers() <= 10
    result = run("simulate", "--games", "10", "--workers", "11", "--no-progress")
    assert_one_line_error(result, "at most 10 here", "MiB")
    monkeypatch.setattr(tasks, "available_memory", lambda: 0)
    assert tasks.memory_cap() == 1 and tasks.default_workers() == 1


def test_tls_scheduler_without_tls_settings_is_one_line():
    pytest.importorskip("distributed")
    result = run("simulate", "--games", "10", "--no-progress", "--scheduler", "tls://127.0.0.1:1")
    assert_one_line_error(result, "tls://127.0.0.1:1")


def test_workers_are_capped_at_the_number_of_chunks(tmp_path):
    """--workers 50 with 2 chunks forks 2 processes, not 50."""
    from acesim.common import tasks

    seen = []
    with tasks.LocalProcesses(50) as backend:
        results = tasks.map_tasks(os.getpid, [(), ()], backend, lambda i, r: seen.append(i))
        assert backend._pool._processes == 2
    assert sorted(seen) == [0, 1] and len(results) == 2


def test_a_signal_after_the_last_result_still_stops(tmp_path):
    """SIGTERM handled just after a map's last result once went unseen, and training ran on forever."""
    from acesim.common import tasks

    seen = []

    def terminate_self(i, result):
        seen.append(i)
        if len(seen) == 2:  # the last result: no later check in the backend's loop
            os.kill(os.getpid(), signal.SIGTERM)

    with tasks.LocalProcesses(2) as backend:
        with pytest.raises(KeyboardInterrupt):
            tasks.map_tasks(os.getpid, [(), ()], backend, terminate_self)


# --- fault 5: BrokenPipeError tracebacks after kill -9, train on SIGTERM ---------------------


def _wait_for_group(pgid: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.killpg(pgid, signal.SIGKILL)
    raise AssertionError("orphaned workers did not end")


def test_orphaned_workers_end_without_a_traceback(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "acesim.cli", "simulate", "--games", "40000", "--chunk-size", "100",
         "--strategy", "racer", "--vs", "random", "--workers", "2", "--no-progress", "--out", str(out)],
        env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 180
    while not list(out.glob("records/chunk-*.parquet")):  # the workers are playing
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    proc.kill()  # the parent only: its workers are orphaned mid-chunk
    proc.wait()
    _wait_for_group(proc.pid, 120)
    stderr = proc.stderr.read().decode()
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_train_on_sigterm_is_interrupted_in_one_line(tmp_path):
    # Compiled first: a process compiling, or waiting for another to finish compiling the same kernel
    # into the shared cache, takes its signals only after, which can be minutes on a cold cache.
    warm = subprocess.run([sys.executable, "-m", "acesim.cli", "train", "--games", "32", "--workers", "2",
                           "--eval-every", "0", "--no-progress", "--out", str(tmp_path / "warm.npz")],
                          env=ENV, capture_output=True, timeout=900)
    assert warm.returncode == 0, warm.stderr
    out = tmp_path / "m.npz"
    proc = subprocess.Popen(
        [sys.executable, "-m", "acesim.cli", "train", "--games", "2000000", "--workers", "2", "--eval-every", "0",
         "--no-progress", "--out", str(out)],
        env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 180
    while len(_children(proc.pid)) < 2:  # the worker pool is up: training has begun
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.1)
    time.sleep(3)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    _wait_for_group(proc.pid, 60)
    stderr = proc.stderr.read().decode()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert stderr.strip() == "acesim: interrupted"
    assert not out.exists()
