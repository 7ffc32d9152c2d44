"""Strategy names, the weights file, and their lowering to kernel arrays.

A strategy spec is ``random``, ``NAME[@full|@beam=K]`` where ``NAME`` is a
table of the weights file (``acesim/strategies.toml`` unless another file is
given), or ``learned:MODEL[@full|@beam=K]`` where ``MODEL`` is a model file
(``.npz``, see ``acesim.runs.training``) or the name of a model shipped in
``acesim/models/``.  ``@full`` scores every play of every segment (and ranks
the doubles after a 1-2 by exhaustive searches); ``@beam=K`` searches
doubles segments with a beam of ``K`` positions (the file's ``beam_width``
by default, 4 for learned models).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from acesim.common.errors import AcesimError
from acesim.common.inputs import MAX_SMALL_INPUT, read_text
from acesim.engine.model_files import (
    DEFAULT_RANK_WIDTH,
    DEFAULT_WIDTH,
    LearnedModel,
    base_model,
    load_model,
    model_path,
    refuse_other_rules,
    shipped_for,
)
from acesim.engine.rules import Ruleset
from acesim.kernels.choice import LEARNED, LINEAR, MARGIN_UNIT, MAX_WIDTH, RANDOM, Seats
from acesim.kernels.evaluate import FEATURES, N_FEATURES
from acesim.kernels.net import HEADER, M_HIDDEN1, M_INPUTS, TANGENT, TANGENT_LONG

RANDOM_NAME = "random"
# Scores add weight x feature over features of at most a few hundred; beyond
# this a weight can only be a typo, and near float's limits sums overflow to inf
# and the searches compare NaNs.
MAX_WEIGHT = 1e6
LEARNED_PREFIX = "learned:"


@dataclass(frozen=True)
class Strategy:
    """One side's way of playing: its spec, kernel kind, beam width and weights."""

    spec: str
    kind: int
    width: int  # beam width of doubles segments; 0 = exhaustive search
    weights: tuple[float, ...]
    choice_width: int = 1  # width of the searches that rank the doubles after a 1-2
    # the fewest dice of a doubles segment whose beam ranks by the network's tangent (``net.tangent_ranks``);
    # 0: every beam ranks by the heuristic
    tangent: float = 0.0
    # a ply-2 player (``@ply=2``): the plays of each segment within ``margin`` of its best at ply 1
    # that go one roll deeper, at most ``keep`` of them (``lookahead.deeper_segment``); 0: ply 1
    keep: int = 0
    margin: float = 0.0
    description: str = ""
    # a learned strategy's model: the rules it was trained under, and its file's digest
    model_rules: str = ""
    model_knobs: tuple = ()
    model_sha256: str = ""
    # a rule-reading model (format 2), folded for each rule set it plays (``row``); None otherwise
    reading_model: LearnedModel | None = field(default=None, repr=False, compare=False)

    @property
    def reads_rules(self) -> bool:
        return self.reading_model is not None

    def check_rules(self, rules) -> None:
        """A learned strategy plays only the rules its model was trained under, or, when its
        model reads the rules, every rule set whose knob values it has inputs for."""
        if self.reading_model is not None:
            self.reading_model.check_rules(rules)
        elif self.kind == LEARNED:
            refuse_other_rules(f"strategy {self.spec}", self.model_rules, self.model_knobs, rules)

    def refuse_deeper(self, why: str) -> None:
        """A one-line error for a ply-2 player (``@ply=2``) where only its 1-ply search has a meaning."""
        if self.keep:
            base = self.spec.partition("@")[0]
            raise AcesimError(f"strategy {self.spec}: {why}; give it without @ply, @keep and @margin ({base})")

    def row(self, rules) -> tuple[float, ...] | np.ndarray:
        """The weights the kernels play under ``rules``: a rule-reading model's network folded for
        them (``rule_inputs.fold``), else ``weights``.  ``rules`` None is refused for the former."""
        if self.reading_model is None:
            return self.weights
        if rules is None:
            raise AcesimError(f"strategy {self.spec} reads the rules, and these games name none to fold into it")
        return playing_row(self.reading_model.network(rules), self.tangent)

    def for_rules(self, rules) -> Strategy:
        """This strategy as it plays ``rules``: a rule-reading model's network folded for them
        (a strategy of those rules only, as a format-1 model's), any other strategy itself."""
        if self.reading_model is None:
            return self
        return dataclasses.replace(self, weights=tuple(self.row(rules).tolist()), reading_model=None,
                                   model_rules=rules.name, model_knobs=tuple(rules.checker_knobs().items()))


