"""The house-rule landscape: a designed experiment over the rule space (docs/landscape.md).

``make_design`` chooses the rule sets: a base rule set, the knobs to vary
and their values, then a full factorial when it is small enough, else a
seeded random design; the four presets are always in it.  ``make_plan``
adds the player and the sizes; ``run`` writes the plan and the design table
before any game, plays each rule set as one task on the task runner (its
own Parquet records, written by this process as each task ends, a
``done.json`` last), and then writes the landscape report from the records.
A killed run resumes (``resume``) without replaying a finished rule set.

Every game of every rule set is played on common dice: game ``g`` of every
rule set rolls from the same stream (``acesim.engine.streams``), so nothing depends
on how the rule sets are spread over workers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io as pyio
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from acesim import __version__
from acesim.analyses import landscape as A
from acesim.analyses.equity import equity_models
from acesim.analyses.luck import trace_luck
from acesim.common import files as io
from acesim.common.cluster import backend_for, check_scheduler
from acesim.common.errors import AcesimError
from acesim.common.inputs import read_plan
from acesim.common.limits import DEFAULT_TURN_CAP, MAX_GAMES, MAX_TURN_CAP
from acesim.common.tasks import check_workers, map_tasks
from acesim.engine.games import Traces, play_games, play_records, records_frame, trace_games, traced_records
from acesim.engine.rules import (KNOB_VALUES, KNOBS, PRESETS, RULES_VERSION, Ruleset, allowed_values, load_ruleset,
                                 parse_override)
from acesim.engine.strategies import RANDOM_NAME, load_strategy, resolve_spec
from acesim.engine.streams import check_seed
from acesim.kernels.choice import RANDOM
from acesim.outputs.landscape_page import write_report
from acesim.runs.options import ExploreOptions

PLAN_FILE = "explore.json"  # marks a folder as an explore run (for --force and --resume)
DESIGN_FILE = "design.csv"
RULE_SETS_DIR = "rule-sets"
REPORT_DIR = "report"
DONE_FILE = "done.json"
RECORD_FILES = ("records", "skill", "luck")  # each rule set's Parquet files
MAX_PLAN_BYTES = 16 * 2**20
DESIGNS = ("auto", "full", "random")
DEFAULT_RULE_SETS = ExploreOptions.rule_sets
DEFAULT_MAX_RULE_SETS = ExploreOptions.max_rule_sets
# The design's draws come from the root seed's stream under this spawn key, apart from the games'
# blocks (0, 1, ...), so the same seed gives the same design and the same dice.
DESIGN_KEY = 2**32 - 5

# Knobs that have no say while another knob has a value: there they take one value, so that two
# rule sets of the design never play the same game under two names.
SILENT = {
    "cube_max": ("cube", "none"),  # no cube, no limit on it
    "acey_deucey_extra_roll": ("acey_deucey", "none"),  # no 1-2 bonus, no roll after it
}


# --- the design -------------------------------------------------------------------------------


def parse_vary(specs: Sequence[str]) -> dict[str, tuple]:
    """``--vary KNOB`` (every value) or ``--vary KNOB=V1,V2,...``; none given: every knob, every value.

    Each value goes through the ``--rule`` parser, so an unknown knob or a
    value a knob does not take is the usual one-line error.
    """
    if not specs:
        return {knob: _all_values(knob) for knob in KNOBS}
    factors: dict[str, tuple] = {}
    for spec in specs:
        knob, sep, raw = spec.partition("=")
        knob = knob.strip()
        if knob not in KNOB_VALUES:
            parse_override(f"{knob}=x")  # the one-line error naming the knobs
        if knob in factors:
            raise AcesimError(f"--vary names {knob} twice")
        if not sep:
            factors[knob] = _all_values(knob)
            continue
        texts = [v.strip() for v in raw.split(",")]
        if not raw.strip() or any(not v for v in texts):
            raise AcesimError(f"--vary {spec!r} must look like knob or knob=value1,value2,...")
        values = [parse_override(f"{knob}={v}")[1] for v in texts]
        for text, value in zip(texts, values):
            if value not in _all_values(knob):
                raise AcesimError(f"rule {knob} cannot be {text!r}; allowed: {allowed_values(knob)}")
        if len(set(values)) < len(values):
            raise AcesimError(f"--vary {spec!r} lists a value twice")
        if len(values) < 2:
            raise AcesimError(f"--vary {spec!r} gives {knob} one value; a knob varies over at least two "
                              "(fix one with --rule)")
        factors[knob] = tuple(values)
    return factors


def _all_values(knob: str) -> tuple:
    values = KNOB_VALUES[knob]
    return (False, True) if values is bool else tuple(values)


def canonical(knobs: dict, base: Ruleset) -> dict:
    """``knobs`` with every silent knob (``SILENT``) at the one value it takes there."""
    out = dict(knobs)
    for knob, (other, value) in SILENT.items():
        if out[other] == value:
            out[knob] = False if knob == "acey_deucey_extra_roll" else getattr(base, knob)
    return out


def _key(knobs: Mapping) -> tuple:
    return tuple(knobs[k] for k in KNOBS)


@dataclass(frozen=True)
class Design:
    """The rule sets of an exploration: who they are, why they are in it, and which enter the effects."""

    base: Ruleset
    factors: tuple[tuple[str, tuple], ...]  # (knob, the values it varies over)
    kind: str  # "full" (every combination) or "random" (seeded draws)
    seed: int
    rulesets: tuple[Ruleset, ...]
    roles: tuple[str, ...]  # base, preset, base+preset, design

    def in_space(self, rules: Ruleset) -> bool:
        """Whether ``rules`` lies in the design's space: every knob not varied as in the base."""
        return _in(rules, self.base, dict(self.factors))

    def table(self) -> pd.DataFrame:
        """One row per rule set: its name, role, whether it enters the effects, and every knob."""
        rows = [{"rule_set": r.name, "role": role, "in_fit": self.in_space(r), **r.knobs()}
                for r, role in zip(self.rulesets, self.roles)]
        return pd.DataFrame(rows, columns=["rule_set", "role", "in_fit", *KNOBS])


