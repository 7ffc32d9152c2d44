"""Whole games (docs/rules.md section 3): the opening, turns, bonus rolls, scoring, records.

One game writes one fixed-width row of int64 counters (the column indices
below; ``RECORD_COLUMNS`` names them for the records table).  Per-side
columns come in pairs: seat A then seat B.  Seat A is the first strategy of a
pairing, seat B the second; ``first_mover`` says which seat moved first.

Each seat plays a strategy of ``acesim.kernels.choice``.  A game's dice
come from its dice stream only, and its strategies' random choices from its
choice stream, so the same game index rolls the same dice under every rule set
and pairing (common random numbers) until the games themselves diverge.
"""

import numpy as np

from acesim.kernels.board import check_invariants, flip, pip_count
from acesim.kernels.choice import LINEAR, RANDOM, deeper_filter, exhaustive_play, quick_segment, search_arrays
from acesim.kernels.cube import DROPPED, NO_DOUBLE, TAKEN, drop_points, offer
from acesim.kernels.jit import njit
from acesim.kernels.lookahead import deeper_bonus, deeper_segment
from acesim.kernels.layout import (
    BOARD_DTYPE,
    BOARD_SIZE,
    CUBE_MONEY,
    N_CHECKERS,
    OFF,
    OPENING_USE,
    OPP_BAR,
    OPP_OFF,
    R_CUBE,
    R_CUBE_MAX,
    R_OPENING,
    R_STAKES_DOUBLE_ON_1_2,
)
from acesim.kernels.memory import Memory
from acesim.kernels.plays import segment_of
from acesim.kernels.rng import STREAM_WORDS, die, seed_game_streams
from acesim.kernels.scoring import points_won
from acesim.kernels.sequence import BONUS, FORFEIT, GAME_OVER, ROLL_AGAIN, after_segment, is_one_two, roll_sequence
from acesim.kernels.turn import MAX_OUTCOMES, bonus_doubles, bonus_step, play_bonus, play_dice
from acesim.kernels.uniform import FULL as UNIFORM_FULL, grown_uniform_scratch, uniform_play

# Games share a block key in groups of this size (see acesim.engine.streams).
GAMES_PER_BLOCK = 256

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
# The doubling cube's columns come last, so that every other column keeps its
# index: a game's cube value at its end and whether it ended by a dropped
# double, then each side's doubles offered.
_CUBE_GAME_COLUMNS = ("cube_value", "dropped")
_CUBE_SIDE_COLUMNS = ("cube_offers",)
CUBE_COLUMNS = _CUBE_GAME_COLUMNS + tuple(
    f"{name}_{seat}" for name in _CUBE_SIDE_COLUMNS for seat in ("a", "b")
)
RECORD_COLUMNS = _GAME_COLUMNS + tuple(
    f"{name}_{seat}" for name in _SIDE_COLUMNS for seat in ("a", "b")
) + CUBE_COLUMNS
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
_CUBE_BASE = _SIDE_BASE + 2 * len(_SIDE_COLUMNS)
CUBE_VALUE = _CUBE_BASE + 0  # 1 until the first double is taken, and with the cube off
DROPPED_DOUBLE = _CUBE_BASE + 1  # 1 = the game ended by a dropped double
CUBE_OFFERS = _CUBE_BASE + 2  # doubles offered by seat s at CUBE_OFFERS + s

assert RECORD_COLUMNS[TURNS] == "turns_a" and RECORD_COLUMNS[FIRST_BEAROFF_TURN + 1] == "first_bearoff_turn_b"
assert RECORD_COLUMNS[CHOSE_1 + 2 * 5 + 1] == "chose_6_b"
assert RECORD_COLUMNS[CUBE_VALUE] == "cube_value" and RECORD_COLUMNS[CUBE_OFFERS + 1] == "cube_offers_b"

