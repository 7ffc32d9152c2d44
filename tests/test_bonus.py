"""Value of doubles and 1-2 rolls: synthetic records with known answers, then a small real run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from acesim.analyses.bonus import INTERVALS, bonus_model, side_rows, win_by_difference
from acesim.common.errors import AcesimError
from acesim.engine.games import play_games
from acesim.engine.rules import Ruleset
from acesim.outputs.bonus_charts import win_by_difference_chart


def records(n: int, seed: int, win_a) -> pd.DataFrame:
    """Fake records: Poisson doubles and 1-2s per side; ``win_a(frame, rng)`` says when seat A wins."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "game": np.arange(n),
            "rules": "synthetic",
            "first_mover": rng.integers(0, 2, n),
            "points": rng.integers(1, 4, n),
            "unfinished": 0,
            "rolls_a": rng.integers(30, 60, n),
            "rolls_b": rng.integers(30, 60, n),
            "doubles_a": rng.poisson(7, n),
            "doubles_b": rng.poisson(7, n),
            "one_two_a": rng.poisson(2.5, n),
            "one_two_b": rng.poisson(2.5, n),
        }
    )
    for d in range(1, 7):
        df[f"chose_{d}_a"] = 0
        df[f"chose_{d}_b"] = 0
    df["winner"] = np.where(win_a(df, rng), 0, 1)
    return df


def more_one_twos_wins(df: pd.DataFrame, rng: np.random.Generator) -> np.ndarray:
    diff = df.one_two_a - df.one_two_b
    return np.where(diff != 0, diff > 0, rng.random(len(df)) < 0.5)


def coin(df: pd.DataFrame, rng: np.random.Generator) -> np.ndarray:
    return rng.random(len(df)) < 0.5


def row(table: pd.DataFrame, model: str, term: str) -> pd.Series:
    return table[(table.model == model) & (table.term == term)].iloc[0]


def test_side_rows_mirror_each_game():
    df = records(50, 1, coin)
    df.loc[3, "unfinished"] = 1
    df.loc[3, "winner"] = -1
    rows = side_rows(df)
    assert len(rows) == 98  # the unfinished game is left out
    a, b = rows.iloc[0::2].reset_index(drop=True), rows.iloc[1::2].reset_index(drop=True)
    assert (a.side == "a").all() and (b.side == "b").all()
    assert (a.row == b.row).all() and (a.game == b.game).all()
    assert (a.win + b.win == 1).all()
    assert (a.points == -b.points).all() and (a.points.abs() >= 1).all()
    assert (a.doubles_diff == -b.doubles_diff).all() and (a.one_two_diff == -b.one_two_diff).all()
    assert (a.first_mover + b.first_mover == 1).all()
    done = df[df.unfinished == 0].reset_index(drop=True)
    assert (a.length == done.rolls_a + done.rolls_b).all()
    assert (a.doubles_diff == done.doubles_a - done.doubles_b).all()
    assert (a.win == (done.winner == 0)).all()


def test_side_rows_refuses_two_rule_sets_or_no_games():
    df = records(10, 2, coin)
    df.loc[0, "rules"] = "other"
    with pytest.raises(AcesimError, match="one rule set"):
        side_rows(df)
    df = records(10, 2, coin).assign(unfinished=1)
    with pytest.raises(AcesimError, match="no finished games"):
        side_rows(df)


