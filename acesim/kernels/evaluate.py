"""Features of a position and the linear score the heuristic strategies play by.

A position is scored from the mover's view right after its play.  Every
feature is a plain count or difference, named in ``FEATURES`` (the order of
the weight vectors in ``acesim/strategies.toml``).  The opponent travels
from the mover's point 1 towards point 24 and enters on the mover's points
1..6, so a mover's blot on point ``p`` is within direct range of opposing
checkers on ``p-6..p-1`` (point 0 standing for the opponent's bar and
waiting checkers).
"""

import numpy as np

from acesim.kernels.bits import lowest_set, popcount
from acesim.kernels.jit import njit
from acesim.kernels.layout import (
    BAR,
    FROM_BAR,
    HOME_TOP,
    N_CHECKERS,
    N_POINTS,
    OFF,
    OPP_BAR,
    OPP_OFF,
    OPP_WAITING,
    WAITING,
)

FEATURES = (
    "pip_lead",  # (opponent's pips - mover's pips) / 25; bar and waiting checkers count 25 pips
    "off",  # mover's checkers borne off
    "shots",  # sum over the mover's blots of the opposing checkers' distances (1..6) that hit them
    "blots",  # mover's points holding a single checker
    "made",  # mover's points holding two or more
    "home_made",  # made points in the mover's home board (points 1..6)
    "prime",  # the longest run of consecutive made points
    "opp_bar",  # opposing checkers on the bar
    "stacked",  # checkers beyond the third on a point, summed
    "home",  # mover's checkers on points 1..6 or off
    "outside_board",  # mover's checkers on the bar or waiting
    "anchors",  # made points in the opponent's home board (points 19..24)
    "trap",  # made points among the six in front of the opponent's rearmost checker
)
N_FEATURES = len(FEATURES)
(
    F_PIP_LEAD,
    F_OFF,
    F_SHOTS,
    F_BLOTS,
    F_MADE,
    F_HOME_MADE,
    F_PRIME,
    F_OPP_BAR,
    F_STACKED,
    F_HOME,
    F_OUTSIDE_BOARD,
    F_ANCHORS,
    F_TRAP,
) = range(N_FEATURES)

WIN_SCORE = 1e12  # a play that bears off the 15th checker beats every other

HOME_BITS = (1 << (HOME_TOP + 1)) - 2
ANCHOR_BITS = ((1 << (N_POINTS + 1)) - 1) & ~((1 << (N_POINTS - HOME_TOP + 1)) - 1)

# A position's *summary*: the few sums and bit masks every feature is counted
# from.  A child's summary follows from its parent's and the one move between
# them in a dozen operations, which is what makes scoring the children of a
# search cheap.  Masks have bit p for point p; OPP has bit q + 6 for an
# opposing checker on point q and bit 6 for its bar and waiting checkers, so
# the opposing checkers within direct range of a blot on p are the bits of
# (OPP >> p) & 63.
(
    S_MY_PIPS,  # bar and waiting checkers count 25
    S_OPP_PIPS,
    S_MINE,  # points holding the mover's checkers
    S_SINGLE,  # points holding exactly one of them
    S_OPP,
    S_STACKED,
    S_HOME,  # mover's checkers on points 1..6 or off
    S_OFF,
    S_OUTSIDE,  # mover's checkers on the bar or waiting
    S_OPP_BAR,
) = range(10)
SUMMARY_SIZE = 10


@njit(cache=True)
def summarize(board, s):
    """Write the summary of ``board`` (mover's view) into ``s``."""
    opp_entering = board[OPP_BAR] + board[OPP_WAITING]
    my_pips = 25 * (board[BAR] + board[WAITING])
    opp_pips = 25 * opp_entering
    opp = np.int64(opp_entering > 0) << 6
    mine = 0
    single = 0
    stacked = 0
    for i in range(N_POINTS):
        v = np.int64(board[i])
        p = i + 1
        my_pips += p * max(v, 0)
        opp_pips += (25 - p) * max(-v, 0)
        mine |= np.int64(v > 0) << p
        single |= np.int64(v == 1) << p
        opp |= np.int64(v < 0) << (p + 6)
        stacked += max(v - 3, 0)
    home = np.int64(board[OFF])
    for i in range(HOME_TOP):
        home += max(np.int64(board[i]), 0)
    s[S_MY_PIPS] = my_pips
    s[S_OPP_PIPS] = opp_pips
    s[S_MINE] = mine
    s[S_SINGLE] = single
    s[S_OPP] = opp
    s[S_STACKED] = stacked
    s[S_HOME] = home
    s[S_OFF] = board[OFF]
    s[S_OUTSIDE] = board[BAR] + board[WAITING]
    s[S_OPP_BAR] = board[OPP_BAR]


@njit(cache=True, inline="always")
def summary_of(s):
    """The summary array ``s`` as a tuple, which the searches keep in registers."""
    return (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9])


@njit(cache=True, inline="always")
def store_summary(t, s):
    """Write the summary tuple ``t`` into the array ``s``."""
    for i in range(SUMMARY_SIZE):
        s[i] = t[i]


