"""``acesim rollout`` and ``acesim.runs.rollout``: games played on from a position, luck subtracted."""

from __future__ import annotations

import json
import math

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from acesim.analyses.hint import Filter, hint
from acesim.cli import app
from acesim.common.errors import AcesimError
from acesim.common.stats import wilson
from acesim.engine.games import play_records
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from acesim.engine.sampling import sample_positions
from acesim.engine.strategies import as_strategy
from acesim.kernels import game_loop as K, layout as L
from acesim.kernels.trials import _roll
from acesim.runs import bench
from acesim.runs.bench import bench_rollout
from acesim.runs.rollout import Choice, _same_play, candidate_plays, rollout
from tests.helpers import P
from tests.test_faults_input import one_line_error

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))
BACKGAMMON = Ruleset.preset("backgammon")


def test_a_won_position_rolls_out_to_exactly_one():
    # one checker left on the ace point: every roll bears it off; the opponent has one off (a single game)
    pos = P({1: 1, 20: -14}, off=(14, 1))
    result = rollout(BACKGAMMON, pos, 72)
    row = result.candidates.iloc[0]
    assert row["win"] == 1.0 and row["points"] == 1.0 and row["sd"] == 0.0 and row["sd_plain"] == 0.0
    assert result.outcomes["points"].tolist() == [1.0]


@pytest.mark.parametrize("preset, k", [(p, k) for p in ("backgammon", "navy") for k in range(5)])
def test_the_reduced_estimate_agrees_with_the_plain_one(preset, k):
    rules = Ruleset.preset(preset)
    boards, _ = sample_positions(rules, 4, 100 + k)
    board = next(b for b in boards if b[L.OFF] < L.N_CHECKERS and b[L.OPP_OFF] < L.N_CHECKERS)
    pos = Position.from_board(board)
    row = rollout(rules, pos, 72, seed=k).candidates.iloc[0]
    # the two come from the same trials: they differ by the trials' mean luck, whose expectation is zero
    bound = 4 * (row["sd_plain"] + row["sd"]) / math.sqrt(row["n"])
    assert abs(row["points"] - row["points_plain"]) <= bound
    assert row["sd"] < row["sd_plain"]


def test_the_start_matches_simulate_first_mover_win_rate():
    # American: opening = reroll, so the first mover's first roll is an ordinary roll, as in a rollout
    rules = Ruleset.preset("american")
    trials = 648
    row = rollout(rules, Position.start(), trials, reduce=False).candidates.iloc[0]
    s = as_strategy("learned:american")
    records = play_records(rules, s, s, 7, 0, 1500)
    done = records[records[:, K.WINNER] >= 0]
    wins = int((done[:, K.WINNER] == done[:, K.FIRST_MOVER]).sum())
    rate = wins / len(done)
    se = math.sqrt(row["win"] * (1 - row["win"]) / trials + rate * (1 - rate) / len(done))
    assert abs(row["win"] - rate) <= 3 * se, (row["win"], rate, wilson(wins, len(done)))


def test_candidates_on_common_dice_and_any_worker_count():
    three = Choice(3, 1.0, Filter(16, 1.0))  # three plays, however far behind the best
    one = rollout(BACKGAMMON, Position.start("backgammon"), 72, dice="3-1", candidates=three, truncate=8, workers=1)
    two = rollout(BACKGAMMON, Position.start("backgammon"), 72, dice="3-1", candidates=three, truncate=8, workers=2)
    cols = ["play", "points", "win", "sd", "diff", "diff_low", "diff_high"]
    assert one.candidates[cols].equals(two.candidates[cols])
    frame = one.candidates
    assert len(frame) == 3 and frame["rank"].tolist() == [1, 2, 3]
    assert frame["diff"].iloc[0] == 0 and (frame["diff"] <= 0).all()
    assert abs(frame["p_best"].sum() - 1) < 1e-9


def test_identical_candidates_get_identical_trials():
    # European 1-2 from the start: 2-2 (then 5-5) and 5-5 (then 2-2) reach the same position
    rules = Ruleset.preset("european")
    frame = rollout(rules, Position.start(), 36, dice="1-2", candidates=2, truncate=6).candidates
    assert frame["position"].iloc[0] == frame["position"].iloc[1]
    assert frame["points"].iloc[0] == frame["points"].iloc[1] and frame["diff"].iloc[1] == 0.0


