"""The equity model's inputs, the value of each roll, and per-roll luck (docs/statistics.md).

``V(s)`` is the probability that the side on roll in ``s`` wins, from one of
two equity models, each a flat array whose first number tells which:
``LOGISTIC_TAG``, then the intercept and slopes on the raw ``equity_inputs``
(the evaluation features of both sides and the two pip counts) of a logistic
model fitted in ``acesim.analyses.equity``; or a learned network
(``kernels.net``, tagged ``NET_TAG`` or ``HARD_NET_TAG``), whose output 0 is V.

``W(s, r)`` is the value to the mover after its strategy has played roll ``r``
in ``s``: the segment, then the bonus that ``r`` earns (the chosen double
after a 1-2, or each die of ``roll-die`` weighted 1/6), and then either
``V(s')`` when the mover rolls again or ``1 - V(flip(s'))`` when the turn
passes; a win is worth 1.  The luck of a roll is ``W(s, r)`` minus the
probability-weighted mean over the 21 rolls (over the 15 non-doubles for the
opening dice under ``opening = use``, which are never a double).
"""

import numpy as np

from acesim.kernels.board import flip, pip_count
from acesim.kernels.evaluate import FEATURES, N_FEATURES, features
from acesim.kernels.game_loop import T_BOARD, T_DIE_A, T_DIE_B, T_OPENING, T_SIDE
from acesim.kernels.jit import njit
from acesim.kernels.layout import BOARD_DTYPE, BOARD_SIZE, N_CHECKERS, OFF, OPP_OFF
from acesim.kernels.memory import Memory
from acesim.kernels.net import LOGISTIC_TAG, win_probability
from acesim.kernels.sequence import GAME_OVER, ROLL_AGAIN, roll_sequence
from acesim.kernels.turn import (  # noqa: F401 (the roll table, re-exported: the analyses know it from here)
    MAX_OUTCOMES,
    N_ROLLS,
    OPENING_P,
    ROLL_A,
    ROLL_B,
    ROLL_P,
    play_roll,
    roll_index,
)

# The inputs: the evaluation features of the side on roll, the same of its
# opponent (from the opponent's view), and both pip counts in units of 25.
INPUTS = (
    tuple(f"{name}_mover" for name in FEATURES)
    + tuple(f"{name}_opponent" for name in FEATURES)
    + ("pips_mover", "pips_opponent")
)
N_INPUTS = len(INPUTS)
assert N_INPUTS == 2 * N_FEATURES + 2


@njit(cache=True)
def equity_inputs(board, flipped, out):
    """The model's inputs for ``board`` (side on roll's view) into ``out``; ``flipped`` is scratch."""
    features(board, out[:N_FEATURES])
    flip(board, flipped)
    features(flipped, out[N_FEATURES : 2 * N_FEATURES])
    out[2 * N_FEATURES] = pip_count(board) / 25.0
    out[2 * N_FEATURES + 1] = pip_count(flipped) / 25.0


@njit(cache=True)
def equity_rows(boards, out):
    """``equity_inputs`` of every row of ``boards`` into the rows of ``out``."""
    flipped = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    for i in range(boards.shape[0]):
        equity_inputs(boards[i], flipped, out[i])


@njit(cache=True)
def equity(board, coef, flipped, x, sc):
    """``V(board)``: the side on roll's win probability under the equity model ``coef``.

    ``coef`` is tagged (module docstring); ``sc`` is the strategies' scratch,
    whose network buffers a learned model uses.
    """
    if board[OFF] == N_CHECKERS:
        return 1.0
    if board[OPP_OFF] == N_CHECKERS:
        return 0.0
    if coef[0] != LOGISTIC_TAG:
        return win_probability(coef, board, sc.net)
    equity_inputs(board, flipped, x)
    t = coef[1]
    for i in range(x.shape[0]):
        t += coef[i + 2] * x[i]
    return 1.0 / (1.0 + np.exp(-t))


@njit(cache=True)
def _after_turn(board, rules, again, coef, flipped, x, other, sc):
    """The mover's value once its roll is played: ``V`` if it rolls again, else ``1 - V(flip)``."""
    if board[OFF] == N_CHECKERS:
        return 1.0
    if again:
        return equity(board, coef, flipped, x, sc)
    flip(board, other)
    return 1.0 - equity(other, coef, flipped, x, sc)


