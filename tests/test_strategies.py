"""Strategies: features, incremental summaries, the beam's legality, the weights file."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from acesim.common.errors import AcesimError
from acesim.engine.position import Position
from acesim.engine.rules import PRESETS, Ruleset
from acesim.engine.sampling import sample_positions
from acesim.engine.strategies import load_strategy, strategy_names
from acesim.kernels import evaluate as E, layout as L, net as N
from acesim.kernels.choice import LINEAR, RANDOM, best_play, choose_double, new_scratch
from acesim.kernels.memory import worker_memory
from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, new_workspace, segment_of
from tests.helpers import P


def _features(pos) -> dict[str, float]:
    out = np.zeros(E.N_FEATURES)
    E.features(pos.to_board(), out)
    return dict(zip(E.FEATURES, out))


def test_features_of_a_hand_built_position():
    # mover: blots on 9 and 3, points 8, 7, 6 (a three-point prime), 4 on point 6, 2 on 20;
    # opponent: checkers on 2 and 5 (below the blot on 9: 9-5 = 4 hits it; the blot on 3:
    # 3-2 = 1), one on the bar (enters on 1..6: hits the blot on 3 with a 3) and 11 on 24
    pos = P({9: 1, 3: 1, 8: 2, 7: 2, 6: 4, 20: 2, 2: -1, 5: -1, 24: -11}, bar=(0, 1), off=(3, 1))
    f = _features(pos)
    my_pips = 9 + 3 + 16 + 14 + 24 + 40
    opp_pips = (25 - 2) + (25 - 5) + 25 + 11 * 1
    assert f["pip_lead"] == pytest.approx((opp_pips - my_pips) / 25)
    assert f["off"] == 3
    assert f["blots"] == 2
    # blot on 9: opposing checker on 5 (distance 4) -> 1 shot; blot on 3: checker on 2 and the bar -> 2
    assert f["shots"] == 3
    assert f["made"] == 4 and f["home_made"] == 1 and f["prime"] == 3
    assert f["opp_bar"] == 1 and f["stacked"] == 1
    assert f["home"] == 1 + 4 + 3  # the blot on 3, four on 6, three off
    assert f["outside_board"] == 0 and f["anchors"] == 1
    # the opponent's rearmost checker is on the bar (point 0): points 1..6 ahead hold one made point
    assert f["trap"] == 1


def test_trap_counts_made_points_ahead_of_the_rearmost_opposing_checker():
    pos = P({12: -15, 13: 2, 14: 2, 18: 2, 19: 2, 5: 7})
    assert _features(pos)["trap"] == 3  # 13, 14, 18 lie within 12+1..12+6; 19 does not


@pytest.mark.parametrize("name", list(PRESETS))
def test_incremental_summaries_equal_summaries_from_scratch(name):
    """Every node of every enumeration: the summary derived from its parent's equals a fresh one."""
    rules = PRESETS[name]
    boards, dice = sample_positions(rules, 400, seed=4)
    ra = rules.to_array()
    ws = new_workspace()
    out = np.zeros(3, dtype=np.int64)
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    fresh = np.zeros(E.SUMMARY_SIZE, dtype=np.int64)
    checked = 0
    for board, (a, b) in zip(boards, dice):
        n = segment_of(ra, a, b, False, segment)
        while enumerate_plays(board, ra, segment, n, ws, out) == FULL:
            ws = grown_workspace(ws)
        stop = min(int(out[1]), 3000)
        sums = np.zeros((stop, E.SUMMARY_SIZE), dtype=np.int64)
        E.summarize(ws.nodes[0], sums[0])
        for node in range(1, stop):
            parent = ws.parent[node]
            E.update_summary(sums[parent], ws.nodes[parent], ws.src[node], ws.dst[node], sums[node])
            E.summarize(ws.nodes[node], fresh)
            assert (sums[node] == fresh).all(), (name, node)
            checked += 1
    assert checked > 1000


def _plays(rules, board, segment, n):
    ws = new_workspace()
    out = np.zeros(3, dtype=np.int64)
    while enumerate_plays(board, rules, segment, n, ws, out) == FULL:
        ws = grown_workspace(ws)
    return {ws.nodes[i].tobytes() for i in range(out[0], out[1])}, int(out[2])


