"""Position analysis: what a strategy's evaluation says of each play of one roll.

The hint (``acesim.analyses.hint``) lists a roll's distinct plays and asks
these kernels for each resulting position's value to the mover, at one of
four depths:

* ply 0: the static heuristic score (a learned player's ranker, the weights
  that shortlist its doubles plays; a heuristic strategy's own score);
* ply 1: the score the strategy plays by (``strategy.net_score``), with the
  mover still on roll when the play leads to another roll of its own;
* ply 2: one roll deeper.  Whoever is on roll after the play rolls: the mean
  over the 36 rolls of the ply-1 value after that side's own choice of play
  (``strategy.scored_play``, the strategy's search in games), its bonus rolls
  included: after a 1-2 the double is chosen (or rolled, under
  ``acey_deucey = roll-die``) and played as the game loop plays it.  A 1-2
  play is followed by the double, not by a roll: its ply-2 value is that of
  the double the strategy would choose (the mean over the six, when rolled).
* ply 3: two rolls deeper: the same mean over the rolls, each roll's
  outcome valued at ply 2 (``third_ply_value``).

Every value is from the mover's view, as ``(score, equity, win, points)``:
``score`` ranks (a play that wins the game beats every other), ``equity`` is
what the strategy maximises (``2 P(win) - 1``, or expected points when it
plays for points), ``win`` the win probability, ``points`` expected signed
points before stakes doublings.  A heuristic has no equity: its ply-0/1
values are its score with NaN for the rest, and it has no ply 2 or 3.
"""

import numpy as np

from acesim.kernels.board import flip
from acesim.kernels.choice import LEARNED, net_shortlist, rolls_again, scored_play, search_arrays
from acesim.kernels.evaluate import summarize, summary_score
from acesim.kernels.scoring import points_won
from acesim.kernels.jit import njit
from acesim.kernels.layout import (
    BOARD_DTYPE,
    BOARD_SIZE,
    MAX_SEGMENT,
    N_CHECKERS,
    OFF,
)
from acesim.kernels.net import M_OBJECTIVE, M_OUTPUTS, OBJECTIVE_POINTS, WIN_EQUITY
from acesim.kernels.net import bounded_points, outputs, ranker_of, raw_points
from acesim.kernels.rng import STREAM_WORDS
from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, segment_of
from acesim.kernels.sequence import BONUS, ROLL_AGAIN, after_segment, roll_sequence, still_on_roll
from acesim.kernels.turn import MAX_OUTCOMES, N_ROLLS, ROLL_A, ROLL_B, ROLL_WEIGHT, play_bonus, play_heuristic_roll
from acesim.kernels.turn import bonus_step, play_roll

N_VALUES = 4  # score, equity, win, points
V_SCORE, V_EQUITY, V_WIN, V_POINTS = range(N_VALUES)


@njit(cache=True)
def best_of(board, rules, segment, n, kind, width, again, weights, ws, out, sc, result):
    """``strategy.scored_play`` compiled once: the kernels below call it, rather than each inlining its searches."""
    return scored_play(board, rules, segment, n, kind, width, again, weights, ws, out, sc, result)


@njit(cache=True)
def static_value(board, kind, weights, sc, value):
    """Ply 0 of the position after a play: the heuristic score of ``board`` (mover's view)."""
    summarize(board, sc.child_sum)
    ranker = ranker_of(weights) if kind == LEARNED else weights
    value[V_SCORE] = summary_score(sc.child_sum, ranker)
    value[V_EQUITY] = np.nan
    value[V_WIN] = np.nan
    value[V_POINTS] = np.nan


@njit(cache=True)
def position_value(board, rules, kind, weights, again, sc, value):
    """Ply 1 of the position after a play, for its mover; ``again``: the mover rolls next."""
    if board[OFF] == N_CHECKERS:
        value[V_SCORE] = WIN_EQUITY
        if kind != LEARNED:  # a heuristic has no equity, won or not
            value[V_EQUITY] = value[V_WIN] = value[V_POINTS] = np.nan
            return
        win_points = float(points_won(board, rules, 0))
        value[V_WIN] = 1.0
        value[V_POINTS] = win_points
        value[V_EQUITY] = win_points if weights[M_OBJECTIVE] == OBJECTIVE_POINTS else 1.0
        return
    if kind != LEARNED:
        static_value(board, kind, weights, sc, value)
        return
    view = 0 if again else 1
    outputs(weights, board, view, sc.net)
    p = sc.net.y[0]
    if weights[M_OUTPUTS] > 1:
        points = bounded_points(weights, board, view, rules, p, raw_points(weights, sc.net.y))
    else:
        points = 2.0 * p - 1.0
    if weights[M_OBJECTIVE] == OBJECTIVE_POINTS and weights[M_OUTPUTS] > 1:
        equity = points
    else:
        equity = 2.0 * p - 1.0
    if not again:  # the values are the opponent's, on roll
        p, points, equity = 1.0 - p, -points, -equity
    value[V_SCORE] = equity
    value[V_EQUITY] = equity
    value[V_WIN] = p
    value[V_POINTS] = points


