"""Random play over whole rolls, for sampling reachable positions and checking invariants.

Each side picks uniformly among the distinct resulting positions of every
segment and picks the double after a 1-2 uniformly.  The roll sequence follows
RULES.md section 3 (1-2 bonus double, extra rolls, forfeits under
``bonus_needs_full_use``), without the opening and scoring: this walker exists
to reach the positions the rules can reach, and to check every generated play.
"""

import numpy as np
from numba import njit

from acesim.kernels.board import OK, check_invariants, flip
from acesim.kernels.layout import (
    ACEY_DEUCEY_NONE,
    BOARD_DTYPE,
    BOARD_SIZE,
    DOUBLES_FOUR_PLUS_COMPLEMENT,
    MAX_SEGMENT,
    N_CHECKERS,
    OFF,
    R_ACEY_DEUCEY,
    R_ACEY_DEUCEY_EXTRA_ROLL,
    R_BONUS_NEEDS_FULL_USE,
    R_DOUBLES,
    R_DOUBLES_EXTRA_ROLL,
)
from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, segment_of

# What a segment did, for the roll loop.
_PLAYED = 0
_GAME_OVER = 1


@njit(cache=True)
def play_random_segment(board, rules, rng, die_a, die_b, ws, out, segment):
    """The ``random`` strategy: play a uniformly chosen distinct legal play in place.

    The segment is that of ``(die_a, die_b)``.  Returns ``(ws, dice in the
    segment, dice used)``; the workspace may have grown, and ``out`` still
    holds the node range of all the plays.
    """
    n = segment_of(die_a, die_b, rules[R_DOUBLES] == DOUBLES_FOUR_PLUS_COMPLEMENT, segment)
    while enumerate_plays(board, rules, segment, n, ws, out) == FULL:
        ws = grown_workspace(ws)
    first, stop, used = out[0], out[1], out[2]
    board[:] = ws.nodes[first + rng.integers(0, stop - first)]
    return ws, n, used


@njit(cache=True)
def _random_segment(board, rules, rng, die_a, die_b, ws, out, segment, status, samples, sample_dice, n):
    """Record ``board`` as sample ``n``, then play the ``random`` strategy in place.

    ``status[0]``: 1 if the segment was complete; ``status[1]``: the first
    invariant violation found among all the segment's plays (0 if none).
    Returns the workspace, which may have grown.
    """
    samples[n, :] = board
    sample_dice[n, 0], sample_dice[n, 1] = die_a, die_b
    ws, n_dice, used = play_random_segment(board, rules, rng, die_a, die_b, ws, out, segment)
    for node in range(out[0], out[1]):
        code = check_invariants(ws.nodes[node])
        if code != OK and status[1] == OK:
            status[1] = code
    status[0] = 1 if used == n_dice else 0
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
    status = np.zeros(2, dtype=np.int64)
    full_use = rules[R_BONUS_NEEDS_FULL_USE] != 0
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
                    board, rules, rng, a, b, ws, out, segment, status, samples, sample_dice, n
                )
                n += 1
                if status[1] != OK:
                    return n, status[1], ws
                if board[OFF] == N_CHECKERS:
                    game_over = True
                    break
                complete = status[0] == 1
                if a != b and a + b == 3 and rules[R_ACEY_DEUCEY] != ACEY_DEUCEY_NONE:
                    if full_use and not complete:
                        break
                    d = rng.integers(1, 7)
                    if n >= max_samples:
                        break
                    ws = _random_segment(
                        board, rules, rng, d, d, ws, out, segment, status, samples, sample_dice, n
                    )
                    n += 1
                    if status[1] != OK:
                        return n, status[1], ws
                    if board[OFF] == N_CHECKERS:
                        game_over = True
                        break
                    again = rules[R_ACEY_DEUCEY_EXTRA_ROLL] != 0 and (
                        status[0] == 1 or not full_use
                    )
                elif a == b and rules[R_DOUBLES_EXTRA_ROLL] != 0:
                    again = complete or not full_use
            if not game_over:
                flip(board, flipped)
                board[:] = flipped
        if n >= max_samples:
            break
    return n, 0, ws