@njit(cache=True, inline="always")
def moved_summary(parent, parent_board, src, dst):
    """The summary (a tuple) of the position one move ``src -> dst`` after ``parent_board``.

    ``parent`` is the parent's summary tuple; ``src`` is a point, ``FROM_BAR``
    (25) or ``FROM_WAITING`` (26); ``dst`` a point or ``TO_OFF`` (0), as in
    ``board.legal_moves``.  The child board itself is not needed, so a search
    scores a child before deciding to build it.  A tuple, not an array: a
    search loads its parent's summary once and scores every child from
    registers, where an array written per child would be stored and read
    back, and could alias the parent's.
    """
    my_pips, opp_pips, mine, single, opp, stacked, home, off, outside, opp_bar = parent
    origin = src if src <= N_POINTS else 25
    my_pips -= origin - dst
    if src > N_POINTS:
        outside -= 1
    else:
        c = np.int64(parent_board[src - 1]) - 1
        bit = np.int64(1) << src
        if c == 0:
            mine &= ~bit
        if c == 1:
            single |= bit
        else:
            single &= ~bit
        if c >= 3:
            stacked -= 1
        if src <= HOME_TOP:
            home -= 1
    if dst == 0:
        return (my_pips, opp_pips, mine, single, opp, stacked, home + 1, off + 1, outside, opp_bar)
    before = np.int64(parent_board[dst - 1])
    bit = np.int64(1) << dst
    mine |= bit
    if before <= 0:  # empty, or a blot that is hit
        single |= bit
    else:
        single &= ~bit
    if before >= 3:
        stacked += 1
    if dst <= HOME_TOP:
        home += 1
    if before == -1:  # a hit: the blot goes from point dst to the bar
        opp = (opp & ~(np.int64(1) << (dst + 6))) | (np.int64(1) << 6)
        opp_pips += dst
        opp_bar += 1
    return (my_pips, opp_pips, mine, single, opp, stacked, home, off, outside, opp_bar)


@njit(cache=True, inline="always")
def opponent_summary(board):
    """The summary (a tuple) of ``board`` seen by the opponent: ``summarize`` of the flipped board,
    without flipping it.  The opponent's point ``q`` is the mover's point ``25 - q``."""
    my_entering = np.int64(board[BAR]) + np.int64(board[WAITING])
    their_pips = 25 * (np.int64(board[OPP_BAR]) + np.int64(board[OPP_WAITING]))
    my_pips = 25 * my_entering
    mine = np.int64(0)  # the opponent's points, as in the mover's summary
    opp = np.int64(my_entering > 0) << 6
    single = np.int64(0)
    stacked = np.int64(0)
    home = np.int64(board[OPP_OFF])
    for i in range(N_POINTS):
        v = np.int64(board[i])
        p = i + 1
        q = 25 - p
        their_pips += q * max(-v, 0)
        my_pips += p * max(v, 0)
        mine |= np.int64(v < 0) << q
        single |= np.int64(v == -1) << q
        opp |= np.int64(v > 0) << (q + 6)
        stacked += max(-v - 3, 0)
        if q <= HOME_TOP:
            home += max(-v, 0)
    return (their_pips, my_pips, mine, single, opp, stacked, home, np.int64(board[OPP_OFF]),
            np.int64(board[OPP_BAR]) + np.int64(board[OPP_WAITING]), np.int64(board[BAR]))


@njit(cache=True, inline="always")
def opponent_moved_summary(parent, parent_board, src, dst):
    """``opponent_summary`` one move ``src -> dst`` of the mover after ``parent_board``, from the
    parent's (``parent``), as ``moved_summary`` is for the mover's: a tuple, the board not needed."""
    their_pips, my_pips, theirs, single, mine, stacked, home, off, outside, my_bar = parent
    origin = src if src <= N_POINTS else 25
    my_pips -= origin - dst
    if src > N_POINTS:
        if np.int64(parent_board[BAR]) + np.int64(parent_board[WAITING]) == 1:
            mine &= ~(np.int64(1) << 6)
        if src == FROM_BAR:
            my_bar -= 1
    elif parent_board[src - 1] == 1:
        mine &= ~(np.int64(1) << (31 - src))
    if dst == 0:
        return (their_pips, my_pips, theirs, single, mine, stacked, home, off, outside, my_bar)
    mine |= np.int64(1) << (31 - dst)
    if parent_board[dst - 1] == -1:  # a hit: the opponent's blot on its point 25 - dst goes to the bar
        q = 25 - dst
        bit = np.int64(1) << q
        theirs &= ~bit
        single &= ~bit
        their_pips += dst
        outside += 1
        if q <= HOME_TOP:
            home -= 1
    return (their_pips, my_pips, theirs, single, mine, stacked, home, off, outside, my_bar)


@njit(cache=True, inline="always")
def update_summary(parent, parent_board, src, dst, s):
    """``moved_summary`` on summary arrays: the child's summary into ``s``."""
    store_summary(moved_summary(summary_of(parent), parent_board, src, dst), s)