def factorial_size(factors: Mapping[str, tuple], base: Ruleset) -> int:
    """The number of distinct valid rule sets of the full factorial of ``factors`` around ``base``.

    Counted without listing them: only the pairs of ``SILENT`` tie knobs
    together, so each pair's values are counted apart and the rest multiply.
    """
    total = 1
    left = set(factors)
    for knob, (other, _) in SILENT.items():
        pair = [k for k in (knob, other) if k in left]
        if not pair:
            continue
        left -= set(pair)
        seen = set()
        for values in itertools.product(*(factors[k] for k in pair)):
            knobs = canonical({**base.knobs(), **dict(zip(pair, values))}, base)
            if _valid(knobs):
                seen.add((knobs[knob], knobs[other]))
        total *= len(seen)
    for knob in left:
        total *= len(factors[knob])
    return total


def _valid(knobs: Mapping) -> bool:
    return not (knobs["acey_deucey"] == "none" and knobs["acey_deucey_extra_roll"])


def make_design(
    base: Ruleset,
    factors: Mapping[str, tuple],
    rule_sets: int = DEFAULT_RULE_SETS,
    design: str = "auto",
    seed: int = 42,
    max_rule_sets: int = DEFAULT_MAX_RULE_SETS,
) -> Design:
    """The rule sets to play: the base, the four presets, then the factorial or ``rule_sets`` in all.

    ``design`` ``auto`` takes the full factorial when it has at most
    ``rule_sets`` rule sets (presets included), else a random design of
    ``rule_sets``; ``full`` and ``random`` insist.  A random design draws
    every varied knob uniformly among its values from the seed's own stream,
    canonicalises (``SILENT``) and keeps each rule set once.
    """
    if design not in DESIGNS:
        raise AcesimError(f"unknown design {design!r}; designs: {', '.join(DESIGNS)}")
    if max_rule_sets <= 0:
        raise AcesimError(f"--max-rule-sets must be positive, got {max_rule_sets}")
    if rule_sets <= 0:
        raise AcesimError(f"--rule-sets must be positive, got {rule_sets}")
    check_seed(seed)
    if not factors:
        raise AcesimError("the design varies no knob")
    for knob, values in factors.items():
        if getattr(base, knob) not in values:
            raise AcesimError(f"the base's {knob} = {_show(getattr(base, knob))} is not among the values "
                              f"--vary gives it ({', '.join(_show(v) for v in values)})")
    _check_silent(base, factors)
    fixed = [r for r in _fixed_rulesets(base)]
    fixed_keys = {_key(r.knobs()) for r in fixed}
    size = factorial_size(factors, base)
    outside = sum(1 for r in fixed if not _in(r, base, factors))
    full_total = size + outside
    kind = design if design != "auto" else ("full" if full_total <= rule_sets else "random")
    if kind == "full":
        if full_total > max_rule_sets:
            raise AcesimError(f"the full factorial of {len(factors)} knobs has {full_total:,} rule sets (presets "
                              f"included), more than --max-rule-sets {max_rule_sets:,}")
    else:
        if rule_sets > max_rule_sets:
            raise AcesimError(f"--rule-sets {rule_sets:,} is more than --max-rule-sets {max_rule_sets:,}")
        if rule_sets < len(fixed):
            raise AcesimError(f"--rule-sets {rule_sets} cannot hold the base and the four presets "
                              f"({len(fixed)} rule sets); ask for more")
        if rule_sets > full_total:
            raise AcesimError(f"--rule-sets {rule_sets:,} is more than the {full_total:,} distinct rule sets of "
                              "these knobs; use --design full")
    knob_sets: list[dict] = []
    if kind == "full":
        names = list(factors)
        for values in itertools.product(*(factors[k] for k in names)):
            knobs = canonical({**base.knobs(), **dict(zip(names, values))}, base)
            key = _key(knobs)
            if _valid(knobs) and key not in fixed_keys:
                fixed_keys.add(key)
                knob_sets.append(knobs)
    else:
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(DESIGN_KEY,)))
        while len(fixed) + len(knob_sets) < rule_sets:
            drawn = {k: v[int(rng.integers(len(v)))] for k, v in factors.items()}
            knobs = canonical({**base.knobs(), **drawn}, base)
            key = _key(knobs)
            if _valid(knobs) and key not in fixed_keys:
                fixed_keys.add(key)
                knob_sets.append(knobs)
    in_space = sum(1 for r in fixed if _in(r, base, factors)) + len(knob_sets)
    terms = 1 + sum(len(v) - 1 for v in factors.values())
    if in_space < terms + 1:
        outside_fit = len(fixed) + len(knob_sets) - in_space
        more = "vary another knob" if kind == "full" else f"ask for at least {terms + 1 + outside_fit} --rule-sets"
        raise AcesimError(f"{in_space} rule sets in the design's space cannot fit the {terms} terms of its main "
                          f"effects with an interval (that takes {terms + 1}): {more}")
    digits = max(3, len(str(len(knob_sets))))
    drawn_sets = [dataclasses.replace(base, **knobs, name=f"rs-{i:0{digits}d}")
                  for i, knobs in enumerate(knob_sets, 1)]
    roles = [_role(r, base) for r in fixed] + ["design"] * len(drawn_sets)
    return Design(base, tuple(factors.items()), kind, seed, tuple(fixed + drawn_sets), tuple(roles))


