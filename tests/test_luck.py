"""The equity model, the value of each roll and per-roll luck (docs/statistics.md)."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest

from acesim.analyses.equity import fit_equity, positions, trace_games
from acesim.analyses.logistic import fit_logistic, sigmoid
from acesim.analyses.luck import luck_summary, trace_luck, values_after
from acesim.common.errors import AcesimError
from acesim.engine.games import play_games, play_records, traced_records
from acesim.engine.rules import Ruleset, load_ruleset
from acesim.engine.strategies import load_strategy
from acesim.kernels import dice_luck as LK, game_loop as K

EUROPEAN = Ruleset.preset("european")
BACKGAMMON = Ruleset.preset("backgammon")
# the bonus die is rolled, the opening dice are used, forfeits apply: every branch of W
ROLL_DIE = dataclasses.replace(
    Ruleset.preset("american"), acey_deucey="roll-die", opening="use", bonus_needs_full_use=True
)


@pytest.fixture(scope="module")
def models():
    return {r.name: fit_equity(r, "expert", 600, seed=3) for r in (EUROPEAN, BACKGAMMON, ROLL_DIE)}


def test_roll_tables():
    assert LK.ROLL_P.sum() == pytest.approx(1.0) and LK.OPENING_P.sum() == pytest.approx(1.0)
    for r in range(LK.N_ROLLS):
        a, b = LK.ROLL_A[r], LK.ROLL_B[r]
        assert LK.roll_index(a, b) == r == LK.roll_index(b, a)


@pytest.mark.parametrize("rules", [EUROPEAN, BACKGAMMON, ROLL_DIE], ids=lambda r: r.name)
def test_traced_games_are_the_games_play_games_plays(rules):
    traces = trace_games(rules, "expert", "safe", seed=11, first_game=3, n_games=25)
    frame = play_games(rules, 25, seed=11, strategy_a="expert", strategy_b="safe", first_game=3)
    expected = frame.set_index("game").loc[traces.games, list(K.RECORD_COLUMNS)].to_numpy()
    assert np.array_equal(traces.records, expected)
    rolls_per_game = traces.records[:, K.ROLLS] + traces.records[:, K.ROLLS + 1]
    assert np.array_equal(np.diff(traces.start), rolls_per_game)
    assert traces.too_long == 0


def test_records_of_traced_games_replay_the_games_the_traces_left_out():
    """A game the traces do not hold (unfinished, too long to keep: here taken out) is played again alone,
    so the rows are ``play_records``'s whichever games the traces kept; games outside the range are ignored."""
    traces = trace_games(EUROPEAN, "expert", "safe", seed=11, first_game=3, n_games=25)
    expected = play_records(EUROPEAN, *(load_strategy(s) for s in ("expert", "safe")), 11, 5, 20)
    assert np.array_equal(traced_records(traces, EUROPEAN, "expert", "safe", 11, 5, 20), expected)
    keep = np.isin(traces.games, [6, 7, 20], invert=True)
    assert keep.sum() == len(traces.games) - 3
    fewer = dataclasses.replace(traces, games=traces.games[keep], records=traces.records[keep])
    assert np.array_equal(traced_records(fewer, EUROPEAN, "expert", "safe", 11, 5, 20), expected)
    # a wrong player's replay would not match: the left-out games are really played, by the named players
    assert not np.array_equal(traced_records(fewer, EUROPEAN, "expert", "racer", 11, 5, 20), expected)


def test_logistic_fit_recovers_known_coefficients():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40_000, 2)) * [1.0, 3.0] + [0.5, -1.0]
    y = (rng.random(40_000) < sigmoid(0.3 + 1.2 * x[:, 0] - 0.4 * x[:, 1])).astype(int)
    intercept, slopes = fit_logistic(x, y).raw_coefficients()
    assert intercept == pytest.approx(0.3, abs=0.06)
    assert slopes == pytest.approx([1.2, -0.4], abs=0.05)
    with pytest.raises(AcesimError):
        fit_logistic(x, y * 2)


def test_equity_model_is_calibrated_and_beats_the_constant(models):
    for model, calibration in models.values():
        assert calibration.brier < calibration.brier_constant
        bins = calibration.bins
        assert bins["n"].sum() == calibration.positions and len(model.coef) == LK.N_INPUTS + 1
        # the predicted win rate falls with the pip deficit: the model learned the race
        pips = list(LK.INPUTS).index("pips_mover") + 1
        assert model.coef[pips] < 0


