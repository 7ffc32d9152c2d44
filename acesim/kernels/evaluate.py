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
from numba import njit

from acesim.kernels.bits import lowest_set, popcount
from acesim.kernels.layout import (
    BAR,
    HOME_TOP,
    N_CHECKERS,
    N_POINTS,
    OFF,
    OPP_BAR,
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

_HOME_BITS = (1 << (HOME_TOP + 1)) - 2
_ANCHOR_BITS = ((1 << (N_POINTS + 1)) - 1) & ~((1 << (N_POINTS - HOME_TOP + 1)) - 1)


@njit(cache=True)
def features(board, out):
    """Write the ``FEATURES`` of ``board`` (mover's view) into ``out``.

    A branch-free pass over the points builds bit masks (bit ``p`` for point
    ``p``) and pip sums; the features are counted from the masks.  ``opp`` has
    bit ``q + 6`` set for an opposing checker on ``q`` (bit 6 for its bar and
    waiting checkers), so the opposing checkers within direct range of a blot
    on ``p`` are the bits of ``(opp >> p) & 63``.
    """
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
    made = mine & ~single
    shots = 0
    b = single
    while b:
        low = b & -b
        b ^= low
        shots += popcount((opp >> lowest_set(low)) & 63)
    prime = 0
    x = made
    while x:
        x &= x << 1
        prime += 1
    # the opponent's rearmost checker: the lowest bit of opp, as a point (0 = bar or waiting)
    opp_points = opp >> 6
    if opp_points:
        rear = lowest_set(opp_points)
        trap = popcount((made >> (rear + 1)) & 63)
    else:
        trap = 0
    out[F_PIP_LEAD] = (opp_pips - my_pips) / 25.0
    out[F_OFF] = board[OFF]
    out[F_SHOTS] = shots
    out[F_BLOTS] = popcount(single)
    out[F_MADE] = popcount(made)
    out[F_HOME_MADE] = popcount(made & _HOME_BITS)
    out[F_PRIME] = prime
    out[F_OPP_BAR] = board[OPP_BAR]
    out[F_STACKED] = stacked
    out[F_HOME] = home
    out[F_OUTSIDE_BOARD] = board[BAR] + board[WAITING]
    out[F_ANCHORS] = popcount(made & _ANCHOR_BITS)
    out[F_TRAP] = trap


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
