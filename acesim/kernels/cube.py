"""The doubling cube's decisions (docs/rules.md sections 4 and 6): Janowski's money-game model.

Every seat decides its doubles and takes by the same rule, apart from its
checker play: R. Janowski's cubeful equity ("Take-Points in Money Games"),
as GNU Backgammon applies it to money games.  The side on roll has a
cubeless win probability ``p`` and wins on average ``W`` and loses on
average ``L`` cube units (``win_and_loss``).  Its cubeful equity per cube
unit is a mix, with the *cube life* ``x``, of

* the dead-cube equity ``p (W + L) - L`` (no one doubles again), and
* the live-cube equity, in which every double comes exactly at the point
  where it is right: a straight line through the live take point
  ``TP = (L - 1/2) / (W + L + 1/2)`` and the live cash point
  ``CP = (L + 1) / (W + L + 1/2)``, which depends on who holds the cube
  (``cubeful_equity``).

The mix gives Janowski's take point ``(L - 1/2) / (W + L + x / 2)``
(``take_point``), and the doubler's choice: double when the worse for it of
take (the opponent owns the cube at twice the value) and drop (one cube
value now) is worth more than playing on with the cube where it is.  A side
so far ahead that playing on is worth more than the drop plays on (*too good
to double*).

These are plain functions of floats, apart from ``win_and_loss``, which asks
a network; nothing here draws a random number.
"""

import numpy as np

from acesim.kernels.jit import njit
from acesim.kernels.layout import N_CHECKERS, OPP_OFF, R_SCORING, SCORING_GAMMONS, SCORING_PER_CHECKER
from acesim.kernels.net import (
    M_OUTPUTS,
    M_POINTS_SCALE,
    SPLIT_POINTS,
    bounded_points,
    outputs,
    points_range,
    raw_points,
    stakes_multiplier,
)

# The cube life x: how much of the perfectly efficient (live) cube a side
# gets.  GNU Backgammon's value for positions with contact; an Acey-Deucey
# game is a contact game almost to its end (every checker starts off the
# board and enters into the opponent's home), and one constant keeps the rule
# the same for every preset and strategy.
CUBE_LIFE = 0.68

# Where the cube is, from the view of the side whose equity is asked.
CENTRED, OWNED, THEIRS = 0, 1, 2


@njit(cache=True)
def live_take_point(win, loss):
    """The least win probability at which a side takes a perfectly live cube."""
    return (loss - 0.5) / (win + loss + 0.5)


@njit(cache=True)
def live_cash_point(win, loss):
    """The win probability above which the opponent drops a perfectly live cube (its take point mirrored)."""
    return 1.0 - live_take_point(loss, win)


@njit(cache=True)
def take_point(win, loss, life):
    """Janowski's take point: the least win probability at which a side with ``win``/``loss`` takes."""
    return (loss - 0.5) / (win + loss + 0.5 * life)


@njit(cache=True)
def cubeful_equity(p, win, loss, life, where):
    """The equity per cube unit of a side with win probability ``p``, the cube ``where`` (``CENTRED``, ...)."""
    dead = p * (win + loss) - loss
    tp = live_take_point(win, loss)
    cp = live_cash_point(win, loss)
    if where == OWNED:
        # from losing L at p = 0 to cashing at the cash point
        live = 1.0 if p >= cp else -loss + p * (1.0 + loss) / cp
    elif where == THEIRS:
        # from being cashed at the take point to winning W at p = 1
        live = -1.0 if p <= tp else -1.0 + (p - tp) * (win + loss + 0.5)
    elif p <= tp:
        live = -1.0
    elif p >= cp:
        live = 1.0
    else:
        live = -1.0 + 2.0 * (p - tp) / (cp - tp)
    return life * live + (1.0 - life) * dead


@njit(cache=True)
def should_double(p, win, loss, life, owned):
    """Whether the side on roll doubles: its cube centred, or its own when ``owned``."""
    if p <= 0.0:
        return False
    no_double = cubeful_equity(p, win, loss, life, OWNED if owned else CENTRED)
    taken = 2.0 * cubeful_equity(p, win, loss, life, THEIRS)
    dropped = 1.0
    return min(taken, dropped) > no_double


