"""Searches whose scores are NaN or infinite still return a legal play (issue 15, fault 2).

A weight of ``inf`` beside a feature of 0, or ``inf`` beside ``-inf``, makes
scores NaN, and no comparison with NaN is true.  A search that only takes a
play when it scores better than the best so far then never takes one; these
tests hold every search to returning one of the segment's legal plays anyway.
"""

from __future__ import annotations

import numpy as np
import pytest

from acesim.engine.position import Position
from acesim.engine.rules import PRESETS
from acesim.engine.sampling import sample_positions
from acesim.engine.streams import block_keys
from acesim.kernels import game_loop as K, layout as L
from acesim.kernels.board import OK, check_invariants
from acesim.kernels.choice import LINEAR, MAX_WIDTH, Seats, best_play, choose_and_play_double, new_scratch
from acesim.kernels.evaluate import FEATURES
from acesim.kernels.memory import worker_memory
from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, new_workspace, segment_of


def _weights(kind: str) -> np.ndarray:
    w = np.zeros(len(FEATURES))
    if kind == "nan":
        w[:] = np.nan
    elif kind == "inf":
        w[FEATURES.index("pip_lead")] = np.inf  # NaN wherever the pip lead is 0
    else:  # "inf-inf": inf + (-inf) on most plays
        w[:] = np.inf
        w[FEATURES.index("blots")] = -np.inf
        w[FEATURES.index("shots")] = -np.inf
    return w


def _legal_plays(board, ra, segment, n, ws, out):
    while enumerate_plays(board, ra, segment, n, ws, out) == FULL:
        ws = grown_workspace(ws)
    return ws, {ws.nodes[i].tobytes() for i in range(out[0], out[1])}, int(out[2])


@pytest.mark.parametrize("name", ["european", "backgammon"])
@pytest.mark.parametrize("bad", ["nan", "inf", "inf-inf"])
def test_every_search_returns_a_legal_play_whatever_the_scores(name, bad):
    rules = PRESETS[name]
    ra = rules.to_array()
    boards, _ = sample_positions(rules, 40, seed=9)
    weights = _weights(bad)
    out = np.zeros(3, dtype=np.int64)
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    result = np.zeros(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
    for width in (0, 1, 4):
        # the beam as large as its scratch: a search that writes past a full beam shows
        sc, ws = new_scratch(max(width, 1)), new_workspace()
        for board in boards:
            for a in range(1, 7):
                for b in range(a, 7):
                    n = segment_of(ra, a, b, False, segment)
                    ws, legal, used = _legal_plays(board, ra, segment, n, ws, out)
                    ws, got_used, _ = best_play(board, ra, segment, n, width, ws, out, weights, sc, result)
                    assert check_invariants(result) == OK, (a, b, width)
                    assert result.tobytes() in legal, (a, b, width)
                    assert got_used == used, (a, b, width)


@pytest.mark.parametrize("name", ["european", "american"])
def test_the_double_after_a_1_2_is_a_legal_play_whatever_the_scores(name):
    rules = PRESETS[name]
    ra = rules.to_array()
    boards, _ = sample_positions(rules, 30, seed=5)
    out = np.zeros(3, dtype=np.int64)
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    choices = np.array([1, 2, 3, 4], dtype=np.uint64)
    for bad in ("nan", "inf-inf"):
        weights = _weights(bad)
        for width in (0, 2):
            ws, uniform, _, sc = worker_memory(width)
            sc.chosen[:] = -99  # stale memory that must never be read back as a board
            for board in boards:
                played = board.copy()
                ws, uniform, chosen, n, used = choose_and_play_double(
                    played, ra, LINEAR, width, width, weights, choices, ws, uniform, out, sc
                )
                assert 1 <= chosen <= 6
                assert n == segment_of(ra, chosen, chosen, True, segment)
                ws, legal, legal_used = _legal_plays(board, ra, segment, n, ws, out)
                assert check_invariants(played) == OK
                assert played.tobytes() in legal
                assert used == legal_used


@pytest.mark.parametrize("name", list(PRESETS))
def test_games_between_strategies_with_non_finite_scores_stay_legal(name):
    """The game loop's own paths (the quick search, the bonus double) under NaN scores."""
    rules = PRESETS[name]
    start = Position.start(rules.start).to_board()
    kinds = np.array([LINEAR, LINEAR], dtype=np.int64)
    widths = np.array([[MAX_WIDTH, MAX_WIDTH], [2, 0]], dtype=np.int64)
    weights = np.stack([_weights("inf"), _weights("inf-inf")])
    records = np.zeros((8, K.N_RECORD), dtype=np.int64)
    no_cube = np.zeros((2, 0))  # the presets have no cube: no cube models
    K.play_games(start, rules.to_array(), block_keys(3, 0, 8), 0, 3000, Seats(kinds, widths, weights, no_cube),
                 worker_memory(MAX_WIDTH), records, np.zeros((8, 0, K.TRACE_WIDTH), dtype=np.int64),
                 np.zeros(8, dtype=np.int64))
    assert (records[:, K.UNFINISHED] != 2).all()  # no impossible position was reached
    finished = records[:, K.UNFINISHED] == 0
    assert (records[finished, K.BORNE_OFF + records[finished, K.WINNER]] == L.N_CHECKERS).all()