@njit(cache=True)
def values_of(boards, rules, kind, weights, again, ply0, sc, values):
    """Ply 0 (``ply0``) or ply 1 of every row of ``boards``, the positions after one segment's plays."""
    for i in range(boards.shape[0]):
        if ply0:
            static_value(boards[i], kind, weights, sc, values[i])
        else:
            position_value(boards[i], rules, kind, weights, again, sc, values[i])


@njit(cache=True)
def _play_out(board, rules, seq, a, b, bonus_next, kind, width, choice_width, weights, choices, ws, uniform, out, sc,
              work, outcomes, steps):
    """The side on roll in ``board`` plays roll ``(a, b)`` as the game loop does (``turn.play_roll``).

    ``bonus_next``: a 1-2's segment is already played on ``board`` and what
    comes next is the double it earned (``turn.play_bonus``: chosen, or each
    of the six when rolled); ``(a, b)`` is then not played.  Returns
    ``(ws, uniform, count)``: one outcome in ``work``, or ``count`` equally
    likely ones in ``outcomes``; ``steps`` says what follows each.
    """
    work[:] = board
    if bonus_next:  # the 1-2's segment played: only its double is left, as play_roll plays it
        ws, uniform, count, _, _ = play_bonus(work, rules, seq, kind, width, choice_width, weights, choices, choices,
                                              ws, uniform, out, sc, True, outcomes, steps)
    else:
        ws, uniform, count, _, _ = play_roll(work, rules, seq, a, b, kind, width, choice_width, weights, choices,
                                             choices, ws, uniform, out, sc, True, outcomes, steps)
    return ws, uniform, count


@njit(cache=True, inline="always")
def _roll_value(board, rules, seq, a, b, bonus_next, kind, width, choice_width, weights, choices, ws, uniform, out,
                sc, work, outcomes, steps, value):
    """The ply-1 value, to the side on roll in ``board``, after its play of roll ``(a, b)`` (``_play_out``)."""
    ws, uniform, count = _play_out(board, rules, seq, a, b, bonus_next, kind, width, choice_width, weights, choices,
                                   ws, uniform, out, sc, work, outcomes, steps)
    _outcome_value(rules, kind, weights, count, work, outcomes, steps, sc, value)
    return ws, uniform


@njit(cache=True)
def _outcome_value(rules, kind, weights, count, work, outcomes, steps, sc, value):
    """The ply-1 value of what ``_play_out`` left: ``work``, or the mean of its ``count`` outcomes."""
    if count == 1:
        position_value(work, rules, kind, weights, steps[0] == ROLL_AGAIN, sc, value)
        return
    acc = np.zeros(N_VALUES)
    for d in range(count):
        position_value(outcomes[d], rules, kind, weights, steps[d] == ROLL_AGAIN, sc, value)
        for k in range(N_VALUES):
            acc[k] += value[k] / 6.0
    value[:] = acc


@njit(cache=True)
def roll_values(board, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc, values):
    """The ply-1 value, to the side on roll in ``board`` (its view), after each of the 21 rolls, into ``values``.

    Row ``r`` is roll ``(ROLL_A[r], ROLL_B[r])`` of ``kernels.turn``, played
    by the strategy's own search as the game loop plays it, the double a 1-2
    earns included.  Returns the memory, which may have grown.
    """
    seq = roll_sequence(rules)
    work = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
    outcomes = np.empty((MAX_OUTCOMES, BOARD_SIZE), dtype=BOARD_DTYPE)
    steps = np.zeros(MAX_OUTCOMES, dtype=np.int64)
    for r in range(N_ROLLS):
        ws, uniform = _roll_value(board, rules, seq, ROLL_A[r], ROLL_B[r], np.bool_(False), kind, width, choice_width,
                                  weights, choices, ws, uniform, out, sc, work, outcomes, steps, values[r])
    return ws, uniform


