"""The equity model V: win probability of the side on roll, learned from simulated games.

Positions come from traced games (one per two-dice roll, seen by the side
about to roll) and are labelled with whether that side went on to win.  A
logistic model over ``kernels.dice_luck.INPUTS`` is fitted on the earlier games
and its calibration measured on later, held-out games (docs/statistics.md:
predicted vs observed win rate in ten bins, and the Brier score next to the
constant predictor's).  V is a win probability under every rule set; under
points-based scoring it still values wins, not points (stated in reports).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from acesim.analyses.logistic import LogisticFit, fit_logistic
from acesim.common.errors import AcesimError
from acesim.common.stats import per_game, ratio_ci
from acesim.engine.games import Traces, trace_games
from acesim.engine.model_files import load_model, model_path, shipped_for
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import Strategy, as_strategy
from acesim.kernels import dice_luck as LK, game_loop as K, net as NK
from acesim.kernels.net import LOGISTIC_TAG

def positions(traces: Traces) -> pd.DataFrame:
    """One row per traced roll: game, seat on roll, its model inputs, and whether it won."""
    rolls = traces.rolls
    x = np.zeros((len(rolls), LK.N_INPUTS))
    LK.equity_rows(np.ascontiguousarray(rolls[:, K.T_BOARD :]).astype(np.int8), x)
    counts = np.diff(traces.start)
    game = traces.roll_games()
    winner = np.repeat(traces.records[:, K.WINNER], counts)
    side = rolls[:, K.T_SIDE]
    frame = pd.DataFrame(x, columns=list(LK.INPUTS))
    frame.insert(0, "game", game)
    frame.insert(1, "side", side)
    frame["won"] = (winner == side).astype(np.int8)
    return frame


@dataclass(frozen=True)
class EquityModel:
    """A fitted V for one rule set: coefficients on the raw inputs, and how it was made."""

    rules: str
    strategy: str
    coef: np.ndarray  # intercept, then one slope per input of ``kernels.dice_luck.INPUTS``
    fit: LogisticFit
    train_games: int
    train_positions: int
    seed: int

    def predict(self, inputs: np.ndarray) -> np.ndarray:
        return self.fit.predict(inputs)

    @property
    def kernel_coef(self) -> np.ndarray:
        """The tagged array the luck kernels read (``kernels.dice_luck.equity``)."""
        return np.concatenate([[LOGISTIC_TAG], self.coef])


@dataclass(frozen=True)
class Calibration:
    """Held-out calibration of an equity model."""

    bins: pd.DataFrame  # bin, n, predicted mean, observed win rate with Wilson CI
    brier: float
    brier_constant: float  # the Brier score of always predicting the training win rate
    positions: int
    games: int
    # the reliability term of the Brier score's decomposition over the ten bins,
    # sum_b n_b (mean predicted_b - observed_b)^2 / n: 0 for a perfectly calibrated model
    reliability: float = float("nan")


@dataclass(frozen=True)
class LearnedEquity:
    """A learned network used as V: its output 0 is the side on roll's win probability."""

    rules: str
    path: str
    array: np.ndarray

    @property
    def kernel_coef(self) -> np.ndarray:
        return self.array

    def predict_boards(self, boards: np.ndarray) -> np.ndarray:
        out = np.zeros(len(boards))
        NK.win_probabilities(self.array, np.ascontiguousarray(boards).astype(np.int8), out)
        return out


@dataclass(frozen=True)
class EquityChoice:
    """The equity models of one rule set, each calibrated on the same held-out games, and the one used."""

    logistic: EquityModel
    chosen: str
    learned: LearnedEquity | None = None
    held_out: dict = field(default_factory=dict)  # model name ("logistic", "learned") -> its CalibrationSums
    base_rate: float = float("nan")  # the fit's games' win rate: the constant predictor of the Brier score

    @property
    def model(self) -> EquityModel | LearnedEquity:
        return self.learned if self.chosen == "learned" else self.logistic

    @property
    def calibrations(self) -> dict[str, Calibration]:
        """Each model's calibration on the held-out games, by name."""
        return {name: calibration_from_sums(sums) for name, sums in self.held_out.items()}

    @property
    def calibration(self) -> Calibration:
        return self.calibrations[self.chosen]


EQUITY_CHOICES = ("auto", "logistic", "learned:PATH")


