"""Value of doubles and 1-2 rolls (docs/statistics.md, "Value of doubles and 1-2 rolls").

Every figure here is over the finished games of one rule set's records table
(``acesim.engine.games.play_games``).  Each game is seen from both sides: one row per
(game, side), with the side's doubles and 1-2 rolls minus its opponent's.  The
two rows of a game are mirror images, so resampling keeps them together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from acesim.analyses.logistic import ONE_BLAS_THREAD, fit_logistic, information, sigmoid
from acesim.common.errors import AcesimError
from acesim.common.stats import Z95, mean_ci, per_game, ratio_ci, wilson
from acesim.kernels.turn import N_ROLLS, ROLL_A, ROLL_B, ROLL_P

Difference = Literal["doubles_diff", "one_two_diff"]
DIFFERENCES: tuple[str, ...] = ("doubles_diff", "one_two_diff")
FACES = range(1, 7)

# Game length enters the models in units of this many rolls (both sides).
LENGTH_UNIT = 100.0

CONTROL = (
    "game length (rolls of both sides, centred at its mean, per 100 rolls) as an "
    "interaction with each difference; its main effect is zero by construction when "
    "both sides of every game are rows, so it is left out; first mover (±½) also in the model"
)

_TERMS = ("doubles_diff", "one_two_diff", "first_mover", "doubles_diff:length", "one_two_diff:length")
INTERVALS = {
    "robust": "cluster-robust over games (sandwich, delta method)",
    "bootstrap": "bootstrap percentiles over games",
}
_EFFECT_UNITS = {
    "doubles_diff": "one more double than the opponent",
    "one_two_diff": "one more 1-2 than the opponent",
    "first_mover": "moving first rather than second",
}


def _finished(df: pd.DataFrame) -> pd.DataFrame:
    """The finished games of one rule set (unfinished games have no winner)."""
    if "rules" in df.columns and df["rules"].nunique() > 1:
        names = ", ".join(map(str, df["rules"].unique()))
        raise AcesimError(f"bonus-roll analyses take one rule set at a time, got {names}")
    done = df[df["unfinished"] == 0] if "unfinished" in df.columns else df[df["winner"] >= 0]
    if len(done) == 0:
        raise AcesimError("no finished games to analyse")
    return done


def side_rows(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (finished game, side): the side's result and its dice against the opponent's.

    Columns: ``row`` (position of the game among the finished games; both rows
    of a game share it), ``game``, ``side`` ("a"/"b"), ``win`` (0/1),
    ``points`` (+points when the side won, −points when it lost),
    ``doubles``, ``one_two`` (the side's own counts), ``doubles_diff``,
    ``one_two_diff`` (side minus opponent), ``length`` (rolls of both sides)
    and ``first_mover`` (1 when the side moved first).  Rows come in pairs:
    row ``2i`` is seat A of game ``i``, row ``2i + 1`` seat B.
    """
    done = _finished(df)
    n = len(done)
    winner = done["winner"].to_numpy(np.int64)
    points = done["points"].to_numpy(np.int64)
    first = done["first_mover"].to_numpy(np.int64)
    length = done["rolls_a"].to_numpy(np.int64) + done["rolls_b"].to_numpy(np.int64)
    games = done["game"].to_numpy(np.int64) if "game" in done.columns else np.arange(n, dtype=np.int64)
    parts = []
    for seat, me, other in ((0, "a", "b"), (1, "b", "a")):
        won = (winner == seat).astype(np.int64)
        parts.append(
            pd.DataFrame(
                {
                    "row": np.arange(n, dtype=np.int64),
                    "game": games,
                    "side": me,
                    "win": won,
                    "points": np.where(won == 1, points, -points),
                    "doubles": done[f"doubles_{me}"].to_numpy(np.int64),
                    "one_two": done[f"one_two_{me}"].to_numpy(np.int64),
                    "doubles_diff": done[f"doubles_{me}"].to_numpy(np.int64) - done[f"doubles_{other}"].to_numpy(np.int64),
                    "one_two_diff": done[f"one_two_{me}"].to_numpy(np.int64) - done[f"one_two_{other}"].to_numpy(np.int64),
                    "length": length,
                    "first_mover": (first == seat).astype(np.int64),
                }
            )
        )
    rows = pd.concat(parts, ignore_index=True)
    order = np.argsort(rows["row"].to_numpy() * 2 + (rows["side"] == "b").to_numpy(), kind="stable")
    return rows.iloc[order].reset_index(drop=True)


