"""Rule-set comparison: tables with known answers, a small real run, bad input, and charts."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from acesim.analyses.compare import (
    PAIRED_METRICS,
    bonferroni_z,
    length_distribution,
    paired_differences,
    parse_sweep,
    rule_set_table,
    sweep_rulesets,
)
from acesim.common.errors import AcesimError
from acesim.common.stats import Z95, ratio_ci, wilson
from acesim.engine.games import COLUMNS, play_games
from acesim.engine.rules import Ruleset
from acesim.outputs.compare_charts import first_mover_chart, length_chart, paired_chart, points_chart


def records(n: int, name: str = "synthetic", first_game: int = 0, **columns: object) -> pd.DataFrame:
    """A records table of ``n`` games, every counter 0 unless given."""
    df = pd.DataFrame(0, index=range(n), columns=list(COLUMNS))
    df["game"] = np.arange(first_game, first_game + n)
    df["rules"] = name
    df["strategy_a"] = df["strategy_b"] = "random"
    for column, value in columns.items():
        df[column] = value
    return df


def typical(n: int, seed: int, name: str) -> pd.DataFrame:
    """Random but plausible records: seats alternate moving first, lengths vary."""
    rng = np.random.default_rng(seed)
    return records(
        n,
        name,
        first_mover=np.arange(n) % 2,
        winner=rng.integers(0, 2, n),
        points=rng.integers(1, 4, n),
        turns_a=rng.integers(40, 60, n),
        turns_b=rng.integers(40, 60, n),
        rolls_a=rng.integers(50, 70, n),
        rolls_b=rng.integers(50, 70, n),
        forfeits_a=rng.integers(0, 5, n),
        forfeits_b=rng.integers(0, 5, n),
        dice_lost_a=rng.integers(0, 20, n),
        dice_lost_b=rng.integers(0, 20, n),
        extra_rolls_a=rng.integers(0, 10, n),
        extra_rolls_b=rng.integers(0, 10, n),
    )


# --- rule_set_table ----------------------------------------------------------------------


def test_first_mover_always_wins_gives_rate_one():
    n = 50
    first = np.arange(n) % 2
    df = records(n, first_mover=first, winner=first, points=2)
    row = rule_set_table({"always": df}).iloc[0]
    assert row["first_mover_win_rate"] == 1.0
    assert row["first_mover_win_rate_high"] == 1.0
    assert row["first_mover_win_rate_low"] == pytest.approx(wilson(n, n)[0])
    assert row["first_mover_points"] == 2.0
    assert row["first_mover_points_low"] == row["first_mover_points_high"] == 2.0
    assert row["first_mover_points_median"] == 2.0


def test_table_counts_unfinished_apart_and_means_over_finished():
    df = records(
        4,
        first_mover=[0, 1, 0, 0],
        winner=[1, 1, 0, -1],
        points=[1, 3, 2, 0],
        unfinished=[0, 0, 0, 1],
        rolls_a=[10, 20, 30, 999],
        rolls_b=[10, 20, 30, 999],
        turns_a=[5, 5, 5, 500],
        turns_b=[5, 5, 5, 500],
        forfeits_a=[1, 0, 2, 100],
        dice_lost_b=[3, 3, 3, 50],
        extra_rolls_a=[1, 2, 3, 40],
    )
    row = rule_set_table({"x": df}).iloc[0]
    assert (row["n"], row["finished"], row["unfinished"]) == (4, 3, 1)
    assert row["first_mover_win_rate"] == pytest.approx(2 / 3)  # games 1 and 2
    assert row["first_mover_points"] == pytest.approx((-1 + 3 + 2) / 3)
    assert row["rolls_per_game"] == pytest.approx(40.0)
    assert row["rolls_per_game_median"] == 40.0
    half = Z95 * np.std([20, 40, 60], ddof=1) / math.sqrt(3)
    assert row["rolls_per_game_low"] == pytest.approx(40 - half)
    assert row["turns_per_game"] == 10.0
    assert row["forfeit_share"] == pytest.approx(3 / 30)
    assert row["dice_lost_per_game"] == 3.0
    assert row["extra_rolls_per_game"] == 2.0
    assert "delta" in row["forfeit_share_method"]


def test_forfeit_share_interval_is_wilson_at_the_effective_number_of_turns():
    y = np.array([1.0, 0.0, 4.0, 2.0])
    x = np.array([10.0, 10.0, 20.0, 10.0])
    r, low, high = ratio_ci(y, x)
    assert r == pytest.approx(7 / 50)
    var = ((y - r * x) ** 2).sum() / (4 * 3) / (x.mean() ** 2)  # per-game delta method
    n_eff = r * (1 - r) / var
    # wilson() of a whole number of forfeits at that size agrees once the share is matched
    expected_low, expected_high = wilson(r * n_eff, n_eff)
    assert (low, high) == pytest.approx((expected_low, expected_high))
    assert 0 < low < r < high < 1


def test_forfeit_share_with_no_forfeit_is_not_a_zero_width_interval():
    r, low, high = ratio_ci(np.zeros(50), np.full(50, 100.0))
    assert r == 0.0 and low == 0.0
    assert high == pytest.approx(wilson(0, 5000)[1])
    assert all(math.isnan(v) for v in ratio_ci(np.zeros(3), np.zeros(3)))


# --- paired_differences -------------------------------------------------------------------


def test_identical_frames_give_zero_paired_difference_and_a_wider_unpaired_interval():
    df = typical(300, 1, "a")
    diffs = paired_differences({"a": df, "b": df.assign(rules="b")}, base="a")
    assert list(diffs["metric"]) == list(PAIRED_METRICS)
    assert (diffs["diff"] == 0).all()
    assert (diffs["paired_low"] == 0).all() and (diffs["paired_high"] == 0).all()
    assert (diffs["unpaired_high"] > 0).all() and (diffs["unpaired_low"] < 0).all()
    assert (diffs["width_ratio"] == 0).all()
    assert not diffs["notable"].any()
    assert (diffs["m"] == len(PAIRED_METRICS)).all()
    assert (diffs["n"] == 300).all()


def test_positively_correlated_pairs_give_a_narrower_paired_interval():
    base = typical(400, 2, "base")
    rng = np.random.default_rng(3)
    # the other rule set's games are the base's games plus a little: two rolls longer on average
    other = base.assign(rules="longer", rolls_a=base["rolls_a"] + 2 + rng.integers(-1, 2, len(base)))
    diffs = paired_differences({"base": base, "longer": other}, "base", metrics=["rolls", "turns"])
    rolls = diffs.set_index("metric").loc["rolls"]
    assert rolls["diff"] == pytest.approx(2.0, abs=0.15)
    assert rolls["paired_high"] - rolls["paired_low"] < rolls["unpaired_high"] - rolls["unpaired_low"]
    assert rolls["width_ratio"] < 0.2
    assert rolls["notable"]
    assert rolls["m"] == 2 and rolls["z_bonferroni"] == pytest.approx(bonferroni_z(2))
    assert rolls["bonferroni_high"] - rolls["bonferroni_low"] > rolls["paired_high"] - rolls["paired_low"]
    assert not diffs.set_index("metric").loc["turns", "notable"]


def test_paired_win_metric_uses_games_finished_under_both():
    base = records(4, first_mover=0, winner=[0, 0, 1, 1], points=1)
    other = records(4, first_mover=0, winner=[0, 1, 1, -1], points=[1, 1, 1, 0], unfinished=[0, 0, 0, 1])
    row = paired_differences({"base": base, "other": other}, "base", ["first_mover_win"]).iloc[0]
    assert row["n"] == 3
    assert row["diff"] == pytest.approx(-1 / 3)
    assert row["mean_base"] == pytest.approx(2 / 3) and row["mean_rules"] == pytest.approx(1 / 3)


def test_bonferroni_counts_every_interval_shown():
    frames = {name: typical(50, 4, name) for name in ("a", "b", "c")}
    diffs = paired_differences(frames, "a")
    assert len(diffs) == 2 * len(PAIRED_METRICS)
    assert (diffs["m"] == 2 * len(PAIRED_METRICS)).all()
    assert bonferroni_z(1) == pytest.approx(Z95)


def test_mismatched_game_indices_are_refused():
    a = typical(20, 5, "a")
    b = records(20, "b", first_game=1)
    with pytest.raises(AcesimError, match="same game indices"):
        paired_differences({"a": a, "b": b}, "a")
    with pytest.raises(AcesimError, match="same game indices"):
        paired_differences({"a": a, "b": a.iloc[:10]}, "a")
    with pytest.raises(AcesimError, match="more than once"):
        paired_differences({"a": a, "b": pd.concat([a.iloc[:10], a.iloc[:10]])}, "a")


def test_unknown_base_or_metric_is_refused():
    a = typical(10, 6, "a")
    with pytest.raises(AcesimError, match="base rule set"):
        paired_differences({"a": a}, "nope")
    with pytest.raises(AcesimError, match="unknown metric"):
        paired_differences({"a": a, "b": a}, "a", ["hits"])


# --- length_distribution ----------------------------------------------------------------


def test_length_distribution_counts_finished_games():
    df = records(5, rolls_a=[10, 10, 12, 20, 99], rolls_b=[0, 0, 0, 0, 99], unfinished=[0, 0, 0, 0, 1],
                 turns_a=[3, 3, 3, 3, 3])
    dist = length_distribution({"x": df}, "rolls")
    assert list(dist.columns) == ["rules", "length", "count", "share", "ecdf"]
    assert list(dist["length"]) == [10, 12, 20]
    assert list(dist["count"]) == [2, 1, 1]
    assert list(dist["share"]) == [0.5, 0.25, 0.25]
    assert list(dist["ecdf"]) == [0.5, 0.75, 1.0]
    turns = length_distribution({"x": df}, "turns")
    assert list(turns["length"]) == [3] and list(turns["count"]) == [4]
    with pytest.raises(AcesimError, match="rolls or turns"):
        length_distribution({"x": df}, "pips")


# --- sweeps ----------------------------------------------------------------------------


def test_parse_sweep():
    assert parse_sweep("doubles_extra_roll=true,false") == ("doubles_extra_roll", ["true", "false"])
    assert parse_sweep(" bearoff = exact , standard ") == ("bearoff", ["exact", "standard"])


@pytest.mark.parametrize(
    "spec, message",
    [
        ("doubles_extra_roll", "must look like"),
        ("=true,false", "must look like"),
        ("doubles_extra_roll=", "must look like"),
        ("doubles_extra_roll=true,,false", "must look like"),
        ("no_such_knob=1,2", "unknown rule knob"),
        ("doubles_extra_roll=true,maybe", "cannot be"),
        ("doubles_extra_roll=true,true", "twice"),
    ],
)
def test_bad_sweep_specs_raise_one_line_errors(spec, message):
    with pytest.raises(AcesimError, match=message) as info:
        parse_sweep(spec)
    assert "\n" not in str(info.value)


def test_sweep_rulesets_names_and_knobs():
    base = Ruleset.preset("european")
    swept = sweep_rulesets(base, *parse_sweep("doubles_extra_roll=false,true"))
    assert [r.name for r in swept] == ["european[doubles_extra_roll=false]", "european[doubles_extra_roll=true]"]
    assert [r.doubles_extra_roll for r in swept] == [False, True]
    assert swept[1] == base  # same knobs; names do not compare
    assert swept[0].base == "european"
    with pytest.raises(AcesimError, match="cannot be"):
        sweep_rulesets(base, "bearoff", ["exact", "sometimes"])
    with pytest.raises(AcesimError, match="contradicts"):
        sweep_rulesets(base, "acey_deucey", ["none"])  # european keeps the 1-2 extra roll


# --- a small real run ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_frames() -> dict[str, pd.DataFrame]:
    return {
        name: play_games(Ruleset.preset(name), 200, 11, "racer", "racer") for name in ("european", "navy")
    }


def test_real_run_tables(real_frames):
    table = rule_set_table(real_frames)
    assert list(table["rules"]) == ["european", "navy"]
    assert (table["n"] == 200).all()
    assert (table["finished"] + table["unfinished"] == 200).all()
    for figure in ("first_mover_win_rate", "first_mover_points", "rolls_per_game", "turns_per_game",
                   "forfeit_share", "dice_lost_per_game", "extra_rolls_per_game"):
        assert (table[f"{figure}_low"] <= table[figure]).all(), figure
        assert (table[figure] <= table[f"{figure}_high"]).all(), figure
    assert (table["rolls_per_game"] >= table["turns_per_game"]).all()
    # navy needs no full use for a bonus, so it never forfeits one
    assert table.set_index("rules").loc["navy", "forfeits"] == 0

    diffs = paired_differences(real_frames, "european")
    assert len(diffs) == len(PAIRED_METRICS) and (diffs["m"] == len(PAIRED_METRICS)).all()
    # common random numbers: the same opening roll, so the same first mover
    assert (real_frames["european"]["first_mover"] == real_frames["navy"]["first_mover"]).all()
    dist = length_distribution(real_frames, "turns")
    assert set(dist["rules"]) == {"european", "navy"}
    assert dist.groupby("rules")["ecdf"].max().to_numpy() == pytest.approx([1.0, 1.0])


# --- charts -----------------------------------------------------------------------------


def _check_axes(fig: Figure, legend: bool = True) -> None:
    assert isinstance(fig, Figure)
    assert fig.axes
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel()
    if legend:
        assert fig.legends or any(ax.get_legend() is not None for ax in fig.axes)


def _legend_texts(fig: Figure) -> list[str]:
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return [t.get_text() for legend in legends for t in legend.get_texts()]


@pytest.fixture(scope="module")
def synthetic_frames() -> dict[str, pd.DataFrame]:
    return {name: typical(120, i, name) for i, name in enumerate(("european", "navy", "american"))}


def test_first_mover_and_points_charts(synthetic_frames):
    table = rule_set_table(synthetic_frames)
    for chart in (first_mover_chart, points_chart):
        fig = chart(table)
        _check_axes(fig)
        assert fig.axes[0].get_title()
        texts = " ".join(_legend_texts(fig))
        assert all(name in texts for name in synthetic_frames)
        fig.savefig(io.BytesIO(), format="png")


@pytest.mark.parametrize("column", ["rolls", "turns"])
def test_length_chart(synthetic_frames, column):
    fig = length_chart(length_distribution(synthetic_frames, column), column)
    _check_axes(fig)
    assert len(fig.axes) == 2
    assert all(ax.get_xlabel() == f"{column} per game" for ax in fig.axes)
    assert all(ax.get_legend() is not None for ax in fig.axes)
    assert all(name in " ".join(_legend_texts(fig)) for name in synthetic_frames)


def test_paired_chart(synthetic_frames):
    diffs = paired_differences(synthetic_frames, "european")
    fig = paired_chart(diffs)
    _check_axes(fig)
    assert len(fig.axes) == len(PAIRED_METRICS)
    texts = " ".join(_legend_texts(fig))
    assert "navy" in texts and "american" in texts and "unpaired" in texts
    assert fig.get_suptitle() and fig.legends
    fig.savefig(io.BytesIO(), format="png")


def test_charts_refuse_empty_tables():
    with pytest.raises(AcesimError, match="empty"):
        first_mover_chart(pd.DataFrame())
