"""Per-roll luck (the gnubg / Zare measure) and the luck-adjusted result (docs/statistics.md).

For roll ``k`` of a game, by seat ``s_k`` in state ``x_k``::

    luck_k  = W(x_k, r_k) - sum_r p(r) W(x_k, r)
    L_A     = sum of A's luck,  L_B likewise,  net luck N = L_A - L_B  (N_B = -N_A)

Seen from seat A, the value before roll k is ``a_k = V(x_k)`` if A rolls
(else ``1 - V(x_k)``) and after it the value of the position that followed;
these telescope, so for every finished game::

    result_A - a_0 = N + P + M

with ``P`` (play) the sum over rolls of ``+-(value of what followed - W(x_k, r_k))``
-- zero when the strategy plays as it is valued; non-zero only by the die of a
``roll-die`` bonus, which W averages, and under the cube by a dropped double,
whose result follows the last roll (a decision, not luck) -- and ``M`` (model) the sum of
``+-(sum_r p(r) W(x_k, r) - V(x_k))``: how far V is from its own one-roll
look-ahead.  The luck-adjusted result is ``result_A - N``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from acesim.analyses.bonus import DiceSums, dice_sums, roll_indices
from acesim.analyses.equity import EquityModel
from acesim.common.errors import AcesimError
from acesim.common.stats import Z95, wilson
from acesim.engine.games import Traces
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import Strategy, as_strategy, lowered
from acesim.kernels import dice_luck as LK, game_loop as K
from acesim.kernels.choice import RANDOM
from acesim.kernels.layout import BAR, HOME_TOP, N_POINTS, OPP_BAR, OPP_WAITING, WAITING
from acesim.kernels.memory import keep_memory, pairing_memory

FORMULAS = (
    "luck(s, r) = W(s, r) - sum_r' p(r') W(s, r'),  p = 1/36 for a double, 2/36 otherwise "
    "(1/15 over the non-doubles for opening dice under opening = use)",
    "net luck N = L_A - L_B, the sum of A's luck minus the sum of B's (N_B = -N_A)",
    "result_A - V_A(start) = N + P + M  (P: play term, zero for strategies that play as valued; "
    "M: model term, V against its own one-roll look-ahead)",
    "luck-adjusted result = result_A - N",
)


def trace_luck(
    rules: Ruleset, traces: Traces, strategy_a: Strategy | str, strategy_b: Strategy | str,
    model: EquityModel,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-roll and per-game luck of traced games.

    Returns ``(rolls, games)``: ``rolls`` has one row per roll (game, side,
    V, W of the roll that came, mean W, value after, luck, and the 21 W's
    as ``w_AB`` columns); ``games`` one row per game (see ``game_luck``).
    """
    seats, ra, memory, choices = _valuing(rules, strategy_a, strategy_b)
    n_rolls = len(traces.rolls)
    rows = np.zeros((n_rolls, LK.LUCK_WIDTH))
    values = np.zeros((n_rolls, LK.N_ROLLS))
    for i in range(len(traces.games)):
        lo, hi = traces.start[i], traces.start[i + 1]
        memory = LK.trace_luck(
            traces.rolls[lo:hi], hi - lo, traces.records[i, K.WINNER], ra, seats, model.kernel_coef, choices,
            memory, rows[lo:hi], values[lo:hi],
        )
    keep_memory(memory)
    rolls = pd.DataFrame(
        {
            "game": traces.roll_games(),
            "side": rows[:, LK.L_SIDE].astype(np.int8),
            "die_a": traces.rolls[:, K.T_DIE_A],
            "die_b": traces.rolls[:, K.T_DIE_B],
            "opening": traces.rolls[:, K.T_OPENING].astype(bool),
            "bonus_double": traces.rolls[:, K.T_BONUS_DOUBLE],
            "phase": phases(traces.rolls[:, K.T_BOARD :]),
            "v": rows[:, LK.L_V],
            "w_roll": rows[:, LK.L_W_ROLL],
            "w_mean": rows[:, LK.L_W_MEAN],
            "w_after": rows[:, LK.L_W_AFTER],
        }
    )
    rolls["luck"] = rolls["w_roll"] - rolls["w_mean"]
    for r in range(LK.N_ROLLS):
        rolls[f"w_{LK.ROLL_A[r]}{LK.ROLL_B[r]}"] = values[:, r]
    return rolls, game_luck(rolls, traces)


PHASES = ("entering", "contact", "race", "bear-off")


