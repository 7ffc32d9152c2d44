"""Outputs are never lost or clobbered, and standard output on a full device is one line (issue 28).

Each case failed before its fix: ``ladder --out`` and ``moves --batch --out``
replaced an existing file without ``--force``, an input named as the output
was destroyed, two report runs into one folder both succeeded, and a full
device behind standard output gave a traceback.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acesim.cli import app
from acesim.common import files as aio
from acesim.common.errors import AcesimError
from tests.test_cli import assert_one_line_error

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
QUERIES = ROOT / "examples" / "queries.jsonl"
CLUB = ROOT / "examples" / "club-rules.toml"
LADDER = ["ladder", "--strategies", "random,racer", "--games", "2", "--workers", "1", "--no-progress"]


def run(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture
def batch(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_bytes(QUERIES.read_bytes())
    return path


def test_moves_batch_keeps_an_existing_out_without_force(batch, tmp_path):
    out = tmp_path / "answers.jsonl"
    out.write_text("mine\n")
    assert_one_line_error(run("moves", "--batch", str(batch), "--out", str(out)), "already exists", "--force")
    assert out.read_text() == "mine\n"
    assert run("moves", "--batch", str(batch), "--out", str(out), "--force").exit_code == 0
    assert out.read_text().startswith('{"dice_used"')


def test_moves_batch_never_writes_over_its_own_batch(batch):
    before = batch.read_bytes()
    for extra in ([], ["--force"]):
        result = run("moves", "--batch", str(batch), "--out", str(batch), *extra)
        assert_one_line_error(result, "is also an input")
    # the same file by another name
    alias = batch.parent / "alias.jsonl"
    alias.symlink_to(batch)
    assert_one_line_error(run("moves", "--batch", str(alias), "--out", str(batch), "--force"), "is also an input")
    assert batch.read_bytes() == before


def test_force_and_out_go_with_batch():
    assert_one_line_error(run("moves", "-p", "start", "-d", "6-3", "--force"), "go with --batch")


def test_ladder_keeps_an_existing_out_without_force(tmp_path):
    out = tmp_path / "ladder.csv"
    out.write_text("old table\n")
    assert_one_line_error(run(*LADDER, "--out", str(out)), "already exists", "--force")
    assert out.read_text() == "old table\n"
    assert run(*LADDER, "--out", str(out), "--force").exit_code == 0
    assert out.read_text().startswith("strategy,opponent")
    assert_one_line_error(run(*LADDER, "--force"), "--force goes with --out")


def test_ladder_never_writes_over_its_rules_or_strategies_file(tmp_path):
    club = tmp_path / "club.toml"
    club.write_bytes(CLUB.read_bytes())
    weights = tmp_path / "s.toml"
    weights.write_text((ROOT / "acesim" / "strategies.toml").read_text())
    for args in (["--rules", str(club), "--out", str(club)],
                 ["--strategies-file", str(weights), "--out", str(weights)]):
        assert_one_line_error(run(*LADDER, *args, "--force"), "is also an input")
    assert club.read_bytes() == CLUB.read_bytes()
    assert weights.read_text() == (ROOT / "acesim" / "strategies.toml").read_text()


def test_a_report_folder_being_written_refuses_a_second_run(tmp_path):
    out = tmp_path / "cmp"
    with aio.output_lock(out):
        lock = tmp_path / ".cmp.acesim-lock"
        assert lock.exists()
        result = run("compare", "--games", "10", "--strategy", "racer", "--workers", "1", "--no-progress",
                     "--out", str(out), "--force")
        assert_one_line_error(result, "being written by another acesim run")
        with pytest.raises(AcesimError, match="being written by another"):
            with aio.output_lock(out):
                pass
    assert not lock.exists() and not out.exists()
    # free again: a run goes through and leaves no lock file behind
    result = run("compare", "--games", "10", "--strategy", "racer", "--workers", "1", "--no-progress",
                 "--out", str(out))
    assert result.exit_code == 0, result.output
    assert (out / "report.json").exists() and not lock.exists()


def test_a_lock_file_removed_under_a_waiting_run_is_not_taken(tmp_path):
    """A run that opened the lock file just before its holder removed it must not proceed."""
    out = tmp_path / "cmp"
    path = tmp_path / ".cmp.acesim-lock"
    path.write_text("")
    stale = os.open(path, os.O_RDWR)
    path.unlink()
    path.write_text("")  # another run's new lock file, held
    held = os.open(path, os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        with pytest.raises(AcesimError, match="being written by another"):
            with aio.output_lock(out):
                pass
    finally:
        os.close(held)
        os.close(stale)


@pytest.mark.parametrize("out", ["/dev/full"])
def test_an_output_folder_that_is_a_device_is_named_as_such(out):
    result = run("compare", "--games", "10", "--strategy", "racer", "--out", out)
    assert_one_line_error(result, "is a device node, not a folder")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [
    ["rules", "list"],
    ["show", "start"],
    ["moves", "-p", "start", "-d", "6-3"],
    ["moves", "--batch", str(QUERIES)],
    ["hint", "-p", "start", "-d", "6-3", "--strategy", "racer"],
    ["hint", "-p", "start", "-d", "6-3", "--strategy", "racer", "--json"],
    ["rollout", "-p", "start", "--rules", "backgammon", "--games", "36", "--truncate", "2", "--workers", "1"],
])
def test_standard_output_on_a_full_device_is_one_line(args):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-c", "from acesim.cli import main; main()", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == ["acesim: error: cannot write standard output: No space left on device"]


# --- a batch is answered a line at a time (issue 28: 20,000 lines held 5 GB and answered nothing
# until the last) -----------------------------------------------------------------------------------


def test_a_batch_answer_is_written_before_the_next_line_is_read():
    import io as pyio

    from acesim.engine import moves

    lines = QUERIES.read_text().splitlines()
    stdin = pyio.StringIO("\n".join(lines) + "\n")
    read_when_written = []

    class Sink(pyio.StringIO):
        def write(self, text):
            read_when_written.append(stdin.tell())
            return super().write(text)

    sink = Sink()
    failed = moves.answer_batch_file("-", None, stdin=stdin, stdout=sink)
    assert failed == 0 and len(sink.getvalue().splitlines()) == len(lines)
    first_line_end = len(lines[0]) + 1
    assert read_when_written[0] == first_line_end  # one line read, one answer written


def test_a_line_too_long_is_an_error_answer_and_the_batch_goes_on(monkeypatch, tmp_path):
    import json

    from acesim.engine import moves

    monkeypatch.setattr(moves, "MAX_QUERY_BYTES", 1000)
    good = QUERIES.read_text().splitlines()[0]
    path = tmp_path / "q.jsonl"
    path.write_text(good + "\n" + "x" * 5000 + "\n" + good + "\n")
    out = tmp_path / "a.jsonl"
    assert moves.answer_batch_file(path, out) == 1
    answers = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(answers) == 3 and "longer than" in answers[1]["error"] and "plays" in answers[2]


# --- a network asked about a position its games never reach says so (issue 28: it valued every
# checker waiting under backgammon rules at 37.5% where a rollout gave 52.2%) ----------------------

WAITING = "e973ve973ve973ve973vAP8A"  # every checker waiting to enter


def test_hint_notes_a_position_backgammon_games_never_reach():
    result = run("hint", "--rules", "backgammon", "-p", WAITING, "-d", "6-3")
    assert result.exit_code == 0
    assert "never reach this position (checkers are waiting to enter" in result.stderr
    assert "never reach" not in run("hint", "--rules", "backgammon", "-p", "start", "-d", "6-3").stderr
    assert "never reach" not in run("hint", "--rules", "european", "-p", WAITING, "-d", "6-3").stderr
    # a heuristic learned nothing from games: no note
    assert "never reach" not in run("hint", "--rules", "backgammon", "-p", WAITING, "-d", "6-3",
                                    "--strategy", "expert").stderr


def test_rollout_notes_it_too_and_the_rule_is_counted_from_the_position():
    from acesim.engine.position import Position, unreached_by

    result = run("rollout", "--rules", "backgammon", "-p", WAITING, "--games", "36", "--truncate", "2",
                 "--workers", "1", "--no-progress")
    assert result.exit_code == 0 and "extrapolations" in result.stderr
    both = Position(points=(-15,) + (0,) * 22 + (10,), waiting=(1, 0), off=(4, 0))
    assert "borne off and waiting" in unreached_by(both, "off-board")
    assert unreached_by(Position.start("off-board"), "off-board") is None


# --- model files that would exhaust the memory or value every play alike (issue 28) --------------


def test_a_model_archive_that_unpacks_too_large_is_refused_before_unpacking(tmp_path):
    import zipfile

    from acesim.engine.model_files import MAX_UNPACKED_BYTES, load_model

    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("model.npy", "w", force_zip64=True) as member:
            block = bytes(2**20)
            for _ in range(MAX_UNPACKED_BYTES // 2**20 + 16):
                member.write(block)
    assert path.stat().st_size < 2**20
    with pytest.raises(AcesimError, match="unpacks to 80 MiB"):
        load_model(path)
    result = run("hint", "-p", "start", "-d", "6-3", "--strategy", f"learned:{path}")
    assert_one_line_error(result, "unpacks to")


def test_a_model_with_finite_but_huge_weights_is_refused(tmp_path):
    import numpy as np

    from acesim.engine.model_files import load_model, shipped_path
    from acesim.kernels import net as N

    with np.load(shipped_path("european")) as data:
        array, meta = data["model"].copy(), str(data["meta"])
    array[N.HEADER + 7] = 1e30  # hint showed every play at -1.0000 / 0.0%
    path = tmp_path / "huge.npz"
    np.savez_compressed(path, model=array, meta=np.array(meta))
    with pytest.raises(AcesimError, match="as large as 1e"):
        load_model(path)
    assert_one_line_error(run("hint", "-p", "start", "-d", "6-3", "--strategy", f"learned:{path}"), "as large as")
    load_model(shipped_path("european"))  # the shipped models' weights are far inside the bound
