"""Rule sets: every knob of docs/rules.md section 4, the presets, files and overrides.

A ``Ruleset`` is plain data, validated once when it is made, and lowered by
``to_array`` to the small integer array the kernels read.
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from acesim.common.errors import AcesimError
from acesim.common.inputs import MAX_SMALL_INPUT, read_text
from acesim.kernels import layout as L

# Bumped whenever any rule's behaviour in the kernels changes; records carry it.
RULES_VERSION = 1

# Allowed values of each knob, in the order of the kernel codes in layout.py;
# ``bool`` marks a true/false knob, and a tuple of integers a knob whose value
# the kernels read as the number itself.
KNOB_VALUES: dict[str, tuple[str, ...] | tuple[int, ...] | type[bool]] = {
    "start": ("off-board", "backgammon"),
    "opening": ("reroll", "use"),
    "doubles": ("four", "four-plus-complement", "complement-after-1-2"),
    "doubles_extra_roll": bool,
    "acey_deucey": ("none", "choose", "roll-die"),
    "acey_deucey_extra_roll": bool,
    "bonus_needs_full_use": bool,
    "bar_first": bool,
    "bar_entry": ("any", "doubles-only", "bonus-only"),
    "home": ("free", "locked"),
    "home_after_all_in": ("free", "bearoff-only"),
    "bearoff": ("exact", "standard"),
    "scoring": ("single", "per-checker", "gammons"),
    "stakes_double_on_1_2": bool,
    "enter_first": ("none", "all-in-first", "midpoint"),
    "hitting": ("free", "after-home"),
    "cube": ("none", "money"),
    "cube_max": (2, 4, 8, 16, 32, 64),
}

_KNOB_INDEX = {
    "start": L.R_START,
    "opening": L.R_OPENING,
    "doubles": L.R_DOUBLES,
    "doubles_extra_roll": L.R_DOUBLES_EXTRA_ROLL,
    "acey_deucey": L.R_ACEY_DEUCEY,
    "acey_deucey_extra_roll": L.R_ACEY_DEUCEY_EXTRA_ROLL,
    "bonus_needs_full_use": L.R_BONUS_NEEDS_FULL_USE,
    "bar_first": L.R_BAR_FIRST,
    "bar_entry": L.R_BAR_ENTRY,
    "home": L.R_HOME,
    "home_after_all_in": L.R_HOME_AFTER_ALL_IN,
    "bearoff": L.R_BEAROFF,
    "scoring": L.R_SCORING,
    "stakes_double_on_1_2": L.R_STAKES_DOUBLE_ON_1_2,
    "enter_first": L.R_ENTER_FIRST,
    "hitting": L.R_HITTING,
    "cube": L.R_CUBE,
    "cube_max": L.R_CUBE_MAX,
}

KNOBS: tuple[str, ...] = tuple(KNOB_VALUES)
# The knobs of the doubling cube: they change what a game is worth, never how
# its checkers are played, so a model trained under any of their values plays
# under all of them (and models made before they existed lack them).
CUBE_KNOBS: tuple[str, ...] = ("cube", "cube_max")
CHECKER_KNOBS: tuple[str, ...] = tuple(k for k in KNOBS if k not in CUBE_KNOBS)

# A rule set's name becomes a folder name when a run has several rule sets, and
# overrides append "+knob=value" to it: a name of its own stays well short of
# the 255 bytes a folder name may have.
MAX_NAME_LENGTH = 64


def allowed_values(knob: str) -> str:
    values = KNOB_VALUES[knob]
    return "true, false" if values is bool else ", ".join(str(v) for v in values)


def is_integer_knob(knob: str) -> bool:
    values = KNOB_VALUES[knob]
    return values is not bool and isinstance(values[0], int)


@dataclass(frozen=True)
class Ruleset:
    """One complete set of house rules; field names are the knobs of docs/rules.md."""

    start: str
    opening: str
    doubles: str
    doubles_extra_roll: bool
    acey_deucey: str
    acey_deucey_extra_roll: bool
    bonus_needs_full_use: bool
    bar_first: bool
    bar_entry: str
    home: str
    home_after_all_in: str
    bearoff: str
    scoring: str
    stakes_double_on_1_2: bool
    # the knobs added later default to today's game, so a preset leaves them out
    enter_first: str = "none"
    hitting: str = "free"
    cube: str = "none"
    cube_max: int = 64
    name: str = field(default="custom", compare=False)
    base: str = field(default="", compare=False)  # the preset it was made from

    def __post_init__(self) -> None:
        for knob in KNOBS:
            value = getattr(self, knob)
            allowed = KNOB_VALUES[knob]
            if allowed is bool:
                ok = isinstance(value, bool)
            elif is_integer_knob(knob):
                ok = isinstance(value, int) and not isinstance(value, bool) and value in allowed
            else:
                ok = isinstance(value, str) and value in allowed
            if not ok:
                raise AcesimError(
                    f"rule {knob} cannot be {value!r}; allowed: {allowed_values(knob)}"
                )
        _check_name(self.name)
        if self.acey_deucey == "none" and self.acey_deucey_extra_roll:
            raise AcesimError(
                "rule acey_deucey_extra_roll=true contradicts acey_deucey=none "
                "(there is no 1-2 bonus to follow); set acey_deucey_extra_roll=false"
            )

    @classmethod
    def preset(cls, name: str) -> Ruleset:
        try:
            return PRESETS[name]
        except KeyError:
            raise AcesimError(
                f"unknown rule preset {name!r}; presets: {', '.join(PRESETS)}"
            ) from None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], name: str | None = None) -> Ruleset:
        """``{"preset": "navy", "<knob>": value, ...}`` as in rule files and batch queries."""
        if not isinstance(data, Mapping):
            raise AcesimError("rules must be a preset name or an object with a 'preset' key")
        data = dict(data)
        preset_name = data.pop("preset", None)
        if preset_name is None:
            raise AcesimError(
                f"rules need a 'preset' key naming the base rule set ({', '.join(PRESETS)})"
            )
        if not isinstance(preset_name, str):
            raise AcesimError(f"rules 'preset' must be a name, got {preset_name!r}")
        file_name = data.pop("name", None)
        base = cls.preset(preset_name)
        overrides = {knob: _typed_value(knob, value) for knob, value in data.items()}
        ruleset = base.with_overrides(overrides)
        if file_name is not None and not isinstance(file_name, str):
            raise AcesimError(f"rules 'name' must be text, got {file_name!r}")
        own_name = file_name if file_name is not None else (name if overrides else None)
        if own_name is not None:
            if len(own_name) > MAX_NAME_LENGTH:
                raise AcesimError(
                    f"rule set name {own_name[:20]!r}... is longer than {MAX_NAME_LENGTH} characters"
                )
            ruleset = dataclasses.replace(ruleset, name=own_name)
        return ruleset

    @classmethod
    def from_file(cls, path: Path) -> Ruleset:
        """A TOML or JSON file: ``preset = "navy"`` plus knob overrides."""
        text = read_text(path, "rules file", MAX_SMALL_INPUT)
        try:
            if path.suffix.lower() == ".json":
                # a key given twice is refused, as TOML refuses it, never settled by the last
                data = json.loads(text, object_pairs_hook=_unique_keys)
            else:
                data = tomllib.loads(text)
        except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
            raise AcesimError(f"rules file {path} is malformed: {exc}") from None
        except _DuplicateKey as exc:
            raise AcesimError(f"rules file {path} is malformed: key {exc} is given twice") from None
        except RecursionError:
            raise AcesimError(f"rules file {path} is malformed: nested too deeply") from None
        return cls.from_mapping(data, name=path.stem)

    def with_overrides(self, overrides: Mapping[str, Any]) -> Ruleset:
        if not overrides:
            return self
        for knob in overrides:
            _check_knob(knob)
        changed = {k: v for k, v in overrides.items() if getattr(self, k) != v}
        suffix = "".join(f"+{k}={_show(v)}" for k, v in changed.items())
        return dataclasses.replace(self, **overrides, name=self.name + suffix)

    def knobs(self) -> dict[str, str | bool | int]:
        return {knob: getattr(self, knob) for knob in KNOBS}

    def checker_knobs(self) -> dict[str, str | bool]:
        """The knobs that decide how checkers are played: those a model is trained under."""
        return {knob: getattr(self, knob) for knob in CHECKER_KNOBS}

    def base_preset(self) -> Ruleset | None:
        """The preset this rule set was made from, if it names one."""
        return PRESETS.get(self.base)

    def changed_knobs(self) -> dict[str, tuple[str | bool | int, str | bool | int]]:
        """The knobs whose value differs from the base preset's: knob -> (the preset's value, this one's)."""
        base = self.base_preset()
        if base is None:
            return {}
        return {k: (getattr(base, k), getattr(self, k)) for k in KNOBS if getattr(base, k) != getattr(self, k)}

    def source_notes(self) -> list[str]:
        """Where the base preset and each value changed from it (or every value, without a base) come from."""
        base = self.base_preset()
        notes = [f"Source of the {self.base} preset: {PRESET_SOURCES[self.base]}"] if base is not None else []
        for knob in KNOBS:
            value = getattr(self, knob)
            if (knob, value) in VALUE_SOURCES and (base is None or getattr(base, knob) != value):
                notes.append(f"Source of {knob} = {_show(value)}: {VALUE_SOURCES[(knob, value)]}")
        if not self.has_cube and base is not None and self.cube_max != base.cube_max:
            notes.append(f"cube_max = {self.cube_max} is ignored with cube = none (docs/rules.md section 4)")
        return notes

    @property
    def has_cube(self) -> bool:
        return self.cube != "none"

    def to_array(self) -> np.ndarray:
        """The kernels' view: one small integer per knob at its layout index."""
        array = np.zeros(L.RULES_SIZE, dtype=L.RULES_DTYPE)
        for knob in KNOBS:
            value = getattr(self, knob)
            allowed = KNOB_VALUES[knob]
            if allowed is bool or is_integer_knob(knob):
                array[_KNOB_INDEX[knob]] = int(value)
            else:
                array[_KNOB_INDEX[knob]] = allowed.index(value)
        return array