def test_truncated_trials_end_on_the_network():
    frame = rollout(BACKGAMMON, Position.start("backgammon"), 36, truncate=2).candidates
    assert frame["truncated"].iloc[0] == 36
    assert 0 < frame["win"].iloc[0] < 1


def test_a_rollout_truncated_after_one_roll_says_its_interval_is_no_interval():
    """Truncated after one roll with the luck measured from the player's own plays, every trial equals the
    network's 1-ply average: the interval [x, x] was printed as if it measured something (issue 28).  The
    heuristic's plays are not the player's, so their luck leaves a spread."""
    from acesim.runs.rollout import format_rollout

    once = rollout(BACKGAMMON, Position.start("backgammon"), 36, truncate=1, luck_plays="player")
    assert (once.candidates["sd"] < 1e-9).all()
    text = " ".join(format_rollout(once, 100).split())
    assert "interval has no width because nothing was left to chance" in text
    heuristic = rollout(BACKGAMMON, Position.start("backgammon"), 36, truncate=1)
    assert (heuristic.candidates["sd"] > 1e-3).all()
    assert "nothing was left to chance" not in " ".join(format_rollout(heuristic, 100).split())
    twice = rollout(BACKGAMMON, Position.start("backgammon"), 36, truncate=2)
    text = " ".join(format_rollout(twice, 100).split())
    assert "not the network's error" in text and "nothing was left to chance" not in text


def test_the_first_rolls_are_stratified():
    dice = np.zeros(4, dtype=np.uint64)
    firsts = {_roll(g, 0, dice) for g in range(36)}
    pairs = {(_roll(g, 0, dice), _roll(g, 1, dice)) for g in range(1296)}
    assert len(firsts) == 36 and len(pairs) == 1296


def test_until_ci_stops_at_a_batch():
    pos = P({1: 2, 2: 2, 20: -3}, off=(11, 12))
    result = rollout(BACKGAMMON, pos, 1296 * 4, until_ci=0.5)
    assert result.attrs["trials"] == 1296


def test_until_ci_plays_batches_until_its_target_and_says_so():
    """--until-ci stopped after one batch at the default --games and never said the target was missed
    (issue 29); it now plays batches up to its cap."""
    from acesim.runs.rollout import format_rollout

    pos = P({1: 2, 2: 2, 20: -3}, off=(11, 12))  # ±0.037 after one batch, ±0.026 after two, ±0.022 after three
    reached = rollout(BACKGAMMON, pos, 1296 * 10, strategy="expert", reduce=False, until_ci=0.024)
    assert reached.attrs["trials"] == 3 * 1296 and reached.attrs["stopped"] == "target"
    assert reached.attrs["widest"] <= 0.024
    assert "Target ±0.024 reached" in " ".join(format_rollout(reached, 100).split())
    capped = rollout(BACKGAMMON, pos, 2 * 1296, strategy="expert", reduce=False, until_ci=0.001)
    assert capped.attrs["trials"] == 2 * 1296 and capped.attrs["stopped"] == "cap"
    text = " ".join(format_rollout(capped, 100).split())
    assert "Target ±0.001 NOT reached: stopped at the cap of 2,592 trials" in text and "--max-trials" in text


