"""Strategies: how a side picks its play of a segment and its double after a 1-2.

``RANDOM`` picks uniformly among the distinct legal plays (the reference
definition) and the double uniformly among 1..6.  ``LINEAR`` plays the legal
play that maximises ``evaluate.score`` under its weight vector; ``LEARNED``
the one that maximises the network's equity (``kernels.net``) one ply ahead:

* a two-dice segment is small, so every play is scored (exhaustively, depth
  first, without storing the nodes: ``_two_dice``);
* a doubles segment (four dice, or eight in the European game) is searched by a
  beam over the dice: after each die only the ``width`` best distinct partial
  positions are kept.  The beam ends on a legal play: a segment it plays in
  full uses the maximal number of dice by definition, and if it stops short
  after pruning (a pruned branch might have gone further) the segment is
  searched exhaustively instead.  ``width = 0`` means exhaustive always;
* the double after a 1-2 is the one whose best play scores highest (each
  double searched with the strategy's ``choice_width``).

``LEARNED`` scores a play by the equity of its resulting position for the
mover: the network's value with the mover on roll when it rolls again (a
double with an extra roll, a 1-2, the double chosen after it when that earns
a roll), else minus the value with the opponent on roll.  A two-dice segment
is enumerated and every distinct play scored; a doubles segment is searched by
the same beam as ``LINEAR`` with the network scoring the partial positions.
The search assumes a bonus roll is not forfeited: under
``bonus_needs_full_use`` the beam may score a play that cannot use every die
as if the mover rolled again (the exhaustive search knows the dice used and
does not).

The random choices (which play, which double) come from the game's choice
stream, never from its dice stream.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from acesim.kernels import board as _board
from acesim.kernels.board import open_mask
from acesim.kernels.evaluate import (
    N_FEATURES,
    S_MINE,
    S_OFF,
    SUMMARY_SIZE,
    summarize,
    summary_score,
    update_summary,
)
from acesim.kernels.layout import (
    ACEY_DEUCEY_NONE,
    BOARD_DTYPE,
    BOARD_SIZE,
    DOUBLES_FOUR_PLUS_COMPLEMENT,
    FROM_WAITING,
    MAX_SEGMENT,
    N_CHECKERS,
    N_POINTS,
    OFF,
    R_ACEY_DEUCEY,
    R_ACEY_DEUCEY_EXTRA_ROLL,
    R_BONUS_NEEDS_FULL_USE,
    R_DOUBLES,
    R_DOUBLES_EXTRA_ROLL,
)
from acesim.kernels.net import WIN_EQUITY, equity_of, new_net_scratch
from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, segment_of
from acesim.kernels.rng import below
from acesim.kernels.uniform import FULL as UNIFORM_FULL
from acesim.kernels.uniform import grown_uniform_scratch, uniform_play

RANDOM = 0
LINEAR = 1
LEARNED = 2

# The board's single-move kernels, inlined into the searches here: they are
# called once per searched node, and a call that takes arrays costs atomic
# reference counting of each (see kernels.uniform), more than the work itself.
# Same source as ``kernels.board``, so the same rules.
legal_moves = njit(cache=True, inline="always")(_board.legal_moves.py_func)
apply_move = njit(cache=True, inline="always")(_board.apply_move.py_func)

MAX_WIDTH = 256
SUMMED_NODES = 8192  # exhaustive searches up to this many nodes score from summaries
N_SOURCES = FROM_WAITING + 1  # a move's source: points 1..24, FROM_BAR, FROM_WAITING

# Scratch of the strategies: two beams (current and next) of boards, their
# scores and summaries (evaluate.summarize), the child being scored and its
# summary, the summaries of an exhaustive search's nodes, the chosen play, the
# feature vector, single moves (of a node and of its child), the segment's dice,
# the move pairs a two-dice search has seen (``_two_dice``), the best play
# of the double chosen after a 1-2 (``choose_and_play_double``), and the
# network's active inputs, activations and back-propagated errors (``kernels.net``).
Scratch = namedtuple(
    "Scratch",
    [
        "beam",
        "beam_scores",
        "beam_sums",
        "next",
        "next_scores",
        "next_sums",
        "child",
        "child_sum",
        "node_sums",
        "play",
        "feat",
        "moves",
        "moves_after",
        "segment",
        "pairs",
        "chosen",
        "net",
    ],
)


@njit(cache=True)
def new_scratch(width):
    w = max(width, 1)
    return Scratch(
        np.zeros((w, BOARD_SIZE), dtype=BOARD_DTYPE),
        np.zeros(w, dtype=np.float64),
        np.zeros((w, SUMMARY_SIZE), dtype=np.int64),
        np.zeros((w, BOARD_SIZE), dtype=BOARD_DTYPE),
        np.zeros(w, dtype=np.float64),
        np.zeros((w, SUMMARY_SIZE), dtype=np.int64),
        np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE),
        np.zeros(SUMMARY_SIZE, dtype=np.int64),
        np.zeros((SUMMED_NODES, SUMMARY_SIZE), dtype=np.int64),
        np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE),
        np.zeros(N_FEATURES, dtype=np.float64),
        np.zeros((N_POINTS + 2, 2), dtype=np.int64),
        np.zeros((N_POINTS + 2, 2), dtype=np.int64),
        np.zeros(MAX_SEGMENT, dtype=np.int64),
        np.zeros(N_SOURCES, dtype=np.int64),
        np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE),
        new_net_scratch(),
    )


# The beam's row helpers index rows element by element: taking a row as a view
# (``boards[j]``) costs reference counting on every candidate.


@njit(cache=True, inline="always")
def _same(boards, j, child):
    """Row ``j`` of ``boards`` is the position ``child``."""
    for i in range(BOARD_SIZE):
        if boards[j, i] != child[i]:
            return False
    return True


@njit(cache=True, inline="always")
def _keep(child, child_sum, s, boards, scores, sums, kept, width):
    """Insert ``child`` (score ``s``) into the best-first list; return ``(kept, dropped)``.

    ``dropped`` is True when a distinct position fell off the end of a full
    list (the beam pruned something).  Equal positions have equal scores, so
    only entries of equal score are compared for duplicates.
    """
    if kept == width and s <= scores[kept - 1]:
        if s == scores[kept - 1]:
            j = kept - 1
            while j >= 0 and scores[j] == s:
                if _same(boards, j, child):
                    return kept, False
                j -= 1
        return kept, True
    pos = kept
    while pos > 0 and scores[pos - 1] < s:
        pos -= 1
    j = pos - 1
    while j >= 0 and scores[j] == s:
        if _same(boards, j, child):
            return kept, False
        j -= 1
    dropped = kept == width
    last = kept - 1 if dropped else kept
    for j in range(last, pos, -1):
        for i in range(BOARD_SIZE):
            boards[j, i] = boards[j - 1, i]
        scores[j] = scores[j - 1]
        for i in range(SUMMARY_SIZE):
            sums[j, i] = sums[j - 1, i]
    for i in range(BOARD_SIZE):
        boards[pos, i] = child[i]
    scores[pos] = s
    for i in range(SUMMARY_SIZE):
        sums[pos, i] = child_sum[i]
    return (kept if dropped else kept + 1), dropped


@njit(cache=True)
def _exhaustive(board, rules, segment, n, ws, out, weights, sc, result):
    """Score every legal play; write the best into ``result``.  Returns ``(ws, used, score)``.

    Nodes are stored parents first, so one pass derives every node's summary
    from its parent's; a search too large for the summary scratch scores each
    play from its board instead.
    """
    while enumerate_plays(board, rules, segment, n, ws, out) == FULL:
        ws = grown_workspace(ws)
    first, stop = out[0], out[1]
    best = first
    best_score = -np.inf
    if stop <= sc.node_sums.shape[0]:
        sums = sc.node_sums
        summarize(ws.nodes[0], sums[0])
        for node in range(1, stop):
            parent = ws.parent[node]
            update_summary(sums[parent], ws.nodes[parent], ws.src[node], ws.dst[node], sums[node])
        for node in range(first, stop):
            s = summary_score(sums[node], weights, sc.feat)
            if s > best_score:
                best_score = s
                best = node
    else:
        for node in range(first, stop):
            summarize(ws.nodes[node], sc.child_sum)
            s = summary_score(sc.child_sum, weights, sc.feat)
            if s > best_score:
                best_score = s
                best = node
    result[:] = ws.nodes[best]
    return ws, out[2], best_score


@njit(cache=True)
def _two_dice(board, rules, segment, weights, sc, result):
    """The best play of a non-double into ``result``; returns ``used`` and the score.

    Exact, like ``_exhaustive``, but without storing or deduplicating nodes:
    both orders of the dice, depth first, each play scored from summaries.  A
    position reached twice scores the same, so duplicates cannot change the
    maximum (the first play of the best score is kept, so skipping a later
    duplicate changes nothing either).  The plays are those of
    ``enumerate_plays``: the two-dice plays if there are any (a first move that
    bears off the fifteenth checker ends the segment, so it is not one), else
    the higher die's single moves if it has any, else the lower die's.

    The lower-die-first order skips, unscored, a play ``(y, x)`` whose moves
    the higher-die-first order already played as ``(x, y)``: the same two
    (source, die) moves reach the same position (a move's landing follows from
    its source and die, and any landing on a blot hits it; see
    ``kernels.uniform``).  ``sc.pairs[x]`` has bit ``y`` for each such pair.
    The mover's occupied points, which ``legal_moves`` needs, are the
    summary's ``S_MINE`` mask.
    """
    hi = max(segment[0], segment[1])
    lo = min(segment[0], segment[1])
    open_bits = open_mask(board)
    root_sum = sc.beam_sums[0]
    first_sum = sc.next_sums[0]
    leaf_sum = sc.child_sum
    child = sc.child
    first_moves = sc.moves
    second_moves = sc.moves_after
    pairs = sc.pairs
    pairs[:] = 0
    summarize(board, root_sum)
    occupied = root_sum[S_MINE]
    best_score = -np.inf
    best_d1, best_src1, best_dst1, best_src2, best_dst2 = 0, 0, 0, 0, 0
    # higher die first: every play, each pair of moves noted
    m1 = legal_moves(board, rules, hi, False, open_bits, occupied, first_moves)
    for i in range(m1):
        src1, dst1 = first_moves[i, 0], first_moves[i, 1]
        update_summary(root_sum, board, src1, dst1, first_sum)
        if first_sum[S_OFF] == N_CHECKERS:
            continue  # won with one die: a leaf one die deep
        child[:] = board
        apply_move(child, src1, dst1)
        m2 = legal_moves(child, rules, lo, False, open_bits, first_sum[S_MINE], second_moves)
        seen = 0
        for j in range(m2):
            src2, dst2 = second_moves[j, 0], second_moves[j, 1]
            seen |= np.int64(1) << src2
            update_summary(first_sum, child, src2, dst2, leaf_sum)
            s = summary_score(leaf_sum, weights, sc.feat)
            if s > best_score:
                best_score = s
                best_d1, best_src1, best_dst1, best_src2, best_dst2 = hi, src1, dst1, src2, dst2
        pairs[src1] = seen
    # lower die first: only the pairs not already played the other way round
    m1 = legal_moves(board, rules, lo, False, open_bits, occupied, first_moves)
    for i in range(m1):
        src1, dst1 = first_moves[i, 0], first_moves[i, 1]
        update_summary(root_sum, board, src1, dst1, first_sum)
        if first_sum[S_OFF] == N_CHECKERS:
            continue
        child[:] = board
        apply_move(child, src1, dst1)
        m2 = legal_moves(child, rules, hi, False, open_bits, first_sum[S_MINE], second_moves)
        for j in range(m2):
            src2, dst2 = second_moves[j, 0], second_moves[j, 1]
            if (pairs[src2] >> src1) & 1:
                continue  # (src2 with hi, then src1 with lo) reached this position already
            update_summary(first_sum, child, src2, dst2, leaf_sum)
            s = summary_score(leaf_sum, weights, sc.feat)
            if s > best_score:
                best_score = s
                best_d1, best_src1, best_dst1, best_src2, best_dst2 = lo, src1, dst1, src2, dst2
    result[:] = board
    if best_d1 != 0:
        apply_move(result, best_src1, best_dst1)
        apply_move(result, best_src2, best_dst2)
        return 2, best_score
    # no play uses both dice: one die, the higher if it can be played
    for d in (hi, lo):
        m1 = legal_moves(board, rules, d, False, open_bits, occupied, first_moves)
        if m1 == 0:
            continue
        for i in range(m1):
            src1, dst1 = first_moves[i, 0], first_moves[i, 1]
            update_summary(root_sum, board, src1, dst1, leaf_sum)
            s = summary_score(leaf_sum, weights, sc.feat)
            if s > best_score:
                best_score = s
                best_src1, best_dst1 = src1, dst1
        apply_move(result, best_src1, best_dst1)
        return 1, best_score
    return 0, summary_score(root_sum, weights, sc.feat)


@njit(cache=True)
def _beam(board, rules, segment, n, width, ws, out, weights, sc, result):
    """The best play of a doubles segment by beam search; see the module docstring."""
    open_bits = open_mask(board)
    beam, beam_scores, beam_sums = sc.beam, sc.beam_scores, sc.beam_sums
    nxt, next_scores, next_sums = sc.next, sc.next_scores, sc.next_sums
    child, child_sum = sc.child, sc.child_sum
    moves = sc.moves
    beam[0, :] = board
    summarize(board, beam_sums[0])
    beam_scores[0] = summary_score(beam_sums[0], weights, sc.feat)
    kept = 1
    used = 0
    pruned = False
    for k in range(n):
        die = segment[k]
        n_next = 0
        for b in range(kept):
            node = beam[b]
            node_sum = beam_sums[b]
            if node[OFF] == N_CHECKERS:
                continue
            m = legal_moves(node, rules, die, True, open_bits, node_sum[S_MINE], moves)
            for i in range(m):
                src, dst = moves[i, 0], moves[i, 1]
                update_summary(node_sum, node, src, dst, child_sum)
                s = summary_score(child_sum, weights, sc.feat)
                if n_next == width and s <= next_scores[width - 1]:
                    # No better than every kept position: never kept.  A worse one is
                    # pruned; an equal one too unless it duplicates a kept position,
                    # which only matters while nothing has been pruned yet.
                    if s < next_scores[width - 1] or pruned:
                        pruned = True
                        continue
                child[:] = node
                apply_move(child, src, dst)
                n_next, dropped = _keep(child, child_sum, s, nxt, next_scores, next_sums, n_next, width)
                pruned = pruned or dropped
        if n_next == 0:
            break
        used = k + 1
        beam, nxt = nxt, beam
        beam_scores, next_scores = next_scores, beam_scores
        beam_sums, next_sums = next_sums, beam_sums
        kept = n_next
    if used < n and pruned:
        return _exhaustive(board, rules, segment, n, ws, out, weights, sc, result)
    result[:] = beam[0]
    return ws, used, beam_scores[0]


@njit(cache=True, inline="always")
def net_score(position, again, model, sc):
    """The mover's equity after a play reaching ``position`` (see the module docstring)."""
    if position[OFF] == N_CHECKERS:
        return WIN_EQUITY
    if again:
        return equity_of(model, position, 0, sc.net)
    return -equity_of(model, position, 1, sc.net)


