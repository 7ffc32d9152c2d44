"""The ``random`` strategy's kernel: one legal play drawn uniformly, found without a level table.

``plays.enumerate_plays`` keeps every node of every level.  Here a segment is
searched depth first, keeping only the plays, each as a two-word key; the
result is the same set of distinct resulting positions and the same
``dice_used`` as ``enumerate_plays`` for every rule knob (docs/rules.md section 2)
(``enumerate_uniform``), and ``uniform_play`` draws one of them, each equally
likely, from the game's choice stream.

Why the search is exact:

* A node's leaf status is decided by *unpruned* legality: a node is a leaf
  when the segment is done, the mover has all 15 off, or no single move is
  legal with the next die.  Every leaf is a real play of its depth, and the
  plays are the leaves of the deepest depth reached (the maximal-dice rule,
  ``_leaf``).
* A non-double ``[a, b]`` tries both orders, higher die first (``_two_dice``).
  A lower-first sequence (y, x) is skipped when x was a legal higher-die
  first move and y followed it there: the same two (source, die) moves reach
  the same position (a move's landing follows from its source and die, and
  any landing on a blot hits it).  Two plays with different (source, die)
  pairs can only meet when their net changes agree, which takes one of: both
  move one checker (the second move starts where the first ended, or ends
  where the first started), both bear two checkers off, or both enter one bar
  and one waiting checker (the dice swapped).  Only plays of those kinds (the
  suspects of ``_second_moves``) go through the hash set; any other play is a
  position of its own.  When no play uses both dice, the higher die's single
  moves are the plays if there are any, else the lower die's; one move from
  the start, so distinct sources are distinct plays (``_single_moves``).
* A run of equal dice (a 4-die doubles segment, each half of the European
  8-die segment) is searched (``_runs``) in one canonical order: source rank
  non-increasing, the bar (rank 26) before waiting (25) before points 24..1.
  Within a run the position is fixed by the *multiset* of sources, and the
  multiset by the position (solve the net change point by point from the
  top), so each canonical sequence is a different position.  Any legal order
  sorts into canonical order by swaps of adjacent moves that stay legal: the
  higher source cannot be the lower move's landing point, a bar entry only
  lifts ``bar_first``, a higher move never re-locks the home board, never
  un-homes a checker and never lowers the off count, and a bear-off from the
  highest point stays one -- with one exception.  Under ``home_after_all_in =
  bearoff-only`` the move that brings the last checker home forbids every later
  move inside the home board, so an inside-home move may have to come first
  (2-2, the last checker outside on 8: 5->3 then 8->6 is legal, 8->6 then
  5->3 is not).  Such a sequence sorts into (canonical moves, never all
  home) + (the completing move) + (bear-offs), so the search also allows that
  one move out of order, right after an inside-home move (``_allowed``).  That
  can reach a position twice, so those rules deduplicate the plays
  (``_may_repeat``).  Under ``hitting = after-home``, while no checker of the
  mover is home, a hit must wait for the move that brings one home, which
  may come late in canonical order.  Before that move nothing is hit, so
  those moves sort into canonical order ending with it (it has the lowest
  source of them); after it hits are allowed and the rest sorts again.  So
  the search starts the run afresh after that move (``_next_limit``), and
  deduplicates the plays.
* ``enter_first`` forbids point moves (all of them, or those passing point
  13) while checkers wait, by the move's source and die alone.  Canonical
  order plays every entry before any point move, so each point move comes
  with no more checkers waiting than in any other order of the same moves.
* Between runs (the European 8-die segment), plays from different first-half
  positions can coincide (d = 2, c = 5: 13->11 11->6 and 8->6 13->8), so the
  plays are deduplicated.

``uniform_play`` does not deduplicate to draw: it draws among all the plays
found and keeps the draw with probability one over its number of copies
(``_uniform_pick``), which is uniform over the distinct positions.  In the
European game that halves the time of a random strategy's eight-die segment.

Deduplication is exact: keys that meet in the hash set (same slot chain and
fingerprint) are compared in full, so two positions are never merged.

A key: the mover's count (0..15) on each of its 27 places, one nibble each,
and which of the start's opposing blots were hit.  The opponent's checkers
change only by being hit, so the key and the start give the whole board.

Scratch memory is one int64 array (``new_uniform_scratch``): a header, the
search's own state, the hash set and the plays.  One array because every
array a call passes is seven machine words, and in a function compiled with
Numba's runtime atomic reference counts too, which matters for a call that
takes half a microsecond.  The search's steps take that array and scalars;
the kernels run without the runtime, so handing it from step to step counts
nothing (see "the search" below).  When the plays do not fit the
kernels return FULL without touching the board or the generator: grow the
scratch (``grown_uniform_scratch``) and call again, as ``play_uniform`` does.
"""

import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic

from acesim.kernels.bits import lowest_set
from acesim.kernels.board import (
    HOME_BITS,
    MR_BEAROFF_ONLY,
    OUTSIDE_BITS,
    RANK_BAR,
    RANK_WAITING,
    die_played_alone,
    hits_barred,
    legal_sources,
    move_rules,
)
from acesim.kernels.jit import njit
from acesim.kernels.layout import (
    BAR,
    BOARD_DTYPE,
    BOARD_SIZE,
    HOME_TOP,
    MAX_SEGMENT,
    N_CHECKERS,
    N_POINTS,
    OFF,
    OPP_BAR,
    WAITING,
)
from acesim.kernels.rng import below

FULL = -1  # the scratch has no room for the plays: grow it and call again
# Draws ``uniform_play`` may refuse before it deduplicates: a pass over the plays
# per draw costs about what hashing them once does after eight or so.
DEFAULT_TRIES = 8

# A set of sources is a bit mask over ranks (board.legal_sources; for points, the
# bits of board.occupied_mask); with the die, a source rank fixes the move.

# The key of a position: nibble n holds the mover's count at point n + 1
# (n = 0..23), on the bar (24), waiting (25) or off (26); nibbles 0..14 are
# word 0, nibbles 15..26 the low 48 bits of word 1, whose bits from 48 are the
# start's blots (in point order, at most 15) that were hit.  No sign bit is used.
_NIB_BAR = 24
_NIB_WAITING = 25
_NIB_OFF = 26
_SPLIT = 15
_HIT_SHIFT = 48
_SHIFT_BAR = 4 * (_NIB_BAR - _SPLIT)
_SHIFT_WAITING = 4 * (_NIB_WAITING - _SPLIT)
_SHIFT_OFF = 4 * (_NIB_OFF - _SPLIT)
_POINTS_HIGH = (1 << (4 * (N_POINTS - _SPLIT))) - 1  # word 1's nibbles of points 16..24
assert _SHIFT_OFF + 4 <= _HIT_SHIFT and _HIT_SHIFT + N_CHECKERS <= 63

_DEPTHS = MAX_SEGMENT + 1
_N_RANKS = RANK_BAR + 1
_MIN_SLOTS = 64
_PREFETCH_AHEAD = 16  # keys between a slot's prefetch and its probe

# The scratch array: header, then the search's state, the hash set, the plays.
_CAPACITY = 0  # how many plays fit
_SLOTS = 1  # the hash set's size, a power of two
_STAMP = 2  # the hash set's current stamp
_TRIES = 3  # refused draws of ``_uniform_pick`` before it deduplicates
_PEND = 8  # per depth: the source ranks still to try
_OCC = _PEND + _DEPTHS  # per depth: the mover's occupied points (board.occupied_mask)
_LIMIT = _OCC + _DEPTHS  # per depth: the highest source rank allowed (canonical order)
_AFTER = _LIMIT + _DEPTHS  # non-double: per higher-die source, the lower die's sources after it
_HIT = _AFTER + _N_RANKS  # per landing point (0: off), the key bit of its blot, or 0
_BLOTS = _HIT + N_POINTS + 1  # per key bit of a blot, its point
_KEYS = _BLOTS + N_CHECKERS  # per depth: the node's key (depth 0: the start)
_MOVES = _KEYS + 2 * _DEPTHS  # per die and source rank: the move's key change, 3 words
_TABLE = _MOVES + 3 * 7 * _N_RANKS  # the hash set: stamp << 48 | fingerprint << 32 | play

_STAMP_SHIFT = 48
_STAMP_MAX = 2**15 - 1

_K0 = np.uint64(0x9E3779B97F4A7C15)
_K1 = np.uint64(0xC2B2AE3D27D4EB4F)

@njit(cache=True)
def uniform_scratch(capacity):
    """Scratch memory (one int64 array) for up to ``capacity`` plays; for jitted callers."""
    slots = _MIN_SLOTS
    while slots < 2 * capacity:
        slots *= 2
    scratch = np.zeros(_TABLE + slots + 2 * capacity, dtype=np.int64)
    scratch[_CAPACITY] = capacity
    scratch[_SLOTS] = slots
    scratch[_TRIES] = DEFAULT_TRIES
    return scratch


def new_uniform_scratch(capacity: int = 4096) -> np.ndarray:
    """Scratch memory (one int64 array) for up to ``capacity`` plays of a segment."""
    return uniform_scratch(max(int(capacity), _MIN_SLOTS))


@njit(cache=True)
def grown_uniform_scratch(scratch):
    """A scratch with room for twice as many plays (the contents are not kept)."""
    return uniform_scratch(2 * scratch[_CAPACITY])


