"""Rollouts: games played on from one position, with the luck of every roll measured.

A trial plays the position to the end (or for ``truncate`` rolls, then asks
the network) with both sides played by one strategy, and returns the result
for the side on roll at the start (side 0).  Each roll is the game loop's
(``turn.play_roll``: the 1-2's double, extra rolls, forfeits, the end at 15
off) and a won game scores ``game.points_won``.  A deeper trial player
chooses each segment's play at ply 2 (``lookahead.deeper_segment``) and
``turn.finish_roll`` plays what follows it.

Trial ``g`` takes its streams as game ``g`` of ``game.play_games`` does, so
every candidate of a rollout sees the same dice in trial ``g`` (common dice,
paired differences), and the first two rolls are stratified: the first is
roll ``g mod 36`` of the 36, the second ``(g // 36) mod 36``, so that every
36 trials hold each first roll once and every 1,296 each pair once.

Variance reduction (``luck_plays``): before each roll the network values, for
the side about to roll, the position after a play of each of the 21 rolls,
the 1-2's double included: the trial player's own play
(``lookahead.roll_values``, ``LUCK_PLAYER``) or the heuristic ranker's
(``lookahead.heuristic_roll_values``, ``LUCK_HEURISTIC``), a search that costs
a fraction of the network's.  The luck of the roll that came is its value minus
the probability-weighted mean of the 21; its expectation given everything
before it is zero whatever the network's errors and whoever's plays it values,
so the trial's result minus the sum of its lucks (each from side 0's view) has
the same mean as the result, and a smaller spread the better the values
follow the game.  The double rolled after a 1-2 under ``roll-die``
and the stratified rolls keep that zero mean too (a full cycle of 36 is the
rolls' own distribution); the rolled double's own luck is not subtracted.
"""

import numpy as np

from acesim.kernels.board import check_invariants, flip
from acesim.kernels.game_loop import GAMES_PER_BLOCK
from acesim.kernels.scoring import points_won
from acesim.kernels.jit import njit
from acesim.kernels.layout import BOARD_DTYPE, BOARD_SIZE, R_STAKES_DOUBLE_ON_1_2
from acesim.kernels.evaluate import N_FEATURES
from acesim.kernels.lookahead import N_VALUES, V_EQUITY, V_POINTS, V_WIN, heuristic_roll_values, position_value
from acesim.kernels.lookahead import deeper_segment, roll_values
from acesim.kernels.memory import Memory
from acesim.kernels.net import ranker_of
from acesim.kernels.rng import STREAM_WORDS, die, seed_game_streams
from acesim.kernels.sequence import GAME_OVER, ROLL_AGAIN, is_one_two, roll_sequence
from acesim.kernels.turn import MAX_OUTCOMES, N_ROLLS, ROLL_WEIGHT, finish_roll, play_roll, roll_index

# Columns of a trial's row.
X_POINTS, X_WIN, X_LUCK_POINTS, X_LUCK_WIN, X_ROLLS, X_END = range(6)
N_TRIAL_COLUMNS = 6
END_WON, END_TRUNCATED, END_CAPPED = 0, 1, 2
# Whose play of each of the 21 rolls the network values for a roll's luck: none (no correction),
# the trial player's own, or the heuristic ranker's that follows its network (``net.ranker_of``).
LUCK_OFF, LUCK_PLAYER, LUCK_HEURISTIC = 0, 1, 2
# The ranker's beam over a doubles segment and over the six doubles after a 1-2: ``expert``'s
# (``beam_width`` and ``choice_width`` of acesim/strategies.toml, which a test holds equal).
HEURISTIC_WIDTH = 4