def test_the_side_with_more_one_twos_always_wins():
    df = records(600, 3, more_one_twos_wins)
    table = win_by_difference(df, "one_two_diff", clip=3)
    assert list(table.label) == ["≤−3", "−2", "−1", "0", "1", "2", "≥3"]
    positive, negative = table[table.bin > 0], table[table.bin < 0]
    assert (positive.win_rate == 1).all() and (negative.win_rate == 0).all()
    assert (positive.ci95_low > 0.9).all() and (positive.ci95_high == 1).all()
    assert (positive.mean_points > 0).all() and (negative.mean_points < 0).all()
    # every game sits once in bin d and once in -d; bin 0 holds both sides of the ties
    assert table[table.bin >= 0].games.sum() == 600
    assert table.set_index("bin").n.loc[1] == table.set_index("bin").n.loc[-1]
    zero = table[table.bin == 0].iloc[0]
    assert zero.n == 2 * zero.games and zero.wins == zero.games
    assert zero.win_rate == 0.5 and zero.ci95_low == zero.ci95_high == 0.5 and zero.mean_points == 0
    model = bonus_model(df, bootstrap=200, seed=5)
    one_two = row(model, "win", "one_two_diff")
    assert one_two.effect_ci95_low > 0 and one_two.effect <= 100
    assert one_two.coefficient > 0 and one_two.coef_ci95_low > 0
    assert row(model, "points", "one_two_diff").effect_ci95_low > 0


def test_outcomes_independent_of_the_dice_give_effects_covering_zero():
    df = records(800, 4, coin)
    model = bonus_model(df, bootstrap=200, seed=6)
    for m in ("win", "points"):
        for term in ("doubles_diff", "one_two_diff", "first_mover"):
            r = row(model, m, term)
            assert r.effect_ci95_low < 0 < r.effect_ci95_high, (m, term)
    table = win_by_difference(df, "doubles_diff", clip=4)
    inner = table[table.bin != 0]
    assert ((inner.ci95_low < 0.5) & (0.5 < inner.ci95_high)).sum() >= len(inner) - 1


def test_a_known_logistic_model_is_recovered():
    """Seat A wins with probability σ(0.15·Δdoubles + 0.6·Δ1-2): the fit finds both slopes."""

    def known(df, rng):
        t = 0.15 * (df.doubles_a - df.doubles_b) + 0.6 * (df.one_two_a - df.one_two_b)
        return rng.random(len(df)) < 1 / (1 + np.exp(-t))

    model = bonus_model(records(2000, 7, known), bootstrap=200, seed=8)
    for term, truth in (("doubles_diff", 0.15), ("one_two_diff", 0.6)):
        r = row(model, "win", term)
        assert r.coef_ci95_low < truth < r.coef_ci95_high, term
        assert 0 < r.effect_ci95_low < r.effect < r.effect_ci95_high
    assert row(model, "win", "one_two_diff").effect > row(model, "win", "doubles_diff").effect
    interaction = row(model, "win", "one_two_diff:length")
    assert np.isnan(interaction.effect) and interaction.coef_ci95_low < 0 < interaction.coef_ci95_high
    assert set(model.columns) >= {"effect_unit", "control", "games", "resamples"}
    assert (model.games == 2000).all() and (model.resamples == 200).all()


def test_the_model_is_seeded_and_checks_its_inputs():
    df = records(200, 9, coin)
    pd.testing.assert_frame_equal(bonus_model(df, 200, seed=1), bonus_model(df, 200, seed=1))
    assert not bonus_model(df, 200, seed=1).equals(bonus_model(df, 200, seed=2))
    with pytest.raises(AcesimError, match="200 resamples"):
        bonus_model(df, bootstrap=50)
    with pytest.raises(AcesimError, match="column"):
        win_by_difference(df, "hits")


def known_with_length(df: pd.DataFrame, rng: np.random.Generator) -> np.ndarray:
    """Seat A wins with probability σ(Δdoubles · (0.2 − 0.3·(length − 90)/100) + 0.5·Δ1-2 + 0.1·(A first))."""
    length = (df.rolls_a + df.rolls_b - 90) / 100
    t = (df.doubles_a - df.doubles_b) * (0.2 - 0.3 * length) + 0.5 * (df.one_two_a - df.one_two_b)
    t = t + 0.1 * np.where(df.first_mover == 0, 0.5, -0.5)
    return rng.random(len(df)) < 1 / (1 + np.exp(-t))