@njit(cache=True)
def should_take(q, win, loss, life):
    """Whether a side with win probability ``q`` takes; a side that cannot win never does."""
    return q > 0.0 and q >= take_point(win, loss, life)


@njit(cache=True)
def win_and_loss(model, board, rules, ns):
    """``(p, W, L)`` of the side on roll in ``board`` by the network ``model``.

    ``W`` and ``L`` are the mean values of a won and a lost game in single
    games: 1 and 1 without an expected-points output or under ``single``
    scoring.  A network whose points beyond 1 are outputs of their own
    (``net.SPLIT_POINTS``) says each side's: ``W = 1 + (s - 1) y1 / p`` and
    ``L = 1 + (s - 1) y2 / (1 - p)`` (``s`` its points scale), each held to
    at least 1 and at most what a won or lost game can still score
    (``net.points_range``, times the stakes its scale allows).  Otherwise the
    network's expected points ``E`` (held to what the position allows)
    beyond the single-game value ``2p - 1`` go to the side that expects
    them: ``W = 1 + (E - (2p - 1)) / p`` when that excess is positive, else
    ``L = 1 + ((2p - 1) - E) / (1 - p)``; so ``p W - (1 - p) L = E`` exactly
    and neither is below 1.
    """
    outputs(model, board, np.int64(0), ns)
    p = ns.y[0]
    win, loss = 1.0, 1.0
    scoring = rules[R_SCORING]
    if model[M_OUTPUTS] == 1 or not (scoring == SCORING_PER_CHECKER or scoring == SCORING_GAMMONS):
        return p, win, loss
    if model[M_OUTPUTS] == SPLIT_POINTS:
        # y1 / p is what a win brings beyond 1 given a win: each side's gammons go to its own W or L, where
        # the net excess below would give all of them to the side that expects more
        most_won, most_lost = points_range(board, 0, rules)
        stakes = stakes_multiplier(model, rules)
        beyond = model[M_POINTS_SCALE] - 1.0
        if p > 0.0:
            win = min(max(1.0 + beyond * ns.y[1] / p, 1.0), most_won * stakes)
        if p < 1.0:
            loss = min(max(1.0 + beyond * ns.y[2] / (1.0 - p), 1.0), most_lost * stakes)
    else:
        points = bounded_points(model, board, 0, rules, p, raw_points(model, ns.y))
        excess = points - (2.0 * p - 1.0)
        if excess > 0.0 and p > 0.0:
            win = 1.0 + excess / p
        elif excess < 0.0 and p < 1.0:
            loss = 1.0 - excess / (1.0 - p)
    return p, win, loss


@njit(cache=True)
def drop_points(board, rules):
    """What a dropped double concedes per cube unit, before stakes, to the side on roll in ``board``.

    The game as it stands: under ``per-checker`` scoring one point per checker
    the dropper has not borne off; otherwise one game, as in backgammon money
    play, where a drop never concedes a gammon.
    """
    if rules[R_SCORING] == SCORING_PER_CHECKER:
        return N_CHECKERS - board[OPP_OFF]
    return 1


# What ``offer`` returns.
NO_DOUBLE, TAKEN, DROPPED = 0, 1, 2


@njit(cache=True)
def offer(board, rules, doubler, taker, owned, ns):
    """The cube action at the start of a turn: ``NO_DOUBLE``, ``TAKEN`` or ``DROPPED``.

    ``board`` is from the view of the side on roll, whose equity model is the
    network ``doubler``; ``taker`` is its opponent's.  Each side judges from
    its own model: the taker's win probability is one minus what its model
    gives the side on roll, and its W and L are that side's L and W.
    """
    # Janowski's model counts in units of what a drop concedes
    drop = float(drop_points(board, rules))
    p, win, loss = win_and_loss(doubler, board, rules, ns)
    if not should_double(p, win / drop, loss / drop, CUBE_LIFE, owned):
        return NO_DOUBLE
    p, win, loss = win_and_loss(taker, board, rules, ns)
    return TAKEN if should_take(1.0 - p, loss / drop, win / drop, CUBE_LIFE) else DROPPED
