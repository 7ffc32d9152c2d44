"""Rule sets: presets match docs/rules.md section 4, files and overrides, one-line errors."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from acesim.common.errors import AcesimError
from acesim.engine.rules import KNOB_VALUES, KNOBS, PRESETS, Ruleset, load_ruleset, parse_override
from acesim.kernels import layout as L

# docs/rules.md section 4, transcribed column by column.
TABLE = {
    "start": ("off-board", "off-board", "off-board", "backgammon"),
    "opening": ("reroll", "reroll", "reroll", "use"),
    "doubles": ("four-plus-complement", "four", "four", "four"),
    "doubles_extra_roll": (True, False, True, False),
    "acey_deucey": ("choose", "choose", "choose", "none"),
    "acey_deucey_extra_roll": (True, True, True, False),
    "bonus_needs_full_use": (True, True, False, False),
    "bar_first": (True, True, False, True),
    "bar_entry": ("any", "any", "any", "any"),
    "home": ("free", "free", "locked", "free"),
    "home_after_all_in": ("bearoff-only", "free", "free", "free"),
    "bearoff": ("exact", "standard", "exact", "standard"),
    "scoring": ("single", "per-checker", "single", "gammons"),
    "stakes_double_on_1_2": (False, False, False, False),
    "enter_first": ("none", "none", "none", "none"),
    "hitting": ("free", "free", "free", "free"),
    "cube": ("none", "none", "none", "none"),
    "cube_max": (64, 64, 64, 64),
}


def test_knob_names_are_exactly_those_of_rules_md():
    assert set(KNOBS) == set(TABLE)


@pytest.mark.parametrize("column, name", list(enumerate(["european", "american", "navy", "backgammon"])))
def test_presets_match_rules_md(column, name):
    preset = Ruleset.preset(name)
    for knob, values in TABLE.items():
        assert getattr(preset, knob) == values[column], knob


def test_to_array_puts_each_knob_at_its_index():
    arr = Ruleset.preset("european").to_array()
    assert arr.shape == (L.RULES_SIZE,)
    assert arr[L.R_DOUBLES] == L.DOUBLES_FOUR_PLUS_COMPLEMENT
    assert arr[L.R_HOME_AFTER_ALL_IN] == L.HOME_AFTER_ALL_IN_BEAROFF_ONLY
    assert arr[L.R_BEAROFF] == L.BEAROFF_EXACT
    assert arr[L.R_BAR_FIRST] == 1
    navy = Ruleset.preset("navy").to_array()
    assert navy[L.R_HOME] == L.HOME_LOCKED and navy[L.R_BAR_FIRST] == 0
    bg = Ruleset.preset("backgammon").to_array()
    assert bg[L.R_SCORING] == L.SCORING_GAMMONS and bg[L.R_ACEY_DEUCEY] == L.ACEY_DEUCEY_NONE
    assert bg[L.R_START] == L.START_BACKGAMMON and bg[L.R_OPENING] == L.OPENING_USE


def test_every_preset_lowers_to_distinct_arrays():
    arrays = {tuple(p.to_array()) for p in PRESETS.values()}
    assert len(arrays) == len(PRESETS)


def test_overrides_change_one_knob_and_the_name():
    r = load_ruleset("navy", ["bearoff=standard", "bar_first=true"])
    assert r.bearoff == "standard" and r.bar_first is True and r.home == "locked"
    assert r.name == "navy+bearoff=standard+bar_first=true"
    assert r != Ruleset.preset("navy")


def test_equality_ignores_the_name():
    r = dataclasses.replace(Ruleset.preset("european"), name="mine")
    assert r == Ruleset.preset("european")


@pytest.mark.parametrize(
    "override, message",
    [
        ("colour=red", "unknown rule knob 'colour'"),
        ("bearoff=sometimes", "rule bearoff cannot be 'sometimes'; allowed: exact, standard"),
        ("bar_first=maybe", "rule bar_first cannot be 'maybe'; allowed: true, false"),
        ("bearoff", "must look like knob=value"),
    ],
)
def test_bad_overrides_name_the_problem(override, message):
    with pytest.raises(AcesimError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_ruleset("european", [override])


def test_contradictory_settings_are_refused():
    with pytest.raises(AcesimError, match="acey_deucey_extra_roll=true contradicts acey_deucey=none"):
        load_ruleset("european", ["acey_deucey=none"])
    r = load_ruleset("european", ["acey_deucey=none", "acey_deucey_extra_roll=false"])
    assert r.acey_deucey == "none"


def test_unknown_preset_lists_the_presets():
    with pytest.raises(AcesimError, match="unknown rules 'russian'"):
        load_ruleset("russian")


def test_toml_and_json_files(tmp_path):
    toml = tmp_path / "club.toml"
    toml.write_text('preset = "navy"\nbearoff = "standard"\ndoubles_extra_roll = false\n')
    r = load_ruleset(str(toml))
    assert (r.home, r.bearoff, r.doubles_extra_roll) == ("locked", "standard", False)
    assert r.name == "club"
    js = tmp_path / "club.json"
    js.write_text(json.dumps({"preset": "american", "name": "pub rules", "scoring": "single"}))
    r = load_ruleset(str(js), ["bar_first=false"])
    assert r.scoring == "single" and r.bar_first is False
    assert r.name.startswith("pub rules")


@pytest.mark.parametrize(
    "content, message",
    [
        ('preset = "navy"\nbearoff = 6\n', "rule bearoff cannot be 6"),
        ('preset = "navy"\nbar_first = "yes"\n', "rule bar_first cannot be 'yes'; allowed: true, false"),
        ('bearoff = "exact"\n', "rules need a 'preset' key"),
        ('preset = "navy"\nturbo = true\n', "unknown rule knob 'turbo'"),
        ('preset = "navy\n', "is malformed"),
    ],
)
def test_bad_files_name_the_problem(tmp_path, content, message):
    path = tmp_path / "bad.toml"
    path.write_text(content)
    with pytest.raises(AcesimError, match=message):
        load_ruleset(str(path))


def test_missing_file():
    with pytest.raises(AcesimError, match="does not exist"):
        load_ruleset("no/such/rules.toml")


def test_parse_override_booleans():
    # the rule model's two words only: "no" or "TRUE" is refused (tests/test_faults_input.py)
    assert parse_override("bar_first=false") == ("bar_first", False)
    assert parse_override("bar_first=true") == ("bar_first", True)
    with pytest.raises(AcesimError, match="allowed: true, false"):
        parse_override("bar_first=no")


def test_knob_values_are_in_kernel_code_order():
    # The kernels read codes; the tuple order in KNOB_VALUES defines them.
    assert KNOB_VALUES["bearoff"].index("standard") == L.BEAROFF_STANDARD
    assert KNOB_VALUES["acey_deucey"].index("roll-die") == L.ACEY_DEUCEY_ROLL_DIE
    assert KNOB_VALUES["scoring"].index("per-checker") == L.SCORING_PER_CHECKER
    assert np.issubdtype(Ruleset.preset("navy").to_array().dtype, np.integer)


def test_rules_show_names_the_source_of_a_house_rule_value():
    from typer.testing import CliRunner

    from acesim.cli import app
    from acesim.engine.rules import KNOB_VALUES, VALUE_SOURCES

    result = CliRunner().invoke(app, ["rules", "show", "navy", "--rule", "bar_entry=bonus-only"])
    assert result.exit_code == 0
    assert "Source of bar_entry = bonus-only: an Australian house rule" in result.output
    plain = CliRunner().invoke(app, ["rules", "show", "navy"])
    assert "Source of bar_entry" not in plain.output
    for (knob, value), source in VALUE_SOURCES.items():
        assert value in (True, False) if KNOB_VALUES[knob] is bool else value in KNOB_VALUES[knob]
        if source.startswith("docs/"):
            assert (Path(__file__).parent.parent / source.split(",")[0]).exists(), source


def test_a_record_without_the_later_knobs_plays_them_as_before():
    """A model file or plan written before a knob existed plays that knob at its old behaviour."""
    from acesim.engine.rules import LATER_KNOBS, recorded_knobs

    european = Ruleset.preset("european")
    assert LATER_KNOBS and all(getattr(european, k) == v for k, v in LATER_KNOBS.items())
    old = {k: v for k, v in european.knobs().items() if k not in LATER_KNOBS}
    assert recorded_knobs(old) == european.knobs()
    assert recorded_knobs({**old, "hitting": "after-home"})["hitting"] == "after-home"
    first_knob = next(k for k in KNOBS if k not in LATER_KNOBS)
    assert recorded_knobs({k: v for k, v in old.items() if k != first_knob}) is None