@njit(cache=True)
def _net_exhaustive(board, rules, segment, n, again, ws, out, model, sc, result):
    """Score every distinct legal play with the network; the best into ``result``.  Returns ``(ws, used, score)``."""
    while enumerate_plays(board, rules, segment, n, ws, out) == FULL:
        ws = grown_workspace(ws)
    first, stop, used = out[0], out[1], out[2]
    if used < n and rules[R_BONUS_NEEDS_FULL_USE] != 0:
        again = False  # the bonus roll is forfeited whichever play is chosen
    best = first
    best_score = -np.inf
    for node in range(first, stop):
        s = net_score(ws.nodes[node], again, model, sc)
        if s > best_score:
            best_score = s
            best = node
    result[:] = ws.nodes[best]
    return ws, used, best_score


@njit(cache=True)
def _net_beam(board, rules, segment, n, width, again, ws, out, model, sc, result):
    """``_beam`` with the network's scores."""
    open_bits = open_mask(board)
    beam, beam_scores, beam_sums = sc.beam, sc.beam_scores, sc.beam_sums
    nxt, next_scores, next_sums = sc.next, sc.next_scores, sc.next_sums
    child, child_sum = sc.child, sc.child_sum
    moves = sc.moves
    beam[0, :] = board
    summarize(board, beam_sums[0])
    beam_scores[0] = 0.0
    kept = 1
    used = 0
    pruned = False
    for k in range(n):
        die = segment[k]
        n_next = 0
        for b in range(kept):
            node = beam[b]
            node_sum = beam_sums[b]
            if node[OFF] == N_CHECKERS:
                continue  # the game ended here; a deeper play, if any, is the legal one
            m = legal_moves(node, rules, die, True, open_bits, node_sum[S_MINE], moves)
            for i in range(m):
                src, dst = moves[i, 0], moves[i, 1]
                update_summary(node_sum, node, src, dst, child_sum)
                child[:] = node
                apply_move(child, src, dst)
                s = net_score(child, again, model, sc)
                n_next, dropped = _keep(child, child_sum, s, nxt, next_scores, next_sums, n_next, width)
                pruned = pruned or dropped
        if n_next == 0:
            break
        used = k + 1
        beam, nxt = nxt, beam
        beam_scores, next_scores = next_scores, beam_scores
        beam_sums, next_sums = next_sums, beam_sums
        kept = n_next
    if used < n and pruned:
        return _net_exhaustive(board, rules, segment, n, again, ws, out, model, sc, result)
    result[:] = beam[0]
    if used == 0:
        return ws, 0, net_score(board, again and rules[R_BONUS_NEEDS_FULL_USE] == 0, model, sc)
    return ws, used, beam_scores[0]