def _check_silent(base: Ruleset, factors: Mapping[str, tuple]) -> None:
    """Refuse a varied knob that has no say anywhere in the design (cube_max with no cube)."""
    for knob, (other, value) in SILENT.items():
        if knob in factors:
            others = factors.get(other, (getattr(base, other),))
            if all(v == value for v in others):
                raise AcesimError(f"--vary {knob} has no say while {other} = {value}; vary {other} too "
                                  f"or give the base another {other}")


def _in(rules: Ruleset, base: Ruleset, factors: Mapping[str, tuple]) -> bool:
    return all(getattr(rules, k) in factors[k] if k in factors else getattr(rules, k) == getattr(base, k)
               for k in KNOBS)


def _fixed_rulesets(base: Ruleset) -> list[Ruleset]:
    """The base, then the four presets (a preset with the base's knobs stands for the base)."""
    out = []
    base_key = _key(base.knobs())
    preset_of_base = next((p for p in PRESETS.values() if _key(p.knobs()) == base_key), None)
    if preset_of_base is None:
        out.append(base)
    for preset in PRESETS.values():
        out.append(preset)
    if preset_of_base is None and base.name in PRESETS:
        raise AcesimError(f"the base is named {base.name!r} like a preset but differs from it; rename it")
    return out


def _role(rules: Ruleset, base: Ruleset) -> str:
    preset = rules.name in PRESETS and rules == PRESETS[rules.name]
    is_base = _key(rules.knobs()) == _key(base.knobs())
    return "base+preset" if preset and is_base else "preset" if preset else "base"


