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
a roll), else minus the value with the opponent on roll; expected points are
held to what the position allows (``net.bounded_points``).  A two-dice
segment has every play scored: depth first as ``_two_dice`` searches, each
play valued from its moves (``_net_two_dice``, ``net.two_move_equity``), or,
for a network whose units need the whole board, enumerated and valued from
the board (``_net_exhaustive``).  A doubles segment is
searched by the beam above with the cheap heuristic that follows the network
in its row (``net.ranker_of``, the ``expert`` weights), keeping the ``width``
best distinct plays, and the network judges those (``_net_judged``): a beam
scored by the network itself judged partial positions, which the network
never learned, and played weaker than scoring every play; the network
judging the heuristic's best plays is not weaker than scoring every play in
head-to-heads at the default width (``acesim/models/README.md``).  ``width =
0`` scores every play.
A row that asks for it (``net.tangent_ranks``: a learned player's segments of
more than four dice, or every doubles segment with the search option
``@tangent``) has its beam rank the partial plays by the network linearised
at the segment's start (``_tangent_beam``): the network's own order, for about
the heuristic's cost, where the heuristic's order often leaves the network's
best play out of the beam (docs/learned.md).
When the bonus of the segment is forfeited under ``bonus_needs_full_use``
whichever play is chosen, the plays are scored as ending the turn.

The random choices (which play, which double) come from the game's choice
stream, never from its dice stream.

