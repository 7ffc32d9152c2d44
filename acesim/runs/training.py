"""The learned player: TD(lambda) self-play training and evaluation.

Model files (reading, checking, writing) are ``acesim.engine.model_files``; its
names are re-exported here for callers that know them from this module.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from acesim.common.errors import AcesimError
from acesim.common.limits import TRAIN_WIDTH
from acesim.common.stats import Z95, wilson
from acesim.common.tasks import LocalProcesses, check_workers, interruptible, map_tasks
from acesim.engine import rule_inputs as RI
from acesim.engine.games import play_records, play_training_games
from acesim.engine.model_files import (  # noqa: F401 (re-exported: callers know them from here)
    DEFAULT_WIDTH,
    MODEL_FORMAT,
    RULE_READING_FORMAT,
    LearnedModel,
    load_model,
    model_dir,
    model_path,
    refuse_other_rules,
    save_model,
    save_rule_model,
    shipped_path,
)
from acesim.engine.rules import PRESETS, Ruleset
from acesim.engine.strategies import learned_strategy, load_strategy
from acesim.engine.streams import MAX_SEED, check_seed
from acesim.kernels import game_loop as K, net as N, train as T
from acesim.kernels.memory import worker_memory

DEFAULT_HIDDEN = (40, 0)
DEFAULT_LAMBDA = 0.7
DEFAULT_ALPHA = 0.1
POINTS_SCALE = RI.POINTS_SCALE
# a network's hidden units (kernels.net): the tag of its header for each name ``--activation`` takes
ACTIVATIONS = {"logistic": N.NET_TAG, "hard-sigmoid": N.HARD_NET_TAG}
DEFAULT_ACTIVATION = "logistic"
# What each state's step descends (``net.sgd_step``): TD-Gammon's squared error of the outputs, or their
# cross-entropy, whose step does not fade where an output nears 0 or 1.
LOSSES = ("squared", "cross-entropy")
DEFAULT_LOSS = "squared"


def check_loss(loss: str) -> bool:
    """Whether ``loss`` (one of ``LOSSES``) is the cross-entropy; any other name is one line."""
    if loss not in LOSSES:
        raise AcesimError(f"the loss must be one of {', '.join(LOSSES)}, got {loss!r}")
    return loss == "cross-entropy"


def activation_of(array: np.ndarray) -> str:
    """The name of a network's hidden units (``ACTIVATIONS``)."""
    return next(name for name, tag in ACTIVATIONS.items() if array[N.M_TAG] == tag)


def run_activation(activation: str | None, start: np.ndarray | None) -> str:
    """The hidden units of a run: ``activation`` when given, else the start network's own, else logistic."""
    if activation is not None:
        return activation
    return DEFAULT_ACTIVATION if start is None else activation_of(start)


def _check_activation(activation: str) -> float:
    if activation not in ACTIVATIONS:
        raise AcesimError(f"the activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    return ACTIVATIONS[activation]


def with_activation(array: np.ndarray, activation: str) -> np.ndarray:
    """``array`` with hidden units of ``activation``, its weights unchanged.  The hard sigmoid is the logistic
    function's tangent at 0 held to [0, 1], so a logistic network starts a hard-sigmoid one near its own values."""
    tag = _check_activation(activation)
    out = array.copy()
    out[N.M_TAG] = tag
    return out


def _check_network(hidden: tuple[int, int], encoding: int) -> None:
    h1, h2 = hidden
    if not 1 <= h1 <= N.MAX_HIDDEN or not 0 <= h2 <= N.MAX_HIDDEN:
        raise AcesimError(f"hidden layer sizes must be 1..{N.MAX_HIDDEN} (second may be 0), got {h1}, {h2}")
    if encoding not in N.ENCODINGS:
        raise AcesimError(f"the encoding must be one of {', '.join(map(str, N.ENCODINGS))}, got {encoding}")


def _new_network(hidden: tuple[int, int], seed: int, encoding: int, outputs: int, scale: float,
                 objective: int, activation: str = DEFAULT_ACTIVATION) -> np.ndarray:
    """A network's header and its small uniform weights drawn from ``seed`` (sizes already checked)."""
    h1, h2 = hidden
    header = np.zeros(N.HEADER)
    header[N.M_TAG] = _check_activation(activation)
    header[N.M_INPUTS] = N.n_inputs(encoding)
    header[N.M_HIDDEN1] = h1
    header[N.M_HIDDEN2] = h2
    header[N.M_OUTPUTS] = outputs
    header[N.M_POINTS_SCALE] = scale
    header[N.M_ENCODING] = encoding
    header[N.M_OBJECTIVE] = objective
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2**32 - 1,)))
    weights = rng.uniform(-0.1, 0.1, N.n_parameters(N.n_inputs(encoding), h1, h2, outputs))
    if encoding == 0:
        # the features' rows: their inputs are never set, so they stay zero and add nothing to the
        # tangent either (kernels.net)
        weights[: N.n_inputs(encoding) * h1].reshape(-1, h1)[N.FEATURE_UNITS] = 0.0
    return np.concatenate([header, weights])