def equity_models(
    rules: Ruleset,
    strategy: Strategy | str,
    games: int,
    seed: int,
    equity: str = "auto",
    holdout: float = 0.2,
    among: Sequence[Ruleset] = (),
    traces: Traces | None = None,
) -> EquityChoice:
    """Fit the logistic V, calibrate it and a learned network on the same held-out games, pick one.

    ``equity`` is ``logistic``, ``learned:PATH`` (a model file or a shipped
    model's name), or ``auto``: the shipped model that plays these rules
    (``model_files.shipped_for``) when one does, and then whichever of the two has the lower Brier score
    on the held-out games.  Luck needs a V that is both calibrated and sharp: the Brier score, a proper
    score, weighs both, while its reliability term alone (by which this chose until 2026-12-05) is a
    coin flip between two well-calibrated models, and a blunt V leaves much of the result to
    neither luck nor skill.  With ``among`` (every rule set of a comparison),
    ``auto`` offers the one shipped model that plays all of them, so that
    one comparison never measures its rule sets with different instruments.  ``traces``: the ``games``
    games ``trace_games`` plays from game 0 of ``seed``, when the caller has them (the report counts
    the doubles chosen in them too); else they are played here.
    """
    learned_model = None
    if equity.startswith("learned:"):
        learned_model = load_model(model_path(equity[len("learned:"):]))
        learned_model.check_rules(rules)
    elif equity in ("auto", "logistic"):
        learned_model = shipped_for(rules, *among)
    else:
        raise AcesimError(f"unknown equity model {equity!r}; use auto, logistic or learned:PATH")
    model, test, boards, base_rate = _fit(rules, strategy, games, seed, holdout, traces)
    learned = None
    if learned_model is not None:
        learned = LearnedEquity(rules.name, learned_model.path, learned_model.network(rules))
    held_out = _calibration_sums(test, _predictions(model, learned, test, boards), base_rate)
    calibrations = {name: calibration_from_sums(sums) for name, sums in held_out.items()}
    return EquityChoice(model, chosen_model(equity, calibrations), learned, held_out, base_rate)


def chosen_model(equity: str, calibrations: dict[str, Calibration]) -> str:
    """The model ``equity`` (``auto``, ``logistic`` or ``learned:PATH``) asks for among the calibrated ones:
    under ``auto`` the one of the lower Brier score."""
    if equity == "logistic" or "learned" not in calibrations:
        return "logistic"
    if equity.startswith("learned:"):
        return "learned"
    return "learned" if calibrations["learned"].brier < calibrations["logistic"].brier else "logistic"


def model_predictions(choice: EquityChoice, test: pd.DataFrame, boards: np.ndarray) -> dict[str, np.ndarray]:
    """Each of ``choice``'s models' V of the positions ``test`` (``positions``) and their ``boards``, by name."""
    return _predictions(choice.logistic, choice.learned, test, boards)


def held_out_sums(choice: EquityChoice, test: pd.DataFrame, predictions: dict[str, np.ndarray]) -> dict[str, CalibrationSums]:
    """The calibration sums of each of ``choice``'s models over the positions ``test`` (``positions`` of
    traced games the logistic model was not fitted on, which a report adds to the fit's own held-out games),
    from their ``predictions`` (``model_predictions``)."""
    return _calibration_sums(test, predictions, choice.base_rate)


def _predictions(logistic: EquityModel, learned: LearnedEquity | None, test: pd.DataFrame,
                 boards: np.ndarray) -> dict[str, np.ndarray]:
    out = {"logistic": logistic.predict(test[list(LK.INPUTS)].to_numpy())}
    if learned is not None:
        out["learned"] = learned.predict_boards(boards)
    return out


def _calibration_sums(test: pd.DataFrame, predictions: dict[str, np.ndarray],
                      base_rate: float) -> dict[str, CalibrationSums]:
    """Each model's calibration sums over the positions ``test``, from its ``predictions`` of them."""
    y, games = test["won"].to_numpy(), test["game"].to_numpy()
    return {name: calibration_sums(p, y, base_rate, games) for name, p in predictions.items()}


def fit_equity(
    rules: Ruleset,
    strategy: Strategy | str,
    games: int,
    seed: int,
    holdout: float = 0.2,
) -> tuple[EquityModel, Calibration]:
    """Fit V on ``games`` self-play games of ``strategy``; calibrate on the last ``holdout`` share."""
    model, test, _, base_rate = _fit(rules, strategy, games, seed, holdout)
    return model, calibrate(model, test, base_rate)