@njit(cache=True)
def heuristic_roll_values(board, rules, ranker, width, choice_width, model, ws, uniform, out, sc, values):
    """``roll_values`` with each roll played by the heuristic ``ranker`` (beam ``width``, the doubles after a
    1-2 ranked with ``choice_width``) and the position it leaves valued by the network ``model`` (ply 1).

    A fraction of the cost of the network's own plays, for the rollouts' luck, which needs the
    same function of the roll for all 21 rolls, not the trial player's own
    (``turn.play_heuristic_roll``).  The heuristic draws nothing, so no choice stream is taken.
    """
    seq = roll_sequence(rules)
    work = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
    outcomes = np.empty((MAX_OUTCOMES, BOARD_SIZE), dtype=BOARD_DTYPE)
    steps = np.zeros(MAX_OUTCOMES, dtype=np.int64)
    unused = np.zeros(STREAM_WORDS, dtype=np.uint64)
    arrays = search_arrays(sc)
    for r in range(N_ROLLS):
        work[:] = board
        ws, uniform, count, _, _ = play_heuristic_roll(work, rules, seq, ROLL_A[r], ROLL_B[r], width, choice_width,
                                                       ranker, unused, ws, uniform, out, sc, arrays, True, outcomes,
                                                       steps)
        _outcome_value(rules, np.int64(LEARNED), model, count, work, outcomes, steps, sc, values[r])
    return ws, uniform


@njit(cache=True)
def _roll_mean(values, value):
    """The mean over the 36 rolls of ``values`` (one row per roll of ``kernels.turn``), into ``value``."""
    for k in range(N_VALUES):
        total = 0.0
        for r in range(N_ROLLS):
            total += ROLL_WEIGHT[r] * values[r, k]
        value[k] = total / 36.0  # in 36ths, so that equal values average to exactly that value
    value[V_SCORE] = value[V_EQUITY]


@njit(cache=True, inline="always")
def _for_the_other_side(value):
    """``value`` of the side on roll, as its opponent's."""
    value[V_EQUITY] = -value[V_EQUITY]
    value[V_WIN] = 1.0 - value[V_WIN]
    value[V_POINTS] = -value[V_POINTS]
    value[V_SCORE] = value[V_EQUITY]


@njit(cache=True, inline="always")
def roll_average(board, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc, value):
    """The mean over the 36 rolls of ``roll_values``: the side on roll's value one roll deeper."""
    values = np.zeros((N_ROLLS, N_VALUES))
    ws, uniform = roll_values(board, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc,
                              values)
    _roll_mean(values, value)
    return ws, uniform


@njit(cache=True)
def deeper_value(board, rules, kind, width, choice_width, weights, again, bonus_next, choices, ws, uniform, out, sc,
                 value):
    """Ply 2 of the position ``board`` after a play, for its mover.

    ``again``: the mover rolls next; ``bonus_next``: what comes next is the
    double its 1-2 earned, not a roll.  Returns the memory.
    """
    if board[OFF] == N_CHECKERS:
        position_value(board, rules, kind, weights, again, sc, value)
        value[V_SCORE] = value[V_EQUITY]
        return ws, uniform
    if bonus_next:
        work = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
        outcomes = np.empty((MAX_OUTCOMES, BOARD_SIZE), dtype=BOARD_DTYPE)
        steps = np.zeros(MAX_OUTCOMES, dtype=np.int64)
        ws, uniform = _roll_value(board, rules, roll_sequence(rules), np.int64(1), np.int64(2), np.bool_(True), kind,
                                  width, choice_width, weights, choices, ws, uniform, out, sc, work, outcomes, steps,
                                  value)
        value[V_SCORE] = value[V_EQUITY]
        return ws, uniform
    if again:
        return roll_average(board, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc, value)
    other = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
    flip(board, other)
    ws, uniform = roll_average(other, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc, value)
    _for_the_other_side(value)
    return ws, uniform


@njit(cache=True, inline="always")
def _deeper_roll_value(board, rules, seq, a, b, bonus_next, kind, width, choice_width, weights, choices, ws, uniform,
                       out, sc, work, outcomes, steps, value):
    """``_roll_value`` one ply deeper: what the play of roll ``(a, b)`` leaves, valued at ply 2 (``deeper_value``)."""
    ws, uniform, count = _play_out(board, rules, seq, a, b, bonus_next, kind, width, choice_width, weights, choices,
                                   ws, uniform, out, sc, work, outcomes, steps)
    no_bonus = np.bool_(False)
    if count == 1:
        return deeper_value(work, rules, kind, width, choice_width, weights, steps[0] == ROLL_AGAIN, no_bonus, choices,
                            ws, uniform, out, sc, value)
    acc = np.zeros(N_VALUES)
    for d in range(count):
        ws, uniform = deeper_value(outcomes[d], rules, kind, width, choice_width, weights, steps[d] == ROLL_AGAIN,
                                   no_bonus, choices, ws, uniform, out, sc, value)
        for k in range(N_VALUES):
            acc[k] += value[k] / 6.0
    value[:] = acc
    return ws, uniform


