"""Legal plays of a segment (docs/rules.md section 2), by level-by-level enumeration.

Level ``k`` holds the distinct positions reachable by playing the segment's
first ``k`` dice.  Because the order of a doubles segment is fixed, what can
still happen after level ``k`` depends only on the position, so deduplicating
each level (an open-addressing hash set keyed by the board's four 64-bit words)
is exact and keeps an eight-die European segment tractable.  The deepest
non-empty level is the maximal number of dice; its nodes are the legal plays.

A non-double ``[a, b]`` is two one-die levels in each order, higher die first,
then a shared second level; if no order reaches the second level the
higher-die rule picks which first level holds the plays.

Every node remembers its parent and the single move that made it, so the moves
of a play are read back along its parent chain.
"""

import sys
from collections import namedtuple

import numpy as np

from acesim.kernels.board import (
    apply_move,
    blot_mask,
    die_played_alone,
    legal_moves,
    move_rules,
    occupied_mask,
    open_mask,
)
from acesim.kernels.jit import njit
from acesim.kernels.layout import (
    BAR,
    OPP_BAR,
    TO_OFF,
    BOARD_DTYPE,
    BOARD_SIZE,
    DOUBLES_COMPLEMENT_AFTER_1_2,
    DOUBLES_FOUR_PLUS_COMPLEMENT,
    FROM_BAR,
    FROM_WAITING,
    MAX_SEGMENT,
    N_CHECKERS,
    N_POINTS,
    OFF,
    R_DOUBLES,
    WAITING,
)

# The scratch memory of one enumerator.  Per node: the board, its parent, the
# move that made it and a mask of the points the mover occupies.  ``slots`` is
# the hash set of the current level: each slot holds ``stamp << 32 | node``, so
# a slot from an earlier level (older stamp) reads as empty and the set never
# needs clearing; it has at least twice as many slots as there are nodes.
# ``key`` and ``moves`` are per-call scratch.
Workspace = namedtuple(
    "Workspace", ["nodes", "parent", "src", "dst", "occupied", "slots", "state", "key", "moves"]
)

FULL = -1  # returned when the workspace has no room; grow it and call again

# The byte arithmetic of _child_key reads a board as little-endian words.
assert sys.byteorder == "little", "acesim's kernels need a little-endian machine"

_K0 = np.uint64(0x9E3779B97F4A7C15)
_K1 = np.uint64(0xC2B2AE3D27D4EB4F)
_K2 = np.uint64(0x165667B19E3779F9)
_K3 = np.uint64(0xD6E8FEB86659FD93)
_S = np.uint64(31)


@njit(cache=True)
def _workspace(capacity, table_size):
    return Workspace(
        np.zeros((capacity, BOARD_SIZE), dtype=BOARD_DTYPE),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int8),
        np.zeros(capacity, dtype=np.int8),
        np.zeros(capacity, dtype=np.int64),
        np.zeros(table_size, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.zeros(4, dtype=np.uint64),
        np.zeros((N_POINTS + 2, 2), dtype=np.int64),
    )


def new_workspace(capacity: int = 4096) -> Workspace:
    """Scratch memory for up to ``capacity`` nodes per enumeration."""
    table_size = 1
    while table_size < 2 * capacity:
        table_size *= 2
    return _workspace(capacity, table_size)


@njit(cache=True)
def grown_workspace(ws):
    """A workspace with twice the room of ``ws`` (its contents are not kept)."""
    return _workspace(ws.nodes.shape[0] * 2, ws.slots.shape[0] * 2)


@njit(cache=True)
def _new_level(ws, first, stop):
    """Start an empty hash set for the children of nodes ``first..stop``.

    Returns ``(stamp, mask)``: the set uses only the first ``mask + 1`` slots,
    at least twice the most children the level can have, so small segments
    stay in cache.
    """
    s = ws.state[0] + 1
    if s >= 2**31 - 1:
        ws.slots[:] = 0
        s = 1
    ws.state[0] = s
    bound = 2 * (stop - first) * (N_POINTS + 2)
    size = 64
    while size < bound and size < ws.slots.shape[0]:
        size *= 2
    return s << 32, np.uint64(size - 1)


@njit(cache=True, _nrt=False)
def _is_new(slots, words, key, node, stamp, mask):
    """Insert ``key`` as node ``node`` into the current level's set; False if it is there."""
    h = key[0] * _K0 ^ key[1] * _K1 ^ key[2] * _K2 ^ key[3] * _K3
    h ^= h >> _S
    slot = np.int64(h & mask)
    while True:
        entry = slots[slot]
        if entry < stamp:
            slots[slot] = stamp | node
            return True
        other = entry & 0xFFFFFFFF
        if (
            words[other, 0] == key[0]
            and words[other, 1] == key[1]
            and words[other, 2] == key[2]
            and words[other, 3] == key[3]
        ):
            return False
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)


