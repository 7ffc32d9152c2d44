"""The learned player's search of a doubles segment against scoring every play (``@full``).

The network judges the plays a cheap heuristic ranks best (``strategy._net_judged``).
When the heuristic's beam keeps every distinct play, that is the exhaustive
search exactly; at the default width it must pick the exhaustive search's play
in nearly every position (a beam scored by the network itself missed it in about
one double in five, and lost head-to-head against ``@full``).
"""

from __future__ import annotations

import numpy as np
import pytest

from acesim.engine.model_files import DEFAULT_WIDTH
from acesim.engine.rules import Ruleset
from acesim.engine.sampling import sample_positions
from acesim.engine.strategies import load_strategy
from acesim.kernels import layout as L
from acesim.kernels.choice import MAX_WIDTH, net_best_play, rolls_again
from acesim.kernels.memory import worker_memory
from acesim.kernels.plays import enumerate_plays, segment_of


def _doubles(rules: Ruleset, n_positions: int, seed: int):
    """(board, segment, dice) of every double in positions of random games."""
    ra = rules.to_array()
    boards, _ = sample_positions(rules, n_positions, seed=seed)
    for board in boards:
        for d in range(1, 7):
            segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
            yield board, segment, segment_of(ra, d, d, False, segment), d


def _play(board, ra, segment, n, width, again, row, memory):
    ws, _, out, sc = memory
    result = np.zeros_like(board)
    net_best_play(board, ra, segment, n, width, again, ws, out, row, sc, result)
    return result


@pytest.mark.parametrize("search", ["", "@tangent"])
@pytest.mark.parametrize("preset", ["backgammon", "navy", "american"])
def test_a_beam_that_keeps_every_play_is_the_exhaustive_search(preset, search):
    """Whether the heuristic or the network's tangent ranks it, a beam kept wide enough hands the
    network every distinct play, so it plays what scoring every play plays."""
    rules = Ruleset.preset(preset)
    ra = rules.to_array()
    row = np.array(load_strategy(f"learned:{preset}{search}").weights)
    memory = worker_memory(MAX_WIDTH)
    ws, _, out, _ = memory
    checked = 0
    for board, segment, n, d in _doubles(rules, 40, seed=4):
        enumerate_plays(board, ra, segment, n, ws, out)
        if out[1] - out[0] > MAX_WIDTH // 4:
            continue  # the beam may prune some level of so many plays
        again = rolls_again(ra, d, d, False)
        full = _play(board, ra, segment, n, 0, again, row, memory)
        assert np.array_equal(_play(board, ra, segment, n, MAX_WIDTH, again, row, memory), full)
        checked += 1
    assert checked > 100


def test_the_default_search_finds_the_exhaustive_searchs_play():
    rules = Ruleset.preset("backgammon")
    ra = rules.to_array()
    row = np.array(load_strategy("learned:backgammon").weights)
    memory = worker_memory(DEFAULT_WIDTH)
    same = total = 0
    for board, segment, n, d in _doubles(rules, 80, seed=9):
        again = rolls_again(ra, d, d, False)
        full = _play(board, ra, segment, n, 0, again, row, memory)
        same += np.array_equal(_play(board, ra, segment, n, DEFAULT_WIDTH, again, row, memory), full)
        total += 1
    assert same / total >= 0.9, (same, total)


def test_best_resolves_to_the_network_best_toml_names_else_the_one_that_reads_the_rules():
    from acesim.common.errors import AcesimError
    from acesim.engine.strategies import best_spec, resolve_spec

    assert best_spec(Ruleset.preset("navy")) == "learned:any"
    assert best_spec(Ruleset.preset("backgammon")) == "learned:backgammon"
    assert resolve_spec("best", Ruleset.preset("european")) == "learned:any"
    assert resolve_spec("safe", Ruleset.preset("european")) == "safe"
    assert best_spec(Ruleset.preset("navy").with_overrides({"bearoff": "exact" if Ruleset.preset("navy").bearoff == "standard" else "standard"})) == "learned:any"
    for spec in ("best", "best@full"):
        with pytest.raises(AcesimError, match="learned:NAME or expert"):
            load_strategy(spec)


def test_the_tangent_shortlist_holds_the_networks_best_play_more_often_than_the_heuristics():
    """In the European game's eight-die segments the heuristic's beam of 16 holds a play of the
    network's best value in about a quarter of them, the tangent's in about half (docs/learned.md)."""
    rules = Ruleset.preset("european")
    ra = rules.to_array()
    plain = np.array(load_strategy("learned:any@heuristic").row(rules))
    guided = np.array(load_strategy("learned:any@tangent").row(rules))
    memory = worker_memory(MAX_WIDTH)
    held = {"heuristic": 0, "tangent": 0}
    total = 0
    for board, segment, n, d in _doubles(rules, 12, seed=3):
        again = rolls_again(ra, d, d, False)
        full = _play(board, ra, segment, n, 0, again, plain, memory)
        for name, row in (("heuristic", plain), ("tangent", guided)):
            held[name] += np.array_equal(_play(board, ra, segment, n, DEFAULT_WIDTH, again, row, memory), full)
        total += 1
    assert total >= 60
    assert held["tangent"] >= held["heuristic"] + total // 10, (held, total)
