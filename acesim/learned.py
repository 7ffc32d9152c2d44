"""The learned player: model files, TD(lambda) self-play training, evaluation.

A model file is a NumPy ``.npz`` with two arrays and nothing pickled:

* ``model``: the flat network of ``acesim.kernels.net`` (header, then weights);
* ``meta``: a JSON text: format, acesim and rules versions, the rule set it was
  trained under (name and every knob), the training settings (games, seed,
  lambda, step size, layer sizes, search width), the command that made it,
  and the evaluations against ``expert`` run during training.

A model belongs to one rule set: playing it under other rules is refused, as
its values were learned from those rules' games.  ``learned:NAME`` without a
path names a model shipped in ``acesim/models/``.
"""

from __future__ import annotations

import hashlib
import io
import json
import multiprocessing
import os
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from acesim import __version__
from acesim.errors import AcesimError
from acesim.games import DEFAULT_TURN_CAP, play_records
from acesim.kernels import game as K
from acesim.kernels import net as N
from acesim.kernels import train as T
from acesim.kernels.plays import new_workspace
from acesim.kernels.strategy import new_scratch
from acesim.kernels.uniform import new_uniform_scratch
from acesim.position import Position
from acesim.rules import KNOBS, RULES_VERSION, Ruleset
from acesim.stats import wilson
from acesim.streams import MAX_SEED, block_keys, check_seed
from acesim.strategies import learned_strategy, load_strategy

MODEL_FORMAT = 1
DEFAULT_HIDDEN = (40, 0)
DEFAULT_LAMBDA = 0.7
DEFAULT_ALPHA = 0.1
DEFAULT_WIDTH = 4  # beam width of doubles segments while training and playing
POINTS_SCALE = {"per-checker": 15.0, "gammons": 3.0}


@dataclass(frozen=True)
class LearnedModel:
    """A loaded model: its network, the rules it belongs to, and how it was made."""

    path: str
    array: np.ndarray = field(repr=False, compare=False)
    rules_name: str
    knobs: tuple[tuple[str, Any], ...]
    meta: dict = field(repr=False, compare=False)
    sha256: str = ""

    @property
    def hidden(self) -> tuple[int, int]:
        return int(self.array[N.M_HIDDEN1]), int(self.array[N.M_HIDDEN2])

    @property
    def has_points(self) -> bool:
        return int(self.array[N.M_OUTPUTS]) > 1

    def check_rules(self, rules: Ruleset) -> None:
        """Refuse rules other than the model's own, in one line."""
        refuse_other_rules(f"model {self.path}", self.rules_name, self.knobs, rules)


def refuse_other_rules(what: str, trained_under: str, knobs: tuple, rules: Ruleset) -> None:
    """One line naming the knobs that differ, when ``rules`` are not those a network was trained under."""
    if dict(knobs) != rules.knobs():
        differ = [k for k, v in knobs if rules.knobs()[k] != v]
        raise AcesimError(
            f"{what} was trained under rules {trained_under!r}; these games use "
            f"{rules.name!r}, which differ in {', '.join(differ)}: train a model for them"
        )


def model_dir() -> Path:
    return Path(str(resources.files("acesim").joinpath("models")))


def shipped_path(name: str) -> Path:
    return model_dir() / f"{name}.npz"


def shipped_model(rules: Ruleset) -> LearnedModel | None:
    """The model shipped for ``rules``, if one was trained under exactly these knobs."""
    path = shipped_path(rules.base or rules.name)
    if not path.exists():
        return None
    model = load_model(path)
    return model if dict(model.knobs) == rules.knobs() else None