# Knobs added after the first fourteen, with the value that plays the game as it was before
# the knob existed: a rule set recorded without one (a model file, a run's plan) plays that.
LATER_KNOBS: dict[str, Any] = {
    f.name: f.default for f in dataclasses.fields(Ruleset)
    if f.name in KNOB_VALUES and f.default is not dataclasses.MISSING
}


def recorded_knobs(recorded: Mapping[str, Any]) -> dict[str, Any] | None:
    """Every knob of a rule set recorded by this or an earlier acesim, or None if one is missing.

    A knob added later than the record is filled in from ``LATER_KNOBS``.
    """
    if not set(KNOBS) - set(LATER_KNOBS) <= set(recorded):
        return None
    return {knob: recorded.get(knob, LATER_KNOBS.get(knob)) for knob in KNOBS}


def _check_knob(knob: str) -> None:
    if knob not in KNOB_VALUES:
        raise AcesimError(f"unknown rule knob {knob!r}; knobs: {', '.join(KNOBS)}")


def _check_name(name: str) -> None:
    """A rule set's name is shown in tables and names a folder: printable, no path separators."""
    if not name or not name.isprintable() or "/" in name or "\\" in name or name in (".", ".."):
        raise AcesimError(
            f"rule set name {name!r} must be printable text without '/' or '\\' (it names a folder)"
        )