# A game's trace (for the equity model and per-roll luck): one row per two-dice
# roll, in order: the seat that rolled, the dice, whether they were the opening
# dice (opening = use: never a double), the double played after a 1-2 (chosen,
# or rolled under roll-die; else 0), then the board before the roll from the
# roller's view.
T_SIDE, T_DIE_A, T_DIE_B, T_OPENING, T_BONUS_DOUBLE, T_BOARD = 0, 1, 2, 3, 4, 5
TRACE_WIDTH = T_BOARD + BOARD_SIZE


# --- one roll --------------------------------------------------------------------


@njit(cache=True, inline="always")
def _count_roll(board, before, lost, record, side, turn_number):
    """Add one played roll (``before`` -> ``board``, its bonus double included) to ``side``'s counters."""
    record[DICE_LOST + side] += lost
    record[PIPS_MOVED + side] += pip_count(before) - pip_count(board)
    record[HITS + side] += board[OPP_BAR] - before[OPP_BAR]
    if board[OFF] > 0 and record[FIRST_BEAROFF_TURN + side] == 0:
        record[FIRST_BEAROFF_TURN + side] = turn_number


# --- a game -------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def _opening(dice, record):
    """One die each, ties roll again; the higher die moves first.  Returns ``(side, die_a, die_b)``."""
    die_a, die_b = die(dice), die(dice)
    while die_a == die_b:
        die_a, die_b = die(dice), die(dice)
    side = 0 if die_a > die_b else 1
    record[FIRST_MOVER] = side
    return side, die_a, die_b


@njit(cache=True, _nrt=False)
def _note_roll(record, trace, traced, side, die_a, die_b, opening, board, stakes):
    """Count a roll of ``side`` in ``record`` and trace it; returns the rolls traced so far.

    ``traced`` counts on past the trace's rows, so a caller sees a game too
    long for them.
    """
    if traced < trace.shape[0]:
        trace[traced, T_SIDE], trace[traced, T_DIE_A], trace[traced, T_DIE_B] = side, die_a, die_b
        trace[traced, T_OPENING], trace[traced, T_BONUS_DOUBLE] = opening, 0
        for i in range(BOARD_SIZE):
            trace[traced, T_BOARD + i] = board[i]
    if trace.shape[0] > 0:
        traced += 1
    record[ROLLS + side] += 1
    if die_a == die_b:
        record[DOUBLES + side] += 1
    if is_one_two(die_a, die_b):
        record[ONE_TWO + side] += 1
        if stakes:
            record[STAKES_DOUBLINGS] += 1
    return traced


@njit(cache=True, _nrt=False)
def _note_bonus(record, trace, traced, side, chosen):
    """Count the double ``side`` played after a 1-2 and trace it on the 1-2's row."""
    record[CHOSE_1 + 2 * (chosen - 1) + side] += 1
    if 0 < traced <= trace.shape[0]:
        trace[traced - 1, T_BONUS_DOUBLE] = chosen


@njit(cache=True, _nrt=False)
def _end_game(record, board, rules, side, won):
    """Close the record of a game that ``side`` (on roll, ``board`` from its view) won or left unfinished.

    A game won by a dropped double is worth the cube value before the double
    times what the drop concedes (``cube.drop_points``); a game played out,
    the cube value times what the scoring gives.  Stakes doublings multiply both.
    """
    if won:
        record[WINNER] = side
        if record[DROPPED_DOUBLE]:
            record[POINTS] = record[CUBE_VALUE] * drop_points(board, rules) * (1 << record[STAKES_DOUBLINGS])
        else:
            record[POINTS] = record[CUBE_VALUE] * points_won(board, rules, record[STAKES_DOUBLINGS])
    record[BORNE_OFF + side] = board[OFF]
    record[BORNE_OFF + 1 - side] = board[OPP_OFF]