def new_model(rules: Ruleset, hidden: tuple[int, int], seed: int, objective: str = "auto") -> np.ndarray:
    """A fresh network for ``rules``: small uniform weights drawn from ``seed``."""
    h1, h2 = hidden
    if not 1 <= h1 <= N.MAX_HIDDEN or not 0 <= h2 <= N.MAX_HIDDEN:
        raise AcesimError(f"hidden layer sizes must be 1..{N.MAX_HIDDEN} (second may be 0), got {h1}, {h2}")
    scale = POINTS_SCALE.get(rules.scoring, 1.0)
    points = rules.scoring != "single" or rules.stakes_double_on_1_2
    outputs = 2 if points else 1
    if objective not in ("auto", "wins", "points"):
        raise AcesimError(f"the objective must be auto, wins or points, got {objective!r}")
    if objective == "points" and not points:
        raise AcesimError(f"rules {rules.name!r} score every game 1 point: use the objective 'wins'")
    if rules.stakes_double_on_1_2:
        scale *= 4.0
    play_points = points if objective == "auto" else objective == "points"
    header = np.zeros(N.HEADER)
    header[N.M_TAG] = N.NET_TAG
    header[N.M_INPUTS] = N.N_NET_INPUTS
    header[N.M_HIDDEN1] = h1
    header[N.M_HIDDEN2] = h2
    header[N.M_OUTPUTS] = outputs
    header[N.M_POINTS_SCALE] = scale
    header[N.M_ENCODING] = N.ENCODING_VERSION
    header[N.M_OBJECTIVE] = N.OBJECTIVE_POINTS if play_points else N.OBJECTIVE_WINS
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2**32 - 1,)))
    weights = rng.uniform(-0.1, 0.1, N.n_parameters(N.N_NET_INPUTS, h1, h2, outputs))
    return np.concatenate([header, weights])


