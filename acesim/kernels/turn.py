"""A turn's rolls played (docs/rules.md section 3): a roll's segment, then the double a 1-2 earns.

``play_roll`` is the one kernel that plays the roll sequence: the roll's
segment, then ``sequence.after_segment``'s word on what follows, then the
double a 1-2 earns (``play_bonus``: whether it is chosen or rolled is read
here once).  The rollout trials, the random walk, the luck kernels' roll
values and the hint's values one roll deeper play every roll through it; a
turn is ``play_roll`` again for as long as it returns ``ROLL_AGAIN``.  The
game loop (and so self-play) plays the roll's segment with its own fast
searches, which bind no scratch tuple per roll, and then the same two steps
(``after_segment``, ``play_bonus``); ``tests/test_turn.py`` replays games
through ``play_roll`` and keeps the kernels that ask ``after_segment`` to
these.

Callers that play a game draw the double of ``roll-die`` from the dice
stream; callers that value a roll (``expected``) play each of the six
doubles instead, and weight the six results equally.

``finish_roll`` is ``play_roll``'s second half, what follows a segment,
for the kernels that search the segment their own way:
``play_heuristic_roll``, ``play_roll`` of a heuristic for a caller that
plays many rolls from one scratch (the segment searched with the search
arrays the caller took out of the scratch once, ``choice.search_arrays``,
as the game loop does), and the rollouts' deeper trial player
(``lookahead.deeper_segment``).  A ply-2 player in games chooses the
1-2's double its own way (``lookahead.deeper_bonus``, which cannot sit
under ``play_bonus``: it values each choice by playing rolls through
``play_roll``); ``bonus_doubles`` and ``bonus_step`` give it the doubles
to choose among and what follows, so the sequence is still read here.

The 21 distinct rolls and their weights are the table below, also the one
table every roll valuation reads.
"""

import numpy as np

from acesim.kernels.choice import LINEAR, choose_and_play_double, exhaustive_play, play_segment, quick_segment
from acesim.kernels.jit import njit
from acesim.kernels.layout import N_CHECKERS, OFF
from acesim.kernels.rng import die
from acesim.kernels.sequence import BONUS, after_segment, bonus_die_rolled

# The 21 distinct rolls, their weights in 36ths (1 a double, 2 otherwise) and
# probabilities; the opening dice (opening = use) are never a double.
ROLL_A = np.array([a for a in range(1, 7) for b in range(a, 7)], dtype=np.int64)
ROLL_B = np.array([b for a in range(1, 7) for b in range(a, 7)], dtype=np.int64)
ROLL_WEIGHT = np.where(ROLL_A == ROLL_B, 1.0, 2.0)
ROLL_P = ROLL_WEIGHT / 36.0
OPENING_P = np.where(ROLL_A == ROLL_B, 0.0, 1.0 / 15.0)
N_ROLLS = 21

# A valued roll under roll-die has one outcome per double rolled after the 1-2.
MAX_OUTCOMES = 6


@njit(cache=True)
def roll_index(a, b):
    """The index of roll ``(a, b)`` among the 21 (``ROLL_A``, ``ROLL_B``)."""
    lo = min(a, b)
    hi = max(a, b)
    return (lo - 1) * (14 - lo) // 2 + (hi - lo)


@njit(cache=True)
def play_dice(board, rules, die_a, die_b, bonus, kind, width, weights, choices, ws, uniform, out, sc):
    """``strategy.play_segment`` compiled once: the kernels that inline ``play_roll`` call it, rather than
    each inlining every strategy's search."""
    return play_segment(board, rules, die_a, die_b, bonus, kind, width, weights, choices, ws, uniform, out, sc)


@njit(cache=True, inline="always")
def bonus_step(seq, chosen, n, used, board):
    """What follows the double ``chosen`` a 1-2 earned, ``used`` of its ``n`` dice played on ``board``."""
    return after_segment(seq, chosen, chosen, True, n, used, board[OFF] == N_CHECKERS)


@njit(cache=True, inline="always")
def bonus_doubles(seq, dice):
    """``(low, high)``: the doubles a 1-2's bonus is played from, for a caller that searches them its
    own way (a ply-2 player, ``lookahead.deeper_bonus``): under ``roll-die`` the one die drawn from
    ``dice`` (as ``play_bonus`` draws it), else the six to choose among."""
    if bonus_die_rolled(seq):
        d = die(dice)
        return d, d
    return 1, 6


