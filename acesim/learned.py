"""The learned player: TD(lambda) self-play training and evaluation.

Model files (reading, checking, writing) are ``acesim.model_files``; its
names are re-exported here for callers that know them from this module.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from acesim.errors import AcesimError
from acesim.games import play_records, play_training_games
from acesim.kernels import game as K
from acesim.kernels import net as N
from acesim.kernels import train as T
from acesim.kernels.memory import worker_memory
from acesim.limits import TRAIN_WIDTH
from acesim.model_files import (  # noqa: F401 (re-exported: callers know them from here)
    DEFAULT_WIDTH,
    MODEL_FORMAT,
    LearnedModel,
    load_model,
    model_dir,
    model_path,
    refuse_other_rules,
    save_model,
    shipped_model,
    shipped_path,
)
from acesim.rules import Ruleset
from acesim.stats import Z95, wilson
from acesim.streams import MAX_SEED, check_seed
from acesim.strategies import learned_strategy, load_strategy
from acesim.tasks import LocalProcesses, check_workers, interruptible, map_tasks

DEFAULT_HIDDEN = (40, 0)
DEFAULT_LAMBDA = 0.7
DEFAULT_ALPHA = 0.1
POINTS_SCALE = {"per-checker": 15.0, "gammons": 3.0}


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


def parse_hidden(text: str) -> tuple[int, int]:
    """``--hidden``: one layer size, or two comma-separated (the second 0 when absent)."""
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        sizes = []
    if len(sizes) not in (1, 2):
        raise AcesimError(f"--hidden takes one or two sizes, like 80 or 64,32; got {text!r}")
    return sizes[0], sizes[1] if len(sizes) == 2 else 0


def training_metadata(command: str, report: TrainingReport, workers: int, seed: int, lam: float, alpha: float,
                      hidden: tuple[int, int], width: int, objective: str) -> dict:
    """The ``meta`` a trained model is saved with: the command and settings that reproduce it, and its results."""
    return {
        "command": command,
        "training": {"games": report.games, "workers": workers, "seed": seed, "lambda": lam, "alpha": alpha,
                     "hidden": list(hidden), "width": width, "objective": objective,
                     "states": report.states, "unfinished": report.unfinished,
                     "too_long": report.too_long, "seconds": round(report.seconds, 1)},
        "evaluations": report.evaluations,
    }


def _evaluation_half(array, rules, opponent, half, seed, width, seat) -> np.ndarray:
    """The records of one seat order of an evaluation: the network in seat ``seat``."""
    me = learned_strategy(array, rules, "learned", width)
    other = load_strategy(opponent)
    a, b = (me, other) if seat == 0 else (other, me)
    return play_records(rules, a, b, seed, 0, half)


def evaluate(array: np.ndarray, rules: Ruleset, opponent: str, games: int, seed: int,
             width: int = TRAIN_WIDTH, backend: LocalProcesses | None = None) -> dict:
    """Win rate and points per game of the network against ``opponent`` over ``games`` games.

    Half the games in each seat, on the same dice streams: the two games of a
    stream form a pair, and the interval of the points per game is that of
    the pairs' means (the pairing removes most of the dice's variance).
    """
    half = max(games // 2, 1)
    tasks = [(array, rules, opponent, half, seed, width, seat) for seat in (0, 1)]
    first, second = map_tasks(_evaluation_half, tasks, backend)
    done = (first[:, K.UNFINISHED] == 0) & (second[:, K.UNFINISHED] == 0)
    wins = int((first[done, K.WINNER] == 0).sum() + (second[done, K.WINNER] == 1).sum())
    n = int(2 * done.sum())
    points_a = np.where(first[:, K.WINNER] == 0, first[:, K.POINTS], -first[:, K.POINTS])
    points_b = np.where(second[:, K.WINNER] == 1, second[:, K.POINTS], -second[:, K.POINTS])
    pair = ((points_a + points_b) / 2.0)[done]
    low, high = wilson(wins, n)
    mean = float(pair.mean()) if len(pair) else float("nan")
    half_width = Z95 * float(pair.std(ddof=1)) / np.sqrt(len(pair)) if len(pair) > 1 else float("nan")
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


# The spawn key of the evaluations' root seed, apart from the games' blocks
# (0, 1, ...) and the initial weights (2**32 - 1).
EVALUATION_KEY = 2**32 - 2


def evaluation_seed(seed: int) -> int:
    """The root seed of a training run's evaluations, derived from ``seed`` by ``SeedSequence``."""
    state = np.random.SeedSequence(seed, spawn_key=(EVALUATION_KEY,)).generate_state(1, np.uint64)
    return int(state[0]) & MAX_SEED


TRAIN_BATCH = 16  # games played with the same weights before their updates are applied
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
    width: int = TRAIN_WIDTH,
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
    if rules.has_cube:
        # a model learns checker play, which the cube does not change; it plays under any cube setting
        raise AcesimError(
            f"training is cubeless and rules {rules.name!r} have cube={rules.cube}: train without the cube "
            "(the model then plays under cube=money too)"
        )
    if not 0 <= lam <= 1:
        raise AcesimError(f"lambda must be between 0 and 1, got {lam}")
    if not 0 < alpha <= 10:
        raise AcesimError(f"the step size must be in (0, 10], got {alpha}")
    if not 1 <= width <= 256:
        raise AcesimError(f"the beam width must be 1..256, got {width}")
    check_workers(workers)
    check_seed(seed)
    array = new_model(rules, hidden, seed, objective) if start is None else start.copy()
    sc = worker_memory(width).search
    rules_array = rules.to_array()
    totals = np.zeros(5, dtype=np.int64)
    report = TrainingReport()
    eval_seed = evaluation_seed(seed)
    began = time.perf_counter()
    # SIGTERM stops training as Ctrl-C does: the workers are killed, no model is written
    with interruptible(), LocalProcesses(workers) as backend:
        done = 0
        while done < games:
            n = min(TRAIN_BATCH, games - done)  # batches never depend on the evaluations
            tasks = [(array, rules, seed, a, m, width) for a, m in _pieces(done, n, workers)]
            for traces, lengths, records in map_tasks(play_training_games, tasks, backend):
                T.td_updates(array, rules_array, traces, lengths, records, lam, alpha, sc, totals)
            before, done = done, done + n
            evaluation = None
            if eval_every and (done // eval_every > before // eval_every or done == games):
                evaluation = evaluate(array, rules, "expert", eval_games, eval_seed, width, backend)
                evaluation["after_games"] = done
                report.evaluations.append(evaluation)
            if progress is not None:
                progress(done, evaluation)
    report.games = int(totals[0])
    report.states = int(totals[1])
    report.unfinished = int(totals[2])
    report.too_long = int(totals[3])
    report.seconds = time.perf_counter() - began
    return array, report
