"""Whole games (RULES.md section 3): the opening, turns, bonus rolls, scoring, records.

One game writes one fixed-width row of int64 counters (the column indices
below; ``RECORD_COLUMNS`` names them for the records table).  Per-side
columns come in pairs: seat A then seat B.  Seat A is the first strategy of a
pairing, seat B the second; ``first_mover`` says which seat moved first.

Strategy here is ``random``: uniformly among the distinct resulting positions
of each segment, and the double after a 1-2 uniformly among 1..6.
"""

import numpy as np
from numba import njit

from acesim.kernels.board import check_invariants, flip, pip_count
from acesim.kernels.layout import (
    ACEY_DEUCEY_NONE,
    BOARD_DTYPE,
    BOARD_SIZE,
    HOME_TOP,
    MAX_SEGMENT,
    N_CHECKERS,
    OFF,
    OPENING_USE,
    OPP_BAR,
    OPP_OFF,
    OPP_WAITING,
    R_ACEY_DEUCEY,
    R_ACEY_DEUCEY_EXTRA_ROLL,
    R_BONUS_NEEDS_FULL_USE,
    R_DOUBLES_EXTRA_ROLL,
    R_OPENING,
    R_SCORING,
    R_STAKES_DOUBLE_ON_1_2,
    SCORING_GAMMONS,
    SCORING_PER_CHECKER,
)
from acesim.kernels.randomplay import play_random_segment

# --- the record row -----------------------------------------------------------

_GAME_COLUMNS = ("first_mover", "winner", "points", "unfinished", "stakes_doublings")
_SIDE_COLUMNS = (
    "turns",
    "rolls",
    "doubles",
    "one_two",
    *(f"chose_{d}" for d in range(1, 7)),
    "extra_rolls",
    "forfeits",
    "dice_lost",
    "pips_moved",
    "hits",
    "borne_off",
    "first_bearoff_turn",
)
RECORD_COLUMNS = _GAME_COLUMNS + tuple(
    f"{name}_{seat}" for name in _SIDE_COLUMNS for seat in ("a", "b")
)
N_RECORD = len(RECORD_COLUMNS)

FIRST_MOVER = 0  # 0 = seat A, 1 = seat B
WINNER = 1  # 0 = seat A, 1 = seat B, -1 = unfinished (turn cap)
POINTS = 2  # the winner's points, stakes included; 0 when unfinished
UNFINISHED = 3
STAKES_DOUBLINGS = 4  # 1-2 rolls that doubled the stakes
_SIDE_BASE = len(_GAME_COLUMNS)
TURNS = _SIDE_BASE + 0
ROLLS = _SIDE_BASE + 2
DOUBLES = _SIDE_BASE + 4
ONE_TWO = _SIDE_BASE + 6
CHOSE_1 = _SIDE_BASE + 8  # chose_d of seat s at CHOSE_1 + 2 * (d - 1) + s
EXTRA_ROLLS = _SIDE_BASE + 20
FORFEITS = _SIDE_BASE + 22
DICE_LOST = _SIDE_BASE + 24
PIPS_MOVED = _SIDE_BASE + 26
HITS = _SIDE_BASE + 28
BORNE_OFF = _SIDE_BASE + 30
FIRST_BEAROFF_TURN = _SIDE_BASE + 32  # the side's own turn number; 0 = never bore off

assert RECORD_COLUMNS[TURNS] == "turns_a" and RECORD_COLUMNS[FIRST_BEAROFF_TURN + 1] == "first_bearoff_turn_b"
assert RECORD_COLUMNS[CHOSE_1 + 2 * 5 + 1] == "chose_6_b"


# --- one segment ----------------------------------------------------------------


@njit(cache=True)
def _segment(board, rules, rng, die_a, die_b, ws, out, segment, record, side, turn_number):
    """Play one segment for ``side`` and count it; returns ``(ws, complete)``."""
    pips_before = pip_count(board)
    opp_bar_before = board[OPP_BAR]
    ws, n, used = play_random_segment(board, rules, rng, die_a, die_b, ws, out, segment)
    record[DICE_LOST + side] += n - used
    record[PIPS_MOVED + side] += pips_before - pip_count(board)
    record[HITS + side] += board[OPP_BAR] - opp_bar_before
    if board[OFF] > 0 and record[FIRST_BEAROFF_TURN + side] == 0:
        record[FIRST_BEAROFF_TURN + side] = turn_number
    return ws, used == n


# --- scoring ----------------------------------------------------------------------