@njit(cache=True, inline="always")
def play_bonus(board, rules, seq, kind, width, choice_width, weights, dice, choices, ws, uniform, out, sc, expected,
               outcomes, steps):
    """Play the double a 1-2 earned on ``board`` (in place, the 1-2's segment already played); ``play_roll``'s end.

    The double is the strategy's choice (``choose_and_play_double``, beam
    ``choice_width``) or, under ``roll-die``, one die: drawn from ``dice``,
    or, when ``expected``, each of the six played from a copy into
    ``outcomes[d - 1]``; otherwise ``outcomes[0]`` keeps the position the
    double is played from.  ``steps[k]`` receives what follows outcome ``k``.
    Returns ``(ws, uniform, outcomes, double played or 0, dice lost)``.
    """
    if bonus_die_rolled(seq):
        if expected:
            for d in range(1, 7):
                outcome = outcomes[d - 1]
                outcome[:] = board
                ws, uniform, n, used = play_dice(outcome, rules, d, d, np.bool_(True), kind, width, weights, choices,
                                                 ws, uniform, out, sc)
                steps[d - 1] = after_segment(seq, d, d, True, n, used, outcome[OFF] == N_CHECKERS)
            return ws, uniform, MAX_OUTCOMES, 0, 0
        outcomes[0, :] = board
        chosen = die(dice)
        ws, uniform, n, used = play_dice(board, rules, chosen, chosen, np.bool_(True), kind, width, weights, choices,
                                         ws, uniform, out, sc)
    else:
        outcomes[0, :] = board
        ws, uniform, chosen, n, used = choose_and_play_double(board, rules, kind, width, choice_width, weights,
                                                              choices, ws, uniform, out, sc)
    steps[0] = bonus_step(seq, chosen, n, used, board)
    return ws, uniform, 1, chosen, n - used


@njit(cache=True, inline="always")
def finish_roll(board, rules, seq, die_a, die_b, n, used, kind, width, choice_width, weights, dice, choices, ws,
                uniform, out, sc, expected, outcomes, steps):
    """What follows roll ``(die_a, die_b)``'s segment, its ``n`` dice played on ``board`` (``used`` of them):
    ``sequence.after_segment``'s word into ``steps[0]``, or the double a 1-2 earns (``play_bonus``).

    The second half of ``play_roll`` (see there for the arguments and what it returns), for the
    callers that play the segment by another search than the strategy's own.
    """
    step = after_segment(seq, die_a, die_b, False, n, used, board[OFF] == N_CHECKERS)
    if step == BONUS:
        ws, uniform, count, chosen, lost = play_bonus(board, rules, seq, kind, width, choice_width, weights, dice,
                                                      choices, ws, uniform, out, sc, expected, outcomes, steps)
        return ws, uniform, count, chosen, lost + n - used
    steps[0] = step
    return ws, uniform, 1, 0, n - used


@njit(cache=True, inline="always")
def play_roll(board, rules, seq, die_a, die_b, kind, width, choice_width, weights, dice, choices, ws, uniform, out,
              sc, expected, outcomes, steps):
    """Play roll ``(die_a, die_b)`` on ``board`` in place by strategy ``kind``, and the double a 1-2 earns.

    ``seq`` is ``sequence.roll_sequence(rules)``.  The roll's segment is
    played (``play_dice``); when it earns the 1-2's double (``BONUS``) the double
    is played by ``play_bonus``: chosen, drawn from ``dice`` under
    ``roll-die``, or, when ``expected``, each of the six into ``outcomes``.
    ``steps[k]`` receives what follows outcome ``k``
    (``sequence.after_segment``: ``PASS``, ``ROLL_AGAIN``, ``FORFEIT`` or
    ``GAME_OVER``); outcome 0 is ``board`` itself unless there are six.  A
    double played after a 1-2 in a game (not ``expected``) leaves the
    position it was played from in ``outcomes[0]``.

    Returns ``(ws, uniform, outcomes, double played or 0, dice lost)``:
    either memory may have grown; ``outcomes`` is 1, or 6 for the six rolled
    doubles, each of probability 1/6 (``board`` then holds the position after
    the 1-2's segment).
    """
    ws, uniform, n, used = play_dice(board, rules, die_a, die_b, np.bool_(False), kind, width, weights, choices, ws,
                                     uniform, out, sc)
    return finish_roll(board, rules, seq, die_a, die_b, n, used, kind, width, choice_width, weights, dice, choices,
                       ws, uniform, out, sc, expected, outcomes, steps)


@njit(cache=True, inline="always")
def play_heuristic_roll(board, rules, seq, die_a, die_b, width, choice_width, weights, choices, ws, uniform, out, sc,
                        arrays, expected, outcomes, steps):
    """``play_roll`` of the ``LINEAR`` strategy ``weights``, its segment searched with ``arrays``
    (``choice.search_arrays(sc)``, taken once by the caller): binding them per roll, as
    ``play_segment`` does, costs a third of a heuristic roll.  Returns what ``play_roll`` returns.
    """
    node_sums, child, moves, moves_after, pairs, beam, beam_scores, beam_sums, parent, parent_sum = arrays
    n, used, found = quick_segment(board, rules, die_a, die_b, width, weights, sc.segment, sc.play, node_sums, child,
                                   moves, moves_after, pairs, beam, beam_scores, beam_sums, parent, parent_sum)
    if not found:
        ws, used, _ = exhaustive_play(board, rules, sc.segment, n, ws, out, weights, sc, sc.play)
        board[:] = sc.play
    return finish_roll(board, rules, seq, die_a, die_b, n, used, np.int64(LINEAR), width, choice_width, weights,
                       choices, choices, ws, uniform, out, sc, expected, outcomes, steps)