@njit(cache=True)
def net_best_play(board, rules, segment, n, width, again, ws, out, model, sc, result):
    """The ``LEARNED`` strategy's play of ``segment[:n]`` into ``result``; returns ``(ws, used, score)``."""
    if n > 2 and width > 0:
        return _net_beam(board, rules, segment, n, width, again, ws, out, model, sc, result)
    return _net_exhaustive(board, rules, segment, n, again, ws, out, model, sc, result)


@njit(cache=True, inline="always")
def rolls_again(rules, die_a, die_b, bonus):
    """Whether the mover is still on roll after this segment, if it uses every die.

    ``bonus`` marks the double earned by a 1-2; a 1-2 itself is followed by
    that double, so the mover is still on roll.
    """
    if bonus:
        return rules[R_ACEY_DEUCEY_EXTRA_ROLL] != 0
    if die_a == die_b:
        return rules[R_DOUBLES_EXTRA_ROLL] != 0
    return die_a + die_b == 3 and rules[R_ACEY_DEUCEY] != ACEY_DEUCEY_NONE


@njit(cache=True)
def best_play(board, rules, segment, n, width, ws, out, weights, sc, result):
    """The ``LINEAR`` strategy's play of ``segment[:n]`` into ``result``; returns ``(ws, used, score)``."""
    if n == 2 and segment[0] != segment[1]:
        used, score = _two_dice(board, rules, segment, weights, sc, result)
        return ws, used, score
    if n > 2 and width > 0:
        return _beam(board, rules, segment, n, width, ws, out, weights, sc, result)
    return _exhaustive(board, rules, segment, n, ws, out, weights, sc, result)


