"""Invariants on every position of random games, for every preset and random knob mixes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acesim.engine.moves import count_plays, legal_plays
from acesim.engine.position import Position
from acesim.engine.rules import KNOB_VALUES, KNOBS, PRESETS, Ruleset
from acesim.engine.sampling import sample_positions
from acesim.kernels import layout as L
from acesim.kernels.board import (
    BAD_MOVER_TOTAL,
    BAD_OPPONENT_TOTAL,
    BAD_PADDING,
    NEGATIVE_COUNTER,
    OK,
    check_invariants,
)
from tests.helpers import knob_mixes

# European 8-die segments are costly to enumerate one by one from Python.
SAMPLES = {"european": 4000, "american": 20000, "navy": 20000, "backgammon": 20000}


def test_check_invariants_catches_each_violation():
    board = Position.start("off-board").to_board()
    assert check_invariants(board) == OK
    bad = board.copy()
    bad[L.WAITING] = 14
    assert check_invariants(bad) == BAD_MOVER_TOTAL
    bad = board.copy()
    bad[3] = -1
    assert check_invariants(bad) == BAD_OPPONENT_TOTAL
    bad = board.copy()
    bad[L.OFF] = -1
    bad[L.WAITING] = 16
    assert check_invariants(bad) == NEGATIVE_COUNTER
    bad = board.copy()
    bad[L.BOARD_SIZE - 1] = 1
    assert check_invariants(bad) == BAD_PADDING


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_play_of_random_games_keeps_the_invariants(name):
    rules = PRESETS[name]
    boards, dice = sample_positions(rules, SAMPLES[name], seed=11)
    assert len(boards) == SAMPLES[name]
    # the walk reached the situations the rules are about
    doubles = dice[:, 0] == dice[:, 1]
    on_bar = boards[:, L.BAR] > 0
    outside = boards[:, L.HOME_TOP : L.N_POINTS].clip(min=0).sum(axis=1)
    home = (outside + boards[:, L.BAR] + boards[:, L.WAITING]) == 0
    assert doubles.sum() > 200 and on_bar.sum() > 50 and home.sum() > 50
    assert (boards[:, L.OFF] > 0).sum() > 50




@settings(max_examples=40, deadline=None)
@given(knobs=knob_mixes(), seed=st.integers(0, 2**32 - 1))
def test_random_knob_mixes_keep_the_invariants(knobs, seed):
    rules = Ruleset.preset("navy").with_overrides(knobs)
    n = 300 if rules.doubles == "four-plus-complement" else 1500
    boards, _ = sample_positions(rules, n, seed)
    assert len(boards) == n


def _pips(board: np.ndarray) -> int:
    pos = Position.from_board(board)
    return pos.pips()[0]


@pytest.mark.parametrize("name", list(PRESETS))
def test_plays_move_exactly_the_dice_used_and_touch_the_opponent_only_by_hits(name):
    """Pips fall by the dice used (less only for a standard overshooting bear-off);
    the opponent changes only by checkers sent from points to the bar."""
    rules = PRESETS[name]
    boards, dice = sample_positions(rules, 600, seed=5)
    checked = 0
    for board, (a, b) in zip(boards, dice):
        pos = Position.from_board(board)
        if pos.off[0] == 15 or pos.off[1] == 15:
            continue
        if count_plays(rules, pos, (int(a), int(b)))[0] > 2000:
            continue  # building Python objects for huge segments costs minutes
        result = legal_plays(rules, pos, (int(a), int(b)))
        if result.dice_used == 1 and a != b:
            allowed = {int(a), int(b)}  # which one is the higher-die rule's business
        else:
            allowed = {sum(result.segment[: result.dice_used])}
        before_mover = pos.pips()[0]
        for play in result.plays:
            after = play.position
            drop = before_mover - after.pips()[0]
            if rules.bearoff == "standard" and after.off[0] > pos.off[0]:
                assert 0 < drop <= max(allowed)
            else:
                assert drop in allowed
            assert len(play.moves) == result.dice_used
            hits = after.bar[1] - pos.bar[1]
            opp_before = -sum(v for v in pos.points if v < 0)
            opp_after = -sum(v for v in after.points if v < 0)
            assert opp_before - opp_after == hits == sum(play.hits)
            assert after.waiting[1] == pos.waiting[1] and after.off[1] == pos.off[1]
            checked += 1
    assert checked > 2000
