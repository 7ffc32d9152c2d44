"""The landscape's statistics on synthetic designs whose effects are known (no game is played).

A figure is made up from the design's knobs with planted effects and noise;
the regression must find a planted main effect and a planted interaction,
and must not declare an effect for a knob that has none.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acesim.analyses import landscape as A
from acesim.engine.rules import PRESETS
from acesim.runs.explore import canonical, make_design, parse_vary

BASE = PRESETS["european"]
VARY = ["doubles", "home", "bearoff", "hitting", "bar_entry", "cube", "cube_max=2,8,64"]


def _design(rule_sets=72, seed=3):
    design = make_design(BASE, parse_vary(VARY), rule_sets=rule_sets, design="random", seed=seed)
    return design, design.table()


def _figure(table: pd.DataFrame, seed: int, planted: bool = True, noise: float = 0.004) -> pd.DataFrame:
    """A figure with a main effect of doubles=four (+0.04) and an interaction of home=locked with
    bearoff=standard (+0.03); hitting, bar_entry and the cube do nothing."""
    rng = np.random.default_rng(seed)
    y = 0.5 + rng.normal(0, noise, len(table))
    if planted:
        y += 0.04 * (table["doubles"] == "four") + 0.03 * ((table["home"] == "locked") & (table["bearoff"] == "standard"))
    out = pd.DataFrame({"rule_set": table["rule_set"], "first_mover_win_rate": y,
                        "first_mover_win_rate_n": 4000})
    return out


def _terms(seed: int, planted: bool = True):
    design, table = _design()
    figure = _figure(table, seed, planted)
    terms, models = A.effects(table, figure, dict(design.factors), BASE.knobs(), ["first_mover_win_rate"])
    return design, table, figure, terms, models


def _row(terms, term):
    found = terms[terms["term"] == term]
    assert len(found) == 1, f"{term} not among {list(terms['term'])}"
    return found.iloc[0]


def test_a_planted_main_effect_is_found_with_an_interval_holding_it():
    _, _, _, terms, _ = _terms(seed=1)
    r = _row(terms, "doubles=four")
    assert r["notable"]
    assert r["ci95_low"] < 0.04 < r["ci95_high"]
    # ranked by size: the planted effect leads the main effects
    assert terms[terms["kind"] == "main"].iloc[0]["term"] == "doubles=four"


def test_a_planted_interaction_is_found_and_no_other_is():
    _, _, _, terms, _ = _terms(seed=2)
    r = _row(terms, "home=locked × bearoff=standard")
    assert r["notable"] and r["kind"] == "interaction"
    assert r["ci95_low"] < 0.03 < r["ci95_high"]
    notable = terms[(terms["kind"] == "interaction") & terms["notable"]]
    assert list(notable["term"]) == ["home=locked × bearoff=standard"]


def test_knobs_without_an_effect_are_not_declared_one():
    _, _, _, terms, _ = _terms(seed=4)
    for knob in ("hitting", "bar_entry", "cube", "cube_max"):
        assert not terms[(terms["kind"] == "main") & (terms["knob"] == knob)]["notable"].any(), knob


def test_with_nothing_planted_the_correction_holds_each_familys_error():
    """Over 40 noise-only figures, a notable main effect turns up in 5% of them at most, and so does a
    notable interaction (Bonferroni within each family); 6 or more of 40 has probability 1.4% at 5%."""
    design, table = _design()
    hits = {"main": 0, "interaction": 0}
    for seed in range(40):
        terms, _ = A.effects(table, _figure(table, 100 + seed, planted=False), dict(design.factors),
                             BASE.knobs(), ["first_mover_win_rate"])
        for kind in hits:
            hits[kind] += bool(terms[terms["kind"] == kind]["notable"].any())
    assert hits["main"] <= 5 and hits["interaction"] <= 5


def test_cube_max_is_read_only_under_the_cube():
    """A limit on a cube that is not there is one rule set, not three: the design keeps cube_max at the
    base's value without the cube, so its effect is the limit's effect where the cube is on."""
    design, table = _design()
    assert (table.loc[table["cube"] == "none", "cube_max"] == BASE.cube_max).all()
    assert set(table.loc[table["cube"] == "money", "cube_max"]) == {2, 8, 64}


def test_the_model_predicts_a_one_knob_change_with_its_interaction():
    design, table, _, _, models = _terms(seed=5)
    fm = models["first_mover_win_rate"]
    before = {**BASE.knobs(), "home": "locked"}
    after = {**before, "bearoff": "standard"}
    # the interaction alone: the main effect of bearoff is 0 (noise 0.004 per rule set)
    est, low, high = A.predict_change(fm, before, after)
    assert abs(est - 0.03) < 0.006 and low < est < high < low + 0.02
    est, low, high = A.predict_change(fm, BASE.knobs(), {**BASE.knobs(), "bearoff": "standard"})
    assert abs(est) < 0.006
    est, low, high = A.predict_change(fm, BASE.knobs(), {**BASE.knobs(), "doubles": "four"})
    assert abs(est - 0.04) < 0.006


def test_preset_changes_give_the_gain_towards_an_even_game():
    design = make_design(BASE, parse_vary(["doubles", "bearoff"]), design="full", seed=1)
    table = design.table()
    figure = pd.DataFrame({"rule_set": table["rule_set"],
                           "first_mover_win_rate": 0.53 - 0.03 * (table["bearoff"] == "standard")
                           + np.random.default_rng(0).normal(0, 0.001, len(table))})
    for key in ("_low", "_high"):
        figure[f"first_mover_win_rate{key}"] = figure["first_mover_win_rate"]
    figure["first_mover_win_rate_n"] = 100
    _, models = A.effects(table, figure, dict(design.factors), BASE.knobs(), ["first_mover_win_rate"])
    changes = A.preset_changes(table, figure, models, dict(design.factors), lambda k: canonical(k, BASE),
                               ["first_mover_win_rate"])
    best = changes.loc[changes["gain"].idxmax()]
    assert (best["preset"], best["knob"], best["to"]) == ("european", "bearoff", "standard")
    assert best["clear"] and best["gain"] == pytest.approx(0.03, abs=0.003)
    assert best["measured_as"] != ""  # the full factorial played that rule set


def test_pareto_front():
    t = pd.DataFrame({"a": [1, 2, 3, 2, 1.5], "b": [3, 2, 1, 3, 3]})
    assert list(A.pareto_front(t, "a", "b")) == [True, True, True, False, False]


def test_quantile_interval_covers_the_true_quantile():
    """Order-statistic intervals of the 95th percentile of an exponential sample: about 95% coverage."""
    rng = np.random.default_rng(7)
    true = -np.log(0.05)
    covered = sum(low <= true <= high for _, low, high in
                  (A.quantile_ci(rng.exponential(size=400), 0.95) for _ in range(400)))
    assert 0.91 <= covered / 400 <= 0.99