def _fit(rules, strategy, games, seed, holdout, traces=None):
    """The logistic V, the held-out positions (inputs and boards) and the training win rate."""
    if games < 10:
        raise AcesimError(f"the equity model needs at least 10 games, got {games}")
    if not 0 < holdout < 1:
        raise AcesimError(f"the held-out share must be between 0 and 1, got {holdout}")
    s = as_strategy(strategy)
    if traces is None:
        traces = trace_games(rules, s, s, seed, 0, games)
    frame = positions(traces)
    cut = traces.games[int(len(traces.games) * (1 - holdout))]
    held_out = (frame["game"] >= cut).to_numpy()
    train = frame[~held_out]
    test = frame[held_out]
    inputs = list(LK.INPUTS)
    fit = fit_logistic(train[inputs].to_numpy(), train["won"].to_numpy(), ridge=1e-4)
    intercept, slopes = fit.raw_coefficients()
    model = EquityModel(
        rules=rules.name,
        strategy=s.spec,
        coef=np.concatenate([[intercept], slopes]),
        fit=fit,
        train_games=int(train["game"].nunique()),
        train_positions=len(train),
        seed=seed,
    )
    return model, test, traces.rolls[held_out, K.T_BOARD :], float(train["won"].mean())


def calibrate(model: EquityModel, test: pd.DataFrame, base_rate: float) -> Calibration:
    """Predicted vs observed on held-out positions, in ten bins of predicted probability."""
    return calibrate_probabilities(model.predict(test[list(LK.INPUTS)].to_numpy()), test["won"].to_numpy(),
                                   base_rate, test)


def calibrate_probabilities(p: np.ndarray, y: np.ndarray, base_rate: float, test: pd.DataFrame) -> Calibration:
    """Calibration of predictions ``p`` of outcomes ``y`` (the held-out positions ``test``)."""
    return calibration_from_sums(calibration_sums(p, y, base_rate, test["game"].to_numpy()))


N_BINS = 10
_EDGES = np.linspace(0, 1, N_BINS + 1)


@dataclass(frozen=True)
class CalibrationSums:
    """What a calibration is made of, kept so that the parts of one set of held-out games add up
    (``merged_sums``): a report measures its equity models over games played in many tasks."""

    # per bin, the positions and the wins of each game that has positions in it (``per_game``)
    positions_per_game: tuple[np.ndarray, ...]
    won_per_game: tuple[np.ndarray, ...]
    predicted: np.ndarray  # the predictions summed in each bin
    squared_error: float  # sum of (p - y)^2 over the positions
    constant_error: float  # sum of (base rate - y)^2
    positions: int
    games: int


def calibration_sums(p: np.ndarray, y: np.ndarray, base_rate: float, games: np.ndarray) -> CalibrationSums:
    """The sums of a calibration of predictions ``p`` of outcomes ``y``, position ``i`` in game ``games[i]``."""
    which = np.clip(np.digitize(p, _EDGES) - 1, 0, N_BINS - 1)
    positions, won, predicted = [], [], np.zeros(N_BINS)
    for b in range(N_BINS):
        mask = which == b
        counts, wins = per_game(games[mask], y[mask])
        positions.append(counts)
        won.append(wins)
        predicted[b] = float(p[mask].sum())
    return CalibrationSums(tuple(positions), tuple(won), predicted, float(np.sum((p - y) ** 2)),
                           float(np.sum((base_rate - y) ** 2)), len(p), len(np.unique(games)))


def merged_sums(parts: Sequence[CalibrationSums]) -> CalibrationSums:
    """One calibration's sums from those of disjoint sets of games."""
    if len(parts) == 1:
        return parts[0]
    return CalibrationSums(
        tuple(np.concatenate([s.positions_per_game[b] for s in parts]) for b in range(N_BINS)),
        tuple(np.concatenate([s.won_per_game[b] for s in parts]) for b in range(N_BINS)),
        np.sum([s.predicted for s in parts], axis=0),
        sum(s.squared_error for s in parts), sum(s.constant_error for s in parts),
        sum(s.positions for s in parts), sum(s.games for s in parts),
    )


def calibration_from_sums(sums: CalibrationSums) -> Calibration:
    """Predicted against observed in ten bins of predicted probability, and the Brier scores.

    The positions of one game share its result, so a bin's observed win rate is a share over games
    (``common.stats.ratio_ci``), not over positions."""
    rows = []
    for b in range(N_BINS):
        positions, won = sums.positions_per_game[b], sums.won_per_game[b]
        n, wins = int(positions.sum()), int(won.sum())
        if n == 0:
            continue
        _, low, high = ratio_ci(won, positions)
        rows.append(
            dict(bin=f"{_EDGES[b]:.1f}-{_EDGES[b + 1]:.1f}", n=n, games=len(positions),
                 predicted=sums.predicted[b] / n, observed=wins / n, observed_low=low, observed_high=high)
        )
    bins = pd.DataFrame(rows)
    n = sums.positions
    reliability = float((bins["n"] * (bins["predicted"] - bins["observed"]) ** 2).sum() / n) if n else float("nan")
    return Calibration(
        bins=bins,
        brier=sums.squared_error / n if n else float("nan"),
        brier_constant=sums.constant_error / n if n else float("nan"),
        positions=n,
        games=sums.games,
        reliability=reliability,
    )