Every search takes its first candidate as the best so far rather than
comparing against ``-inf``: a NaN score (an infinite weight beside a zero
feature) compares false with everything, and a search must end on a legal
play whatever its scores.  With finite scores the pick is the same.
"""

from collections import namedtuple

import numpy as np

from acesim.kernels import board as _board
from acesim.kernels.board import blot_mask, die_played_alone, move_rules, open_mask
from acesim.kernels.evaluate import (
    S_MINE,
    S_OFF,
    SUMMARY_SIZE,
    moved_summary,
    opponent_moved_summary,
    opponent_summary,
    summarize,
    summary_of,
    summary_score,
    tuple_score,
    update_summary,
)
from acesim.kernels.jit import njit
from acesim.kernels.layout import (
    BOARD_DTYPE,
    BOARD_SIZE,
    FROM_WAITING,
    MAX_SEGMENT,
    N_CHECKERS,
    N_POINTS,
    OFF,
)
from acesim.kernels.net import (
    LAYER_ERRORS,
    ROOT_STEPS,
    WIN_EQUITY,
    counts_from_moves,
    hold_tangent,
    new_net_scratch,
    play_equity,
    ranker_of,
    release_tangent,
    set_root,
    set_tangent,
    tangent_by_steps,
    tangent_features,
    tangent_held,
    tangent_ranks,
    tangent_steps,
    tangent_value,
    two_move_equity,
)
from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, segment_of
from acesim.kernels.rng import below
from acesim.kernels.sequence import after_segment, bonus_lost, roll_sequence, still_on_roll
from acesim.kernels.uniform import FULL as UNIFORM_FULL, grown_uniform_scratch, uniform_play

RANDOM = 0
LINEAR = 1
LEARNED = 2

# The board's single-move kernels, inlined into the searches here: they are
# called once per searched node, and a call that takes arrays costs atomic
# reference counting of each (see kernels.uniform), more than the work itself.
# Same source as ``kernels.board``, so the same rules.
legal_moves = njit(cache=True, inline="always")(_board.legal_moves.py_func)
apply_move = njit(cache=True, inline="always")(_board.apply_move.py_func)

# The strategies of a pairing as the kernels take them, seat A then seat B:
# ``kinds[s]``, beam widths ``widths[s] = (play, ranking of the doubles)``,
# optionally followed by a ply-2 player's filter (``deeper_filter``), the
# weight row ``weights[s]`` (a heuristic's weights or a network), and
# ``cube_models[s]``, the network that makes seat s's cube decisions
# (``kernels.cube``; no columns when the rules have no cube).
Seats = namedtuple("Seats", ["kinds", "widths", "weights", "cube_models"])
# ``widths[s, 2]``: the plays of each segment that go one roll deeper (0: the player plays at ply 1);
# ``widths[s, 3]``: the margin of ply-1 equity they must be within, in these units
MARGIN_UNIT = 1e-3


@njit(cache=True, inline="always")
def deeper_filter(widths, s):
    """Seat ``s``'s ply-2 filter ``(keep, margin)``: ``keep`` 0 for a seat that plays at ply 1
    (and for ``widths`` of two columns, which every ply-1 pairing may pass)."""
    if widths.shape[1] < 4:
        return 0, 0.0
    return widths[s, 2], widths[s, 3] * MARGIN_UNIT

MAX_WIDTH = 256
SUMMED_NODES = 8192  # exhaustive searches up to this many nodes score from summaries
N_SOURCES = FROM_WAITING + 1  # a move's source: points 1..24, FROM_BAR, FROM_WAITING

# Scratch of the strategies: two beams (current and next, the first index) of
# boards, their scores and summaries (evaluate.summarize), the parent being
# expanded and its summary, the child being scored and its summary, the
# summaries of an exhaustive search's nodes, the chosen play, single moves (of a node and of its child), the segment's dice, the
# move pairs a two-dice search has seen (``_two_dice``), the best play of the
# double chosen after a 1-2 (``choose_and_play_double``), and the network's
# active inputs, activations and back-propagated errors (``kernels.net``).
Scratch = namedtuple(
    "Scratch",
    [
        "beam",
        "beam_scores",
        "beam_sums",
        "parent",
        "parent_sum",
        "child",
        "child_sum",
        "node_sums",
        "play",
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
        np.zeros((2, w, BOARD_SIZE), dtype=BOARD_DTYPE),
        np.zeros((2, w), dtype=np.float64),
        np.zeros((2, w, SUMMARY_SIZE), dtype=np.int64),
        np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE),
        np.zeros(SUMMARY_SIZE, dtype=np.int64),
        np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE),
        np.zeros(SUMMARY_SIZE, dtype=np.int64),
        np.zeros((SUMMED_NODES, SUMMARY_SIZE), dtype=np.int64),
        np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE),
        np.zeros((N_POINTS + 2, 2), dtype=np.int64),
        np.zeros((N_POINTS + 2, 2), dtype=np.int64),
        np.zeros(MAX_SEGMENT, dtype=np.int64),
        np.zeros(N_SOURCES, dtype=np.int64),
        np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE),
        new_net_scratch(),
    )


# The beams index their rows element by element, and swap the current and the
# next beam by an index: taking a row as a view (``boards[j]``) or swapping two
# array variables costs atomic reference counting, on every candidate.


@njit(cache=True, inline="always")
def _same(boards, lv, j, child):
    """Row ``j`` of beam ``lv`` is the position ``child``."""
    for i in range(BOARD_SIZE):
        if boards[lv, j, i] != child[i]:
            return False
    return True


@njit(cache=True, inline="always")
def _take_row(boards, sums, lv, b, parent, parent_sum):
    """Copy row ``b`` of beam ``lv`` and its summary into ``parent`` and ``parent_sum``."""
    for i in range(BOARD_SIZE):
        parent[i] = boards[lv, b, i]
    for i in range(SUMMARY_SIZE):
        parent_sum[i] = sums[lv, b, i]


@njit(cache=True, inline="always")
def _copy_board(dst, src):
    """``dst[:] = src``, as a loop: a slice assignment checks for overlap and keeps
    a copying path that needs the runtime, which the searches compile without."""
    for i in range(BOARD_SIZE):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def _keep(child, child_sum, s, boards, scores, sums, lv, kept, width):
    """Insert ``child`` (score ``s``) into beam ``lv``, best first; return ``(kept, dropped)``.

    ``dropped`` is True when a distinct position fell off the end of a full
    list (the beam pruned something).  Equal positions have equal scores, so
    only entries of equal score are compared for duplicates.
    """
    if kept == width and s <= scores[lv, kept - 1]:
        if s == scores[lv, kept - 1]:
            j = kept - 1
            while j >= 0 and scores[lv, j] == s:
                if _same(boards, lv, j, child):
                    return kept, False
                j -= 1
        return kept, True
    pos = kept
    while pos > 0 and scores[lv, pos - 1] < s:
        pos -= 1
    if pos == width:
        return kept, True  # a NaN score sorts nowhere: past the end of a full list is off it
    j = pos - 1
    while j >= 0 and scores[lv, j] == s:
        if _same(boards, lv, j, child):
            return kept, False
        j -= 1
    dropped = kept == width
    last = kept - 1 if dropped else kept
    for j in range(last, pos, -1):
        for i in range(BOARD_SIZE):
            boards[lv, j, i] = boards[lv, j - 1, i]
        scores[lv, j] = scores[lv, j - 1]
        for i in range(SUMMARY_SIZE):
            sums[lv, j, i] = sums[lv, j - 1, i]
    for i in range(BOARD_SIZE):
        boards[lv, pos, i] = child[i]
    scores[lv, pos] = s
    for i in range(SUMMARY_SIZE):
        sums[lv, pos, i] = child_sum[i]  # an array, or a tuple (a loop LLVM unrolls)
    return (kept if dropped else kept + 1), dropped


@njit(cache=True)
def exhaustive_play(board, rules, segment, n, ws, out, weights, sc, result):
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
            s = summary_score(sums[node], weights)
            if node == first or s > best_score:
                best_score = s
                best = node
    else:
        for node in range(first, stop):
            summarize(ws.nodes[node], sc.child_sum)
            s = summary_score(sc.child_sum, weights)
            if node == first or s > best_score:
                best_score = s
                best = node
    result[:] = ws.nodes[best]
    return ws, out[2], best_score


@njit(cache=True, _nrt=False)
def _two_dice(board, rules, die_a, die_b, weights, sums, child, first_moves, second_moves, pairs, result):
    """The best play of a non-double into ``result``; returns ``used`` and the score.

    Exact, like ``exhaustive_play``, but without storing or deduplicating nodes:
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
    ``kernels.uniform``).  ``pairs[x]`` has bit ``y`` for each such pair.
    The mover's occupied points, which ``legal_moves`` needs, are the
    summary's ``S_MINE`` mask.

    It takes only the arrays it uses (row 0 of ``sums`` takes the root's
    summary; the moves' summaries are tuples), not the strategy scratch: every
    array a call takes costs atomic reference counting, and the scratch holds
    over two dozen, more than the search of a typical roll costs.
    """
    hi = max(die_a, die_b)
    lo = min(die_a, die_b)
    rule_bits = move_rules(rules, hi, lo)
    open_bits = open_mask(board)
    blot_bits = blot_mask(board)
    pairs[:] = 0
    summarize(board, sums[0])
    root = summary_of(sums[0])
    occupied = root[S_MINE]
    best_score = -np.inf
    best_d1, best_src1, best_dst1, best_src2, best_dst2 = 0, 0, 0, 0, 0
    # higher die first: every play, each pair of moves noted; then lower die first: only the pairs
    # not already played the other way round.  One loop over the two orders, so that the inlined
    # summary and score are compiled once, not once per order.
    for order in range(2):
        d1, d2 = (hi, lo) if order == 0 else (lo, hi)
        m1 = legal_moves(board, d1, rule_bits, open_bits, blot_bits, occupied, first_moves)
        for i in range(m1):
            src1, dst1 = first_moves[i, 0], first_moves[i, 1]
            first = moved_summary(root, board, src1, dst1)
            if first[S_OFF] == N_CHECKERS:
                continue  # won with one die: a leaf one die deep
            _copy_board(child, board)
            apply_move(child, src1, dst1)
            m2 = legal_moves(child, d2, rule_bits, open_bits, blot_bits, first[S_MINE], second_moves)
            seen = 0
            for j in range(m2):
                src2, dst2 = second_moves[j, 0], second_moves[j, 1]
                if order == 0:
                    seen |= np.int64(1) << src2
                elif (pairs[src2] >> src1) & 1:
                    continue  # (src2 with hi, then src1 with lo) reached this position already
                s = tuple_score(moved_summary(first, child, src2, dst2), weights)
                if best_d1 == 0 or s > best_score:
                    best_score = s
                    best_d1, best_src1, best_dst1, best_src2, best_dst2 = d1, src1, dst1, src2, dst2
            if order == 0:
                pairs[src1] = seen
    _copy_board(result, board)
    if best_d1 != 0:
        apply_move(result, best_src1, best_dst1)
        apply_move(result, best_src2, best_dst2)
        return 2, best_score
    # no play uses both dice: one die, by the higher-die rule
    m1 = legal_moves(board, hi, rule_bits, open_bits, blot_bits, occupied, first_moves)
    d = die_played_alone(hi, lo, m1 > 0)
    if d != hi:
        m1 = legal_moves(board, d, rule_bits, open_bits, blot_bits, occupied, first_moves)
    if m1 == 0:
        return 0, tuple_score(root, weights)
    for i in range(m1):
        src1, dst1 = first_moves[i, 0], first_moves[i, 1]
        s = tuple_score(moved_summary(root, board, src1, dst1), weights)
        if i == 0 or s > best_score:
            best_score = s
            best_src1, best_dst1 = src1, dst1
    apply_move(result, best_src1, best_dst1)
    return 1, best_score


@njit(cache=True, inline="always")
def _beam_root(board, boards, sums, parent_sum):
    """Row 0 of beam 0 is the segment's start; its summary also goes into ``parent_sum``."""
    summarize(board, parent_sum)
    for i in range(BOARD_SIZE):
        boards[0, 0, i] = board[i]
    for i in range(SUMMARY_SIZE):
        sums[0, 0, i] = parent_sum[i]


@njit(cache=True, inline="always")
def _offer(parent, src, dst, child, built, child_summary, s, boards, scores, sums, nxt, n_next, width, pruned):
    """Offer the move ``src -> dst`` from ``parent`` (score ``s``) to beam ``nxt``; returns ``(n_next, pruned)``.

    ``built``: ``child`` already holds the move's position (else it is built only if kept).
    """
    if n_next == width and s <= scores[nxt, width - 1]:
        # No better than every kept position: never kept.  A worse one is
        # pruned; an equal one too unless it duplicates a kept position,
        # which only matters while nothing has been pruned yet.
        if s < scores[nxt, width - 1] or pruned:
            return n_next, True
    if not built:
        _copy_board(child, parent)
        apply_move(child, src, dst)
    n_next, dropped = _keep(child, child_summary, s, boards, scores, sums, nxt, n_next, width)
    return n_next, pruned or dropped


@njit(cache=True, _nrt=False)
def _beam(board, rules, segment, n, width, weights, keep_last, boards, scores, sums, parent, parent_sum, child,
          moves, result):
    """The best plays of a doubles segment by beam search over its dice; see the module docstring.

    Returns ``(used, kept, level, score, found)``.  With ``keep_last`` the
    last die's plays are kept too, as candidates: the ``kept`` best distinct
    plays are rows ``0..kept-1`` of beam ``level``, best first.  Without it
    only the best play is wanted: on the last die no list is kept (the first
    of the best score is the list's first row) and the play goes into
    ``result``.  ``found`` is False when the beam stopped short after
    pruning, and the segment must be searched exhaustively instead.  Like
    ``_two_dice`` it takes only the arrays it uses.
    """
    open_bits = open_mask(board)
    blot_bits = blot_mask(board)
    rule_bits = move_rules(rules, segment[0], segment[0])  # a doubles segment
    _beam_root(board, boards, sums, parent_sum)
    scores[0, 0] = summary_score(parent_sum, weights)
    cur = 0
    kept = 1
    used = 0
    pruned = False
    for k in range(n):
        die = segment[k]
        nxt = 1 - cur
        n_next = 0
        only_best = k == n - 1 and not keep_last
        best, best_b, best_src, best_dst = -np.inf, -1, 0, 0
        for b in range(kept):
            if boards[cur, b, OFF] == N_CHECKERS:
                continue  # the game ended here; a deeper play, if any, is the legal one
            _take_row(boards, sums, cur, b, parent, parent_sum)
            here = summary_of(parent_sum)
            m = legal_moves(parent, die, rule_bits, open_bits, blot_bits, here[S_MINE], moves)
            for i in range(m):
                src, dst = moves[i, 0], moves[i, 1]
                child_summary = moved_summary(here, parent, src, dst)
                s = tuple_score(child_summary, weights)
                if only_best:
                    if best_b < 0 or s > best:
                        best, best_b, best_src, best_dst = s, b, src, dst
                    continue
                n_next, pruned = _offer(parent, src, dst, child, False, child_summary, s, boards, scores, sums, nxt,
                                        n_next, width, pruned)
        if best_b >= 0:
            for i in range(BOARD_SIZE):
                result[i] = boards[cur, best_b, i]
            apply_move(result, best_src, best_dst)
            return n, 1, cur, best, True
        if n_next == 0:
            break
        used = k + 1
        cur = nxt
        kept = n_next
    if used < n and pruned:
        return used, kept, cur, scores[cur, 0], False
    if not keep_last:
        for i in range(BOARD_SIZE):
            result[i] = boards[cur, 0, i]
    return used, kept, cur, scores[cur, 0], True


@njit(cache=True, _nrt=False)
def _tangent_beam(board, rules, segment, n, width, model, view, ns, boards, scores, sums, parent, parent_sum, child,
                  moves):
    """``_beam`` keeping the last die's plays, its partial plays ranked by the network linearised at
    ``board`` (``net.set_tangent`` must have run for ``model`` and ``view``) instead of the heuristic.

    Returns ``(used, kept, level, found)`` as ``_beam`` does.  A network of the first encoding values
    each move from the mover's and the opponent's summaries (``net.tangent_steps``,
    ``net.tangent_features``), as cheaply as the heuristic scores it; a row's value is its position's
    whatever the order of the moves, so the value less the features' part is what its children add
    to.  Another encoding's units are not all counted from summaries, so each node is built and
    encoded (``net.tangent_value``).
    """
    by_steps = tangent_by_steps(model)
    steps = ns.root[ROOT_STEPS:]
    sign = 1.0 if view == 0 else -1.0  # view 1: the opponent is on roll after the play
    open_bits = open_mask(board)
    blot_bits = blot_mask(board)
    rule_bits = move_rules(rules, segment[0], segment[0])  # a doubles segment
    _beam_root(board, boards, sums, parent_sum)
    scores[0, 0] = tangent_features(steps, summary_of(parent_sum), opponent_summary(board)) if by_steps else 0.0
    cur = 0
    kept = 1
    used = 0
    pruned = False
    for k in range(n):
        die = segment[k]
        nxt = 1 - cur
        n_next = 0
        for b in range(kept):
            if boards[cur, b, OFF] == N_CHECKERS:
                continue  # the game ended here; a deeper play, if any, is the legal one
            _take_row(boards, sums, cur, b, parent, parent_sum)
            here = summary_of(parent_sum)
            there = opponent_summary(parent) if by_steps else here  # another encoding reads neither
            moved = scores[cur, b] - tangent_features(steps, here, there) if by_steps else 0.0
            m = legal_moves(parent, die, rule_bits, open_bits, blot_bits, here[S_MINE], moves)
            for i in range(m):
                src, dst = moves[i, 0], moves[i, 1]
                child_summary = moved_summary(here, parent, src, dst)
                built = False
                if child_summary[S_OFF] == N_CHECKERS:
                    s = WIN_EQUITY
                elif by_steps:
                    s = moved + tangent_steps(steps, parent, src, dst)
                    s += tangent_features(steps, child_summary, opponent_moved_summary(there, parent, src, dst))
                else:
                    _copy_board(child, parent)
                    apply_move(child, src, dst)
                    built = True
                    s = sign * tangent_value(model, child, view, ns)
                n_next, pruned = _offer(parent, src, dst, child, built, child_summary, s, boards, scores, sums, nxt,
                                        n_next, width, pruned)
        if n_next == 0:
            break
        used = k + 1
        cur = nxt
        kept = n_next
    return used, kept, cur, not (used < n and pruned)


@njit(cache=True, inline="always")
def net_score(position, rules, again, model, ns):
    """The mover's equity after a play reaching ``position`` (see the module docstring).

    The search has made the position its plays start from the network's root
    (``net.set_root``, view 0 when ``again``, else 1), so the network adds only
    the rows of the inputs the play changed.  ``ns`` is the network's scratch,
    which the searches take out of their own once (``sc.net``) rather than per
    play: each taking counts a reference to every one of its arrays, atomically.
    """
    if position[OFF] == N_CHECKERS:
        return WIN_EQUITY
    if again:
        return play_equity(model, position, np.int64(0), rules, ns)
    return -play_equity(model, position, np.int64(1), rules, ns)


@njit(cache=True, _nrt=False)
def _net_best_row(plays, first, stop, board, rules, again, model, ns):
    """``(row, score)`` of the best of the plays ``plays[first:stop]`` of ``board`` (the first of equal scores).

    Without Numba's reference counting: each call of the network here would
    otherwise count a reference to every array of its scratch, atomically,
    which costs more than the rows a play changes.
    """
    set_root(model, board, np.int64(0) if again else np.int64(1), ns)
    best = first
    best_score = -np.inf
    for row in range(first, stop):
        s = net_score(plays[row], rules, again, model, ns)
        if row == first or s > best_score:
            best_score = s
            best = row
    return best, best_score


@njit(cache=True, inline="always")
def _point_index(p):
    """The board index of point ``p``, or -1 for the bar, waiting or off (a move's source or landing)."""
    return p - 1 if 1 <= p <= N_POINTS else -1


@njit(cache=True, inline="always")
def _in_order(a, b, c, d):
    """``a, b, c, d`` sorted ascending (a sorting network of five comparisons)."""
    if a > b:
        a, b = b, a
    if c > d:
        c, d = d, c
    if a > c:
        a, c = c, a
    if b > d:
        b, d = d, b
    if b > c:
        b, c = c, b
    return a, b, c, d


@njit(cache=True, _nrt=False, error_model=LAYER_ERRORS)
def _net_two_dice(board, rules, die_a, die_b, again, model, ns, child, leaf, first_moves, second_moves, pairs,
                  result):
    """The ``LEARNED`` play of a non-double into ``result``; returns ``(used, score)``, ``used`` -1 (and
    ``result`` untouched) when no play uses both dice, which the caller leaves to ``_net_exhaustive``:
    rare, and kept out of this search so that ``net.two_move_equity`` is inlined once: each inlined copy
    lengthens the compile of every kernel that links this search, and a call instead costs play speed
    (performance-log.md, 2026-12-07).

    ``_two_dice``'s search (both orders of the dice, depth first, nothing stored), each play valued by
    ``net.two_move_equity`` from the two moves and the summaries carried along them, instead of
    enumerating the plays and comparing each with the root point by point.  The plays and their
    values are ``_net_exhaustive``'s: a position reached twice has one value, so the best play is the
    same (tests/test_learned.py).
    """
    view = np.int64(0) if again else np.int64(1)
    sign = 1.0 if again else -1.0
    set_root(model, board, view, ns)
    hi = max(die_a, die_b)
    lo = min(die_a, die_b)
    rule_bits = move_rules(rules, hi, lo)
    open_bits = open_mask(board)
    blot_bits = blot_mask(board)
    pairs[:] = 0
    summarize(board, ns.summary)
    root = summary_of(ns.summary)
    root_opponent = opponent_summary(board)
    best_score = -np.inf
    best_d1, best_src1, best_dst1, best_src2, best_dst2 = 0, 0, 0, 0, 0
    for order in range(2):
        d1, d2 = (hi, lo) if order == 0 else (lo, hi)
        m1 = _board.legal_moves(board, d1, rule_bits, open_bits, blot_bits, root[S_MINE], first_moves)
        for i in range(m1):
            src1, dst1 = first_moves[i, 0], first_moves[i, 1]
            first = moved_summary(root, board, src1, dst1)
            if first[S_OFF] == N_CHECKERS:
                continue  # won with one die: a leaf one die deep
            first_opponent = opponent_moved_summary(root_opponent, board, src1, dst1)
            _copy_board(child, board)
            apply_move(child, src1, dst1)
            m2 = _board.legal_moves(child, d2, rule_bits, open_bits, blot_bits, first[S_MINE], second_moves)
            seen = 0
            for j in range(m2):
                src2, dst2 = second_moves[j, 0], second_moves[j, 1]
                if order == 0:
                    seen |= np.int64(1) << src2
                elif (pairs[src2] >> src1) & 1:
                    continue  # (src2 with hi, then src1 with lo) reached this position already
                mover = moved_summary(first, child, src2, dst2)
                if mover[S_OFF] == N_CHECKERS:
                    s = WIN_EQUITY
                else:
                    _copy_board(leaf, child)
                    apply_move(leaf, src2, dst2)
                    p0, p1, p2, p3 = _in_order(_point_index(src1), _point_index(dst1), _point_index(src2),
                                               _point_index(dst2))
                    s = sign * two_move_equity(model, leaf, view, rules, ns, mover,
                                               opponent_moved_summary(first_opponent, child, src2, dst2),
                                               p0, p1, p2, p3)
                if best_d1 == 0 or s > best_score:
                    best_score = s
                    best_d1, best_src1, best_dst1, best_src2, best_dst2 = d1, src1, dst1, src2, dst2
            if order == 0:
                pairs[src1] = seen
    if best_d1 == 0:
        return -1, 0.0  # no play uses both dice: the caller enumerates the plays of one die or none
    _copy_board(result, board)
    apply_move(result, best_src1, best_dst1)
    apply_move(result, best_src2, best_dst2)
    return 2, best_score


@njit(cache=True)
def _net_exhaustive(board, rules, segment, n, again, ws, out, model, sc, result):
    """Score every distinct legal play with the network; the best into ``result``.  Returns ``(ws, used, score)``."""
    while enumerate_plays(board, rules, segment, n, ws, out) == FULL:
        ws = grown_workspace(ws)
    first, stop, used = out[0], out[1], out[2]
    if bonus_lost(roll_sequence(rules), n, used):
        again = False  # the bonus is forfeited whichever play is chosen
    best, best_score = _net_best_row(ws.nodes, first, stop, board, rules, again, model, sc.net)
    result[:] = ws.nodes[best]
    return ws, used, best_score


@njit(cache=True, inline="always")
def net_shortlist(board, rules, segment, n, width, again, model, sc, result):
    """The plays of a doubles segment the network judges: the ``width`` best of the heuristic ranker's
    beam, or of the network's own tangent when the row asks for it (``net.tangent_ranks``).

    Returns ``(used, kept, level, found)``: the plays are ``sc.beam[level][:kept]``; ``found`` False
    when the beam found none (the caller enumerates every play).
    """
    if tangent_ranks(model, n):
        view = np.int64(0) if again else np.int64(1)
        if not tangent_held(sc.net):
            set_tangent(model, board, view, sc.net)
        return _tangent_beam(board, rules, segment, n, width, model, view, sc.net, sc.beam, sc.beam_scores,
                             sc.beam_sums, sc.parent, sc.parent_sum, sc.child, sc.moves)
    used, kept, lv, _, found = _beam(board, rules, segment, n, width, ranker_of(model), np.bool_(True), sc.beam,
                                     sc.beam_scores, sc.beam_sums, sc.parent, sc.parent_sum, sc.child, sc.moves,
                                     result)
    return used, kept, lv, found


@njit(cache=True)
def _net_judged(board, rules, segment, n, width, again, ws, out, model, sc, result):
    """A doubles segment: the network judges the plays of its shortlist (``net_shortlist``)."""
    used, kept, lv, found = net_shortlist(board, rules, segment, n, width, again, model, sc, result)
    if not found:
        return _net_exhaustive(board, rules, segment, n, again, ws, out, model, sc, result)
    if bonus_lost(roll_sequence(rules), n, used):
        again = False  # the bonus is forfeited whichever play is chosen
    boards = sc.beam[lv]
    best, best_score = _net_best_row(boards, np.int64(0), kept, board, rules, again, model, sc.net)
    for i in range(BOARD_SIZE):
        result[i] = boards[best, i]
    return ws, used, best_score


@njit(cache=True)
def net_best_play(board, rules, segment, n, width, again, ws, out, model, sc, result):
    """The ``LEARNED`` strategy's play of ``segment[:n]`` into ``result``; returns ``(ws, used, score)``.

    A two-dice segment: every play scored by the network (``_net_two_dice``, or
    ``_net_exhaustive`` for a network that reads the whole board).  A doubles
    segment (``width > 0``): the beam ranks the plays (``net_shortlist``), and
    the network judges the ``width`` best (``_net_judged``); ``width = 0``:
    every distinct play.
    """
    if n > 2 and width > 0:
        return _net_judged(board, rules, segment, n, width, again, ws, out, model, sc, result)
    if n == 2 and segment[0] != segment[1] and counts_from_moves(model):
        used, score = _net_two_dice(board, rules, segment[0], segment[1], again, model, sc.net, sc.child, sc.parent,
                                    sc.moves, sc.moves_after, sc.pairs, result)
        if used == 2:
            return ws, used, score
    return _net_exhaustive(board, rules, segment, n, again, ws, out, model, sc, result)


@njit(cache=True, inline="always")
def rolls_again(rules, die_a, die_b, bonus):
    """Whether the mover is still on roll after this segment, if it uses every die.

    ``bonus`` marks the double earned by a 1-2; a 1-2 itself is followed by
    that double, so the mover is still on roll.
    """
    return still_on_roll(after_segment(roll_sequence(rules), die_a, die_b, bonus, 0, 0, False))


# The game loop's hot path.  Every array bound to a variable of an inlined or
# runtime-managed function is reference counted (atomically), and binding a
# scratch tuple counts each of its two dozen arrays: that was a fifth of a
# heuristic game.  So the game loop and the ranking of the doubles take the
# scratch's search arrays out once (``search_arrays``) and call the searches
# through functions compiled without the runtime, which count nothing.


@njit(cache=True, inline="always")
def search_arrays(sc):
    """The arrays ``linear_search`` and ``quick_segment`` take, in their order."""
    return (sc.node_sums, sc.child, sc.moves, sc.moves_after, sc.pairs, sc.beam, sc.beam_scores, sc.beam_sums,
            sc.parent, sc.parent_sum)


@njit(cache=True, _nrt=False)
def linear_search(board, rules, segment, n, width, weights, node_sums, child, moves, moves_after, pairs, beam,
                  beam_scores, beam_sums, parent, parent_sum, result):
    """The ``LINEAR`` play of ``segment[:n]`` into ``result`` without the workspace.

    Returns ``(used, score, found)``; when ``found`` is False the segment
    needs the exhaustive search (``exhaustive_play``, which takes the workspace).
    """
    if n == 2 and segment[0] != segment[1]:
        used, score = _two_dice(board, rules, segment[0], segment[1], weights, node_sums, child, moves,
                                moves_after, pairs, result)
        return used, score, True
    if n > 2 and width > 0:
        used, _, _, score, found = _beam(board, rules, segment, n, width, weights, np.bool_(False), beam, beam_scores,
                                         beam_sums, parent, parent_sum, child, moves, result)
        return used, score, found
    return 0, 0.0, False


@njit(cache=True, _nrt=False)
def quick_segment(board, rules, die_a, die_b, width, weights, segment, play, node_sums, child, moves, moves_after,
                  pairs, beam, beam_scores, beam_sums, parent, parent_sum):
    """``play_segment`` of a ``LINEAR`` strategy, in place, for the game loop.

    Returns ``(dice in the segment, dice used, found)``.  When ``found`` is
    False the board is as it was and the segment needs ``exhaustive_play``
    (into ``play``), which takes the workspace this function cannot grow.
    """
    n = segment_of(rules, die_a, die_b, False, segment)
    used, _, found = linear_search(board, rules, segment, n, width, weights, node_sums, child, moves, moves_after,
                                   pairs, beam, beam_scores, beam_sums, parent, parent_sum, play)
    if found:
        _copy_board(board, play)
    return n, used, found


@njit(cache=True, inline="always")
def _linear_play(board, rules, segment, n, width, ws, out, weights, sc, result):
    """``best_play``, inlined into ``play_segment`` and the ranking of the doubles."""
    node_sums, child, moves, moves_after, pairs, beam, beam_scores, beam_sums, parent, parent_sum = (
        search_arrays(sc)
    )
    used, score, found = linear_search(board, rules, segment, n, width, weights, node_sums, child, moves,
                                       moves_after, pairs, beam, beam_scores, beam_sums, parent, parent_sum,
                                       result)
    if found:
        return ws, used, score
    return exhaustive_play(board, rules, segment, n, ws, out, weights, sc, result)


@njit(cache=True)
def best_play(board, rules, segment, n, width, ws, out, weights, sc, result):
    """The ``LINEAR`` strategy's play of ``segment[:n]`` into ``result``; returns ``(ws, used, score)``."""
    return _linear_play(board, rules, segment, n, width, ws, out, weights, sc, result)


@njit(cache=True, inline="always")
def scored_play(board, rules, segment, n, kind, width, again, weights, ws, out, sc, result):
    """The best play of ``segment[:n]`` from ``board`` into ``result`` by a strategy that scores its plays.

    The one switch over those strategies: a new one is its scoring search and
    a branch here (``choose_play`` and the ranking of the doubles reach it
    through this function).  ``again``: the mover is still on roll after the
    segment if it uses every die (``rolls_again``), which the learned
    strategy's scores need.  Returns ``(ws, dice used, score)``.
    """
    if kind == LEARNED:
        return net_best_play(board, rules, segment, n, width, again, ws, out, weights, sc, result)
    return _linear_play(board, rules, segment, n, width, ws, out, weights, sc, result)


@njit(cache=True, inline="always")
def choose_play(board, rules, segment, n, kind, width, again, weights, choices, ws, uniform, out, sc, result):
    """Strategy ``kind``'s play of ``segment[:n]`` from ``board`` into ``result``: the entry over every kind.

    ``RANDOM``, which scores nothing, draws by the depth-first search of
    ``kernels.uniform`` with scratch ``uniform`` (score 0); the others are
    ``scored_play``'s.  Returns ``(ws, uniform, dice used, score)``: either
    memory may have grown.  The game loop's fast paths (``uniform_play``,
    ``quick_segment``) are branches of this function taken without the scratch
    tuple; the tests hold them equal.
    """
    if kind == RANDOM:
        result[:] = board
        while True:
            status, used = uniform_play(result, rules, segment, n, choices, uniform)
            if status != UNIFORM_FULL:
                return ws, uniform, used, 0.0
            uniform = grown_uniform_scratch(uniform)
    ws, used, score = scored_play(board, rules, segment, n, kind, width, again, weights, ws, out, sc, result)
    return ws, uniform, used, score


@njit(cache=True, inline="always")
def play_segment(board, rules, die_a, die_b, bonus, kind, width, weights, choices, ws, uniform, out, sc):
    """Play the segment of ``(die_a, die_b)`` in place by strategy ``kind`` (``choose_play``).

    ``bonus`` marks the double earned by a 1-2 (the learned strategy values
    what follows it differently).  Returns ``(ws, uniform, dice in the
    segment, dice used)``: either memory may have grown.  Inlined into the
    game loop: a call passing the two scratch tuples costs reference counting
    of each of their arrays, a sizable part of a random strategy's roll.
    """
    n = segment_of(rules, die_a, die_b, bonus, sc.segment)
    again = rolls_again(rules, die_a, die_b, bonus)
    ws, uniform, used, _ = choose_play(board, rules, sc.segment, n, kind, width, again, weights, choices, ws,
                                       uniform, out, sc, sc.play)
    board[:] = sc.play
    return ws, uniform, n, used


@njit(cache=True, inline="always")
def _hold_tangent(board, rules, kind, width, again, weights, sc):
    """Before the six doubles of a 1-2 are searched from ``board``: a learned row whose beams rank by the
    tangent at those doubles' length sets it once for the six (``net.hold_tangent``;
    ``net.release_tangent`` after them)."""
    if kind == LEARNED and width > 0 and tangent_ranks(weights, segment_of(rules, 1, 1, True, sc.segment)):
        hold_tangent(weights, board, np.int64(0) if again else np.int64(1), sc.net)


@njit(cache=True)
def choose_double(board, rules, kind, choice_width, weights, choices, ws, out, sc):
    """The double (1..6) the strategy picks after a 1-2 in position ``board``; returns ``(ws, d)``.

    ``RANDOM``, which scores nothing, picks uniformly; a strategy that scores
    its plays ranks the six doubles by the score of each one's best play,
    searched with a beam of ``choice_width`` (0 = exhaustively); the chosen
    double is then played with the strategy's own search.
    """
    if kind == RANDOM:
        return ws, below(choices, 6) + 1
    again = rolls_again(rules, 1, 1, True)
    best_d = 1
    best_score = -np.inf
    _hold_tangent(board, rules, kind, choice_width, again, weights, sc)
    for d in range(1, 7):
        n = segment_of(rules, d, d, True, sc.segment)
        ws, _, s = scored_play(board, rules, sc.segment, n, kind, choice_width, again, weights, ws, out, sc, sc.play)
        if d == 1 or s > best_score:
            best_score = s
            best_d = d
    release_tangent(sc.net)
    return ws, best_d


@njit(cache=True)
def choose_and_play_double(board, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc):
    """``choose_double`` then ``play_segment`` of the chosen double, in place on ``board``.

    Returns ``(ws, uniform, chosen, dice in the segment, dice used)``, exactly as
    the two calls would.  When the doubles are ranked with the strategy's own
    search (``choice_width == width``) the ranking has already found the chosen
    double's play (``best_play`` depends only on its arguments), so it is kept
    instead of searched again.  ``LINEAR`` ranks by its search without the
    scratch tuple (``linear_search``), the others through ``scored_play``.
    """
    if kind == RANDOM or choice_width != width:
        ws, chosen = choose_double(board, rules, kind, choice_width, weights, choices, ws, out, sc)
        ws, uniform, n, used = play_segment(
            board, rules, chosen, chosen, True, kind, width, weights, choices, ws, uniform, out, sc
        )
        return ws, uniform, chosen, n, used
    again = rolls_again(rules, 1, 1, True)
    best_d, best_n, best_used = 1, 0, 0
    best_score = -np.inf
    segment, play = sc.segment, sc.play
    node_sums, child, moves, moves_after, pairs, beam, beam_scores, beam_sums, parent, parent_sum = (
        search_arrays(sc)
    )
    _hold_tangent(board, rules, kind, width, again, weights, sc)
    for d in range(1, 7):
        n = segment_of(rules, d, d, True, segment)
        if kind == LINEAR:
            used, s, found = linear_search(board, rules, segment, n, width, weights, node_sums, child, moves,
                                           moves_after, pairs, beam, beam_scores, beam_sums, parent, parent_sum,
                                           play)
            if not found:
                ws, used, s = exhaustive_play(board, rules, segment, n, ws, out, weights, sc, play)
        else:
            ws, used, s = scored_play(board, rules, segment, n, kind, width, again, weights, ws, out, sc, play)
        if d == 1 or s > best_score:  # the first double of the best score, as choose_double
            best_score = s
            best_d, best_n, best_used = d, n, used
            sc.chosen[:] = sc.play
    release_tangent(sc.net)
    board[:] = sc.chosen
    return ws, uniform, best_d, best_n, best_used