@njit(cache=True, inline="always")
def deeper_roll_average(board, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc, value):
    """``roll_average`` one ply deeper: the mean over the 36 rolls of ``_deeper_roll_value``."""
    seq = roll_sequence(rules)
    work = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
    outcomes = np.empty((MAX_OUTCOMES, BOARD_SIZE), dtype=BOARD_DTYPE)
    steps = np.zeros(MAX_OUTCOMES, dtype=np.int64)
    values = np.zeros((N_ROLLS, N_VALUES))
    for r in range(N_ROLLS):
        ws, uniform = _deeper_roll_value(board, rules, seq, ROLL_A[r], ROLL_B[r], np.bool_(False), kind, width,
                                         choice_width, weights, choices, ws, uniform, out, sc, work, outcomes, steps,
                                         values[r])
    _roll_mean(values, value)
    return ws, uniform


@njit(cache=True)
def third_ply_value(board, rules, kind, width, choice_width, weights, again, bonus_next, choices, ws, uniform, out,
                    sc, value):
    """Ply 3 of the position ``board`` after a play, for its mover: ``deeper_value`` with every roll's
    outcome valued at ply 2 instead of ply 1 (the same turn, bonus and side rules).  Returns the memory.

    Separate from ``deeper_value`` rather than a depth argument to it, because
    Numba compiles no recursion through these kernels."""
    if board[OFF] == N_CHECKERS:
        position_value(board, rules, kind, weights, again, sc, value)
        value[V_SCORE] = value[V_EQUITY]
        return ws, uniform
    if bonus_next:
        work = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
        outcomes = np.empty((MAX_OUTCOMES, BOARD_SIZE), dtype=BOARD_DTYPE)
        steps = np.zeros(MAX_OUTCOMES, dtype=np.int64)
        ws, uniform = _deeper_roll_value(board, rules, roll_sequence(rules), np.int64(1), np.int64(2),
                                         np.bool_(True), kind, width, choice_width, weights, choices, ws, uniform,
                                         out, sc, work, outcomes, steps, value)
        value[V_SCORE] = value[V_EQUITY]
        return ws, uniform
    if again:
        return deeper_roll_average(board, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc,
                                   value)
    other = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
    flip(board, other)
    ws, uniform = deeper_roll_average(other, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc,
                                      value)
    _for_the_other_side(value)
    return ws, uniform


@njit(cache=True, inline="always")
def _offered(board, rules, die_a, die_b, bonus, kind, width, weights, shortlist, ws, out, sc, result):
    """The plays of the segment of ``(die_a, die_b)`` (``bonus``: the double a 1-2 earned) that a ply-2
    search values at ply 1: every distinct play, or with ``shortlist`` a learned strategy's doubles
    shortlist (``choice.net_shortlist``).  Returns ``(ws, plays, dice in the segment, dice used)``; the
    plays are copied out, since the deeper values search the workspace and the beams again."""
    segment = np.zeros(MAX_SEGMENT, dtype=np.int64)
    n = segment_of(rules, die_a, die_b, bonus, segment)
    if shortlist and kind == LEARNED and n > 2 and width > 0:
        used, kept, level, found = net_shortlist(board, rules, segment, n, width,
                                                 rolls_again(rules, die_a, die_b, bonus), weights, sc, result)
        if found:
            return ws, sc.beam[level][:kept].copy(), n, used
    while enumerate_plays(board, rules, segment, n, ws, out) == FULL:
        ws = grown_workspace(ws)
    first, stop, used = out[0], out[1], out[2]
    return ws, ws.nodes[first:stop].copy(), n, used


