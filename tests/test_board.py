"""Single-move kernels: the mask form ``legal_moves`` against the readable ``move_target``."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from acesim.engine.rules import KNOB_VALUES, PRESETS, Ruleset
from acesim.engine.sampling import sample_positions
from acesim.kernels import layout as L
from acesim.kernels.board import (
    ILLEGAL,
    MR_BAR_ENTRY,
    all_home,
    blot_mask,
    legal_moves,
    move_rules,
    lowest_bit,
    move_target,
    occupied_mask,
    open_mask,
)
from tests.helpers import knob_mixes

SOURCES = [L.FROM_BAR, L.FROM_WAITING, *range(1, L.N_POINTS + 1)]


def _reference(board, rules, die, bar_entry_ok):
    home = all_home(board)
    moves = set()
    for src in SOURCES:
        dst = move_target(board, rules, src, die, bar_entry_ok, home)
        if dst != ILLEGAL:
            moves.add((src, int(dst)))
    return moves


def _fast(board, rules, die, bar_entry_ok):
    out = np.zeros((L.N_POINTS + 2, 2), dtype=np.int64)
    rule_bits = move_rules(rules, 1, 1) & ~MR_BAR_ENTRY | (MR_BAR_ENTRY if bar_entry_ok else 0)
    n = legal_moves(board, die, rule_bits, open_mask(board), blot_mask(board), occupied_mask(board), out)
    moves = [tuple(int(v) for v in row) for row in out[:n]]
    assert len(moves) == len(set(moves)), "a move listed twice"
    return set(moves)


def _agree(rules: Ruleset, boards: np.ndarray) -> int:
    array = rules.to_array()
    compared = 0
    for board in boards:
        if board[L.OFF] == L.N_CHECKERS or board[L.OPP_OFF] == L.N_CHECKERS:
            continue
        for die in range(1, 7):
            for bar_entry_ok in (False, True):
                assert _fast(board, array, die, bar_entry_ok) == _reference(
                    board, array, die, bar_entry_ok
                ), (rules.name, board.tolist(), die, bar_entry_ok)
                compared += 1
    return compared


def test_lowest_bit():
    for i in range(1, 30):
        assert lowest_bit(1 << i) == i
        assert lowest_bit((1 << i) | (1 << 40)) == i


def test_masks():
    board = np.zeros(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
    board[0], board[5], board[6], board[23] = 2, -1, -2, 3
    board[L.WAITING], board[L.OPP_WAITING] = 10, 12
    assert occupied_mask(board) == (1 << 1) | (1 << 24)
    assert open_mask(board) == ((1 << 25) - 2) & ~(1 << 7)


def test_fast_moves_match_reference_on_game_positions_of_every_preset():
    total = 0
    for name, rules in PRESETS.items():
        boards, _ = sample_positions(rules, 400, seed=3)
        total += _agree(rules, boards)
    assert total > 4 * 400 * 12 * 0.9




@settings(max_examples=40, deadline=None)
@given(knobs=knob_mixes(), seed=st.integers(0, 2**32 - 1))
def test_fast_moves_match_reference_under_random_knob_mixes(knobs, seed):
    rules = Ruleset.preset("american").with_overrides(knobs)
    boards, _ = sample_positions(rules, 60, seed)
    assert _agree(rules, boards) > 0


def test_bar_entry_open_is_the_rule_texts_bar_entry_for_every_roll():
    """The kernel's one reading of bar_entry against the reference's, for each value and 1-2 rule."""
    from acesim.kernels.board import bar_entry_open
    from tests.reference_rules import bar_may_enter

    compared = 0
    for entry in KNOB_VALUES["bar_entry"]:
        for acey in KNOB_VALUES["acey_deucey"]:
            rules = PRESETS["european"].with_overrides(
                {"bar_entry": entry, "acey_deucey": acey, "acey_deucey_extra_roll": acey != "none"})
            array = rules.to_array()
            for a in range(1, 7):
                for b in range(1, 7):
                    assert bar_entry_open(array, a, b) == bar_may_enter(rules, (a, b)), (entry, acey, a, b)
                    compared += 1
                # a segment of one die is never a double nor a 1-2
                assert bar_entry_open(array, a, 0) == (entry == "any")
    assert compared == 3 * 3 * 36
    bonus = PRESETS["european"].with_overrides({"bar_entry": "bonus-only"}).to_array()
    assert bar_entry_open(bonus, 1, 2) and bar_entry_open(bonus, 2, 1) and bar_entry_open(bonus, 4, 4)
    assert not bar_entry_open(bonus, 3, 1)


def test_the_stale_cache_guard_finds_numbas_cache_under_numba_cache_dir(monkeypatch, tmp_path):
    """make test caches elsewhere (NUMBA_CACHE_DIR); the guard must drop stale kernels there too."""
    from pathlib import Path

    from numba.core.caching import _CacheLocator

    import acesim.kernels as K
    import acesim.kernels.board as B

    here = Path(B.__file__).parent
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert K._cache_folder(here) == tmp_path / _CacheLocator.get_suitable_cache_subpath(B.__file__)
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert K._cache_folder(here) == here / "__pycache__"
