"""Bradley–Terry Elo of a ladder: known strengths recovered, the anchor, sweeps, bad tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from acesim.analyses.elo import ELO_PER_NAT, bradley_terry, skill_spread
from acesim.common.errors import AcesimError
from acesim.engine.strategies import load_strategy
from acesim.outputs.elo_chart import elo_chart
from acesim.runs.ladder import Match, ladder_table

TRUE_ELO = {"random": 0.0, "racer": 150.0, "safe": 250.0, "expert": 400.0}


def known_ladder(n: int, seed: int, truth: dict[str, float] = TRUE_ELO) -> tuple[list[Match], list]:
    """Matches whose wins are binomial under Bradley–Terry with the ``truth`` Elos."""
    rng = np.random.default_rng(seed)
    names = list(truth)
    matches = []
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            p = 1 / (1 + 10 ** ((truth[y] - truth[x]) / 400))
            matches.append(Match(x, y, n, int(rng.binomial(n, p)), 0))
    return matches, [load_strategy(s) for s in names]


def test_known_strengths_are_recovered_within_their_intervals():
    matches, strategies = known_ladder(2000, 1)
    elo = bradley_terry(ladder_table(matches, strategies), bootstrap=200, seed=2)
    assert list(elo.strategy) == list(TRUE_ELO)
    assert list(elo.columns) == [
        "strategy", "elo", "ci95_low", "ci95_high", "games", "wins", "win_rate", "rank", "anchor", "resamples", "prior",
    ]
    for r in elo.itertuples():
        assert r.ci95_low <= TRUE_ELO[r.strategy] <= r.ci95_high, r.strategy
        assert r.ci95_low <= r.elo <= r.ci95_high
    assert list(elo.sort_values("rank").strategy) == ["expert", "safe", "racer", "random"]
    assert (elo.games == 6000).all() and elo.wins.sum() == 6 * 2000
    assert skill_spread(elo) == pytest.approx(elo.elo.max())
    assert abs(skill_spread(elo) - 400) < 40
    again = bradley_terry(ladder_table(matches, strategies), bootstrap=200, seed=2)
    pd.testing.assert_frame_equal(elo, again)


def test_random_is_the_anchor_wherever_it_sits():
    truth = {"expert": 300.0, "safe": 100.0, "random": 0.0}
    matches, strategies = known_ladder(1000, 3, truth)
    elo = bradley_terry(ladder_table(matches, strategies), seed=4).set_index("strategy")
    assert elo.loc["random", "elo"] == 0 and elo.loc["random", "ci95_low"] == elo.loc["random", "ci95_high"] == 0
    assert (elo.anchor == "random").all()


def test_without_random_the_first_strategy_is_the_anchor():
    truth = {"racer": 0.0, "expert": 200.0}
    matches, strategies = known_ladder(1000, 5, truth)
    elo = bradley_terry(ladder_table(matches, strategies), seed=6).set_index("strategy")
    assert (elo.anchor == "racer").all() and elo.loc["racer", "elo"] == 0
    with pytest.raises(AcesimError, match="random"):
        skill_spread(elo.reset_index())


def test_two_strategies_match_the_closed_form():
    """With two strategies the maximum likelihood Elo is 400·log10 of the (prior-smoothed) odds."""
    table = ladder_table([Match("random", "expert", 100, 30, 0)], [load_strategy("random"), load_strategy("expert")])
    elo = bradley_terry(table, seed=0, prior=0.5).set_index("strategy")
    assert elo.loc["expert", "elo"] == pytest.approx(ELO_PER_NAT * np.log(70.5 / 30.5))


def test_a_clean_sweep_stays_finite():
    matches = [Match("random", "expert", 500, 0, 0), Match("random", "racer", 500, 100, 0),
               Match("expert", "racer", 500, 400, 0)]
    strategies = [load_strategy(s) for s in ("random", "expert", "racer")]
    elo = bradley_terry(ladder_table(matches, strategies), seed=7).set_index("strategy")
    assert np.isfinite(elo[["elo", "ci95_low", "ci95_high"]].to_numpy()).all()
    assert elo.loc["expert", "elo"] > elo.loc["racer", "elo"] > 0
    assert elo.loc["expert", "elo"] < 2000


def test_bad_tables_are_refused():
    good = ladder_table(*known_ladder(100, 8, {"random": 0.0, "expert": 100.0}))
    with pytest.raises(AcesimError, match="add up"):
        bradley_terry(good.assign(wins=[10, 10]))
    with pytest.raises(AcesimError, match="'wins'"):
        bradley_terry(good.drop(columns="wins"))
    with pytest.raises(AcesimError, match="200 resamples"):
        bradley_terry(good, bootstrap=10)
    split = pd.DataFrame({"strategy": ["a", "c"], "opponent": ["b", "d"], "wins": [1, 1], "games": [2, 2]})
    with pytest.raises(AcesimError, match="connect"):
        bradley_terry(split)


def test_elo_chart_has_one_series_per_rule_set():
    elos = {
        "european": bradley_terry(ladder_table(*known_ladder(500, 9)), seed=1),
        "american": bradley_terry(ladder_table(*known_ladder(500, 10)), seed=1),
    }
    fig = elo_chart(elos)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert ax.get_title() and ax.get_xlabel() == "strategy" and "Elo" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["european", "american"]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(TRUE_ELO)