@njit(cache=True, inline="always")
def _deeper_best(plays, again, bonus_next, rules, kind, width, choice_width, weights, keep, margin, choices, ws,
                 uniform, out, sc):
    """The index of the best of ``plays`` at ply 2: each valued at ply 1 (``position_value``; ``again[i]``:
    its mover rolls next), the best ``keep`` within ``margin`` of the best one roll deeper
    (``deeper_value``), the best of those chosen (a winning play wins at once; the first of equal values).
    Returns ``(ws, uniform, index)``."""
    count = plays.shape[0]
    scores = np.empty(count)
    value = np.zeros(N_VALUES)
    best = 0
    for i in range(count):
        position_value(plays[i], rules, kind, weights, again[i], sc, value)
        scores[i] = value[V_SCORE]
        if scores[i] > scores[best]:
            best = i
    if count > 1 and plays[best][OFF] != N_CHECKERS:
        order = np.argsort(-scores, kind="mergesort")  # best first, ties in the plays' order
        top = scores[order[0]]
        deep_best = -np.inf
        for k in range(min(keep, count)):
            i = order[k]
            if scores[i] < top - margin:  # as analyses.hint.Filter keeps
                break
            ws, uniform = deeper_value(plays[i], rules, kind, width, choice_width, weights, again[i], bonus_next[i],
                                       choices, ws, uniform, out, sc, value)
            if k == 0 or value[V_SCORE] > deep_best:
                deep_best = value[V_SCORE]
                best = i
    return ws, uniform, best


@njit(cache=True)
def deeper_segment(board, rules, seq, die_a, die_b, kind, width, choice_width, weights, keep, margin, shortlist,
                   choices, ws, uniform, out, sc, result):
    """The play of roll ``(die_a, die_b)``'s segment from ``board`` chosen at ply 2, into ``result``.

    Every distinct play is valued at ply 1 (``position_value``); the best
    ``keep`` within ``margin`` of the best go one roll deeper
    (``deeper_value``), and the best of those at ply 2 is the play (a
    winning play wins at once).  With ``shortlist``, a learned strategy's
    doubles segment (``width`` > 0) offers only the plays its own search
    judges (``choice.net_shortlist``) instead of every distinct play: the
    games' ply-2 players (``@ply=2``), for whom the thousands of plays of a
    European double cost more than the look deeper.  The rollouts' deeper
    trial player offers every play.  What follows the segment is
    ``turn.finish_roll``'s, or for a ply-2 player in games the double a 1-2
    earns chosen by ``deeper_bonus``.  Returns ``(ws, uniform, dice in the
    segment, dice used)``.
    """
    ws, plays, n, used = _offered(board, rules, die_a, die_b, np.bool_(False), kind, width, weights, shortlist, ws,
                                  out, sc, result)
    step = after_segment(seq, die_a, die_b, False, n, used, False)
    count = plays.shape[0]
    again = np.full(count, still_on_roll(step))
    bonus_next = np.full(count, step == BONUS)
    ws, uniform, best = _deeper_best(plays, again, bonus_next, rules, kind, width, choice_width, weights, keep,
                                     margin, choices, ws, uniform, out, sc)
    result[:] = plays[best]
    return ws, uniform, n, used


@njit(cache=True)
def deeper_bonus(board, rules, seq, low, high, kind, width, choice_width, weights, keep, margin, choices, ws, uniform,
                 out, sc, result):
    """The double a 1-2 earned, chosen and played at ply 2 from ``board`` into ``result``: the plays of
    each of the doubles ``low .. high`` (``turn.bonus_doubles``: the six, or the one die rolled) that
    its search offers (``_offered`` with the shortlist), all valued at ply 1 together, the best
    ``keep`` within ``margin`` one roll deeper, and the best of those is the double and its play (the
    first double of equal values, as ``choice.choose_double``).  Returns ``(ws, uniform, double, dice
    in its segment, dice used)``."""
    plays = np.empty((0, BOARD_SIZE), dtype=BOARD_DTYPE)
    facts = np.empty((0, 3), dtype=np.int64)  # per play: its double, dice in the segment, dice used
    for d in range(low, high + 1):
        ws, offered, n, used = _offered(board, rules, d, d, np.bool_(True), kind, width, weights, np.bool_(True), ws,
                                        out, sc, result)
        plays = np.concatenate((plays, offered))
        these = np.empty((offered.shape[0], 3), dtype=np.int64)
        these[:, 0] = d
        these[:, 1] = n
        these[:, 2] = used
        facts = np.concatenate((facts, these))
    count = plays.shape[0]
    again = np.empty(count, dtype=np.bool_)
    for i in range(count):
        again[i] = still_on_roll(bonus_step(seq, facts[i, 0], facts[i, 1], facts[i, 2], plays[i]))
    ws, uniform, best = _deeper_best(plays, again, np.zeros(count, dtype=np.bool_), rules, kind, width, choice_width,
                                     weights, keep, margin, choices, ws, uniform, out, sc)
    result[:] = plays[best]
    return ws, uniform, facts[best, 0], facts[best, 1], facts[best, 2]