@njit(cache=True, inline="always")
def play_segment(board, rules, die_a, die_b, bonus, kind, width, weights, choices, ws, uniform, out, sc):
    """Play the segment of ``(die_a, die_b)`` in place by strategy ``kind``.

    ``bonus`` marks the double earned by a 1-2 (the learned strategy values
    what follows it differently).  ``RANDOM`` plays by the depth-first search
    of ``kernels.uniform`` with scratch ``uniform``; the others search with
    workspace ``ws``.  Returns ``(ws, uniform, dice in the segment, dice
    used)``: either memory may have grown.  Inlined into the game loop: a call
    passing the two scratch tuples costs reference counting of each of their
    arrays, a sizable part of a random strategy's roll.
    """
    n = segment_of(die_a, die_b, rules[R_DOUBLES] == DOUBLES_FOUR_PLUS_COMPLEMENT, sc.segment)
    if kind == RANDOM:
        while True:
            status, _, used = uniform_play(board, rules, sc.segment, n, choices, uniform)
            if status != UNIFORM_FULL:
                return ws, uniform, n, used
            uniform = grown_uniform_scratch(uniform)
    if kind == LEARNED:
        again = rolls_again(rules, die_a, die_b, bonus)
        ws, used, _ = net_best_play(board, rules, sc.segment, n, width, again, ws, out, weights, sc, sc.play)
    else:
        ws, used, _ = best_play(board, rules, sc.segment, n, width, ws, out, weights, sc, sc.play)
    board[:] = sc.play
    return ws, uniform, n, used


