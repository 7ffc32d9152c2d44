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

from acesim.analyses.bonus import chosen_doubles_by_phase, roll_values
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


def _rolls(games: int, seed: int) -> pd.DataFrame:
    """Fake per-roll values: each game has a level of its own, so its states are correlated."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(20, 60, games)
    game = np.repeat(np.arange(games), sizes)
    level = np.repeat(rng.normal(0, 0.05, games), sizes)
    frame = pd.DataFrame({"game": game, "opening": False})
    w = {f"w_{a}{b}": 0.5 + (a == b) * level + rng.normal(0, 0.02, len(game)) for a, b in zip(ROLL_A, ROLL_B)}
    frame = pd.concat([frame, pd.DataFrame(w)], axis=1)
    frame["w_mean"] = sum(p * frame[f"w_{a}{b}"] for p, a, b in zip(ROLL_P, ROLL_A, ROLL_B))
    return frame


def test_roll_values_do_not_narrow_when_the_states_of_each_game_repeat():
    rolls = _rolls(60, 1)
    once, thrice = roll_values(rolls), roll_values(_repeated(rolls, 3))
    assert (thrice["states"] == 3 * once["states"]).all() and (thrice["games"] == once["games"]).all()
    for col in ("value", "ci95_low", "ci95_high"):
        assert thrice[col].to_numpy() == pytest.approx(once[col].to_numpy(), abs=1e-12)
    # the doubles carry each game's level: an interval over states would be several times narrower
    double = once[once.die_1 == once.die_2]
    gain = (rolls["w_66"] - rolls["w_mean"]).to_numpy()
    _, low, high = sample_mean_ci(gain)
    assert (double.ci95_high - double.ci95_low).min() > 2 * (high - low)


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


def _sampled_population(rng: np.random.Generator, games: int, rate: float) -> tuple[pd.DataFrame, tuple]:
    """A population of games whose positions carry a covariate x and gains 2x + a game effect + noise (mean
    2 over positions, by construction), a Bernoulli sample of its positions as ``roll_values`` reads them,
    and the covariate's sums and positions per game over every position."""
    sizes = rng.integers(20, 80, games)
    game = np.repeat(np.arange(games), sizes)
    x = 1 + np.repeat(rng.normal(0, 0.5, games), sizes) + rng.normal(0, 1, len(game))
    y = 2 * x + np.repeat(rng.normal(0, 0.3, games), sizes) + rng.normal(0, 0.5, len(game)) - 2 * 1 + 2
    keep = rng.random(len(game)) < rate
    frame = pd.DataFrame({"game": game[keep], "opening": False, "w_mean": 0.0, "c_x": x[keep]})
    frame = pd.concat([frame, pd.DataFrame({f"w_{a}{b}": y[keep] for a, b in zip(ROLL_A, ROLL_B)})], axis=1)
    counts, sums = per_game(game, x)
    return frame, (sums[:, None], counts)


def test_roll_values_regression_estimator_covers_the_mean_and_narrows_by_what_the_covariates_explain():
    """The regression estimator's 95% interval covers the positions' mean in about 95% of samples, and is
    narrower than the plain mean's in each: x explains most of the gains here."""
    rng = np.random.default_rng(11)
    covered, ratios = 0, []
    trials = 300
    for _ in range(trials):
        frame, auxiliary = _sampled_population(rng, 400, 0.05)
        regression = roll_values(frame, auxiliary).iloc[0]
        plain = roll_values(frame.drop(columns="c_x")).iloc[0]
        covered += regression.ci95_low <= 2 <= regression.ci95_high
        ratios.append((regression.ci95_high - regression.ci95_low) / (plain.ci95_high - plain.ci95_low))
    assert 0.91 * trials <= covered <= 0.99 * trials
    assert max(ratios) < 0.85 and np.mean(ratios) < 0.7
    assert regression.covariate_positions == auxiliary[1].sum() and plain.covariate_positions == 0


def test_roll_values_regression_estimator_is_the_sample_mean_when_the_covariates_agree():
    """When the sample's covariate mean is the population's, the estimate is the plain mean."""
    frame, (sums, counts) = _sampled_population(np.random.default_rng(3), 200, 0.1)
    counts_all = np.array([1.0, 1.0])
    sums_all = np.array([[frame["c_x"].mean() - 1.0], [frame["c_x"].mean() + 1.0]])
    regression = roll_values(frame, (sums_all, counts_all))
    plain = roll_values(frame.drop(columns="c_x"))
    assert regression["value"].to_numpy() == pytest.approx(plain["value"].to_numpy(), rel=1e-12)