def values_after(rules: Ruleset, traces: Traces, strategy: Strategy | str, model: EquityModel,
                 v: np.ndarray) -> np.ndarray:
    """``W(s_k, r_k)`` of every roll of ``traces`` (``strategy`` on both sides), from ``v``, the model's V
    of each traced position: V of the next position from the roller's side, or 1 after the roll that won
    the game.  A game ended by a dropped double has its result from a decision, not from its last roll:
    that roll is valued as ``trace_luck`` values every roll (``dice_luck.value_rows``)."""
    side = traces.rolls[:, K.T_SIDE]
    following = np.roll(v, -1)
    w = np.where(np.roll(side, -1) == side, following, 1.0 - following)
    last = traces.start[1:] - 1
    w[last] = (traces.records[:, K.WINNER] == side[last]).astype(np.float64)
    dropped = last[traces.records[:, K.DROPPED_DOUBLE] == 1]
    if len(dropped):
        rows = np.ascontiguousarray(traces.rolls[dropped])
        seats, ra, memory, choices = _valuing(rules, strategy, strategy)
        values = np.zeros((len(rows), LK.N_ROLLS))
        keep_memory(LK.value_rows(rows, len(rows), ra, seats, model.kernel_coef, choices, memory, values))
        w[dropped] = values[np.arange(len(rows)), roll_indices(rows[:, K.T_DIE_A], rows[:, K.T_DIE_B])]
    return w


def roll_dice_sums(rules: Ruleset, traces: Traces, strategy: Strategy | str, models: dict[str, EquityModel],
                   predictions: dict[str, np.ndarray], inputs: np.ndarray, covariate: str,
                   block: int = 1) -> dict[str, DiceSums]:
    """Each model's ``bonus.DiceSums`` of the rolls of ``traces`` but the opening ones: ``models`` by name,
    ``predictions`` their V of every traced position, ``inputs`` the positions' equity inputs, the
    covariates' V that of the model named ``covariate``, the same for every model; ``block`` games a
    cluster (``bonus.roll_block``)."""
    boards = traces.rolls[:, K.T_BOARD :]
    x = roll_covariates(inputs, boards, predictions[covariate])
    keep = traces.rolls[:, K.T_OPENING] == 0
    games = traces.roll_games()[keep]
    a, b = traces.rolls[keep, K.T_DIE_A], traces.rolls[keep, K.T_DIE_B]
    ys = [(values_after(rules, traces, strategy, model, predictions[name]) - predictions[name])[keep]
          for name, model in models.items()]
    vs = [predictions[name][keep] for name in models]
    return dict(zip(models, dice_sums(games, a, b, ys, vs, x[keep], block)))


# The covariates of the roll values' regression estimator (``bonus.roll_values``): the equity model's inputs,
# the phase, and V with its square, which follow how much a roll can change (a race, a prime, the dice
# needed to enter); the columns of ``roll_covariates``, in this order.
ROLL_COVARIATES = (*LK.INPUTS, "entering", "contact", "race", "v", "v_squared")