def new_model(rules: Ruleset, hidden: tuple[int, int], seed: int, objective: str = "auto",
              encoding: int = N.ENCODING_VERSION, activation: str = DEFAULT_ACTIVATION,
              split_points: bool = False) -> np.ndarray:
    """A fresh network for ``rules`` reading positions by ``encoding`` (``kernels.net``): small uniform
    weights drawn from ``seed``; with ``split_points``, the points won and lost beyond 1 as outputs of
    their own (``net.SPLIT_POINTS``)."""
    _check_network(hidden, encoding)
    scale = RI.points_scale(rules)
    points = RI.scores_points(rules)
    if split_points and not points:
        raise AcesimError(f"rules {rules.name!r} score every game 1 point: there are no points beyond 1 to split")
    outputs = (N.SPLIT_POINTS if split_points else 2) if points else 1
    if objective not in ("auto", "wins", "points"):
        raise AcesimError(f"the objective must be auto, wins or points, got {objective!r}")
    if objective == "points" and not points:
        raise AcesimError(f"rules {rules.name!r} score every game 1 point: use the objective 'wins'")
    play_points = points if objective == "auto" else objective == "points"
    return _new_network(hidden, seed, encoding, outputs, scale,
                        N.OBJECTIVE_POINTS if play_points else N.OBJECTIVE_WINS, activation)


# --- training ---------------------------------------------------------------------


def parse_hidden(text: str) -> tuple[int, int]:
    """``--hidden``: one layer size, or two comma-separated (the second 0 when absent)."""
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        sizes = []
    if len(sizes) not in (1, 2):
        raise AcesimError(f"--hidden takes one or two sizes, like 80 or 64,32; got {text!r}")
    return sizes[0], sizes[1] if len(sizes) == 2 else 0


def start_record(start: str, sha256: str) -> dict:
    """What a model's ``training`` records of the model its run started from: path and sha256 (the run
    is reproduced from the same file), nothing for weights drawn from the seed."""
    return {"start": start, "start_sha256": sha256} if start else {}


def loss_record(loss: str) -> dict:
    """What a model's ``training`` records of its loss: nothing for the squared error, which every model
    trained before the choice was offered used."""
    return {} if loss == DEFAULT_LOSS else {"loss": loss}


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


_OBJECTIVES = {N.OBJECTIVE_WINS: "wins", N.OBJECTIVE_POINTS: "points"}


def _refuse_other_sizes(what: str, sizes: tuple[int, int], asked: tuple[int, int]) -> None:
    if sizes != asked:
        raise AcesimError(f"{what} has hidden layers {sizes[0]},{sizes[1]}; the run asks for {asked[0]},{asked[1]} "
                          "(a network of one hidden layer can be widened, or deepened by a second layer; "
                          "give it as many units or more)")