def _bin_label(value: int, clip: int) -> str:
    if value <= -clip:
        return f"≤−{clip}"
    if value >= clip:
        return f"≥{clip}"
    return str(value).replace("-", "−")


def win_by_difference(df: pd.DataFrame, column: Difference = "one_two_diff", clip: int = 4) -> pd.DataFrame:
    """Win rate and signed points of a side by its lead in doubles or 1-2 rolls, binned.

    Leads beyond ``±clip`` share the end bins (labelled ``≤−k`` and ``≥k``).
    A game sits once in bin ``d`` and once in bin ``−d``, so the table is a
    mirror image about 0, and within a bin other than 0 every row is a
    different game (the Wilson interval and the mean interval of
    docs/statistics.md apply).  Bin 0 holds both sides of each tied game: its win
    rate is ½ and its mean points 0 by construction, and its interval is that
    single value.

    Columns: ``variable``, ``bin`` (the clipped difference), ``label``, ``n``
    (sides in the bin), ``games`` (distinct games: ``n``, or ``n / 2`` in bin
    0), ``wins``, ``win_rate``, ``ci95_low``, ``ci95_high``,
    ``mean_points``, ``points_ci95_low``, ``points_ci95_high``,
    ``median_points`` (points are heavy-tailed under per-checker scoring).
    """
    if column not in DIFFERENCES:
        raise AcesimError(f"column must be one of {', '.join(DIFFERENCES)}, got {column!r}")
    if clip < 1:
        raise AcesimError(f"clip must be at least 1, got {clip}")
    rows = side_rows(df)
    binned = rows[column].clip(-clip, clip)
    out = []
    for value in range(-clip, clip + 1):
        mine = rows[binned == value]
        wins = int(mine["win"].sum())
        pts = mine["points"].to_numpy(np.float64)
        n = len(mine)
        rate = wins / n if n else np.nan
        if value == 0:  # both sides of each tied game: ½ and 0 by construction
            low = high = rate
            mean = 0.0 if n else np.nan
            p_low = p_high = mean
        else:
            low, high = wilson(wins, n)
            mean, p_low, p_high = mean_ci(n, float(pts.sum()), float((pts * pts).sum()))
        out.append(
            {
                "variable": column,
                "bin": value,
                "label": _bin_label(value, clip),
                "n": n,
                "games": n // 2 if value == 0 else n,
                "wins": wins,
                "win_rate": rate,
                "ci95_low": low,
                "ci95_high": high,
                "mean_points": mean,
                "points_ci95_low": p_low,
                "points_ci95_high": p_high,
                "median_points": float(np.median(pts)) if len(pts) else np.nan,
            }
        )
    return pd.DataFrame(out)


# --- the model -----------------------------------------------------------------------


def _design(doubles: np.ndarray, one_two: np.ndarray, first: np.ndarray, length_c: np.ndarray) -> np.ndarray:
    """Columns in the order of ``_TERMS`` (no intercept)."""
    return np.column_stack([doubles, one_two, first, doubles * length_c, one_two * length_c])