# Inlined into ``play_games``, its one caller: a kernel of its own would be optimised once alone and
# again, with everything it links, inside the caller (docs/performance-log.md, 2026-12-07).
@njit(cache=True, inline="always")
def play_game(start, rules, dice, choices, turn_cap, seats, memory, record, trace):
    """Play one game from ``start`` (seat A's view); fill ``record``.

    ``dice`` and ``choices`` are the game's two seeded streams; seat ``s``
    plays strategy ``seats.kinds[s]`` with beam width ``seats.widths[s, 0]``,
    ranks the doubles after a 1-2 with searches of width ``seats.widths[s,
    1]``, and weights ``seats.weights[s]`` (a seat with a ply-2 filter, ``choice.deeper_filter``, plays
    each segment and the double a 1-2 earns at ply 2: ``lookahead.deeper_segment`` and
    ``deeper_bonus``); under ``cube = money`` it
    makes its cube decisions with the network ``seats.cube_models[s]``
    (``kernels.cube``).  Returns ``(memory, rolls traced)``; parts of the
    memory may have grown.  The position after every
    turn is checked with ``check_invariants``; a violation is an engine bug
    and stops the game as unfinished with ``record[UNFINISHED] = 2``.
    """
    record[:] = 0
    record[CUBE_VALUE] = 1
    kinds, widths, weights, cube_models = seats
    ws, uniform, out, sc = memory
    board = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    before = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    flipped = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    board[:] = start
    side, die_a, die_b = _opening(dice, record)
    if side == 1:
        flip(board, flipped)
        board[:] = flipped
    use_opening = rules[R_OPENING] == OPENING_USE

    seq = roll_sequence(rules)
    stakes = rules[R_STAKES_DOUBLE_ON_1_2] != 0
    # without the cube no network is asked (and a pairing lowered without rules has none to ask)
    cube_on = rules[R_CUBE] == CUBE_MONEY and cube_models.shape[1] > 0
    cube_max = rules[R_CUBE_MAX]
    cube_owner = -1  # -1 = centred, else the seat that owns it
    total_turns = 0
    traced = 0
    # the searches' arrays, taken out of the scratch once (see strategy.search_arrays)
    segment, play = sc.segment, sc.play
    node_sums, child, moves, moves_after, pairs, beam, beam_scores, beam_sums, parent, parent_sum = (
        search_arrays(sc)
    )
    outcomes = np.empty((MAX_OUTCOMES, BOARD_SIZE), dtype=BOARD_DTYPE)
    steps = np.zeros(MAX_OUTCOMES, dtype=np.int64)
    won = False
    while not won:
        if total_turns >= turn_cap:
            record[UNFINISHED] = 1
            record[WINNER] = -1
            break
        # the cube, before the turn's first roll; under opening = use the first
        # mover's dice are already rolled
        if cube_on and not use_opening and cube_owner != 1 - side and 2 * record[CUBE_VALUE] <= cube_max:
            action = offer(board, rules, cube_models[side], cube_models[1 - side], cube_owner == side, sc.net)
            if action != NO_DOUBLE:
                record[CUBE_OFFERS + side] += 1
            if action == TAKEN:
                record[CUBE_VALUE] *= 2
                cube_owner = 1 - side
            elif action == DROPPED:
                # the turn of a dropped double rolls no dice: it is not counted
                record[DROPPED_DOUBLE] = 1
                won = True
                break
        total_turns += 1
        record[TURNS + side] += 1
        turn_number = record[TURNS + side]
        kind, width, choice_width, w = kinds[side], widths[side, 0], widths[side, 1], weights[side]
        keep, margin = deeper_filter(widths, side)
        again = True
        while again:
            again = False
            opening = use_opening
            if use_opening:
                use_opening = False  # the opening dice are the first mover's first roll
            else:
                die_a, die_b = die(dice), die(dice)
            traced = _note_roll(record, trace, traced, side, die_a, die_b, opening, board, stakes)
            before[:] = board
            # the roll's segment, two strategies' searches taken here without the scratch tuple (binding
            # it costs a fifth of a heuristic game), then what follows it: turn.play_roll's steps, which
            # the tests and the records digest hold equal
            if kind == RANDOM:
                n = segment_of(rules, die_a, die_b, False, segment)
                while True:
                    status, used = uniform_play(board, rules, segment, n, choices, uniform)
                    if status != UNIFORM_FULL:
                        break
                    uniform = grown_uniform_scratch(uniform)
            elif kind == LINEAR:
                n, used, found = quick_segment(
                    board, rules, die_a, die_b, width, w, segment, play, node_sums, child, moves, moves_after, pairs,
                    beam, beam_scores, beam_sums, parent, parent_sum,
                )
                if not found:
                    ws, used, _ = exhaustive_play(board, rules, segment, n, ws, out, w, sc, play)
                    board[:] = play
            elif keep > 0:
                ws, uniform, n, used = deeper_segment(board, rules, seq, die_a, die_b, kind, width, choice_width, w,
                                                      keep, margin, np.bool_(True), choices, ws, uniform, out, sc,
                                                      play)
                board[:] = play
            else:
                ws, uniform, n, used = play_dice(board, rules, die_a, die_b, np.bool_(False), kind, width, w, choices,
                                                 ws, uniform, out, sc)
            lost = n - used
            steps[0] = after_segment(seq, die_a, die_b, False, n, used, board[OFF] == N_CHECKERS)
            if steps[0] == BONUS:
                if keep > 0:
                    low, high = bonus_doubles(seq, dice)
                    ws, uniform, chosen, n, used = deeper_bonus(board, rules, seq, low, high, kind, width,
                                                                choice_width, w, keep, margin, choices, ws, uniform,
                                                                out, sc, play)
                    board[:] = play
                    steps[0] = bonus_step(seq, chosen, n, used, board)
                    more = n - used
                else:
                    ws, uniform, _, chosen, more = play_bonus(board, rules, seq, kind, width, choice_width, w, dice,
                                                              choices, ws, uniform, out, sc, False, outcomes, steps)
                lost += more
                _note_bonus(record, trace, traced, side, chosen)
            _count_roll(board, before, lost, record, side, turn_number)
            step = steps[0]
            if step == GAME_OVER:
                won = True
                break
            if step == FORFEIT:
                record[FORFEITS + side] += 1
            elif step == ROLL_AGAIN:
                record[EXTRA_ROLLS + side] += 1
                again = True
        if check_invariants(board) != 0:
            record[UNFINISHED] = 2
            record[WINNER] = -1
            won = False
            break
        if not won:
            flip(board, flipped)
            board[:] = flipped
            side = 1 - side
    if won or record[UNFINISHED]:
        _end_game(record, board, rules, side, won)
    return Memory(ws, uniform, out, sc), traced


@njit(cache=True)
def play_games(start, rules, block_keys, first_game, turn_cap, seats, memory, records, traces, lengths):
    """Play games ``first_game .. first_game + len(records) - 1`` into ``records``; game ``i``'s rolls into
    ``traces[i]``, as many as its rows hold (a trace of no rows keeps none), and their number into
    ``lengths[i]``.

    Game ``g`` takes its streams from ``block_keys[g // GAMES_PER_BLOCK - first
    block]`` (the rows cover every block the range touches) and ``g`` itself,
    so a game's record does not depend on how the games are split into chunks.
    The one kernel that plays whole games: the records' games, the traced games of the analyses and
    training's self-play, so that the game loop is compiled once.  Returns the memory, parts of which
    may have grown.
    """
    dice = np.zeros(STREAM_WORDS, dtype=np.uint64)
    choices = np.zeros(STREAM_WORDS, dtype=np.uint64)
    first_block = first_game // GAMES_PER_BLOCK
    for i in range(records.shape[0]):
        g = first_game + i
        seed_game_streams(block_keys[g // GAMES_PER_BLOCK - first_block], g, dice, choices)
        memory, lengths[i] = play_game(start, rules, dice, choices, turn_cap, seats, memory, records[i], traces[i])
    return memory