def _show(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


# --- the plan ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """Everything that decides an exploration's records and tables."""

    design: Design
    player: str  # one strategy for every rule set (``best`` resolved)
    strategy: str  # as the user asked: best, or a named strategy
    games: int  # self-play games per rule set: first-mover edge, length, points, forfeits, the cube
    skill_games: int  # games per seat order against random
    equity_games: int  # self-play games the luck's equity model is fitted on (20% held out)
    luck_games: int  # further games whose every roll is valued
    seed: int
    turn_cap: int = DEFAULT_TURN_CAP
    command: str = ""

    @property
    def rulesets(self) -> tuple[Ruleset, ...]:
        return self.design.rulesets

    @property
    def equity(self) -> str:
        """The luck's value function: the player's own network if it has one, else a logistic model
        fitted on the player's own games under each rule set."""
        spec = self.player
        if spec.startswith("learned:"):
            return "learned:" + spec[len("learned:"):].split("@")[0]
        return "logistic"

    def describe(self) -> dict:
        d = self.design
        return {
            "acesim_version": __version__,
            "rules_version": RULES_VERSION,
            "command": self.command,
            "base": {"name": d.base.name, "preset": d.base.base, **_json_knobs(d.base)},
            "factors": {k: [_json(v) for v in values] for k, values in d.factors},
            "design": d.kind,
            "rule_sets": {r.name: {"role": role, "preset": r.base, **_json_knobs(r)}
                          for r, role in zip(d.rulesets, d.roles)},
            "strategy": self.strategy,
            "player": self.player,
            "equity": self.equity,
            "games": self.games,
            "skill_games": self.skill_games,
            "equity_games": self.equity_games,
            "luck_games": self.luck_games,
            "seed": self.seed,
            "turn_cap": self.turn_cap,
            "streams": "game g of every rule set: block key SeedSequence(seed).spawn(...)[g // 256], then "
                       "SplitMix64(g); the random design's draws: SeedSequence(seed, spawn_key=(2**32 - 5,))",
        }

    def digest(self, index: int) -> str:
        """What decides rule set ``index``'s files: its knobs, the player and the sizes."""
        doc = self.describe()
        r = self.rulesets[index]
        part = {k: doc[k] for k in ("acesim_version", "rules_version", "player", "equity", "games", "skill_games",
                                    "equity_games", "luck_games", "seed", "turn_cap")}
        part["rules"] = {"preset": r.base, **_json_knobs(r)}
        return hashlib.sha256(json.dumps(part, sort_keys=True).encode()).hexdigest()


def _json(value):
    return value if isinstance(value, (bool, int)) else str(value)


def _json_knobs(rules: Ruleset) -> dict:
    return {k: _json(v) for k, v in rules.knobs().items()}


def make_plan(
    design: Design,
    strategy: str = "best",
    games: int = 4_000,
    skill_games: int | None = None,
    equity_games: int | None = None,
    luck_games: int | None = None,
    seed: int = 42,
    turn_cap: int = DEFAULT_TURN_CAP,
    command: str = "",
) -> Plan:
    """A checked plan; sizes not given derive from ``games`` (``sizes_from_games``)."""
    defaults = sizes_from_games(games)
    plan = Plan(design, resolve_spec(strategy, *design.rulesets), strategy, games,
                skill_games if skill_games is not None else defaults["skill_games"],
                equity_games if equity_games is not None else defaults["equity_games"],
                luck_games if luck_games is not None else defaults["luck_games"],
                seed, turn_cap, command)
    for name in ("games", "skill_games", "equity_games", "luck_games"):
        value = getattr(plan, name)
        if value <= 0:
            raise AcesimError(f"--{name.replace('_', '-')} must be positive, got {value}")
        if value > MAX_GAMES:
            raise AcesimError(f"--{name.replace('_', '-')} must be at most {MAX_GAMES:,}, got {value}")
    if plan.equity_games < 10:
        raise AcesimError(f"--equity-games must be at least 10, got {plan.equity_games}")
    if plan.luck_games < 3:
        raise AcesimError(f"--luck-games must be at least 3, got {plan.luck_games}")
    if not 0 < turn_cap <= MAX_TURN_CAP:
        raise AcesimError(f"the turn cap must be between 1 and {MAX_TURN_CAP:,}, got {turn_cap}")
    check_seed(seed)
    player = load_strategy(plan.player)
    if player.kind == RANDOM:
        raise AcesimError("--strategy random has no plays of its own to value: the luck figures and the "
                          "skill figure (the player against random) need another player")
    player.refuse_deeper("the luck figures value each roll by the player's own 1-ply search")
    for rules in design.rulesets:
        player.check_rules(rules)
    return plan


def sizes_from_games(games: int) -> dict:
    """Default sizes of the other parts for ``games`` self-play games per rule set."""
    return {"skill_games": max(1, min(1_000, games // 8)), "equity_games": max(10, min(1_000, games // 4)),
            "luck_games": max(3, min(400, games // 10))}


def plan_from_description(doc: dict, where: str) -> Plan:
    """The plan an ``explore.json`` describes; refused if this acesim would play it differently."""
    try:
        if doc["acesim_version"] != __version__ or doc["rules_version"] != RULES_VERSION:
            raise AcesimError(
                f"{where} was written by acesim {doc['acesim_version']} (rules version {doc['rules_version']}); "
                f"this is acesim {__version__} (rules version {RULES_VERSION}), whose records may differ: "
                "start a new run")
        base_doc = dict(doc["base"])
        base = _ruleset(base_doc.pop("name"), base_doc)
        factors = tuple((k, tuple(v)) for k, v in doc["factors"].items())
        rulesets, roles = [], []
        for name, entry in doc["rule_sets"].items():
            entry = dict(entry)
            roles.append(entry.pop("role"))
            rulesets.append(_ruleset(name, entry))
        design = Design(base, factors, str(doc["design"]), int(doc["seed"]), tuple(rulesets), tuple(roles))
        plan = make_plan(design, str(doc["strategy"]), int(doc["games"]), int(doc["skill_games"]),
                         int(doc["equity_games"]), int(doc["luck_games"]), int(doc["seed"]), int(doc["turn_cap"]),
                         str(doc.get("command", "")))
    except AcesimError as error:
        if str(error).startswith(where):
            raise
        raise AcesimError(f"{where}: {error}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise AcesimError(f"{where} is not a complete explore plan ({error!r} is missing or malformed)") from None
    if plan.player != doc["player"]:
        raise AcesimError(f"{where}: strategy {doc['strategy']} now stands for {plan.player}, not "
                          f"{doc['player']}: start a new run")
    if plan.describe() != doc:
        raise AcesimError(f"{where} does not describe a consistent plan")
    return plan


def _ruleset(name: str, entry: dict) -> Ruleset:
    preset = entry.pop("preset", "")
    return Ruleset(**{k: entry[k] for k in KNOBS}, name=name, base=preset)


def load_plan(folder: Path) -> Plan:
    """The plan of the exploration in ``folder`` (for ``--resume``)."""
    path = Path(folder) / PLAN_FILE
    doc = read_plan(folder, PLAN_FILE, "an explore run", MAX_PLAN_BYTES)
    return plan_from_description(doc, str(path))


# --- one rule set's games: one task -------------------------------------------------------------


def rule_set_task(plan: Plan, index: int) -> dict:
    """Play rule set ``index``: self-play games, games against random in both seats, luck games.

    Returns its files' contents (Parquet bytes, and the equity model's
    calibration for ``done.json``); the caller writes them, so a worker
    needs no access to the output folder.
    """
    rules = plan.rulesets[index]
    s, seed, cap = plan.player, plan.seed, plan.turn_cap
    # the equity model's games are played to the default cap whatever the run's (equity_models')
    fitted = trace_games(rules, s, s, seed, 0, plan.equity_games)
    equity = equity_models(rules, s, plan.equity_games, seed, plan.equity, traces=fitted)
    # the luck games follow the equity model's games: the model never saw them
    traces = trace_games(rules, s, s, seed, plan.equity_games, plan.luck_games, cap)
    _, luck = trace_luck(rules, traces, s, s, equity.model)
    records = _self_play_records(plan, rules, fitted, traces)
    # the player in seat A against random, then in seat B, on the same game indices
    skill = pd.concat([play_games(rules, plan.skill_games, seed, s, RANDOM_NAME, turn_cap=cap),
                       play_games(rules, plan.skill_games, seed, RANDOM_NAME, s, turn_cap=cap)], ignore_index=True)
    calibration = equity.calibration
    return {
        "records": _parquet(records),
        "skill": _parquet(skill),
        "luck": _parquet(luck),
        "equity": {"model": equity.chosen, "brier": calibration.brier, "brier_constant": calibration.brier_constant,
                   "reliability": calibration.reliability, "positions": calibration.positions,
                   "games": calibration.games, "luck_games_too_long": int(traces.too_long)},
    }


def _self_play_records(plan: Plan, rules: Ruleset, fitted: Traces, luck: Traces) -> pd.DataFrame:
    """The records of self-play games ``0 .. plan.games - 1``: those the equity fit's and the luck games'
    traces hold are the same games (same player, rules, seed and index) and are not played again."""
    s, seed, cap = load_strategy(plan.player), plan.seed, plan.turn_cap
    pieces, first = [], 0
    for traces, n, traced_cap in ((fitted, plan.equity_games, DEFAULT_TURN_CAP), (luck, plan.luck_games, cap)):
        n = min(n, plan.games - first)
        if n <= 0:
            break
        rows = (traced_records(traces, rules, s, s, seed, first, n, cap) if traced_cap == cap
                else play_records(rules, s, s, seed, first, n, cap))
        pieces.append(records_frame(rows, rules, s, s, seed, first))
        first += n
    if first < plan.games:
        pieces.append(play_games(rules, plan.games - first, seed, s, s, first_game=first, turn_cap=cap))
    return pd.concat(pieces, ignore_index=True)


def _parquet(frame: pd.DataFrame) -> bytes:
    buffer = pyio.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def rule_set_folder(out: Path, plan: Plan, index: int) -> Path:
    return Path(out) / RULE_SETS_DIR / plan.rulesets[index].name


def _write_rule_set(out: Path, plan: Plan, index: int, result: dict) -> None:
    folder = rule_set_folder(out, plan, index)
    folder.mkdir(parents=True, exist_ok=True)
    for name in RECORD_FILES:
        io.write_bytes(folder / f"{name}.parquet", result[name])
    # written last: its presence says the rule set is complete
    io.write_json(folder / DONE_FILE, {"rule_set": plan.rulesets[index].name, "digest": plan.digest(index),
                                       "equity": result["equity"],
                                       "sha256": {n: hashlib.sha256(result[n]).hexdigest() for n in RECORD_FILES}})


def read_rule_set(out: Path, plan: Plan, index: int) -> A.RuleSetData | None:
    """Rule set ``index``'s finished files, or None if any is missing, damaged or of another plan."""
    folder = rule_set_folder(out, plan, index)
    try:
        done = json.loads((folder / DONE_FILE).read_text(encoding="utf-8"))
        if done.get("digest") != plan.digest(index):
            return None
        frames = {}
        for name in RECORD_FILES:
            data = (folder / f"{name}.parquet").read_bytes()
            if hashlib.sha256(data).hexdigest() != done["sha256"][name]:
                return None
            frames[name] = pd.read_parquet(pyio.BytesIO(data))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    rules = plan.rulesets[index]
    return A.RuleSetData(rules, frames["records"], frames["skill"], frames["luck"], dict(done["equity"]))


# --- the run ----------------------------------------------------------------------------------


def _is_explore(path: Path) -> bool:
    return (Path(path) / PLAN_FILE).exists()


def check_output(out: Path, force: bool) -> None:
    """Refuse an existing output unless ``force`` and it is an explore folder (or empty)."""
    io.check_output_folder(out, force, "explore", _is_explore)


def run(
    plan: Plan,
    out: Path,
    workers: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int, str], None] | None = None,
    resume: bool = False,
    force: bool = False,
) -> tuple[Path, list[str]]:
    """Play every rule set of ``plan`` not yet finished in ``out``, then write the report; its HTML path
    and its findings.

    The plan and the design table are written before any game.  A rule set
    whose files are complete and belong to this plan is read, not played
    (``resume``).  ``progress(rule sets, note)`` is called after each.
    """
    check_workers(workers)
    out = Path(out)
    lock = io.prepare_folder(out, force, _is_explore, "explore") if not resume else io.FolderLock(out)
    try:
        io.write_json(out / PLAN_FILE, plan.describe())
        io.write_csv(out / DESIGN_FILE, plan.design.table())
        io.remove_partials(out)
        # one row of figures per rule set, read back from its files as it is finished: the records
        # themselves are not kept, so a large design does not fill the memory
        rows: dict[int, dict] = {}

        def figures_of(i: int) -> dict | None:
            found = read_rule_set(out, plan, i)
            return None if found is None else A.rule_set_row(found, plan.player)

        if resume:
            for i in range(len(plan.rulesets)):
                row = figures_of(i)
                if row is not None:
                    rows[i] = row
                    if progress:
                        progress(1, f"{plan.rulesets[i].name}: read")
        missing = [i for i in range(len(plan.rulesets)) if i not in rows]
        (out / RULE_SETS_DIR).mkdir(exist_ok=True)

        def done(k: int, result: dict) -> None:
            i = missing[k]
            _write_rule_set(out, plan, i, result)
            row = figures_of(i)
            if row is None:
                raise AcesimError(f"the files of rule set {plan.rulesets[i].name} under {out} changed while the "
                                  f"run wrote them: acesim explore --resume {out}")
            rows[i] = row
            if progress:
                progress(1, f"{plan.rulesets[i].name}: played")

        with backend_for(workers, scheduler) as backend:
            map_tasks(rule_set_task, [(plan, i) for i in missing], backend, done)
        design = plan.design
        table = design.table()
        results = {"design": table, **A.landscape(
            table, pd.DataFrame([rows[i] for i in range(len(plan.rulesets))]), dict(design.factors),
            design.base.knobs(), lambda knobs: canonical(knobs, design.base))}
        return write_report(plan.describe(), results, out / REPORT_DIR)
    except BaseException:
        io.remove_partials(out)
        raise
    finally:
        lock.release()


def explore(
    options: ExploreOptions = ExploreOptions(),
    out: Path | None = None,
    force: bool = False,
    resume: Path | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    design_only: bool = False,
    progress: Callable[[int, str], None] | None = None,
    on_plan: Callable[[Plan], None] | None = None,
) -> tuple[Plan, Path, list[str]]:
    """The ``acesim explore`` command: plan (or read the plan to resume), check, run, report.

    Every bad input is a one-line ``AcesimError`` before any game; with
    ``design_only`` the plan and the design table are written and nothing is
    played.  Returns the plan, the report's HTML (or the design table's) path and the findings.
    """
    check_workers(workers)
    if resume is not None:
        plan = load_plan(resume)
        target = Path(resume)
    else:
        if out is None:
            raise AcesimError("explore needs --out FOLDER (or --resume FOLDER)")
        o = options
        ruleset = load_ruleset(o.base, o.overrides)
        chosen = make_design(ruleset, parse_vary(o.vary), o.rule_sets, o.design, o.seed, o.max_rule_sets)
        plan = make_plan(chosen, o.strategy, o.games, o.skill_games, o.equity_games, o.luck_games, o.seed,
                         o.turn_cap)
        plan = dataclasses.replace(plan, command=command_line(plan, o, out))
        target = Path(out)
        check_output(target, force)
    if scheduler is not None:
        check_scheduler(scheduler)
    if on_plan:
        on_plan(plan)
    if design_only:
        with io.prepare_folder(target, force, _is_explore, "explore") if resume is None else io.FolderLock(target):
            io.write_json(target / PLAN_FILE, plan.describe())
            io.write_csv(target / DESIGN_FILE, plan.design.table())
        return plan, target / DESIGN_FILE, []
    return (plan, *run(plan, target, workers, scheduler, progress, resume=resume is not None, force=force))


def command_line(plan: Plan, options: ExploreOptions, out: Path | None) -> str:
    """The command that makes ``plan`` (made from ``options``) again."""
    o = options
    words = [f"acesim explore --base {o.base}", *[f"--rule {r}" for r in o.overrides],
             *[f"--vary {v}" for v in o.vary], f"--design {o.design}", f"--rule-sets {o.rule_sets}",
             f"--max-rule-sets {o.max_rule_sets}",
             f"--strategy {plan.strategy}", f"--games {plan.games}", f"--skill-games {plan.skill_games}",
             f"--equity-games {plan.equity_games}", f"--luck-games {plan.luck_games}", f"--seed {plan.seed}"]
    if plan.turn_cap != DEFAULT_TURN_CAP:
        words.append(f"--turn-cap {plan.turn_cap}")
    if out is not None:
        words.append(f"--out {out}")
    return " ".join(words)

