"""The uniform-play kernel (``acesim.kernels.uniform``) against ``plays.enumerate_plays``.

``enumerate_plays`` (level by level, every node stored and deduplicated) is
the exact reference, itself checked against the plain Python reference in
``test_reference.py``.  The uniform kernel searches depth first with a
restricted move order and deduplicates only where two plays can meet; here it
must give exactly the same set of resulting boards and the same ``dice_used``:

* its single-move sources against ``board.legal_moves``, knob by knob;
* every roll of positions from random games under each preset, and under
  random knob mixes (also the 4-die and 8-die doubles segments under each);
* arbitrary positions (bear-off, bar and entering heavy) under every mix of
  the knobs that change single moves;
* hand-built cases of docs/rules.md sections 2 and 5;
* the pick: every drawn play is a legal play, reproducible from the stream,
  uniform by chi-square tests (also where plays repeat, drawn by rejection
  or after deduplicating), and a scratch that is too small changes nothing.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from acesim.engine.sampling import sample_positions
from acesim.kernels import layout as L
from acesim.kernels.board import (
    MR_BAR_ENTRY,
    RANK_BAR,
    RANK_WAITING,
    blot_mask,
    legal_moves,
    legal_sources,
    move_rules,
    occupied_mask,
    open_mask,
)
from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, new_workspace, segment_of
from acesim.kernels.rng import seed_game_streams
from acesim.kernels.uniform import (
    _STAMP,
    _STAMP_MAX,
    _TRIES,
    DEFAULT_TRIES,
    FULL as UNIFORM_FULL,
    enumerate_uniform,
    grown_uniform_scratch,
    new_uniform_scratch,
    play_boards,
    play_uniform,
    uniform_play,
)
from tests.helpers import P, knob_mixes

PRESET_NAMES = ("european", "american", "navy", "backgammon")
EUROPEAN = Ruleset.preset("european")
AMERICAN = Ruleset.preset("american")
NAVY = Ruleset.preset("navy")
BACKGAMMON = Ruleset.preset("backgammon")
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]  # the 21 rolls

# The knobs that change single moves, and every mix of them.
MOVE_KNOBS = {
    "bar_first": (False, True),
    "bar_entry": ("any", "doubles-only", "bonus-only"),
    "home": ("free", "locked"),
    "home_after_all_in": ("free", "bearoff-only"),
    "bearoff": ("exact", "standard"),
    "enter_first": ("none", "all-in-first", "midpoint"),
    "hitting": ("free", "after-home"),
}
MOVE_MIXES = [dict(zip(MOVE_KNOBS, values)) for values in itertools.product(*MOVE_KNOBS.values())]


# --- comparing ----------------------------------------------------------------------


class Engines:
    """Both engines with their scratch memory, grown as needed."""

    def __init__(self) -> None:
        self.ws = new_workspace()
        self.scratch = new_uniform_scratch()
        self.out = np.zeros(3, dtype=np.int64)

    def reference(self, board, rules, segment, n_dice):
        while enumerate_plays(board, rules, segment, n_dice, self.ws, self.out) == FULL:
            self.ws = grown_workspace(self.ws)
        first, stop, used = (int(x) for x in self.out)
        return self.ws.nodes[first:stop].copy(), used

    def uniform(self, board, rules, segment, n_dice):
        before = board.copy()
        while True:
            status, count, used = enumerate_uniform(board, rules, segment, n_dice, self.scratch)
            if status != UNIFORM_FULL:
                break
            self.scratch = grown_uniform_scratch(self.scratch)
        assert np.array_equal(board, before), "enumerate_uniform must not change the board"
        return play_boards(board, self.scratch, count), int(used)


def sorted_rows(boards: np.ndarray) -> np.ndarray:
    """Boards as sorted 32-byte records, for comparing sets of boards fast."""
    return np.sort(np.ascontiguousarray(boards).view(np.dtype((np.void, L.BOARD_SIZE))).ravel())


def check_same(engines: Engines, board, rules, segment, n_dice) -> int:
    """The uniform kernel finds exactly the reference's plays; return how many."""
    ref, ref_used = engines.reference(board, rules, segment, n_dice)
    got, used = engines.uniform(board, rules, segment, n_dice)
    got_rows = sorted_rows(got)
    context = (
        f"board {board.tolist()}, segment {segment[:n_dice].tolist()}, "
        f"rules {rules.tolist()}: dice_used {used} vs {ref_used}, plays {len(got)} vs {len(ref)}"
    )
    assert used == ref_used, context
    assert len(np.unique(got_rows)) == len(got_rows), "a position is listed twice: " + context
    assert np.array_equal(got_rows, sorted_rows(ref)), "different plays: " + context
    return len(got)


