"""Random play over whole rolls, for sampling reachable positions and checking invariants.

Both sides play the ``random`` strategy (uniform among the distinct resulting
positions of every segment, the double after a 1-2 drawn uniformly) through
``turn.play_roll``, the roll sequence of every game (docs/rules.md section 3:
the 1-2's double, extra rolls, forfeits under ``bonus_needs_full_use``),
without the opening and scoring: this walker exists to reach the positions
the rules can reach, and to check every play the enumerator generates on the
way, not only the one played.
"""

import numpy as np

from acesim.kernels.board import OK, check_invariants, flip
from acesim.kernels.choice import RANDOM
from acesim.kernels.jit import njit
from acesim.kernels.layout import BOARD_DTYPE, BOARD_SIZE
from acesim.kernels.memory import Memory
from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, segment_of
from acesim.kernels.rng import STREAM_WORDS, die, seed_game_streams
from acesim.kernels.sequence import GAME_OVER, ROLL_AGAIN, roll_sequence
from acesim.kernels.turn import MAX_OUTCOMES, play_roll

# The longest game the walker plays, in rolls: random play can wander.
MAX_WALK_ROLLS = 2000


@njit(cache=True)
def _check_segment(board, rules, die_a, die_b, bonus, ws, out, segment):
    """The first invariant violation among every legal play of the segment from ``board`` (``OK`` if none).

    Returns ``(ws, code)``; the workspace may have grown.
    """
    n = segment_of(rules, die_a, die_b, bonus, segment)
    while enumerate_plays(board, rules, segment, n, ws, out) == FULL:
        ws = grown_workspace(ws)
    for node in range(out[0], out[1]):
        code = check_invariants(ws.nodes[node])
        if code != OK:
            return ws, code
    return ws, OK


@njit(cache=True)
def random_walk(start, rules, block_key, max_games, max_samples, memory, samples, sample_dice):
    """Play random games from ``start``; record the position before every segment.

    The dice and the random strategy's choices are the streams of game 0 of
    ``block_key`` (``rng.seed_game_streams``).  ``samples[i]`` is the mover's
    board and ``sample_dice[i]`` the dice of the segment played from it
    (``(d, d)`` for a doubles segment, also the double played after a 1-2).
    Every legal play of each sampled segment is checked with
    ``check_invariants``.  Returns ``(n_samples, first_violation, memory)``.
    """
    ws, uniform, out, sc = memory
    dice = np.zeros(STREAM_WORDS, dtype=np.uint64)
    choices = np.zeros(STREAM_WORDS, dtype=np.uint64)
    seed_game_streams(block_key, 0, dice, choices)
    board = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    flipped = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    outcomes = np.empty((MAX_OUTCOMES, BOARD_SIZE), dtype=BOARD_DTYPE)
    steps = np.zeros(MAX_OUTCOMES, dtype=np.int64)
    checked = np.zeros(3, dtype=np.int64)
    no_weights = np.zeros(0)
    seq = roll_sequence(rules)
    kind, width = np.int64(RANDOM), np.int64(0)
    n = 0
    for _ in range(max_games):
        board[:] = start
        game_over = False
        rolls = 0
        while not game_over and n < max_samples and rolls < MAX_WALK_ROLLS:
            again = True
            while again and n < max_samples:  # one turn: rolls until it ends
                rolls += 1
                a, b = die(dice), die(dice)
                samples[n, :] = board
                sample_dice[n, 0], sample_dice[n, 1] = a, b
                n += 1
                ws, code = _check_segment(board, rules, a, b, np.bool_(False), ws, checked, sc.segment)
                if code != OK:
                    return n, code, Memory(ws, uniform, out, sc)
                ws, uniform, _, chosen, _ = play_roll(board, rules, seq, a, b, kind, width, width, no_weights, dice,
                                                      choices, ws, uniform, out, sc, False, outcomes, steps)
                if chosen and n < max_samples:  # outcomes[0]: the position the double was played from
                    samples[n, :] = outcomes[0]
                    sample_dice[n, 0], sample_dice[n, 1] = chosen, chosen
                    n += 1
                    ws, code = _check_segment(outcomes[0], rules, chosen, chosen, np.bool_(True), ws, checked,
                                              sc.segment)
                    if code != OK:
                        return n, code, Memory(ws, uniform, out, sc)
                if steps[0] == GAME_OVER:
                    game_over = True
                    break
                again = steps[0] == ROLL_AGAIN
            if not game_over:
                flip(board, flipped)
                board[:] = flipped
        if n >= max_samples:
            break
    return n, OK, Memory(ws, uniform, out, sc)