def widened(start: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """``start`` with ``fresh``'s hidden units past its own added, when ``fresh`` (the network the run
    would draw from its seed) has one hidden layer wider than ``start``'s single one; else ``start``.

    The added units take ``fresh``'s first-layer weights and biases and output weights of zero: the
    widened network computes exactly what ``start`` does, and training gives the new units their say
    (the growth of Net2Net, Chen, Goodfellow and Shlens, 2016).
    """
    old, new = int(start[N.M_HIDDEN1]), int(fresh[N.M_HIDDEN1])
    if start[N.M_HIDDEN2] != 0 or fresh[N.M_HIDDEN2] != 0 or new <= old or start[N.M_INPUTS] != fresh[N.M_INPUTS]:
        return start
    n_in, outputs = int(start[N.M_INPUTS]), int(start[N.M_OUTPUTS])
    if len(start) != N.HEADER + N.n_parameters(n_in, old, 0, outputs):
        return start  # not a network of these sizes: ``refuse_other_network`` says so
    w1, b1, wo = _grown_first_layer(start, fresh)
    header = start[:N.HEADER].copy()
    header[N.M_HIDDEN1] = new
    return np.concatenate([header, w1.ravel(), b1, np.vstack([wo, np.zeros((new - old, outputs))]).ravel(),
                           start[-outputs:]])


def _grown_first_layer(start: np.ndarray, fresh: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first-layer weights and biases of ``start`` (one hidden layer) with ``fresh``'s units past its
    own appended, and ``start``'s output weights (``[hidden1 x outputs]``)."""
    n_in, outputs = int(start[N.M_INPUTS]), int(start[N.M_OUTPUTS])
    mine, theirs = RI.b1_slice(start), RI.b1_slice(fresh)
    old, new = mine.stop - mine.start, theirs.stop - theirs.start
    w1 = np.hstack([start[N.HEADER:mine.start].reshape(n_in, old),
                    fresh[N.HEADER:theirs.start].reshape(n_in, new)[:, old:]])
    return (w1, np.concatenate([start[mine], fresh[theirs][old:]]),
            start[mine.stop:mine.stop + old * outputs].reshape(old, outputs))


# How far into its logistic function a deepened network's pass-through unit works: the unit is
# sigma(DEEPEN_SCALE z) for the start's output sum z, read back as
# (4 sigma - 2) / DEEPEN_SCALE = z - DEEPEN_SCALE^2 z^3 / 12 + ...
DEEPEN_SCALE = 0.1


def deepened(start: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """``start`` given ``fresh``'s second hidden layer, when ``start`` has one hidden layer, no wider than
    ``fresh``'s first, and ``fresh`` (the network the run would draw from its seed) has two; else ``start``.

    The first layer is ``start``'s, widened by ``fresh``'s units as ``widened`` does.  The second layer's
    first units, one per output, pass the start's output sums through: unit k computes
    ``sigma(DEEPEN_SCALE z_k)`` of the start's sum ``z_k`` of output k, which the output reads back as
    ``z_k`` (exactly for hard-sigmoid units while ``|DEEPEN_SCALE z_k| < 2``, within
    ``DEEPEN_SCALE^2 |z_k|^3 / 12`` for logistic ones); the rest are ``fresh``'s, with output weights of
    zero.  So the deeper network plays as the start does, and a gradient reaches its first layer nearly
    as it reached the start's (Net2Net's deeper network, Chen, Goodfellow and Shlens, 2016, for units
    that are linear only near 0).
    """
    old, new, h2 = int(start[N.M_HIDDEN1]), int(fresh[N.M_HIDDEN1]), int(fresh[N.M_HIDDEN2])
    n_in, outputs = int(start[N.M_INPUTS]), int(start[N.M_OUTPUTS])
    if (start[N.M_HIDDEN2] != 0 or h2 < outputs or new < old or n_in != fresh[N.M_INPUTS]
            or outputs != fresh[N.M_OUTPUTS]):
        return start
    if len(start) != N.HEADER + N.n_parameters(n_in, old, 0, outputs):
        return start  # not a network of these sizes: ``refuse_other_network`` says so
    w1, b1, wo = _grown_first_layer(start, fresh)
    second = RI.b1_slice(fresh).stop  # the fresh network's second layer: W2 [new x h2], then b2
    w2 = fresh[second:second + new * h2].reshape(new, h2).copy()
    b2 = fresh[second + new * h2:second + new * h2 + h2].copy()
    w2[:, :outputs] = 0.0
    w2[:old, :outputs] = DEEPEN_SCALE * wo
    b2[:outputs] = DEEPEN_SCALE * start[-outputs:]
    w_out = np.zeros((h2, outputs))
    w_out[np.arange(outputs), np.arange(outputs)] = 4.0 / DEEPEN_SCALE
    header = start[:N.HEADER].copy()
    header[N.M_HIDDEN1], header[N.M_HIDDEN2] = new, h2
    return np.concatenate([header, w1.ravel(), b1, w2.ravel(), b2, w_out.ravel(),
                           np.full(outputs, -2.0 / DEEPEN_SCALE)])


def reencoded(start: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """``start`` reading ``fresh``'s encoding, when that is a later one than ``start``'s; else ``start``.

    Encodings 2 and 3 read the units of those before them and append their own, so the new inputs'
    rows are added as zeros: the network plays as ``start`` did, and training gives the new inputs their
    weight.  A network of encoding 0 stays one: it is the kind without features, kept for its speed.
    """
    mine, theirs = int(start[N.M_ENCODING]), int(fresh[N.M_ENCODING])
    if theirs <= mine or mine < 1 or mine not in N.ENCODINGS or theirs not in N.ENCODINGS:
        return start
    old, new = int(start[N.M_INPUTS]), N.n_inputs(theirs)
    h1 = int(start[N.M_HIDDEN1])
    if old != N.n_inputs(mine) or len(start) < N.HEADER + old * h1:
        return start  # not a network of its encoding: ``refuse_other_network`` says so
    header = start[:N.HEADER].copy()
    header[N.M_ENCODING], header[N.M_INPUTS] = theirs, new
    return np.concatenate([header, start[N.HEADER:N.HEADER + old * h1], np.zeros((new - old) * h1),
                           start[N.HEADER + old * h1:]])


# Where a split network's outputs of the points beyond 1 start, before training says: 0.08 of their
# range (under backgammon's scoring, a gammon in about one game in six), the logistic function's
# inverse at 0.08 as their bias.
SPLIT_BIAS = float(np.log(0.08 / 0.92))


def split(start: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """``start`` with its points output replaced by the two of ``fresh`` (``net.SPLIT_POINTS``), when
    ``start`` has one points output and ``fresh`` two; else ``start``.

    The win output and every hidden unit stay ``start``'s; the new outputs weigh no hidden unit yet and
    start at ``SPLIT_BIAS``, so the network wins as ``start`` did and learns its points beyond 1 anew.
    """
    if int(start[N.M_OUTPUTS]) != 2 or int(fresh[N.M_OUTPUTS]) != N.SPLIT_POINTS:
        return start
    n_in, h1, h2 = int(start[N.M_INPUTS]), int(start[N.M_HIDDEN1]), int(start[N.M_HIDDEN2])
    if len(start) != N.HEADER + N.n_parameters(n_in, h1, h2, 2):
        return start  # not a network of these sizes: ``refuse_other_network`` says so
    last = h2 if h2 > 0 else h1
    wo = start[-(last * 2 + 2):-2].reshape(last, 2)
    w_out = np.zeros((last, N.SPLIT_POINTS))
    w_out[:, 0] = wo[:, 0]
    bias = np.array([start[-2], SPLIT_BIAS, SPLIT_BIAS])
    header = start[:N.HEADER].copy()
    header[N.M_OUTPUTS] = N.SPLIT_POINTS
    return np.concatenate([header, start[N.HEADER:-(last * 2 + 2)], w_out.ravel(), bias])


def grown(start: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """``start`` grown to ``fresh``'s encoding, outputs and sizes where it can be (``reencoded``, ``split``,
    then ``widened`` or ``deepened``), else ``start``."""
    start = split(reencoded(start, fresh), fresh)
    return deepened(start, fresh) if fresh[N.M_HIDDEN2] > 0 else widened(start, fresh)


def refuse_other_network(what: str, start: np.ndarray, fresh: np.ndarray, objective: str) -> None:
    """One line when ``start`` is not shaped as ``fresh``, the network a run would draw from its seed:
    other hidden layers, another objective, other outputs or points scale."""
    _refuse_other_sizes(what, (int(start[N.M_HIDDEN1]), int(start[N.M_HIDDEN2])),
                        (int(fresh[N.M_HIDDEN1]), int(fresh[N.M_HIDDEN2])))
    mine, asked = int(start[N.M_OBJECTIVE]), int(fresh[N.M_OBJECTIVE])
    if mine != asked:
        raise AcesimError(f"{what} maximises {_OBJECTIVES.get(mine, mine)}; --objective {objective} maximises "
                          f"{_OBJECTIVES[asked]}: give --objective {_OBJECTIVES.get(mine, mine)}")
    mine, asked = int(start[N.M_ENCODING]), int(fresh[N.M_ENCODING])
    if mine != asked:
        raise AcesimError(f"{what} reads positions by encoding {mine}; the run asks for encoding {asked}")
    if len(start) != len(fresh) or not np.array_equal(start[:N.HEADER], fresh[:N.HEADER]):
        raise AcesimError(f"{what} is not a network of the run's rules (its outputs or points scale differ)")


def start_model(path, rules: Ruleset | None = None) -> LearnedModel:
    """The model a training run starts from, loaded and checked, each defect one line.

    With ``rules``, a model of those rules (format 1; a run of one rule set's
    start); without, a rule-reading model with an input for every knob value.
    Its layer sizes and objective are checked against the run's by
    ``grown_run``.
    """
    model = load_model(path)
    if rules is None:
        if not model.reads_rules:
            raise AcesimError(f"{path} is not a network that reads the rules: a run can start only from one")
        if model.untrained_units:
            raise AcesimError(f"{path} has no inputs for the knob values {', '.join(model.untrained_units)}")
        return model
    if model.reads_rules:
        raise AcesimError(f"{path} is a network that reads the rules: a run of one rule set starts from a "
                          f"model of those rules (train a rule-reading run with --rules all or --random-share)")
    refuse_other_rules(f"start model {path}", model.rules_name, model.knobs, rules)
    return model


# --- one network that reads the rules --------------------------------------------------------


def new_rule_model(hidden: tuple[int, int], seed: int, encoding: int = N.ENCODING_VERSION,
                   activation: str = DEFAULT_ACTIVATION, split_points: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A fresh rule-reading network (``acesim.engine.rule_inputs``): the network and its knob weights.

    The network always has the outputs of points (win probability and normalized
    points, or with ``split_points`` the points won and lost beyond 1: under rules
    that score 1 a game they are 0); its header's points scale is 0 until
    ``rule_inputs.fold`` sets it for a rule set.  Its weights are drawn as
    ``new_model``'s from ``seed``.
    """
    _check_network(hidden, encoding)
    # points scale 0 and objective OBJECTIVE_WINS (0) until folded, as the header's zeros were before
    return (_new_network(hidden, seed, encoding, N.SPLIT_POINTS if split_points else 2, 0.0, N.OBJECTIVE_WINS,
                         activation),
            RI.new_knob_weights(hidden[0], seed))


# --- a training run: its settings, checkpoints and loop ---------------------------------------


def _rules_json(rules: Ruleset) -> dict:
    return {"name": rules.name, **rules.checker_knobs()}


def _rules_from_json(doc: dict) -> Ruleset:
    knobs = {k: v for k, v in doc.items() if k != "name"}
    return Ruleset(**knobs, name=doc["name"])


@dataclass(frozen=True)
class RunSettings:
    """What a training run plays: everything its result depends on, and its cadences.

    A run of one network that reads the rules (``reads_rules``) plays its
    ``anchors`` with probability ``1 - random_share`` (uniformly among them),
    random mixes of every checker knob otherwise (``rule_inputs.batch_rules``),
    and is evaluated under each preset and ``eval_mixes`` fixed random mixes.  A
    run of one rule set (``reads_rules`` false) has that rule set as its one
    anchor and no random share, and is evaluated under it.  Every
    ``eval_every`` games the network plays ``eval_games`` against ``expert``;
    every ``checkpoint_every`` games the run is written to its checkpoint.
    Neither changes the network.
    """

    anchors: tuple[Ruleset, ...]
    random_share: float
    games: int
    seed: int
    hidden: tuple[int, int] = DEFAULT_HIDDEN
    lam: float = DEFAULT_LAMBDA
    alpha: float = DEFAULT_ALPHA
    width: int = TRAIN_WIDTH
    eval_every: int = 0
    eval_games: int = 1000
    eval_mixes: int = 2
    checkpoint_every: int = 0
    alpha_halving: int = 0  # the step size halves every this many games (0: constant)
    start: str = ""  # a model whose weights the run starts from ("" : drawn from the seed)
    start_sha256: str = ""  # that model's digest, so the run can be reproduced from the same file
    encoding: int = N.ENCODING_VERSION  # the inputs of a network drawn from the seed (kernels.net)
    activation: str = DEFAULT_ACTIVATION  # its hidden units (ACTIVATIONS); a start network's are converted
    loss: str = DEFAULT_LOSS  # what each state's step descends (LOSSES)
    reads_rules: bool = True  # one network for every rule set (format 2), else a model of ``anchors[0]``
    objective: str = "auto"  # what a model of one rule set maximises (``new_model``)
    split_points: bool = False  # the points beyond 1 as outputs of their own (``net.SPLIT_POINTS``)

    @classmethod
    def of_rules(cls, rules: Ruleset, games: int, seed: int, **settings) -> RunSettings:
        """The settings of a run of one rule set: ``rules`` its one anchor, no random mixes."""
        return cls((rules,), 0.0, games, seed, reads_rules=False, eval_mixes=0, **settings)

    def step_size(self, done: int) -> float:
        """The step size of the batch that starts after ``done`` games."""
        return self.alpha * 0.5 ** (done // self.alpha_halving) if self.alpha_halving else self.alpha

    def fresh(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The network the seed draws for this run, and its knob weights (``None`` for one rule set)."""
        if self.reads_rules:
            return new_rule_model(self.hidden, self.seed, self.encoding, self.activation, self.split_points)
        return new_model(self.anchors[0], self.hidden, self.seed, self.objective, self.encoding,
                         self.activation, self.split_points), None

    def check(self) -> None:
        """Every setting in range, in one line each."""
        if self.games <= 0:
            raise AcesimError(f"the number of training games must be positive, got {self.games}")
        if not 0 <= self.random_share <= 1:
            raise AcesimError(f"the random share must be between 0 and 1, got {self.random_share}")
        if not self.anchors and self.random_share < 1:
            raise AcesimError("a rule-reading run without anchor rule sets needs --random-share 1")
        if not self.reads_rules and (len(self.anchors) != 1 or self.random_share or self.eval_mixes):
            raise AcesimError("a run of one rule set has that rule set alone, and no random mixes")
        if self.reads_rules and self.objective != "auto":
            raise AcesimError("a network that reads the rules maximises points where the rules score them "
                              "(--objective auto)")
        for rules in self.anchors:
            if rules.has_cube:
                # a model learns checker play, which the cube does not change; it plays under any cube setting
                raise AcesimError(f"training is cubeless and rules {rules.name!r} have cube={rules.cube}: "
                                  "train without the cube (the model then plays under cube=money too)")
        if not 0 <= self.lam <= 1:
            raise AcesimError(f"lambda must be between 0 and 1, got {self.lam}")
        if not 0 < self.alpha <= 10:
            raise AcesimError(f"the step size must be in (0, 10], got {self.alpha}")
        if not 1 <= self.width <= 256:
            raise AcesimError(f"the beam width must be 1..256, got {self.width}")
        if self.eval_every < 0 or self.eval_games <= 0 or not 0 <= self.eval_mixes <= 16:
            raise AcesimError("--eval-every must be 0 or more, --eval-games positive and --eval-mixes 0..16")
        if self.checkpoint_every < 0:
            raise AcesimError(f"--checkpoint-every must be 0 or more, got {self.checkpoint_every}")
        if self.alpha_halving < 0 or self.alpha_halving % TRAIN_BATCH:
            raise AcesimError(f"--alpha-halving must be 0 or a multiple of {TRAIN_BATCH} games, got {self.alpha_halving}")
        check_seed(self.seed)
        check_loss(self.loss)
        self.fresh()  # checks sizes, objective, encoding and units

    def to_json(self) -> dict:
        one_rule_set = {} if self.reads_rules else {"reads_rules": False, "objective": self.objective}
        apart = {"split_points": True} if self.split_points else {}
        return {"anchors": [_rules_json(r) for r in self.anchors], "random_share": self.random_share,
                "games": self.games, "seed": self.seed, "hidden": list(self.hidden), "lambda": self.lam,
                "alpha": self.alpha, "width": self.width, "eval_every": self.eval_every,
                "eval_games": self.eval_games, "eval_mixes": self.eval_mixes,
                "checkpoint_every": self.checkpoint_every, "alpha_halving": self.alpha_halving,
                "start": self.start, "start_sha256": self.start_sha256, "encoding": self.encoding,
                "activation": self.activation, **loss_record(self.loss), **one_rule_set, **apart}

    @classmethod
    def from_json(cls, doc: dict) -> RunSettings:
        return cls(tuple(_rules_from_json(r) for r in doc["anchors"]), float(doc["random_share"]),
                   int(doc["games"]), int(doc["seed"]), (int(doc["hidden"][0]), int(doc["hidden"][1])),
                   float(doc["lambda"]), float(doc["alpha"]), int(doc["width"]), int(doc["eval_every"]),
                   int(doc["eval_games"]), int(doc["eval_mixes"]), int(doc["checkpoint_every"]),
                   int(doc.get("alpha_halving", 0)), str(doc.get("start", "")), str(doc.get("start_sha256", "")),
                   int(doc.get("encoding", 1)), str(doc.get("activation", DEFAULT_ACTIVATION)),
                   str(doc.get("loss", DEFAULT_LOSS)), bool(doc.get("reads_rules", True)),
                   str(doc.get("objective", "auto")), bool(doc.get("split_points", False)))


@dataclass
class TrainingRun:
    """A training run: its settings, its network so far, and what it has done."""

    settings: RunSettings
    array: np.ndarray
    knob_weights: np.ndarray | None  # the knob units' first-layer weights of a network that reads the rules
    command: str = ""
    done: int = 0
    totals: np.ndarray = field(default_factory=lambda: np.zeros(5, dtype=np.int64))
    seconds: float = 0.0
    evaluations: list[dict] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Games played and learned from."""
        return int(self.totals[0])

    @property
    def states(self) -> int:
        """Positions learned from."""
        return int(self.totals[1])

    def meta(self, workers: int) -> dict:
        """The ``meta`` of its model file: the training's story, and the state ``resume_run`` reads."""
        s = self.settings
        if s.reads_rules:
            kind = {"alpha_halving": s.alpha_halving, "hidden": list(s.hidden), "activation": s.activation,
                    "width": s.width, "objective": "auto", **loss_record(s.loss),
                    "anchors": [r.name for r in s.anchors], "random_share": s.random_share,
                    **({"split_points": True} if s.split_points else {})}
        else:
            kind = {**({"alpha_halving": s.alpha_halving} if s.alpha_halving else {}), "hidden": list(s.hidden),
                    "activation": s.activation, "width": s.width, "objective": s.objective, **loss_record(s.loss),
                    **({"split_points": True} if s.split_points else {})}
        return {
            "command": self.command,
            "training": {"games": self.games, "workers": workers, "seed": s.seed, "lambda": s.lam,
                         "alpha": s.alpha, **kind, **start_record(s.start, s.start_sha256),
                         "states": self.states, "unfinished": int(self.totals[2]),
                         "too_long": int(self.totals[3]), "seconds": round(self.seconds, 1)},
            "evaluations": self.evaluations,
            "training_state": {"settings": s.to_json(), "games_done": self.done,
                               "totals": [int(t) for t in self.totals], "seconds": self.seconds},
        }

    def save(self, path, workers: int) -> None:
        """Write the run's model file (atomically): format 2 reading the rules, else format 1 of its rule set."""
        if self.knob_weights is None:
            save_model(path, self.array, self.settings.anchors[0], self.meta(workers))
        else:
            save_rule_model(path, self.array, self.knob_weights, self.meta(workers))


def start_run(settings: RunSettings, command: str = "") -> TrainingRun:
    """A new run of ``settings``, its network drawn from the seed, or grown from the model ``settings.start``."""
    settings.check()
    if not settings.start:
        return TrainingRun(settings, *settings.fresh(), command)
    model = start_model(settings.start, None if settings.reads_rules else settings.anchors[0])
    if settings.start_sha256 and settings.start_sha256 != model.sha256:
        raise AcesimError(f"{settings.start} is not the model this run started from (its sha256 differs)")
    # a start network reads by its own encoding, or by a later one the run asks for (``reencoded``)
    own = int(model.array[N.M_ENCODING])
    # and keeps its points beyond 1 apart when it has them so (``split``)
    split_points = settings.split_points or int(model.array[N.M_OUTPUTS]) == N.SPLIT_POINTS
    settings = dataclasses.replace(settings, start_sha256=model.sha256, split_points=split_points,
                                   encoding=settings.encoding if own >= 1 and settings.encoding > own else own)
    return grown_run(settings, model.array, model.knob_weights, command)


def grown_run(settings: RunSettings, start: np.ndarray, start_knobs: np.ndarray | None = None,
              command: str = "") -> TrainingRun:
    """A new run of ``settings`` from the network ``start`` (and its knob weights, reading the rules), its
    hidden units converted to the run's and its layers grown to the run's sizes (``grown``); a network of
    other sizes, objective or encoding is one line."""
    fresh, fresh_knobs = settings.fresh()
    array = grown(with_activation(start, settings.activation), fresh)
    what = settings.start or "the start network"
    if fresh_knobs is None:
        refuse_other_network(what, array, fresh, settings.objective)
        return TrainingRun(settings, array, None, command)
    _refuse_other_sizes(what, (int(array[N.M_HIDDEN1]), int(array[N.M_HIDDEN2])), settings.hidden)
    old = start_knobs.shape[1]
    return TrainingRun(settings, array, np.hstack([start_knobs, fresh_knobs[:, old:]]), command)


def resume_run(path, games: int | None = None) -> TrainingRun:
    """The run a checkpoint (or a finished model of a run) holds, to continue to ``games`` (default: its own
    target).  Continued, it gives what the uninterrupted run would have."""
    model = load_model(path)
    state = model.meta.get("training_state")
    if not isinstance(state, dict):
        raise AcesimError(f"{path} is not a checkpoint of a training run")
    if model.untrained_units:
        raise AcesimError(f"{path} has no inputs for the knob values {', '.join(model.untrained_units)}: "
                          "start a new run")
    try:
        settings = RunSettings.from_json(state["settings"])
        done = int(state["games_done"])
        totals = np.array(state["totals"], dtype=np.int64)
        seconds = float(state["seconds"])
    except (KeyError, TypeError, ValueError, IndexError, AcesimError) as error:
        raise AcesimError(f"{path} has a damaged training state ({type(error).__name__})") from None
    if settings.reads_rules != model.reads_rules:
        raise AcesimError(f"{path} has a damaged training state (its network and its settings disagree)")
    if games is not None:
        if done % TRAIN_BATCH and games != done:
            raise AcesimError(f"{path} ended on a partial batch ({done:,} games): it cannot be continued")
        if games < done:
            raise AcesimError(f"{path} has played {done:,} games already; --games {games:,} is fewer")
        settings = dataclasses.replace(settings, games=games)
    settings.check()
    knob_weights = model.knob_weights.copy() if model.reads_rules else None
    return TrainingRun(settings, model.array.copy(), knob_weights, str(model.meta.get("command", "")),
                       done, totals, seconds, list(model.meta.get("evaluations", [])))


EVALUATION_MIX_KEY = 2**32 - 5  # the spawn key of the random mixes a run is evaluated under


def evaluation_rules(settings: RunSettings) -> list[Ruleset]:
    """The rule sets a run is evaluated under: its one rule set; reading the rules, every preset, then
    ``eval_mixes`` random mixes."""
    if not settings.reads_rules:
        return list(settings.anchors)
    mixes = [RI.random_rules(np.random.default_rng(np.random.SeedSequence(
        settings.seed, spawn_key=(EVALUATION_MIX_KEY, i))), f"mix{i + 1}") for i in range(settings.eval_mixes)]
    return [*PRESETS.values(), *mixes]


def evaluate_run(run: TrainingRun, backend=None) -> list[dict]:
    """The network against ``expert`` under each of ``evaluation_rules`` (``evaluate``), folded for each
    when it reads the rules."""
    s = run.settings
    results = []
    for rules in evaluation_rules(s):
        array = run.array if run.knob_weights is None else RI.fold(run.array, run.knob_weights, rules)
        result = evaluate(array, rules, "expert", s.eval_games, evaluation_seed(s.seed), s.width, backend)
        if s.reads_rules:
            result["rules"] = rules.name
            if rules.name not in PRESETS:
                result["knobs"] = rules.checker_knobs()
        result["after_games"] = run.done
        results.append(result)
    return results


def train_run(run: TrainingRun, checkpoint=None, workers: int = 1,
              progress: Callable[[int, list[dict] | None], None] | None = None) -> TrainingRun:
    """Train the run's network by TD(lambda) self-play until ``run.settings.games``, in place.

    Games are played in batches of ``TRAIN_BATCH`` with the weights frozen at
    the batch's start (spread over ``workers`` processes), then each game's
    updates are applied in game order (``kernels.train.td_updates``).  A
    network that reads the rules plays each batch under one rule set,
    ``rule_inputs.batch_rules(seed, batch index, ...)``: it is folded for it
    (``rule_inputs.fold``), plays and learns as a network of that rule set,
    and is unfolded (``rule_inputs.unfold``): SGD on the unfolded parameters,
    with the knob weights' updates summed over the batch and applied at its
    end.  Game ``g`` plays the dice of game ``g`` of the seed, so the result
    depends on the settings alone, never on the workers, the evaluations, the
    checkpoints, or where a run was resumed.  After the batch that completes
    each ``checkpoint_every`` games, and at the end, the run is written to
    ``checkpoint`` (``TrainingRun.save``, atomically).
    ``progress(games done, evaluations or None)`` follows each batch.
    """
    s = run.settings
    check_workers(workers)
    cross_entropy = np.bool_(check_loss(s.loss))  # a value, not a constant: one compiled kernel for both losses
    sc = worker_memory(s.width).search
    began = time.perf_counter() - run.seconds
    # SIGTERM stops training as Ctrl-C does: the workers are killed, nothing more is written
    with interruptible(), LocalProcesses(workers) as backend:
        while run.done < s.games:
            n = min(TRAIN_BATCH, s.games - run.done)  # batches never depend on the evaluations
            if run.knob_weights is None:
                rules, before, playing = s.anchors[0], None, run.array
            else:
                rules = RI.batch_rules(s.seed, run.done // TRAIN_BATCH, list(s.anchors), s.random_share)
                before = RI.fold(run.array, run.knob_weights, rules)
                playing = before.copy()
            tasks = [(playing, rules, s.seed, a, m, s.width) for a, m in _pieces(run.done, n, workers)]
            alpha, rules_array = s.step_size(run.done), rules.to_array()
            for traces, lengths, records in map_tasks(play_training_games, tasks, backend):
                T.td_updates(playing, rules_array, traces, lengths, records, s.lam, alpha, sc, run.totals,
                             cross_entropy)
            if before is not None:
                RI.unfold(run.array, run.knob_weights, before, playing, rules)
            previous, run.done = run.done, run.done + n
            run.seconds = time.perf_counter() - began
            evaluations = None
            if s.eval_every and (run.done // s.eval_every > previous // s.eval_every or run.done == s.games):
                evaluations = evaluate_run(run, backend)
                run.evaluations.extend(evaluations)
                run.seconds = time.perf_counter() - began
            every = s.checkpoint_every
            if checkpoint is not None and (run.done == s.games or (every and run.done // every > previous // every)):
                run.save(checkpoint, workers)
            if progress is not None:
                progress(run.done, evaluations)
    return run


def train(rules: Ruleset, games: int, seed: int, hidden: tuple[int, int] = DEFAULT_HIDDEN,
          lam: float = DEFAULT_LAMBDA, alpha: float = DEFAULT_ALPHA, width: int = TRAIN_WIDTH,
          eval_every: int = 0, eval_games: int = 1000, objective: str = "auto", workers: int = 1,
          encoding: int | None = None, activation: str | None = None, loss: str = DEFAULT_LOSS,
          start: np.ndarray | None = None) -> tuple[np.ndarray, TrainingRun]:
    """A network for ``rules`` alone trained by ``games`` games of self-play (``train_run``), and its run.

    Its weights are drawn from ``seed``, or are the network ``start`` (a network of ``rules``) grown to
    ``hidden`` (``grown_run``).  ``encoding``: by default the start's own, else ``ENCODING_VERSION``;
    ``activation``: by default the start's own, else logistic.  ``acesim train`` builds its runs from
    ``RunSettings`` the same way.
    """
    if encoding is None:
        encoding = N.ENCODING_VERSION if start is None else int(start[N.M_ENCODING])
    settings = RunSettings.of_rules(rules, games, seed, hidden=hidden, lam=lam, alpha=alpha, width=width,
                                    eval_every=eval_every, eval_games=eval_games, objective=objective,
                                    encoding=encoding, activation=run_activation(activation, start), loss=loss)
    settings.check()
    run = TrainingRun(settings, *settings.fresh()) if start is None else grown_run(settings, start)
    train_run(run, workers=workers)
    return run.array, run
