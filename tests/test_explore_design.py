"""The landscape's design: which rule sets it plays, and every bad design refused before any game."""

from __future__ import annotations

import itertools

import pytest
from typer.testing import CliRunner

from acesim.cli import app
from acesim.common.errors import AcesimError
from acesim.engine.rules import KNOBS, PRESETS
from acesim.engine.strategies import best_spec
from acesim.runs.explore import (canonical, factorial_size, make_design, make_plan, parse_vary, _key, _valid)
from tests.test_cli import assert_one_line_error

runner = CliRunner()
BASE = PRESETS["european"]


def test_the_whole_space_counts_every_distinct_rule_set_once():
    # ten true/false knobs and four of three values, free; acey_deucey with its extra roll: 5 valid
    # pairs; the cube: none, or money with one of six limits
    assert factorial_size(parse_vary([]), BASE) == 2**10 * 3**4 * 5 * 7 == 2_903_040


def test_the_count_matches_the_rule_sets_listed():
    """Counted by pairs of knobs (factorial_size) and listed one by one, the silent knobs canonical."""
    factors = parse_vary(["acey_deucey", "acey_deucey_extra_roll", "cube", "cube_max", "bearoff"])
    listed = set()
    names = list(factors)
    for values in itertools.product(*(factors[k] for k in names)):
        knobs = canonical({**BASE.knobs(), **dict(zip(names, values))}, BASE)
        if _valid(knobs):
            listed.add(_key(knobs))
    # acey_deucey: none (1) or choose/roll-die with the extra roll or not (4); cube: none (1) or money x 6
    assert factorial_size(factors, BASE) == len(listed) == 5 * 7 * 2


def test_a_small_factorial_is_played_in_full_with_the_presets():
    design = make_design(BASE, parse_vary(["doubles", "bearoff"]), rule_sets=128, seed=1)
    table = design.table()
    assert design.kind == "full"
    assert len(design.rulesets) == 3 * 2 + 3  # european is in the factorial; the other presets are not
    assert set(PRESETS) <= set(table["rule_set"])
    assert table.loc[table["rule_set"] == "european", "role"].item() == "base+preset"
    assert table["in_fit"].sum() == 6  # the other presets lie outside the design's space
    assert len({_key(r.knobs()) for r in design.rulesets}) == len(design.rulesets)


def test_a_random_design_is_the_seeds_and_holds_distinct_valid_rule_sets():
    a = make_design(BASE, parse_vary([]), rule_sets=60, seed=5)
    b = make_design(BASE, parse_vary([]), rule_sets=60, seed=5)
    c = make_design(BASE, parse_vary([]), rule_sets=60, seed=6)
    assert a.kind == "random" and len(a.rulesets) == 60
    assert a.table().equals(b.table()) and not a.table().equals(c.table())
    assert len({_key(r.knobs()) for r in a.rulesets}) == 60
    assert set(PRESETS) <= {r.name for r in a.rulesets}
    for r, role in zip(a.rulesets, a.roles):
        if role == "design":
            assert r.base == "european"  # the cube's equity model for a seat without a network
        if r.cube == "none":
            assert r.cube_max == BASE.cube_max
    varied = a.table()[list(KNOBS)].nunique()
    assert (varied >= 2).all()


def test_a_base_that_is_no_preset_joins_the_presets():
    base = BASE.with_overrides({"bearoff": "standard"})
    design = make_design(base, parse_vary(["doubles", "home"]), seed=1)
    roles = dict(zip((r.name for r in design.rulesets), design.roles))
    assert roles[base.name] == "base" and roles["european"] == "preset"
    assert len(design.rulesets) == 3 * 2 + 4


def test_the_player_must_play_every_rule_set():
    design = make_design(BASE, parse_vary(["doubles", "bearoff"]), seed=1)
    with pytest.raises(AcesimError, match="random has no plays"):
        make_plan(design, "random")
    with pytest.raises(AcesimError):
        make_plan(design, "learned:navy")  # a network of one rule set
    assert make_plan(design, "best").player == best_spec(*design.rulesets)  # one player for all


BAD = [
    (["--vary", "nosuch"], ["unknown rule knob 'nosuch'"]),
    (["--vary", "doubles=five"], ["doubles cannot be 'five'"]),
    (["--vary", "doubles=four,four"], ["twice"]),
    (["--vary", "doubles", "--vary", "doubles"], ["doubles twice"]),
    (["--vary", "doubles=four"], ["one value"]),
    (["--vary", "doubles=four,complement-after-1-2"], ["base's doubles"]),
    (["--vary", "cube_max"], ["no say while cube = none"]),
    (["--design", "full", "--max-rule-sets", "500"], ["full factorial", "more than --max-rule-sets 500"]),
    (["--rule-sets", "300", "--max-rule-sets", "200"], ["--rule-sets 300", "--max-rule-sets 200"]),
    (["--rule-sets", "20"], ["cannot fit"]),
    (["--design", "random", "--vary", "doubles", "--rule-sets", "50"], ["more than the 6 distinct"]),
    (["--design", "sideways"], ["unknown design"]),
    (["--base", "european", "--rule", "acey_deucey=none"], ["contradicts"]),
    (["--base", "nosuch"], ["unknown rules"]),
    (["--strategy", "random"], ["random has no plays"]),
    (["--strategy", "learned:navy"], ["navy"]),
]


@pytest.mark.parametrize("args, fragments", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_design_is_one_line_before_any_game(tmp_path, args, fragments):
    out = tmp_path / "landscape"
    result = runner.invoke(app, ["explore", *args, "--out", str(out), "--no-progress", "--workers", "1"])
    assert_one_line_error(result, *fragments)
    assert not out.exists()


def test_resume_takes_no_plan_options_and_out_is_needed(tmp_path):
    assert_one_line_error(runner.invoke(app, ["explore", "--no-progress"]), "--out")
    result = runner.invoke(app, ["explore", "--resume", str(tmp_path), "--games", "10", "--no-progress"])
    assert_one_line_error(result, "drop --games")
    assert_one_line_error(runner.invoke(app, ["explore", "--resume", str(tmp_path / "none"), "--no-progress"]),
                          "no such folder")
    assert_one_line_error(runner.invoke(app, ["explore", "--resume", str(tmp_path), "--no-progress"]),
                          "not an explore run")


def test_an_output_that_is_not_an_explore_folder_is_never_replaced(tmp_path):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["explore", "--vary", "doubles", "--vary", "bearoff", "--out", str(out), "--force",
                                 "--no-progress"])
    assert_one_line_error(result, "not an acesim explore folder")
    assert (out / "notes.txt").read_text() == "mine"
    result = runner.invoke(app, ["explore", "--vary", "doubles", "--vary", "bearoff", "--out", str(out),
                                 "--no-progress"])
    assert_one_line_error(result, "already exists")


def test_design_only_writes_the_design_and_plays_nothing(tmp_path):
    out = tmp_path / "landscape"
    result = runner.invoke(app, ["explore", "--vary", "doubles", "--vary", "bearoff", "--out", str(out),
                                 "--design-only", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert (out / "design.csv").read_text().count("\n") == 1 + 9
    assert (out / "explore.json").exists() and not (out / "rule-sets").exists()