@njit(cache=True)
def _roll(g, k, dice):
    """The ``k``-th roll of trial ``g``: the first two stratified, the rest from the dice stream."""
    if k == 0:
        r = g % 36
    elif k == 1:
        r = (g // 36) % 36
    else:
        return die(dice), die(dice)
    return r // 6 + 1, r % 6 + 1


@njit(cache=True, inline="always")
def _luck(board, rules, kind, width, choice_width, weights, luck_plays, ranker, choices, ws, uniform, out, sc, values,
          a, b, luck):
    """The luck of roll ``(a, b)`` for the side on roll in ``board``: ``luck[0]`` points, ``luck[1]`` wins.

    ``luck_plays``: whose play of each roll the network values (``LUCK_PLAYER``, ``LUCK_HEURISTIC``);
    ``ranker`` holds the heuristic's weights for the latter.
    """
    if luck_plays == LUCK_HEURISTIC:
        ranker[:] = ranker_of(weights)
        beam = np.int64(HEURISTIC_WIDTH)
        ws, uniform = heuristic_roll_values(board, rules, ranker, beam, beam, weights, ws, uniform, out, sc, values)
    else:
        ws, uniform = roll_values(board, rules, kind, width, choice_width, weights, choices, ws, uniform, out, sc,
                                  values)
    # weights in 36ths, so that 21 equal values average to exactly that value
    mean_points, mean_win = 0.0, 0.0
    for r in range(N_ROLLS):
        mean_points += ROLL_WEIGHT[r] * values[r, V_POINTS]
        mean_win += ROLL_WEIGHT[r] * values[r, V_WIN]
    mean_points /= 36.0
    mean_win /= 36.0
    r = roll_index(a, b)
    luck[0] = values[r, V_POINTS] - mean_points
    luck[1] = values[r, V_WIN] - mean_win
    return ws, uniform


@njit(cache=True)
def rollout_trials(start, rules, seats, block_keys, first_trial, truncate, turn_cap, luck_plays, deeper, memory,
                   rows):
    """Trials ``first_trial ..`` of the position ``start`` (side 0 on roll, its view) into ``rows``.

    Seat 0
    of ``seats`` plays side 0, seat 1 the other side; ``truncate`` > 0
    stops after that many rolls and values the position with the network
    (seat 0's weights, which must be a network; so must they for
    ``luck_plays`` other than ``LUCK_OFF``).  A trial longer than ``turn_cap`` turns is valued the same
    way and marked ``END_CAPPED``.  ``deeper = (keep, margin)`` with ``keep`` > 0 plays every segment
    of the trials at ply 2 (``lookahead.deeper_segment``), the network's weights in both seats.
    Returns the memory.
    """
    kinds, widths, weights = seats.kinds, seats.widths, seats.weights
    ws, uniform, out, sc = memory
    seq = roll_sequence(rules)
    stakes_on = rules[R_STAKES_DOUBLE_ON_1_2] != 0
    dice = np.zeros(STREAM_WORDS, dtype=np.uint64)
    choices = np.zeros(STREAM_WORDS, dtype=np.uint64)
    board = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    flipped = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    values = np.zeros((N_ROLLS, N_VALUES))
    value = np.zeros(N_VALUES)
    luck = np.zeros(2)
    ranker = np.zeros(N_FEATURES)
    played = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    keep, margin = deeper
    outcomes = np.empty((MAX_OUTCOMES, BOARD_SIZE), dtype=BOARD_DTYPE)
    steps = np.zeros(MAX_OUTCOMES, dtype=np.int64)
    first_block = first_trial // GAMES_PER_BLOCK
    for i in range(rows.shape[0]):
        g = first_trial + i
        seed_game_streams(block_keys[g // GAMES_PER_BLOCK - first_block], g, dice, choices)
        board[:] = start
        side = 0
        stakes = 0
        rolls = 0
        turns = 1
        luck_points, luck_win = 0.0, 0.0
        end = END_TRUNCATED
        while True:
            if (truncate > 0 and rolls >= truncate) or turns > turn_cap:
                end = END_TRUNCATED if turns <= turn_cap else END_CAPPED
                break
            kind, width, choice_width, w = kinds[side], widths[side, 0], widths[side, 1], weights[side]
            a, b = _roll(g, rolls, dice)
            rolls += 1
            if luck_plays != LUCK_OFF:
                ws, uniform = _luck(board, rules, kind, width, choice_width, w, luck_plays, ranker, choices, ws,
                                    uniform, out, sc, values, a, b, luck)
                sign = 1.0 if side == 0 else -1.0
                luck_points += sign * luck[0] * float(1 << stakes)  # the network values a single stake
                luck_win += sign * luck[1]
            if stakes_on and is_one_two(a, b):
                stakes += 1
            if keep > 0:
                ws, uniform, n, used = deeper_segment(board, rules, seq, a, b, kind, width, choice_width, w, keep,
                                                      margin, np.bool_(False), choices, ws, uniform, out, sc, played)
                board[:] = played
                ws, uniform, _, _, _ = finish_roll(board, rules, seq, a, b, n, used, kind, width, choice_width, w,
                                                   dice, choices, ws, uniform, out, sc, False, outcomes, steps)
            else:
                ws, uniform, _, _, _ = play_roll(board, rules, seq, a, b, kind, width, choice_width, w, dice,
                                                 choices, ws, uniform, out, sc, False, outcomes, steps)
            step = steps[0]
            if step == GAME_OVER:
                end = END_WON
                break
            if step != ROLL_AGAIN:
                if check_invariants(board) != 0:
                    raise AssertionError("engine bug: an impossible position in a rollout")
                flip(board, flipped)
                board[:] = flipped
                side = 1 - side
                turns += 1
        if end == END_WON:
            points = float(points_won(board, rules, stakes))
            rows[i, X_POINTS] = points if side == 0 else -points
            rows[i, X_WIN] = 1.0 if side == 0 else 0.0
        else:
            # the side on roll's value by the network, stakes doublings so far included
            position_value(board, rules, kinds[0], weights[0], np.bool_(True), sc, value)
            scale = float(1 << stakes)
            points, win = value[V_POINTS] * scale, value[V_WIN]
            if value[V_EQUITY] != value[V_EQUITY]:  # NaN: no network to ask
                points, win = np.nan, np.nan
            rows[i, X_POINTS] = points if side == 0 else -points
            rows[i, X_WIN] = win if side == 0 else 1.0 - win
        rows[i, X_LUCK_POINTS] = luck_points
        rows[i, X_LUCK_WIN] = luck_win
        rows[i, X_ROLLS] = rolls
        rows[i, X_END] = end
    return Memory(ws, uniform, out, sc)
