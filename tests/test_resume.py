"""Resuming a run: only the missing or damaged chunks are played, and the records equal an uninterrupted run's."""

from __future__ import annotations

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
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import load_strategy
from acesim.runs import simulate as sim

runner = CliRunner()
ARGS = ["--rules", "backgammon,navy", "--games", "1200", "--chunk-size", "150", "--seed", "77",
        "--strategy", "safe", "--vs", "random", "--workers", "1", "--no-progress"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "run"
    result = runner.invoke(app, ["simulate", *ARGS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _same_run(a: Path, b: Path) -> None:
    for name in ("backgammon", "navy"):
        pd.testing.assert_frame_equal(sim.read_records(a / name), sim.read_records(b / name))
        assert json.loads((a / name / "summary.json").read_text()) == json.loads((b / name / "summary.json").read_text())
        assert sorted(p.name for p in (a / name / "records").iterdir()) == sorted(
            p.name for p in (b / name / "records").iterdir())


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_resume_replays_missing_truncated_and_corrupted_chunks(reference, tmp_path):
    out = _copy(reference, tmp_path / "run")
    records = out / "navy" / "records"
    (records / "chunk-000002.parquet").unlink()  # missing
    truncated = records / "chunk-000004.parquet"
    truncated.write_bytes(truncated.read_bytes()[:300])  # a kill mid-copy
    corrupted = out / "backgammon" / "records" / "chunk-000001.parquet"
    data = bytearray(corrupted.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = b"\0" * 64  # flipped bytes inside
    corrupted.write_bytes(bytes(data))
    other = out / "backgammon" / "records" / "chunk-000003.parquet"  # a chunk of another plan
    frame = pd.read_parquet(other)
    frame["seed"] = 78
    frame.to_parquet(other, index=False)
    (out / "navy" / "summary.json").unlink()
    result = runner.invoke(app, ["simulate", "--resume", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    _same_run(reference, out)


def test_resume_after_sigkill_equals_an_uninterrupted_run(tmp_path):
    """SIGKILL to the whole process group part-way, then --resume: the records of an uninterrupted run."""
    args = ["--rules", "european", "--games", "3000", "--chunk-size", "100", "--seed", "5", "--strategy", "expert",
            "--vs", "expert", "--workers", "1", "--no-progress"]
    out = tmp_path / "run"
    script = Path(sys.executable).with_name("acesim")
    proc = subprocess.Popen([str(script), "simulate", *args, "--out", str(out)], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline and len(list(out.glob("records/*.parquet"))) < 3:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    done = len(list(out.glob("records/*.parquet")))
    assert 3 <= done < 30, "the kill should land part-way"
    assert not (out / "summary.json").exists()
    result = runner.invoke(app, ["simulate", "--resume", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    reference = tmp_path / "reference"
    assert runner.invoke(app, ["simulate", *args, "--out", str(reference)]).exit_code == 0
    pd.testing.assert_frame_equal(sim.read_records(out), sim.read_records(reference))
    assert json.loads((out / "summary.json").read_text()) == json.loads((reference / "summary.json").read_text())


def test_resume_with_another_plan_is_refused(reference, tmp_path):
    out = _copy(reference, tmp_path / "run")
    for extra, what in ((["--games", "1300"], "number of games"), (["--seed", "1"], "seed"),
                        (["--vs", "expert"], "strategies"), (["--rules", "navy"], "rule sets"),
                        (["--chunk-size", "100"], "chunk size")):
        result = runner.invoke(app, ["simulate", "--resume", str(out), *extra])
        assert result.exit_code == 1 and result.output.strip().splitlines() == [
            f"acesim: error: refusing to resume {out}: its plan has a different {what}"]
    # the same values given again are fine
    result = runner.invoke(app, ["simulate", "--resume", str(out), "--games", "1200", "--seed", "77", "--no-progress"])
    assert result.exit_code == 0, result.output


def test_resume_bad_input(tmp_path, reference):
    assert "no such folder" in runner.invoke(app, ["simulate", "--resume", str(tmp_path / "none")]).output
    (tmp_path / "empty").mkdir()
    assert "no plan.json" in runner.invoke(app, ["simulate", "--resume", str(tmp_path / "empty")]).output
    out = _copy(reference, tmp_path / "old")
    doc = json.loads((out / "plan.json").read_text())
    doc["acesim_version"] = "0.0.1"
    (out / "plan.json").write_text(json.dumps(doc))
    result = runner.invoke(app, ["simulate", "--resume", str(out)])
    assert result.exit_code == 1 and "written by acesim 0.0.1" in result.output
    (out / "plan.json").write_text("{not json")
    assert "unreadable" in runner.invoke(app, ["simulate", "--resume", str(out)]).output
    result = runner.invoke(app, ["simulate", "--resume", str(reference), "--out", str(tmp_path / "x")])
    assert result.exit_code == 1 and "drop --out" in result.output


def test_plan_round_trips_through_plan_json():
    plan = sim.make_plan([Ruleset.preset("european"), Ruleset.preset("navy")], load_strategy("expert@beam=3"),
                         load_strategy("random"), 5000, 9, 700)
    again = sim.plan_from_description(json.loads(json.dumps(plan.describe())))
    assert again == plan and sim.same_plan(plan, again) is None


def test_a_learned_plan_round_trips_and_one_searched_otherwise_is_refused():
    plan = sim.make_plan([Ruleset.preset("european")], load_strategy("learned:any"),
                         load_strategy("learned:any@heuristic@rank=4"), 100, 9, 50)
    doc = json.loads(json.dumps(plan.describe()))
    assert sim.same_plan(plan, sim.plan_from_description(doc)) is None
    # a plan written before the tangent ranked the beams: the spec now searches otherwise
    doc["strategies"]["a"].pop("tangent")
    with pytest.raises(AcesimError, match="searches learned:any's plays otherwise than when the run began"):
        sim.plan_from_description(doc)


# --- a plan.json or a run folder edited by hand is checked as a fresh plan (issue 28) --------------


@pytest.mark.parametrize("key, value, message", [
    ("games", 10**15, "number of games must be at most"),
    ("turn_cap", 10**12, "turn cap must be at most"),
    ("chunk_size", 10**7, "chunk size must be at most"),
])
def test_resume_refuses_a_plan_beyond_the_limits(reference, tmp_path, key, value, message):
    out = _copy(reference, tmp_path / "run")
    doc = json.loads((out / "plan.json").read_text())
    doc[key] = value
    if key == "chunk_size":
        doc["games"] = 2 * value
    (out / "plan.json").write_text(json.dumps(doc))
    result = runner.invoke(app, ["simulate", "--resume", str(out), "--no-progress"])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1 and message in lines[0], result.output


def test_resume_refuses_a_plan_that_is_a_fifo_or_too_large(reference, tmp_path):
    out = _copy(reference, tmp_path / "run")
    (out / "plan.json").unlink()
    os.mkfifo(out / "plan.json")
    result = runner.invoke(app, ["simulate", "--resume", str(out), "--no-progress"])  # would block before
    assert result.exit_code == 1 and "not a regular file" in result.output, result.output
    (out / "plan.json").unlink()
    (out / "plan.json").write_text(" " * (sim.MAX_PLAN_BYTES + 1))
    result = runner.invoke(app, ["simulate", "--resume", str(out), "--no-progress"])
    assert result.exit_code == 1 and "larger than" in result.output, result.output


def test_resume_never_writes_through_a_symlinked_records_folder(reference, tmp_path):
    out = _copy(reference, tmp_path / "run")
    elsewhere = tmp_path / "theirs"
    elsewhere.mkdir()
    (elsewhere / "chunk-000003.parquet").write_text("a user's own file")
    records = out / "navy" / "records"
    import shutil

    shutil.rmtree(records)
    records.symlink_to(elsewhere)
    result = runner.invoke(app, ["simulate", "--resume", str(out), "--no-progress"])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1 and "is a symlink" in lines[0], result.output
    assert [p.name for p in elsewhere.iterdir()] == ["chunk-000003.parquet"]
    assert (elsewhere / "chunk-000003.parquet").read_text() == "a user's own file"
