"""The rollouts' luck measured from the heuristic's plays (``--luck-plays heuristic``, the default)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from typer.testing import CliRunner

from acesim.analyses.hint import hint
from acesim.cli import app
from acesim.common.errors import AcesimError
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset, load_ruleset
from acesim.engine.sampling import sample_positions
from acesim.engine.strategies import RANKER, as_strategy
from acesim.kernels import layout as L
from acesim.kernels.choice import LEARNED, LINEAR
from acesim.kernels.lookahead import N_VALUES, V_EQUITY, _outcome_value, _play_out, heuristic_roll_values
from acesim.kernels.memory import Memory, keep_memory, worker_memory
from acesim.kernels.net import ranker_of
from acesim.kernels.trials import HEURISTIC_WIDTH
from acesim.kernels.sequence import roll_sequence
from acesim.kernels.turn import MAX_OUTCOMES, N_ROLLS, ROLL_A, ROLL_B
from acesim.runs.rollout import rollout

from tests.test_faults_input import one_line_error

BACKGAMMON = Ruleset.preset("backgammon")
runner = CliRunner()


def test_the_heuristic_is_the_rankers_strategy_at_its_widths():
    ranker = as_strategy(RANKER)
    learned = as_strategy("learned:backgammon")
    assert ranker.width == ranker.choice_width == HEURISTIC_WIDTH
    assert np.array_equal(ranker_of(np.asarray(learned.weights)), np.asarray(ranker.weights))


def _kernel_values(rules: Ruleset, board: np.ndarray) -> np.ndarray:
    model = np.asarray(as_strategy("learned:backgammon").weights)
    values = np.zeros((N_ROLLS, N_VALUES))
    ws, uniform, out, sc = worker_memory(HEURISTIC_WIDTH)
    ranker = np.array(ranker_of(model))
    ws, uniform = heuristic_roll_values(board, rules.to_array(), ranker, HEURISTIC_WIDTH, HEURISTIC_WIDTH, model, ws,
                                        uniform, out, sc, values)
    keep_memory(Memory(ws, uniform, out, sc))
    return values


@pytest.mark.parametrize("k", range(3))
def test_each_roll_is_the_heuristics_play_valued_by_the_network(k):
    # an independent route: hint's play chosen by the heuristic, and the network's ply-1 value of that play
    boards, _ = sample_positions(BACKGAMMON, 6, 300 + k)
    board = next(b for b in boards if b[L.OFF] < L.N_CHECKERS and b[L.OPP_OFF] < L.N_CHECKERS)
    values = _kernel_values(BACKGAMMON, board)
    position = Position.from_board(board)
    for r in range(N_ROLLS):
        dice = (int(ROLL_A[r]), int(ROLL_B[r]))
        chosen = hint(BACKGAMMON, position, dice, RANKER, ply=1)
        chosen = chosen[chosen["chosen"]]["position"].iloc[0]
        valued = hint(BACKGAMMON, position, dice, "learned:backgammon", ply=1)
        equity = valued.loc[valued["position"] == chosen, "equity"].iloc[0]
        assert math.isclose(values[r, V_EQUITY], equity, rel_tol=0, abs_tol=1e-12), (dice, values[r], equity)


@pytest.mark.parametrize("preset, k", [("european", 0), ("american", 1), ("navy", 2)])
def test_both_ways_of_measuring_luck_leave_the_trials_alone_and_narrow_them(preset, k):
    rules = Ruleset.preset(preset)
    boards, _ = sample_positions(rules, 4, 200 + k)
    board = next(b for b in boards if b[L.OFF] < L.N_CHECKERS and b[L.OPP_OFF] < L.N_CHECKERS)
    pos = Position.from_board(board)
    heuristic = rollout(rules, pos, 72, seed=k, workers=1).candidates.iloc[0]
    player = rollout(rules, pos, 72, seed=k, workers=1, luck_plays="player").candidates.iloc[0]
    # the games are the same: only the luck subtracted from them differs, with zero mean either way
    assert heuristic["points_plain"] == player["points_plain"] and heuristic["sd_plain"] == player["sd_plain"]
    for row in (heuristic, player):
        bound = 4 * (row["sd_plain"] + row["sd"]) / math.sqrt(row["n"])
        assert abs(row["points"] - row["points_plain"]) <= bound
        assert row["sd"] < row["sd_plain"]
    assert heuristic["points"] != player["points"]


def test_the_luck_plays_are_checked_and_reported():
    pos = Position.start("backgammon")
    result = rollout(BACKGAMMON, pos, 36, workers=1)
    assert result.attrs["luck_plays"] == "heuristic"
    assert rollout(BACKGAMMON, pos, 36, workers=1, reduce=False).attrs["luck_plays"] is None
    with pytest.raises(AcesimError, match="luck plays must be one of heuristic, player, got 'random'"):
        rollout(BACKGAMMON, pos, 36, workers=1, luck_plays="random")
    result = runner.invoke(app, ["rollout", "-p", "start", "-r", "backgammon", "-n", "36", "--no-progress",
                                 "--luck-plays", "random"])
    one_line_error(result, "luck plays must be one of heuristic, player")
    result = runner.invoke(app, ["rollout", "-p", "start", "-r", "backgammon", "-n", "36", "--no-progress",
                                 "--workers", "1", "--luck-plays", "player"])
    assert result.exit_code == 0 and "luck-reduced by the player's plays" in result.output, result.output


@pytest.mark.parametrize("preset, knobs", [("european", []), ("european", ["acey_deucey=roll-die"]),
                                           ("american", []), ("navy", [])])
def test_the_heuristic_roll_is_play_roll_of_the_heuristic(preset, knobs):
    # heuristic_roll_values plays each roll through turn.play_heuristic_roll; the reference is play_roll itself
    rules = load_ruleset(preset, knobs)
    array = rules.to_array()
    model = np.asarray(as_strategy(f"learned:{preset}").weights)
    ranker = np.array(ranker_of(model))
    seq = roll_sequence(array)
    work = np.zeros(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
    outcomes = np.empty((MAX_OUTCOMES, L.BOARD_SIZE), dtype=L.BOARD_DTYPE)
    steps = np.zeros(MAX_OUTCOMES, dtype=np.int64)
    choices = np.zeros(4, dtype=np.uint64)
    want = np.zeros(N_VALUES)
    boards, _ = sample_positions(rules, 12, 400)
    for board in (b for b in boards if b[L.OFF] < L.N_CHECKERS and b[L.OPP_OFF] < L.N_CHECKERS):
        got = np.zeros((N_ROLLS, N_VALUES))
        ws, uniform, out, sc = worker_memory(HEURISTIC_WIDTH)
        ws, uniform = heuristic_roll_values(board, array, ranker, HEURISTIC_WIDTH, HEURISTIC_WIDTH, model, ws, uniform,
                                            out, sc, got)
        for r in range(N_ROLLS):
            ws, uniform, count = _play_out(board, array, seq, ROLL_A[r], ROLL_B[r], False, LINEAR, HEURISTIC_WIDTH,
                                           HEURISTIC_WIDTH, ranker, choices, ws, uniform, out, sc, work, outcomes,
                                           steps)
            _outcome_value(array, LEARNED, model, count, work, outcomes, steps, sc, want)
            assert np.array_equal(got[r], want), (ROLL_A[r], ROLL_B[r], got[r], want)
        keep_memory(Memory(ws, uniform, out, sc))
