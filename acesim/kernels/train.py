"""TD(lambda) self-play training of the learned player's network (``kernels.net``).

Each game is played by the network against itself (``strategy.LEARNED`` in
both seats, weights frozen for a batch of games: ``game_loop.play_games``, from
``engine.games.play_training_games``) and traced: one state per roll, the
position before the roll from the view of the side on roll.  After the game,
the offline lambda-return of every state is computed backwards from the
result, from seat A's view (``P_t`` = the state's value to seat A):

    G_last = R,    G_t = (1 - lambda) * P_(t+1) + lambda * G_(t+1),

with ``R`` = 1 if seat A won (output 0) and ``(points for A / scale + 1) / 2``
(output 1); a network of ``SPLIT_POINTS`` outputs has instead the points A won
beyond 1 (output 1) and those it lost beyond 1 (output 2), each / (scale - 1).
Then each state, in order, takes one gradient step of its outputs towards its
return (seen from the side on roll).  This is the
forward view of TD(lambda) with updates at the end of each game (Sutton &
Barto, section 12.1), which spares the dense eligibility trace of the
backward view: a step changes only the first-layer rows of the state's
active inputs.  A game that reaches the turn cap teaches nothing.
"""

import numpy as np

from acesim.kernels.game_loop import FIRST_MOVER, POINTS, T_BOARD, T_SIDE, UNFINISHED, WINNER
from acesim.kernels.jit import njit
from acesim.kernels.layout import BOARD_DTYPE, BOARD_SIZE
from acesim.kernels.net import (
    M_OUTPUTS,
    M_POINTS_SCALE,
    MAX_OUTPUTS,
    SPLIT_POINTS,
    bounded_points,
    encode_for,
    forward,
    points_range,
    sgd_step,
    stakes_multiplier,
)


@njit(cache=True, inline="always")
def _turned(v, seat_a, K, out):
    """Outputs ``v`` seen from the other seat when ``seat_a`` is false, into ``out``: each output ``1 - v``,
    but a ``SPLIT_POINTS`` network's points beyond 1 won and lost, which swap.  Its own inverse."""
    if K == SPLIT_POINTS:
        out[0] = v[0] if seat_a else 1.0 - v[0]
        out[1] = v[1] if seat_a else v[2]
        out[2] = v[2] if seat_a else v[1]
    else:
        for k in range(K):
            out[k] = v[k] if seat_a else 1.0 - v[k]


@njit(cache=True)
def td_update(model, rules, trace, n, winner, points, lam, alpha, sc, values, targets, cross_entropy):
    """One game's TD(lambda) steps on ``model`` in place (module docstring).

    ``trace[:n]`` are the game's states under ``rules``, ``winner`` its
    winning seat and ``points`` what the winner scored; ``values`` and
    ``targets`` (n x ``MAX_OUTPUTS``) are scratch.  A state's points value enters the
    targets held to what its position allows (``net.bounded_points``), as in play; the points
    beyond 1 of a ``SPLIT_POINTS`` network, each to the most its side can still win or lose.
    """
    K = int(model[M_OUTPUTS])
    scale = model[M_POINTS_SCALE]
    board = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    ns = sc.net
    y = ns.y
    target = np.empty(MAX_OUTPUTS)
    beyond = max(scale - 1.0, 1e-300)  # a split network's scale of the points beyond 1
    for t in range(n):
        for i in range(BOARD_SIZE):
            board[i] = trace[t, T_BOARD + i]
        m = encode_for(model, board, np.int64(0), ns)
        forward(model, m, ns)
        if K == SPLIT_POINTS:
            win, loss = points_range(board, 0, rules)
            stakes = stakes_multiplier(model, rules)
            y[1] = min(y[1], max(win * stakes - 1.0, 0.0) / beyond)
            y[2] = min(y[2], max(loss * stakes - 1.0, 0.0) / beyond)
        elif K > 1:
            bounded = bounded_points(model, board, 0, rules, y[0], scale * (2.0 * y[1] - 1.0))
            y[1] = (bounded / scale + 1.0) / 2.0
        _turned(y, trace[t, T_SIDE] == 0, K, values[t])  # seat A's view
    signed = points if winner == 0 else -points
    returns = np.empty(MAX_OUTPUTS)
    returns[0] = 1.0 if winner == 0 else 0.0
    if K == SPLIT_POINTS:
        returns[1] = min(1.0, max(signed - 1.0, 0.0) / beyond)
        returns[2] = min(1.0, max(-signed - 1.0, 0.0) / beyond)
    else:
        returns[1] = (min(1.0, max(-1.0, signed / scale)) + 1.0) / 2.0
    for k in range(K):
        g = returns[k]
        targets[n - 1, k] = g
        for t in range(n - 2, -1, -1):
            g = (1.0 - lam) * values[t + 1, k] + lam * g
            targets[t, k] = g
    for t in range(n):
        for i in range(BOARD_SIZE):
            board[i] = trace[t, T_BOARD + i]
        m = encode_for(model, board, np.int64(0), ns)
        forward(model, m, ns)
        _turned(targets[t], trace[t, T_SIDE] == 0, K, target)  # the side on roll's view
        sgd_step(model, m, ns, target, alpha, cross_entropy)


@njit(cache=True)
def td_updates(model, rules, traces, lengths, records, lam, alpha, sc, totals, cross_entropy):
    """``td_update`` for each game of a batch of self-play, in game order; ``totals`` as ``train_games``;
    ``cross_entropy``: the step of ``net.sgd_step``'s cross-entropy instead of its squared error."""
    values = np.empty((traces.shape[1], MAX_OUTPUTS))
    targets = np.empty((traces.shape[1], MAX_OUTPUTS))
    for i in range(lengths.shape[0]):
        n = lengths[i]
        totals[0] += 1
        if records[i, UNFINISHED] != 0:
            totals[2] += 1
            continue
        if n > traces.shape[1]:
            totals[3] += 1
            continue
        totals[1] += n
        if records[i, WINNER] == records[i, FIRST_MOVER]:
            totals[4] += 1
        td_update(model, rules, traces[i], n, records[i, WINNER], records[i, POINTS], lam, alpha, sc, values, targets,
                  cross_entropy)
