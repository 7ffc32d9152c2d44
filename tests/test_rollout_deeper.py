"""Rollout trials played at ply 2 (``--trial-ply 2``): each segment's play chosen one roll deeper."""

from __future__ import annotations

import math

import numpy as np
import pytest
from typer.testing import CliRunner

from acesim.analyses.hint import hint
from acesim.cli import app
from acesim.common.errors import AcesimError
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from acesim.engine.sampling import sample_positions
from acesim.engine.strategies import as_strategy, lowered
from acesim.kernels import layout as L
from acesim.kernels.lookahead import deeper_segment
from acesim.kernels.memory import Memory, keep_memory, worker_memory
from acesim.kernels.sequence import roll_sequence
from acesim.runs.rollout import TRIAL_FILTER, rollout
from tests.test_faults_input import one_line_error

runner = CliRunner()


def _deeper_play(rules: Ruleset, board: np.ndarray, dice: tuple[int, int]) -> np.ndarray:
    strategy = as_strategy(f"learned:{rules.name}")
    seats = lowered(strategy, strategy, rules)
    array = rules.to_array()
    width, choice_width = (int(w) for w in seats.widths[0, :2])
    ws, uniform, out, sc = worker_memory(max(width, choice_width))
    result = np.empty(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
    ws, uniform, _, _ = deeper_segment(board, array, roll_sequence(array), dice[0], dice[1], int(seats.kinds[0]),
                                       width, choice_width, np.ascontiguousarray(seats.weights[0]),
                                       TRIAL_FILTER.count, TRIAL_FILTER.margin, np.bool_(False),
                                       np.zeros(4, dtype=np.uint64), ws,
                                       uniform, out, sc, result)
    keep_memory(Memory(ws, uniform, out, sc))
    return result


@pytest.mark.parametrize("preset, dice", [("backgammon", (6, 4)), ("backgammon", (3, 3)), ("european", (5, 3)),
                                          ("european", (1, 2)), ("navy", (4, 2))])
def test_the_deeper_play_is_hints_best_at_ply_2_with_the_same_filter(preset, dice):
    rules = Ruleset.preset(preset)
    boards, _ = sample_positions(rules, 8, 500)
    checked = 0
    for board in boards:
        if board[L.OFF] == L.N_CHECKERS or board[L.OPP_OFF] == L.N_CHECKERS:
            continue
        frame = hint(rules, Position.from_board(board), dice, f"learned:{preset}", ply=2, deep=TRIAL_FILTER)
        plays = frame[frame["double"] == 0]  # the segment's plays (after a 1-2, the doubles follow)
        chosen = Position.from_board(_deeper_play(rules, board, dice)).to_id()
        best = plays.iloc[0]
        row = plays[plays["position"] == chosen].iloc[0]
        # the same play, or one of the same value at the same depth (a tie)
        assert row["ply"] == best["ply"] and math.isclose(row["equity"], best["equity"], abs_tol=1e-12), (
            chosen, best["position"])
        checked += 1
    assert checked >= 4


def test_a_rollout_at_ply_2_plays_other_trials_and_says_so():
    rules = Ruleset.preset("backgammon")
    pos = Position.start("backgammon")
    shallow = rollout(rules, pos, 36, dice="6-4", candidates=1, truncate=4, workers=1)
    deep = rollout(rules, pos, 36, dice="6-4", candidates=1, truncate=4, workers=1, trial_ply=2)
    assert shallow.attrs["trial_ply"] == 1 and deep.attrs["trial_ply"] == 2
    assert shallow.candidates["play"].iloc[0] == deep.candidates["play"].iloc[0]  # the candidates are not the trials
    assert shallow.candidates["points_plain"].iloc[0] != deep.candidates["points_plain"].iloc[0]
    again = rollout(rules, pos, 36, dice="6-4", candidates=1, truncate=4, scheduler="local:2", trial_ply=2)
    assert again.candidates["points"].iloc[0] == deep.candidates["points"].iloc[0]
    text = runner.invoke(app, ["rollout", "-p", "start", "-r", "backgammon", "-n", "36", "--truncate", "2",
                               "--trial-ply", "2", "--workers", "1", "--no-progress"])
    assert text.exit_code == 0 and "trials at ply 2" in " ".join(text.output.split()), text.output


def test_trials_at_ply_2_need_a_network_and_a_ply_of_1_or_2():
    rules = Ruleset.preset("backgammon")
    pos = Position.start("backgammon")
    with pytest.raises(AcesimError, match="trials' ply must be 1"):
        rollout(rules, pos, 36, trial_ply=3)
    with pytest.raises(AcesimError, match="trials at ply 2 look one roll deeper with a network; 'expert'"):
        rollout(rules, pos, 36, "expert", reduce=False, trial_ply=2)
    one_line_error(runner.invoke(app, ["rollout", "-p", "start", "-r", "backgammon", "--strategy", "expert",
                                       "--no-reduce", "--trial-ply", "2", "--no-progress"]), "look one roll deeper")
    one_line_error(runner.invoke(app, ["rollout", "-p", "start", "-r", "backgammon", "--trial-ply", "3",
                                       "--no-progress"]), "the trials' ply must be 1")
