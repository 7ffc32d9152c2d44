"""One player for every rule set of a comparison: ``best`` is resolved once, against all of them.

A comparison whose rule sets were played by different players would report
the players' difference as the rules' (issue 26: a hitting sweep played by
``learned:european`` on one side and ``expert`` on the other reported games
12.9 rolls shorter where one player measures 3.7).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from acesim.analyses.equity import equity_models
from acesim.cli import app
from acesim.common.errors import AcesimError
from acesim.engine.model_files import load_model, shipped_path
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import best_spec, resolve_spec
from acesim.runs.options import AnalysisOptions
from acesim.runs.report import analysis_plan

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EUROPEAN = Ruleset.preset("european")
AMERICAN = Ruleset.preset("american")
BACKGAMMON = Ruleset.preset("backgammon")


def test_best_is_the_one_shipped_model_that_plays_every_rule_set():
    # one preset: the network that reads the rules, which wins against the European network head to head
    assert best_spec(EUROPEAN) == "learned:any"
    # backgammon: its own network, named in the models' best.toml (it wins against learned:any there)
    assert best_spec(BACKGAMMON) == "learned:backgammon"
    # the cube's knobs change no checker play: the one model still plays both
    assert best_spec(BACKGAMMON, BACKGAMMON.with_overrides({"cube": "money"})) == "learned:backgammon"
    assert best_spec(EUROPEAN, EUROPEAN.with_overrides({"cube": "money"})) == "learned:any"
    # two presets, or a preset and a house rule, or a house rule alone: the network that reads the rules
    assert best_spec(EUROPEAN, AMERICAN) == "learned:any"
    assert best_spec(EUROPEAN, EUROPEAN.with_overrides({"hitting": "after-home"})) == "learned:any"
    assert best_spec(EUROPEAN.with_overrides({"hitting": "after-home"})) == "learned:any"
    assert resolve_spec("racer", EUROPEAN, AMERICAN) == "racer"
    with pytest.raises(ValueError):
        best_spec()


# Every way of setting rule sets side by side: presets, a sweep, an override; and the player expected.
COMPARISONS = [
    (dict(rules="european,american"), "learned:any"),
    (dict(rules="european,backgammon"), "learned:any"),
    (dict(rules="european", sweep="hitting=free,after-home"), "learned:any"),
    (dict(rules="european", sweep="cube=none,money"), "learned:any"),
    (dict(rules="backgammon", sweep="cube=none,money"), "learned:backgammon"),
    (dict(rules="european,navy", overrides=["bar_first=false"]), "learned:any"),
    (dict(rules="european", rules_files=[EXAMPLES / "club-rules.toml"]), "learned:any"),
]


@pytest.mark.parametrize("parts", [("compare",), ("bonus",), ("luck",), ("compare", "bonus", "luck")])
@pytest.mark.parametrize("kwargs, player", COMPARISONS)
def test_a_plan_plays_one_player_under_every_rule_set(kwargs, player, parts):
    plan = analysis_plan("report", parts, AnalysisOptions(**kwargs))
    assert plan.player == player
    # the skill ladder, whose "best" is the plan's player, is the same under every rule set
    assert len({tuple(plan.ladder_for(r)) for r in plan.rulesets}) == 1
    assert player in plan.ladder_for(plan.rulesets[0])


@pytest.mark.parametrize("kwargs, player", COMPARISONS[:4])
def test_every_rule_set_of_a_run_is_played_by_the_one_player(kwargs, player, tmp_path):
    args = ["--rules", kwargs["rules"], *(["--sweep", kwargs["sweep"]] if "sweep" in kwargs else [])]
    result = runner.invoke(app, ["compare", *args, "--games", "40", "--workers", "1", "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    players = json.loads((tmp_path / "c" / "report.json").read_text())["players"]
    assert len(players) == 2 and set(players.values()) == {player}


def test_a_named_player_that_cannot_play_a_rule_set_is_refused_naming_it():
    with pytest.raises(AcesimError, match=r"european\[hitting=after-home\]"):
        analysis_plan("compare", ("compare",), AnalysisOptions("european", sweep="hitting=free,after-home",
                                                               strategy="learned:european"))
    result = runner.invoke(app, ["compare", "--rules", "european,navy", "--strategy", "learned:european",
                                 "--games", "10", "--workers", "1"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "'navy'" in lines[0] and "learned:european" in lines[0], result.output


@pytest.mark.parametrize("args, player", [
    (["--rules", "european", "--sweep", "hitting=free,after-home"], "learned:any"),
    (["--rules", "backgammon", "--sweep", "cube=none,money"], "learned:backgammon"),
])
def test_compare_says_its_one_player_and_records_it(args, player, tmp_path):
    out = tmp_path / "cmp"
    result = runner.invoke(app, ["compare", *args, "--games", "60", "--workers", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    first = " ".join(result.output.split("\n\n")[0].split())
    why = "the shipped network that plays them all" if player.startswith("learned:") else \
        "no shipped network plays them all"
    assert first == f"Played by {player} against itself under every rule set (best: {why}).", first
    meta = json.loads((out / "report.json").read_text())
    assert meta["player"] == player
    assert set(meta["players"].values()) == {player} and len(meta["players"]) == 2
    markdown = (out / "report.md").read_text()
    assert f"played by `{player}` against itself under every rule set (`best`: {why})." in markdown


def test_auto_equity_offers_the_one_shipped_model_that_plays_every_rule_set():
    house = EUROPEAN.with_overrides({"hitting": "after-home"})
    alone = equity_models(EUROPEAN, "expert", 20, seed=3)
    assert alone.learned.path.endswith("any.npz")
    backgammon = equity_models(BACKGAMMON, "expert", 20, seed=3)
    assert backgammon.learned.path.endswith("backgammon.npz")  # named in the models' best.toml
    # a comparison with a house rule is measured by the network that reads the rules, under both
    mixed = equity_models(EUROPEAN, "expert", 20, seed=3, among=(EUROPEAN, house))
    assert mixed.learned.path.endswith("any.npz")
    assert np.array_equal(mixed.learned.array, load_model(shipped_path("any")).network(EUROPEAN))
    cube = equity_models(EUROPEAN, "expert", 20, seed=3, among=(EUROPEAN, EUROPEAN.with_overrides({"cube": "money"})))
    assert cube.learned.path.endswith("any.npz")
    cube = equity_models(BACKGAMMON, "expert", 20, seed=3,
                         among=(BACKGAMMON, BACKGAMMON.with_overrides({"cube": "money"})))
    assert cube.learned.path.endswith("backgammon.npz")


def test_without_a_network_that_plays_them_all_auto_equity_is_logistic(tmp_path, monkeypatch):
    import shutil

    from acesim.engine import model_files

    shutil.copy(shipped_path("european"), tmp_path / "european.npz")
    monkeypatch.setattr(model_files, "model_dir", lambda: tmp_path)
    house = EUROPEAN.with_overrides({"hitting": "after-home"})
    mixed = equity_models(EUROPEAN, "expert", 20, seed=3, among=(EUROPEAN, house))
    assert set(mixed.calibrations) == {"logistic"} and mixed.chosen == "logistic"


def test_best_takes_the_rule_reading_network_unless_best_toml_names_the_presets_own(tmp_path, monkeypatch):
    """The network that reads the rules plays every comparison, and a preset alone unless the models'
    best.toml names the preset's own network; a preset's network plays it when nothing else does."""
    import shutil

    from acesim.engine import model_files
    from acesim.engine import strategies as S
    from acesim.engine.rules import PRESETS
    from acesim.runs import training as L

    settings = L.RunSettings(tuple(PRESETS.values()), 0.5, 32, 4, (6, 0))
    L.train_run(L.start_run(settings), tmp_path / "all.npz")
    shutil.copy(shipped_path("european"), tmp_path / "european.npz")
    monkeypatch.setattr(model_files, "model_dir", lambda: tmp_path)
    S._best_for.cache_clear()
    try:
        house = EUROPEAN.with_overrides({"hitting": "after-home"})
        assert best_spec(EUROPEAN, AMERICAN) == "learned:all"
        assert best_spec(EUROPEAN, house) == "learned:all"
        assert best_spec(house) == "learned:all"
        assert best_spec(EUROPEAN) == "learned:all"
        (tmp_path / "best.toml").write_text('own_network = ["european"]\n')
        S._best_for.cache_clear()
        assert best_spec(EUROPEAN) == "learned:european"  # named: the preset's own network, before the one for all
        assert best_spec(EUROPEAN, EUROPEAN.with_overrides({"cube": "money"})) == "learned:european"
        assert best_spec(EUROPEAN, house) == "learned:all"
        assert best_spec(AMERICAN) == "learned:all"  # no network of its own here
        (tmp_path / "all.npz").unlink()
        S._best_for.cache_clear()
        assert best_spec(EUROPEAN) == "learned:european" and best_spec(EUROPEAN, house) == "expert"
    finally:
        S._best_for.cache_clear()


@pytest.mark.parametrize(
    "text, says",
    [
        ("own_network = [", "cannot read its list own_network"),
        ("other = 1\n", "cannot read its list own_network"),
        ("own_network = \"backgammon\"\n", "own_network must be a list of model names"),
        ("own_network = [\"nosuch\"]\n", "own_network names nosuch, which is not a shipped model"),
    ],
)
def test_a_bad_best_toml_is_one_line_naming_it(tmp_path, monkeypatch, text, says):
    import shutil

    from acesim.engine import model_files
    from acesim.engine import strategies as S

    shutil.copy(shipped_path("european"), tmp_path / "european.npz")
    (tmp_path / "best.toml").write_text(text)
    monkeypatch.setattr(model_files, "model_dir", lambda: tmp_path)
    S._best_for.cache_clear()
    try:
        with pytest.raises(AcesimError, match="best.toml: " + says) as caught:
            best_spec(EUROPEAN)
        assert "\n" not in str(caught.value)
    finally:
        S._best_for.cache_clear()