def test_the_default_intervals_are_cluster_robust_and_need_no_seed():
    df = records(500, 13, known_with_length)
    model = bonus_model(df)
    assert (model.interval == INTERVALS["robust"]).all() and (model.resamples == 0).all()
    pd.testing.assert_frame_equal(model, bonus_model(df))
    assert (model.coef_ci95_low < model.coefficient).all() and (model.coefficient < model.coef_ci95_high).all()
    # the points model is linear: the effect of a difference is its coefficient at the mean length
    points = model[(model.model == "points") & model.effect.notna()]
    np.testing.assert_allclose(points.effect, points.coefficient, rtol=1e-9)
    np.testing.assert_allclose(points.effect_ci95_low, points.coef_ci95_low, rtol=1e-9)
    boot = bonus_model(df, bootstrap=200, seed=3)
    assert (boot.interval == INTERVALS["bootstrap"]).all() and (boot.resamples == 200).all()
    np.testing.assert_allclose(boot.coefficient, model.coefficient)
    np.testing.assert_allclose(boot.effect, model.effect)


def test_the_cluster_robust_errors_are_the_spread_of_the_estimates_over_independent_runs():
    """300 independent sets of 400 games: each estimate's standard deviation over the sets is the
    standard error the intervals claim, and the intervals cover the mean estimate about 95% of the time."""
    runs = [bonus_model(records(400, 1000 + k, known_with_length)) for k in range(300)]
    for column, low, high in (("coefficient", "coef_ci95_low", "coef_ci95_high"),
                              ("effect", "effect_ci95_low", "effect_ci95_high")):
        estimates = np.array([r[column].to_numpy() for r in runs])
        claimed = np.array([(r[high] - r[low]).to_numpy() / (2 * 1.959963984540054) for r in runs])
        keep = ~np.isnan(estimates[0])
        spread = estimates[:, keep].std(axis=0, ddof=1)
        ratio = claimed[:, keep].mean(axis=0) / spread
        # 300 sets: the spread's own relative error is about 4%
        assert ((0.85 < ratio) & (ratio < 1.15)).all(), (column, ratio)
        centre = estimates[:, keep].mean(axis=0)
        lows = np.array([r[low].to_numpy() for r in runs])[:, keep]
        highs = np.array([r[high].to_numpy() for r in runs])[:, keep]
        cover = ((lows <= centre) & (centre <= highs)).mean(axis=0)
        assert ((0.90 < cover) & (cover < 0.99)).all(), (column, cover)


def test_the_cluster_robust_and_bootstrap_intervals_agree():
    df = records(3000, 14, known_with_length)
    robust, boot = bonus_model(df), bonus_model(df, bootstrap=400, seed=15)
    for low, high in (("coef_ci95_low", "coef_ci95_high"), ("effect_ci95_low", "effect_ci95_high")):
        ratio = ((robust[high] - robust[low]) / (boot[high] - boot[low])).dropna()
        assert ((0.8 < ratio) & (ratio < 1.25)).all(), ratio


def _labelled(fig: Figure, name: str) -> None:
    assert isinstance(fig, Figure)
    for ax in fig.axes:
        assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
        legend = ax.get_legend()
        assert legend is not None and any(name in t.get_text() for t in legend.get_texts())


def test_a_real_european_run():
    df = play_games(Ruleset.preset("european"), 300, 11, "expert", "expert")
    done = int((df.unfinished == 0).sum())
    rows = side_rows(df)
    assert len(rows) == 2 * done
    tables = {}
    for column in ("doubles_diff", "one_two_diff"):
        table = win_by_difference(df, column)
        assert table[table.bin >= 0].games.sum() == done
        tables[column] = table
        _labelled(win_by_difference_chart({"european": table}, column), "european")
    model = bonus_model(df, bootstrap=200, seed=12)
    assert len(model) == 10 and model.coefficient.notna().all()
    # a 1-2 in the European game is worth a chosen double and another roll
    assert row(model, "win", "one_two_diff").effect > 0
