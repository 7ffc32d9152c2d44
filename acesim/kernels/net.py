"""The learned player's network: input encoding, forward pass and TD(lambda) step.

A model is one flat ``float64`` array: a header of ``HEADER`` numbers (the
sizes below), then the parameters, layer by layer:

    W1 [inputs x hidden1], b1 [hidden1],
    (W2 [hidden1 x hidden2], b2 [hidden2] when hidden2 > 0),
    Wo [last hidden x outputs], bo [outputs].

The outputs are logistic units, and so are the hidden units of a network tagged
``NET_TAG``; a network tagged ``HARD_NET_TAG`` has hard-sigmoid hidden units,
``min(max(z / 4 + 1/2, 0), 1)``: the logistic function's tangent at 0 held to
[0, 1], which costs a comparison instead of an exponential.  Output 0 is the
probability that the side on roll wins.  Output 1, present when the rule
set's scoring makes points differ from wins, is ``(E[signed points] / scale +
1) / 2`` for the side on roll, where
``scale`` is the most a game can be worth without stakes doublings (15 under
``per-checker``, 3 under ``gammons``): expected points = ``scale * (2 y1 - 1)``.
A network of three outputs (``SPLIT_POINTS``) keeps the points apart from the
wins, as GNU Backgammon's gammon outputs do: output 1 is the expected points a
win brings beyond 1 and output 2 those a loss costs beyond 1, each divided by
``scale - 1`` (both 0 when every game is worth 1), so that expected points =
``2 y0 - 1 + (scale - 1) (y1 - y2)``.  A single output of the points weighs a
gammon against a plain win in the same error as the win itself; apart, the
points beyond 1 are learned from targets of their own.

The inputs (``ENCODING_VERSION`` 1) describe a position from the view of the
side on roll, ``SIDE_INPUTS`` units for it and as many for its opponent, each
side counted on its own points 1..24 (point 1 is the last before bearing off):

* four units per point, as TD-Gammon: 1 if the side has one checker or more
  there, 1 if two or more, 1 if three or more, and (n - 3) / 2 beyond three;
* checkers on the bar / 2;
* 1 if any checker is still waiting to enter, and waiting checkers / 5;
* checkers borne off / 15;
* the pip count / 100 (bar and waiting checkers count 25 pips each);
* the 13 evaluation features of the heuristic strategies
  (``kernels.evaluate.FEATURES``, counted from that side's view), each divided
  by ``FEATURE_SCALE`` so that it stays within a few units.

Encoding 0 reads encoding 1's units but the 13 features: they are never
computed, so a play scored costs no summary of either side, and its
network's rows for them are zero (the layout stays encoding 1's).

Encoding 2 adds, after those, ``CONTEXT_INPUTS`` units for each side (the
side on roll's first), which describe the contact between the two armies
the way GNU Backgammon's inputs do (its documentation; written anew here):

* the side's rearmost checker: its point / 25 (25: on the bar or waiting);
* contact: 1 while that checker has an opposing checker still to pass;
* in contact, the escapes of the rearmost checker / 36: the rolls of 36
  with which it could move the dice's sum when the points blocked before
  it are the opponent's points of two checkers or more within 12 pips
  (``escapes``; a double counted as its two dice, as GNU Backgammon does);
* in contact, how well the side is contained: 1 - the fewest escapes from
  any of its points 15..24, / 36.

Encoding 3 adds, after encoding 2's, ``HIT_INPUTS`` units for each side (the
side on roll's first): how exposed its blots are to the other side's next
roll, as GNU Backgammon's inputs P1 and pip loss describe it (``hit_chances``):

* the rolls of 36 with which the other side can hit one of its blots / 36;
* the pips those rolls cost it, each the most a hit with it can cost,
  / (36 x ``PIP_LOSS_SCALE``).

For the side on roll's opponent these are the shots the side on roll has
now; for the side on roll, its blots as they stand before its play.  A
double counts as four steps under every rule set's dice, and the rules
that limit hitting (``hitting``) are not read.

Most units are zero, so the encoder lists only the active ones (index and
value) and the first layer adds only their rows.
"""

from collections import namedtuple

import numpy as np

from acesim.kernels.bits import lowest_set, popcount
from acesim.kernels.board import flip
from acesim.kernels.evaluate import (
    ANCHOR_BITS,
    HOME_BITS,
    N_FEATURES,
    S_MY_PIPS,
    SUMMARY_SIZE,
    feature_values,
    opponent_summary,
    prime,
    shots,
    store_summary,
    summarize,
    summary_features,
    summary_of,
    trap,
)
from acesim.kernels.jit import njit
from acesim.kernels.layout import (
    BAR,
    BOARD_DTYPE,
    FROM_BAR,
    BOARD_SIZE,
    N_CHECKERS,
    N_POINTS,
    OFF,
    OPP_BAR,
    OPP_OFF,
    OPP_WAITING,
    R_SCORING,
    SCORING_GAMMONS,
    SCORING_PER_CHECKER,
    WAITING,
)

# Header slots.
M_TAG = 0  # NET_TAG or HARD_NET_TAG: tells a network, and its hidden units, from the logistic equity model (tag 0)
M_INPUTS = 1
M_HIDDEN1 = 2
M_HIDDEN2 = 3  # 0 = one hidden layer
M_OUTPUTS = 4  # 1 (wins), 2 (wins and points) or SPLIT_POINTS (wins, points won and lost beyond 1)
M_POINTS_SCALE = 5
M_ENCODING = 6
M_OBJECTIVE = 7  # what the player maximises: OBJECTIVE_WINS or OBJECTIVE_POINTS
HEADER = 8

NET_TAG = 1.0  # logistic hidden units
HARD_NET_TAG = 2.0  # hard-sigmoid hidden units
NET_TAGS = (NET_TAG, HARD_NET_TAG)
LOGISTIC_TAG = 0.0
ENCODING_VERSION = 1  # what a new network reads unless it is told otherwise
ENCODINGS = (0, 1, 2, 3)
OBJECTIVE_WINS, OBJECTIVE_POINTS = 0, 1

SIDE_INPUTS = 4 * N_POINTS + 5 + N_FEATURES
N_NET_INPUTS = 2 * SIDE_INPUTS  # encoding 1's
CONTEXT_INPUTS = 4
C_BACK, C_CONTACT, C_ESCAPES, C_CONTAINED = range(CONTEXT_INPUTS)
HIT_INPUTS = 2
H_HIT, H_PIP_LOSS = range(HIT_INPUTS)
PIP_LOSS_SCALE = 12.0
MAX_NET_INPUTS = N_NET_INPUTS + 2 * CONTEXT_INPUTS + 2 * HIT_INPUTS
MAX_HIDDEN = 512
MAX_OUTPUTS = 3
SPLIT_POINTS = 3  # outputs of a network whose points beyond 1 are outputs of their own
U_BAR, U_ANY_WAITING, U_WAITING, U_OFF, U_PIPS = range(4 * N_POINTS, 4 * N_POINTS + 5)
U_FEATURES = 4 * N_POINTS + 5
# pip_lead, off, shots, blots, made, home_made, prime, opp_bar, stacked, home, outside_board, anchors, trap
FEATURE_SCALE = np.array([5.0, 15.0, 10.0, 5.0, 7.0, 6.0, 6.0, 4.0, 6.0, 15.0, 15.0, 6.0, 6.0])
# both sides' feature units, which a network of encoding 0 weighs 0 (it never sets them)
FEATURE_UNITS = np.concatenate([s * SIDE_INPUTS + U_FEATURES + np.arange(N_FEATURES) for s in range(2)])


def n_inputs(encoding: int) -> int:
    """How many inputs a network of ``encoding`` reads (encoding 0: encoding 1's, its feature rows zero)."""
    if encoding <= 1:
        return N_NET_INPUTS
    return N_NET_INPUTS + 2 * CONTEXT_INPUTS + (2 * HIT_INPUTS if encoding >= 3 else 0)


def _escape_table() -> np.ndarray:
    """For each pattern of the 12 points before a checker (bit ``i``: the point ``i + 1`` pips on is
    blocked), the rolls of 36 with which it can move the dice's sum: the point that far on is open, and
    so is the point one of the two dice reaches first."""
    masks = np.arange(1 << 12)
    free = [None] + [(masks >> (d - 1)) & 1 == 0 for d in range(1, 13)]
    table = np.zeros(1 << 12, dtype=np.int64)
    for a in range(1, 7):
        for b in range(1, 7):
            table += free[a + b] & (free[a] | free[b])
    return table


ESCAPES = _escape_table()