@njit(cache=True, inline="always")
def shots(single, opp):
    """Over the mover's blots, the opposing checkers' distances (1..6) that hit them."""
    n = 0
    while single:
        low = single & -single
        single ^= low
        n += popcount((opp >> lowest_set(low)) & 63)
    return n


@njit(cache=True, inline="always")
def prime(made):
    """The longest run of consecutive made points."""
    run = 0
    while made:
        made &= made << 1
        run += 1
    return run


@njit(cache=True, inline="always")
def trap(made, opp):
    """Made points ahead of the opponent's rearmost checker (point 0: bar or waiting)."""
    opp_points = opp >> 6
    if opp_points:
        return popcount((made >> (lowest_set(opp_points) + 1)) & 63)
    return 0


@njit(cache=True, inline="always")
def feature_values(s):
    """The ``FEATURES`` of a summarised position, in order, as a tuple (kept in registers)."""
    made = s[S_MINE] & ~s[S_SINGLE]
    opp = s[S_OPP]
    n_shots = shots(s[S_SINGLE], opp)
    longest = prime(made)
    trapping = trap(made, opp)
    return (
        (s[S_OPP_PIPS] - s[S_MY_PIPS]) / 25.0,
        float(s[S_OFF]),
        float(n_shots),
        float(popcount(s[S_SINGLE])),
        float(popcount(made)),
        float(popcount(made & HOME_BITS)),
        float(longest),
        float(s[S_OPP_BAR]),
        float(s[S_STACKED]),
        float(s[S_HOME]),
        float(s[S_OUTSIDE]),
        float(popcount(made & ANCHOR_BITS)),
        float(trapping),
    )


@njit(cache=True)
def summary_features(s, out):
    """Write the ``FEATURES`` of a position into ``out``, from its summary."""
    values = feature_values(s)
    for i in range(N_FEATURES):
        out[i] = values[i]


@njit(cache=True, inline="always")
def tuple_score(t, weights):
    """``weights . features`` of the position summarised by the tuple ``t``; a win scores ``WIN_SCORE``.

    The same sum, term by term in ``FEATURES`` order, as over
    ``summary_features``, but only the terms whose weight is not zero: a
    skipped term adds a zero, which changes no sum but the sign of a zero
    total, and no comparison sees that.  What the skip saves is the features
    that take a loop (shots, prime, trap); LLVM turns the cheap terms into
    selects and computes them anyway.  Inlined, because the searches call it
    once per candidate and a call taking arrays costs reference counting.
    """
    my_pips, opp_pips, mine, single, opp, stacked, home, off, outside, opp_bar = t
    if off == N_CHECKERS:
        return WIN_SCORE
    made = mine & ~single
    total = 0.0
    if weights[F_PIP_LEAD] != 0.0:
        total += weights[F_PIP_LEAD] * ((opp_pips - my_pips) / 25.0)
    if weights[F_OFF] != 0.0:
        total += weights[F_OFF] * float(off)
    if weights[F_SHOTS] != 0.0:
        total += weights[F_SHOTS] * float(shots(single, opp))
    if weights[F_BLOTS] != 0.0:
        total += weights[F_BLOTS] * float(popcount(single))
    if weights[F_MADE] != 0.0:
        total += weights[F_MADE] * float(popcount(made))
    if weights[F_HOME_MADE] != 0.0:
        total += weights[F_HOME_MADE] * float(popcount(made & HOME_BITS))
    if weights[F_PRIME] != 0.0:
        total += weights[F_PRIME] * float(prime(made))
    if weights[F_OPP_BAR] != 0.0:
        total += weights[F_OPP_BAR] * float(opp_bar)
    if weights[F_STACKED] != 0.0:
        total += weights[F_STACKED] * float(stacked)
    if weights[F_HOME] != 0.0:
        total += weights[F_HOME] * float(home)
    if weights[F_OUTSIDE_BOARD] != 0.0:
        total += weights[F_OUTSIDE_BOARD] * float(outside)
    if weights[F_ANCHORS] != 0.0:
        total += weights[F_ANCHORS] * float(popcount(made & ANCHOR_BITS))
    if weights[F_TRAP] != 0.0:
        total += weights[F_TRAP] * float(trap(made, opp))
    return total


@njit(cache=True, inline="always")
def summary_score(s, weights):
    """``tuple_score`` of the summary array ``s``."""
    return tuple_score(summary_of(s), weights)


@njit(cache=True)
def features(board, out):
    """Write the ``FEATURES`` of ``board`` (mover's view) into ``out``."""
    s = np.empty(SUMMARY_SIZE, dtype=np.int64)
    summarize(board, s)
    summary_features(s, out)


@njit(cache=True)
def score(board, weights, scratch):
    """The linear score ``weights . features(board)``; a won position scores ``WIN_SCORE``."""
    if board[OFF] == N_CHECKERS:
        return WIN_SCORE
    features(board, scratch)
    total = 0.0
    for i in range(weights.shape[0]):
        total += weights[i] * scratch[i]
    return total