@njit(cache=True, inline="always")
def _strategy_play(board, rules, segment, n, width, kind, again, ws, out, weights, sc):
    """The best play of a ``LINEAR`` or ``LEARNED`` strategy into ``sc.play``; returns ``(ws, used, score)``."""
    if kind == LEARNED:
        return net_best_play(board, rules, segment, n, width, again, ws, out, weights, sc, sc.play)
    return best_play(board, rules, segment, n, width, ws, out, weights, sc, sc.play)


@njit(cache=True)
def choose_double(board, rules, kind, choice_width, weights, choices, ws, out, sc):
    """The double (1..6) the strategy picks after a 1-2 in position ``board``; returns ``(ws, d)``.

    A ``LINEAR`` or ``LEARNED`` strategy ranks the six doubles by the score of
    each one's best play, searched with a beam of ``choice_width`` (0 =
    exhaustively); the chosen double is then played with the strategy's own search.
    """
    if kind == RANDOM:
        return ws, below(choices, 6) + 1
    four_plus = rules[R_DOUBLES] == DOUBLES_FOUR_PLUS_COMPLEMENT
    again = rolls_again(rules, 1, 1, True)
    best_d = 1
    best_score = -np.inf
    for d in range(1, 7):
        n = segment_of(d, d, four_plus, sc.segment)
        ws, _, s = _strategy_play(board, rules, sc.segment, n, choice_width, kind, again, ws, out, weights, sc)
        if s > best_score:
            best_score = s
            best_d = d
    return ws, best_d


