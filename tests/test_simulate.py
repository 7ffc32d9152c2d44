"""``acesim simulate``: reproducible chunked runs, summaries, common random numbers, bad input."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from acesim.cli import app
from acesim.common.errors import AcesimError
from acesim.common.stats import mean_ci, ratio_ci, wilson
from acesim.engine.games import COLUMNS, play_games
from acesim.engine.rules import PRESETS, RULES_VERSION, load_ruleset
from acesim.engine.strategies import load_strategy
from acesim.engine.streams import block_keys
from acesim.runs import simulate as sim
from tests.test_cli import assert_one_line_error

runner = CliRunner()

REQUIRED_KEYS = {
    "games",
    "finished",
    "unfinished",
    "first_mover_win_rate",
    "first_mover_win_rate_ci95",
    "rolls_per_game_mean",
    "rolls_per_game_ci95",
    "turns_per_game_mean",
    "points_mean",
    "doubles_per_game",
    "one_two_per_game",
    "rules",
    "rules_version",
    "seed",
}


def _plan(rules=("american",), games=90, seed=7, chunk_size=None, a="expert", b="random", workers=1):
    return sim.make_plan(
        [load_ruleset(r) for r in rules], load_strategy(a), load_strategy(b), games, seed, chunk_size, workers
    )


def _records(out: Path, plan: sim.Plan, ruleset) -> pd.DataFrame:
    return sim.read_records(sim.rules_folder(out, plan, ruleset))


def test_block_keys_are_the_spawned_children_of_the_root_seed():
    children = np.random.SeedSequence(99).spawn(3)
    keys = block_keys(99, 0, 3 * 256)
    assert keys.shape == (3, 4)
    for b in range(3):
        assert (keys[b] == children[b].generate_state(4, np.uint64)).all()


@pytest.mark.parametrize("workers, chunk_size", [(2, 7), (2, 90), (1, 13)])
def test_records_do_not_depend_on_workers_or_chunk_size(tmp_path, workers, chunk_size):
    reference = play_games(PRESETS["american"], 90, 7, "expert", "random")
    plan = _plan(chunk_size=chunk_size)
    out = tmp_path / "run"
    sim.prepare_output(out, force=False)
    sim.run(plan, out, workers)
    records = _records(out, plan, PRESETS["american"])
    assert list(records.columns) == list(COLUMNS)
    for column in ("rules", "strategy_a", "strategy_b"):
        records[column] = records[column].astype(str)
    pd.testing.assert_frame_equal(records, reference)
    assert len(list((out / "records").glob("*.parquet"))) == math.ceil(90 / chunk_size)


def test_games_are_independent_of_their_neighbours():
    """Game 300's record is the same whether it is played alone or in a run from 0."""
    whole = play_games(PRESETS["navy"], 301, 3)
    alone = play_games(PRESETS["navy"], 1, 3, first_game=300)
    pd.testing.assert_frame_equal(whole.iloc[[300]].reset_index(drop=True), alone)


