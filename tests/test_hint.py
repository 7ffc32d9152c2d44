"""``acesim hint`` and ``acesim.analyses.hint``: every play of a roll ranked by a strategy's evaluation."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from acesim.analyses.hint import PLY3_FILTER, compact_notation, hint
from acesim.cli import app
from acesim.engine.moves import legal_plays
from acesim.engine.position import Position, parse_position
from acesim.engine.rules import Ruleset
from acesim.engine.sampling import sample_positions
from acesim.runs.bench import bench_hint
from tests.helpers import P
from tests.test_faults_input import console, console_one_line_error, one_line_error

runner = CliRunner()
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


@pytest.mark.parametrize(
    "moves, hits, text",
    [
        ((), (), "(no move)"),
        ((("waiting", 22),) * 4, (False,) * 4, "waiting/22(4)"),
        (((13, 7),), (True,), "13/7*"),
        (((24, 21), (21, 16)), (False, False), "24/16"),
        (((13, 7), (7, 1)), (True, False), "13/7*/1"),
        (((8, 5), (6, 5), (8, 5)), (False, False, False), "8/5(2) 6/5"),
        (((6, "off"), ("bar", 22)), (False, False), "bar/22 6/off"),
    ],
)
def test_compact_notation(moves, hits, text):
    assert compact_notation(moves, hits) == text


def test_every_distinct_play_once_best_first():
    rules = Ruleset.preset("backgammon")
    frame = hint(rules, Position.start("backgammon"), "6-3")
    plays = legal_plays(rules, Position.start("backgammon"), (6, 3)).plays
    assert sorted(frame["position"]) == sorted(p.position.to_id() for p in plays)
    assert list(frame["rank"]) == list(range(1, len(plays) + 1))
    assert frame["equity"].is_monotonic_decreasing
    assert frame["diff"].iloc[0] == 0 and (frame["diff"] <= 0).all()
    assert ((frame["win"] > 0) & (frame["win"] < 1)).all()
    assert frame.attrs["plays"] == len(plays) and frame.attrs["strategy"] == "learned:backgammon"


def test_a_position_with_one_legal_play_ranks_it_alone():
    # one checker on the bar against a board closed but for point 20 (the mover's 5-point entry)
    pos = P({1: 14, 19: -2, 21: -2, 22: -2, 23: -2, 24: -2}, bar=(1, 0), waiting=(0, 0), off=(0, 5))
    rules = Ruleset.preset("backgammon")
    plays = legal_plays(rules, pos, (5, 5)).plays
    assert len(plays) == 1  # bar/20/15/10/5: nothing else can move
    frame = hint(rules, pos, "5-5", ply=2)
    assert len(frame) == 1 and frame["play"].iloc[0] == "bar/5"
    assert frame["chosen"].iloc[0] and frame["diff"].iloc[0] == 0 and frame["rank"].iloc[0] == 1


def test_a_play_that_wins_the_game_ranks_first_with_its_points():
    pos = P({1: 1, 2: 1, 20: -3}, off=(13, 12))
    frame = hint(Ruleset.preset("backgammon"), pos, "2-1")
    assert frame["play"].iloc[0] == "2/off 1/off"
    assert frame["win"].iloc[0] == 1.0 and frame["points"].iloc[0] == 1.0 and frame["chosen"].iloc[0]


@pytest.mark.parametrize("preset", ["european", "american", "navy", "backgammon"])
@pytest.mark.parametrize("strategy", ["learned:{p}@full", "expert@full"])
def test_the_best_play_is_the_strategys_own_choice(preset, strategy):
    rules = Ruleset.preset(preset)
    boards, dice = sample_positions(rules, 40, 11)
    for board, roll in zip(boards, dice):
        if board[28] == 15 or board[29] == 15:
            continue
        frame = hint(rules, Position.from_board(board), tuple(int(d) for d in roll), strategy.format(p=preset), ply=1)
        for stage in frame["stage"].unique():
            part = frame[frame["stage"] == stage]
            best = part["equity"].iloc[0]
            chosen = part[part["chosen"]]
            assert len(chosen) == 1, (preset, roll)
            # the strategy's pick is a best row: ties may order either way
            assert chosen["equity"].iloc[0] == pytest.approx(best, abs=1e-12), (preset, roll, stage)


def test_the_default_search_picks_no_better_than_the_full_ranking():
    rules = Ruleset.preset("european")
    boards, dice = sample_positions(rules, 30, 3)
    for board, roll in zip(boards, dice):
        frame = hint(rules, Position.from_board(board), tuple(int(d) for d in roll))
        for stage in frame["stage"].unique():
            part = frame[frame["stage"] == stage]
            assert part["chosen"].sum() == 1
            assert part.loc[part["chosen"], "equity"].iloc[0] <= part["equity"].iloc[0] + 1e-12


def _ply1_best(rules, position, roll, strategy):
    """The roller's value of its best play of ``roll``: a 1-2 with a bonus goes on to its best double."""
    frame = hint(rules, position, roll, strategy, ply=1)
    stages = set(frame["stage"])
    part = frame[frame["stage"] == ("double" if "double" in stages else frame["stage"].iloc[0])]
    return part[["equity", "win"]].iloc[0].to_numpy()


