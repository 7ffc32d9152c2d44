"""Model files of the learned player: read, check, write; no game is played here.

A model file is a NumPy ``.npz`` of arrays and nothing pickled:

* ``model``: the flat network of ``acesim.kernels.net`` (header, then weights);
* ``meta``: a JSON text: format, acesim and rules versions, the rule set it was
  trained under (name and every knob), the training settings (games, seed,
  lambda, step size, layer sizes, search width), the command that made it,
  and the evaluations against ``expert`` run during training.

Format 1 is a model of one rule set: playing it under other rules is
refused, as its values were learned from those rules' games.

Format 2 is a rule-reading model (``acesim.engine.rule_inputs``): the network
reads the rules' knobs too, so it plays every rule set.  Its file adds
``knob_weights`` [knob units x hidden1], its ``meta`` names the knob units
(``rule_inputs``: version and unit names) instead of one rule set, and its
header's points scale is 0: ``LearnedModel.network(rules)`` folds the knob
units of the rules into the first layer's bias and sets the scale and the
objective, which gives an ordinary network of that rule set.  A checkpoint
of a training run is such a file whose ``meta`` also holds the state to
resume from (``training_state``).

``learned:NAME`` without a path names a model shipped in ``acesim/models/``.

This module imports neither the game layer nor the strategies, so that
loading a strategy can load its model (``acesim.engine.strategies``) and training
(``acesim.runs.training``) can play games, without an import circle.
"""

from __future__ import annotations

import hashlib
import io as pyio
import json
import os
import tomllib
import zipfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from acesim import __version__
from acesim.common import files as io
from acesim.common.errors import AcesimError
from acesim.common.inputs import read_bytes
from acesim.common.limits import PLAY_WIDTH
from acesim.engine.rule_inputs import KNOB_UNITS, RULE_INPUTS_VERSION, active_units, fold
from acesim.engine.rules import CHECKER_KNOBS, KNOBS, RULES_VERSION, Ruleset, recorded_knobs
from acesim.kernels import net as N

MODEL_FORMAT = 1  # a model of one rule set
RULE_READING_FORMAT = 2  # a model that reads the rules (acesim.engine.rule_inputs)
DEFAULT_WIDTH = PLAY_WIDTH  # candidates of a doubles segment the network judges in play
DEFAULT_RANK_WIDTH = 4  # the beams that rank the six doubles after a 1-2 in a learned player's default search


@dataclass(frozen=True)
class LearnedModel:
    """A loaded model: its network, the rules it belongs to, and how it was made."""

    path: str
    array: np.ndarray = field(repr=False, compare=False)
    rules_name: str
    knobs: tuple[tuple[str, Any], ...]
    meta: dict = field(repr=False, compare=False)
    sha256: str = ""
    # a rule-reading model's [knob units x hidden1] weights, in the order of rule_inputs.KNOB_UNITS
    knob_weights: np.ndarray | None = field(default=None, repr=False, compare=False)
    untrained_units: tuple[str, ...] = ()  # knob units newer than a rule-reading model (weights 0)
    objective: str = "auto"  # what a rule-reading model's player maximises (rule_inputs.fold)

    @property
    def hidden(self) -> tuple[int, int]:
        return int(self.array[N.M_HIDDEN1]), int(self.array[N.M_HIDDEN2])

    @property
    def has_points(self) -> bool:
        return int(self.array[N.M_OUTPUTS]) > 1

    @property
    def reads_rules(self) -> bool:
        return self.knob_weights is not None

    def check_rules(self, rules: Ruleset) -> None:
        """Refuse rules the model cannot play, in one line: a format-1 model plays only its own."""
        if self.reads_rules:
            refuse_untrained_units(f"model {self.path}", self.untrained_units, rules)
        else:
            refuse_other_rules(f"model {self.path}", self.rules_name, self.knobs, rules)

    def network(self, rules: Ruleset, check: bool = True) -> np.ndarray:
        """The ordinary network that plays ``rules``: a format-1 model's own (refused under other
        rules unless ``check`` is false), a rule-reading model's folded for ``rules``."""
        if check or self.reads_rules:
            self.check_rules(rules)
        if self.reads_rules:
            return fold(self.array, self.knob_weights, rules, self.objective)
        return self.array