def roll_covariates(inputs: np.ndarray, boards: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``ROLL_COVARIATES`` of each board: its equity ``inputs`` (``LK.equity_rows``), its phase, and ``v``
    (the side on roll's win probability by an equity model)."""
    phase = phases(boards)
    return np.column_stack([inputs, *((phase == p) for p in PHASES[:3]), v, v * v]).astype(np.float64)


def _valuing(rules: Ruleset, strategy_a: Strategy | str, strategy_b: Strategy | str) -> tuple:
    """What the kernels that value every roll need: ``(seats, rules' array, memory, choices)``; refuses
    the strategies whose plays cannot be valued one roll at a time."""
    a, b = as_strategy(strategy_a), as_strategy(strategy_b)
    for s in (a, b):
        s.refuse_deeper("per-roll luck values each roll by the player's own 1-ply search, which a ply-2 player "
                        "does not play by")
    if RANDOM in (a.kind, b.kind):
        raise AcesimError(
            "per-roll luck needs strategies that play deterministically; 'random' has no single play "
            "to value"
        )
    seats = lowered(a, b, rules)
    choices = np.array([1, 2, 3, 4], dtype=np.uint64)  # never drawn from by deterministic strategies
    return seats, rules.to_array(), pairing_memory(seats), choices


def bonus_choices(traces: Traces) -> pd.DataFrame:
    """The double played after each 1-2 of ``traces``, the game and the phase it was rolled in: the
    columns ``game``, ``bonus_double`` and ``phase`` of ``trace_luck``'s table, for games whose rolls were
    not valued."""
    bonus = traces.rolls[:, K.T_BONUS_DOUBLE] > 0
    rolls = traces.rolls[bonus]
    return pd.DataFrame({"game": traces.roll_games()[bonus],
                         "bonus_double": rolls[:, K.T_BONUS_DOUBLE], "phase": phases(rolls[:, K.T_BOARD :])})


def phases(boards: np.ndarray) -> np.ndarray:
    """The game phase of each board, for the side on roll.

    ``entering`` while it still has checkers waiting to enter; ``contact``
    while one of its checkers still has an opposing checker ahead of it;
    ``race`` after that until all its checkers are home; then ``bear-off``.
    """
    points = boards[:, :N_POINTS]
    index = np.arange(1, N_POINTS + 1)
    outside = boards[:, BAR] + boards[:, WAITING]
    mine_back = np.where(outside > 0, N_POINTS + 1, np.where(points > 0, index, 0).max(axis=1))
    opp_present = np.where(points < 0, index, N_POINTS + 1).min(axis=1)
    opp_back = np.where(boards[:, OPP_BAR] + boards[:, OPP_WAITING] > 0, 0, opp_present)
    home = (outside == 0) & (np.where(points > 0, index, 0).max(axis=1) <= HOME_TOP)
    phase = np.where(home, 3, np.where(mine_back > opp_back, 1, 2))
    phase = np.where(boards[:, WAITING] > 0, 0, phase)
    return np.array(PHASES)[phase]


def game_luck(rolls: pd.DataFrame, traces: Traces) -> pd.DataFrame:
    """Per game, seen from seat A: result, V at the start, L_A, L_B, N, P, M and the identity's gap."""
    sign = np.where(rolls["side"] == 0, 1.0, -1.0)
    parts = pd.DataFrame(
        {
            "game": rolls["game"],
            "luck_a": np.where(rolls["side"] == 0, rolls["luck"], 0.0),
            "luck_b": np.where(rolls["side"] == 1, rolls["luck"], 0.0),
            "play": sign * (rolls["w_after"] - rolls["w_roll"]),
            "model": sign * (rolls["w_mean"] - rolls["v"]),
        }
    )
    games = parts.groupby("game", sort=True).sum()
    first = rolls.groupby("game", sort=True).first()
    games["v_start_a"] = np.where(first["side"] == 0, first["v"], 1.0 - first["v"])
    records = pd.DataFrame(traces.records, columns=K.RECORD_COLUMNS, index=traces.games)
    games["first_mover"] = records.loc[games.index, "first_mover"]
    games["result_a"] = (records.loc[games.index, "winner"] == 0).astype(float)
    games["net_luck"] = games["luck_a"] - games["luck_b"]
    games["luck_adjusted_a"] = games["result_a"] - games["net_luck"]
    games["identity_gap"] = (
        games["result_a"] - games["v_start_a"] - games["net_luck"] - games["play"] - games["model"]
    )
    return games.reset_index()


def luck_summary(games: pd.DataFrame, rules: str, strategy_a: str, strategy_b: str) -> dict:
    """The report's figures for one rule set, each with n and a 95% interval."""
    n = len(games)
    if n < 3:
        raise AcesimError(f"luck figures need at least 3 games, got {n}")
    lucky = games[games["net_luck"] != 0]
    luckier_won = int(((lucky["net_luck"] > 0) == (lucky["result_a"] == 1)).sum())
    share, (low, high) = luckier_won / max(len(lucky), 1), wilson(luckier_won, max(len(lucky), 1))
    if games["result_a"].nunique() > 1 and games["net_luck"].nunique() > 1:
        r = float(np.corrcoef(games["result_a"], games["net_luck"])[0, 1])
        # Fisher's z for the correlation, then squared: an interval for R^2 of result on N
        z = np.arctanh(np.clip(r, -0.999999, 0.999999))
        half = Z95 / np.sqrt(max(n - 3, 1))
        r_low, r_high = np.tanh(z - half), np.tanh(z + half)
        r2_low = 0.0 if r_low < 0 < r_high else min(r_low**2, r_high**2)
        r2_high = max(r_low**2, r_high**2)
    else:
        # one side won every game (or luck never differed): there is no variance to explain
        r, r2_low, r2_high = math.nan, math.nan, math.nan
    adjusted = games["luck_adjusted_a"]
    sd_n = float(games["net_luck"].std(ddof=1))
    return {
        "rules": rules,
        "strategy_a": strategy_a,
        "strategy_b": strategy_b,
        "games": n,
        "luckier_side_won": share,
        "luckier_side_won_low": low,
        "luckier_side_won_high": high,
        "r2_result_on_net_luck": r * r,
        "r2_low": r2_low,
        "r2_high": r2_high,
        "net_luck_sd": sd_n,
        "seat_a_win_rate": float(games["result_a"].mean()),
        "luck_adjusted_a_mean": float(adjusted.mean()),
        "luck_adjusted_a_low": float(adjusted.mean() - Z95 * adjusted.std(ddof=1) / np.sqrt(n)),
        "luck_adjusted_a_high": float(adjusted.mean() + Z95 * adjusted.std(ddof=1) / np.sqrt(n)),
        "luck_adjusted_a_sd": float(adjusted.std(ddof=1)),
        "model_term_mean": float(games["model"].mean()),
        "max_identity_gap": float(games["identity_gap"].abs().max()),
    }