# The network's scratch: active inputs, activations, back-propagated errors,
# a flipped board, a summary and features for the encoder, and the parts of
# the logistic function's exponentials (``_sigmoids``: ``exp_bits`` is a view of
# ``exp_two``'s doubles as integers).
# ``root`` holds what ``set_root`` leaves for ``play_equity`` of the position a search's plays start
# from: its scaled features and pip counts and the position, at the offsets
# below; and what ``set_tangent`` leaves for ``tangent_value``.  One array, not four: every call that takes a scratch counts a reference to each of its
# arrays, atomically, and the searches and the rollouts make many such calls.
# ``root32`` and ``h32`` are the first-layer sums in single precision of the root and of a play (``play_outputs``).
NetScratch = namedtuple("NetScratch", ["idx", "val", "h1", "h2", "y", "d1", "d2", "board", "summary", "feat",
                                       "exp_two", "exp_bits", "root", "root32", "h32"])


ROOT_FEATURES = 0  # side s's feature f at ROOT_FEATURES + s * N_FEATURES + f
ROOT_PIPS = ROOT_FEATURES + 2 * N_FEATURES
ROOT_BOARD = ROOT_PIPS + 2
ROOT_TANGENT = ROOT_BOARD + BOARD_SIZE  # ``set_tangent``'s gradient of the equity, one per input
ROOT_STEPS = ROOT_TANGENT + MAX_NET_INPUTS  # the same per unit count from the mover's view (``tangent_steps``)
ROOT_HELD = ROOT_STEPS + N_NET_INPUTS  # 1 while the tangent is held for several searches (``hold_tangent``)
EXTRA_INPUTS = MAX_NET_INPUTS - N_NET_INPUTS  # the units encodings 2 and 3 add, after encoding 1's
ROOT_EXTRA = ROOT_HELD + 1  # the root's values of those units, one per unit
ROOT_EXTRA_PLAY = ROOT_EXTRA + EXTRA_INPUTS  # a play's, while ``play_outputs`` counts their changes
ROOT_SIZE = ROOT_EXTRA_PLAY + EXTRA_INPUTS


@njit(cache=True)
def new_net_scratch():
    two = np.zeros(MAX_HIDDEN, dtype=np.float64)
    return NetScratch(
        np.zeros(MAX_NET_INPUTS, dtype=np.int64),
        np.zeros(MAX_NET_INPUTS, dtype=np.float64),
        np.zeros(MAX_HIDDEN, dtype=np.float64),
        np.zeros(MAX_HIDDEN, dtype=np.float64),
        np.zeros(MAX_OUTPUTS, dtype=np.float64),
        np.zeros(MAX_HIDDEN, dtype=np.float64),
        np.zeros(MAX_HIDDEN, dtype=np.float64),
        np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE),
        np.zeros(SUMMARY_SIZE, dtype=np.int64),
        np.zeros(N_FEATURES, dtype=np.float64),
        two,
        two.view(np.int64),
        np.zeros(ROOT_SIZE, dtype=np.float64),
        np.zeros(MAX_HIDDEN, dtype=np.float32),
        np.zeros(MAX_HIDDEN, dtype=np.float32),
    )

# The first cell of a playing row's tangent part: the fewest dice of a doubles segment whose beam the
# tangent ranks (``tangent_ranks``).  Every doubles segment, or only those longer than a plain double's
# four dice (a double with its complement), where the heuristic's order misses the network's best play
# most (docs/learned.md).
TANGENT = 1.0
TANGENT_LONG = 5.0
WIN_EQUITY = 1e12  # a play that bears off the 15th checker beats every other


@njit(cache=True)
def n_parameters(inputs, hidden1, hidden2, outputs):
    """How many numbers follow the header for these layer sizes."""
    last = hidden2 if hidden2 > 0 else hidden1
    n = inputs * hidden1 + hidden1 + last * outputs + outputs
    if hidden2 > 0:
        n += hidden1 * hidden2 + hidden2
    return n


@njit(cache=True, inline="always")
def _features(position, base, ns, n):
    """Append the scaled evaluation features of ``position``'s mover as units ``base + U_FEATURES ..``."""
    summarize(position, ns.summary)
    summary_features(ns.summary, ns.feat)
    for f in range(N_FEATURES):
        if ns.feat[f] != 0.0:
            ns.idx[n] = base + U_FEATURES + f
            ns.val[n] = ns.feat[f] / FEATURE_SCALE[f]
            n += 1
    return n


@njit(cache=True, _nrt=False)
def encode(board, view, ns, features=True):
    """The active inputs of ``board`` into ``ns.idx``/``ns.val``; returns how many.

    ``view`` is the side on roll: 0 for the board's mover, 1 for its opponent.  Without ``features``
    (encoding 0) the features' units are left out, and ``ns.board`` is not the flipped board.
    """
    idx, val = ns.idx, ns.val
    n = 0
    for s in range(2):
        base = s * SIDE_INPUTS
        mover = (s == 0) == (view == 0)
        pips = 0
        for p in range(1, N_POINTS + 1):
            c = board[p - 1] if mover else -board[N_POINTS - p]
            if c > 0:
                pips += c * p
                u = base + 4 * (p - 1)
                idx[n] = u
                val[n] = 1.0
                n += 1
                if c >= 2:
                    idx[n] = u + 1
                    val[n] = 1.0
                    n += 1
                if c >= 3:
                    idx[n] = u + 2
                    val[n] = 1.0
                    n += 1
                if c > 3:
                    idx[n] = u + 3
                    val[n] = (c - 3) / 2.0
                    n += 1
        bar = board[BAR] if mover else board[OPP_BAR]
        waiting = board[WAITING] if mover else board[OPP_WAITING]
        off = board[OFF] if mover else board[OPP_OFF]
        pips += (N_POINTS + 1) * (bar + waiting)
        if bar > 0:
            idx[n] = base + U_BAR
            val[n] = bar / 2.0
            n += 1
        if waiting > 0:
            idx[n] = base + U_ANY_WAITING
            val[n] = 1.0
            idx[n + 1] = base + U_WAITING
            val[n + 1] = waiting / 5.0
            n += 2
        if off > 0:
            idx[n] = base + U_OFF
            val[n] = off / float(N_CHECKERS)
            n += 1
        if pips > 0:
            idx[n] = base + U_PIPS
            val[n] = pips / 100.0
            n += 1
    if not features:
        return n
    flip(board, ns.board)
    if view == 0:
        n = _features(board, 0, ns, n)
        n = _features(ns.board, SIDE_INPUTS, ns, n)
    else:
        n = _features(ns.board, 0, ns, n)
        n = _features(board, SIDE_INPUTS, ns, n)
    return n


@njit(cache=True, inline="always")
def escapes(board, p):
    """The escapes (``ESCAPES``) of a checker of ``board``'s mover on its point ``p`` (25: bar or waiting)."""
    mask = 0
    for i in range(12):
        q = p - 1 - i
        if q >= 1 and board[q - 1] <= -2:
            mask |= 1 << i
    return ESCAPES[mask]


@njit(cache=True, inline="always")
def _context(board, base, ns, n):
    """Append encoding 2's units of ``board``'s mover (module docstring) as units ``base ..``."""
    back = 0
    if board[BAR] + board[WAITING] > 0:
        back = N_POINTS + 1
    else:
        for p in range(N_POINTS, 0, -1):
            if board[p - 1] > 0:
                back = p
                break
    # the opponent's rearmost checker, on the mover's points: 0 while one is on the bar or waiting
    front = N_POINTS + 1
    if board[OPP_BAR] + board[OPP_WAITING] > 0:
        front = 0
    else:
        for p in range(1, N_POINTS + 1):
            if board[p - 1] < 0:
                front = p
                break
    if back > 0:
        ns.idx[n] = base + C_BACK
        ns.val[n] = back / (N_POINTS + 1.0)
        n += 1
    if back > front:
        ns.idx[n] = base + C_CONTACT
        ns.val[n] = 1.0
        n += 1
        e = escapes(board, back)
        if e > 0:
            ns.idx[n] = base + C_ESCAPES
            ns.val[n] = e / 36.0
            n += 1
        fewest = 36
        for p in range(15, N_POINTS + 1):
            fewest = min(fewest, escapes(board, p))
        if fewest < 36:
            ns.idx[n] = base + C_CONTAINED
            ns.val[n] = (36 - fewest) / 36.0
            n += 1
    return n


_POINT_BITS = ((1 << (N_POINTS + 1)) - 1) & ~1  # bits 1..24: the points a checker can land on