def refuse_untrained_units(what: str, untrained: tuple[str, ...], rules: Ruleset) -> None:
    """One line when ``rules`` use a knob value a rule-reading network never had an input for."""
    unknown = [u for u in active_units(rules) if u in untrained]
    if unknown:
        raise AcesimError(f"{what} was trained before the knob values {', '.join(unknown)} existed: "
                          "train it again to play them")


def refuse_other_rules(what: str, trained_under: str, knobs: tuple, rules: Ruleset) -> None:
    """One line naming the knobs that differ, when ``rules`` are not those a network was trained under.

    Only the knobs of checker play count: the cube's knobs change what a game
    is worth, not how it is played, and a model plays under any of them.
    """
    if dict(knobs) != rules.checker_knobs():
        differ = [k for k, v in knobs if rules.checker_knobs()[k] != v]
        raise AcesimError(
            f"{what} was trained under rules {trained_under!r}; these games use "
            f"{rules.name!r}, which differ in {', '.join(differ)}: train a model for them"
        )


def model_dir() -> Path:
    return Path(str(resources.files("acesim").joinpath("models")))


def shipped_path(name: str) -> Path:
    return model_dir() / f"{name}.npz"


def shipped_for(*rulesets: Ruleset) -> LearnedModel | None:
    """The one shipped model that plays every one of ``rulesets``, or None.

    The shipped network that reads the rules and plays all of them comes
    first, unless they share one preset's checker knobs (the cube's knobs
    aside) and that preset's own network is named in ``best.toml`` of the
    models folder: a network that wins against the rule-reading one under its
    own rules plays them.  A network of one rule set also plays its rules when
    no rule-reading network does.  ``best``, the equity model of the analyses
    and the cube's equity model all take their network from here, so that
    one comparison is played and measured by one network.
    """
    knob_sets = {tuple(sorted(r.checker_knobs().items())) for r in rulesets}
    models = [load_model(p) for p in sorted(model_dir().glob("*.npz"))]
    own = []
    if len(knob_sets) == 1:
        own = [m for m in models if not m.reads_rules and dict(m.knobs) == rulesets[0].checker_knobs()]
    preferred = own_networks()
    for model in own:
        if Path(model.path).stem in preferred:
            return model
    for model in models:
        if model.reads_rules and all(_plays(model, r) for r in rulesets):
            return model
    return own[0] if own else None


BEST_FILE = "best.toml"


def own_networks() -> frozenset[str]:
    """The preset networks ``best`` plays under their own rules before the rule-reading one (``best.toml``)."""
    path = model_dir() / BEST_FILE
    if not path.exists():
        return frozenset()
    try:
        names = tomllib.loads(path.read_text(encoding="utf-8"))["own_network"]
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError) as exc:
        raise AcesimError(f"{path}: cannot read its list own_network ({exc})") from None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise AcesimError(f"{path}: own_network must be a list of model names")
    missing = [n for n in names if not shipped_path(n).exists()]
    if missing:
        raise AcesimError(f"{path}: own_network names {', '.join(missing)}, which is not a shipped model")
    return frozenset(names)


def _plays(model: LearnedModel, rules: Ruleset) -> bool:
    try:
        model.check_rules(rules)
    except AcesimError:
        return False
    return True


def base_model(rules: Ruleset) -> LearnedModel:
    """The equity model of the cube decisions of a seat that has no network of its own
    (docs/rules.md section 6): the shipped model that plays ``rules`` (``shipped_for``), else the
    shipped model of their base preset."""
    model = shipped_for(rules)
    if model is not None:
        return model
    path = shipped_path(rules.base or rules.name)
    if not path.exists():
        shipped = sorted(p.stem for p in model_dir().glob("*.npz"))
        raise AcesimError(
            f"rule set {rules.name!r} has no shipped model of its base preset for the cube's decisions; "
            f"shipped: {', '.join(shipped) or 'none'}"
        )
    return load_model(path)


def save_model(path: Path, array: np.ndarray, rules: Ruleset, meta: dict) -> None:
    """Write a model file through a temporary name and a rename."""
    doc = {
        "format": MODEL_FORMAT,
        "acesim_version": __version__,
        "rules_version": RULES_VERSION,
        "encoding": int(array[N.M_ENCODING]),
        "rules": {"name": rules.name, **rules.knobs()},
        **meta,
    }
    _write(Path(path), {"model": array}, doc)