@pytest.mark.parametrize("name", ["european", "navy", "backgammon"])
@pytest.mark.parametrize("width", [1, 2, 4, 0])
def test_every_search_ends_on_a_legal_play(name, width):
    """The beam's play is one of the legal plays and uses the maximal number of dice;
    the exhaustive search (width 0) scores at least as well as any beam."""
    rules = PRESETS[name]
    ra = rules.to_array()
    boards, dice = sample_positions(rules, 60 if name == "european" else 150, seed=9)
    weights = np.array(load_strategy("expert").weights)
    sc = new_scratch(max(width, 1))
    ws = new_workspace()
    out = np.zeros(3, dtype=np.int64)
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    result = np.zeros(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
    full = np.zeros(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
    short = 0
    for board, (a, _) in zip(boards, dice):
        for d in (a, 7 - a):  # doubles segments: the beam's territory
            n = segment_of(ra, d, d, False, segment)
            legal, used = _plays(ra, board, segment, n)
            ws, beam_used, beam_score = best_play(board, ra, segment, n, width, ws, out, weights, sc, result)
            assert result.tobytes() in legal
            assert beam_used == used
            ws, _, full_score = best_play(board, ra, segment, n, 0, ws, out, weights, sc, full)
            assert full_score >= beam_score - 1e-9
            short += used < n
    assert short > 0 or name == "backgammon"  # some segments could not be played in full


NON_DOUBLES = [(a, b) for a in range(1, 7) for b in range(a + 1, 7)]
MOVE_MIXES = [
    dict(bar_first=bf, bar_entry=be, home=h, home_after_all_in=ha, bearoff=bo)
    for bf in (False, True)
    for be in ("any", "doubles-only", "bonus-only")
    for h in ("free", "locked")
    for ha in ("free", "bearoff-only")
    for bo in ("exact", "standard")
]


@pytest.mark.parametrize("mix", range(len(MOVE_MIXES)))
def test_two_dice_search_scores_every_play(mix):
    """The depth-first non-double search equals the stored enumeration: a legal play,
    the same dice used and the best score of all plays, under every mix of the move knobs."""
    rules = dataclasses.replace(Ruleset.preset("american"), **MOVE_MIXES[mix])
    ra = rules.to_array()
    boards, _ = sample_positions(rules, 40, seed=100 + mix)
    boards = list(boards) + [  # the end: a one-die win, the higher-die rule, entering
        P({2: 1, 24: -2}, waiting=(0, 13), off=(14, 0)).to_board(),
        P({1: 1, 3: 1, 20: -14}, off=(13, 1)).to_board(),
        P({13: 1, 24: -2, 23: -2, 22: -2, 21: -2, 20: -2}, bar=(1, 0), waiting=(13, 5)).to_board(),
    ]
    weights = np.array(load_strategy("expert").weights)
    sc = new_scratch(4)
    out = np.zeros(3, dtype=np.int64)
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    result = np.zeros(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
    features = np.zeros(E.N_FEATURES)
    for board in boards:
        for a, b in NON_DOUBLES:
            n = segment_of(ra, a, b, False, segment)
            ws = new_workspace()
            while enumerate_plays(board, ra, segment, n, ws, out) == FULL:
                ws = grown_workspace(ws)
            legal = {ws.nodes[i].tobytes() for i in range(out[0], out[1])}
            scores = [E.score(ws.nodes[i], weights, features) for i in range(out[0], out[1])]
            _, used, score = best_play(board, ra, segment, n, 0, ws, out, weights, sc, result)
            assert result.tobytes() in legal, (Position.from_board(board), (a, b))
            assert used == out[2]
            assert score == pytest.approx(max(scores), abs=1e-9)


def test_choose_double_takes_the_best_scoring_double():
    rules = PRESETS["navy"].to_array()
    weights = np.array(load_strategy("racer").weights)
    sc = new_scratch(4)
    ws = new_workspace()
    out = np.zeros(3, dtype=np.int64)
    choices = np.array([1, 2, 3, 4], dtype=np.uint64)
    # a bear-off race: the racer must take the double that bears off most (6-6 takes four off)
    board = P({6: 4, 5: 3, 4: 2, 1: 1, 24: -15}).to_board()
    ws, d = choose_double(board, rules, LINEAR, 4, weights, choices, ws, out, sc)
    assert d == 6
    # the random strategy draws from its choice stream: every face appears
    seen = set()
    for _ in range(200):
        ws, d = choose_double(board, rules, RANDOM, 0, weights, choices, ws, out, sc)
        seen.add(int(d))
    assert seen == {1, 2, 3, 4, 5, 6}


def test_strategy_names_and_specs():
    names = strategy_names()
    assert names[:1] == ["random"] and {"racer", "safe", "blocker", "expert"} <= set(names)
    assert load_strategy("expert").width == 4
    assert load_strategy("expert@full").width == 0
    assert load_strategy("expert@beam=16").width == 16
    assert load_strategy("random").kind == RANDOM


def test_search_options_set_the_beam_and_the_ranking_of_the_doubles_apart():
    expert = load_strategy("expert")
    # a heuristic's ranking keeps the weights file's width unless @rank names one
    assert (load_strategy("expert@beam=16").width, load_strategy("expert@beam=16").choice_width) == (16, expert.choice_width)
    assert (load_strategy("expert@rank=2").width, load_strategy("expert@rank=2").choice_width) == (expert.width, 2)
    both = load_strategy("expert@beam=8@rank=3")
    assert (both.width, both.choice_width) == (8, 3)
    assert load_strategy("expert@rank=3@beam=8").choice_width == 3
    # a network ranks the doubles after a 1-2 by beams of 4 unless @rank names a width; with @heuristic
    # (the search before the tangent) the ranking follows its beam
    for spec, widths, tangent in [
        ("learned:european", (16, 4), N.TANGENT_LONG), ("learned:european@beam=32", (32, 4), N.TANGENT_LONG),
        ("learned:european@rank=8", (16, 8), N.TANGENT_LONG), ("learned:european@tangent", (16, 4), N.TANGENT),
        ("learned:european@heuristic", (16, 16), 0.0), ("learned:european@heuristic@beam=32", (32, 32), 0.0),
        ("learned:european@heuristic@rank=4", (16, 4), 0.0), ("learned:european@full", (0, 0), 0.0),
    ]:
        s = load_strategy(spec)
        assert (s.width, s.choice_width, s.tangent) == (*widths, tangent), spec


def _single_cells(row):
    """How many cells the first layer in single precision takes at the end of a playing row."""
    return (int(row[N.M_INPUTS]) * int(row[N.M_HIDDEN1]) + 1) // 2


def test_tangent_is_a_least_segment_and_the_transposed_first_layer_after_the_rankers_weights_of_the_row():
    """A playing row: the network and the ranker's weights, then the tangent's least segment (0: none) and,
    with a tangent, the first layer transposed; last, the first layer in single precision."""
    plain = load_strategy("learned:european@heuristic")
    network = np.array(plain.weights)
    inputs, hidden = int(network[N.M_INPUTS]), int(network[N.M_HIDDEN1])
    first_layer = network[N.HEADER : N.HEADER + inputs * hidden].reshape(inputs, hidden)
    single = network[len(network) - _single_cells(network):].view(np.float32)[: inputs * hidden]
    assert network[len(network) - _single_cells(network) - 1] == 0.0
    assert np.array_equal(single, first_layer.ravel().astype(np.float32))
    head = len(network) - _single_cells(network) - 1  # the network and the ranker's weights
    for spec, least in [("learned:european", N.TANGENT_LONG), ("learned:european@tangent", N.TANGENT)]:
        row = np.array(load_strategy(spec).weights)
        assert np.array_equal(row[:head], network[:head]) and row[head] == least
        assert np.array_equal(row[head + 1 : head + 1 + inputs * hidden].reshape(hidden, inputs), first_layer.T)
        assert np.array_equal(row[head + 1 + inputs * hidden :], network[head + 1 :])
    european = Ruleset.preset("european")
    any_plain = load_strategy("learned:any@heuristic").row(european)
    head = len(any_plain) - _single_cells(any_plain) - 1
    for spec, least in [("learned:any", N.TANGENT_LONG), ("learned:any@tangent", N.TANGENT)]:
        any_guided = load_strategy(spec).row(european)
        assert any_guided[head] == least and np.array_equal(any_guided[:head], any_plain[:head])
        assert np.array_equal(any_guided[len(any_guided) - _single_cells(any_plain):], any_plain[head + 1 :])
        assert np.array_equal(load_strategy(spec).for_rules(european).weights, any_guided)


def test_which_doubles_beams_the_tangent_ranks():
    """Under ``doubles = complement-after-1-2`` a plain double is four dice and the double after a 1-2
    eight: the default ranks only the latter's beam by the tangent."""
    rows = {spec: np.array(load_strategy(spec).weights) for spec in
            ("learned:european", "learned:european@tangent", "learned:european@heuristic")}
    assert [N.tangent_ranks(rows["learned:european"], n) for n in (4, 8)] == [False, True]
    assert [N.tangent_ranks(rows["learned:european@tangent"], n) for n in (4, 8)] == [True, True]
    assert [N.tangent_ranks(rows["learned:european@heuristic"], n) for n in (4, 8)] == [False, False]
    mixed = Ruleset.preset("european").with_overrides({"doubles": "complement-after-1-2"}).to_array()
    segment = np.zeros(16, dtype=np.int64)
    assert segment_of(mixed, 3, 3, False, segment) == 4 and segment_of(mixed, 3, 3, True, segment) == 8


@pytest.mark.parametrize("rules, same_as", [
    ("european", "learned:any@tangent"),  # every double is eight dice, a double and its complement
    ("american", "learned:any@heuristic@rank=4"),  # four dice a double
    ("backgammon", "learned:backgammon@heuristic"),  # four dice, and no 1-2 to rank doubles after
])
def test_a_learned_player_ranks_by_the_tangent_only_beams_of_more_than_four_dice(rules, same_as):
    from acesim.engine.games import play_records

    ruleset = Ruleset.preset(rules)
    default = same_as.split("@")[0]
    records = play_records(ruleset, load_strategy(default), load_strategy("expert"), 31, 0, 12)
    assert np.array_equal(records, play_records(ruleset, load_strategy(same_as), load_strategy("expert"), 31, 0, 12))
    if rules != "backgammon":  # the default is not the other ranking
        other = "learned:any@heuristic" if rules == "european" else "learned:any@tangent"
        assert not np.array_equal(records, play_records(ruleset, load_strategy(other), load_strategy("expert"), 31, 0,
                                                        12))


@pytest.mark.parametrize("spec, fragment", [
    ("expert@rank=0", "ranking width must be an integer in 1..256, got 'expert@rank=0'"),
    ("expert@rank=x", "ranking width must be an integer"),
    ("learned:european@rank=257", "ranking width must be an integer"),
    ("expert@full@rank=2", "@full searches every play and takes no other search option"),
    ("expert@rank=2@rank=3", "search option 'rank' given twice"),
    ("expert@beam=2@beam=3", "search option 'beam' given twice"),
    ("expert@beam=2@", "unknown search option"),
    ("learned:european@deep", "use NAME@full, NAME@beam=K, NAME@rank=K, NAME@tangent"),
    ("learned:european@tangent@tangent", "search option 'tangent' given twice"),
    ("learned:european@full@tangent", "@full searches every play and takes no other search option"),
    ("learned:european@tangent=2", "unknown search option"),
    ("expert@tangent", "@tangent and @heuristic choose how a network's beam is ranked, and expert has no network"),
    ("expert@heuristic", "@tangent and @heuristic choose how a network's beam is ranked, and expert has no network"),
    ("learned:european@tangent@heuristic", "@tangent and @heuristic are two rankings of the beam; give one"),
    ("learned:european@heuristic@heuristic", "search option 'heuristic' given twice"),
])
def test_bad_search_options_are_one_line_errors(spec, fragment):
    with pytest.raises(AcesimError, match=re.escape(fragment)):
        load_strategy(spec)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[x]\nspeed = 1.0\n", "unknown feature 'speed'"),
        ("[x]\npip_lead = 'a lot'\n", "must be a number"),
        ("beam_width = 0\n[x]\npip_lead = 1\n", "beam_width must be an integer"),
        ("[random]\npip_lead = 1\n", "cannot name a strategy"),
        ("[x\npip_lead = 1\n", "malformed strategies file"),
        ("x = 3\n", "must be a table"),
    ],
)
def test_bad_weights_files_are_one_line_errors(tmp_path, text, fragment):
    path = tmp_path / "w.toml"
    path.write_text(text)
    with pytest.raises(AcesimError, match=fragment):
        load_strategy("x", path)


def test_a_weights_file_defines_new_strategies(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text('beam_width = 3\n[hitter]\ndescription = "hits"\nopp_bar = 2.0\n')
    s = load_strategy("hitter", path)
    assert s.width == 3 and s.weights[E.FEATURES.index("opp_bar")] == 2.0
    assert strategy_names(path) == ["random", "hitter"]
    with pytest.raises(AcesimError, match="cannot read strategies file"):
        load_strategy("x", tmp_path / "missing.toml")
    assert isinstance(Ruleset, type)


@pytest.mark.parametrize("name", ["european", "american", "navy"])
def test_choose_and_play_double_equals_choosing_then_playing(name):
    """The game's shortcut keeps the ranked double's play; it must equal choose_double + play_segment."""
    from acesim.kernels.choice import choose_and_play_double, play_segment

    rules = PRESETS[name]
    ra = rules.to_array()
    boards, _ = sample_positions(rules, 60, seed=17)
    out = np.zeros(3, dtype=np.int64)
    choices = np.array([1, 2, 3, 4], dtype=np.uint64)
    for spec in ("expert", "racer", "safe@beam=2", "blocker@full"):
        s = load_strategy(spec)
        weights = np.array(s.weights)
        for board in boards:
            ws, uniform, _, sc = worker_memory(max(s.width, s.choice_width))
            fast = board.copy()
            _, _, chosen, n, used = choose_and_play_double(
                fast, ra, s.kind, s.width, s.choice_width, weights, choices, ws, uniform, out, sc
            )
            slow = board.copy()
            ws, d = choose_double(slow, ra, s.kind, s.choice_width, weights, choices, ws, out, sc)
            _, _, n2, used2 = play_segment(slow, ra, d, d, True, s.kind, s.width, weights, choices, ws, uniform, out, sc)
            assert (chosen, n, used) == (d, n2, used2)
            assert np.array_equal(fast, slow)


@pytest.mark.parametrize("name", ["european", "backgammon"])
def test_the_game_loops_quick_segment_equals_play_segment(name):
    """quick_segment (no workspace, no runtime) plays every roll as play_segment does, or says why it cannot."""
    from acesim.kernels.choice import play_segment, quick_segment, search_arrays

    rules = PRESETS[name]
    ra = rules.to_array()
    boards, _ = sample_positions(rules, 25, seed=23)
    out = np.zeros(3, dtype=np.int64)
    found_both = set()
    for spec in ("expert", "safe@beam=1", "blocker@full"):
        s = load_strategy(spec)
        weights = np.array(s.weights)
        ws, uniform, _, sc = worker_memory(s.width)
        arrays = search_arrays(sc)
        for k, board in enumerate(boards):
            for a in range(1, 7):
                for b in range(a, 7):
                    choices = np.array([k, a, b, 7], dtype=np.uint64)
                    quick = board.copy()
                    n, used, found = quick_segment(quick, ra, a, b, s.width, weights, sc.segment, sc.play, *arrays)
                    found_both.add(found)
                    if not found:
                        assert np.array_equal(quick, board)
                        assert s.width == 0 or n > 2  # only doubles fall back
                        ws, used, _ = best_play(quick, ra, sc.segment, n, 0, ws, out, weights, sc, sc.play)
                        quick[:] = sc.play
                    slow = board.copy()
                    ws, uniform, n2, used2 = play_segment(slow, ra, a, b, False, s.kind, s.width, weights,
                                                          choices, ws, uniform, out, sc)
                    assert (n, used) == (n2, used2), (spec, a, b)
                    assert np.array_equal(quick, slow), (spec, a, b)
    assert found_both == {True, False}  # both paths were taken