@njit(cache=True, inline="always")
def _landings(sources, blocked, a, b, entering):
    """The points (bits 1..24) the opponent's checkers on ``sources`` can land on with the roll ``a``-``b``.

    Seen by the side whose blots they would hit: the opponent moves from its point 0 (the bar, or waiting)
    upwards, and may not stop on ``blocked``.  ``entering``: its checkers on the bar (they must enter at
    the die's point before any other moves; two or more on the bar leave only entering hits, or, on a
    double, a checker entered and moved on with the dice left).
    """
    if a != b:
        if entering == 0:
            one = (sources << a) & ~blocked & _POINT_BITS
            two = (sources << b) & ~blocked & _POINT_BITS
            return ((sources << a) | (sources << b) | (one << b) | (two << a)) & _POINT_BITS
        out = 0
        for first, second in ((a, b), (b, a)):
            entry = np.int64(1) << first
            if entry & blocked:
                continue
            out |= entry
            if entering == 1:
                out |= ((sources | entry) << second) & _POINT_BITS
        return out
    entry = np.int64(1) << a
    steps = 4
    reach = sources
    if entering > 0:
        if entry & blocked:
            return 0
        steps = max(4 - entering, 0)
        reach = sources | entry
    out = entry if entering > 0 else 0
    for _ in range(steps):
        moved = (reach << a) & _POINT_BITS
        out |= moved
        reach = moved & ~blocked
    return out


# Compiled once and called, not inlined: its 21 rolls' loop is inlined four times into each encoder
# otherwise, and every search that scores a play compiled all of them (docs/performance-log.md).
@njit(cache=True, _nrt=False)
def hit_chances(board):
    """How many of the 36 rolls let the opponent hit a blot of ``board``'s mover, and the pips those rolls
    cost it in all (each roll the largest loss it allows: a blot on point ``p`` hit loses 25 - p pips).

    Any checker of the opponent may hit, with one die, or with both dice when the point between is open,
    or with a double's steps; the opponent's checkers on the bar must enter first, and waiting ones start
    from the same point 0.  A roll counts once, whichever blots it could hit.
    """
    blots = 0
    blocked = 0
    sources = 0
    for p in range(1, N_POINTS + 1):
        c = board[p - 1]
        if c == 1:
            blots |= np.int64(1) << p
        elif c >= 2:
            blocked |= np.int64(1) << p
        elif c < 0:
            sources |= np.int64(1) << p
    if blots == 0:
        return 0, 0
    if board[OPP_WAITING] > 0:
        sources |= 1
    entering = int(board[OPP_BAR])
    rolls = 0
    lost = 0
    for a in range(1, 7):
        for b in range(a, 7):
            hit = _landings(sources, blocked, a, b, entering) & blots
            if hit:
                weight = 1 if a == b else 2
                rolls += weight
                # the blot on the lowest point has the longest way back
                lost += weight * (N_POINTS + 1 - lowest_set(hit))
    return rolls, lost


@njit(cache=True, inline="always")
def _hits(board, base, ns, n):
    """Append encoding 3's units of ``board``'s mover (module docstring) as units ``base ..``."""
    rolls, lost = hit_chances(board)
    if rolls > 0:
        ns.idx[n] = base + H_HIT
        ns.val[n] = rolls / 36.0
        ns.idx[n + 1] = base + H_PIP_LOSS
        ns.val[n + 1] = lost / (36.0 * PIP_LOSS_SCALE)
        n += 2
    return n


@njit(cache=True, inline="always")
def reads_features(model):
    """Whether ``model`` reads the features (every encoding but 0)."""
    return model[M_ENCODING] != 0


@njit(cache=True, _nrt=False)
def encode_for(model, board, view, ns):
    """``encode``, and the units of ``model``'s encoding beyond the first (module docstring)."""
    n = encode(board, view, ns, reads_features(model))
    if model[M_ENCODING] >= 2:
        # ``encode`` left the flipped board in ``ns.board``
        n = _extra_units(model, board, view, ns, n)
    return n


@njit(cache=True, inline="always")
def _extra_units(model, board, view, ns, n):
    """Append the units of ``model``'s encoding (2 or 3) beyond encoding 1's for ``board`` with side ``view``
    on roll; ``ns.board`` must hold the flipped board."""
    if view == 0:
        n = _side_extra_units(model, board, 0, ns, n)
        n = _side_extra_units(model, ns.board, 1, ns, n)
    else:
        n = _side_extra_units(model, ns.board, 0, ns, n)
        n = _side_extra_units(model, board, 1, ns, n)
    return n


@njit(cache=True, inline="always")
def _extra_values(idx, val, first, last, out):
    """The values of encodings 2's and 3's units among the active inputs ``first .. last - 1``, one per unit
    (0 where not active), into ``out``."""
    for u in range(EXTRA_INPUTS):
        out[u] = 0.0
    for i in range(first, last):
        if idx[i] >= N_NET_INPUTS:
            out[idx[i] - N_NET_INPUTS] = val[i]


@njit(cache=True, inline="always")
def _side_extra_units(model, side_board, s, ns, n):
    """Append side ``s``'s (0: the side on roll) units of encodings 2 and 3, from ``side_board``, its view."""
    n = _context(side_board, N_NET_INPUTS + s * CONTEXT_INPUTS, ns, n)
    if model[M_ENCODING] >= 3:
        n = _hits(side_board, N_NET_INPUTS + 2 * CONTEXT_INPUTS + s * HIT_INPUTS, ns, n)
    return n


@njit(cache=True, inline="always")
def network_size(model):
    """How many numbers of a playing row are the network (header included).

    A learned strategy's row continues with the weights of the heuristic that
    ranks the candidate plays of a doubles segment for the network to judge
    (``strategy.net_best_play``); ``ranker_of`` is that part.
    """
    return HEADER + n_parameters(int(model[M_INPUTS]), int(model[M_HIDDEN1]), int(model[M_HIDDEN2]),
                                 int(model[M_OUTPUTS]))


@njit(cache=True, inline="always")
def ranker_of(model):
    """The heuristic weights after the network in a playing row (see ``network_size``)."""
    start = network_size(model)
    if model.shape[0] < start + N_FEATURES:
        # a bare network (not ``strategies.playing_row``): the slice would be short, and the
        # searches would read the weights past its end, whatever memory holds there
        raise ValueError("a learned row lacks the ranker's weights after its network")
    return model[start : start + N_FEATURES]


# The logistic function of a layer, 1 / (1 + exp(-z)), over the whole layer in loops that LLVM
# vectorizes: a call of the C library's exp per unit took more time than the layer's sums.  exp(x)
# is 2^k e^r with k the nearest integer to x / ln 2 and |r| <= ln(2) / 2 (ln 2 in two parts, so
# that r is exact), e^r by its Taylor polynomial to degree 12 (the next term is below 2e-16
# relative), and 2^k built as the bits of a double.  It agrees with the library's result to a few
# units in the last place (tests/test_learned.py holds it there).  The kernels that inline it
# (``forward``, ``play_outputs``) divide under NumPy's error model: Python's, Numba's default,
# checks each divisor for zero, and that branch kept the quotient loop from vectorizing.  The
# divisor is at least 1, so the quotients are the same.
LAYER_ERRORS = "numpy"
_INV_LN2 = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_ROUNDER = 6755399441055744.0  # 1.5 * 2^52: x + _ROUNDER holds round(x) in its low bits
_ROUNDER_BITS = np.int64(np.float64(_ROUNDER).view(np.int64))
_INV_FACT = (1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
             1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600)


@njit(cache=True, inline="always")
def _exp_parts(z):
    """``(e^r, round(x / ln 2) + _ROUNDER)`` for ``x = -z`` held where exp neither overflows nor underflows."""
    x = min(max(-z, -708.0), 709.0)
    shifted = x * _INV_LN2 + _ROUNDER
    k = shifted - _ROUNDER
    r = (x - k * _LN2_HI) - k * _LN2_LO
    c = _INV_FACT
    p = c[0] + r * (c[1] + r * (c[2] + r * (c[3] + r * (c[4] + r * (c[5] + r * (c[6] + r * (
        c[7] + r * (c[8] + r * (c[9] + r * (c[10] + r * (c[11] + r * c[12])))))))))))
    return p, shifted


@njit(cache=True, inline="always")
def _sigmoids(h, n, ns):
    """``h[:n] = 1 / (1 + exp(-h[:n]))``: the exponent parts, then 2^k from its bits, then the quotient."""
    two, bits = ns.exp_two, ns.exp_bits
    for j in range(n):
        h[j], two[j] = _exp_parts(h[j])  # h[j] holds e^r until the quotient
    for j in range(n):
        bits[j] = (bits[j] - _ROUNDER_BITS + 1023) << 52
    for j in range(n):
        h[j] = 1.0 / (1.0 + h[j] * two[j])


