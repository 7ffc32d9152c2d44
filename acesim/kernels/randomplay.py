"""Random play over whole rolls, for sampling reachable positions and checking invariants.

Each side picks uniformly among the distinct resulting positions of every
segment and picks the double after a 1-2 uniformly.  The roll sequence follows
docs/rules.md section 3 (1-2 bonus double, extra rolls, forfeits under
``bonus_needs_full_use``), without the opening and scoring: this walker exists
to reach the positions the rules can reach, and to check every generated play.
"""

import numpy as np
from numba import njit

from acesim.kernels.board import OK, check_invariants, flip
from acesim.kernels.layout import (
    BOARD_DTYPE,
    BOARD_SIZE,
    MAX_SEGMENT,
    N_CHECKERS,
    OFF,
)
from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, segment_of
from acesim.kernels.turn import BONUS, GAME_OVER, ROLL_AGAIN, after_segment, roll_sequence

# The fields of ``_random_segment``'s status.
_DICE = 0
_VIOLATION = 1
_USED = 2


@njit(cache=True)
def play_random_segment(board, rules, rng, die_a, die_b, bonus, ws, out, segment):
    """The ``random`` strategy: play a uniformly chosen distinct legal play in place.

    The segment is that of ``(die_a, die_b)``; ``bonus`` marks the double played after a 1-2.  Returns ``(ws, dice in the
    segment, dice used)``; the workspace may have grown, and ``out`` still
    holds the node range of all the plays.
    """
    n = segment_of(rules, die_a, die_b, bonus, segment)
    while enumerate_plays(board, rules, segment, n, ws, out) == FULL:
        ws = grown_workspace(ws)
    first, stop, used = out[0], out[1], out[2]
    board[:] = ws.nodes[first + rng.integers(0, stop - first)]
    return ws, n, used


@njit(cache=True)
def _random_segment(board, rules, rng, die_a, die_b, bonus, ws, out, segment, status, samples, sample_dice, n):
    """Record ``board`` as sample ``n``, then play the ``random`` strategy in place.

    ``status``: the dice in the segment, the first invariant violation found
    among all the segment's plays (0 if none), and the dice used.  Returns the
    workspace, which may have grown.
    """
    samples[n, :] = board
    sample_dice[n, 0], sample_dice[n, 1] = die_a, die_b
    ws, n_dice, used = play_random_segment(board, rules, rng, die_a, die_b, bonus, ws, out, segment)
    for node in range(out[0], out[1]):
        code = check_invariants(ws.nodes[node])
        if code != OK and status[_VIOLATION] == OK:
            status[_VIOLATION] = code
    status[_DICE], status[_USED] = n_dice, used
    return ws


@njit(cache=True)
def random_walk(start, rules, rng, max_games, max_samples, ws, samples, sample_dice):
    """Play random games from ``start``; record the position before every segment.

    ``samples[i]`` is the mover's board and ``sample_dice[i]`` the dice of the
    segment played from it (``(d, d)`` for a doubles segment, also the chosen
    double after a 1-2).  Returns ``(n_samples, first_violation, ws)``.
    """
    board = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    flipped = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    out = np.zeros(3, dtype=np.int64)
    segment = np.zeros(MAX_SEGMENT, dtype=np.int64)
    status = np.zeros(3, dtype=np.int64)
    seq = roll_sequence(rules)
    n = 0
    for _ in range(max_games):
        board[:] = start
        game_over = False
        rolls = 0
        while not game_over and n < max_samples and rolls < 2000:
            # one turn: rolls until the turn ends
            again = True
            while again and n < max_samples:
                again = False
                rolls += 1
                a = rng.integers(1, 7)
                b = rng.integers(1, 7)
                ws = _random_segment(
                    board, rules, rng, a, b, False, ws, out, segment, status, samples, sample_dice, n
                )
                n += 1
                if status[_VIOLATION] != OK:
                    return n, status[_VIOLATION], ws
                step = after_segment(seq, a, b, False, status[_DICE], status[_USED], board[OFF] == N_CHECKERS)
                if step == BONUS:
                    d = rng.integers(1, 7)
                    if n >= max_samples:
                        break
                    ws = _random_segment(
                        board, rules, rng, d, d, True, ws, out, segment, status, samples, sample_dice, n
                    )
                    n += 1
                    if status[_VIOLATION] != OK:
                        return n, status[_VIOLATION], ws
                    step = after_segment(seq, d, d, True, status[_DICE], status[_USED], board[OFF] == N_CHECKERS)
                if step == GAME_OVER:
                    game_over = True
                    break
                again = step == ROLL_AGAIN
            if not game_over:
                flip(board, flipped)
                board[:] = flipped
        if n >= max_samples:
            break
    return n, 0, ws
