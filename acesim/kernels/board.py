"""Single-checker rules on the flat board (docs/rules.md sections 1 and 2).

Each function is one rule step and reads the lowered rules array by its named
indices.  A move is a pair ``(src, dst)``: ``src`` is a point 1..24,
``FROM_BAR`` or ``FROM_WAITING``; ``dst`` is a point 1..24 or ``TO_OFF``.
"""

import numpy as np

from acesim.kernels.jit import njit
from acesim.kernels.layout import (
    ACEY_DEUCEY_NONE,
    BAR,
    BAR_ENTRY_ANY,
    BAR_ENTRY_BONUS_ONLY,
    BEAROFF_STANDARD,
    BOARD_SIZE,
    ENTER_FIRST_ALL_IN,
    ENTER_FIRST_MIDPOINT,
    FROM_BAR,
    FROM_WAITING,
    HITTING_AFTER_HOME,
    HOME_AFTER_ALL_IN_BEAROFF_ONLY,
    HOME_LOCKED,
    HOME_TOP,
    MIDPOINT,
    N_CHECKERS,
    N_POINTS,
    OFF,
    OPP_BAR,
    OPP_OFF,
    OPP_WAITING,
    R_ACEY_DEUCEY,
    R_BAR_ENTRY,
    R_BAR_FIRST,
    R_BEAROFF,
    R_ENTER_FIRST,
    R_HITTING,
    R_HOME,
    R_HOME_AFTER_ALL_IN,
    TO_OFF,
    WAITING,
)

ILLEGAL = -1


@njit(cache=True)
def is_open(board, point):
    """A point is open to the mover unless two or more opposing checkers hold it."""
    return board[point - 1] >= -1


@njit(cache=True)
def all_home(board):
    """Bearing off is allowed: every checker of the mover not yet off is on 1..6."""
    n = board[OFF]
    for i in range(HOME_TOP):
        if board[i] > 0:
            n += board[i]
    return n == N_CHECKERS


@njit(cache=True)
def entry_point(die):
    """Entering (from the bar or from waiting) with ``die`` lands on 25 - die."""
    return N_POINTS + 1 - die


@njit(cache=True)
def bar_entry_open(rules, die_a, die_b):
    """Whether a hit checker may re-enter during the segment of the roll ``die_a``-``die_b`` (``bar_entry``).

    The one place the knob is read. ``any``: every segment. ``doubles-only``: a doubles segment (a
    rolled double, the double chosen after a 1-2, the European complement with it). ``bonus-only``:
    those and the rolled 1-2 itself, where a 1-2 earns a bonus. A segment of one die passes
    ``die_b = 0``.
    """
    entry = rules[R_BAR_ENTRY]
    if entry == BAR_ENTRY_ANY or die_a == die_b:
        return True
    one_two = (die_a == 1 and die_b == 2) or (die_a == 2 and die_b == 1)
    return entry == BAR_ENTRY_BONUS_ONLY and one_two and rules[R_ACEY_DEUCEY] != ACEY_DEUCEY_NONE


@njit(cache=True)
def reached_home(board):
    """The mover has a checker on its home board or borne off (``hitting = after-home``)."""
    if board[OFF] > 0:
        return True
    for i in range(HOME_TOP):
        if board[i] > 0:
            return True
    return False