def _show(value: str | bool | int) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _typed_value(knob: str, value: Any) -> str | bool:
    """A knob's value from a file or query, which keeps its JSON/TOML type."""
    _check_knob(knob)
    if KNOB_VALUES[knob] is bool:
        if not isinstance(value, bool):
            raise AcesimError(f"rule {knob} cannot be {value!r}; allowed: true, false")
        return value
    if is_integer_knob(knob):
        # an integer, not its text: "16" in a file is a string by the file's own rules
        if isinstance(value, bool) or not isinstance(value, int) or value not in KNOB_VALUES[knob]:
            raise AcesimError(f"rule {knob} cannot be {value!r}; allowed: {allowed_values(knob)}")
        return value
    if not isinstance(value, str):
        raise AcesimError(f"rule {knob} cannot be {value!r}; allowed: {allowed_values(knob)}")
    return value


def parse_override(text: str) -> tuple[str, str | bool | int]:
    """``knob=value`` from the command line."""
    knob, sep, raw = text.partition("=")
    knob, raw = knob.strip(), raw.strip()
    if not sep or not knob:
        raise AcesimError(f"rule override {text!r} must look like knob=value")
    _check_knob(knob)
    if KNOB_VALUES[knob] is bool:
        # only the two words of the rule model: "yes" or "1" could as well be a typo
        if raw in ("true", "false"):
            return knob, raw == "true"
        raise AcesimError(f"rule {knob} cannot be {raw!r}; allowed: true, false")
    if is_integer_knob(knob):
        if raw.isdecimal() and raw.isascii() and int(raw) in KNOB_VALUES[knob]:
            return knob, int(raw)
        raise AcesimError(f"rule {knob} cannot be {raw!r}; allowed: {allowed_values(knob)}")
    return knob, raw


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(repr(key))
        seen[key] = value
    return seen


def load_ruleset(spec: str, overrides: Sequence[str] = ()) -> Ruleset:
    """A preset name or a rules file, then ``knob=value`` overrides."""
    if spec in PRESETS:
        ruleset = PRESETS[spec]
    else:
        path = Path(spec)
        if path.suffix.lower() in (".toml", ".json") or path.exists():
            if not path.exists():
                raise AcesimError(f"rules file {spec} does not exist")
            ruleset = Ruleset.from_file(path)
        else:
            raise AcesimError(
                f"unknown rules {spec!r}: not a preset ({', '.join(PRESETS)}) "
                "and not a .toml or .json file"
            )
    return ruleset.with_overrides(dict(parse_override(o) for o in overrides))