def test_summary_matches_the_records(tmp_path):
    plan = _plan(games=120, chunk_size=25)
    out = tmp_path / "run"
    sim.prepare_output(out, force=False)
    (doc,) = sim.run(plan, out, 2)
    on_disk = json.loads((out / "summary.json").read_text())
    assert on_disk == doc
    assert REQUIRED_KEYS <= doc.keys()
    assert doc["rules"] == PRESETS["american"].knobs() and doc["rules_version"] == RULES_VERSION
    assert doc["seed"] == 7 and doc["games"] == 120
    df = _records(out, plan, PRESETS["american"])
    fin = df[df.unfinished == 0]
    assert doc["finished"] == len(fin) and doc["unfinished"] == len(df) - len(fin)
    wins = int((fin.winner == fin.first_mover).sum())
    assert doc["first_mover_win_rate"] == pytest.approx(wins / len(fin), abs=1e-6)
    assert doc["first_mover_win_rate_ci95"] == pytest.approx(list(wilson(wins, len(fin))), abs=1e-6)
    rolls = (fin.rolls_a + fin.rolls_b).to_numpy(float)
    mean, low, high = mean_ci(len(rolls), rolls.sum(), (rolls**2).sum())
    assert doc["rolls_per_game_mean"] == pytest.approx(mean, abs=1e-6)
    assert doc["rolls_per_game_ci95"] == pytest.approx([low, high], abs=1e-6)
    assert doc["rolls_per_game_median"] == pytest.approx(float(np.median(rolls)))
    assert doc["turns_per_game_mean"] == pytest.approx((fin.turns_a + fin.turns_b).mean(), abs=1e-6)
    assert doc["points_mean"] == pytest.approx(fin.points.mean(), abs=1e-6)
    assert doc["doubles_per_game"] == pytest.approx((fin.doubles_a + fin.doubles_b).mean(), abs=1e-6)
    assert doc["one_two_per_game"] == pytest.approx((fin.one_two_a + fin.one_two_b).mean(), abs=1e-6)
    # forfeits per turn: a share over games (the merged sums' moments give the per-game residuals' sum)
    rate, low, high = ratio_ci((fin.forfeits_a + fin.forfeits_b).to_numpy(), (fin.turns_a + fin.turns_b).to_numpy())
    assert 0 < low < rate < high
    assert doc["forfeit_rate_per_turn"] == pytest.approx(rate, abs=1e-6)
    assert doc["forfeit_rate_per_turn_ci95"] == pytest.approx([low, high], abs=1e-6)
    csv = pd.read_csv(out / "summary.csv")
    assert {"metric", "n", "value", "ci95_low", "ci95_high"} <= set(csv.columns)
    assert (csv.ci95_low <= csv.value).all() and (csv.value <= csv.ci95_high).all()


def test_several_rule_sets_share_their_dice(tmp_path):
    """Common random numbers: one folder per rule set; game g's dice are the same under each."""
    plan = _plan(rules=("european", "american", "navy"), games=40, a="expert", b="expert")
    out = tmp_path / "crn"
    sim.prepare_output(out, force=False)
    docs = sim.run(plan, out, 2)
    assert [d["rules_name"] for d in docs] == ["european", "american", "navy"]
    frames = [_records(out, plan, r) for r in plan.rules]
    for r in plan.rules:
        assert (out / r.name / "summary.json").exists()
    assert (out / "summary.csv").exists() and (out / "plan.json").exists()
    # the opening is the first thing each game rolls, so it is identical under every rule set
    for df in frames[1:]:
        assert (df.first_mover.to_numpy() == frames[0].first_mover.to_numpy()).all()
    # and different seeds give different openings
    other = play_games(PRESETS["american"], 40, 8, "expert", "expert")
    assert not (other.first_mover.to_numpy() == frames[1].first_mover.to_numpy()).all()


def test_plan_rejects_bad_input():
    with pytest.raises(AcesimError, match="number of games must be positive"):
        _plan(games=0)
    with pytest.raises(AcesimError, match="number of games must be positive"):
        _plan(games=-5)
    with pytest.raises(AcesimError, match="chunk size must be positive"):
        _plan(chunk_size=0)
    with pytest.raises(AcesimError, match="given twice"):
        _plan(rules=("navy", "navy"))
    with pytest.raises(AcesimError, match="unknown strategy 'wizard'"):
        load_strategy("wizard")
    with pytest.raises(AcesimError, match="unknown search option"):
        load_strategy("expert@deep")
    with pytest.raises(AcesimError, match="beam width"):
        load_strategy("expert@beam=0")


def _cli(*args):
    return runner.invoke(app, ["simulate", "--no-progress", *args])


# Sizes and seeds out of range are typer's bounds, one-line usage errors of the
# console script: tests/test_faults_input.py.
@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--strategy", "wizard"], "unknown strategy 'wizard'"),
        (["--vs", "expert@beam=x"], "beam width"),
        (["--rules", "european,nonsense"], "unknown rules 'nonsense'"),
        (["--workers", "0"], "number of workers must be positive"),
        (["--rule", "doubles=seven"], "doubles"),
    ],
)
def test_cli_bad_input_is_one_line_and_writes_nothing(tmp_path, args, fragment):
    out = tmp_path / "run"
    result = _cli("--games", "5", "--out", str(out), *args)
    assert_one_line_error(result, fragment)
    assert not out.exists()


