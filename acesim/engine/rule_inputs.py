"""The rules as inputs of a network: knob units, folding them into the first layer, and back.

A rule-reading network (docs/learned.md) reads, besides the position, one
unit per knob value that changes checker play or scoring
(``rules.CHECKER_KNOBS``):

* a true/false knob is one unit, 1 when true;
* a knob of ``k`` named values is ``k - 1`` units, one per value other than
  the first of ``rules.KNOB_VALUES`` (1 when the knob has that value).

The first value needs no unit of its own: the first layer's bias ``b1``
already stands for it.  One unit per value would represent the same
functions with one redundant direction per knob, and those directions
would take a share of every bias update (see ``unfold``) for nothing.

The units are constant through a game, so their share of the first layer,
``knob_weights.T @ units(R)`` with ``knob_weights`` [units x hidden1], is a
bias for the game: ``fold`` adds it to ``b1`` and gives an ordinary network
of ``kernels.net`` that every kernel plays unchanged and at full speed.

Nothing here plays a game; the module imports only the rules and the
network's layout, so that the model files can use it.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path

import numpy as np

from acesim.common.errors import AcesimError
from acesim.engine.rules import CHECKER_KNOBS, KNOB_VALUES, PRESETS, Ruleset
from acesim.kernels import net as N

RULE_INPUTS_VERSION = 1
POINTS_SCALE = {"per-checker": 15.0, "gammons": 3.0}


def _unit_names() -> tuple[str, ...]:
    names = []
    for knob in CHECKER_KNOBS:
        values = KNOB_VALUES[knob]
        if values is bool:
            names.append(knob)
        else:
            names.extend(f"{knob}={v}" for v in values[1:])
    return tuple(names)


# "knob" for a true/false knob, "knob=value" for a named value other than the knob's first.
KNOB_UNITS: tuple[str, ...] = _unit_names()
N_KNOB_UNITS = len(KNOB_UNITS)


def active_units(rules: Ruleset) -> list[str]:
    """The names of the units that are 1 under ``rules`` (all others are 0)."""
    active = []
    for knob in CHECKER_KNOBS:
        value = getattr(rules, knob)
        if KNOB_VALUES[knob] is bool:
            if value:
                active.append(knob)
        elif value != KNOB_VALUES[knob][0]:
            active.append(f"{knob}={value}")
    return active


def knob_units(rules: Ruleset) -> np.ndarray:
    """The vector of knob units of ``rules``, in the order of ``KNOB_UNITS``."""
    units = np.zeros(N_KNOB_UNITS)
    for name in active_units(rules):
        units[KNOB_UNITS.index(name)] = 1.0
    return units


def points_scale(rules: Ruleset) -> float:
    """The most a game can be worth under ``rules`` (before the cube): the points output's scale."""
    scale = POINTS_SCALE.get(rules.scoring, 1.0)
    return scale * 4.0 if rules.stakes_double_on_1_2 else scale


def scores_points(rules: Ruleset) -> bool:
    """Whether points differ from wins under ``rules``."""
    return rules.scoring != "single" or rules.stakes_double_on_1_2


def b1_slice(array: np.ndarray) -> slice:
    """Where the first layer's bias lies in a network array."""
    h1 = int(array[N.M_HIDDEN1])
    start = N.HEADER + int(array[N.M_INPUTS]) * h1
    return slice(start, start + h1)


def fold(array: np.ndarray, knob_weights: np.ndarray, rules: Ruleset, objective: str = "auto") -> np.ndarray:
    """The ordinary network that the rule-reading network (``array``, ``knob_weights``) is under ``rules``.

    ``b1 += knob_weights.T @ knob_units(rules)``, and the header's points
    scale and objective set for ``rules``: the points output is scaled by
    ``points_scale(rules)`` (1 under single scoring, where it is the win
    probability), and the player maximises points where ``rules`` score
    them (``objective`` ``auto``), else wins.
    """
    if objective not in ("auto", "wins", "points"):
        raise AcesimError(f"the objective must be auto, wins or points, got {objective!r}")
    folded = np.array(array, dtype=np.float64)
    folded[b1_slice(folded)] += knob_weights.T @ knob_units(rules)
    folded[N.M_POINTS_SCALE] = points_scale(rules)
    plays_points = scores_points(rules) if objective == "auto" else objective == "points"
    folded[N.M_OBJECTIVE] = N.OBJECTIVE_POINTS if plays_points else N.OBJECTIVE_WINS
    return folded