@njit(cache=True)
def _set_byte(key, index, old, new):
    """Change byte ``index`` of the 32-byte key (four little-endian words) from old to new."""
    key[index >> 3] ^= np.uint64((old ^ new) & 0xFF) << np.uint64(8 * (index & 7))


@njit(cache=True, _nrt=False)
def _child_key(board, parent_words, src, dst, key):
    """The key of ``board`` after the move ``src -> dst``, without writing a board.

    Mirrors ``board.apply_move`` byte for byte; only the changed bytes are
    touched, so a duplicate child costs no copy.
    """
    key[0], key[1], key[2], key[3] = parent_words[0], parent_words[1], parent_words[2], parent_words[3]
    if src == FROM_BAR:
        i = BAR
    elif src == FROM_WAITING:
        i = WAITING
    else:
        i = src - 1
    v = board[i]
    _set_byte(key, i, v, v - 1)
    if dst == TO_OFF:
        v = board[OFF]
        _set_byte(key, OFF, v, v + 1)
        return
    i = dst - 1
    v = board[i]
    if v == -1:  # a hit: the blot goes to the opponent's bar
        _set_byte(key, i, v, 1)
        w = board[OPP_BAR]
        _set_byte(key, OPP_BAR, w, w + 1)
    else:
        _set_byte(key, i, v, v + 1)


@njit(cache=True, _nrt=False)
def _expand(nodes, words, occupied_masks, parent, srcs, dsts, slots, moves, key, node, die, rule_bits, open_bits,
            blot_bits, end, dedupe, stamp, mask):
    """Append every position one ``die`` away from ``node``; return the new end or FULL.

    It takes the workspace's arrays one by one and runs without Numba's
    runtime: a call taking the workspace tuple reference-counts each of its
    arrays, atomically, and this is called once per node.
    """
    board = nodes[node]
    if board[OFF] == N_CHECKERS:
        return end  # the game ended with the last checker off: nothing more is played
    occupied = occupied_masks[node]
    n = legal_moves(board, die, rule_bits, open_bits, blot_bits, occupied, moves)
    cap = nodes.shape[0]
    for i in range(n):
        src, dst = moves[i, 0], moves[i, 1]
        if end >= cap:
            return FULL
        _child_key(board, words[node], src, dst, key)
        if dedupe and not _is_new(slots, words, key, end, stamp, mask):
            continue
        words[end, 0], words[end, 1], words[end, 2], words[end, 3] = key[0], key[1], key[2], key[3]
        child_occupied = occupied
        if src <= N_POINTS and board[src - 1] == 1:
            child_occupied &= ~(1 << src)
        if dst != TO_OFF:
            child_occupied |= 1 << dst
        occupied_masks[end] = child_occupied
        parent[end] = node
        srcs[end] = src
        dsts[end] = dst
        end += 1
    return end


@njit(cache=True)
def _expand_level(ws, words, first, stop, die, rule_bits, open_bits, blot_bits, end, dedupe):
    stamp, mask = _new_level(ws, first, stop)
    nodes, occupied, parent, src, dst, slots, moves, key = (
        ws.nodes, ws.occupied, ws.parent, ws.src, ws.dst, ws.slots, ws.moves, ws.key
    )
    for node in range(first, stop):
        end = _expand(nodes, words, occupied, parent, src, dst, slots, moves, key, node, die, rule_bits,
                      open_bits, blot_bits, end, dedupe, stamp, mask)
        if end == FULL:
            return FULL
    return end