def _read_file(path: Path | None) -> dict:
    if path is None:
        text = resources.files("acesim").joinpath("strategies.toml").read_text(encoding="utf-8")
        where = "acesim/strategies.toml"
    else:
        text = read_text(path, "strategies file", MAX_SMALL_INPUT)
        where = str(path)
    try:
        return _validate(tomllib.loads(text), where)
    except tomllib.TOMLDecodeError as error:
        raise AcesimError(f"malformed strategies file {where}: {error}") from None


_WIDTH_KEYS = ("beam_width", "choice_width")


def _validate(data: dict, where: str) -> dict:
    widths = {}
    for key, default in zip(_WIDTH_KEYS, (4, 1)):
        width = data.get(key, default)
        if not isinstance(width, int) or isinstance(width, bool) or not 1 <= width <= MAX_WIDTH:
            raise AcesimError(f"{where}: {key} must be an integer in 1..{MAX_WIDTH}, got {width!r}")
        widths[key] = width
    tables = {}
    for name, table in data.items():
        if name in _WIDTH_KEYS:
            continue
        if not isinstance(table, dict):
            raise AcesimError(f"{where}: {name!r} must be a table of feature weights")
        if name == RANDOM_NAME or not name.replace("_", "").replace("-", "").isalnum():
            raise AcesimError(f"{where}: {name!r} cannot name a strategy")
        weights = [0.0] * N_FEATURES
        for key, value in table.items():
            if key == "description":
                continue
            if key not in FEATURES:
                raise AcesimError(
                    f"{where}: unknown feature {key!r} in [{name}]; features are {', '.join(FEATURES)}"
                )
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise AcesimError(f"{where}: weight {name}.{key} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise AcesimError(f"{where}: weight {name}.{key} must be finite, got {value!r}")
            if abs(value) > MAX_WEIGHT:
                raise AcesimError(f"{where}: weight {name}.{key} = {value!r} is outside -{MAX_WEIGHT:g}..{MAX_WEIGHT:g}")
            weights[FEATURES.index(key)] = float(value)
        tables[name] = (tuple(weights), str(table.get("description", "")))
    return {**widths, "strategies": tables}


def strategy_names(path: Path | None = None) -> list[str]:
    """Every strategy name: ``random`` and the tables of the weights file, in file order."""
    return [RANDOM_NAME, *_read_file(path)["strategies"]]


def load_strategy(spec: str, path: Path | None = None) -> Strategy:
    """The strategy a spec names; a one-line ``AcesimError`` for anything unknown."""
    spec = spec.strip()
    if not spec:
        raise AcesimError("empty strategy name; use random, a table of the weights file, or learned:MODEL")
    name, _, search = spec.partition("@")
    if name == BEST:
        raise AcesimError(
            f"strategy {spec!r} is resolved against the rule sets at hand only by report, compare, bonus, "
            f"luck, ladder, hint and rollout (and takes no search option); name the player here: learned:NAME or expert"
        )
    if name.startswith(LEARNED_PREFIX):
        return _learned(spec, name[len(LEARNED_PREFIX):], search)
    if name == RANDOM_NAME:
        if search:
            raise AcesimError(f"strategy 'random' takes no search option, got {spec!r}")
        return Strategy(spec, RANDOM, 0, (0.0,) * N_FEATURES, choice_width=0, description="uniform among the distinct legal plays")
    data = _read_file(path)
    if name not in data["strategies"]:
        known = ", ".join([RANDOM_NAME, *data["strategies"]])
        raise AcesimError(f"unknown strategy {name!r}; known: {known}")
    weights, description = data["strategies"][name]
    _deeper_options(spec, search, learned=False)
    if {"tangent", "heuristic"} & set(search.split("@")):
        raise AcesimError(f"{spec!r}: @tangent and @heuristic choose how a network's beam is ranked, and {name} "
                          "has no network (it ranks by its own weights); use them with learned:MODEL")
    width, choice_width, _ = _search_options(spec, search, data["beam_width"], data["choice_width"])
    return Strategy(spec, LINEAR, width, weights, choice_width=choice_width, description=description)


SEARCH_OPTIONS = ("NAME@full, NAME@beam=K, NAME@rank=K, NAME@tangent, NAME@heuristic, "
                  "or several joined (NAME@tangent@beam=K@rank=K); a network also takes "
                  "@ply=2, @keep=K and @margin=M")
# A ply-2 player's filter unless its spec sets it: the best 6 plays within 0.25 of ply-1 equity go one
# roll deeper (docs/learned.md, "Playing at ply 2": 4 within 0.10 won less, 10 within 0.5 no more)
DEFAULT_KEEP = 6
DEFAULT_MARGIN = 0.25
MAX_KEEP = 16
MAX_MARGIN = 2.0  # the whole range of a win-probability equity


def _ply_option(spec: str, given: dict, key: str, default, parse, valid, what: str):
    """Option ``@key=VALUE`` of ``given`` parsed and checked, or ``default`` when it is not given."""
    if key not in given:
        return default
    try:
        value = parse(given[key])
    except ValueError:
        value = None
    if value is None or not valid(value):  # NaN fails every comparison
        raise AcesimError(f"@{key} must be {what}, got {spec!r}")
    return value


def _deeper_options(spec: str, search: str, learned: bool) -> tuple[str, int, float]:
    """The search options of ``spec`` but for the ply-2 ones, and the ply-2 filter ``(keep, margin)``
    they set (``keep`` 0: the player plays at ply 1)."""
    options = search.split("@") if search else []
    rest, given = [], {}
    for option in options:
        key, _, value = option.partition("=")
        if key not in ("ply", "keep", "margin"):
            rest.append(option)
            continue
        if key in given:
            raise AcesimError(f"search option {key!r} given twice in {spec!r}")
        given[key] = value
    if not given:
        return search, 0, 0.0
    if not learned:
        raise AcesimError(f"{spec!r}: @ply, @keep and @margin look one roll deeper with a network's equity; "
                          "use them with learned:MODEL")
    ply = given.get("ply")
    if ply is not None and ply not in ("1", "2"):
        raise AcesimError(f"@ply must be 1 or 2, got {spec!r}")
    if ply != "2" and len(given) > (ply is not None):
        raise AcesimError(f"{spec!r}: @keep and @margin need @ply=2")
    if ply == "1":
        return "@".join(rest), 0, 0.0
    keep = _ply_option(spec, given, "keep", DEFAULT_KEEP, int, lambda k: 1 <= k <= MAX_KEEP,
                       f"an integer in 1..{MAX_KEEP}")
    margin = _ply_option(spec, given, "margin", DEFAULT_MARGIN, float,
                         lambda m: 0.0 <= m <= MAX_MARGIN and abs(m / MARGIN_UNIT - round(m / MARGIN_UNIT)) < 1e-6,
                         f"a number in 0..{MAX_MARGIN:g} in steps of {MARGIN_UNIT:g}")
    return "@".join(rest), keep, margin


def _option_width(spec: str, option: str, what: str) -> int:
    try:
        width = int(option.partition("=")[2])
    except ValueError:
        width = -1
    if 1 <= width <= MAX_WIDTH:
        return width
    raise AcesimError(f"{what} must be an integer in 1..{MAX_WIDTH}, got {spec!r}")


def _search_options(spec: str, search: str, width: int, choice_width: int | None,
                    learned: bool = False) -> tuple[int, int, float]:
    """``(width, choice_width, tangent)`` of a strategy's search options (the part of ``spec`` after its
    first ``@``); ``tangent`` as ``Strategy.tangent``.

    ``full``: every play of every segment, the doubles after a 1-2 ranked by every play too;
    ``beam=K``: a doubles segment's beam; ``rank=K``: the beam of the six searches that rank the
    doubles after a 1-2.  A ``learned`` player's beams over more than four dice (a double and its
    complement) rank their partial plays by the network's tangent, and it ranks the doubles after a
    1-2 by beams of ``DEFAULT_RANK_WIDTH``; ``tangent``: every doubles beam ranks by the tangent;
    ``heuristic``: every beam ranks by the heuristic and the ranking of the doubles follows the beam's
    width, the learned players' search before the tangent (docs/learned.md).  For the others
    (``choice_width`` None) the ranking follows the beam's width.
    """
    options = search.split("@") if search else []
    if "full" in options:
        if len(options) > 1:
            raise AcesimError(f"{spec!r}: @full searches every play and takes no other search option")
        return 0, 0, 0.0
    given = {}
    for option in options:
        key, equals, _ = option.partition("=")
        if key in given:
            raise AcesimError(f"search option {key!r} given twice in {spec!r}")
        if option in ("tangent", "heuristic"):
            given[key] = True
            continue
        if not equals or key not in ("beam", "rank"):
            raise AcesimError(f"unknown search option in {spec!r}; use {SEARCH_OPTIONS}")
        given[key] = _option_width(spec, option, "beam width" if key == "beam" else "ranking width")
    if "tangent" in given and "heuristic" in given:
        raise AcesimError(f"{spec!r}: @tangent and @heuristic are two rankings of the beam; give one")
    width = given.get("beam", width)
    heuristic = not learned or "heuristic" in given
    tangent = TANGENT if "tangent" in given else 0.0 if heuristic else TANGENT_LONG
    if choice_width is None:
        choice_width = width if heuristic else DEFAULT_RANK_WIDTH
    return width, given.get("rank", choice_width), tangent


RANKER = "expert"  # the heuristic that ranks a doubles segment's plays for a network to judge
BEST = "best"  # the strongest shipped player that plays every rule set at hand
BEST_FALLBACK = "expert"


def best_spec(*rulesets) -> str:
    """What ``best`` plays under every one of ``rulesets``: ``learned:NAME`` of the one shipped
    model that plays all of them (``model_files.shipped_for``), else ``expert``.

    One player for all: a comparison whose rule sets were played by different
    players would report the players' difference as the rules'.
    """
    if not rulesets:
        raise ValueError("best_spec needs at least one rule set")
    return _best_for(frozenset(tuple(sorted(r.checker_knobs().items())) for r in rulesets))


@functools.cache
def _best_for(knob_sets: frozenset) -> str:
    # cached: a report asks once per rule set and check, and every ask would read every model file
    model = shipped_for(*(Ruleset(**dict(knobs)) for knobs in knob_sets))
    return f"{LEARNED_PREFIX}{Path(model.path).stem}" if model is not None else BEST_FALLBACK


def resolve_spec(spec: str, *rulesets) -> str:
    """``spec`` with ``best`` replaced by the one player it stands for under all of ``rulesets``."""
    return best_spec(*rulesets) if spec.strip() == BEST else spec


def playing_row(network: np.ndarray, tangent: float = 0.0) -> np.ndarray:
    """A network's row as the kernels play it: the network, then the ranker's weights (``net.ranker_of``),
    then, unless ``tangent`` is 0, the part that has its doubles beams of at least ``tangent`` dice rank
    by the network's tangent (``net.tangent_ranks``): that count and the first layer's weights
    transposed (``net.tangent_start``).  The row always has that count (0: no tangent) and ends with the
    first layer in single precision (``net.first_layer32``), whose rows the searches' plays add."""
    network = np.asarray(network, dtype=np.float64)
    tail = [_ranker_weights()]
    inputs, hidden = int(network[M_INPUTS]), int(network[M_HIDDEN1])
    first_layer = network[HEADER : HEADER + inputs * hidden].reshape(inputs, hidden)
    if tangent:
        tail += [np.array([float(tangent)]), first_layer.T.ravel()]
    # two floats a cell
    single = np.zeros(inputs * hidden + (inputs * hidden) % 2, dtype=np.float32)
    single[: inputs * hidden] = first_layer.ravel()
    tail += [np.zeros(0 if tangent else 1), single.view(np.float64)]
    return np.concatenate([network, *tail])


@functools.cache
def _ranker_weights() -> np.ndarray:
    # cached: training asks for every batch of 16 games, and the file does not change
    ranker, _ = _read_file(None)["strategies"][RANKER]
    return np.array(ranker, dtype=np.float64)


def _learned(spec: str, name: str, search: str) -> Strategy:
    if not name:
        raise AcesimError("strategy 'learned:' needs a model: learned:PATH.npz or learned:NAME of a shipped model")
    search, keep, margin = _deeper_options(spec, search, learned=True)
    width, choice_width, tangent = _search_options(spec, search, DEFAULT_WIDTH, None, learned=True)
    model = load_model(model_path(name))
    ply = (f"ply-2 search (the best {keep} plays within {margin:g} of the best at ply 1 looked at one roll "
           f"deeper)" if keep else "1-ply search")
    return Strategy(
        spec, LEARNED, width, tuple(playing_row(model.array, tangent).tolist()), choice_width=choice_width,
        tangent=tangent, keep=keep, margin=margin,
        description=f"{ply} with the network of {model.path} (trained under {model.rules_name})",
        model_rules=model.rules_name, model_knobs=model.knobs, model_sha256=model.sha256,
        reading_model=model if model.reads_rules else None,
    )


def as_strategy(s: Strategy | str) -> Strategy:
    """``s`` itself, or the strategy its spec names."""
    return s if isinstance(s, Strategy) else load_strategy(s)


def learned_strategy(array: np.ndarray, rules, spec: str, width: int) -> Strategy:
    """A learned strategy from a network in memory (training evaluates itself with this)."""
    return Strategy(spec, LEARNED, width, tuple(playing_row(array).tolist()), choice_width=width,
                    description="network in training", model_rules=rules.name,
                    model_knobs=tuple(rules.checker_knobs().items()))


def lowered(a: Strategy, b: Strategy, rules=None) -> Seats:
    """The kernel arrays of a pairing (``Seats``): kinds, beam widths, weights and cube models, seat A then B.

    The weight rows are padded with zeros to the longer of the two (a
    network's row is far longer than a heuristic's).  With ``rules``, a
    learned strategy trained under other rules is refused, and under rules
    with the cube each seat gets the network of its cube decisions
    (``cube_models``): a learned seat its own, any other seat the shipped
    network that plays the rules (``model_files.base_model``).  Without the cube (or without
    ``rules``) there are none, and the games evaluate no network for it.
    A strategy whose model reads the rules plays its network folded for
    ``rules`` (``Strategy.row``); without ``rules`` it is refused.
    """
    if rules is not None:
        a.check_rules(rules)
        b.check_rules(rules)
    kinds = np.array([a.kind, b.kind], dtype=np.int64)
    widths = np.array([[s.width, s.choice_width, s.keep, round(s.margin / MARGIN_UNIT)] for s in (a, b)],
                      dtype=np.int64)
    rows = [a.row(rules), b.row(rules)]
    weights = _rows(rows)
    cube_models = np.zeros((2, 0), dtype=np.float64)
    if rules is not None and rules.has_cube:
        shared = None
        models = []
        for s, row in zip((a, b), rows):
            if s.kind == LEARNED:
                models.append(row)
            else:
                shared = base_model(rules).network(rules, check=False) if shared is None else shared
                models.append(shared)
        cube_models = _rows(models)
    return Seats(kinds, widths, weights, cube_models)


def _rows(rows) -> np.ndarray:
    """Two rows as one array, each padded with zeros to the longer."""
    out = np.zeros((2, max(len(r) for r in rows)), dtype=np.float64)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out