@njit(cache=True)
def move_target(board, rules, src, die, bar_entry_ok, home):
    """Where the checker at ``src`` lands with ``die``, or ILLEGAL.

    ``bar_entry_ok`` is ``bar_entry_open`` of the segment; ``home`` is
    ``all_home(board)``, passed in because the caller tries every source
    against the same board.
    """
    bar_blocks = rules[R_BAR_FIRST] != 0 and board[BAR] > 0
    # hitting = after-home: a blot may not be hit before a checker of the mover is home
    no_hits = rules[R_HITTING] == HITTING_AFTER_HOME and not reached_home(board)
    if src == FROM_BAR or src == FROM_WAITING:
        if src == FROM_BAR:
            if board[BAR] == 0:
                return ILLEGAL
            if not bar_entry_ok:
                return ILLEGAL
        else:
            if board[WAITING] == 0 or bar_blocks:
                return ILLEGAL
        dst = entry_point(die)
        if no_hits and board[dst - 1] == -1:
            return ILLEGAL
        return dst if is_open(board, dst) else ILLEGAL

    if board[src - 1] <= 0 or bar_blocks:
        return ILLEGAL
    # enter_first: while checkers wait to enter, none on the board moves (all-in-first)
    # or passes the mover's point 13 (midpoint)
    if board[WAITING] > 0:
        if rules[R_ENTER_FIRST] == ENTER_FIRST_ALL_IN:
            return ILLEGAL
        if rules[R_ENTER_FIRST] == ENTER_FIRST_MIDPOINT and src >= MIDPOINT and src - die < MIDPOINT:
            return ILLEGAL
    # home = locked: a checker in the home board stays until bearing off is allowed;
    # once one checker is off the lock never returns, even if another is hit later
    if src <= HOME_TOP and rules[R_HOME] == HOME_LOCKED and not home and board[OFF] == 0:
        return ILLEGAL
    dst = src - die
    if dst >= 1:
        # home_after_all_in = bearoff-only: once all are in, dice only bear off
        if home and rules[R_HOME_AFTER_ALL_IN] == HOME_AFTER_ALL_IN_BEAROFF_ONLY:
            return ILLEGAL
        if no_hits and board[dst - 1] == -1:
            return ILLEGAL
        return dst if is_open(board, dst) else ILLEGAL
    if not home:
        return ILLEGAL
    if dst == 0:
        return TO_OFF
    # Overshooting bears off only under standard rules, and only from the highest point.
    if rules[R_BEAROFF] != BEAROFF_STANDARD:
        return ILLEGAL
    for q in range(src + 1, HOME_TOP + 1):
        if board[q - 1] > 0:
            return ILLEGAL
    return TO_OFF


# Point masks: bit p stands for point p (bit 0 is unused).
HOME_BITS = (1 << (HOME_TOP + 1)) - 2
OUTSIDE_BITS = ((1 << (N_POINTS + 1)) - 1) & ~((1 << (HOME_TOP + 1)) - 1)

# Index of the lowest set bit by de Bruijn multiplication (Numba has no ctz).
_DE_BRUIJN = np.uint64(0x022FDD63CC95386D)
_LOWEST_BIT = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _LOWEST_BIT[((1 << _i) * 0x022FDD63CC95386D >> 58) & 63] = _i


@njit(cache=True)
def lowest_bit(bits):
    """The index of the lowest set bit of a non-zero mask."""
    low = np.uint64(bits & -bits)
    return _LOWEST_BIT[np.int64((low * _DE_BRUIJN) >> np.uint64(58))]


@njit(cache=True)
def occupied_mask(board):
    """Points holding the mover's checkers."""
    bits = 0
    for i in range(N_POINTS):
        if board[i] > 0:
            bits |= 1 << (i + 1)
    return bits


@njit(cache=True)
def blot_mask(board):
    """Points holding a single opposing checker.  The mover's moves only remove blots
    (by hitting them), and under ``hitting = after-home`` none is hit before the
    mover reaches home, so while that restriction holds this holds for the segment."""
    bits = 0
    for i in range(N_POINTS):
        if board[i] == -1:
            bits |= 1 << (i + 1)
    return bits


@njit(cache=True)
def open_mask(board):
    """Points open to the mover.  The mover's own moves never close a point
    (a hit turns a blot into a mover's point), so this holds for a whole segment."""
    bits = 0
    for i in range(N_POINTS):
        if board[i] >= -1:
            bits |= 1 << (i + 1)
    return bits


# Source ranks of ``legal_sources``: a point is its own number, waiting checkers
# rank 25, the bar 26 (the order of ``kernels.uniform``'s canonical search).
RANK_WAITING = 25
RANK_BAR = 26

# The bits of a segment's move rules (``move_rules``, passed on as ``rule_bits``): the knobs of single moves,
# read from the rules array once per segment.
MR_BAR_ENTRY = 1  # a hit checker may re-enter during this segment (bar_entry)
MR_BAR_FIRST = 2  # nothing else moves while a checker is on the bar
MR_LOCKED = 4  # home = locked
MR_BEAROFF_ONLY = 8  # home_after_all_in = bearoff-only
MR_STANDARD = 16  # bearoff = standard
MR_ALL_IN_FIRST = 32  # enter_first = all-in-first
MR_MIDPOINT = 64  # enter_first = midpoint
MR_HIT_AFTER_HOME = 128  # hitting = after-home