def test_until_ci_and_its_cap_on_the_command_line():
    result = runner.invoke(app, ["rollout", "--rules", "backgammon", "-p", "start", "--strategy", "expert",
                                 "--no-reduce", "--until-ci", "0.001", "--max-trials", "1296", "--workers", "1",
                                 "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["stopped"] == "cap" and doc["max_trials"] == 1296 and doc["trials"] == 1296
    for args, message in ((["--until-ci", "0.01", "--games", "100"], "drop --games"),
                          (["--max-trials", "100"], "goes with --until-ci")):
        bad = runner.invoke(app, ["rollout", "-p", "start", *args])
        assert bad.exit_code == 1 and message in bad.output


def test_cli_text_and_json():
    result = runner.invoke(app, ["rollout", "-p", "4HPwATDgc/ABMA", "-r", "backgammon", "-d", "3-1", "--candidates",
                                 "2", "--margin", "1", "--filter-margin", "1", "-n", "36", "--no-progress", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "8/5 6/5" in result.output and "points vs best" in result.output
    result = runner.invoke(app, ["rollout", "-p", "start", "-r", "backgammon", "-n", "36", "--json", "--workers", "1"])
    data = json.loads(result.output)
    assert data["trials"] == 36 and len(data["candidates"]) == 1 and data["reduce"] is True


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--strategy", "random"], "random strategy"),
        (["--strategy", "expert", "--reduce"], "variance reduction needs a network"),
        (["--strategy", "expert", "--no-reduce", "--truncate", "3"], "truncated"),
        (["--until-ci", "0"], "until-ci"),
        (["--dice", "0-3"], "dice"),
    ],
)
def test_bad_input_is_one_line(args, fragment):
    result = runner.invoke(app, ["rollout", "-p", "start", "-r", "backgammon", "-n", "36", "--no-progress"] + args)
    one_line_error(result, fragment)


def test_a_heuristic_rolls_out_plainly():
    row = rollout(BACKGAMMON, Position.start("backgammon"), 36, "expert", reduce=False).candidates.iloc[0]
    assert row["sd"] == row["sd_plain"] and row["n"] == 36


def test_bench_rollout_measures_every_preset():
    table = bench_rollout(1, 4, 5, 1, markdown=True).splitlines()
    assert len(table) == 2 + 4 * 3  # no correction, then each way of measuring luck
    assert all(line.count("|") == 10 for line in table)
    assert [line.split("|")[3].strip() for line in table[2:5]] == ["none", "heuristic", "player"]
    assert all(line.split("|")[7].strip() == "1.0" for line in table[2::3])  # no correction: its own baseline


def test_bench_rollout_survives_trials_without_spread():
    """A few trials of a decided position can all end alike: the plain rollout then has no spread
    (the table's own row is still its baseline) and a corrected one may have none either."""
    assert bench._fewer_trials(0.0, 0.25) == 0.0
    assert bench._fewer_trials(1.0, 0.0) == math.inf
    assert math.isnan(bench._fewer_trials(0.0, 0.0))
    assert bench._fewer_trials(2.0, 0.5) == 4.0


def test_a_dask_cluster_gives_the_same_rollout():
    pos = Position.start("backgammon")
    local = rollout(BACKGAMMON, pos, 72, dice="3-1", candidates=2, truncate=6, workers=1)
    dask = rollout(BACKGAMMON, pos, 72, dice="3-1", candidates=2, truncate=6, scheduler="local:2")
    cols = ["play", "points", "win", "sd", "sd_plain", "diff"]
    assert local.candidates[cols].equals(dask.candidates[cols])


def test_absurd_trials_are_refused_at_once():
    """10**10 trials were accepted, and 7.7 million tasks built before the first trial (issue 28)."""
    result = runner.invoke(app, ["rollout", "-p", "start", "--games", str(10**10), "--no-progress"])
    assert result.exit_code == 1
    assert "must be in 1..40,000,000" in result.output and len(result.output.strip().splitlines()) == 1
    with pytest.raises(AcesimError, match="1..10,000,000"):
        rollout(BACKGAMMON, Position.start("backgammon"), 2 * 10**7, dice="3-1", candidates=4)


def test_a_rollout_in_rounds_of_tasks_equals_one_round(monkeypatch):
    import acesim.runs.rollout as R

    pos = P({1: 2, 2: 2, 20: -3}, off=(11, 12))
    whole = rollout(BACKGAMMON, pos, 360, workers=2)
    monkeypatch.setattr(R, "ROUND", 1)
    rounds = rollout(BACKGAMMON, pos, 360, workers=2)
    cols = ["n", "points", "points_low", "points_high", "win", "sd"]
    assert whole.candidates[cols].equals(rounds.candidates[cols])


def test_one_position_is_rolled_out_by_every_worker(monkeypatch):
    """A rollout of one position spreads its trials over the workers (measured: 1,296 backgammon trials
    in 26.9 s on one worker, 15.1 s on two)."""
    import acesim.runs.rollout as R

    seen = []
    real = R.map_tasks

    def spy(fn, tasks, backend, on_result=None):
        seen.append(len(tasks))
        return real(fn, tasks, backend, on_result)

    monkeypatch.setattr(R, "map_tasks", spy)
    rollout(BACKGAMMON, Position.start("backgammon"), 1296, workers=2, truncate=2)
    assert seen and seen[0] >= 4


# --- the candidates: the move filter in stages --------------------------------------------------

OPENINGS = pd.read_csv(Path(__file__).parent / "data" / "opening_rolls.csv", comment="#", keep_default_na=False)
@pytest.mark.parametrize("roll", OPENINGS["roll"])
def test_default_candidates_hold_the_published_best_opening_play(roll):
    # 2-1's slot, 13/11 6/5, is 7th at ply 2 (0.08 behind the split): within the default margin, and
    # within the default count since the count is 8
    best = OPENINGS.set_index("roll").loc[roll, "best"]
    rules = Ruleset.preset("backgammon")
    plays = [p for p, _ in candidate_plays(rules, Position.start(rules.start), roll, "learned:backgammon")]
    assert len(plays) <= Choice().count
    assert any(_same_play(best, p) for p in plays), f"{roll}: {best} not among {plays}"


def test_the_filter_keeps_plays_within_its_margins_and_a_named_play_always():
    rules = Ruleset.preset("backgammon")
    start = Position.start(rules.start)
    ranked = hint(rules, start, "6-2", "learned:backgammon", 2, None, Filter(16, 0.16))
    deep = ranked[ranked["ply"] == 2]
    assert 1 <= len(deep) <= 16
    tight = candidate_plays(rules, start, "6-2", "learned:backgammon", Choice(8, 0.0))
    assert [p for p, _ in tight] == list(deep["play"][deep["equity"] == deep["equity"].iloc[0]].head(8))
    wide = candidate_plays(rules, start, "6-2", "learned:backgammon", Choice(3, 1.0))
    assert [p for p, _ in wide] == list(deep["play"].head(3))
    named = candidate_plays(rules, start, "2-1", "learned:backgammon", Choice(2, plays=("6/5 13/11",)))
    assert [p for p, _ in named][-1] == "13/11 6/5" and len(named) == 3
    again = candidate_plays(rules, start, "2-1", "learned:backgammon", Choice(8, 1.0, plays=("13/11 6/5",)))
    assert sum(p == "13/11 6/5" for p, _ in again) == 1  # named and kept by the filter: rolled out once
    # a heuristic has no ply 2 and no equity: the best by its score
    assert len(candidate_plays(rules, start, "4-1", "expert", Choice(3))) == 3


def test_a_rollout_rolls_out_a_named_play_and_says_how_it_chose():
    out = run("rollout", "--rules", "backgammon", "--position", "start", "--dice", "2-1", "--candidates", "1",
              "--play", "13/11 6/5", "--games", "36", "--strategy", "learned:backgammon", "--workers", "1",
              "--no-progress", "--json")
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert [c["play"] for c in doc["candidates"]].count("13/11 6/5") == 1 and len(doc["candidates"]) == 2
    assert doc["choice"] == {"ply": 2, "count": 1, "margin": 0.1, "first_count": 16, "first_margin": 0.16,
                             "named": ["13/11 6/5"]}
    text = run("rollout", "--rules", "backgammon", "--position", "start", "--dice", "6-5", "--games", "36",
               "--strategy", "learned:backgammon", "--workers", "1", "--no-progress")
    assert "Candidates: of the plays within 0.16 of the best at ply 1 (at most 16), the best 8 within 0.10" in \
        " ".join(text.output.split())


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--dice", "2-1", "--play", "13/10 6/5"], "--play '13/10 6/5' is not a legal play of this roll"),
        (["--play", "13/11 6/5"], "--play names a play of --dice"),
        (["--dice", "2-1", "--margin", "-0.1"], "margin is an equity of 0 or more"),
        (["--dice", "2-1", "--filter-margin", "nan"], "margin is an equity of 0 or more"),
        (["--dice", "2-1", "--filter-count", "0"], "a filter keeps 1..1024 plays, got 0"),
    ],
)
def test_bad_filters_are_one_line(args, fragment):
    one_line_error(run("rollout", "--rules", "backgammon", "--position", "start", "--games", "36",
                       "--strategy", "learned:backgammon", "--workers", "1", "--no-progress", *args), fragment)


def test_the_text_says_which_candidates_the_rollout_did_not_separate():
    from acesim.runs.rollout import _separation_line

    frame = pd.DataFrame({"rank": [1, 2, 3], "diff_high": [0.0, 0.01, -0.02]})
    assert _separation_line(frame).startswith("Not separated: #2 is within the noise of #1")
    frame["diff_high"] = [0.0, -0.01, -0.02]
    assert _separation_line(frame).startswith("#1 is ahead of every other candidate")
    assert _separation_line(frame.head(1)) == ""
    out = run("rollout", "--rules", "backgammon", "--position", "start", "--dice", "6-2", "--games", "36",
              "--strategy", "learned:backgammon", "--workers", "1", "--no-progress")
    assert out.exit_code == 0, out.output
    assert "Not separated: #2" in out.output or "#1 is ahead of every other candidate" in out.output