def save_rule_model(path: Path, array: np.ndarray, knob_weights: np.ndarray, meta: dict) -> None:
    """Write a rule-reading model file (format 2) through a temporary name and a rename."""
    doc = {
        "format": RULE_READING_FORMAT,
        "acesim_version": __version__,
        "rules_version": RULES_VERSION,
        "encoding": int(array[N.M_ENCODING]),
        "rule_inputs": {"version": RULE_INPUTS_VERSION, "units": list(KNOB_UNITS)},
        **meta,
    }
    _write(Path(path), {"model": array, "knob_weights": knob_weights}, doc)


def _write(path: Path, arrays: dict, doc: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise AcesimError(f"cannot write model {path}: {error.strerror}") from None

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as handle:
            np.savez_compressed(handle, **arrays, meta=np.array(json.dumps(doc, indent=1)))

    io.write_atomically(path, write)


# A model's arrays unpacked: a network of the largest layers (MAX_HIDDEN) takes a few MB; an archive
# that unpacks to more is no model (an 11.6 MB file unpacked to 12 GB and exhausted the memory).
MAX_UNPACKED_BYTES = 64 * 2**20
# Trained weights stay small: the shipped models' largest is 4.5, the rule-reading network's 9.3 after
# 1.2 million games. A weight of 1,000 times one active input already puts a sigmoid past 40, where
# float64 reads 0 or 1: such a network values every play alike, and only a diverged or forged file has one.
MAX_MODEL_WEIGHT = 1000.0


def _refuse_bombs(path: Path, raw: bytes) -> None:
    """Refuse an archive whose members unpack to more than MAX_UNPACKED_BYTES, before unpacking any."""
    try:
        with zipfile.ZipFile(pyio.BytesIO(raw)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return  # np.load says what is wrong with it
    if unpacked > MAX_UNPACKED_BYTES:
        raise AcesimError(f"model {path} unpacks to {unpacked / 2**20:,.0f} MiB; a model takes at most "
                          f"{MAX_UNPACKED_BYTES // 2**20} MiB")


def _refuse_huge(where: str, weights: np.ndarray, what: str) -> None:
    largest = float(np.abs(weights).max()) if weights.size else 0.0
    if largest > MAX_MODEL_WEIGHT:
        raise AcesimError(f"{where} has {what} as large as {largest:.3g}; training never makes one beyond "
                          f"{MAX_MODEL_WEIGHT:g} (a network with such weights values every play alike)")


def load_model(path: str | Path) -> LearnedModel:
    """Read and check a model file; any defect is a one-line ``AcesimError``."""
    path = Path(path)
    raw = read_bytes(path, "model")
    _refuse_bombs(path, raw)
    knob_weights = None
    try:
        with np.load(pyio.BytesIO(raw), allow_pickle=False) as data:
            array = np.asarray(data["model"], dtype=np.float64)
            meta = json.loads(str(data["meta"]))
            if isinstance(meta, dict) and meta.get("format") == RULE_READING_FORMAT:
                knob_weights = np.asarray(data["knob_weights"], dtype=np.float64)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError, json.JSONDecodeError) as error:
        raise AcesimError(f"{path} is not an acesim model file ({type(error).__name__})") from None
    where = f"model {path}"
    if not isinstance(meta, dict) or meta.get("format") not in (MODEL_FORMAT, RULE_READING_FORMAT):
        raise AcesimError(f"{where} has format {meta.get('format') if isinstance(meta, dict) else None!r}; "
                          f"this acesim reads formats {MODEL_FORMAT} and {RULE_READING_FORMAT}")
    if array.ndim != 1 or len(array) < N.HEADER or array[N.M_TAG] not in N.NET_TAGS:
        raise AcesimError(f"{where} holds no network")
    encoding, inputs = int(array[N.M_ENCODING]), int(array[N.M_INPUTS])
    if encoding not in N.ENCODINGS or inputs != N.n_inputs(encoding):
        known = ", ".join(f"{N.n_inputs(e)} (encoding {e})" for e in N.ENCODINGS)
        raise AcesimError(f"{where} encodes positions with {inputs} inputs (encoding {encoding}); "
                          f"this acesim reads {known}")
    h1, h2, k = int(array[N.M_HIDDEN1]), int(array[N.M_HIDDEN2]), int(array[N.M_OUTPUTS])
    if not (1 <= h1 <= N.MAX_HIDDEN and 0 <= h2 <= N.MAX_HIDDEN and 1 <= k <= N.MAX_OUTPUTS):
        raise AcesimError(f"{where} has impossible layer sizes {h1}, {h2}, {k}")
    expected = N.HEADER + N.n_parameters(inputs, h1, h2, k)
    if len(array) != expected:
        raise AcesimError(f"{where} has {len(array)} numbers; its layer sizes need {expected}")
    if not np.isfinite(array).all():
        raise AcesimError(f"{where} has weights that are not finite numbers")
    if encoding == 0 and array[N.HEADER : N.HEADER + inputs * h1].reshape(inputs, h1)[N.FEATURE_UNITS].any():
        # its plays never set those inputs, but its tangent would read their weights (kernels.net)
        raise AcesimError(f"{where} reads positions by encoding 0 but weighs the features it does not read")
    _refuse_huge(where, array[N.HEADER:], "weights")
    if meta.get("rules_version") != RULES_VERSION:
        raise AcesimError(f"{where} was trained under rules version {meta.get('rules_version')}; "
                          f"this acesim plays rules version {RULES_VERSION}")
    if knob_weights is not None:
        return _rule_reading(path, where, array, knob_weights, meta, hashlib.sha256(raw).hexdigest())
    rules = meta.get("rules")
    # knobs newer than the model are filled in (rules.LATER_KNOBS); the cube's do not count
    recorded = recorded_knobs(rules) if isinstance(rules, dict) and set(rules) <= {"name", *KNOBS} else None
    if recorded is None or "name" not in rules:
        raise AcesimError(f"{where} does not record every rule knob it was trained under")
    knobs = tuple((k, recorded[k]) for k in CHECKER_KNOBS)
    return LearnedModel(str(path), array, str(rules["name"]), knobs, meta, hashlib.sha256(raw).hexdigest())


def _rule_reading(path: Path, where: str, array: np.ndarray, stored: np.ndarray, meta: dict,
                  sha256: str) -> LearnedModel:
    """The checks of a format-2 file past the network's own; its knob weights in today's unit order."""
    inputs = meta.get("rule_inputs")
    units = inputs.get("units") if isinstance(inputs, dict) else None
    if (not isinstance(units, list) or not all(isinstance(u, str) for u in units)
            or inputs.get("version") != RULE_INPUTS_VERSION):
        raise AcesimError(f"{where} does not name its knob inputs (rule inputs version {RULE_INPUTS_VERSION})")
    if int(array[N.M_OUTPUTS]) not in (2, N.SPLIT_POINTS):
        raise AcesimError(f"{where} reads the rules but has {int(array[N.M_OUTPUTS])} output(s), not 2 or "
                          f"{N.SPLIT_POINTS}")
    h1 = int(array[N.M_HIDDEN1])
    if stored.shape != (len(units), h1):
        raise AcesimError(f"{where} has knob weights of shape {stored.shape}; its {len(units)} knob inputs "
                          f"and {h1} hidden units need ({len(units)}, {h1})")
    if not np.isfinite(stored).all():
        raise AcesimError(f"{where} has knob weights that are not finite numbers")
    _refuse_huge(where, stored, "knob weights")
    unknown = [u for u in units if u not in KNOB_UNITS]
    if unknown or len(set(units)) != len(units):
        raise AcesimError(f"{where} reads knob values this acesim does not know: {', '.join(unknown or units)}")
    # a knob value newer than the model has weights 0, and rules that use it are refused (check_rules)
    knob_weights = np.zeros((len(KNOB_UNITS), h1))
    for row, unit in enumerate(units):
        knob_weights[KNOB_UNITS.index(unit)] = stored[row]
    untrained = tuple(u for u in KNOB_UNITS if u not in units)
    training = meta.get("training")
    objective = training.get("objective", "auto") if isinstance(training, dict) else "auto"
    if objective not in ("auto", "wins", "points"):
        raise AcesimError(f"{where} has an unknown objective {objective!r}")
    return LearnedModel(str(path), array, "every rule set", (), meta, sha256, knob_weights, untrained, objective)


def model_path(name: str) -> Path:
    """``learned:NAME``'s file: a path, or the name of a shipped model."""
    if name.endswith(".npz") or "/" in name or os.sep in name:
        return Path(name)
    path = shipped_path(name)
    if not path.exists():
        shipped = sorted(p.stem for p in model_dir().glob("*.npz"))
        raise AcesimError(f"no shipped model {name!r}; shipped: {', '.join(shipped) or 'none'}")
    return path
