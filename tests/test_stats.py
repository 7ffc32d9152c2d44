"""Intervals over the units of games (turns, positions, 1-2 choices): the game is the sampling unit.

The units of one game are not independent, so repeating every unit of each game k times adds no
information: the tests below repeat them and require the same interval, which an interval over units
(narrower by √k) fails.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from acesim.analyses.bonus import chosen_doubles_by_phase, dice_sums, merged_dice_sums, roll_values
from acesim.analyses.equity import calibrate_probabilities
from acesim.common.stats import (
    per_game,
    ratio_ci,
    ratio_mean_ci,
    ratio_variance,
    sample_mean_ci,
    wilson,
)
from acesim.kernels.dice_luck import ROLL_A, ROLL_B, ROLL_P


def _repeated(frame: pd.DataFrame, k: int) -> pd.DataFrame:
    """Every row of ``frame`` k times, in its game."""
    return frame.loc[frame.index.repeat(k)].reset_index(drop=True)


def test_a_mean_over_games_of_equal_size_is_the_mean_of_the_games():
    rng = np.random.default_rng(4)
    per_game_value = rng.normal(size=80)
    k = 7
    mean, low, high = ratio_mean_ci(k * per_game_value, np.full(80, k))
    assert (mean, low, high) == pytest.approx(sample_mean_ci(per_game_value))


def test_ratio_variance_is_the_delta_method():
    y, x = np.array([1.0, 0.0, 4.0, 2.0]), np.array([10.0, 10.0, 20.0, 10.0])
    r, var, total = ratio_variance(y, x)
    assert (r, total) == (7 / 50, 50.0)
    assert var == pytest.approx(((y - r * x) ** 2).sum() / 12 / 12.5**2)
    assert all(math.isnan(v) for v in ratio_variance(np.ones(1), np.ones(1))[1:2])
    assert math.isnan(ratio_mean_ci(np.zeros(0), np.zeros(0))[0])


def test_a_share_of_games_whose_units_all_agree_is_wilson_over_games():
    won = np.arange(200) % 3 == 0  # a third of the games won, every unit of a game alike
    _, low, high = ratio_ci(10.0 * won, np.full(200, 10.0))
    w_low, w_high = wilson(int(won.sum()), 200)
    assert (high - low) == pytest.approx(w_high - w_low, rel=0.01)
    assert (high - low) > 2.5 * np.subtract(*wilson(int(won.sum()) * 10, 2000)[::-1])


def test_per_game_sums_each_games_units():
    counts, sums = per_game(np.array([5, 2, 5, 5, 2]), np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert list(counts) == [2, 3] and list(sums) == [7.0, 8.0]


def _dice(games: int, seed: int, true_values: np.ndarray | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """Fake rolls of games in which the dice fall independently of the state: each state has a covariate
    x (with a level of its game's, so the states of a game are correlated) and V's error M = 0.3 x; a roll
    r gains c_r (x − 1) + d_r over the average roll (Σ p c = Σ p d = 0), so the value of r is d_r.
    Returns the rolls (game, dice, y = W − V, V, x) and d."""
    rng = np.random.default_rng(seed)
    p = ROLL_P
    c = rng.normal(0, 0.05, 21)
    c -= p @ c
    d = rng.normal(0, 0.02, 21) if true_values is None else true_values
    d = d - p @ d
    sizes = rng.integers(20, 60, games)
    game = np.repeat(np.arange(games), sizes)
    x = 1 + np.repeat(rng.normal(0, 0.5, games), sizes) + rng.normal(0, 1, len(game))
    roll = rng.choice(21, size=len(game), p=p)
    y = c[roll] * (x - 1) + d[roll] + 0.3 * x + rng.normal(0, 0.05, len(game))
    frame = pd.DataFrame({"game": game, "a": ROLL_A[roll], "b": ROLL_B[roll], "y": y, "v": 0.5 + 0 * y, "x": x})
    return frame, d


def _values(frame: pd.DataFrame, covariates: bool = True) -> pd.DataFrame:
    x = frame[["x"]].to_numpy() if covariates else np.zeros((len(frame), 1))
    (sums,) = dice_sums(frame["game"].to_numpy(), frame["a"].to_numpy(), frame["b"].to_numpy(),
                        [frame["y"].to_numpy()], [frame["v"].to_numpy()], x)
    return roll_values(sums)


def test_roll_values_do_not_narrow_when_the_rolls_of_each_game_repeat():
    frame, _ = _dice(200, 1)
    once, thrice = _values(frame), _values(_repeated(frame, 3))
    assert (thrice["states"] == 3 * once["states"]).all() and (thrice["games"] == once["games"]).all()
    for col in ("value", "ci95_low", "ci95_high"):
        assert thrice[col].to_numpy() == pytest.approx(once[col].to_numpy(), abs=1e-12)


def test_roll_values_cover_each_rolls_value_and_narrow_by_what_the_covariates_explain():
    """Over 100 populations of 1,000 games the intervals cover the 21 values d_r in about 95% of cases, with or without
    the covariate, and the covariate's intervals are the narrower: x explains most of each roll's y."""
    rng_seeds = range(100)
    covered = {True: 0, False: 0}
    ratios = []
    for seed in rng_seeds:
        frame, d = _dice(1000, 100 + seed)
        with_x, without = _values(frame), _values(frame, covariates=False)
        for table, key in ((with_x, True), (without, False)):
            covered[key] += int(((table["ci95_low"] <= d) & (d <= table["ci95_high"])).sum())
        ratios.append(np.median((with_x.ci95_high - with_x.ci95_low) / (without.ci95_high - without.ci95_low)))
    cases = 21 * len(rng_seeds)
    assert 0.93 * cases <= covered[True] <= 0.97 * cases and 0.93 * cases <= covered[False] <= 0.97 * cases
    assert max(ratios) < 0.3


def test_merged_dice_sums_are_the_sums_of_all_the_games():
    """A block of games split across two sets of games (as the report's chunks split them) adds up."""
    frame, _ = _dice(100, 4)
    parts = [frame[frame.game < 37], frame[frame.game >= 37]]

    def sums(f: pd.DataFrame):
        return dice_sums(f["game"].to_numpy(), f["a"].to_numpy(), f["b"].to_numpy(), [f["y"].to_numpy()],
                         [f["v"].to_numpy()], f[["x"]].to_numpy())[0]

    merged, whole = roll_values(merged_dice_sums([sums(p) for p in parts])), roll_values(sums(frame))
    pd.testing.assert_frame_equal(merged, whole, check_exact=False, rtol=1e-10)


def test_calibration_does_not_narrow_when_the_positions_of_each_game_repeat():
    rng = np.random.default_rng(2)
    test = pd.DataFrame({"game": np.repeat(np.arange(300), 30)})
    p = np.clip(np.repeat(rng.random(300), 30) + rng.normal(0, 0.03, len(test)), 0, 1)
    y = np.repeat((rng.random(300) < np.repeat(rng.random(300), 1)).astype(int), 30)
    once = calibrate_probabilities(p, y, 0.5, test).bins
    twice = calibrate_probabilities(np.repeat(p, 2), np.repeat(y, 2), 0.5, _repeated(test, 2)).bins
    assert list(twice["n"]) == [2 * n for n in once["n"]]
    for col in ("observed", "observed_low", "observed_high"):
        assert twice[col].to_numpy() == pytest.approx(once[col].to_numpy(), abs=1e-9)


def test_chosen_doubles_by_phase_do_not_narrow_when_a_games_choices_repeat():
    rng = np.random.default_rng(3)
    favourite = rng.integers(1, 7, 150)  # each game's player takes one double more often
    game = np.repeat(np.arange(150), 4)
    taken = np.where(rng.random(600) < 0.6, np.repeat(favourite, 4), rng.integers(1, 7, 600))
    choices = pd.DataFrame({"game": game, "bonus_double": taken, "phase": "contact"})
    once, twice = chosen_doubles_by_phase(choices), chosen_doubles_by_phase(_repeated(choices, 2))
    assert (twice["total"] == 2 * once["total"]).all() and (twice["games"] == 150).all()
    for col in ("share", "ci95_low", "ci95_high"):
        assert twice[col].to_numpy() == pytest.approx(once[col].to_numpy(), abs=1e-9)

