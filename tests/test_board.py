"""Single-move kernels: the mask form ``legal_moves`` against the readable ``move_target``."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from acesim.kernels import layout as L
from acesim.kernels.board import (
    ILLEGAL,
    all_home,
    legal_moves,
    lowest_bit,
    move_target,
    occupied_mask,
    open_mask,
)
from acesim.rules import KNOB_VALUES, KNOBS, PRESETS, Ruleset
from acesim.sampling import sample_positions
from tests.helpers import knob_mixes

SOURCES = [L.FROM_BAR, L.FROM_WAITING, *range(1, L.N_POINTS + 1)]


def _reference(board, rules, die, doubles_segment):
    home = all_home(board)
    moves = set()
    for src in SOURCES:
        dst = move_target(board, rules, src, die, doubles_segment, home)
        if dst != ILLEGAL:
            moves.add((src, int(dst)))
    return moves


def _fast(board, rules, die, doubles_segment):
    out = np.zeros((L.N_POINTS + 2, 2), dtype=np.int64)
    n = legal_moves(board, rules, die, doubles_segment, open_mask(board), occupied_mask(board), out)
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
            for doubles_segment in (False, True):
                assert _fast(board, array, die, doubles_segment) == _reference(
                    board, array, die, doubles_segment
                ), (rules.name, board.tolist(), die, doubles_segment)
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