@njit(cache=True)
def move_rules(rules, die_a, die_b):
    """The move rules (``MR_`` bits) of the segment of the roll ``die_a``-``die_b`` (``bar_entry_open``)."""
    bits = 0
    if bar_entry_open(rules, die_a, die_b):
        bits |= MR_BAR_ENTRY
    if rules[R_BAR_FIRST] != 0:
        bits |= MR_BAR_FIRST
    if rules[R_HOME] == HOME_LOCKED:
        bits |= MR_LOCKED
    if rules[R_HOME_AFTER_ALL_IN] == HOME_AFTER_ALL_IN_BEAROFF_ONLY:
        bits |= MR_BEAROFF_ONLY
    if rules[R_BEAROFF] == BEAROFF_STANDARD:
        bits |= MR_STANDARD
    if rules[R_ENTER_FIRST] == ENTER_FIRST_ALL_IN:
        bits |= MR_ALL_IN_FIRST
    elif rules[R_ENTER_FIRST] == ENTER_FIRST_MIDPOINT:
        bits |= MR_MIDPOINT
    if rules[R_HITTING] == HITTING_AFTER_HOME:
        bits |= MR_HIT_AFTER_HOME
    return bits


@njit(cache=True, inline="always")
def hits_barred(rule_bits, off, occupied):
    """Under ``hitting = after-home``, the mover (``off`` borne off, on ``occupied``) may not hit yet."""
    return (rule_bits & MR_HIT_AFTER_HOME) != 0 and off == 0 and (occupied & HOME_BITS) == 0


@njit(cache=True, inline="always")
def legal_sources(bar, waiting, off, die, rule_bits, open_bits, blot_bits, occupied):
    """The source ranks (a bit mask) of every legal single move with ``die``.

    The rules of ``move_target`` (the readable reference; the tests check the
    two agree) in mask form, for a mover with ``bar``, ``waiting`` and ``off``
    checkers on those places and on the points of ``occupied``.
    ``rule_bits`` is the segment's ``move_rules``; ``open_bits`` and
    ``blot_bits`` are the ``open_mask`` and ``blot_mask`` of the segment's
    start.  A source fixes the move: a point above the die moves down by
    it, one at or below it bears off, the bar and waiting enter on 25 - die.
    Scalars only, so the searches inline it at no reference-counting cost.
    """
    bits = 0
    landing = open_bits
    if hits_barred(rule_bits, off, occupied):
        landing &= ~blot_bits
    entry = N_POINTS + 1 - die
    entry_open = (landing >> entry) & 1
    if bar > 0:
        if entry_open and rule_bits & MR_BAR_ENTRY:
            bits = 1 << RANK_BAR
        if rule_bits & MR_BAR_FIRST:
            return bits  # nothing else moves while a checker is on the bar
    if waiting > 0 and entry_open:
        bits |= 1 << RANK_WAITING
    home = bar == 0 and waiting == 0 and (occupied & OUTSIDE_BITS) == 0
    sources = occupied
    if rule_bits & MR_LOCKED and not home and off == 0:
        sources &= ~HOME_BITS
    if waiting > 0:
        if rule_bits & MR_ALL_IN_FIRST:
            sources = 0
        elif rule_bits & MR_MIDPOINT:
            sources &= ~(((1 << die) - 1) << MIDPOINT)  # points 13 .. 12 + die would pass 13
    if not (home and rule_bits & MR_BEAROFF_ONLY):
        # sources above the die whose landing point is open
        bits |= sources & (landing << die) & ~((2 << die) - 1)
    if home:
        if (occupied >> die) & 1:
            bits |= 1 << die
        elif rule_bits & MR_STANDARD and (occupied >> die) == 0 and occupied:
            src = die - 1  # overshooting: only from the highest occupied point
            while not (occupied >> src) & 1:
                src -= 1
            bits |= 1 << src
    return bits