@njit(cache=True)
def points_won(board, rules, stakes_doublings):
    """Points for the mover, who has just borne off its last checker (RULES.md section 4)."""
    scoring = rules[R_SCORING]
    points = 1
    if scoring == SCORING_PER_CHECKER:
        points = N_CHECKERS - board[OPP_OFF]
    elif scoring == SCORING_GAMMONS and board[OPP_OFF] == 0:
        points = 2
        # backgammon: a loser's checker on the bar, waiting, or in the winner's home board
        trapped = board[OPP_BAR] + board[OPP_WAITING]
        for i in range(HOME_TOP):
            if board[i] < 0:
                trapped += 1
        if trapped > 0:
            points = 3
    return points * (1 << stakes_doublings)


# --- a game -------------------------------------------------------------------------


@njit(cache=True)
def _roll(rng):
    return rng.integers(1, 7), rng.integers(1, 7)


@njit(cache=True)
def play_game(start, rules, rng, turn_cap, ws, record):
    """Play one random-vs-random game from ``start`` (seat A's view); fill ``record``.

    Returns the workspace, which may have grown.  Every position after every
    segment is checked with ``check_invariants``; a violation is an engine
    bug and stops the game as unfinished with ``record[UNFINISHED] = 2``.
    """
    record[:] = 0
    board = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    flipped = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    out = np.zeros(3, dtype=np.int64)
    segment = np.zeros(MAX_SEGMENT, dtype=np.int64)
    board[:] = start

    # opening: one die each, ties roll again; the higher die moves first
    die_a, die_b = _roll(rng)
    while die_a == die_b:
        die_a, die_b = _roll(rng)
    side = 0 if die_a > die_b else 1
    record[FIRST_MOVER] = side
    if side == 1:
        flip(board, flipped)
        board[:] = flipped
    use_opening = rules[R_OPENING] == OPENING_USE

    full_use = rules[R_BONUS_NEEDS_FULL_USE] != 0
    stakes = rules[R_STAKES_DOUBLE_ON_1_2] != 0
    acey_deucey = rules[R_ACEY_DEUCEY]
    total_turns = 0
    while True:
        if total_turns >= turn_cap:
            record[UNFINISHED] = 1
            record[WINNER] = -1
            break
        total_turns += 1
        record[TURNS + side] += 1
        turn_number = record[TURNS + side]
        again = True
        game_over = False
        while again:
            again = False
            if use_opening:
                use_opening = False  # the opening dice are the first mover's first roll
            else:
                die_a, die_b = _roll(rng)
            record[ROLLS + side] += 1
            double = die_a == die_b
            one_two = die_a + die_b == 3 and not double
            if double:
                record[DOUBLES + side] += 1
            if one_two:
                record[ONE_TWO + side] += 1
                if stakes:
                    record[STAKES_DOUBLINGS] += 1
            ws, complete = _segment(
                board, rules, rng, die_a, die_b, ws, out, segment, record, side, turn_number
            )
            if board[OFF] == N_CHECKERS:
                game_over = True
                break
            if one_two and acey_deucey != ACEY_DEUCEY_NONE:
                if full_use and not complete:
                    record[FORFEITS + side] += 1
                    break
                # choose: the random strategy picks uniformly; roll-die: a die decides
                chosen = rng.integers(1, 7)
                record[CHOSE_1 + 2 * (chosen - 1) + side] += 1
                ws, complete = _segment(
                    board, rules, rng, chosen, chosen, ws, out, segment, record, side, turn_number
                )
                if board[OFF] == N_CHECKERS:
                    game_over = True
                    break
                if rules[R_ACEY_DEUCEY_EXTRA_ROLL] != 0:
                    if full_use and not complete:
                        record[FORFEITS + side] += 1
                    else:
                        record[EXTRA_ROLLS + side] += 1
                        again = True
            elif double and rules[R_DOUBLES_EXTRA_ROLL] != 0:
                if full_use and not complete:
                    record[FORFEITS + side] += 1
                else:
                    record[EXTRA_ROLLS + side] += 1
                    again = True
        if check_invariants(board) != 0:
            record[UNFINISHED] = 2
            record[WINNER] = -1
            break
        if game_over:
            record[WINNER] = side
            record[POINTS] = points_won(board, rules, record[STAKES_DOUBLINGS])
            record[BORNE_OFF + side] = board[OFF]
            record[BORNE_OFF + 1 - side] = board[OPP_OFF]
            break
        flip(board, flipped)
        board[:] = flipped
        side = 1 - side
    if record[UNFINISHED]:
        record[BORNE_OFF + side] = board[OFF]
        record[BORNE_OFF + 1 - side] = board[OPP_OFF]
    return ws


@njit(cache=True)
def play_games(start, rules, rng, n_games, turn_cap, ws, records):
    """Play ``n_games`` random games into ``records[:n_games]``; returns the workspace."""
    for g in range(n_games):
        ws = play_game(start, rules, rng, turn_cap, ws, records[g])
    return ws