def test_cli_refuses_existing_output_without_force(tmp_path):
    out = tmp_path / "run"
    ok = _cli("--rules", "american", "--games", "6", "--strategy", "racer", "--vs", "safe", "--out", str(out))
    assert ok.exit_code == 0, ok.output
    before = sorted(p.name for p in out.rglob("*"))
    again = _cli("--rules", "american", "--games", "6", "--out", str(out))
    assert_one_line_error(again, "already exists", "--force")
    assert sorted(p.name for p in out.rglob("*")) == before
    forced = _cli("--rules", "navy", "--games", "4", "--strategy", "racer", "--vs", "safe", "--out", str(out), "--force")
    assert forced.exit_code == 0, forced.output
    assert json.loads((out / "summary.json").read_text())["rules_name"] == "navy"


def test_cli_force_never_deletes_a_folder_acesim_did_not_write(tmp_path):
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "thesis.tex").write_text("do not delete")
    result = _cli("--games", "3", "--out", str(precious), "--force")
    assert_one_line_error(result, "not an acesim output folder")
    assert (precious / "thesis.tex").read_text() == "do not delete"


def test_cli_unwritable_output(tmp_path):
    missing = tmp_path / "no" / "such" / "run"
    assert_one_line_error(_cli("--games", "3", "--out", str(missing)), "does not exist")
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert_one_line_error(_cli("--games", "3", "--out", str(a_file / "run")), "is not a folder")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):  # root writes anywhere; sysfs refuses even root
            target, fragment = Path("/sys/acesim-test-run"), "Operation not permitted"
        else:
            target, fragment = locked / "run", "not writable"
        assert_one_line_error(_cli("--games", "3", "--out", str(target)), fragment)
        assert not target.exists()
    finally:
        locked.chmod(0o700)


def test_cli_prints_the_summary_table(tmp_path):
    result = _cli("--rules", "american,navy", "--games", "30", "--strategy", "expert", "--vs", "racer", "--workers", "1")
    assert result.exit_code == 0, result.output
    for fragment in ("first-mover win rate", "rolls per game", "turns per game", "1-2s per game", "american", "navy", "30 games"):
        assert fragment in result.output


def _start_long_run(out: Path) -> subprocess.Popen:
    script = Path(sys.executable).with_name("acesim")
    proc = subprocess.Popen(
        [str(script), "simulate", "--rules", "navy", "--games", "400000", "--chunk-size", "200",
         "--strategy", "random", "--vs", "random", "--workers", "2", "--no-progress", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    # a cold Numba cache compiles first (minutes on a busy machine); the run is long
    # enough (400,000 games) that it is still going when the third chunk appears
    deadline = time.time() + 600
    while time.time() < deadline and len(list((out / "records").glob("*.parquet"))) < 3:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    assert len(list((out / "records").glob("*.parquet"))) >= 3, "no chunk written in 10 minutes"
    return proc


def _check_complete_chunks(out: Path) -> None:
    chunks = list((out / "records").glob("*.parquet"))
    assert chunks
    for chunk in chunks:
        assert len(pd.read_parquet(chunk)) == 200
    assert not (out / "summary.json").exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_run_leaves_only_complete_chunk_files(tmp_path, signum):
    """Ctrl-C or kill part-way: complete Parquet chunks stay; no temporary or summary file."""
    out = tmp_path / "run"
    proc = _start_long_run(out)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["acesim: interrupted"]
    assert all(p.suffix == ".parquet" for p in (out / "records").iterdir())
    _check_complete_chunks(out)
    assert not list(out.rglob("*.partial"))


def test_killed_run_never_leaves_a_half_written_parquet_file(tmp_path):
    """SIGKILL to the whole process group: nothing can clean up, yet every .parquet file is whole
    (a chunk is written under a temporary name and renamed into place)."""
    out = tmp_path / "run"
    proc = _start_long_run(out)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    _check_complete_chunks(out)