def check_rolls(engines, board, ruleset: Ruleset, rolls=ROLLS, both_doubles=False) -> None:
    """Every roll of ``rolls`` from ``board``; doubles also as the other doubles segment."""
    rules = ruleset.to_array()
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    for a, b in rolls:
        n_dice = segment_of(rules, a, b, False, segment)
        check_same(engines, board, rules, segment, n_dice)
        if a == b and both_doubles:  # the other doubles segment: four, or four plus the complement
            segment[4:] = 7 - a
            check_same(engines, board, rules, segment, 4 if n_dice == 8 else 8)


def in_play(board) -> bool:
    return board[L.OFF] < 15 and board[L.OPP_OFF] < 15


def random_board(rng: np.random.Generator) -> np.ndarray:
    """A valid position, often near the bear-off, on the bar or entering."""
    board = np.zeros(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
    style = rng.integers(0, 5)
    if style == 0:  # bearing off, a straggler or two
        n_out = int(rng.choice([0, 0, 1, 1, 2, 3]))
        places = list(rng.integers(7, 13, n_out)) + list(rng.integers(0, 7, 15 - n_out))
    elif style == 1:  # late game, anything left behind
        n_out = int(rng.integers(0, 6))
        places = list(rng.integers(7, 27, n_out)) + list(rng.integers(0, 7, 15 - n_out))
    elif style == 2:  # a few stacks
        spots = rng.integers(0, 27, rng.integers(1, 5))
        places = list(rng.choice(spots, 15))
    elif style == 3:  # bar and waiting
        places = [25] * int(rng.integers(1, 4)) + [26] * int(rng.integers(0, 4))
        places += list(rng.integers(0, 27, 15 - len(places)))
    else:  # spread
        places = list(rng.integers(0, 27, 15))
    if all(p == 0 for p in places):
        places[0] = int(rng.integers(1, 7))
    for p in places:  # 0 off, 1..24 points, 25 bar, 26 waiting
        index = {0: L.OFF, 25: L.BAR, 26: L.WAITING}.get(int(p), int(p) - 1)
        board[index] += 1
    free = [p for p in range(L.N_POINTS) if board[p] == 0]
    for _ in range(15):
        r = rng.random()
        if r < 0.35 and free:
            board[free[int(rng.integers(0, len(free)))]] -= 1  # blots and blocks
        elif r < 0.5:
            board[L.OPP_BAR] += 1
        elif r < 0.65:
            board[L.OPP_WAITING] += 1
        else:
            board[L.OPP_OFF] += 1
    return board


# --- single moves ---------------------------------------------------------------------


@njit
def _source_mismatches(boards, rules):
    """Boards x dice x bar-entry flag where legal_sources and its expansion legal_moves disagree."""
    moves = np.zeros((L.N_POINTS + 2, 2), dtype=np.int64)
    bad = 0
    for i in range(boards.shape[0]):
        board = boards[i]
        occupied = occupied_mask(board)
        open_bits = open_mask(board)
        blot_bits = blot_mask(board)
        for die in range(1, 7):
            for bar_entry_ok in (False, True):
                rule_bits = move_rules(rules, np.int64(1), np.int64(1)) & ~MR_BAR_ENTRY | (MR_BAR_ENTRY if bar_entry_ok else 0)
                n = legal_moves(board, die, rule_bits, open_bits, blot_bits, occupied, moves)
                expected = 0
                for j in range(n):
                    src = moves[j, 0]
                    rank = src
                    if src == L.FROM_BAR:
                        rank = RANK_BAR
                    elif src == L.FROM_WAITING:
                        rank = RANK_WAITING
                    # a move is fixed by its source and die
                    land = moves[j, 1]
                    if src >= L.FROM_BAR:
                        ok = land == L.N_POINTS + 1 - die
                    else:
                        ok = land == (src - die if src > die else L.TO_OFF)
                    if not ok:
                        bad += 1
                    expected |= 1 << rank
                got = legal_sources(board[L.BAR], board[L.WAITING], board[L.OFF], die, rule_bits, open_bits,
                                    blot_bits, occupied)
                if got != expected:
                    bad += 1
    return bad


def test_sources_match_legal_moves():
    rng = np.random.default_rng(7)
    boards = [random_board(rng) for _ in range(300)]
    for name in PRESET_NAMES:
        game_boards, _ = sample_positions(Ruleset.preset(name), 150, seed=70)
        boards.extend(game_boards)
    boards = np.array(boards)
    # every mix, each on a quarter of the boards in turn: 288 mixes of the knobs
    for i, mix in enumerate(MOVE_MIXES):
        rules = EUROPEAN.with_overrides(mix).to_array()
        assert _source_mismatches(boards[i % 4 :: 4], rules) == 0, mix


# --- positions from random games --------------------------------------------------------


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_preset_game_positions_all_rolls(preset):
    ruleset = Ruleset.preset(preset)
    engines = Engines()
    boards, _ = sample_positions(ruleset, 400, seed=2000 + PRESET_NAMES.index(preset))
    boards = [b for b in boards if in_play(b)]
    non_doubles = [r for r in ROLLS if r[0] != r[1]]
    doubles = [r for r in ROLLS if r[0] == r[1]]
    if preset == "european":
        # 8-die segments are slow for the reference: fewer of them
        for board in boards[::8]:
            check_rolls(engines, board, ruleset, non_doubles)
        for board in boards[::25]:
            check_rolls(engines, board, ruleset, doubles)
    else:
        for i, board in enumerate(boards[::4]):
            # every fifth board also with the doubles as 8-die segments
            check_rolls(engines, board, ruleset, ROLLS, both_doubles=i % 5 == 0)


def test_european_doubles_met_in_games():
    """The 8-die segments a European game actually plays, up to >100,000 plays."""
    engines = Engines()
    boards, dice = sample_positions(EUROPEAN, 1500, seed=2026)
    rules = EUROPEAN.to_array()
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    counts = []
    for board, (a, b) in zip(boards, dice):
        if a == b and in_play(board):
            n_dice = segment_of(rules, a, b, False, segment)
            counts.append(check_same(engines, board, rules, segment, n_dice))
        if len(counts) == 40:
            break
    assert len(counts) == 40 and max(counts) > 1000


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(knobs=knob_mixes(), seed=st.integers(0, 2**32 - 1))
def test_knob_mix_game_positions(knobs, seed):
    ruleset = Ruleset(**knobs, name="mix")
    four = dataclasses.replace(ruleset, doubles="four")
    engines = Engines()
    boards, _ = sample_positions(ruleset, 30, seed)
    boards = [b for b in boards[::6] if in_play(b)]
    non_doubles = [r for r in ROLLS if r[0] != r[1]]
    doubles = [r for r in ROLLS if r[0] == r[1]]
    for i, board in enumerate(boards):
        check_rolls(engines, board, ruleset, non_doubles)
        check_rolls(engines, board, four, doubles)  # 4-die doubles segments
        if i == 0:
            eight = dataclasses.replace(ruleset, doubles="four-plus-complement")
            check_rolls(engines, board, eight, doubles)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(knobs=knob_mixes(), seed=st.integers(0, 2**32 - 1))
def test_knob_mix_game_positions_more(knobs, seed):
    ruleset = Ruleset(**knobs, name="mix")
    engines = Engines()
    boards, _ = sample_positions(ruleset, 60, seed)
    for board in boards[::5]:
        if in_play(board):
            check_rolls(engines, board, ruleset, ROLLS, both_doubles=True)


# --- arbitrary positions ------------------------------------------------------------------


def _arbitrary(seed: int, n_boards: int, eight_die_every: int) -> None:
    rng = np.random.default_rng(seed)
    engines = Engines()
    doubles = [r for r in ROLLS if r[0] == r[1]]
    for i in range(n_boards):
        board = random_board(rng)
        mix = MOVE_MIXES[i % len(MOVE_MIXES)]
        check_rolls(engines, board, EUROPEAN.with_overrides({**mix, "doubles": "four"}), ROLLS)
        if i % eight_die_every == 0:  # 8-die segments from arbitrary positions can be huge
            ruleset = EUROPEAN.with_overrides({**mix, "doubles": "four-plus-complement"})
            check_rolls(engines, board, ruleset, doubles)


def test_arbitrary_positions_every_move_knob_mix():
    _arbitrary(seed=11, n_boards=len(MOVE_MIXES), eight_die_every=7)


@pytest.mark.slow
def test_arbitrary_positions_many():
    _arbitrary(seed=12, n_boards=len(MOVE_MIXES), eight_die_every=5)


# --- hand-built cases (docs/rules.md sections 2 and 5) ---------------------------------------------


def plays_of(ruleset: Ruleset, pos: Position, dice) -> tuple[set[Position], int]:
    """The uniform kernel's plays as positions, after checking them against the reference."""
    engines = Engines()
    board = pos.to_board()
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    n_dice = segment_of(ruleset.to_array(), dice[0], dice[1], False, segment)
    check_same(engines, board, ruleset.to_array(), segment, n_dice)
    got, used = engines.uniform(board, ruleset.to_array(), segment, n_dice)
    return {Position.from_board(row) for row in got}, used


BEAROFF_ONLY_FOUR = EUROPEAN.with_overrides({"doubles": "four"})
HIT_AFTER_HOME_FOUR = EUROPEAN.with_overrides({"doubles": "four", "hitting": "after-home"})

HAND_CASES = [
    # Nothing playable: the single empty play.
    ("blocked entry", AMERICAN, P({19: -2, 20: -2}, waiting=(15, 11)), (6, 5),
     {P({19: -2, 20: -2}, waiting=(15, 11))}, 0),
    ("blocked doubles", NAVY, P({19: -2, 20: -2}, waiting=(15, 11)), (5, 5),
     {P({19: -2, 20: -2}, waiting=(15, 11))}, 0),
    # Only one die plays: the higher (6: 10/4) when it can ...
    ("higher die", NAVY, P({10: 1, 5: -2}, waiting=(0, 13)), (5, 6),
     {P({4: 1, 5: -2}, waiting=(0, 13))}, 1),
    # ... otherwise the lower (5: 10/5).
    ("lower die", NAVY, P({10: 1, 4: -2}, waiting=(0, 13)), (6, 5),
     {P({5: 1, 4: -2}, waiting=(0, 13))}, 1),
    # The last checker off ends the game: 5 of 8 dice (European), 4 of 4 (American).
    ("last off mid-segment", EUROPEAN, P(waiting=(1, 15)), (6, 6), {P(waiting=(0, 15))}, 5),
    ("lone checker, four", AMERICAN, P(waiting=(1, 15)), (6, 6), {P({1: 1}, waiting=(0, 15))}, 4),
    # 6/off alone ends the game after one die, but 6/5* 5/off uses both: only that.
    ("hit before the last off", AMERICAN, P({6: 1, 5: -1}, waiting=(0, 14)), (6, 1),
     {P(bar=(0, 1), waiting=(0, 14))}, 2),
    # bar_first: a checker on the bar that cannot enter freezes the waiting ones ...
    ("bar first", EUROPEAN, P({19: -2, 20: -2}, bar=(1, 0), waiting=(14, 11)), (6, 5),
     {P({19: -2, 20: -2}, bar=(1, 0), waiting=(14, 11))}, 0),
    # ... and bar_entry=doubles-only keeps it there on a non-double.
    ("bar doubles-only", EUROPEAN.with_overrides({"bar_entry": "doubles-only"}),
     P(bar=(1, 0), waiting=(14, 15)), (6, 5), {P(bar=(1, 0), waiting=(14, 15))}, 0),
    # Without bar_first the waiting checkers enter meanwhile.
    ("bar waits, waiting enters", NAVY.with_overrides({"bar_entry": "doubles-only"}),
     P(bar=(1, 0), waiting=(14, 15)), (6, 5),
     {P({19: 1, 20: 1}, bar=(1, 0), waiting=(12, 15)),
      P({14: 1}, bar=(1, 0), waiting=(13, 15))}, 2),
    # One bar and one waiting checker enter with either die: one position, not two.
    ("bar and waiting swap", NAVY, P(bar=(1, 0), waiting=(1, 15), off=(13, 0)), (6, 5),
     {P({19: 1, 20: 1}, waiting=(0, 15), off=(13, 0)),
      P({14: 1}, waiting=(1, 15), off=(13, 0)),
      P({14: 1}, bar=(1, 0), waiting=(0, 15), off=(13, 0))}, 2),
    # Home locked: the 14 checkers on 3 stay; 13/11/10 = 13/12/10.
    ("home locked", NAVY, P({3: 14, 13: 1}, waiting=(0, 15)), (2, 1),
     {P({3: 14, 10: 1}, waiting=(0, 15))}, 2),
    # bearoff-only with 2-2: 8/6 brings the last checker home, then only 2/off;
    # 5/3 and 5/3/1 must come before 8/6, against the canonical order.
    ("bearoff-only, inside moves first", BEAROFF_ONLY_FOUR, P({8: 1, 5: 1, 2: 13}, waiting=(0, 15)),
     (2, 2),
     {P({6: 1, 5: 1, 2: 10}, waiting=(0, 15)), P({6: 1, 3: 1, 2: 11}, waiting=(0, 15)),
      P({6: 1, 1: 1, 2: 12}, waiting=(0, 15))}, 4),
    # The same under a free home board: inside moves after 8/6 too.
    ("free home board", BEAROFF_ONLY_FOUR.with_overrides({"home_after_all_in": "free"}),
     P({6: 2}, waiting=(0, 15)), (3, 3), {P(waiting=(0, 15))}, 4),
    ("bearoff-only blocks 6/3", BEAROFF_ONLY_FOUR, P({6: 2}, waiting=(0, 15)), (3, 3),
     {P({6: 2}, waiting=(0, 15))}, 0),
    # Exact bear-off: a lone checker on 3 cannot use a 6 or a 5; standard takes it off.
    ("exact", EUROPEAN, P({3: 1}, waiting=(0, 15)), (6, 5), {P({3: 1}, waiting=(0, 15))}, 0),
    ("standard", AMERICAN, P({3: 1}, waiting=(0, 15)), (6, 5), {P(waiting=(0, 15))}, 1),
    # Standard, 6-5 with checkers on 2, 1, 1: 6/off from 2 then 5/off from 1, or 5/off
    # from 2 then 6/off from 1: one position.
    ("standard, two off either way", AMERICAN, P({2: 1, 1: 2}, waiting=(0, 15)), (6, 5),
     {P({1: 1}, waiting=(0, 15))}, 2),
    # hitting = after-home, 3-3, the waiting checkers blocked: 20/17* waits for 9/6, which
    # comes later in canonical order; the run restarts after it, so both plays are found.
    ("hit after the first checker home", HIT_AFTER_HOME_FOUR,
     P({20: 1, 9: 1, 22: -2, 17: -1}, waiting=(13, 12)), (3, 3),
     {P({11: 1, 6: 1, 22: -2}, bar=(0, 1), waiting=(13, 12)),
      P({14: 1, 3: 1, 22: -2}, bar=(0, 1), waiting=(13, 12))}, 4),
]


@pytest.mark.parametrize(
    "ruleset,pos,dice,expected,used", [c[1:] for c in HAND_CASES], ids=[c[0] for c in HAND_CASES]
)
def test_hand_cases(ruleset, pos, dice, expected, used):
    assert plays_of(ruleset, pos, dice) == (expected, used)


def test_european_plays_meet_across_halves():
    """d = 2, c = 5: 13/11 11/6 and 8/6 13/8 are one play; all plays agree with the reference."""
    pos = P({13: 2, 8: 2, 6: 2, 1: -2}, waiting=(9, 13))
    plays, used = plays_of(EUROPEAN, pos, (2, 2))
    assert used == 8 and len(plays) > 10


# --- the pick -------------------------------------------------------------------------------


def choice_stream(seed: int) -> np.ndarray:
    """A game's choice stream (xoshiro256**), as the game kernel seeds it."""
    dice = np.zeros(4, dtype=np.uint64)
    choices = np.zeros(4, dtype=np.uint64)
    seed_game_streams(np.array([seed, 1, 2, 3], dtype=np.uint64), 0, dice, choices)
    return choices


def test_pick_is_a_play_and_reproducible():
    engines = Engines()
    rules = EUROPEAN.to_array()
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    boards, dice = sample_positions(EUROPEAN, 300, seed=5)
    scratch, other = new_uniform_scratch(), new_uniform_scratch()
    for i, (board, (a, b)) in enumerate(zip(boards, dice)):
        if not in_play(board) or (a == b and i % 10):
            continue
        n_dice = segment_of(rules, a, b, False, segment)
        ref, ref_used = engines.reference(board, rules, segment, n_dice)
        rng = choice_stream(i)
        twin = rng.copy()
        played = board.copy()
        scratch, used = play_uniform(played, rules, segment, n_dice, rng, scratch)
        assert used == ref_used
        assert played.tobytes() in {row.tobytes() for row in ref}
        # the same stream state draws the same play and leaves the stream in the same state,
        # from another scratch (its hash-set stamps and size differ)
        again = board.copy()
        other, _ = play_uniform(again, rules, segment, n_dice, twin, other)
        assert np.array_equal(again, played) and np.array_equal(twin, rng)


def _chi_square_of_picks(board, ruleset, die_a, die_b, tries, draws_per_play=400):
    """Draw ``draws_per_play`` times per distinct play; the chi-square against uniform, and k."""
    rules = ruleset.to_array()
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    n_dice = segment_of(rules, die_a, die_b, False, segment)
    ref, _ = Engines().reference(board, rules, segment, n_dice)
    k = len(ref)
    index = {row.tobytes(): i for i, row in enumerate(ref)}
    counts = np.zeros(k, dtype=np.int64)
    draws = draws_per_play * k
    rng = choice_stream(2026)
    scratch = new_uniform_scratch()
    scratch[_TRIES] = tries
    for _ in range(draws):
        played = board.copy()
        scratch, _ = play_uniform(played, rules, segment, n_dice, rng, scratch)
        counts[index[played.tobytes()]] += 1  # a KeyError would be an illegal play
    expected = draws / k
    return float(((counts - expected) ** 2 / expected).sum()), k, counts


def test_pick_is_uniform():
    """Chi-square over the plays of one position: a few plays, many draws."""
    board = P({13: 2, 8: 1, 6: 1, 2: -2, 11: -2}, waiting=(0, 9), off=(11, 2)).to_board()
    chi2, k, counts = _chi_square_of_picks(board, BACKGAMMON, 6, 3, DEFAULT_TRIES)
    assert 4 <= k <= 30
    # k - 1 degrees of freedom: mean k - 1, sd sqrt(2(k - 1)); allow six sd
    assert chi2 < (k - 1) + 6 * np.sqrt(2 * (k - 1)), (chi2, counts.tolist())


@pytest.mark.parametrize("tries", [DEFAULT_TRIES, 1, 0])
def test_pick_is_uniform_where_plays_repeat(tries):
    """An eight-die segment whose 20 plays are 8 positions, reached 1, 1, 2, 2, 2, 4, 4 and 4 times.

    (The search's 20 plays were counted with ``_search`` when this test was
    written.)  Drawing among the 20 would pick a position reached 4 times 4
    times as often as one reached once (a chi-square near 770, against a
    limit of 30); the kept draw must be uniform over the 8, whether it is kept
    after any number of draws or the plays are deduplicated (``tries`` 0: at
    once).
    """
    board = P({1: 4, 2: 2, 3: 4, 4: 3, 8: 1, 14: 1, 22: -5, 23: -3}, off=(0, 7)).to_board()
    chi2, k, counts = _chi_square_of_picks(board, EUROPEAN, 2, 2, tries)
    assert k == 8
    assert chi2 < (k - 1) + 6 * np.sqrt(2 * (k - 1)), (chi2, counts.tolist())


def test_full_scratch_changes_nothing():
    """Too small a scratch: FULL, the board and the generator untouched; then grown."""
    rules = EUROPEAN.to_array()
    board = P(waiting=(15, 15)).to_board()
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    n_dice = segment_of(rules, 3, 3, False, segment)
    small = new_uniform_scratch(64)
    assert enumerate_uniform(board, rules, segment, n_dice, small)[0] == UNIFORM_FULL
    rng = choice_stream(3)
    twin = rng.copy()
    played = board.copy()
    assert uniform_play(played, rules, segment, n_dice, rng, small)[0] == UNIFORM_FULL
    assert np.array_equal(played, board)
    assert np.array_equal(rng, twin)
    grown, used = play_uniform(played, rules, segment, n_dice, rng, small)
    assert len(grown) > len(small) and used == 8
    ref, _ = Engines().reference(board, rules, segment, n_dice)
    assert len(ref) > 64 and played.tobytes() in {row.tobytes() for row in ref}


def test_full_scratch_non_double():
    """A non-double with more plays than a small scratch holds: FULL, then grown."""
    pos = P({p: 1 for p in range(7, 22)}, waiting=(0, 15))
    board = pos.to_board()
    rules = NAVY.to_array()
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    n_dice = segment_of(rules, 5, 2, False, segment)
    small = new_uniform_scratch(64)
    assert enumerate_uniform(board, rules, segment, n_dice, small)[0] == UNIFORM_FULL
    engines = Engines()
    engines.scratch = small
    assert check_same(engines, board, rules, segment, n_dice) > 64


def test_hash_set_stamps_wrap():
    """The hash set's stamps run out every 32,767 uses; then it is emptied, not misread."""
    engines = Engines()
    rules = EUROPEAN.to_array()
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    boards, dice = sample_positions(EUROPEAN, 200, seed=9)
    cases = [(b, d) for b, d in zip(boards, dice) if in_play(b) and d[0] != d[1]][:12]
    engines.scratch[_STAMP] = _STAMP_MAX - 5
    for board, (a, b) in cases:
        check_same(engines, board, rules, segment, segment_of(rules, a, b, False, segment))
    assert engines.scratch[_STAMP] < 10


def test_game_over_positions():
    """A side with 15 off: both engines agree (the mover's segment is the empty play)."""
    engines = Engines()
    for board in (P({1: -1}, waiting=(0, 14), off=(15, 0)).to_board(),
                  P({3: 2, 20: 1}, waiting=(0, 0), off=(12, 15)).to_board()):
        for ruleset in (EUROPEAN, AMERICAN, NAVY, BACKGAMMON):
            check_rolls(engines, board, ruleset, ROLLS, both_doubles=True)


def test_random_strategy_plays_by_the_uniform_search_and_grows_it():
    """``strategy.play_segment`` for ``random``: the uniform search's pick, its scratch grown."""
    from acesim.kernels.choice import RANDOM, new_scratch, play_segment

    rules = EUROPEAN.to_array()
    board = P(waiting=(15, 15)).to_board()
    weights = np.zeros(13)
    out = np.zeros(3, dtype=np.int64)
    engines = Engines()
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    ref, ref_used = engines.reference(board, rules, segment, segment_of(rules, 3, 3, False, segment))
    assert len(ref) > 64
    for capacity in (64, 4096):
        rng = choice_stream(11)
        twin = rng.copy()
        played = board.copy()
        small = new_uniform_scratch(capacity)
        _, grown, n, used = play_segment(
            played, rules, 3, 3, False, RANDOM, 0, weights, rng, engines.ws, small, out, new_scratch(1)
        )
        assert (n, used) == (8, ref_used) and played.tobytes() in {row.tobytes() for row in ref}
        assert (len(grown) > len(small)) == (capacity == 64)
        expected = board.copy()
        play_uniform(expected, rules, segment, 8, twin, new_uniform_scratch())
        assert np.array_equal(played, expected)