@intrinsic
def _prefetch(typingctx, array, index):
    """Hint the CPU to cache ``array[index]`` (``llvm.prefetch``); changes no value."""

    def codegen(context, builder, signature, args):
        ir = cgutils.ir
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        pointer = builder.bitcast(builder.gep(data, [args[1]]), cgutils.voidptr_t)
        i32 = ir.IntType(32)
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t, i32, i32, i32])
        )
        # a read, kept in all cache levels, data
        builder.call(fn, [pointer, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


# --- scalar helpers: no array arguments, so inlining them costs no reference counting ---


@njit(cache=True, inline="always")
def _nibble(a, b, nib):
    """The mover's count at nibble ``nib`` of the key ``(a, b)``."""
    if nib < _SPLIT:
        return (a >> (4 * nib)) & 15
    return (b >> (4 * (nib - _SPLIT))) & 15


@njit(cache=True, inline="always")
def _landing(rank, die):
    """The point a move from ``rank`` with ``die`` lands on; 0 when it bears off."""
    if rank >= RANK_WAITING:
        return N_POINTS + 1 - die
    return max(rank - die, 0)


@njit(cache=True, inline="always")
def _moved(a, b, rank, die, hit_bit):
    """The key after the move from ``rank`` with ``die`` (``board.apply_move`` on keys).

    ``hit_bit`` is the key bit of a blot of the start on the landing point (else
    0): a landing there hits it unless an earlier move did; either way it is set.
    """
    if rank == RANK_BAR:
        b -= 1 << _SHIFT_BAR
    elif rank == RANK_WAITING:
        b -= 1 << _SHIFT_WAITING
    elif rank <= _SPLIT:
        a -= 1 << (4 * (rank - 1))
    else:
        b -= 1 << (4 * (rank - 1 - _SPLIT))
    dst = _landing(rank, die)
    if dst == 0:
        return a, b + (1 << _SHIFT_OFF)
    if dst <= _SPLIT:
        return a + (1 << (4 * (dst - 1))), b | hit_bit
    return a, (b + (1 << (4 * (dst - 1 - _SPLIT)))) | hit_bit


@njit(cache=True, inline="always")
def _node_sources(a, b, occupied, die, rule_bits, open_bits, blot_bits):
    """``board.legal_sources`` at the node keyed ``(a, b)``; none once the mover has all 15 off."""
    off = (b >> _SHIFT_OFF) & 15
    if off == N_CHECKERS:
        return 0  # the game ended with the last checker off: nothing more is played
    return legal_sources((b >> _SHIFT_BAR) & 15, (b >> _SHIFT_WAITING) & 15, off, die, rule_bits, open_bits,
                         blot_bits, occupied)


@njit(cache=True, inline="always")
def _allowed(bits, limit, rule_bits, a, b, occupied, die):
    """The legal sources ``bits`` that canonical order allows at a node.

    Ranks up to ``limit``; and under bearoff-only, right after an inside-home
    move (``limit <= 6``), the move that brings the last checker home: once all
    are home no inside-home move may follow it, so it may break the order.
    """
    allowed = bits & ((2 << limit) - 1)
    if rule_bits & MR_BEAROFF_ONLY and limit <= HOME_TOP:
        outside = occupied & OUTSIDE_BITS
        if (
            outside & bits
            and outside & (outside - 1) == 0
            and (b >> _SHIFT_BAR) & 15 == 0
            and (b >> _SHIFT_WAITING) & 15 == 0
        ):
            s = lowest_set(outside)  # the only point outside; with one checker it completes
            if _nibble(a, b, s - 1) == 1 and s - die <= HOME_TOP:
                allowed |= outside
    return allowed


@njit(cache=True, inline="always")
def _next_limit(rank, same_die, rule_bits, b, occupied, occupied_after):
    """The highest source rank canonical order allows after a move from ``rank``.

    A run of equal dice goes on in canonical order and a new run starts afresh.
    So does the rest of a run after the move that first brings a checker home
    while hits wait for it (``hitting = after-home``): any play sorts into
    canonical moves that hit nothing up to that move, then canonical moves
    from the position it reached, where hits are allowed.  ``b`` is the
    key's word 1 and ``occupied`` the occupied points before the move.
    """
    if not same_die:
        return RANK_BAR
    if hits_barred(rule_bits, (b >> _SHIFT_OFF) & 15, occupied) and occupied_after & HOME_BITS:
        return RANK_BAR
    return rank


@njit(cache=True, inline="always")
def _occupied_after(occupied, a, b, rank, landing):
    """The occupied points after the move from ``rank`` to ``landing`` (``(a, b)``: before)."""
    if rank <= N_POINTS and _nibble(a, b, rank - 1) == 1:
        occupied &= ~(1 << rank)
    return occupied | ((1 << landing) & ~1)


@njit(cache=True, inline="always")
def _hash(a, b):
    """Multiplicative: the top bits depend on every bit of the key; slots come from them."""
    return np.uint64(a) * _K0 ^ np.uint64(b) * _K1


# --- the search ----------------------------------------------------------------------------
# Why the split into steps is cheap.  The kernels that search (``enumerate_uniform``,
# ``uniform_play``) allocate nothing, so they are compiled without Numba's runtime
# (``_nrt=False``), and a roll's steps are inlined into them (``inline="always"``): in a
# function without the runtime, binding the scratch to a step's parameters counts no
# references, and an inlined step costs no call.  Both alternatives were measured
# (same-process A/B of ``random`` games): ``_set_start`` and ``_two_dice`` as calls to
# functions without the runtime, one call each per roll, cost about 3%; the steps inlined
# into kernels with the runtime, where each array a step binds is counted, about 5%.
# Only ``_runs``, the depth-first search of a segment with a run of equal dice, is a call
# of its own (without the runtime): it does enough per segment that one call is nothing.


@njit(cache=True, inline="always")
def _set_start(board, scratch):
    """The start's key into the scratch, and its blots' key bits: ``(a, b, occupied, open_bits, blot_bits)``.

    ``occupied`` is the mover's points (``board.occupied_mask``), ``open_bits``
    the points a checker may land on (``board.open_mask``), ``blot_bits`` the
    opposing blots (``board.blot_mask``).  A blot's key bit is kept per landing
    point, so a move sets it without looking at the board.
    """
    a = 0
    b = 0
    occupied = np.int64(0)  # int64 from the start: a literal 0 would compile ``_runs`` for it too
    open_bits = np.int64(0)
    blots = 0
    blot_bits = np.int64(0)
    scratch[_HIT] = 0  # bearing off hits nothing
    for i in range(N_POINTS):
        v = np.int64(board[i])
        scratch[_HIT + i + 1] = 0
        if v > 0:
            occupied |= 1 << (i + 1)
            if i < _SPLIT:
                a += v << (4 * i)
            else:
                b += v << (4 * (i - _SPLIT))
        elif v == -1:
            scratch[_HIT + i + 1] = 1 << (_HIT_SHIFT + blots)
            scratch[_BLOTS + blots] = i + 1
            blots += 1
            blot_bits |= 1 << (i + 1)
        if v >= -1:
            open_bits |= 1 << (i + 1)
    bar = np.int64(board[BAR])
    waiting = np.int64(board[WAITING])
    off = np.int64(board[OFF])
    b += (bar << _SHIFT_BAR) + (waiting << _SHIFT_WAITING) + (off << _SHIFT_OFF)
    scratch[_KEYS] = a
    scratch[_KEYS + 1] = b
    return a, b, occupied, open_bits, blot_bits


# --- a non-double: two dice, both orders ---------------------------------------------------


@njit(cache=True, inline="always")
def _second_moves(scratch, a1, b1, r1, t1, d2, second, order, hi_bits, n, suspects):
    """The plays whose first move is ``r1 -> t1`` and whose second, with ``d2``, is from ``second``.

    ``(a1, b1)`` is the key after the first move.  Returns ``(n, suspects)``
    after them, or ``(FULL, 0)``.  A play that may share its position with
    another (module docstring) is a suspect, kept at the back of the plays.
    """
    cap = scratch[_CAPACITY]
    plays = _TABLE + scratch[_SLOTS]
    while second:
        r2 = lowest_set(second)
        second &= second - 1
        if order == 1 and (hi_bits >> r2) & 1 and (scratch[_AFTER + r2] >> r1) & 1:
            continue  # r2 was a higher-die first move and r1 followed it: seen
        if n + suspects >= cap:
            return FULL, 0
        t2 = _landing(r2, d2)
        a2, b2 = _moved(a1, b1, r2, d2, scratch[_HIT + t2])
        if r2 == t1 or t2 == r1 or t1 == t2 == 0 or r1 + r2 == RANK_WAITING + RANK_BAR:
            # one checker moved twice, two borne off, or the bar and waiting entered
            j = plays + 2 * (cap - 1 - suspects)
            suspects += 1
        else:
            j = plays + 2 * n
            n += 1
        scratch[j] = a2
        scratch[j + 1] = b2
    return n, suspects


@njit(cache=True, inline="always")
def _both_orders(scratch, a, b, occupied, open_bits, blot_bits, hi, lo, hi_bits, lo_bits, rule_bits):
    """The plays of both dice of ``[hi, lo]``, higher die first: ``(n, suspects)`` or ``(FULL, 0)``.

    ``hi_bits`` and ``lo_bits`` are each die's sources at the start.  The
    lower-die-first order skips a play the higher-die-first order made with the
    same two (source, die) moves, so the higher die's pairs are noted in
    ``_AFTER`` first.
    """
    n = 0
    suspects = 0
    for order in range(2):
        if order == 0:
            rest, d1, d2 = hi_bits, hi, lo
        else:
            rest, d1, d2 = lo_bits, lo, hi
        while rest:
            r1 = lowest_set(rest)
            rest &= rest - 1
            t1 = _landing(r1, d1)
            a1, b1 = _moved(a, b, r1, d1, scratch[_HIT + t1])
            second = _node_sources(a1, b1, _occupied_after(occupied, a, b, r1, t1), d2, rule_bits, open_bits,
                                   blot_bits)
            if order == 0:
                scratch[_AFTER + r1] = second
            n, suspects = _second_moves(scratch, a1, b1, r1, t1, d2, second, order, hi_bits, n, suspects)
            if n == FULL:
                return FULL, 0
    return n, suspects


@njit(cache=True, inline="always")
def _single_moves(scratch, a, b, die, sources):
    """The plays of one move with ``die`` from the start: ``(n, repeats, dice used)`` or FULL.

    One move from the start, so distinct sources give distinct positions; with
    no source the single play is the start itself, of no dice.
    """
    plays = _TABLE + scratch[_SLOTS]
    if sources == 0:
        scratch[plays] = a
        scratch[plays + 1] = b
        return 1, 0, 0
    cap = scratch[_CAPACITY]
    n = 0
    while sources:
        r = lowest_set(sources)
        sources &= sources - 1
        if n >= cap:
            return FULL, 0, 0
        a1, b1 = _moved(a, b, r, die, scratch[_HIT + _landing(r, die)])
        scratch[plays + 2 * n] = a1
        scratch[plays + 2 * n + 1] = b1
        n += 1
    return n, 0, 1


@njit(cache=True, inline="always")
def _two_dice(scratch, a, b, occupied, open_bits, blot_bits, die_a, die_b, rule_bits):
    """The plays of the non-double ``[die_a, die_b]``: ``(n, repeats, dice used)`` or FULL.

    The plays of both dice if there are any, else the higher die's single
    moves if it has any, else the lower die's.  The suspects of ``_both_orders``
    are the repeats: they move down to follow the distinct plays (a forward
    copy, so nothing is overwritten before it is read).
    """
    hi = max(die_a, die_b)
    lo = min(die_a, die_b)
    bar = (b >> _SHIFT_BAR) & 15
    waiting = (b >> _SHIFT_WAITING) & 15
    off = (b >> _SHIFT_OFF) & 15
    hi_bits = legal_sources(bar, waiting, off, hi, rule_bits, open_bits, blot_bits, occupied)
    lo_bits = legal_sources(bar, waiting, off, lo, rule_bits, open_bits, blot_bits, occupied)
    n, suspects = _both_orders(scratch, a, b, occupied, open_bits, blot_bits, hi, lo, hi_bits, lo_bits, rule_bits)
    if n == FULL:
        return FULL, 0, 0
    if n + suspects == 0:
        die = die_played_alone(hi, lo, hi_bits != 0)
        return _single_moves(scratch, a, b, die, hi_bits if die == hi else lo_bits)
    cap = scratch[_CAPACITY]
    plays = _TABLE + scratch[_SLOTS]
    for i in range(suspects):
        j = plays + 2 * (cap - suspects + i)
        scratch[plays + 2 * (n + i)] = scratch[j]
        scratch[plays + 2 * (n + i) + 1] = scratch[j + 1]
    return n, suspects, 2


# --- a fixed order of dice: runs of equal dice, depth first ---------------------------------


@njit(cache=True, inline="always")
def _set_move_keys(scratch, segment, n_dice):
    """Each die's moves as key changes, per source rank: add ``(da, db)``, then set the blot bit.

    A move's change follows from its source and die alone, so the search
    reads it from the table instead of working it out per node.
    """
    dice = 0
    for j in range(n_dice):
        die = segment[j]
        if not (dice >> die) & 1:
            dice |= 1 << die
            base = _MOVES + 3 * _N_RANKS * die
            for r in range(1, _N_RANKS):
                da, db = _moved(0, 0, r, die, 0)
                scratch[base + 3 * r] = da
                scratch[base + 3 * r + 1] = db
                scratch[base + 3 * r + 2] = scratch[_HIT + _landing(r, die)]


@njit(cache=True, inline="always")
def _leaf(scratch, depth, a, b, n, used):
    """Add the leaf ``(a, b)`` of ``depth`` dice if no play uses more: ``(n, used)`` or ``(FULL, 0)``.

    A deeper leaf drops the plays found so far (the maximal-dice rule).
    """
    if depth < used:
        return n, used
    if depth > used:
        used, n = depth, 0
    if n >= scratch[_CAPACITY]:
        return FULL, 0
    plays = _TABLE + scratch[_SLOTS]
    scratch[plays + 2 * n] = a
    scratch[plays + 2 * n + 1] = b
    return n + 1, used


@njit(cache=True, inline="always")
def _last_moves(scratch, a, b, sources, die, n_dice, n, used):
    """The children of ``(a, b)`` by the last die from ``sources``, as plays: ``(n, used)`` or FULL.

    ``sources`` is not empty, and each child is a play of all ``n_dice`` dice.
    """
    if n_dice > used:
        used, n = n_dice, 0
    cap = scratch[_CAPACITY]
    plays = _TABLE + scratch[_SLOTS]
    base = _MOVES + 3 * _N_RANKS * die
    while sources:
        r = lowest_set(sources)
        sources &= sources - 1
        if n >= cap:
            return FULL, 0
        move = base + 3 * r
        scratch[plays + 2 * n] = a + scratch[move]
        scratch[plays + 2 * n + 1] = (b + scratch[move + 1]) | scratch[move + 2]
        n += 1
    return n, used


@njit(cache=True, inline="always")
def _last_two(scratch, segment, k, a, b, occupied, sources, n_dice, n, used, open_bits, blot_bits, rule_bits):
    """The plays below the node ``(a, b)`` of depth ``k = n_dice - 2``: ``(n, used)`` or FULL.

    By a loop rather than the stack: each child is a leaf or the parent of plays.
    """
    die = segment[k]
    die2 = segment[k + 1]
    base = _MOVES + 3 * _N_RANKS * die
    while sources:
        r = lowest_set(sources)
        sources &= sources - 1
        move = base + 3 * r
        a1 = a + scratch[move]
        b1 = (b + scratch[move + 1]) | scratch[move + 2]
        o1 = _occupied_after(occupied, a, b, r, _landing(r, die))
        bits = _node_sources(a1, b1, o1, die2, rule_bits, open_bits, blot_bits)
        if bits == 0:
            n, used = _leaf(scratch, k + 1, a1, b1, n, used)
        else:
            # a run of equal dice goes on in canonical order; a new run starts afresh
            more = _allowed(bits, _next_limit(r, die2 == die, rule_bits, b, occupied, o1), rule_bits, a1, b1, o1,
                            die2)
            if more:
                n, used = _last_moves(scratch, a1, b1, more, die2, n_dice, n, used)
        if n == FULL:
            return FULL, 0
    return n, used


@njit(cache=True, inline="always")
def _visit(scratch, segment, n_dice, k, n, used, open_bits, blot_bits, rule_bits):
    """Enter the node of depth ``k``: ``(n, used)`` or ``(FULL, 0)``.

    A leaf is added; the children of the last die, or of the last two, are
    played here; otherwise the sources canonical order allows are left in
    ``_PEND`` for ``_descend``.
    """
    scratch[_PEND + k] = 0
    if k >= n_dice:
        return _leaf(scratch, k, scratch[_KEYS + 2 * k], scratch[_KEYS + 2 * k + 1], n, used)
    a = scratch[_KEYS + 2 * k]
    b = scratch[_KEYS + 2 * k + 1]
    occupied = scratch[_OCC + k]
    die = segment[k]
    bits = _node_sources(a, b, occupied, die, rule_bits, open_bits, blot_bits)
    if bits == 0:
        # the game is over or the die cannot be played
        return _leaf(scratch, k, a, b, n, used)
    allowed = _allowed(bits, scratch[_LIMIT + k], rule_bits, a, b, occupied, die)
    if allowed and k == n_dice - 1:
        return _last_moves(scratch, a, b, allowed, die, n_dice, n, used)
    if allowed and k == n_dice - 2:
        return _last_two(scratch, segment, k, a, b, occupied, allowed, n_dice, n, used, open_bits, blot_bits,
                         rule_bits)
    scratch[_PEND + k] = allowed
    return n, used


@njit(cache=True, inline="always")
def _descend(scratch, segment, k, rule_bits):
    """Step from the node of depth ``k`` to its next child still to try; False when none is left."""
    p = scratch[_PEND + k]
    if p == 0:
        return False
    r = lowest_set(p)
    scratch[_PEND + k] = p & (p - 1)
    die = segment[k]
    a = scratch[_KEYS + 2 * k]
    b = scratch[_KEYS + 2 * k + 1]
    move = _MOVES + 3 * _N_RANKS * die + 3 * r
    scratch[_KEYS + 2 * k + 2] = a + scratch[move]
    scratch[_KEYS + 2 * k + 3] = (b + scratch[move + 1]) | scratch[move + 2]
    occupied = scratch[_OCC + k]
    scratch[_OCC + k + 1] = _occupied_after(occupied, a, b, r, _landing(r, die))
    scratch[_LIMIT + k + 1] = _next_limit(r, segment[k + 1] == die, rule_bits, b, occupied, scratch[_OCC + k + 1])
    return True


@njit(cache=True, inline="always")
def _depth_first(scratch, segment, n_dice, occupied, open_bits, blot_bits, rule_bits):
    """The plays of ``segment[:n_dice]`` in its order: ``(n, dice used)`` or ``(FULL, 0)``.

    From the start (``_set_start``), with the moves' key changes (``_set_move_keys``).
    """
    scratch[_OCC] = occupied
    scratch[_LIMIT] = RANK_BAR
    k = 0
    n, used = 0, 0
    # one call site of the inlined ``_visit``, not one for the root and one for the rest: Numba types
    # and compiles every copy again (docs/performance-log.md)
    while True:
        n, used = _visit(scratch, segment, n_dice, k, n, used, open_bits, blot_bits, rule_bits)
        if n == FULL:
            return FULL, 0
        while not _descend(scratch, segment, k, rule_bits):
            if k == 0:
                return n, used
            k -= 1
        k += 1


@njit(cache=True, inline="always")
def _may_repeat(segment, used, rule_bits, hits_wait):
    """Whether the plays of ``segment[:used]`` in canonical order can reach a position twice.

    One run of one die in canonical order reaches each position once; a second
    run, the bearoff-only exception, or a run restarted where the mover first
    reaches home (``hits_wait``: hits are barred at the start) can reach a position twice.
    """
    if rule_bits & MR_BEAROFF_ONLY or hits_wait:
        return True
    for j in range(1, used):
        if segment[j] != segment[j - 1]:
            return True
    return False


@njit(cache=True, _nrt=False)
def _runs(scratch, segment, n_dice, occupied, open_bits, blot_bits, rule_bits):
    """The plays of ``segment[:n_dice]``, each run of equal dice in canonical order.

    Returns ``(n, repeats, dice used)`` or ``(FULL, 0, 0)``, as ``_search`` does.
    """
    _set_move_keys(scratch, segment, n_dice)
    n, used = _depth_first(scratch, segment, n_dice, occupied, open_bits, blot_bits, rule_bits)
    if n == FULL:
        return FULL, 0, 0
    hits_wait = hits_barred(rule_bits, (scratch[_KEYS + 1] >> _SHIFT_OFF) & 15, occupied)
    if _may_repeat(segment, used, rule_bits, hits_wait):
        return 0, n, used  # all of them may repeat
    return n, 0, used


# --- any segment -----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _search(board, rules, segment, n_dice, scratch):
    """The keys of the legal plays of ``segment[:n_dice]``, into the scratch.

    Returns ``(n, repeats, dice used)``, or ``(FULL, 0, 0)``: the first ``n``
    plays are distinct positions, and the ``repeats`` after them are distinct
    from those but may repeat among themselves (``_distinct`` removes the
    copies).
    """
    a, b, occupied, open_bits, blot_bits = _set_start(board, scratch)
    doubles_segment = n_dice >= 2 and segment[0] == segment[1]
    rule_bits = move_rules(rules, segment[0], segment[1] if n_dice >= 2 else 0)
    if n_dice == 2 and not doubles_segment:
        return _two_dice(scratch, a, b, occupied, open_bits, blot_bits, segment[0], segment[1], rule_bits)
    return _runs(scratch, segment, n_dice, occupied, open_bits, blot_bits, rule_bits)


@njit(cache=True, inline="always")
def _distinct(scratch, n, repeats):
    """Deduplicate the ``repeats`` plays after the ``n`` distinct ones, in place: the count.

    Each distinct one is moved up to follow the distinct plays.  A slot of the
    hash set holds a stamp (older stamps read as empty, so the set is almost
    never cleared), 16 bits of the hash and the play's index; keys whose slot
    and bits meet are compared in full.  Slots are prefetched a few keys
    ahead, so that the cache misses of a large set overlap.
    """
    if repeats == 0:
        return n
    plays = _TABLE + scratch[_SLOTS]
    src = plays + 2 * n
    size, bits = _MIN_SLOTS, 6
    while size < 2 * repeats:
        size *= 2
        bits += 1
    shift = np.uint64(64 - bits)
    fp_shift = np.uint64(48 - bits)
    mask = size - 1
    s = scratch[_STAMP] + 1
    if s > _STAMP_MAX:
        scratch[_TABLE:plays] = 0
        s = 1
    scratch[_STAMP] = s
    stamp = s << _STAMP_SHIFT
    for i in range(repeats):
        if i + _PREFETCH_AHEAD < repeats:
            j = src + 2 * (i + _PREFETCH_AHEAD)
            _prefetch(scratch, _TABLE + np.int64(_hash(scratch[j], scratch[j + 1]) >> shift))
        j = src + 2 * i
        ka, kb = scratch[j], scratch[j + 1]
        h = _hash(ka, kb)
        slot = np.int64(h >> shift)
        tag = stamp | (np.int64((h >> fp_shift) & np.uint64(0xFFFF)) << 32)
        new = True
        while True:
            entry = scratch[_TABLE + slot]
            if entry < stamp:
                break
            if entry >> 32 == tag >> 32:
                j = plays + 2 * (entry & 0xFFFFFFFF)
                if scratch[j] == ka and scratch[j + 1] == kb:
                    new = False
                    break
            slot = (slot + 1) & mask
        if new:
            scratch[_TABLE + slot] = tag | n
            scratch[plays + 2 * n] = ka
            scratch[plays + 2 * n + 1] = kb
            n += 1
    return n


@njit(cache=True, inline="always")
def _uniform_pick(scratch, n, repeats, choices):
    """The index of a play drawn uniformly among the distinct ones, from the choice stream.

    The ``n`` plays first are distinct and the ``repeats`` after them may
    repeat among themselves.  A draw among all ``n + repeats`` is kept with
    probability 1 / (its copies): each distinct play is then kept with
    probability 1 / (n + repeats) per draw, the same for all, so the pick is
    uniform over the distinct plays without deduplicating them.  Counting the
    copies is one sequential pass, far cheaper than hashing every play.  The
    expected number of draws is (plays found) / (distinct plays): in European
    games 1.2 for a median eight-die segment, 1.6 weighted by size, 3.6 at most.
    After ``scratch[_TRIES]`` refused draws the plays are deduplicated and one
    is drawn among them, which keeps the cost bounded and the pick uniform.
    """
    if repeats == 0:
        return below(choices, n)
    plays = _TABLE + scratch[_SLOTS]
    total = n + repeats
    for _ in range(scratch[_TRIES]):
        i = below(choices, total)
        if i < n:
            return i
        ka = scratch[plays + 2 * i]
        kb = scratch[plays + 2 * i + 1]
        copies = 0
        for j in range(plays + 2 * n, plays + 2 * total, 2):
            copies += (scratch[j] == ka) & (scratch[j + 1] == kb)
        if copies == 1 or below(choices, copies) == 0:
            return i
    return below(choices, _distinct(scratch, n, repeats))


@njit(cache=True, inline="always")
def _write_play(board, scratch, i):
    """Turn ``board``, the start of the last search, into its play ``i``, in place.

    Only what differs from the start is written: the points whose count
    changed, the blots that were hit, and the mover's bar, waiting and off.
    """
    plays = _TABLE + scratch[_SLOTS]
    a = scratch[plays + 2 * i]
    b = scratch[plays + 2 * i + 1]
    changed = a ^ scratch[_KEYS]
    while changed:
        p = lowest_set(changed) >> 2  # points 1..15: nibbles 0..14 of word 0
        board[p] = (a >> (4 * p)) & 15
        changed &= ~(15 << (4 * p))
    changed = (b ^ scratch[_KEYS + 1]) & _POINTS_HIGH
    while changed:
        p = lowest_set(changed) >> 2  # points 16..24: nibbles 15..23, the low bits of word 1
        board[_SPLIT + p] = (b >> (4 * p)) & 15
        changed &= ~(15 << (4 * p))
    hits = b >> _HIT_SHIFT
    while hits:
        j = lowest_set(hits)
        hits &= hits - 1
        point = scratch[_BLOTS + j]
        board[point - 1] = _nibble(a, b, point - 1)  # the blot went; the hitter may have too
        board[OPP_BAR] += 1
    board[BAR] = (b >> _SHIFT_BAR) & 15
    board[WAITING] = (b >> _SHIFT_WAITING) & 15
    board[OFF] = (b >> _SHIFT_OFF) & 15


# --- the kernels ------------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def enumerate_uniform(board, rules, segment, n_dice, scratch):
    """Find the distinct legal plays of ``segment[:n_dice]`` from ``board``.

    Returns ``(status, count, dice_used)``: ``status`` is 0, or FULL when the
    scratch is too small (grow it with ``grown_uniform_scratch`` and call
    again).  ``play_boards`` writes the plays out as boards.  When nothing is
    playable the single play is the unchanged board, with ``dice_used = 0``.
    ``board`` is not changed.
    """
    n, repeats, used = _search(board, rules, segment, n_dice, scratch)
    if n == FULL:
        return FULL, 0, 0
    return 0, _distinct(scratch, n, repeats), used


@njit(cache=True)
def play_boards(board, scratch, count):
    """The ``count`` plays the last ``enumerate_uniform`` from ``board`` found, as boards."""
    out = np.empty((count, BOARD_SIZE), dtype=BOARD_DTYPE)
    for i in range(count):
        row = out[i]
        row[:] = board
        _write_play(row, scratch, i)
    return out


@njit(cache=True, _nrt=False)
def uniform_play(board, rules, segment, n_dice, choices, scratch):
    """Play, in place on ``board``, one of the distinct legal plays, each equally likely.

    Returns ``(status, dice_used)``.  The pick is ``_uniform_pick``'s, drawn
    from the choice stream (one draw when no play can repeat, a few more when
    some can).  On FULL neither ``board`` nor ``choices`` is touched: grow the
    scratch and call again (``play_uniform`` does), or use another engine.
    """
    n, repeats, used = _search(board, rules, segment, n_dice, scratch)
    if n == FULL:
        return FULL, 0
    _write_play(board, scratch, _uniform_pick(scratch, n, repeats, choices))
    return 0, used


@njit(cache=True)
def play_uniform(board, rules, segment, n_dice, choices, scratch):
    """``uniform_play``, growing the scratch as needed: ``(scratch, dice_used)``."""
    while True:
        status, used = uniform_play(board, rules, segment, n_dice, choices, scratch)
        if status != FULL:
            return scratch, used
        scratch = grown_uniform_scratch(scratch)
