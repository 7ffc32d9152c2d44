"""The learned player's expected points stay within what the position allows (issue: gammons once a checker is off).

Once the opponent has borne off a checker the side on roll can win at most one
point under ``gammons`` scoring, and once it has borne one off it can lose at
most one; under ``per-checker`` the stake is the loser's checkers not yet off.
Every points estimate the player acts on (``net.equity_of``) and every points
value that enters a training target (``train.td_update``) must respect that.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from acesim.engine.games import trace_games
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import load_strategy
from acesim.kernels import game_loop as K, net as N
from acesim.kernels.choice import new_scratch
from acesim.kernels.layout import N_CHECKERS, OFF, OPP_OFF
from acesim.kernels.train import td_update


@njit
def _estimates(model, boards, rules, out):
    """Per board and view: the player's points estimate and its win probability."""
    ns = N.new_net_scratch()
    for i in range(boards.shape[0]):
        for view in range(2):
            out[i, view, 0] = N.equity_of(model, boards[i], view, rules, ns)
            N.outputs(model, boards[i], view, ns)
            out[i, view, 1] = ns.y[0]


def _positions_with_checkers_off(rules: Ruleset) -> np.ndarray:
    traces = trace_games(rules, f"learned:{rules.name}", f"learned:{rules.name}", 5, 0, 60)
    boards = traces.rolls[:, K.T_BOARD :].astype(np.int8)
    keep = (boards[:, OFF] + boards[:, OPP_OFF] > 0) & (boards[:, OFF] < N_CHECKERS) & (boards[:, OPP_OFF] < N_CHECKERS)
    return np.ascontiguousarray(boards[keep])


def _allowed(boards: np.ndarray, view: int, scoring: str) -> tuple[np.ndarray, np.ndarray]:
    """Most points the side on roll can win and lose from each board."""
    mine = boards[:, OFF] if view == 0 else boards[:, OPP_OFF]
    theirs = boards[:, OPP_OFF] if view == 0 else boards[:, OFF]
    if scoring == "per-checker":
        return N_CHECKERS - theirs.astype(float), N_CHECKERS - mine.astype(float)
    return np.where(theirs == 0, 3.0, 1.0), np.where(mine == 0, 3.0, 1.0)


@pytest.mark.parametrize("preset", ["backgammon", "american"])
def test_points_estimates_respect_the_position(preset):
    rules = Ruleset.preset(preset)
    model = np.array(load_strategy(f"learned:{preset}").weights)
    boards = _positions_with_checkers_off(rules)
    assert len(boards) > 200
    out = np.zeros((len(boards), 2, 2))
    _estimates(model, boards, rules.to_array(), out)
    for view in range(2):
        points, p = out[:, view, 0], out[:, view, 1]
        win, loss = _allowed(boards, view, rules.scoring)
        assert (points <= p * win - (1 - p) + 1e-12).all()
        assert (points >= p - (1 - p) * loss - 1e-12).all()
        if rules.scoring == "gammons":
            theirs = boards[:, OPP_OFF] if view == 0 else boards[:, OFF]
            mine = boards[:, OFF] if view == 0 else boards[:, OPP_OFF]
            assert (points[theirs > 0] <= 1 + 1e-12).all()  # no gammon left to win
            assert (points[mine > 0] >= -1 - 1e-12).all()  # none left to lose


@pytest.mark.parametrize("split", [False, True])
def test_training_targets_hold_the_points_value_to_the_position(split):
    """A network of one points output: its value held as in play (``bounded_points``); one whose points
    beyond 1 are outputs of their own (the shipped backgammon model): each held to what its side can still
    win or lose beyond 1, none once the other side has a checker off."""
    rules = Ruleset.preset("backgammon")
    if split:
        model = np.array(load_strategy("learned:backgammon").weights)
    else:  # the bounds hold whatever the weights
        from acesim.runs.training import new_model

        model = new_model(rules, (8, 0), seed=5)
        model[N.HEADER :] = np.random.default_rng(5).normal(0, 0.6, len(model) - N.HEADER)
    assert (int(model[N.M_OUTPUTS]) == N.SPLIT_POINTS) == split
    boards = _positions_with_checkers_off(rules)[:300]
    trace = np.zeros((len(boards), K.TRACE_WIDTH), dtype=np.int64)
    trace[:, K.T_BOARD :] = boards
    trace[:, K.T_SIDE] = 0  # every state seat A's, so values are the side on roll's
    values, targets = np.zeros((len(boards), N.MAX_OUTPUTS)), np.zeros((len(boards), N.MAX_OUTPUTS))
    td_update(model.copy(), rules.to_array(), trace, len(boards), 0, 1, 0.7, 0.0, new_scratch(1), values, targets,
              np.bool_(False))
    scale = model[N.M_POINTS_SCALE]
    p = values[:, 0]
    win, loss = _allowed(boards, 0, "gammons")
    if split:
        assert (values[:, 1] <= (win - 1) / (scale - 1) + 1e-12).all()
        assert (values[:, 2] <= (loss - 1) / (scale - 1) + 1e-12).all()
        assert (values[win == 1, 1] == 0).all() and (values[loss == 1, 2] == 0).all() and (win == 1).any()
        return
    points = scale * (2 * values[:, 1] - 1)
    assert (points <= p * win - (1 - p) + 1e-9).all()
    assert (points >= p - (1 - p) * loss - 1e-9).all()