@njit(cache=True)
def enumerate_plays(board, rules, segment, n_dice, ws, out):
    """Enumerate the legal plays of ``segment[:n_dice]`` from ``board``.

    Writes ``out[0], out[1]``: the node range of the plays (each a distinct
    resulting position) and ``out[2]``: the dice used.  When no die can be
    played the single play is the unchanged position (node 0).  Returns 0, or
    FULL when the workspace is too small.
    """
    if ws.nodes.shape[0] < 2:
        return FULL
    words = ws.nodes.view(np.uint64)
    ws.nodes[0, :] = board
    ws.parent[0] = -1
    ws.occupied[0] = occupied_mask(board)
    open_bits = open_mask(board)
    blot_bits = blot_mask(board)
    doubles_segment = n_dice >= 2 and segment[0] == segment[1]
    rule_bits = move_rules(rules, segment[0], segment[1] if n_dice >= 2 else 0)

    if n_dice == 2 and not doubles_segment:
        hi = max(segment[0], segment[1])
        lo = min(segment[0], segment[1])
        # one die from the root: positions differ by source, so no dedupe needed
        a_end = _expand_level(ws, words, 0, 1, hi, rule_bits, open_bits, blot_bits, 1, False)
        if a_end == FULL:
            return FULL
        b_end = _expand_level(ws, words, 0, 1, lo, rule_bits, open_bits, blot_bits, a_end, False)
        if b_end == FULL:
            return FULL
        stamp, mask = _new_level(ws, 1, b_end)
        end = b_end
        for node in range(1, b_end):
            die = lo if node < a_end else hi
            end = _expand(ws.nodes, words, ws.occupied, ws.parent, ws.src, ws.dst, ws.slots, ws.moves, ws.key, node,
                          die, rule_bits, open_bits, blot_bits, end, True, stamp, mask)
            if end == FULL:
                return FULL
        if end > b_end:
            out[0], out[1], out[2] = b_end, end, 2
        elif die_played_alone(hi, lo, a_end > 1) == hi:
            out[0], out[1], out[2] = 1, a_end, 1
        elif b_end > a_end:
            out[0], out[1], out[2] = a_end, b_end, 1
        else:
            out[0], out[1], out[2] = 0, 1, 0
        return 0

    first, stop, used = 0, 1, 0
    for k in range(n_dice):
        end = _expand_level(
            ws, words, first, stop, segment[k], rule_bits, open_bits, blot_bits, stop, k > 0
        )
        if end == FULL:
            return FULL
        if end == stop:
            break  # the first die that cannot be played ends the segment
        first, stop, used = stop, end, k + 1
    out[0], out[1], out[2] = first, stop, used
    return 0


@njit(cache=True)
def play_moves(ws, node, moves):
    """Write the moves leading to ``node`` into ``moves`` (n x 2, src/dst); return n."""
    n = 0
    while ws.parent[node] >= 0:
        moves[n, 0] = ws.src[node]
        moves[n, 1] = ws.dst[node]
        n += 1
        node = ws.parent[node]
    for i in range(n // 2):
        s, d = moves[i, 0], moves[i, 1]
        moves[i, 0], moves[i, 1] = moves[n - 1 - i, 0], moves[n - 1 - i, 1]
        moves[n - 1 - i, 0], moves[n - 1 - i, 1] = s, d
    return n


@njit(cache=True)
def collect_plays(ws, board, first, stop, moves, hits, counts):
    """For plays ``first..stop``: their moves (src, dst), whether each move hit, and how many moves.

    Row ``i`` of the outputs describes node ``first + i``; hits are found by
    replaying the moves from ``board``, the position the segment started from.
    """
    scratch = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    for i in range(stop - first):
        n = play_moves(ws, first + i, moves[i])
        counts[i] = n
        scratch[:] = board
        for k in range(n):
            hits[i, k] = apply_move(scratch, moves[i, k, 0], moves[i, k, 1])


@njit(cache=True)
def segment_of(rules, die_a, die_b, bonus, segment):
    """Fill ``segment`` with the dice of a roll (docs/rules.md section 2); return its length.

    ``bonus`` marks the double played after a 1-2.  The one place the
    ``doubles`` knob is read: four of a double, then four of its complement
    after every double (``four-plus-complement``) or only after the double a
    1-2 earned (``complement-after-1-2``).
    """
    if die_a != die_b:
        segment[0], segment[1] = die_a, die_b
        return 2
    for i in range(4):
        segment[i] = die_a
    doubles = rules[R_DOUBLES]
    if not (doubles == DOUBLES_FOUR_PLUS_COMPLEMENT or (doubles == DOUBLES_COMPLEMENT_AFTER_1_2 and bonus)):
        return 4
    for i in range(4, MAX_SEGMENT):
        segment[i] = 7 - die_a
    return MAX_SEGMENT


@njit(cache=True)
def enumerate_each(boards, dice, rules, ws, out, segment):
    """Enumerate the plays of every ``(boards[i], dice[i])``; return the total number of plays.

    Returns FULL when the workspace is too small for one of them.
    """
    total = 0
    for i in range(boards.shape[0]):
        n = segment_of(rules, dice[i, 0], dice[i, 1], False, segment)
        if enumerate_plays(boards[i], rules, segment, n, ws, out) == FULL:
            return FULL
        total += out[1] - out[0]
    return total
