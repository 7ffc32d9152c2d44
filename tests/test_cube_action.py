"""`acesim cube`: the cube's decision in one position, the same as the games' (docs/analyses.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from acesim.analyses.cube_action import cube_action
from acesim.common.errors import AcesimError
from acesim.engine.position import Position
from acesim.engine.rules import load_ruleset
from acesim.engine.sampling import sample_positions
from acesim.engine.strategies import as_strategy, lowered, resolve_spec
from acesim.kernels import cube as C, layout as L
from acesim.kernels.net import new_net_scratch
from tests.helpers import P
from tests.test_faults_input import console, console_one_line_error


@pytest.mark.parametrize("preset, strategy", [("backgammon", "best"), ("american", "expert"),
                                              ("european", "best")])
def test_the_action_is_the_one_the_games_take(preset, strategy):
    """Over sampled positions, centred and owned, the decision is ``kernels.cube.offer``'s."""
    rules = load_ruleset(preset, ["cube=money"])
    ra = rules.to_array()
    player = as_strategy(resolve_spec(strategy, rules))
    seats = lowered(player, player, rules)
    ns = new_net_scratch()
    boards, _ = sample_positions(rules, 150, 8)
    seen = set()
    for board in boards:
        if board[L.OFF] == L.N_CHECKERS or board[L.OPP_OFF] == L.N_CHECKERS:
            continue
        position = Position.from_board(board)
        for owner, value in (("centre", 1), ("mover", 2)):
            a = cube_action(rules, position, strategy, value, owner, ply=1)
            offered = C.offer(board, ra, seats.cube_models[0], seats.cube_models[1], owner == "mover", ns)
            expected = {C.NO_DOUBLE: False, C.TAKEN: True, C.DROPPED: True}[offered]
            assert a.doubles == expected
            if a.doubles:
                assert a.takes == (offered == C.TAKEN)
                assert a.action == ("double, take" if a.takes else "double, pass")
            # the equities say the same: double where the worse of take and pass beats playing on
            assert a.doubles == (min(a.double_take, a.double_pass) > a.no_double)
            assert a.takes == (a.taker_win > 0 and a.taker_win >= a.take_point)
            assert a.drop_points == C.drop_points(board, ra)
            seen.add(a.action)
    # the sample holds more than one kind of decision
    assert len(seen) >= 2, seen


def test_a_sure_winner_is_too_good_and_a_close_game_holds_no_double():
    rules = load_ruleset("backgammon", ["cube=money"])
    close = cube_action(rules, Position.start("backgammon"), ply=1)
    assert close.action == "no double" and not close.doubles
    assert 0.4 < close.win < 0.6 and close.takes
    # every checker home against a side whose checkers are all still in the outfield: a gammon is likely
    ahead = P({1: 3, 2: 3, 3: 3, 4: 2, 5: 2, 6: 2, 7: -3, 8: -3, 9: -3, 10: -2, 11: -2, 12: -2})
    a = cube_action(rules, ahead)
    assert a.win > 0.9
    assert a.action in ("too good: play on", "double, pass"), a
    if a.action == "too good: play on":
        assert a.no_double >= 1.0


def test_under_per_checker_scoring_a_drop_concedes_the_droppers_checkers_not_off():
    rules = load_ruleset("american", ["cube=money"])
    board = P({1: 1, 2: -11}, off=(14, 4))
    a = cube_action(rules, board)
    assert a.drop_points == 11
    assert a.win > 0.95 and a.action in ("too good: play on", "double, pass"), a


@pytest.mark.parametrize("knobs, kwargs, fragment", [
    ([], {}, "cube = none"),
    (["cube=money"], {"owner": "opponent"}, "opponent owns"),
    (["cube=money"], {"owner": "nobody"}, "centre, mover"),
    (["cube=money"], {"owner": "mover", "cube_value": 3}, "power of 2"),
    (["cube=money"], {"cube_value": 2}, "centred cube is at 1"),
    (["cube=money", "cube_max=4"], {"owner": "mover", "cube_value": 8}, "above cube_max"),
    (["cube=money", "cube_max=4"], {"owner": "mover", "cube_value": 4}, "cannot be doubled"),
    (["cube=money"], {"strategy": "learned:any@ply=2"}, "--ply"),
    (["cube=money"], {"strategy": "expert", "ply": 2}, "learned strategy"),
    (["cube=money"], {"ply": 3}, "ply 1"),
])
def test_what_cannot_be_decided_is_one_line(knobs, kwargs, fragment):
    rules = load_ruleset("backgammon", knobs)
    with pytest.raises(AcesimError, match=fragment):
        cube_action(rules, Position.start("backgammon"), **kwargs)


def test_ply_2_is_the_win_probability_after_each_roll_played_as_the_hint_plays_it():
    from acesim.analyses.hint import hint
    from acesim.kernels.turn import N_ROLLS, ROLL_A, ROLL_B, ROLL_WEIGHT

    rules = load_ruleset("backgammon", ["cube=money"])
    boards, _ = sample_positions(rules, 3, 12)
    for board in boards[1:]:
        position = Position.from_board(board)
        deeper = cube_action(rules, position)
        assert deeper.ply == 2
        mean = 0.0
        for r in range(N_ROLLS):
            frame = hint(rules, position, (int(ROLL_A[r]), int(ROLL_B[r])), ply=1)
            mean += ROLL_WEIGHT[r] * float(frame[frame.chosen].win.iloc[0]) / 36
        assert deeper.win == pytest.approx(mean, abs=1e-9)
        # W and L and the rule are ply 1's
        games = cube_action(rules, position, ply=1)
        assert (deeper.points_won, deeper.points_lost) == (games.points_won, games.points_lost)
        assert deeper.taker_win == pytest.approx(1 - deeper.win)
        assert deeper.doubles == C.should_double(deeper.win, deeper.points_won, deeper.points_lost, C.CUBE_LIFE,
                                                 False)


def test_a_finished_game_has_nothing_to_decide():
    rules = load_ruleset("backgammon", ["cube=money"])
    with pytest.raises(AcesimError, match="over"):
        cube_action(rules, P({24: -15}, off=(15, 0)))


def test_the_command_prints_the_decision_and_its_json():
    proc = console("cube", "--rules", "backgammon", "--rule", "cube=money", "--position", "start", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["action"] == "no double" and data["strategy"] == "learned:backgammon"
    assert np.isclose(data["double_pass"], 1.0)
    proc = console("cube", "--rules", "backgammon", "--rule", "cube=money", "--position", "start")
    assert proc.returncode == 0 and "Action: no double" in proc.stdout
    console_one_line_error(console("cube", "--rules", "backgammon", "--position", "start"), "cube = none")
    console_one_line_error(console("cube", "--rules", "backgammon", "--rule", "cube=money", "--position",
                                   "start", "--owner", "opponent"), "opponent owns")