def load_rulesets(spec: str, overrides: Sequence[str] = ()) -> list[Ruleset]:
    """Comma-separated presets or rules files, each with the same ``knob=value`` overrides."""
    names = [s.strip() for s in spec.split(",")]
    if any(not n for n in names):
        raise AcesimError(f"empty rule set name in --rules {spec!r}")
    return [load_ruleset(n, overrides) for n in names]


PRESETS: dict[str, Ruleset] = {
    "european": Ruleset(
        start="off-board",
        opening="reroll",
        doubles="four-plus-complement",
        doubles_extra_roll=True,
        acey_deucey="choose",
        acey_deucey_extra_roll=True,
        bonus_needs_full_use=True,
        bar_first=True,
        bar_entry="any",
        home="free",
        home_after_all_in="bearoff-only",
        bearoff="exact",
        scoring="single",
        stakes_double_on_1_2=False,
        name="european",
        base="european",
    ),
    "american": Ruleset(
        start="off-board",
        opening="reroll",
        doubles="four",
        doubles_extra_roll=False,
        acey_deucey="choose",
        acey_deucey_extra_roll=True,
        bonus_needs_full_use=True,
        bar_first=True,
        bar_entry="any",
        home="free",
        home_after_all_in="free",
        bearoff="standard",
        scoring="per-checker",
        stakes_double_on_1_2=False,
        name="american",
        base="american",
    ),
    "navy": Ruleset(
        start="off-board",
        opening="reroll",
        doubles="four",
        doubles_extra_roll=True,
        acey_deucey="choose",
        acey_deucey_extra_roll=True,
        bonus_needs_full_use=False,
        bar_first=False,
        bar_entry="any",
        home="locked",
        home_after_all_in="free",
        bearoff="exact",
        scoring="single",
        stakes_double_on_1_2=False,
        name="navy",
        base="navy",
    ),
    "backgammon": Ruleset(
        start="backgammon",
        opening="use",
        doubles="four",
        doubles_extra_roll=False,
        acey_deucey="none",
        acey_deucey_extra_roll=False,
        bonus_needs_full_use=False,
        bar_first=True,
        bar_entry="any",
        home="free",
        home_after_all_in="free",
        bearoff="standard",
        scoring="gammons",
        stakes_double_on_1_2=False,
        name="backgammon",
        base="backgammon",
    ),
}

# Where a knob value that a table may play comes from, when a preset does not already say it.
VALUE_SOURCES: dict[tuple[str, str | bool], str] = {
    ("acey_deucey", "roll-die"): "docs/sources/001_fa1ead771036e2b5.txt, restrictive variant 1",
    ("bonus_needs_full_use", True): "docs/sources/001_fa1ead771036e2b5.txt, restrictive variants 2, 3 and 8",
    ("home", "free"): "docs/sources/001_fa1ead771036e2b5.txt, restrictive variant 4",
    ("home_after_all_in", "bearoff-only"): "docs/sources/001_fa1ead771036e2b5.txt, restrictive variant 5",
    ("bearoff", "exact"): "docs/sources/001_fa1ead771036e2b5.txt, restrictive variant 6",
    ("bar_entry", "doubles-only"): "docs/sources/001_fa1ead771036e2b5.txt, restrictive variant 7",
    ("bar_entry", "bonus-only"): "an Australian house rule from published descriptions of the game, "
                                 "not in docs/sources (docs/rules.md section 4)",
    ("stakes_double_on_1_2", True): "docs/sources/000_e987f27d95d37f6e.txt, its optional stakes rule",
    ("enter_first", "all-in-first"): "Encyclopaedia Britannica's Acey-Deucey entry and older encyclopedia "
                                     "texts, not in docs/sources (docs/rules.md section 4)",
    ("enter_first", "midpoint"): "player descriptions of the game, not in docs/sources (docs/rules.md section 4)",
    ("hitting", "after-home"): "Encyclopaedia Britannica's Acey-Deucey entry, not in docs/sources "
                               "(docs/rules.md section 4)",
    ("doubles", "complement-after-1-2"): "Encyclopaedia Britannica's description of the European game, "
                                         "not in docs/sources (docs/rules.md section 4)",
    ("cube", "money"): "standard backgammon money play with the doubling cube; also an Australian "
                       "Acey-Deucey house rule from published descriptions of the game, not in docs/sources "
                       "(docs/rules.md section 4)",
}

PRESET_SOURCES: dict[str, str] = {
    "european": "docs/sources/000_e987f27d95d37f6e.txt (European Acey-Deucey)",
    "american": "docs/sources/004_1a85fe3d9c3d0581.txt, American column; "
    "doubles_extra_roll=false is an inference",
    "navy": "docs/sources/001_fa1ead771036e2b5.txt, main rules and notable differences 1-5; "
    "opening=reroll is an inference",
    "backgammon": "docs/sources/002_7d15cb8c902c9f67.txt plus ordinary backgammon scoring",
}