@pytest.mark.parametrize("preset", ["european", "backgammon"])
def test_ply_two_is_the_mean_of_the_next_rolls_ply_one(preset):
    rules = Ruleset.preset(preset)
    strategy = f"learned:{preset}@full"
    boards, dice = sample_positions(rules, 6, 21)
    checked = 0
    for board, roll in zip(boards, dice):
        roll = tuple(int(d) for d in roll)
        if roll[0] == roll[1] or roll[0] + roll[1] == 3:
            continue  # the next side on roll is then the mover itself; checked on plain rolls
        deep = hint(rules, Position.from_board(board), roll, strategy, ply=2, top=2)
        for row in deep.itertuples():
            after = Position.from_id(row.position)
            if after.off[0] == 15:
                continue
            total = np.zeros(2)
            for a, b in ROLLS:
                total += (1 if a == b else 2) / 36 * _ply1_best(rules, after.flipped(), (a, b), strategy)
            assert row.equity == pytest.approx(-total[0], abs=1e-9)
            assert row.win == pytest.approx(1 - total[1], abs=1e-9)
            checked += 1
    assert checked >= 2


def test_ply_three_is_the_mean_of_the_next_rolls_ply_two():
    """A play's ply-3 equity is the mean over the opponent's 36 rolls of minus the ply-2 equity of the
    play the opponent makes (its own choice, as in games). In backgammon every roll ends the turn."""
    rules = Ruleset.preset("backgammon")
    strategy = "learned:backgammon@full"
    boards, dice = sample_positions(rules, 4, 33)
    checked = 0
    for board, roll in zip(boards, dice):
        deep = hint(rules, Position.from_board(board), tuple(int(d) for d in roll), strategy, ply=3, top=2)
        for row in deep[deep["ply"] == 3].itertuples():
            after = Position.from_id(row.position)
            if after.off[0] == 15:
                continue
            total = np.zeros(2)
            for a, b in ROLLS:
                reply = hint(rules, after.flipped(), (a, b), strategy, ply=2)
                total += (1 if a == b else 2) / 36 * reply.loc[reply["chosen"], ["equity", "win"]].iloc[0].to_numpy()
            assert row.equity == pytest.approx(-total[0], abs=1e-9)
            assert row.win == pytest.approx(1 - total[1], abs=1e-9)
            checked += 1
    assert checked >= 2


@pytest.mark.parametrize("preset", ["european", "backgammon"])
def test_ply_three_takes_the_best_of_ply_two_through_its_filter_and_ranks_them_first(preset):
    rules = Ruleset.preset(preset)
    boards, dice = sample_positions(rules, 3, 8)
    for board, roll in zip(boards, dice):
        position, roll = Position.from_board(board), tuple(int(d) for d in roll)
        two = hint(rules, position, roll, ply=2)
        three = hint(rules, position, roll, ply=3)
        two, three = two[two["stage"] == two["stage"].iloc[0]], three[three["stage"] == three["stage"].iloc[0]]
        kept = two.iloc[PLY3_FILTER.keep(np.where(two["ply"] == 2, two["equity"], -np.inf))]
        deepest = three[three["ply"] == 3]
        assert set(deepest["play"]) == set(kept["play"])
        assert list(three["ply"]) == sorted(three["ply"], reverse=True)  # the deepest rank first
        assert three.attrs["ply"] == 3


@pytest.mark.parametrize("strategy, ply", [("best", 2), ("learned:backgammon", 2), ("expert", 1)])
def test_the_default_ply_is_two_with_a_network_and_one_without(strategy, ply):
    frame = hint(Ruleset.preset("backgammon"), Position.start("backgammon"), "6-4", strategy)
    assert frame.attrs["ply"] == ply and set(frame["ply"]) == {ply}