def unfold(array: np.ndarray, knob_weights: np.ndarray, before: np.ndarray, after: np.ndarray,
           rules: Ruleset) -> None:
    """Carry the training of a folded network back into the rule-reading one, in place.

    ``before`` is ``fold(array, knob_weights, rules)`` and ``after`` the same
    network once trained for a batch under ``rules``.  Every parameter but
    ``b1`` is copied back; the change of ``b1``, ``g``, goes to ``b1``
    (``+= g``) and to the knob weights (``+= outer(units, g)``).  Each
    step's gradient with respect to a knob weight is the unit times the
    gradient with respect to ``b1``, so this is SGD on the unfolded
    parameters with the knob part's updates summed and applied at the end
    of the batch (the header is left alone).
    """
    b1 = b1_slice(array)
    g = after[b1] - before[b1]
    header = array[: N.HEADER].copy()
    bias = array[b1] + g
    array[:] = after
    array[: N.HEADER] = header
    array[b1] = bias
    knob_weights += np.outer(knob_units(rules), g)


def new_knob_weights(hidden1: int, seed: int) -> np.ndarray:
    """Small uniform starting weights of the knob units, drawn from ``seed`` apart from the network's."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2**32 - 3,)))
    return rng.uniform(-0.1, 0.1, (N_KNOB_UNITS, hidden1))


# --- the rule sets of training ----------------------------------------------------------------

# The spawn key of a training run's rule draws, apart from the games' blocks (0, 1, ...), the
# initial weights (2**32 - 1), the evaluations (2**32 - 2) and the knob weights (2**32 - 3).
RULES_KEY = 2**32 - 4


def random_rules(rng: np.random.Generator, name: str = "mix", held_out: bool = True) -> Ruleset:
    """A valid rule set with every checker knob drawn uniformly among its values (no cube).

    Combinations that ``Ruleset`` refuses are drawn again from the same
    stream, and so are the held-out mixes (``held_out_mixes``) unless
    ``held_out`` is off: training never plays them.
    """
    while True:
        knobs = {}
        for knob in CHECKER_KNOBS:
            values = (False, True) if KNOB_VALUES[knob] is bool else KNOB_VALUES[knob]
            knobs[knob] = values[int(rng.integers(len(values)))]
        if held_out and _key(knobs) in _held_out_keys():
            continue
        try:
            return Ruleset(**knobs, name=name)
        except AcesimError:
            continue


# --- the rule sets set aside -------------------------------------------------------------------

# Twenty mixes no training run plays, to measure a network off its training (issue 26): drawn by
# ``draw_held_out`` from HELD_OUT_SEED among the mixes the run of docs/learned.md had not drawn
# when they were set aside, stored in held_out_mixes.json and listed in docs/learned.md.
HELD_OUT_SEED = 20261202
HELD_OUT_FILE = Path(str(resources.files("acesim").joinpath("held_out_mixes.json")))


def _key(knobs) -> tuple:
    return tuple(sorted((k, knobs[k]) for k in CHECKER_KNOBS))


@functools.cache
def _held_out_keys() -> frozenset:
    return frozenset(_key(r.checker_knobs()) for r in held_out_mixes())


@functools.cache
def held_out_mixes() -> tuple[Ruleset, ...]:
    """The held-out mixes, ``held-1`` .. ``held-20``."""
    if not HELD_OUT_FILE.exists():
        return ()
    docs = json.loads(HELD_OUT_FILE.read_text(encoding="utf-8"))
    return tuple(Ruleset(**knobs, name=f"held-{i}") for i, knobs in enumerate(docs, 1))


def draw_held_out(n: int, seen: set[tuple]) -> list[dict]:
    """``n`` distinct mixes from HELD_OUT_SEED, none of the presets' and none in ``seen`` (knob keys)."""
    taken = set(seen) | {_key(r.checker_knobs()) for r in PRESETS.values()}
    rng = np.random.default_rng(np.random.SeedSequence(HELD_OUT_SEED))
    out: list[dict] = []
    while len(out) < n:
        rules = random_rules(rng, held_out=False)
        key = _key(rules.checker_knobs())
        if key not in taken:
            taken.add(key)
            out.append(rules.checker_knobs())
    return out


def batch_rules(seed: int, batch: int, anchors: list[Ruleset], random_share: float) -> Ruleset:
    """The rule set batch ``batch`` of a training run is played under.

    Drawn from ``SeedSequence(seed)``'s stream for that batch alone, so it
    depends on the seed and the batch's index, never on the workers or on
    where a run was resumed: with probability ``random_share`` a random mix
    (``random_rules``), else one of ``anchors`` uniformly.
    """
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(RULES_KEY, batch)))
    if not anchors or rng.random() < random_share:
        return random_rules(rng, f"mix-{batch}")
    return anchors[int(rng.integers(len(anchors)))]