# The same in single precision, for the first hidden layer of the plays a search scores
# (``_outputs_from_root``): |r| <= ln(2) / 2 and e^r to degree 7 (the next term is below 6e-9
# relative, a tenth of a float's last place), twice the lanes of a vector that a double has,
# and a third of the polynomial.
_INV_LN2_32 = np.float32(_INV_LN2)
_LN2_HI32 = np.float32(0.693359375)  # ln 2 in two parts (Cody and Waite's), the first exact in few bits
_LN2_LO32 = np.float32(-2.12194440e-4)
_ROUNDER32 = np.float32(12582912.0)  # 1.5 * 2^23
_ROUNDER32_BITS = np.int32(np.float32(12582912.0).view(np.int32))
_INV_FACT32 = tuple(np.float32(c) for c in (1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720,
                                            1.0 / 5040))


@njit(cache=True, inline="always")
def _sigmoids32(h32, h, n, ns):
    """``h[:n] = 1 / (1 + exp(-h32[:n]))`` in single precision, as ``_sigmoids`` does in double; ``h32`` is
    overwritten.  NaN stays NaN: the clamps below compare so that a NaN fails both."""
    two = ns.exp_two.view(np.float32)
    bits = ns.exp_bits.view(np.int32)
    c = _INV_FACT32
    for j in range(n):
        x = -h32[j]
        x = np.float32(-87.0) if x < np.float32(-87.0) else x
        x = np.float32(88.0) if x > np.float32(88.0) else x
        shifted = x * _INV_LN2_32 + _ROUNDER32
        k = shifted - _ROUNDER32
        r = (x - k * _LN2_HI32) - k * _LN2_LO32
        h32[j] = c[0] + r * (c[1] + r * (c[2] + r * (c[3] + r * (c[4] + r * (c[5] + r * (c[6] + r * c[7]))))))
        two[j] = shifted
    for j in range(n):
        bits[j] = (bits[j] - _ROUNDER32_BITS + np.int32(127)) << np.int32(23)
    for j in range(n):
        h[j] = np.float32(1.0) / (np.float32(1.0) + h32[j] * two[j])


@njit(cache=True, inline="always")
def _hidden_units(model, h, n, ns):
    """The activations of ``h[:n]``'s sums: logistic (``_sigmoids``), or hard sigmoid under ``HARD_NET_TAG``."""
    if model[M_TAG] == HARD_NET_TAG:
        _hard_sigmoids(h, n)
    else:
        _sigmoids(h, n, ns)


@njit(cache=True, inline="always")
def _hard_sigmoids(h, n):
    """``h[:n] = min(max(h[:n] / 4 + 1/2, 0), 1)``."""
    # selects, not min and max: Numba's min and max keep the loop from vectorizing (5 times the time)
    for j in range(n):
        x = 0.25 * h[j] + 0.5
        x = x if x > 0.0 else 0.0
        h[j] = x if x < 1.0 else 1.0


@njit(cache=True, inline="always")
def _at_sum(model, e, h):
    """A hidden unit's error ``e`` at its activation ``h`` carried to its sum: times the activation's slope."""
    if model[M_TAG] == HARD_NET_TAG:
        return e * 0.25 if 0.0 < h < 1.0 else 0.0
    return e * h * (1.0 - h)  # in this order: a logistic network's training is made of these roundings


@njit(cache=True, inline="always")
def _add_four(out, n, wa, wb, wc, wd, va, vb, vc, vd):
    """``out[:n] += va wa + vb wb + vc wc + vd wd``, each sum adding the four rows in that order: the
    sums are loaded and stored once for four rows, and the loop vectorizes."""
    for j in range(n):
        x = out[j]
        x += va * wa[j]
        x += vb * wb[j]
        x += vc * wc[j]
        x += vd * wd[j]
        out[j] = x


@njit(cache=True, inline="always")
def _add_rows(model, H1, idx, val, n, h1):
    """``h1 += sum_a val[a] * W1[idx[a]]`` over the ``n`` listed inputs."""
    w1 = HEADER
    # Rows as slices: indexing ``model[row + j]`` would keep Numba's
    # negative-index check in the loop, which stops LLVM vectorizing it.  Four
    # rows at a time load and store the sums once for four rows; each sum
    # still adds its rows one by one in input order, so the result is the
    # same to the bit as one row at a time.
    a = 0
    while a + 4 <= n:
        ra = w1 + idx[a] * H1
        rb = w1 + idx[a + 1] * H1
        rc = w1 + idx[a + 2] * H1
        rd = w1 + idx[a + 3] * H1
        wa = model[ra : ra + H1]
        wb = model[rb : rb + H1]
        wc = model[rc : rc + H1]
        wd = model[rd : rd + H1]
        _add_four(h1, H1, wa, wb, wc, wd, val[a], val[a + 1], val[a + 2], val[a + 3])
        a += 4
    while a < n:
        row = w1 + idx[a] * H1
        w = model[row : row + H1]
        v = val[a]
        for j in range(H1):
            h1[j] += v * w[j]
        a += 1


@njit(cache=True, inline="always")
def _add_rows32(w32, H1, idx, val, n, h):
    """``_add_rows`` in single precision over ``first_layer32``'s copy of the first layer: half the bytes of
    a row to load, and twice the units in each vector."""
    a = 0
    while a + 4 <= n:
        ra, rb, rc, rd = idx[a] * H1, idx[a + 1] * H1, idx[a + 2] * H1, idx[a + 3] * H1
        _add_four(h, H1, w32[ra : ra + H1], w32[rb : rb + H1], w32[rc : rc + H1], w32[rd : rd + H1],
                  np.float32(val[a]), np.float32(val[a + 1]), np.float32(val[a + 2]), np.float32(val[a + 3]))
        a += 4
    while a < n:
        row = idx[a] * H1
        w = w32[row : row + H1]
        v = np.float32(val[a])
        for j in range(H1):
            h[j] += v * w[j]
        a += 1


@njit(cache=True, inline="always")
def _above_first(model, ns):
    """The activations from the first layer's sums in ``ns.h1`` on: hidden layers, then outputs into ``ns.y``."""
    _hidden_units(model, ns.h1, int(model[M_HIDDEN1]), ns)
    _above_hidden(model, ns, False)