def test_ply_two_judges_right_where_ply_one_misjudged():
    """Ply 1 plays 10/3* here, a loss of 457 millipoints by GNU Backgammon; ply 2 (the default) finds
    20/16 13/10 (issue 29)."""
    frame = hint(Ruleset.preset("backgammon"), parse_position("fF0XxfF8Hvk972vbJjWNAAAA"), "4-3")
    assert frame.attrs["ply"] == 2 and frame["play"].iloc[0] == "20/16 13/10"


def test_a_one_two_ranks_its_plays_then_the_six_doubles():
    rules = Ruleset.preset("european")
    frame = hint(rules, Position.start(), "1-2")
    assert list(frame["stage"].unique()) == ["1-2", "double"]
    doubles = frame[frame["stage"] == "double"]
    assert sorted(doubles["double"]) == [1, 2, 3, 4, 5, 6]
    assert doubles["equity"].is_monotonic_decreasing and doubles["chosen"].sum() == 1
    # each double's play is a legal play of its whole segment from the best 1-2 play
    after = Position.from_id(frame["position"].iloc[0])
    for row in doubles.itertuples():
        segment = legal_plays(rules, after, (row.double, row.double))
        assert len(segment.segment) == 8
        assert row.position in {p.position.to_id() for p in segment.plays}


def test_a_rolled_double_has_no_choice():
    rules = Ruleset.preset("european").with_overrides({"acey_deucey": "roll-die"})
    frame = hint(rules, Position.start(), "2-1")
    assert frame.attrs["double_rolled"]
    assert not frame.loc[frame["stage"] == "double", "chosen"].any()


def test_no_doubles_where_a_1_2_earns_none():
    frame = hint(Ruleset.preset("backgammon"), Position.start("backgammon"), "1-2")
    assert set(frame["stage"]) == {"play"}


def test_ply_zero_and_the_heuristics_carry_a_score_not_an_equity():
    rules = Ruleset.preset("american")
    zero = hint(rules, Position.start(), "6-3", ply=0)
    assert zero["win"].isna().all() and zero["equity"].notna().all()
    expert = hint(rules, Position.start(), "6-3", "expert")
    assert expert["win"].isna().all() and expert["chosen"].iloc[0]


def test_top_keeps_the_best_rows():
    rules = Ruleset.preset("backgammon")
    full = hint(rules, Position.start("backgammon"), "6-3")
    three = hint(rules, Position.start("backgammon"), "6-3", top=3)
    assert list(three["position"]) == list(full["position"][:3])


def test_cli_text_and_json():
    result = runner.invoke(app, ["hint", "-p", "start", "-d", "1-2", "--rules", "european"])
    assert result.exit_code == 0, result.output
    assert "Each double after the best 1-2 play" in result.output and "2-2 then 5-5" in result.output
    result = runner.invoke(app, ["hint", "-p", "start", "-d", "6-3", "-r", "backgammon", "--json", "--top", "0"])
    data = json.loads(result.output)
    assert data["plays"] == len(data["rows"]) and data["rows"][0]["rank"] == 1


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--dice", "7-1"], "dice"),
        (["--strategy", "random"], "random strategy"),
        (["--strategy", "expert", "--ply", "2"], "ply 2"),
        (["--strategy", "expert", "--ply", "3"], "ply 3"),
        (["--strategy", "learned:backgammon"], "trained"),
        (["--strategy", "nosuch"], "nosuch"),
    ],
)
def test_bad_input_is_one_line(args, fragment):
    result = runner.invoke(app, ["hint", "-p", "start", "-d", "6-3"] + args)
    if "--dice" in args:
        result = runner.invoke(app, ["hint", "-p", "start"] + args)
    one_line_error(result, fragment)


def test_a_finished_game_is_refused():
    pos = P({20: -3}, off=(15, 12))
    result = runner.invoke(app, ["hint", "-p", pos.to_id(), "-d", "6-3", "-r", "backgammon"])
    one_line_error(result, "game is over")


@pytest.mark.parametrize("args", [["--ply", "4"], ["--top", "-1"]])
def test_out_of_range_options_are_usage_errors(args):
    console_one_line_error(console("hint", "-p", "start", "-d", "6-3", *args))


def test_bench_hint_times_every_preset_and_ply():
    table = bench_hint(3, 5, markdown=True).splitlines()
    assert len(table) == 2 + 4 * 4
    assert all(line.count("|") == 9 for line in table)