@njit(cache=True)
def roll_value(board, rules, die_a, die_b, kind, width, choice_width, weights, coef, choices, ws,
               uniform, out, sc, work, outcomes, steps, other, flipped, x):
    """``W(board, (die_a, die_b))`` for the strategy ``(kind, width, choice_width, weights)``.

    The roll played as the game loop plays it (``turn.play_roll``); under
    ``roll-die`` the mean over the six doubles.  Returns ``(ws, uniform, W)``.
    """
    work[:] = board
    ws, uniform, count, _, _ = play_roll(work, rules, roll_sequence(rules), die_a, die_b, kind, width, choice_width,
                                         weights, choices, choices, ws, uniform, out, sc, True, outcomes,
                                         steps)
    if count == 1:
        if steps[0] == GAME_OVER:
            return ws, uniform, 1.0
        return ws, uniform, _after_turn(work, rules, steps[0] == ROLL_AGAIN, coef, flipped, x, other, sc)
    total = 0.0
    for d in range(count):
        total += _after_turn(outcomes[d], rules, steps[d] == ROLL_AGAIN, coef, flipped, x, other, sc)
    return ws, uniform, total / count


@njit(cache=True)
def roll_values(board, rules, kind, width, choice_width, weights, coef, choices, ws, uniform, out,
                sc, values):
    """``W(board, r)`` of the 21 rolls into ``values``; returns ``(ws, uniform)``."""
    work = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    other = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    flipped = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    outcomes = np.empty((MAX_OUTCOMES, BOARD_SIZE), dtype=BOARD_DTYPE)
    steps = np.zeros(MAX_OUTCOMES, dtype=np.int64)
    x = np.empty(N_INPUTS, dtype=np.float64)
    for r in range(N_ROLLS):
        ws, uniform, values[r] = roll_value(board, rules, ROLL_A[r], ROLL_B[r], kind, width,
                                            choice_width, weights, coef, choices, ws, uniform, out,
                                            sc, work, outcomes, steps, other, flipped, x)
    return ws, uniform


@njit(cache=True)
def value_rows(trace, n, rules, seats, coef, choices, memory, values):
    """``W`` of the 21 rolls at each of the first ``n`` rows of ``trace`` into ``values`` (n x 21), each
    row valued for its own side on roll, whatever game it came from.  Returns the memory."""
    kinds, widths, weights = seats.kinds, seats.widths, seats.weights
    ws, uniform, out, sc = memory
    board = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    for k in range(n):
        side = trace[k, T_SIDE]
        board[:] = trace[k, T_BOARD:]
        ws, uniform = roll_values(board, rules, kinds[side], widths[side, 0], widths[side, 1],
                                  weights[side], coef, choices, ws, uniform, out, sc, values[k])
    return Memory(ws, uniform, out, sc)


# Columns of ``trace_luck``'s rows, one per traced roll.
L_SIDE, L_V, L_W_ROLL, L_W_MEAN, L_W_AFTER = 0, 1, 2, 3, 4
LUCK_WIDTH = 5


@njit(cache=True)
def trace_luck(trace, n, winner, rules, seats, coef, choices, memory, rows, values):
    """Per-roll values of one traced game (``n`` rows of ``trace``; ``winner`` its seat).

    For roll ``k`` by seat ``s`` in state ``s_k``: ``V(s_k)``, ``W(s_k, r_k)``
    of the roll that came, the probability-weighted mean of ``W`` over the
    possible rolls, and the value of the position that actually followed
    (``V`` of the next state from the mover's side, or the result after the
    last roll).  ``values`` (n x 21) receives every ``W``.  Returns the
    memory, parts of which may have grown.
    """
    memory = value_rows(trace, n, rules, seats, coef, choices, memory, values)
    ws, uniform, out, sc = memory
    board = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    flipped = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    x = np.empty(N_INPUTS, dtype=np.float64)
    for k in range(n):
        side = trace[k, T_SIDE]
        board[:] = trace[k, T_BOARD:]
        p = OPENING_P if trace[k, T_OPENING] else ROLL_P
        mean = 0.0
        for r in range(N_ROLLS):
            mean += p[r] * values[k, r]
        rows[k, L_SIDE] = side
        rows[k, L_V] = equity(board, coef, flipped, x, sc)
        rows[k, L_W_ROLL] = values[k, roll_index(trace[k, T_DIE_A], trace[k, T_DIE_B])]
        rows[k, L_W_MEAN] = mean
        if k + 1 < n:
            board[:] = trace[k + 1, T_BOARD:]
            v_next = equity(board, coef, flipped, x, sc)
            rows[k, L_W_AFTER] = v_next if trace[k + 1, T_SIDE] == side else 1.0 - v_next
        else:
            rows[k, L_W_AFTER] = 1.0 if winner == side else 0.0
    return Memory(ws, uniform, out, sc)