@pytest.mark.parametrize("name", ["european", "backgammon", ROLL_DIE.name])
def test_luck_identity_and_zero_sum(models, name):
    rules = {r.name: r for r in (EUROPEAN, BACKGAMMON, ROLL_DIE)}[name]
    model, _ = models[name]
    traces = trace_games(rules, "expert", "blocker", seed=5, first_game=0, n_games=30)
    rolls, games = trace_luck(rules, traces, "expert", "blocker", model)
    # result - V(start) = N + P + M, game by game
    assert games["identity_gap"].abs().max() < 1e-9
    # the play term vanishes unless a rolled bonus die makes the play differ from W's average
    if rules.acey_deucey != "roll-die":
        assert games["play"].abs().max() < 1e-12
    # N is A's luck minus B's, summed roll by roll
    signed = np.where(rolls["side"] == 0, rolls["luck"], -rolls["luck"])
    per_game = pd.Series(signed).groupby(rolls["game"].to_numpy()).sum()
    assert np.allclose(per_game.to_numpy(), games["net_luck"].to_numpy())
    # W of the roll that came is one of the 21 values and the mean is their weighted mean
    w = rolls[[f"w_{a}{b}" for a, b in zip(LK.ROLL_A, LK.ROLL_B)]].to_numpy()
    p = np.where(rolls["opening"].to_numpy()[:, None], LK.OPENING_P, LK.ROLL_P)
    assert np.allclose((w * p).sum(axis=1), rolls["w_mean"])
    assert ((w >= 0) & (w <= 1)).all()


def test_luck_averages_zero_over_rolls(models):
    """Luck has mean 0 when the dice are fair; tolerance 4 standard errors of the mean."""
    model, _ = models["backgammon"]
    traces = trace_games(BACKGAMMON, "expert", "expert", seed=21, first_game=0, n_games=80)
    rolls, _ = trace_luck(BACKGAMMON, traces, "expert", "expert", model)
    luck = rolls["luck"]
    assert abs(luck.mean()) < 4 * luck.std() / np.sqrt(len(luck))


def test_luck_summary_when_luck_decides_everything():
    rng = np.random.default_rng(4)
    n = 400
    net = rng.normal(0, 0.5, n)
    games = pd.DataFrame(
        {"net_luck": net, "result_a": (net > 0).astype(float), "model": 0.0, "identity_gap": 0.0}
    )
    games["luck_adjusted_a"] = games["result_a"] - games["net_luck"]
    summary = luck_summary(games, "synthetic", "a", "b")
    assert summary["luckier_side_won"] == 1.0 and summary["luckier_side_won_high"] == pytest.approx(1.0)
    assert summary["r2_result_on_net_luck"] > 0.5
    # luck independent of the result: R^2 near zero, the luckier side wins about half
    games["result_a"] = (rng.random(n) < 0.5).astype(float)
    summary = luck_summary(games, "synthetic", "a", "b")
    assert summary["r2_low"] == 0.0 and summary["luckier_side_won_low"] < 0.5 < summary["luckier_side_won_high"]


def test_luck_summary_when_one_seat_wins_every_game():
    """The result has no variance: R^2 is undefined (NaN, and so is its interval), without a numpy warning."""
    net = np.array([-0.5, -0.6, -0.4, -0.55, -0.58, -0.45])
    games = pd.DataFrame({"net_luck": net, "result_a": 0.0, "model": 0.0, "identity_gap": 0.0})
    games["luck_adjusted_a"] = games["result_a"] - games["net_luck"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summary = luck_summary(games, "synthetic", "a", "b")
    assert np.isnan([summary["r2_result_on_net_luck"], summary["r2_low"], summary["r2_high"]]).all()
    assert summary["luckier_side_won"] == 1.0 and summary["seat_a_win_rate"] == 0.0


def test_bad_input(models):
    model, _ = models["european"]
    traces = trace_games(EUROPEAN, "expert", "expert", seed=1, first_game=0, n_games=3)
    with pytest.raises(AcesimError, match="deterministic"):
        trace_luck(EUROPEAN, traces, "random", "expert", model)
    with pytest.raises(AcesimError):
        fit_equity(EUROPEAN, "expert", 5, seed=1)
    with pytest.raises(AcesimError):
        trace_games(EUROPEAN, "expert", "expert", seed=1, first_game=0, n_games=0)
    frame = positions(traces)
    assert set(frame["won"]) <= {0, 1} and len(frame) == len(traces.rolls)


@pytest.mark.parametrize("cube", [False, True])
def test_the_value_after_each_roll_is_w_of_the_roll_that_came(models, cube):
    """``values_after``, from V of the traced positions alone, is ``trace_luck``'s W of the roll that came,
    roll by roll, the last roll of a game ended by a dropped double (valued, not read off its result)
    included; the roll values rest on it."""
    rules = load_ruleset("european", ["cube=money"]) if cube else EUROPEAN
    model, _ = models["european"]
    traces = trace_games(rules, "expert", "expert", seed=5, first_game=0, n_games=40)
    rolls, _ = trace_luck(rules, traces, "expert", "expert", model)
    after = values_after(rules, traces, "expert", model, rolls["v"].to_numpy())
    assert after == pytest.approx(rolls["w_roll"].to_numpy(), abs=1e-12)
    assert (traces.records[:, K.DROPPED_DOUBLE] == 1).sum() > (5 if cube else -1)