def _unit_steps(
    doubles: np.ndarray, one_two: np.ndarray, first: np.ndarray, length_c: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The designs half a unit above and below each row's value, for the doubles and 1-2
    differences and for the first-mover flag (first against second)."""
    half = 0.5
    steps = []
    for which in range(2):
        up = [doubles, one_two]
        down = [doubles, one_two]
        up[which] = up[which] + half
        down[which] = down[which] - half
        steps.append((_design(*up, first, length_c), _design(*down, first, length_c)))
    ones = np.full_like(first, half)
    steps.append((_design(doubles, one_two, ones, length_c), _design(doubles, one_two, -ones, length_c)))
    return steps


def _unit_effects(
    predict: Callable[[np.ndarray], np.ndarray],
    doubles: np.ndarray,
    one_two: np.ndarray,
    first: np.ndarray,
    length_c: np.ndarray,
) -> np.ndarray:
    """Average change in the prediction for a one-unit change centred at each row's value.

    ``mean(f(x + ½) − f(x − ½))`` for the doubles and 1-2 differences and for
    the first-mover flag (from second to first).  Unlike the derivative, it
    stays within ±1 for a probability even when the data separate.
    """
    return np.asarray([np.mean(predict(up) - predict(down))
                       for up, down in _unit_steps(doubles, one_two, first, length_c)])


def _columns(rows: dict[str, np.ndarray], pick: np.ndarray) -> tuple[np.ndarray, ...]:
    """The rows ``pick``'s two differences, first-mover flag (±½) and centred length, and their design."""
    doubles = rows["doubles_diff"][pick]
    one_two = rows["one_two_diff"][pick]
    first = rows["first_mover"][pick] - 0.5
    length = rows["length"][pick] / LENGTH_UNIT
    length_c = length - length.mean()
    return doubles, one_two, first, length_c, _design(doubles, one_two, first, length_c)


def _least_squares(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Intercept and slopes of ``y ~ x``."""
    design = np.column_stack([np.ones(len(x)), x])
    # normal equations (a 6 x 6 system); lstsq there copes with a constant difference column
    beta, *_ = np.linalg.lstsq(design.T @ design, design.T @ y, rcond=None)
    return beta


@ONE_BLAS_THREAD
def _fit_once(rows: dict[str, np.ndarray], index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Both models on the games ``index``: (logit slopes, win effects, ls slopes, points effects)."""
    pick = np.concatenate([2 * index, 2 * index + 1])
    doubles, one_two, first, length_c, x = _columns(rows, pick)

    logit = fit_logistic(x, rows["win"][pick])
    _, logit_slopes = logit.raw_coefficients()
    win_effects = _unit_effects(logit.predict, doubles, one_two, first, length_c)

    beta = _least_squares(x, rows["points"][pick])
    points_effects = _unit_effects(lambda z: beta[0] + z @ beta[1:], doubles, one_two, first, length_c)
    return logit_slopes, win_effects, beta[1:], points_effects


@ONE_BLAS_THREAD
def _robust_once(rows: dict[str, np.ndarray]) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """Both models on every game, and each estimate's influence of each game.

    Returns ``(estimates, influences)``, each in ``_fit_once``'s order (logit
    slopes, win effects, least-squares slopes, points effects); an influence is a
    ``(games, terms)`` array whose column sums of squares, times ``G / (G - 1)``,
    are the estimates' cluster-robust variances over the ``G`` games.

    Each model's coefficients move by ``bread @ score_g`` with game ``g``'s score
    (the sandwich).  An average marginal effect moves by its rows' own spread
    about it and by its gradient times the coefficients' move (the delta
    method, unconditional on the rows).  The coefficient of a difference is read
    at the mean game length, an estimate too: its interaction's slope times the
    game's pull on that mean adds to it.  Least squares differs only in its
    bread and residuals.
    """
    games = len(rows["win"]) // 2
    game = np.arange(2 * games) // 2
    doubles, one_two, first, length_c, x = _columns(rows, np.arange(2 * games))
    # both rows of a game have its length, so a game's pull on the mean length is its own offset
    centre_pull = length_c[::2] / games

    def by_game(values: np.ndarray) -> np.ndarray:
        out = np.zeros((games,) + values.shape[1:])
        np.add.at(out, game, values)
        return out

    steps = _unit_steps(doubles, one_two, first, length_c)

    def effects(predict: Callable[[np.ndarray], np.ndarray], gradient: Callable[[np.ndarray], np.ndarray],
                moves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values, influence = [], []
        for up, down in steps:
            change = predict(up) - predict(down)
            mean = float(change.mean())
            slope = (gradient(up) - gradient(down)).mean(axis=0)
            values.append(mean)
            influence.append(by_game(change - mean) / len(change) + moves @ slope)
        return np.asarray(values), np.column_stack(influence)

    def at_mean_length(slopes: np.ndarray, moves: np.ndarray) -> np.ndarray:
        """Coefficient influences, with the mean length's own for the two differences."""
        out = moves.copy()
        out[:, 0] += slopes[3] * centre_pull
        out[:, 1] += slopes[4] * centre_pull
        return out

    logit = fit_logistic(x, rows["win"])
    design = logit.design(x)
    mu = sigmoid(design @ logit.coef)
    # per game: the standardised coefficients' move, then the slopes' on the original columns
    moves = np.linalg.solve(information(design, mu), by_game(design * (rows["win"] - mu)[:, None]).T).T
    _, logit_slopes = logit.raw_coefficients()
    slope_moves = at_mean_length(logit_slopes, moves[:, 1:] / logit.scale)

    def logistic_gradient(d: np.ndarray) -> np.ndarray:
        p = logit.predict(d)
        return logit.design(d) * (p * (1 - p))[:, None]

    win_effects, win_moves = effects(logit.predict, logistic_gradient, moves)

    full = np.column_stack([np.ones(len(x)), x])
    bread = np.linalg.pinv(full.T @ full)
    beta = _least_squares(x, rows["points"])
    residual = rows["points"] - full @ beta
    ls_moves = by_game(full * residual[:, None]) @ bread
    points_effects, points_moves = effects(lambda d: beta[0] + d @ beta[1:], lambda d: np.column_stack(
        [np.ones(len(d)), d]), ls_moves)
    estimates = (logit_slopes, win_effects, beta[1:], points_effects)
    influences = (slope_moves, win_moves, at_mean_length(beta[1:], ls_moves[:, 1:]), points_moves)
    return estimates, influences


def bonus_model(df: pd.DataFrame, bootstrap: int = 0, seed: int = 0) -> pd.DataFrame:
    """What one more double or one more 1-2 than the opponent is worth, with 95% intervals over games.

    Two models over ``side_rows(df)``, each on the two differences, the
    first-mover flag and game length (see ``CONTROL``): a logistic regression
    of ``win`` and a least-squares fit of signed ``points``.  A term's
    ``effect`` is its average marginal effect — the mean change in the
    prediction for a one-unit change centred at each row's value — in
    percentage points of win probability (logistic) or in points
    (least squares).  The game is the sampling unit (its two rows are mirror
    images).  By default the intervals are cluster-robust over games: the
    sandwich estimator for the coefficients and the delta method for the
    effects (``_robust_once``), estimate ± 1.96 standard errors, with no
    Monte Carlo noise.  ``bootstrap`` (at least 200) asks instead for
    bootstrap percentiles (2.5 %, 97.5 %) over that many resamples of games,
    drawn from ``numpy.random.default_rng(seed)``.

    One row per (model, term).  Columns: ``model`` ("win" or "points"),
    ``term``, ``coefficient`` (log-odds or points per unit, at the mean game
    length for the differences), ``coef_ci95_low``, ``coef_ci95_high``,
    ``effect``, ``effect_ci95_low``, ``effect_ci95_high`` (NaN for the length
    interactions), ``effect_unit``, ``games``, ``interval`` (``INTERVALS``'s
    name of the method), ``resamples`` (0 for the cluster-robust intervals),
    ``control``.
    """
    if bootstrap and bootstrap < 200:
        raise AcesimError(f"the bootstrap needs at least 200 resamples, got {bootstrap}")
    table = side_rows(df)
    games = len(table) // 2
    if games < 2:
        raise AcesimError(f"the model needs at least two finished games, got {games}")
    rows = {c: table[c].to_numpy(np.float64) for c in ("win", "points", "doubles_diff", "one_two_diff", "length", "first_mover")}
    if bootstrap:
        estimate = _fit_once(rows, np.arange(games))
        rng = np.random.default_rng(seed)
        draws = [_fit_once(rows, rng.integers(0, games, games)) for _ in range(bootstrap)]

        def bounds(slot: int) -> tuple[np.ndarray, np.ndarray]:
            values = np.array([d[slot] for d in draws])
            return np.percentile(values, 2.5, axis=0), np.percentile(values, 97.5, axis=0)
    else:
        estimate, influences = _robust_once(rows)

        def bounds(slot: int) -> tuple[np.ndarray, np.ndarray]:
            se = np.sqrt(games / (games - 1) * (influences[slot] ** 2).sum(axis=0))
            return estimate[slot] - Z95 * se, estimate[slot] + Z95 * se
    method = INTERVALS["bootstrap" if bootstrap else "robust"]
    out = []
    for model, slot, effect_slot, scale, unit in (
        ("win", 0, 1, 100.0, "percentage points of win probability per "),
        ("points", 2, 3, 1.0, "points per game per "),
    ):
        coef_low, coef_high = bounds(slot)
        effect_low, effect_high = (b * scale for b in bounds(effect_slot))
        for k, term in enumerate(_TERMS):
            has_effect = k < 3
            row = {
                "model": model,
                "term": term,
                "coefficient": float(estimate[slot][k]),
                "coef_ci95_low": float(coef_low[k]),
                "coef_ci95_high": float(coef_high[k]),
                "effect": float(estimate[effect_slot][k] * scale) if has_effect else np.nan,
                "effect_ci95_low": float(effect_low[k]) if has_effect else np.nan,
                "effect_ci95_high": float(effect_high[k]) if has_effect else np.nan,
                "effect_unit": unit + _EFFECT_UNITS[term] if has_effect else "",
                "games": games,
                "interval": method,
                "resamples": bootstrap,
                "control": CONTROL,
            }
            out.append(row)
    return pd.DataFrame(out)


def chosen_doubles_by_phase(rolls: pd.DataFrame) -> pd.DataFrame:
    """The double played after each 1-2, by the game phase the 1-2 was rolled in.

    ``rolls`` has the ``game``, ``phase`` and ``bonus_double`` columns of ``analyses.luck.trace_luck``'s
    per-roll table (``luck.bonus_choices`` gives them for traced games not valued).  Columns: ``phase``,
    ``face``, ``chosen``, ``total`` (1-2 bonuses played in that phase), ``games`` (games they were played
    in), ``share``, ``ci95_low``, ``ci95_high``: the choices of one game are not independent, so each share
    is a ratio over games (``common.stats.ratio_ci``).
    """
    bonus = rolls[(rolls["bonus_double"] > 0)]
    out = []
    for phase, group in bonus.groupby("phase", sort=False):
        total = len(group)
        faces = group["bonus_double"].to_numpy()
        per_game_total, *per_face = per_game(group["game"].to_numpy(), *((faces == face) for face in FACES))
        for face, chosen in zip(FACES, per_face):
            share, low, high = ratio_ci(chosen, per_game_total)
            out.append(
                {"phase": phase, "face": face, "chosen": int(chosen.sum()), "total": total,
                 "games": len(per_game_total), "share": share, "ci95_low": low, "ci95_high": high}
            )
    return pd.DataFrame(out, columns=["phase", "face", "chosen", "total", "games", "share", "ci95_low",
                                      "ci95_high"])


# The fewest clusters of games the roll values' intervals are over: games are independent, and so are
# blocks of them, whose sums are what a report keeps of millions of rolls (``roll_block``).
ROLL_BLOCKS = 2_000


# the index of each roll among the 21 (``ROLL_A``, ``ROLL_B``), by its two dice in either order
_ROLL_OF = np.zeros((7, 7), dtype=np.int64)
_ROLL_OF[ROLL_A, ROLL_B] = _ROLL_OF[ROLL_B, ROLL_A] = np.arange(N_ROLLS)


def roll_indices(die_a: np.ndarray, die_b: np.ndarray) -> np.ndarray:
    """The index among the 21 rolls of each pair of dice (``kernels.turn.roll_index``, for arrays)."""
    return _ROLL_OF[die_a, die_b]


def roll_block(games: int) -> int:
    """How many games a cluster of the roll values' intervals holds when ``games`` games are traced: one,
    up to ``ROLL_BLOCKS`` games; then blocks of consecutive games, at least ``ROLL_BLOCKS`` of them."""
    return max(1, games // ROLL_BLOCKS)


@dataclass(frozen=True)
class DiceSums:
    """What the value of each roll is estimated from (``roll_values``): sums over the rolls of traced games
    that add up across sets of games (``merged_dice_sums``).  For each roll ``k`` (the roll ``r_k`` that
    came, in the state ``s_k``), ``y_k = W(s_k, r_k) - V(s_k)`` and the covariates ``x_k``
    (``analyses.luck.ROLL_COVARIATES``) of ``s_k``; per roll ``r``, the moments of the least-squares fit
    of ``y`` on ``[1, x]`` over the rolls where ``r`` came; per block of games (``roll_block``), the sums
    the interval needs."""

    blocks: np.ndarray  # block indices (game // block), sorted
    counts: np.ndarray  # (blocks, 21): the rolls of each block where each roll came
    y: np.ndarray  # (blocks, 21): their y summed
    x: np.ndarray  # (blocks, 21, covariates): their x summed
    xtx: np.ndarray  # (21, covariates + 1, covariates + 1): [1, x]'[1, x] over the rolls where each came
    xty: np.ndarray  # (21, covariates + 1): [1, x]'y
    v: float  # V summed over every roll
    games: int


@ONE_BLAS_THREAD  # a product over several threads would differ in its last bits, and spin
def dice_sums(games: np.ndarray, die_a: np.ndarray, die_b: np.ndarray, ys: Sequence[np.ndarray],
              vs: Sequence[np.ndarray], x: np.ndarray, block: int = 1) -> list[DiceSums]:
    """The ``DiceSums`` of rolls (none an opening roll) of the games ``games``, the dice ``die_a``,
    ``die_b`` and the covariates ``x`` of each, one for each pair of ``y = W - V`` and ``V`` of ``ys`` and
    ``vs`` (one a model: the covariates' parts are computed once); ``block`` games a cluster."""
    roll = roll_indices(die_a, die_b)
    blocks, which = np.unique(np.asarray(games) // block, return_inverse=True)
    cell = which * N_ROLLS + roll
    size = len(blocks) * N_ROLLS
    counts = np.bincount(cell, minlength=size).reshape(len(blocks), N_ROLLS).astype(np.float64)
    x_sums = np.stack([np.bincount(cell, weights=x[:, j], minlength=size) for j in range(x.shape[1])],
                      axis=-1).reshape(len(blocks), N_ROLLS, x.shape[1])
    # the rolls grouped by the roll that came, in their order, so that each roll's rows are one slice
    order = np.argsort(roll, kind="stable")
    cuts = np.searchsorted(roll[order], np.arange(N_ROLLS + 1))
    design = np.column_stack([np.ones(len(roll)), x])[order]
    parts = [design[cuts[r] : cuts[r + 1]] for r in range(N_ROLLS)]
    xtx = np.stack([part.T @ part for part in parts])
    n_games = len(np.unique(games))
    out = []
    for y, v in zip(ys, vs):
        y_sums = np.bincount(cell, weights=y, minlength=size).reshape(len(blocks), N_ROLLS)
        ordered = y[order]
        xty = np.stack([part.T @ ordered[cuts[r] : cuts[r + 1]] for r, part in enumerate(parts)])
        out.append(DiceSums(blocks, counts, y_sums, x_sums, xtx, xty, float(np.sum(v)), n_games))
    return out


def merged_dice_sums(parts: Sequence[DiceSums]) -> DiceSums:
    """One ``DiceSums`` from those of disjoint sets of games (a block's games may lie in several)."""
    blocks, which = np.unique(np.concatenate([p.blocks for p in parts]), return_inverse=True)

    def per_block(name: str) -> np.ndarray:
        stacked = np.concatenate([getattr(p, name) for p in parts])
        out = np.zeros((len(blocks), *stacked.shape[1:]))
        np.add.at(out, which, stacked)
        return out

    return DiceSums(blocks, per_block("counts"), per_block("y"), per_block("x"), sum(p.xtx for p in parts),
                    sum(p.xty for p in parts), sum(p.v for p in parts), sum(p.games for p in parts))


@ONE_BLAS_THREAD  # a product over several threads would differ in its last bits, and spin
def roll_values(sums: DiceSums) -> pd.DataFrame:
    """The equity value of each of the 21 rolls (docs/statistics.md): its mean gain over the average roll,
    ``E_s[W(s, r)] - sum_r' p(r') E_s[W(s, r')]`` over the states in which a roll is made (opening rolls
    left out: their dice cannot be doubles).

    The dice are drawn independently of the state, so the states in which ``r`` came are a sample of all
    of them: ``E_s[W(s, r)] - E[V]`` is the mean of ``y = W - V`` over the rolls where ``r`` came, here its
    regression estimator on the covariates, whose mean over every roll is known (Cochran, *Sampling
    Techniques*, 12.6): ``m_r = a_r + b_r·x̄``, ``(a_r, b_r)`` the least-squares fit of ``y`` on ``x``
    where ``r`` came, ``x̄`` the mean over all rolls.  V cancels from the value and only narrows it: ``y``
    is the roll's gain plus V's error against its own look-ahead, far less spread than W.  The interval
    is the delta method's over games or blocks of them (``roll_block``), since the rolls of one game are
    not independent.
    Columns: ``die_1``, ``die_2`` (die_1 <= die_2), ``value``, ``ci95_low``, ``ci95_high``, ``states``
    (the rolls), ``games``, ``win_probability`` (``E_s[W(s, r)]``).
    """
    n_blocks = len(sums.blocks)
    if n_blocks < 2:
        raise AcesimError(f"roll values need the rolls of at least 2 games, got {n_blocks}")
    per_roll = sums.counts.sum(axis=0)
    if (per_roll == 0).any():
        missing = [f"{ROLL_A[r]}-{ROLL_B[r]}" for r in np.flatnonzero(per_roll == 0)]
        raise AcesimError(f"roll values need every roll to have come; never came: {', '.join(missing)}")
    n = per_roll.sum()
    block_x = sums.x.sum(axis=1)  # (blocks, covariates)
    x_mean = block_x.sum(axis=0) / n
    block_n = sums.counts.sum(axis=1)
    means = np.zeros(N_ROLLS)
    influence = np.zeros((N_ROLLS, n_blocks))
    for r in range(N_ROLLS):
        coef = np.linalg.lstsq(sums.xtx[r], sums.xty[r], rcond=None)[0]
        a, b = coef[0], coef[1:]
        means[r] = a + x_mean @ b
        residual = sums.y[:, r] - a * sums.counts[:, r] - sums.x[:, r] @ b
        influence[r] = residual / per_roll[r] + (block_x - np.outer(block_n, x_mean)) @ b / n
    values = means - ROLL_P @ means
    spread = influence - ROLL_P @ influence
    half = Z95 * np.sqrt(n_blocks / (n_blocks - 1) * np.sum(spread ** 2, axis=1))
    win = means + sums.v / n
    return pd.DataFrame({"die_1": ROLL_A, "die_2": ROLL_B, "value": values, "ci95_low": values - half,
                         "ci95_high": values + half, "states": int(n), "games": sums.games,
                         "win_probability": win})