@njit(cache=True)
def legal_moves(board, die, rule_bits, open_bits, blot_bits, occupied, moves):
    """Every legal single move with ``die``, one per source, into ``moves``; return the count.

    ``legal_sources`` of the board, as moves: the bar's entry, waiting's, the
    point moves by source, then the bear-off.
    """
    bits = legal_sources(board[BAR], board[WAITING], board[OFF], die, rule_bits, open_bits, blot_bits, occupied)
    n = 0
    if (bits >> RANK_BAR) & 1:
        moves[n, 0], moves[n, 1] = FROM_BAR, entry_point(die)
        n += 1
    if (bits >> RANK_WAITING) & 1:
        moves[n, 0], moves[n, 1] = FROM_WAITING, entry_point(die)
        n += 1
    landing = bits & ((1 << (N_POINTS + 1)) - 1) & ~((2 << die) - 1)
    while landing:
        src = lowest_bit(landing)
        landing &= landing - 1
        moves[n, 0], moves[n, 1] = src, src - die
        n += 1
    off_bits = bits & ((2 << die) - 1)
    if off_bits:
        moves[n, 0], moves[n, 1] = lowest_bit(off_bits), TO_OFF
        n += 1
    return n


@njit(cache=True, inline="always")
def die_played_alone(hi, lo, hi_playable):
    """The die of a non-double ``[hi, lo]`` to play when no play uses both (docs/rules.md section 2).

    The higher die if it has a legal move, else the lower one (which may have
    none either: then nothing is played).  The one statement of the
    higher-die rule; every search of a two-dice segment asks it.
    """
    return hi if hi_playable else lo


@njit(cache=True)
def apply_move(board, src, dst):
    """Play one checker from ``src`` to ``dst`` in place; return 1 if it hit a blot."""
    if src == FROM_BAR:
        board[BAR] -= 1
    elif src == FROM_WAITING:
        board[WAITING] -= 1
    else:
        board[src - 1] -= 1
    if dst == TO_OFF:
        board[OFF] += 1
        return 0
    hit = 0
    if board[dst - 1] == -1:
        board[dst - 1] = 0
        board[OPP_BAR] += 1
        hit = 1
    board[dst - 1] += 1
    return hit


@njit(cache=True)
def flip(board, out):
    """Write into ``out`` the same position seen by the opponent."""
    for i in range(N_POINTS):
        out[i] = -board[N_POINTS - 1 - i]
    out[BAR] = board[OPP_BAR]
    out[OPP_BAR] = board[BAR]
    out[WAITING] = board[OPP_WAITING]
    out[OPP_WAITING] = board[WAITING]
    out[OFF] = board[OPP_OFF]
    out[OPP_OFF] = board[OFF]
    for i in range(OPP_OFF + 1, BOARD_SIZE):
        out[i] = 0


@njit(cache=True)
def pip_count(board):
    """Pips the mover needs to bear everything off (waiting and bar checkers count 25)."""
    pips = (board[BAR] + board[WAITING]) * (N_POINTS + 1)
    for i in range(N_POINTS):
        if board[i] > 0:
            pips += board[i] * (i + 1)
    return pips


# Codes returned by check_invariants.
OK = 0
BAD_MOVER_TOTAL = 1
BAD_OPPONENT_TOTAL = 2
NEGATIVE_COUNTER = 3
BAD_PADDING = 4
INVARIANT_MESSAGES = {
    BAD_MOVER_TOTAL: "the mover does not have 15 checkers",
    BAD_OPPONENT_TOTAL: "the opponent does not have 15 checkers",
    NEGATIVE_COUNTER: "a bar, waiting or off counter is negative",
    BAD_PADDING: "the board's padding is not zero",
}


@njit(cache=True)
def check_invariants(board):
    """0 if the board is a possible position, else the code of the first violation.

    A point holds one colour by construction of the signed layout, so what can go
    wrong is a side's total (points + bar + waiting + off must be 15), a negative
    counter or junk in the padding.
    """
    for i in range(BAR, OPP_OFF + 1):
        if board[i] < 0:
            return NEGATIVE_COUNTER
    for i in range(OPP_OFF + 1, BOARD_SIZE):
        if board[i] != 0:
            return BAD_PADDING
    mover = board[BAR] + board[WAITING] + board[OFF]
    opp = board[OPP_BAR] + board[OPP_WAITING] + board[OPP_OFF]
    for i in range(N_POINTS):
        v = board[i]
        if v > 0:
            mover += v
        else:
            opp -= v
    if mover != N_CHECKERS:
        return BAD_MOVER_TOTAL
    if opp != N_CHECKERS:
        return BAD_OPPONENT_TOTAL
    return OK


@njit(cache=True)
def check_rows(boards, first, stop):
    """``check_invariants`` over rows ``first..stop``: the first non-zero code, or OK."""
    for i in range(first, stop):
        code = check_invariants(boards[i])
        if code != OK:
            return code
    return OK