@njit(cache=True)
def choose_and_play_double(board, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc):
    """``choose_double`` then ``play_segment`` of the chosen double, in place on ``board``.

    Returns ``(ws, uniform, chosen, dice in the segment, dice used)``, exactly as
    the two calls would.  When the doubles are ranked with the strategy's own
    search (``choice_width == width``) the ranking has already found the chosen
    double's play (``best_play`` depends only on its arguments), so it is kept
    instead of searched again.
    """
    if kind == RANDOM or choice_width != width:
        ws, chosen = choose_double(board, rules, kind, choice_width, weights, choices, ws, out, sc)
        ws, uniform, n, used = play_segment(
            board, rules, chosen, chosen, True, kind, width, weights, choices, ws, uniform, out, sc
        )
        return ws, uniform, chosen, n, used
    four_plus = rules[R_DOUBLES] == DOUBLES_FOUR_PLUS_COMPLEMENT
    again = rolls_again(rules, 1, 1, True)
    best_d, best_n, best_used = 1, 0, 0
    best_score = -np.inf
    for d in range(1, 7):
        n = segment_of(d, d, four_plus, sc.segment)
        ws, used, s = _strategy_play(board, rules, sc.segment, n, width, kind, again, ws, out, weights, sc)
        if s > best_score:  # the first double of the best score, as choose_double
            best_score = s
            best_d, best_n, best_used = d, n, used
            sc.chosen[:] = sc.play
    board[:] = sc.chosen
    return ws, uniform, best_d, best_n, best_used