@njit(cache=True, inline="always")
def _above_hidden(model, ns, played):
    """The layers above the first hidden layer's activations in ``ns.h1``, outputs into ``ns.y``.

    ``played``: a play a search scores (``_outputs_from_root``), whose logistic network sums each output in
    four partial sums side by side; ``forward``, which training and the equity models run, adds the
    units in order, as the networks were trained."""
    h1, h2, y = ns.h1, ns.h2, ns.y
    n_in = int(model[M_INPUTS])
    H1 = int(model[M_HIDDEN1])
    H2 = int(model[M_HIDDEN2])
    K = int(model[M_OUTPUTS])
    b1 = HEADER + n_in * H1
    hard = model[M_TAG] == HARD_NET_TAG
    side_by_side = played and not hard
    pos = b1 + H1
    H = H1
    last = h1
    if H2 > 0:
        w2 = pos
        b2 = w2 + H1 * H2
        for k in range(H2):
            h2[k] = model[b2 + k]
        # four rows of the second layer at a time, as the first layer's rows are added: each sum
        # still adds the units in order, so the result is the same to the bit
        j = 0
        while j + 4 <= H1:
            row = w2 + j * H2
            _add_four(h2, H2, model[row : row + H2], model[row + H2 : row + 2 * H2],
                      model[row + 2 * H2 : row + 3 * H2], model[row + 3 * H2 : row + 4 * H2],
                      h1[j], h1[j + 1], h1[j + 2], h1[j + 3])
            j += 4
        while j < H1:
            row = w2 + j * H2
            w = model[row : row + H2]
            hj = h1[j]
            for k in range(H2):
                h2[k] += hj * w[k]
            j += 1
        _hidden_units(model, h2, H2, ns)
        pos = b2 + H2
        H = H2
        last = h2
    wo = pos
    bo = wo + H * K
    if K == 2 and ((hard and H % 4 == 0) or side_by_side):
        # Four partial sums per output, eight chains of additions side by side, where one chain
        # waits on the last: a hard-sigmoid network's sums, and a logistic network's in the
        # searches' plays (``forward`` keeps the units' order, which training is made of).
        w = model[wo : wo + 2 * H]
        a0 = a1 = a2 = a3 = c0 = c1 = c2 = c3 = 0.0
        for q in range(H // 4):
            j = 4 * q
            a0 += last[j] * w[2 * j]
            c0 += last[j] * w[2 * j + 1]
            a1 += last[j + 1] * w[2 * j + 2]
            c1 += last[j + 1] * w[2 * j + 3]
            a2 += last[j + 2] * w[2 * j + 4]
            c2 += last[j + 2] * w[2 * j + 5]
            a3 += last[j + 3] * w[2 * j + 6]
            c3 += last[j + 3] * w[2 * j + 7]
        for j in range(H - H % 4, H):
            a0 += last[j] * w[2 * j]
            c0 += last[j] * w[2 * j + 1]
        y[0] = model[bo] + ((a0 + a1) + (a2 + a3))
        y[1] = model[bo + 1] + ((c0 + c1) + (c2 + c3))
    elif K == SPLIT_POINTS and side_by_side:
        w = model[wo : wo + 3 * H]
        a0 = a1 = a2 = a3 = c0 = c1 = c2 = c3 = e0 = e1 = e2 = e3 = 0.0
        for q in range(H // 4):
            j = 4 * q
            a0 += last[j] * w[3 * j]
            c0 += last[j] * w[3 * j + 1]
            e0 += last[j] * w[3 * j + 2]
            a1 += last[j + 1] * w[3 * j + 3]
            c1 += last[j + 1] * w[3 * j + 4]
            e1 += last[j + 1] * w[3 * j + 5]
            a2 += last[j + 2] * w[3 * j + 6]
            c2 += last[j + 2] * w[3 * j + 7]
            e2 += last[j + 2] * w[3 * j + 8]
            a3 += last[j + 3] * w[3 * j + 9]
            c3 += last[j + 3] * w[3 * j + 10]
            e3 += last[j + 3] * w[3 * j + 11]
        for j in range(H - H % 4, H):
            a0 += last[j] * w[3 * j]
            c0 += last[j] * w[3 * j + 1]
            e0 += last[j] * w[3 * j + 2]
        y[0] = model[bo] + ((a0 + a1) + (a2 + a3))
        y[1] = model[bo + 1] + ((c0 + c1) + (c2 + c3))
        y[2] = model[bo + 2] + ((e0 + e1) + (e2 + e3))
    elif K == 1 and side_by_side:
        w = model[wo : wo + H]
        a0 = a1 = a2 = a3 = 0.0
        for q in range(H // 4):
            j = 4 * q
            a0 += last[j] * w[j]
            a1 += last[j + 1] * w[j + 1]
            a2 += last[j + 2] * w[j + 2]
            a3 += last[j + 3] * w[j + 3]
        for j in range(H - H % 4, H):
            a0 += last[j] * w[j]
        y[0] = model[bo] + ((a0 + a1) + (a2 + a3))
    elif K == 2:
        # Both sums in one loop: each is still added in unit order, so each is the same to the
        # bit, but the two chains of dependent additions run side by side instead of one
        # after the other.
        z0 = model[bo]
        z1 = model[bo + 1]
        w = model[wo : wo + 2 * H]
        for j in range(H):
            z0 += last[j] * w[2 * j]
            z1 += last[j] * w[2 * j + 1]
        y[0] = z0
        y[1] = z1
    elif K == SPLIT_POINTS:
        # the same for three outputs: each sum still in unit order, as the loop below adds it
        z0 = model[bo]
        z1 = model[bo + 1]
        z2 = model[bo + 2]
        w = model[wo : wo + 3 * H]
        for j in range(H):
            z0 += last[j] * w[3 * j]
            z1 += last[j] * w[3 * j + 1]
            z2 += last[j] * w[3 * j + 2]
        y[0] = z0
        y[1] = z1
        y[2] = z2
    else:
        for k in range(K):
            z = model[bo + k]
            for j in range(H):
                z += last[j] * model[wo + j * K + k]
            y[k] = z
    _sigmoids(y, K, ns)


@njit(cache=True, _nrt=False, error_model=LAYER_ERRORS)
def forward(model, n, ns):
    """Every unit's activation for the ``n`` active inputs of ``ns``: hidden layers into ``ns.h1``/``ns.h2``, outputs into ``ns.y``."""
    H1 = int(model[M_HIDDEN1])
    b1 = HEADER + int(model[M_INPUTS]) * H1
    h1 = ns.h1
    for j in range(H1):
        h1[j] = model[b1 + j]
    _add_rows(model, H1, ns.idx, ns.val, n, h1)
    _above_first(model, ns)


@njit(cache=True, _nrt=False)
def outputs(model, board, view, ns):
    """The network's outputs for ``board`` with side ``view`` on roll, into ``ns.y``."""
    forward(model, encode_for(model, board, view, ns), ns)


@njit(cache=True, _nrt=False)
def win_probability(model, board, ns):
    """P(the side on roll in ``board`` wins); a finished game is 1 or 0."""
    if board[OFF] == N_CHECKERS:
        return 1.0
    if board[OPP_OFF] == N_CHECKERS:
        return 0.0
    outputs(model, board, np.int64(0), ns)
    return ns.y[0]


@njit(cache=True, inline="always")
def points_range(board, view, rules):
    """The most side ``view`` on roll can still win and lose in one game, before stakes doublings.

    ``gammons``: 3 while the loser has nothing off, else 1; ``per-checker``:
    the loser's checkers not yet off; ``single``: 1.  Bearing off can only
    lower either, so this bounds every outcome from ``board`` on.
    """
    mine_off = board[OFF] if view == 0 else board[OPP_OFF]
    theirs_off = board[OPP_OFF] if view == 0 else board[OFF]
    scoring = rules[R_SCORING]
    if scoring == SCORING_PER_CHECKER:
        return N_CHECKERS - theirs_off, N_CHECKERS - mine_off
    if scoring == SCORING_GAMMONS:
        return (3 if theirs_off == 0 else 1), (3 if mine_off == 0 else 1)
    return 1, 1


@njit(cache=True, inline="always")
def stakes_multiplier(model, rules):
    """The most the stakes of a game can be multiplied by under ``rules``, as the network's scale allows."""
    scoring = rules[R_SCORING]
    base = 1.0
    if scoring == SCORING_PER_CHECKER:
        base = float(N_CHECKERS)
    elif scoring == SCORING_GAMMONS:
        base = 3.0
    return max(model[M_POINTS_SCALE] / base, 1.0)


@njit(cache=True, inline="always")
def bounded_points(model, board, view, rules, p, points):
    """``points`` (expected, signed, for side ``view`` on roll) held to what ``board`` allows.

    A win is worth at least 1 and at most ``win`` (``points_range``), a loss
    at least 1 and at most ``loss``, each times at most the stakes multiplier
    the network's scale allows; with win probability ``p`` (the network's
    own) the expectation lies in ``[p - (1 - p) loss, p win - (1 - p)]``.  The
    network's raw output leaves that range in positions it has seen little
    of (a gammon still counted once the loser has a checker off).
    """
    win, loss = points_range(board, view, rules)
    stakes = stakes_multiplier(model, rules)
    low = p - (1.0 - p) * loss * stakes
    high = p * win * stakes - (1.0 - p)
    return min(max(points, low), high)


@njit(cache=True, inline="always")
def raw_points(model, y):
    """The expected signed points the outputs ``y`` of a network with a points output say (the module
    docstring), before ``bounded_points``."""
    if model[M_OUTPUTS] == SPLIT_POINTS:
        return 2.0 * y[0] - 1.0 + (model[M_POINTS_SCALE] - 1.0) * (y[1] - y[2])
    return model[M_POINTS_SCALE] * (2.0 * y[1] - 1.0)


@njit(cache=True, inline="always")
def _equity(model, board, view, rules, y):
    """The signed equity the outputs ``y`` of ``board`` mean for side ``view`` on roll (``equity_of``)."""
    if model[M_OBJECTIVE] == OBJECTIVE_POINTS and model[M_OUTPUTS] > 1:
        return bounded_points(model, board, view, rules, y[0], raw_points(model, y))
    return 2.0 * y[0] - 1.0


@njit(cache=True, _nrt=False)
def equity_of(model, board, view, rules, ns):
    """What side ``view`` on roll expects, signed: ``2p - 1`` (wins) or expected points (``bounded_points``)."""
    outputs(model, board, view, ns)
    return _equity(model, board, view, rules, ns.y)


# A search scores many plays of one position, and a play changes few of the network's inputs: a
# handful of points, the pip counts, some features.  ``set_root`` computes the first layer's sums of
# the position the plays start from once; ``play_equity`` starts each play from them and adds only
# the rows of the inputs the play changed, each times the change of its value (the incremental
# accumulator of NNUE networks).  A play's sums, and a logistic network's first hidden layer, are in
# single precision (``first_layer32``, ``_sigmoids32``): a search scores many plays and keeps one, and
# its values agree with ``equity_of``'s double precision to about 1e-7 (tests/test_learned.py), which
# changes a choice in about one game in several thousand (docs/learned.md, Speed).  A search that knows a
# play's moves (``choice._net_two_dice``) lists the changes from them instead (``two_move_equity``):
# the same list, without comparing every point and summarising both sides afresh.


@njit(cache=True, inline="always")
def _side_summary(board, view, s, ns):
    """The summary (a tuple) of side ``s`` (0: the side on roll ``view``), read from ``board`` as it stands
    (``opponent_summary`` for the side that is not ``board``'s mover)."""
    if (s == 0) == (view == 0):
        summarize(board, ns.summary)
        return summary_of(ns.summary)
    return opponent_summary(board)


@njit(cache=True, inline="always")
def _summarize_side(board, view, s, ns):
    """The summary and features of side ``s`` (0: the side on roll ``view``) into ``ns.summary`` and ``ns.feat``."""
    store_summary(_side_summary(board, view, s, ns), ns.summary)
    summary_features(ns.summary, ns.feat)


@njit(cache=True, _nrt=False)
def set_root(model, board, view, ns):
    """Make ``board`` with side ``view`` on roll the position ``play_equity`` counts changes from."""
    H1 = int(model[M_HIDDEN1])
    b1 = HEADER + int(model[M_INPUTS]) * H1
    n = encode_for(model, board, view, ns)
    root = ns.root
    if model[M_ENCODING] >= 2:
        _extra_values(ns.idx, ns.val, 0, n, root[ROOT_EXTRA : ROOT_EXTRA + EXTRA_INPUTS])
    if model[M_TAG] == HARD_NET_TAG:
        w32 = first_layer32(model)
        h32 = ns.root32
        for j in range(H1):
            h32[j] = np.float32(model[b1 + j])
        _add_rows32(w32, H1, ns.idx, ns.val, n, h32)
    else:
        # the root's sums in double precision (in the scratch's ``h1``), then rounded once: its plays add
        # their rows to them in single precision (``_outputs_from_root``)
        h = ns.h1
        for j in range(H1):
            h[j] = model[b1 + j]
        _add_rows(model, H1, ns.idx, ns.val, n, h)
        for j in range(H1):
            ns.root32[j] = np.float32(h[j])
    for s in range(2):
        _summarize_side(board, view, s, ns)
        for f in range(N_FEATURES):
            root[ROOT_FEATURES + s * N_FEATURES + f] = ns.feat[f] / FEATURE_SCALE[f]
        root[ROOT_PIPS + s] = ns.summary[S_MY_PIPS]  # bar and waiting checkers at 25, as the encoder counts
    for i in range(BOARD_SIZE):
        root[ROOT_BOARD + i] = board[i]


@njit(cache=True, inline="always")
def _point_changes(before, after, u, idx, val, n):
    """List the changes of a side's four units of a point (``u ..``) when its checkers go ``before`` -> ``after``."""
    for k in range(3):
        was, now = before > k, after > k
        if was != now:
            idx[n] = u + k
            val[n] = 1.0 if now else -1.0
            n += 1
    if before > 3 or after > 3:
        idx[n] = u + 3
        val[n] = max(after - 3, 0) / 2.0 - max(before - 3, 0) / 2.0
        n += 1
    return n


@njit(cache=True, inline="always")
def _changes_at(a, b, i, mine, theirs, idx, val, n):
    """List the changes of the units of the point at board index ``i``, its checkers ``a`` -> ``b``
    (positive the board's mover's, negative the opponent's; their units start at ``mine`` and ``theirs``)."""
    if a > 0 or b > 0:
        n = _point_changes(max(a, 0), max(b, 0), mine + 4 * i, idx, val, n)
    if a < 0 or b < 0:
        n = _point_changes(max(-a, 0), max(-b, 0), theirs + 4 * (N_POINTS - 1 - i), idx, val, n)
    return n


@njit(cache=True, inline="always")
def _side_changes(root, board, s, mover, pips_before, pips_after, idx, val, n):
    """List the changes of side ``s``'s bar, waiting, off and pip-count units from the root's board
    ``root`` to ``board`` (``mover``: side ``s`` is ``board``'s mover); the pip counts are given."""
    base = s * SIDE_INPUTS
    bar = BAR if mover else OPP_BAR
    waiting = WAITING if mover else OPP_WAITING
    off = OFF if mover else OPP_OFF
    a, b = np.int64(root[bar]), np.int64(board[bar])
    if a != b:
        idx[n] = base + U_BAR
        val[n] = b / 2.0 - a / 2.0
        n += 1
    a, b = np.int64(root[waiting]), np.int64(board[waiting])
    if a != b:
        if (a > 0) != (b > 0):
            idx[n] = base + U_ANY_WAITING
            val[n] = 1.0 if b > 0 else -1.0
            n += 1
        idx[n] = base + U_WAITING
        val[n] = b / 5.0 - a / 5.0
        n += 1
    a, b = np.int64(root[off]), np.int64(board[off])
    if a != b:
        idx[n] = base + U_OFF
        val[n] = b / float(N_CHECKERS) - a / float(N_CHECKERS)
        n += 1
    if pips_before != pips_after:
        idx[n] = base + U_PIPS
        val[n] = pips_after / 100.0 - pips_before / 100.0
        n += 1
    return n


@njit(cache=True, inline="always")
def _feature_changes(values, s, ns, n):
    """List the changes of side ``s``'s feature units, whose values (``feature_values``) are ``values``."""
    base = s * SIDE_INPUTS + U_FEATURES
    for f in range(N_FEATURES):
        d = values[f] / FEATURE_SCALE[f] - ns.root[ROOT_FEATURES + s * N_FEATURES + f]
        if d != 0.0:
            ns.idx[n] = base + f
            ns.val[n] = d
            n += 1
    return n


@njit(cache=True, inline="always")
def _outputs_from_root(model, ns, n):
    """The outputs into ``ns.y``: the root's first-layer sums plus the ``n`` listed changes, then the layers above."""
    H1 = int(model[M_HIDDEN1])
    h, h32 = ns.h1, ns.h32
    for j in range(H1):
        h32[j] = ns.root32[j]
    _add_rows32(first_layer32(model), H1, ns.idx, ns.val, n, h32)
    if model[M_TAG] == HARD_NET_TAG:
        for j in range(H1):
            h[j] = h32[j]
        _hard_sigmoids(h, H1)
    else:
        _sigmoids32(h32, h, H1, ns)
    _above_hidden(model, ns, True)


@njit(cache=True, _nrt=False, error_model=LAYER_ERRORS)
def play_outputs(model, board, view, ns):
    """``outputs`` of ``board`` from the root ``set_root`` set for the same ``model`` and ``view``."""
    idx, val, root = ns.idx, ns.val, ns.root[ROOT_BOARD : ROOT_BOARD + BOARD_SIZE]
    mine = 0 if view == 0 else SIDE_INPUTS  # where the board's mover's units start
    theirs = SIDE_INPUTS - mine
    n = 0
    # the pip counts' changes (board's mover, opponent), from the points that changed
    moved_mine = 0
    moved_theirs = 0
    for i in range(N_POINTS):
        a = np.int64(root[i])
        b = np.int64(board[i])
        if a != b:
            n = _changes_at(a, b, i, mine, theirs, idx, val, n)
            moved_mine += (max(b, 0) - max(a, 0)) * (i + 1)
            moved_theirs += (max(-b, 0) - max(-a, 0)) * (N_POINTS - i)
    for s in range(2):
        mover = (s == 0) == (view == 0)
        bar = BAR if mover else OPP_BAR
        waiting = WAITING if mover else OPP_WAITING
        a = np.int64(ns.root[ROOT_PIPS + s])
        entering = np.int64(board[bar]) + np.int64(board[waiting]) - np.int64(root[bar]) - np.int64(root[waiting])
        pips = a + (moved_mine if mover else moved_theirs) + (N_POINTS + 1) * entering
        n = _side_changes(root, board, s, mover, a, pips, idx, val, n)
    for s in range(2 if reads_features(model) else 0):
        n = _feature_changes(feature_values(_side_summary(board, view, s, ns)), s, ns, n)
    if model[M_ENCODING] >= 2:
        # the units of encodings 2 and 3 follow no single point: the play's are computed whole, and
        # their changes from the root's added
        flip(board, ns.board)
        m = _extra_units(model, board, view, ns, n)
        extra = ns.root[ROOT_EXTRA_PLAY : ROOT_EXTRA_PLAY + EXTRA_INPUTS]
        _extra_values(idx, val, n, m, extra)
        for u in range(EXTRA_INPUTS):
            d = extra[u] - ns.root[ROOT_EXTRA + u]
            if d != 0.0:
                idx[n] = N_NET_INPUTS + u
                val[n] = d
                n += 1
    _outputs_from_root(model, ns, n)


@njit(cache=True, _nrt=False)
def play_equity(model, board, view, rules, ns):
    """``equity_of`` a play's position ``board``, from the root ``set_root`` set for ``model`` and ``view``."""
    play_outputs(model, board, view, ns)
    return _equity(model, board, view, rules, ns.y)


@njit(cache=True, inline="always")
def counts_from_moves(model):
    """Whether ``two_move_equity`` can value ``model``'s plays: networks of encoding 0 or 1, whose
    units each follow a point, a side's counts or its summary."""
    return model[M_ENCODING] <= 1


@njit(cache=True, inline="always")
def two_move_equity(model, board, view, rules, ns, mover, opponent, p0, p1, p2, p3):
    """``play_equity`` of a play of two moves reaching ``board``, without comparing every point with the root.

    The play's points can have changed only where its moves start or end: ``p0 <= p1 <= p2 <= p3``
    are those points' indices (-1 for the bar, waiting or off), and ``mover`` and ``opponent`` are
    ``board``'s summary (``evaluate.moved_summary``) and the opponent's (``opponent_moved_summary``),
    which the search carries from move to move.  The changes are listed in ``play_outputs``'s order,
    from the same numbers, so the equity is the same to the bit.  A network of encoding 0 or 1 only:
    the units of encodings 2 and 3 are computed from the whole board.
    """
    idx, val, root = ns.idx, ns.val, ns.root[ROOT_BOARD : ROOT_BOARD + BOARD_SIZE]
    mine = 0 if view == 0 else SIDE_INPUTS
    theirs = SIDE_INPUTS - mine
    n = 0
    last = -1
    for i in (p0, p1, p2, p3):
        if i < 0 or i == last:
            continue
        last = i
        a = np.int64(root[i])
        b = np.int64(board[i])
        if a != b:  # a checker may have left a point and another come to it
            n = _changes_at(a, b, i, mine, theirs, idx, val, n)
    for s in range(2):
        mover_side = (s == 0) == (view == 0)
        pips = mover[S_MY_PIPS] if mover_side else opponent[S_MY_PIPS]
        n = _side_changes(root, board, s, mover_side, np.int64(ns.root[ROOT_PIPS + s]), pips, idx, val, n)
    for s in range(2 if reads_features(model) else 0):
        n = _feature_changes(feature_values(mover if (s == 0) == (view == 0) else opponent), s, ns, n)
    _outputs_from_root(model, ns, n)
    return _equity(model, board, view, rules, ns.y)


@njit(cache=True, inline="always")
def _deltas(model, ns, g):
    """Back-propagate the outputs' errors ``g`` (one per output, at the sums): the hidden units'
    errors at their sums into ``ns.d1`` (and ``ns.d2`` with a second hidden layer).

    ``forward`` must have just run; the weights are read, not changed.
    """
    h1, h2, d1, d2 = ns.h1, ns.h2, ns.d1, ns.d2
    n_in = int(model[M_INPUTS])
    H1 = int(model[M_HIDDEN1])
    H2 = int(model[M_HIDDEN2])
    K = int(model[M_OUTPUTS])
    w2 = HEADER + n_in * H1 + H1
    wo = w2 + H1 * H2 + H2 if H2 > 0 else w2
    H = H2 if H2 > 0 else H1
    last = h2 if H2 > 0 else h1
    d_last = d2 if H2 > 0 else d1
    for j in range(H):
        s = 0.0
        for k in range(K):
            s += g[k] * model[wo + j * K + k]
        d_last[j] = _at_sum(model, s, last[j])
    if H2 > 0:
        for j in range(H1):
            s = 0.0
            row = w2 + j * H2
            for k in range(H2):
                s += d2[k] * model[row + k]
            d1[j] = _at_sum(model, s, h1[j])


@njit(cache=True, _nrt=False)
def set_tangent(model, board, view, ns):
    """The network linearised at ``board`` (side ``view`` on roll): the equity's gradient over the
    inputs, into ``ns.root`` at ``ROOT_TANGENT``, for ``tangent_value``.

    The equity is the network's unbounded one (``2p - 1``, or its points, ``raw_points``, where the
    player maximises points). A play changes few inputs, so ``tangent_value`` ranks the
    partial plays of a doubles segment by the network's own first-order judgement, for about what
    the heuristic's score costs; the dense product below is the price, once per segment.
    """
    n_in = int(model[M_INPUTS])
    H1 = int(model[M_HIDDEN1])
    if not guided_by_tangent(model) or model.shape[0] < tangent_start(model) + 1 + n_in * H1:
        raise ValueError("the tangent needs a playing row with its tangent part (strategies.playing_row)")
    n = encode_for(model, board, view, ns)
    forward(model, n, ns)
    y = ns.y
    if model[M_OBJECTIVE] == OBJECTIVE_POINTS and model[M_OUTPUTS] == SPLIT_POINTS:
        beyond = model[M_POINTS_SCALE] - 1.0
        g = (2.0 * y[0] * (1.0 - y[0]), beyond * y[1] * (1.0 - y[1]), -beyond * y[2] * (1.0 - y[2]))
    elif model[M_OBJECTIVE] == OBJECTIVE_POINTS and model[M_OUTPUTS] > 1:
        g = (0.0, 2.0 * model[M_POINTS_SCALE] * y[1] * (1.0 - y[1]), 0.0)
    else:
        g = (2.0 * y[0] * (1.0 - y[0]), 0.0, 0.0)
    _deltas(model, ns, g)
    # t = W1 d1, as the transposed first layer's rows times d1, added row after row: each input's sum
    # is added in unit order (one running sum per input), and the loop over the inputs vectorizes
    d1 = ns.d1
    t = ns.root[ROOT_TANGENT : ROOT_TANGENT + n_in]
    for i in range(n_in):
        t[i] = 0.0
    w1t = tangent_start(model) + 1
    j = 0
    while j + 4 <= H1:
        da, db, dc, dd = d1[j], d1[j + 1], d1[j + 2], d1[j + 3]
        wa = model[w1t + j * n_in : w1t + (j + 1) * n_in]
        wb = model[w1t + (j + 1) * n_in : w1t + (j + 2) * n_in]
        wc = model[w1t + (j + 2) * n_in : w1t + (j + 3) * n_in]
        wd = model[w1t + (j + 3) * n_in : w1t + (j + 4) * n_in]
        _add_four(t, n_in, wa, wb, wc, wd, da, db, dc, dd)
        j += 4
    while j < H1:
        dj = d1[j]
        w = model[w1t + j * n_in : w1t + (j + 1) * n_in]
        for i in range(n_in):
            t[i] += dj * w[i]
        j += 1
    # the steps, from the mover's view: its own units first (the side on roll's when view is 0)
    sign = 1.0 if view == 0 else -1.0
    for side in range(2):
        unit = 0 if (side == 0) == (view == 0) else SIDE_INPUTS
        for u in range(SIDE_INPUTS):
            step = sign * ns.root[ROOT_TANGENT + unit + u] * _UNIT_COUNT[u]
            ns.root[ROOT_STEPS + side * SIDE_INPUTS + u] = np.rint(step * TANGENT_GRID) / TANGENT_GRID


# ``tangent_steps`` values the moves of a doubles beam from the mover's summaries (kernels.evaluate),
# without building or encoding the position: the tangent times each unit's value per whole count
# (a checker, a pip, a feature's count; ``_UNIT_COUNT``), from the mover's view, rounded to a grid of
# 2^-30.  Every term is then a count times a multiple of the grid, and every sum of such terms below
# 2^23 is exact, so a position's value does not depend on the order of the moves that reached it: the
# beam finds a position reached twice by its equal value (``choice._keep``), as with the heuristic.
TANGENT_GRID = 2.0**30


def _unit_counts():
    """What one count (a checker, a pip, one of a feature) is worth in each of a side's units."""
    per = np.ones(SIDE_INPUTS)
    per[3 : 4 * N_POINTS : 4] = 0.5  # (n - 3) / 2
    per[U_BAR] = 0.5
    per[U_WAITING] = 0.2
    per[U_OFF] = 1.0 / N_CHECKERS
    per[U_PIPS] = 0.01
    per[U_FEATURES : U_FEATURES + N_FEATURES] = 1.0 / FEATURE_SCALE
    per[U_FEATURES] /= 25.0  # pip_lead's count is the pip difference
    return per


_UNIT_COUNT = _unit_counts()


@njit(cache=True, inline="always")
def _point_steps(steps, u, c):
    """The steps of a side's four units of a point (``u ..``) holding ``c`` checkers."""
    v = 0.0
    if c >= 1:
        v += steps[u]
    if c >= 2:
        v += steps[u + 1]
    if c >= 3:
        v += steps[u + 2]
    if c > 3:
        v += steps[u + 3] * (c - 3)
    return v


@njit(cache=True, inline="always")
def _feature_steps(steps, base, summary):
    """The steps of a side's features (units ``base + U_FEATURES ..``) for its summary tuple."""
    my_pips, opp_pips, mine, single, opp, stacked, home, off, outside, opp_bar = summary
    made = mine & ~single
    f = steps[base + U_FEATURES :]
    v = f[0] * (opp_pips - my_pips)
    v += f[1] * off
    v += f[2] * shots(single, opp)
    v += f[3] * popcount(single)
    v += f[4] * popcount(made)
    v += f[5] * popcount(made & HOME_BITS)
    v += f[6] * prime(made)
    v += f[7] * opp_bar
    v += f[8] * stacked
    v += f[9] * home
    v += f[10] * outside
    v += f[11] * popcount(made & ANCHOR_BITS)
    v += f[12] * trap(made, opp)
    return v


@njit(cache=True, inline="always")
def tangent_features(steps, mine, theirs):
    """The features' part of a position's tangent value, from the mover's and the opponent's summary tuples."""
    return _feature_steps(steps, 0, mine) + _feature_steps(steps, SIDE_INPUTS, theirs)


@njit(cache=True, inline="always")
def tangent_steps(steps, board, src, dst):
    """The change of the tangent value but for the features when the mover moves ``src -> dst`` on
    ``board`` (``steps``: ``ns.root[ROOT_STEPS:]`` after ``set_tangent``; moves as ``board.legal_moves``'s)."""
    v = 0.0
    if src <= N_POINTS:
        c = np.int64(board[src - 1])
        u = 4 * (src - 1)
        v += _point_steps(steps, u, c - 1) - _point_steps(steps, u, c)
        v += steps[U_PIPS] * (dst - src)
    else:
        v += steps[U_PIPS] * (dst - (N_POINTS + 1))
        if src == FROM_BAR:
            v -= steps[U_BAR]
        else:
            v -= steps[U_WAITING]
            if board[WAITING] == 1:
                v -= steps[U_ANY_WAITING]
    if dst == 0:
        return v + steps[U_OFF]
    c = np.int64(board[dst - 1])
    if c == -1:  # a hit: the opponent's blot goes from its point 25 - dst to its bar
        u = SIDE_INPUTS + 4 * (N_POINTS - dst)
        v += _point_steps(steps, u, 0) - _point_steps(steps, u, 1)
        v += steps[SIDE_INPUTS + U_BAR] + steps[SIDE_INPUTS + U_PIPS] * dst
        c = 0
    u = 4 * (dst - 1)
    return v + _point_steps(steps, u, c + 1) - _point_steps(steps, u, c)


@njit(cache=True, inline="always")
def tangent_value(model, board, view, ns):
    """The gradient ``set_tangent`` left times ``board``'s inputs (side ``view`` on roll): the network's
    linearised equity of ``board`` but for a constant of the root."""
    n = encode_for(model, board, view, ns)
    t = 0.0
    for a in range(n):
        t += ns.root[ROOT_TANGENT + ns.idx[a]] * ns.val[a]
    return t


@njit(cache=True, inline="always")
def tangent_by_steps(model):
    """Whether ``tangent_steps`` and ``tangent_features`` count every unit of ``model``'s encoding."""
    return model[M_ENCODING] < 2


@njit(cache=True, _nrt=False)
def hold_tangent(model, board, view, ns):
    """``set_tangent``, kept for the searches that follow until ``release_tangent``: the six doubles
    after a 1-2 are searched from one position, for one side, so their beams share one tangent."""
    set_tangent(model, board, view, ns)
    ns.root[ROOT_HELD] = 1.0


@njit(cache=True, inline="always")
def release_tangent(ns):
    """Let each search set its own tangent again (``hold_tangent``)."""
    ns.root[ROOT_HELD] = 0.0


@njit(cache=True, inline="always")
def tangent_held(ns):
    """Whether ``hold_tangent`` holds the tangent for this search."""
    return ns.root[ROOT_HELD] == 1.0


@njit(cache=True, inline="always")
def tangent_start(model):
    """Where a playing row's tangent part starts: its least segment (``TANGENT``, ``TANGENT_LONG``), then
    the first layer's weights transposed (``[hidden1 x inputs]``), which ``set_tangent`` multiplies in
    loops that vectorize."""
    return network_size(model) + N_FEATURES


@njit(cache=True, inline="always")
def first_layer32(model):
    """A network's first layer in single precision, which its playing row carries last
    (``strategies.playing_row``): after the tangent part, whose first cell the row always has (0: no
    tangent), as ``[inputs x hidden1]`` floats packed two to a cell."""
    size = int(model[M_INPUTS]) * int(model[M_HIDDEN1])
    start = tangent_start(model)
    if model.shape[0] > start and model[start] > 0.0:
        start += size  # the transposed first layer of the tangent
    start += 1
    if model.shape[0] < start + (size + 1) // 2:
        raise ValueError("a network's plays are scored from a playing row (strategies.playing_row)")
    return model[start : start + (size + 1) // 2].view(np.float32)[:size]


@njit(cache=True, inline="always")
def guided_by_tangent(model):
    """A playing row that carries the tangent part after the ranker's weights (``ranker_of``,
    ``tangent_start``); a row without it (or padded with 0) ranks every beam by the heuristic."""
    start = tangent_start(model)
    return model.shape[0] > start and model[start] > 0.0


@njit(cache=True, inline="always")
def tangent_ranks(model, n):
    """Whether the beam of a doubles segment of ``n`` dice ranks by ``tangent_value`` (``TANGENT``,
    ``TANGENT_LONG``) rather than the heuristic."""
    return guided_by_tangent(model) and n >= model[tangent_start(model)]


@njit(cache=True)
def sgd_step(model, n, ns, target, alpha, cross_entropy):
    """Move every output ``y[k]`` towards ``target[k]``: ``theta += alpha * sum_k (target_k - y_k) grad y_k``,
    the squared error's step; with ``cross_entropy``, ``theta += alpha * sum_k (target_k - y_k) grad z_k`` of
    the outputs' sums ``z_k``, the cross-entropy's, which does not fade as ``y_k`` nears 0 or 1.

    ``forward`` must have just run on the same ``n`` inputs of ``ns``.  The
    first layer's gradient is zero outside the active inputs' rows, so only
    those rows change.
    """
    idx, val, h1, y, d1, d2 = ns.idx, ns.val, ns.h1, ns.y, ns.d1, ns.d2
    n_in = int(model[M_INPUTS])
    H1 = int(model[M_HIDDEN1])
    H2 = int(model[M_HIDDEN2])
    K = int(model[M_OUTPUTS])
    w1 = HEADER
    b1 = w1 + n_in * H1
    w2 = b1 + H1
    b2 = w2 + H1 * H2
    wo = b2 + H2 if H2 > 0 else w2
    H = H2 if H2 > 0 else H1
    last = ns.h2 if H2 > 0 else h1
    bo = wo + H * K
    g = np.empty(MAX_OUTPUTS)
    for k in range(K):
        if cross_entropy:
            g[k] = alpha * (target[k] - y[k])
        else:
            g[k] = alpha * (target[k] - y[k]) * y[k] * (1.0 - y[k])
    _deltas(model, ns, g)
    for j in range(H):
        for k in range(K):
            model[wo + j * K + k] += g[k] * last[j]
    for k in range(K):
        model[bo + k] += g[k]
    if H2 > 0:
        for j in range(H1):
            row = w2 + j * H2
            hj = h1[j]
            for k in range(H2):
                model[row + k] += d2[k] * hj
        for k in range(H2):
            model[b2 + k] += d2[k]
    for a in range(n):
        row = w1 + idx[a] * H1
        w = model[row : row + H1]  # a slice, so the loop vectorizes (see ``forward``)
        v = val[a]
        for j in range(H1):
            w[j] += v * d1[j]
    for j in range(H1):
        model[b1 + j] += d1[j]


@njit(cache=True)
def win_probabilities(model, boards, out):
    """``win_probability`` of every row of ``boards`` (side on roll's view) into ``out``."""
    ns = new_net_scratch()
    for i in range(boards.shape[0]):
        out[i] = win_probability(model, boards[i], ns)