def save_model(path: Path, array: np.ndarray, rules: Ruleset, meta: dict) -> None:
    """Write a model file through a temporary name and a rename."""
    doc = {
        "format": MODEL_FORMAT,
        "acesim_version": __version__,
        "rules_version": RULES_VERSION,
        "encoding": N.ENCODING_VERSION,
        "rules": {"name": rules.name, **rules.knobs()},
        **meta,
    }
    path = Path(path)
    tmp = path.with_name(f".{path.name}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as handle:
            np.savez_compressed(handle, model=array, meta=np.array(json.dumps(doc, indent=1)))
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise AcesimError(f"cannot write model {path}: {error.strerror}") from None


def load_model(path: str | Path) -> LearnedModel:
    """Read and check a model file; any defect is a one-line ``AcesimError``."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise AcesimError(f"cannot read model {path}: {error.strerror}") from None
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as data:
            array = np.asarray(data["model"], dtype=np.float64)
            meta = json.loads(str(data["meta"]))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError, json.JSONDecodeError) as error:
        raise AcesimError(f"{path} is not an acesim model file ({type(error).__name__})") from None
    where = f"model {path}"
    if not isinstance(meta, dict) or meta.get("format") != MODEL_FORMAT:
        raise AcesimError(f"{where} has format {meta.get('format') if isinstance(meta, dict) else None!r}; "
                          f"this acesim reads format {MODEL_FORMAT}")
    if array.ndim != 1 or len(array) < N.HEADER or array[N.M_TAG] != N.NET_TAG:
        raise AcesimError(f"{where} holds no network")
    if int(array[N.M_ENCODING]) != N.ENCODING_VERSION or int(array[N.M_INPUTS]) != N.N_NET_INPUTS:
        raise AcesimError(
            f"{where} encodes positions with {int(array[N.M_INPUTS])} inputs (encoding "
            f"{int(array[N.M_ENCODING])}); this acesim uses {N.N_NET_INPUTS} (encoding {N.ENCODING_VERSION})"
        )
    h1, h2, k = int(array[N.M_HIDDEN1]), int(array[N.M_HIDDEN2]), int(array[N.M_OUTPUTS])
    if not (1 <= h1 <= N.MAX_HIDDEN and 0 <= h2 <= N.MAX_HIDDEN and 1 <= k <= N.MAX_OUTPUTS):
        raise AcesimError(f"{where} has impossible layer sizes {h1}, {h2}, {k}")
    expected = N.HEADER + N.n_parameters(N.N_NET_INPUTS, h1, h2, k)
    if len(array) != expected:
        raise AcesimError(f"{where} has {len(array)} numbers; its layer sizes need {expected}")
    if not np.isfinite(array).all():
        raise AcesimError(f"{where} has weights that are not finite numbers")
    if meta.get("rules_version") != RULES_VERSION:
        raise AcesimError(f"{where} was trained under rules version {meta.get('rules_version')}; "
                          f"this acesim plays rules version {RULES_VERSION}")
    rules = meta.get("rules")
    if not isinstance(rules, dict) or set(rules) != {"name", *KNOBS}:
        raise AcesimError(f"{where} does not record every rule knob it was trained under")
    knobs = tuple((k, rules[k]) for k in KNOBS)
    return LearnedModel(str(path), array, str(rules["name"]), knobs, meta, hashlib.sha256(raw).hexdigest())


def model_path(name: str) -> Path:
    """``learned:NAME``'s file: a path, or the name of a shipped model."""
    if name.endswith(".npz") or "/" in name or os.sep in name:
        return Path(name)
    path = shipped_path(name)
    if not path.exists():
        shipped = sorted(p.stem for p in model_dir().glob("*.npz"))
        raise AcesimError(f"no shipped model {name!r}; shipped: {', '.join(shipped) or 'none'}")
    return path


# --- training ---------------------------------------------------------------------


@dataclass
class TrainingReport:
    """What a training run did, written into the model's ``meta``."""

    games: int = 0
    states: int = 0
    unfinished: int = 0
    too_long: int = 0
    seconds: float = 0.0
    evaluations: list[dict] = field(default_factory=list)


def _evaluation_half(args) -> np.ndarray:
    """The records of one seat order of an evaluation: the network in seat ``seat``."""

    array, rules, opponent, half, seed, width, seat = args
    me = learned_strategy(array, rules, "learned", width)
    other = load_strategy(opponent)
    a, b = (me, other) if seat == 0 else (other, me)
    return play_records(rules, a, b, seed, 0, half)


def evaluate(array: np.ndarray, rules: Ruleset, opponent: str, games: int, seed: int,
             width: int = DEFAULT_WIDTH, pool=None) -> dict:
    """Win rate and points per game of the network against ``opponent`` over ``games`` games.

    Half the games in each seat, on the same dice streams: the two games of a
    stream form a pair, and the interval of the points per game is that of
    the pairs' means (the pairing removes most of the dice's variance).
    """
    half = max(games // 2, 1)
    tasks = [(array, rules, opponent, half, seed, width, seat) for seat in (0, 1)]
    first, second = pool.map(_evaluation_half, tasks) if pool is not None else map(_evaluation_half, tasks)
    done = (first[:, K.UNFINISHED] == 0) & (second[:, K.UNFINISHED] == 0)
    wins = int((first[done, K.WINNER] == 0).sum() + (second[done, K.WINNER] == 1).sum())
    n = int(2 * done.sum())
    points_a = np.where(first[:, K.WINNER] == 0, first[:, K.POINTS], -first[:, K.POINTS])
    points_b = np.where(second[:, K.WINNER] == 1, second[:, K.POINTS], -second[:, K.POINTS])
    pair = ((points_a + points_b) / 2.0)[done]
    low, high = wilson(wins, n)
    mean = float(pair.mean()) if len(pair) else float("nan")
    half_width = 1.96 * float(pair.std(ddof=1)) / np.sqrt(len(pair)) if len(pair) > 1 else float("nan")
    return {
        "opponent": opponent,
        "games": n,
        "wins": wins,
        "win_rate": wins / n if n else float("nan"),
        "win_rate_ci95": [low, high],
        "points_per_game": mean,
        "points_per_game_ci95": [mean - half_width, mean + half_width],
        "seed": seed,
    }


TRAIN_BATCH = 16  # games played with the same weights before their updates are applied
TRACE_ROWS = 2048  # states kept per training game; a longer game teaches nothing (and is counted)

_worker_memory: dict = {}


def _self_play_chunk(args) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play one piece of a batch (in a worker process or in the caller): traces, lengths, records."""

    array, board, ra, seed, first, n, width = args
    if "ws" not in _worker_memory:
        _worker_memory.update(ws=new_workspace(), uniform=new_uniform_scratch(), sc=new_scratch(width))
    traces = np.zeros((n, TRACE_ROWS, K.TRACE_WIDTH), dtype=np.int64)
    lengths = np.zeros(n, dtype=np.int64)
    records = np.zeros((n, K.N_RECORD), dtype=np.int64)
    widths = np.array([[width, width], [width, width]], dtype=np.int64)
    m = _worker_memory
    m["ws"], m["uniform"] = T.self_play(array, board, ra, block_keys(seed, first, n), first, n, DEFAULT_TURN_CAP,
                                        widths, m["ws"], m["uniform"], m["sc"], traces, lengths, records)
    keep = int(min(max(lengths.max(), 1), TRACE_ROWS))
    return np.ascontiguousarray(traces[:, :keep]), lengths, records


def _pieces(first: int, n: int, parts: int) -> list[tuple[int, int]]:
    """``n`` games from ``first`` in up to ``parts`` contiguous pieces."""
    size = -(-n // parts)
    return [(a, min(size, first + n - a)) for a in range(first, first + n, size)]


def train(
    rules: Ruleset,
    games: int,
    seed: int,
    hidden: tuple[int, int] = DEFAULT_HIDDEN,
    lam: float = DEFAULT_LAMBDA,
    alpha: float = DEFAULT_ALPHA,
    width: int = DEFAULT_WIDTH,
    eval_every: int = 0,
    eval_games: int = 1000,
    objective: str = "auto",
    progress: Callable[[int, dict | None], None] | None = None,
    start: np.ndarray | None = None,
    workers: int = 1,
) -> tuple[np.ndarray, TrainingReport]:
    """Train a network for ``rules`` by ``games`` games of TD(lambda) self-play (``kernels.train``).

    Games are played in batches of ``TRAIN_BATCH`` with the weights frozen at
    the batch's start (spread over ``workers`` processes), then each game's
    updates are applied in game order.  So the model depends on the seed and
    the settings, never on the number of workers or the evaluations: game
    ``g`` plays the dice of game ``g`` of seed ``seed``.  After the batch that
    completes each ``eval_every`` games (0 = never), and after the last, the
    network plays ``eval_games`` against ``expert``, half in each seat.
    ``progress(games done, evaluation or None)`` is called after each batch.
    """
    if games <= 0:
        raise AcesimError(f"the number of training games must be positive, got {games}")
    if not 0 <= lam <= 1:
        raise AcesimError(f"lambda must be between 0 and 1, got {lam}")
    if not 0 < alpha <= 10:
        raise AcesimError(f"the step size must be in (0, 10], got {alpha}")
    if not 1 <= width <= 256:
        raise AcesimError(f"the beam width must be 1..256, got {width}")
    if workers <= 0:
        raise AcesimError(f"the number of workers must be positive, got {workers}")
    check_seed(seed)
    array = new_model(rules, hidden, seed, objective) if start is None else start.copy()
    board = Position.start(rules.start).to_board()
    ra = rules.to_array()
    sc = new_scratch(width)
    totals = np.zeros(5, dtype=np.int64)
    report = TrainingReport()
    eval_seed = (seed + 1) % (MAX_SEED + 1)
    began = time.perf_counter()
    pool = multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None
    try:
        done = 0
        while done < games:
            n = min(TRAIN_BATCH, games - done)  # batches never depend on the evaluations
            tasks = [(array, board, ra, seed, a, m, width) for a, m in _pieces(done, n, workers)]
            pieces = pool.map(_self_play_chunk, tasks) if pool else [_self_play_chunk(t) for t in tasks]
            for traces, lengths, records in pieces:
                T.td_updates(array, traces, lengths, records, lam, alpha, sc, totals)
            before, done = done, done + n
            evaluation = None
            if eval_every and (done // eval_every > before // eval_every or done == games):
                evaluation = evaluate(array, rules, "expert", eval_games, eval_seed, width, pool)
                evaluation["after_games"] = done
                report.evaluations.append(evaluation)
            if progress is not None:
                progress(done, evaluation)
    finally:
        if pool:
            pool.terminate()
    report.games = int(totals[0])
    report.states = int(totals[1])
    report.unfinished = int(totals[2])
    report.too_long = int(totals[3])
    report.seconds = time.perf_counter() - began
    return array, report
