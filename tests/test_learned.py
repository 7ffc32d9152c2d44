"""The learned player: network against a NumPy reference, TD(lambda) training, model files, CLI."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from acesim.common.errors import AcesimError
from acesim.engine.games import play_games, play_records
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import learned_strategy, load_strategy, playing_row
from acesim.kernels import game_loop as K, net as N
from acesim.kernels.choice import LEARNED, new_scratch
from acesim.kernels.evaluate import FEATURES, features
from acesim.kernels.game_loop import TRACE_WIDTH
from acesim.kernels.layout import BAR, OFF, OPP_BAR, WAITING
from acesim.kernels.plays import new_workspace
from acesim.runs import training as L
from tests.helpers import interrupted_run
from tests.test_cli import assert_one_line_error, run

BACKGAMMON = Ruleset.preset("backgammon")
EUROPEAN = Ruleset.preset("european")
AMERICAN = Ruleset.preset("american")


# --- a NumPy reference of the encoding and the network --------------------------------


def reference_inputs(board: np.ndarray, view: int) -> np.ndarray:
    """The dense input vector of kernels.net's encoding, written from its docstring."""
    flipped = np.zeros_like(board)
    flipped[:24] = -board[23::-1]
    flipped[24], flipped[25] = board[25], board[24]
    flipped[26], flipped[27] = board[27], board[26]
    flipped[28], flipped[29] = board[29], board[28]
    own = [board, flipped] if view == 0 else [flipped, board]
    x = np.zeros(N.N_NET_INPUTS)
    for s, side in enumerate(own):
        base = s * N.SIDE_INPUTS
        side = side.astype(np.int64)
        for p in range(1, 25):
            c = max(int(side[p - 1]), 0)
            x[base + 4 * (p - 1) : base + 4 * p] = [c >= 1, c >= 2, c >= 3, max(c - 3, 0) / 2]
        bar, waiting, off = int(side[24]), int(side[26]), int(side[28])
        pips = sum(p * max(int(side[p - 1]), 0) for p in range(1, 25)) + 25 * (bar + waiting)
        x[base + 96 : base + 101] = [bar / 2, waiting > 0, waiting / 5, off / 15, pips / 100]
        f = np.zeros(len(FEATURES))
        features(side.astype(np.int8), f)
        x[base + 101 : base + 101 + len(FEATURES)] = f / N.FEATURE_SCALE
    return x


def reference_forward(model: np.ndarray, x: np.ndarray) -> np.ndarray:
    n_in, h1, h2, k = (int(model[i]) for i in (N.M_INPUTS, N.M_HIDDEN1, N.M_HIDDEN2, N.M_OUTPUTS))
    theta = model[N.HEADER :]
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    hard = lambda z: np.clip(z / 4 + 0.5, 0, 1)  # noqa: E731
    unit = hard if model[N.M_TAG] == N.HARD_NET_TAG else sig
    at = 0

    def take(shape):
        nonlocal at
        size = int(np.prod(shape))
        out = theta[at : at + size].reshape(shape)
        at += size
        return out

    w1, b1 = take((n_in, h1)), take((h1,))
    h = unit(x @ w1 + b1)
    if h2:
        w2, b2 = take((h1, h2)), take((h2,))
        h = unit(h @ w2 + b2)
    wo, bo = take((h.shape[0], k)), take((k,))
    assert at == len(theta)
    return sig(h @ wo + bo)


def game_boards(rules: Ruleset, games: int, seed: int) -> np.ndarray:
    """Every pre-roll position of a few random games (side on roll's view)."""
    from acesim.analyses.equity import trace_games

    traces = trace_games(rules, "random", "random", seed, 0, games)
    return traces.rolls[:, K.T_BOARD :].astype(np.int8)


@pytest.fixture(scope="module")
def boards():
    return np.concatenate([game_boards(EUROPEAN, 3, 1), game_boards(BACKGAMMON, 3, 2)])


@pytest.mark.parametrize("hidden,rules,activation", [((12, 0), EUROPEAN, "logistic"), ((10, 6), AMERICAN, "logistic"),
                                                      ((12, 0), EUROPEAN, "hard-sigmoid"),
                                                      ((10, 6), AMERICAN, "hard-sigmoid")])
def test_forward_pass_equals_numpy_reference(boards, hidden, rules, activation):
    model = L.new_model(rules, hidden, seed=7, activation=activation)
    model[N.HEADER :] = np.random.default_rng(3).normal(0, 0.5, len(model) - N.HEADER)
    ns = N.new_net_scratch()
    seen = set()
    for board in boards[::3]:
        for view in (0, 1):
            n = N.encode(board, view, ns)
            dense = np.zeros(N.N_NET_INPUTS)
            dense[ns.idx[:n]] = ns.val[:n]
            assert np.allclose(dense, reference_inputs(board, view))
            N.forward(model, n, ns)
            k = int(model[N.M_OUTPUTS])
            assert np.allclose(ns.y[:k], reference_forward(model, dense), rtol=1e-12, atol=1e-12)
            seen.update(np.unique(np.sign(ns.h1[:hidden[0]] * (1 - ns.h1[:hidden[0]]))).tolist())
    # hard sigmoids met both their flat parts (0 or 1) and their slope; logistic units only their slope
    assert seen == ({0.0, 1.0} if activation == "hard-sigmoid" else {1.0})


def reference_escapes(side: np.ndarray, p: int) -> int:
    """The rolls of 36 with which a checker on ``p`` moves the dice's sum: the point reached and one of
    the points the two dice reach first not the opponent's point (two checkers or more), points past
    the 12 ahead and past point 1 always open."""
    def free(d: int) -> bool:
        q = p - d
        return d > 12 or q < 1 or side[q - 1] > -2

    return sum(free(a + b) and (free(a) or free(b)) for a in range(1, 7) for b in range(1, 7))


def reference_context(side: np.ndarray) -> list[float]:
    """Encoding 2's units of one side (kernels.net's docstring), from that side's view."""
    side = side.astype(np.int64)
    mine = [p for p in range(1, 25) if side[p - 1] > 0]
    back = 25 if side[24] + side[26] > 0 else max(mine, default=0)
    theirs = [p for p in range(1, 25) if side[p - 1] < 0]
    front = 0 if side[25] + side[27] > 0 else min(theirs, default=25)
    if back <= front:
        return [back / 25, 0.0, 0.0, 0.0]
    fewest = min(reference_escapes(side, p) for p in range(15, 25))
    return [back / 25, 1.0, reference_escapes(side, back) / 36, (36 - fewest) / 36]


@pytest.mark.parametrize("hidden,rules,encoding,activation", [
    ((12, 0), EUROPEAN, 1, "logistic"), ((10, 6), AMERICAN, 1, "logistic"), ((9, 0), BACKGAMMON, 1, "logistic"),
    ((8, 0), AMERICAN, 2, "logistic"), ((12, 0), EUROPEAN, 1, "hard-sigmoid"), ((10, 6), AMERICAN, 1, "hard-sigmoid"),
    ((12, 0), EUROPEAN, 0, "logistic"), ((9, 0), BACKGAMMON, 0, "hard-sigmoid"), ((8, 0), BACKGAMMON, 3, "logistic"),
    ((8, 0), EUROPEAN, 3, "hard-sigmoid")])
def test_a_plays_equity_from_its_roots_sums_is_the_encoded_ones(hidden, rules, encoding, activation):
    """``play_equity`` (the root's first-layer sums plus the rows of the inputs a play changed) gives
    ``equity_of`` of the play's position to rounding, whatever the play changed: hits, entering,
    bearing off, both views, either output; with encoding 2 or 3, their units' changes too.  A play adds its
    rows in single precision (``net.first_layer32``), and a logistic network's first hidden layer is computed
    in single precision too: to their rounding, about 1e-7 of a sum."""
    from acesim.engine.sampling import sample_positions
    from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, segment_of

    model = L.new_model(rules, hidden, seed=5, encoding=encoding, activation=activation)
    model[N.HEADER :] = np.random.default_rng(11).normal(0, 0.5, len(model) - N.HEADER)
    if int(model[N.M_OUTPUTS]) > 1:
        model[N.M_OBJECTIVE] = N.OBJECTIVE_POINTS
    ra = rules.to_array()
    positions, dice = sample_positions(rules, 400, seed=9)
    ws, out, segment = new_workspace(), np.zeros(3, dtype=np.int64), np.zeros(8, dtype=np.int64)
    ns, fresh = N.new_net_scratch(), N.new_net_scratch()
    worst, plays, changed = 0.0, 0, set()
    row = playing_row(model)
    for board, (a, b) in zip(positions, dice):
        n = segment_of(ra, a, b, False, segment)
        while enumerate_plays(board, ra, segment, n, ws, out) == FULL:
            ws = grown_workspace(ws)
        for view in (0, 1):
            N.set_root(row, board, view, ns)
            for node in range(out[0], min(out[1], out[0] + 20)):
                play = ws.nodes[node]
                got = N.play_equity(row, play, view, ra, ns)
                want = N.equity_of(model, play, view, ra, fresh)
                worst = max(worst, abs(got - want))
                plays += 1
                changed.update(i for i in (BAR, OPP_BAR, WAITING, OFF) if play[i] != board[i])
                if encoding == 3 and N.hit_chances(play) != N.hit_chances(board):
                    changed.add("hits")
    # plays that enter from the bar, hit, bear off, and (but from backgammon's start) enter waiting checkers
    assert plays > 1000 and changed >= {BAR, OPP_BAR, OFF} | ({WAITING} if rules.start != "backgammon" else set())
    assert encoding != 3 or "hits" in changed
    assert 0 < worst < 1e-5 * max(model[N.M_POINTS_SCALE], 1.0)  # single precision, not the encoded network's double
    with pytest.raises(ValueError, match="playing row"):
        N.set_root(model, positions[0], 0, ns)
        N.play_equity(model, positions[1], 0, ra, ns)


@pytest.mark.parametrize("hidden,rules,encoding,activation,outputs", [
    ((12, 0), EUROPEAN, 1, "logistic", 2), ((10, 6), AMERICAN, 1, "hard-sigmoid", 2),
    ((9, 0), BACKGAMMON, 1, "logistic", N.SPLIT_POINTS), ((12, 0), EUROPEAN, 0, "logistic", 2),
    ((8, 0), AMERICAN, 3, "logistic", 2)])
def test_a_two_dice_play_is_the_one_every_play_scored_gives(hidden, rules, encoding, activation, outputs):
    """The learned two-dice search (depth first, each play valued from its two moves by
    ``net.two_move_equity``) chooses the play ``_net_exhaustive`` (every distinct play enumerated and
    valued from the whole board) chooses, with the same equity to the bit: for each view (a 1-2 or a
    chosen double rolls again), entering, hitting and bearing off; a roll with no play of both dice it
    hands back to ``_net_exhaustive``; encodings 2 and 3 keep the whole board's search."""
    from acesim.engine.sampling import sample_positions
    from acesim.kernels import choice as C
    from acesim.kernels.plays import segment_of

    model = L.new_model(rules, hidden, seed=5, encoding=encoding, activation=activation,
                        split_points=outputs == N.SPLIT_POINTS)
    model[N.HEADER :] = np.random.default_rng(12).normal(0, 0.5, len(model) - N.HEADER)
    if int(model[N.M_OUTPUTS]) > 1:
        model[N.M_OBJECTIVE] = N.OBJECTIVE_POINTS
    row = playing_row(model)
    ra = rules.to_array()
    positions, dice = sample_positions(rules, 1200, seed=13)
    ws, out, segment = new_workspace(), np.zeros(3, dtype=np.int64), np.zeros(8, dtype=np.int64)
    sc = new_scratch(4)
    got, want = np.zeros_like(positions[0]), np.zeros_like(positions[0])
    compared, changed, kinds = 0, set(), set()
    for board, (a, b) in zip(positions, dice):
        if a == b:
            continue
        n = segment_of(ra, a, b, False, segment)
        for again in (False, True):
            ws, used_all, score_all = C._net_exhaustive(board, ra, segment, n, again, ws, out, row, sc, want)
            ws, used, score = C.net_best_play(board, ra, segment, n, 4, again, ws, out, row, sc, got)
            assert (used, score) == (used_all, score_all) and np.array_equal(got, want), (board, a, b, again)
            if encoding <= 1:
                used, score = C._net_two_dice(board, ra, a, b, again, row, sc.net, sc.child, sc.parent, sc.moves,
                                              sc.moves_after, sc.pairs, got)
                if used_all == 2:
                    assert (used, score) == (used_all, score_all) and np.array_equal(got, want), (board, a, b, again)
                else:  # a play of one die or none: left to ``_net_exhaustive`` (checked above)
                    assert used == -1, (board, a, b, again)
                compared += 1
                kinds.add(used_all)
                changed.update(i for i in (BAR, OPP_BAR, WAITING, OFF) if got[i] != board[i])
    assert encoding > 1 or (compared > 1500 and kinds == {0, 1, 2}
                            and changed >= {BAR, OPP_BAR, OFF} | ({WAITING} if rules.start != "backgammon" else set()))


def test_the_escape_table_by_hand():
    assert N.ESCAPES[0] == 36 and N.ESCAPES[(1 << 12) - 1] == 0
    # the point 6 pips on blocked: the five rolls of sum 6, and 6-6, whose two dice both stop there
    assert N.ESCAPES[1 << 5] == 30
    # the points 1 and 2 pips on: 1-1 (its first stop), 1-2 and 2-1 (both first stops) and 2-2 (its
    # first stop, though its sum reaches the open point 4)
    assert N.ESCAPES[0b11] == 36 - 4


def engine_hits(board: np.ndarray, rules: Ruleset) -> tuple[int, int, bool]:
    """``net.hit_chances`` of ``board`` by the move generator: the rolls of 36 with a legal play of the
    opponent that hits a blot of ``board``'s mover, and the largest pips a hit of each costs; and whether
    some roll's only hits need a play the rules forbid (both dice must be played when they can be), which
    ``hit_chances`` leaves out."""
    from acesim.kernels.board import flip
    from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, segment_of

    ra, out, segment = rules.to_array(), np.zeros(3, dtype=np.int64), np.zeros(8, dtype=np.int64)
    ws = new_workspace()
    theirs = np.zeros_like(board)
    flip(board, theirs)  # the opponent moves; the mover's point p is its point 25 - p, at index 24 - p
    blots = [p for p in range(1, 25) if board[p - 1] == 1]
    rolls = lost = 0
    for a in range(1, 7):
        for b in range(a, 7):
            n = segment_of(ra, a, b, False, segment)
            while enumerate_plays(theirs, ra, segment, n, ws, out) == FULL:
                ws = grown_workspace(ws)
            worst = 0
            for node in range(out[0], out[1]):
                play = ws.nodes[node]
                if play[OPP_BAR] > theirs[OPP_BAR]:
                    worst = max([worst] + [25 - p for p in blots if play[24 - p] >= 0])
            rolls += (1 if a == b else 2) * (worst > 0)
            lost += (1 if a == b else 2) * worst
    return rolls, lost


@pytest.mark.parametrize("rules", [BACKGAMMON, EUROPEAN.with_overrides(
    {"doubles": "four", "doubles_extra_roll": False, "acey_deucey": "none", "acey_deucey_extra_roll": False,
     "hitting": "free", "bar_first": True})])
def test_the_chances_of_being_hit_by_the_move_generator(rules):
    """``hit_chances`` counts the rolls with which the opponent can hit, and the pips they cost, as the
    move generator's plays do (from the bar, from waiting, with one die, both, a double's steps, past
    blocked points or not), but where the only hits are plays that leave a die unplayed that could be
    played: never fewer rolls, and more in a few positions in a hundred."""
    from acesim.engine.sampling import sample_positions

    positions, _ = sample_positions(rules, 240, seed=13)
    same = more = 0
    for board in positions:
        got = N.hit_chances(board)
        want = engine_hits(board, rules)
        assert got[0] >= want[0], board
        if got == want:
            same += 1
        else:
            more += 1
    assert same >= 0.95 * len(positions) and same > 0
    hit = [N.hit_chances(b)[0] for b in positions]
    assert 0.2 < np.mean([h > 0 for h in hit]) < 1.0 and max(hit) > 11  # positions with and without shots


def test_a_start_network_gains_a_later_encoding(tmp_path):
    """``--encoding`` above a start network's adds the later encoding's inputs with rows of 0: the network
    plays as the start did, to the bit, and training then weighs the new inputs."""
    start, _ = L.train(BACKGAMMON, 16, 3, (5, 0), eval_every=0, eval_games=2)
    fresh = L.new_model(BACKGAMMON, (5, 0), 3, encoding=3)
    grown = L.reencoded(start, fresh)
    assert int(grown[N.M_ENCODING]) == 3 and len(grown) == len(fresh)
    from acesim.engine.sampling import sample_positions

    ra, ns = BACKGAMMON.to_array(), N.new_net_scratch()
    for board in sample_positions(BACKGAMMON, 50, seed=3)[0]:
        for view in (0, 1):
            assert N.equity_of(grown, board, view, ra, ns) == N.equity_of(start, board, view, ra, ns)
    path, out = tmp_path / "start.npz", tmp_path / "e3.npz"
    L.save_model(path, start, BACKGAMMON, {})
    result = run("train", "--rules", "backgammon", "--games", "16", "--start", str(path), "--encoding", "3",
                 "--eval-games", "2", "--workers", "1", "--no-progress", "--out", str(out))
    assert result.exit_code == 0, result.output
    trained = L.load_model(out).array
    rows = trained[N.HEADER : N.HEADER + N.n_inputs(3) * 5].reshape(-1, 5)
    assert int(trained[N.M_ENCODING]) == 3 and rows[N.n_inputs(2) :].any()
    assert_one_line_error(run("train", "--rules", "backgammon", "--games", "16", "--start", str(out), "--encoding",
                              "2", "--no-progress", "--out", str(tmp_path / "y.npz")),
                          "reads positions by encoding 3; drop --encoding 2")
    # a network of encoding 0 is the kind without features, and stays one
    zero, _ = L.train(BACKGAMMON, 16, 3, (5, 0), eval_every=0, eval_games=2, encoding=0)
    assert L.reencoded(zero, fresh) is zero
    L.save_model(path, zero, BACKGAMMON, {})
    assert_one_line_error(run("train", "--rules", "backgammon", "--games", "16", "--start", str(path), "--encoding",
                              "3", "--no-progress", "--out", str(tmp_path / "z.npz")),
                          "reads positions by encoding 0; drop --encoding 3")
    assert not (tmp_path / "y.npz").exists() and not (tmp_path / "z.npz").exists()


@pytest.mark.parametrize("hidden,encoding", [((12, 0), 2), ((6, 5), 2), ((7, 0), 3)])
def test_encodings_two_and_three_equal_their_reference(boards, hidden, encoding):
    """Encoding 2: encoding 1's units, then each side's context units, and the forward pass on them;
    encoding 3: those, then each side's chances of being hit (``hit_chances``)."""
    model = L.new_model(AMERICAN, hidden, seed=4, encoding=encoding)
    assert int(model[N.M_INPUTS]) == N.N_NET_INPUTS + 2 * N.CONTEXT_INPUTS + (2 * N.HIT_INPUTS if encoding == 3 else 0)
    model[N.HEADER :] = np.random.default_rng(8).normal(0, 0.5, len(model) - N.HEADER)
    one = L.new_model(AMERICAN, hidden, seed=4)
    ns = N.new_net_scratch()
    flipped = np.zeros_like(boards[0])
    from acesim.kernels.board import flip

    contact = 0
    for board in boards[::2]:
        flip(board, flipped)
        for view in (0, 1):
            n = N.encode_for(model, board, view, ns)
            dense = np.zeros(N.n_inputs(encoding))
            dense[ns.idx[:n]] = ns.val[:n]
            own = (board, flipped) if view == 0 else (flipped, board)
            expected = [reference_inputs(board, view), reference_context(own[0]), reference_context(own[1])]
            if encoding == 3:
                for side in own:
                    rolls, lost = N.hit_chances(side)
                    expected.append([rolls / 36, lost / 36 / N.PIP_LOSS_SCALE])
            expected = np.concatenate(expected)
            assert np.allclose(dense, expected), (board, view)
            contact += dense[N.N_NET_INPUTS + N.C_CONTACT] > 0
            N.forward(model, n, ns)
            k = int(model[N.M_OUTPUTS])
            assert np.allclose(ns.y[:k], reference_forward(model, dense), rtol=1e-12, atol=1e-12)
            # a network of encoding 1 reads encoding 1's units only
            m = N.encode_for(one, board, view, ns)
            assert m == N.encode(board, view, ns) and m == np.count_nonzero(expected[: N.N_NET_INPUTS])
    assert 0 < contact < 2 * len(boards[::2])  # both kinds of position were checked


def test_encoding_zero_is_encoding_one_but_the_features(boards):
    """Encoding 0: encoding 1's units of the board, no feature unit, and a network whose feature rows are
    zero and stay zero in training (their inputs are never set)."""
    one = L.new_model(BACKGAMMON, (6, 0), seed=4)
    zero = L.new_model(BACKGAMMON, (6, 0), seed=4, encoding=0)
    assert int(zero[N.M_INPUTS]) == N.n_inputs(0) == N.N_NET_INPUTS
    features = np.zeros(N.N_NET_INPUTS, dtype=bool)
    for side in range(2):
        features[side * N.SIDE_INPUTS + N.U_FEATURES : side * N.SIDE_INPUTS + N.U_FEATURES + N.N_FEATURES] = True
    assert features.sum() == 2 * N.N_FEATURES and features[N.FEATURE_UNITS].all()
    ns = N.new_net_scratch()
    for board in boards[::3]:
        for view in (0, 1):
            n = N.encode_for(zero, board, view, ns)
            got = dict(zip(ns.idx[:n].tolist(), ns.val[:n].tolist()))
            expected = reference_inputs(board, view)
            assert got == {i: v for i, v in enumerate(expected) if v != 0 and not features[i]}
            assert N.encode_for(one, board, view, ns) > n  # encoding 1 reads some feature of every position
    rows = lambda m: m[N.HEADER : N.HEADER + N.N_NET_INPUTS * 6].reshape(N.N_NET_INPUTS, 6)
    assert not rows(zero)[features].any() and rows(zero)[~features].all()
    assert np.array_equal(rows(zero)[~features], rows(one)[~features])  # the same draws otherwise
    trained, _ = L.train(BACKGAMMON, 32, 3, (6, 0), eval_every=0, eval_games=2, encoding=0)
    assert not rows(trained)[features].any() and not np.array_equal(rows(trained), rows(zero))


def test_an_encoding_zero_model_that_weighs_features_is_refused(tmp_path):
    """A network of encoding 0 never sets its feature units; a file that weighs them anyway (made by hand:
    training keeps them zero) is one line, since the doubles' tangent would read those weights."""
    array, _ = L.train(BACKGAMMON, 16, 3, (4, 0), eval_every=0, eval_games=2, encoding=0)
    good, bad = tmp_path / "good.npz", tmp_path / "bad.npz"
    L.save_model(good, array, BACKGAMMON, {})
    assert int(L.load_model(good).array[N.M_ENCODING]) == 0
    array[N.HEADER + N.FEATURE_UNITS[5] * 4 + 2] = 0.25
    L.save_model(bad, array, BACKGAMMON, {})
    with pytest.raises(AcesimError, match="reads positions by encoding 0 but weighs the features it does not read"):
        L.load_model(bad)


def test_the_encoding_is_chosen_and_kept(tmp_path):
    with pytest.raises(AcesimError, match="the encoding must be one of 0, 1, 2, 3, got 4"):
        L.new_model(BACKGAMMON, (4, 0), 1, encoding=4)
    array, _ = L.train(BACKGAMMON, 16, 3, (4, 0), eval_every=0, eval_games=2, encoding=2)
    path = tmp_path / "e2.npz"
    L.save_model(path, array, BACKGAMMON, {})
    model = L.load_model(path)
    assert int(model.array[N.M_ENCODING]) == 2 and model.meta["encoding"] == 2
    # a start network keeps its encoding: 16 games at the smallest step leave it of the same shape
    again, _ = L.train(BACKGAMMON, 16, 4, (4, 0), eval_every=0, eval_games=2, start=model.array)
    assert np.array_equal(again[: N.HEADER], array[: N.HEADER])
    with pytest.raises(AcesimError, match="reads positions by encoding 2; the run asks for encoding 1"):
        L.train(BACKGAMMON, 16, 4, (4, 0), eval_every=0, eval_games=2, start=model.array, encoding=1)


def test_train_encoding_on_the_command_line(tmp_path):
    out = tmp_path / "m.npz"
    result = run("train", "--rules", "backgammon", "--games", "16", "--hidden", "4", "--encoding", "2",
                 "--eval-games", "2", "--workers", "1", "--no-progress", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert int(L.load_model(out).array[N.M_INPUTS]) == N.n_inputs(2)
    assert_one_line_error(run("train", "--rules", "backgammon", "--games", "16", "--encoding", "4", "--no-progress",
                              "--out", str(tmp_path / "x.npz")), "the encoding must be one of 0, 1, 2, 3, got 4")
    assert_one_line_error(run("train", "--rules", "backgammon", "--games", "16", "--start", str(out), "--encoding",
                              "1", "--no-progress", "--out", str(tmp_path / "y.npz")),
                          "reads positions by encoding 2; drop --encoding 1")
    assert not (tmp_path / "x.npz").exists() and not (tmp_path / "y.npz").exists()


def test_the_layers_logistic_function_is_the_librarys_to_rounding():
    """``net._sigmoids`` computes exp itself, so that LLVM vectorizes the layer; it must stay the logistic
    function: within 2.3e-16 of NumPy's everywhere, and a few units in the last place where the value is tiny."""
    z = np.concatenate([np.linspace(-708, 750, 600_001), np.random.default_rng(7).normal(0, 6, 200_000),
                        [0.0, -0.0, 1e-300, -1e-300, 36.7, 40.0]])
    with np.errstate(over="ignore"):
        want = 1.0 / (1.0 + np.exp(-z))
    ns = N.new_net_scratch()
    got = np.empty_like(z)
    for start in range(0, len(z), N.MAX_HIDDEN):
        h = z[start : start + N.MAX_HIDDEN].copy()
        N._sigmoids(h, len(h), ns)
        got[start : start + len(h)] = h
    assert np.abs(got - want).max() <= 2.3e-16
    assert (np.abs(got - want) / np.spacing(want)).max() <= 4
    assert (got == want).mean() > 0.9
    far = np.linspace(-1000.0, -708.0, 400)  # exp(-z) overflows: the value is 0 to the last place
    N._sigmoids(far, len(far), ns)
    assert far.max() < 1e-307 and far.min() >= 0.0

def test_a_plays_logistic_function_is_the_librarys_to_single_precision():
    """``net._sigmoids32``, the plays' logistic function in single precision, is the logistic function of its
    single-precision input: within four units in a float's last place wherever the value is a normal float,
    within one float's spacing at 1 everywhere, at most the smallest normal float below those, and NaN for NaN."""
    z32 = np.concatenate([np.linspace(-100, 100, 400_001), np.random.default_rng(7).normal(0, 6, 200_000),
                          [0.0, -0.0, 1e-30, 87.0, -86.0, 90.0, -200.0, 200.0, np.nan]]).astype(np.float32)
    with np.errstate(over="ignore"):
        want = 1.0 / (1.0 + np.exp(-z32.astype(np.float64)))
    ns = N.new_net_scratch()
    got = np.empty(len(z32))
    for start in range(0, len(z32), N.MAX_HIDDEN):
        h32 = z32[start : start + N.MAX_HIDDEN].copy()
        h = np.empty(len(h32))
        N._sigmoids32(h32, h, len(h32), ns)
        got[start : start + len(h)] = h
    normal = want >= np.finfo(np.float32).tiny
    assert np.isnan(got[-1]) and not np.isnan(got[:-1]).any()
    assert (np.abs(got - want)[normal] / np.spacing(want[normal].astype(np.float32))).max() <= 4
    assert np.abs(got - want)[~np.isnan(want)].max() <= np.spacing(np.float32(1.0))
    assert (got[~normal & ~np.isnan(want)] <= np.finfo(np.float32).tiny).all()  # below the normal floats: 0 or nearly


def test_encoding_of_the_other_view_is_the_flipped_board(boards):
    from acesim.kernels.board import flip

    ns = N.new_net_scratch()
    flipped = np.zeros_like(boards[0])
    for board in boards[::5]:
        flip(board, flipped)
        a = N.encode(board, 1, ns)
        first = dict(zip(ns.idx[:a].tolist(), ns.val[:a].tolist()))
        b = N.encode(flipped, 0, ns)
        assert first == dict(zip(ns.idx[:b].tolist(), ns.val[:b].tolist()))


@pytest.mark.parametrize("cross_entropy", [False, True])
@pytest.mark.parametrize("hidden,activation", [((6, 0), "logistic"), ((5, 4), "logistic"), ((6, 0), "hard-sigmoid"),
                                               ((5, 4), "hard-sigmoid")])
def test_sgd_step_follows_the_gradient(boards, hidden, activation, cross_entropy):
    """One step equals alpha * sum_k (t_k - y_k) * dy_k/dtheta, the squared error's descent, or with
    ``cross_entropy`` alpha * sum_k (t_k - y_k) / (y_k (1 - y_k)) * dy_k/dtheta, the cross-entropy's, by
    central differences (a hard-sigmoid unit's sum is never within the differences' 1e-6 of a kink of it
    here)."""
    model = L.new_model(AMERICAN, hidden, seed=2, activation=activation)
    model[N.HEADER :] = np.random.default_rng(5).normal(0, 0.4, len(model) - N.HEADER)
    board = boards[7]
    x = reference_inputs(board, 0)
    target = np.array([0.9, 0.2])
    y = reference_forward(model, x)
    alpha = 1e-3
    ns = N.new_net_scratch()
    stepped = model.copy()
    n = N.encode(board, 0, ns)
    N.forward(stepped, n, ns)
    N.sgd_step(stepped, n, ns, target, alpha, np.bool_(cross_entropy))
    rng = np.random.default_rng(9)
    touched = np.flatnonzero(stepped != model)
    checked = np.concatenate([rng.choice(touched, 40, replace=False),
                              rng.choice(np.arange(N.HEADER, len(model)), 40, replace=False)])
    for i in checked:
        e = np.zeros(len(model))
        e[i] = 1e-6
        dy = (reference_forward(model + e, x) - reference_forward(model - e, x)) / 2e-6
        error = (target - y) / (y * (1 - y)) if cross_entropy else target - y
        expected = alpha * float((error * dy).sum())
        assert stepped[i] - model[i] == pytest.approx(expected, rel=1e-4, abs=1e-12)


# --- playing -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A small network trained briefly under backgammon rules, written as a model file."""
    array, report = L.train(BACKGAMMON, 300, seed=4, hidden=(16, 0), eval_every=0)
    path = tmp_path_factory.mktemp("models") / "tiny.npz"
    L.save_model(path, array, BACKGAMMON, {"training": {"games": report.games}})
    return path


def test_learned_strategy_plays_legal_reproducible_games(tiny_model):
    spec = f"learned:{tiny_model}"
    first = play_games(BACKGAMMON, 40, 11, spec, "expert")
    again = play_games(BACKGAMMON, 40, 11, spec, "expert")
    assert first.equals(again)
    assert (first["unfinished"] == 0).all()
    assert (first["borne_off_a"].where(first["winner"] == 0, 15) == 15).all()
    beam = play_games(BACKGAMMON, 40, 11, f"{spec}@beam=1", "expert")
    full = play_games(BACKGAMMON, 40, 11, f"{spec}@full", "expert")
    assert len(beam) == len(full) == 40


@pytest.mark.parametrize("name", ["european", "backgammon"])
@pytest.mark.parametrize("width", [1, 4, 0])
def test_learned_search_ends_on_a_legal_play(tiny_model, name, width):
    """Every play the learned search returns is a legal play using the maximal number of dice,
    and the exhaustive search (width 0) values its play at least as high as any beam."""
    from acesim.engine.rules import PRESETS
    from acesim.engine.sampling import sample_positions
    from acesim.kernels.choice import net_best_play
    from acesim.kernels.plays import FULL, enumerate_plays, grown_workspace, segment_of

    rules = PRESETS[name]
    ra = rules.to_array()
    model = playing_row(L.load_model(tiny_model).array)  # the kernels read the ranker after the network
    boards, dice = sample_positions(rules, 40, seed=4)
    ws, out, sc = new_workspace(), np.zeros(3, dtype=np.int64), new_scratch(max(width, 1))
    segment = np.zeros(8, dtype=np.int64)
    result, full = np.zeros(32, dtype=np.int8), np.zeros(32, dtype=np.int8)
    for board, (a, b) in zip(boards, dice):
        for d1, d2 in ((a, b), (a, a), (7 - a, 7 - a)):
            n = segment_of(ra, d1, d2, False, segment)
            ref = new_workspace()
            while enumerate_plays(board, ra, segment, n, ref, out) == FULL:
                ref = grown_workspace(ref)
            legal = {ref.nodes[i].tobytes() for i in range(out[0], out[1])}
            used = int(out[2])
            ws, got_used, score = net_best_play(board, ra, segment, n, width, False, ws, out, model, sc, result)
            assert result.tobytes() in legal and got_used == used
            ws, _, best = net_best_play(board, ra, segment, n, 0, False, ws, out, model, sc, full)
            assert best >= score - 1e-12


def test_learned_strategy_refuses_other_rules(tiny_model):
    with pytest.raises(AcesimError, match="trained under rules 'backgammon'"):
        play_games(EUROPEAN, 2, 1, f"learned:{tiny_model}", "expert")


def test_a_bare_network_is_refused_not_read_past(tiny_model):
    """The doubles' beam ranks by the heuristic stored after the network (``strategies.playing_row``);
    handed the network alone, the kernels stop with one line instead of reading past its end."""
    from acesim.kernels.choice import net_best_play, segment_of

    rules = EUROPEAN.to_array()
    bare = L.load_model(tiny_model).array
    board = game_boards(EUROPEAN, 1, 5)[10]
    ws, out, sc = new_workspace(), np.zeros(3, dtype=np.int64), new_scratch(4)
    segment, result = np.zeros(8, dtype=np.int64), np.zeros(32, dtype=np.int8)
    n = segment_of(rules, 3, 3, False, segment)
    with pytest.raises(ValueError, match="lacks the ranker's weights"):
        net_best_play(board, rules, segment, n, 4, False, ws, out, bare, sc, result)
    net_best_play(board, rules, segment, n, 4, False, ws, out, playing_row(bare), sc, result)


def test_choose_double_uses_the_network(tiny_model):
    """After a 1-2 the learned player picks the double whose best play the network values most."""
    from acesim.kernels.choice import choose_double, net_best_play, segment_of

    rules = EUROPEAN.to_array()
    # any network ranks, the rules only change its values; the kernels read the ranker after it
    model = playing_row(L.load_model(tiny_model).array)
    boards = game_boards(EUROPEAN, 2, 5)
    ws, out, sc = new_workspace(), np.zeros(3, dtype=np.int64), new_scratch(4)
    choices = np.array([1, 2, 3, 4], dtype=np.uint64)
    segment = np.zeros(8, dtype=np.int64)
    result = np.zeros(32, dtype=np.int8)
    for board in boards[::4]:
        ws, d = choose_double(board, rules, LEARNED, 4, model, choices, ws, out, sc)
        scores = []
        for face in range(1, 7):
            n = segment_of(rules, face, face, True, segment)
            ws, _, s = net_best_play(board, rules, segment, n, 4, True, ws, out, model, sc, result)
            scores.append(s)
        # exactly: doubles that tie reach one position, which the one compiled network values
        # alike wherever it is called (the "rounding" once blamed here was a bare network's
        # ranker read past its end; docs/performance-log.md, 2026-12-04)
        assert scores[d - 1] == max(scores)


# --- training ------------------------------------------------------------------------------


def test_training_is_reproducible_whatever_the_number_of_workers():
    a, _ = L.train(BACKGAMMON, 40, seed=8, hidden=(8, 0))
    b, report = L.train(BACKGAMMON, 40, seed=8, hidden=(8, 0), workers=2, eval_every=20, eval_games=10)
    c, _ = L.train(BACKGAMMON, 40, seed=9, hidden=(8, 0))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert [e["after_games"] for e in report.evaluations] == [32, 40]  # after the batch that passes 20


def test_a_run_of_one_rule_set_checkpoints_and_resumes_to_the_uninterrupted_run(tmp_path):
    """A run of one rule set is written to its checkpoint as a model of that rule set (format 1) with its
    state; stopped and resumed, it ends on the uninterrupted run's bits, and without halving it is
    ``train``'s network."""
    settings = L.RunSettings.of_rules(BACKGAMMON, 96, 5, hidden=(8, 0), checkpoint_every=32, alpha_halving=32,
                                      alpha=0.2)
    whole = L.train_run(L.start_run(settings), tmp_path / "whole.npz")
    saved = L.load_model(tmp_path / "whole.npz")
    assert not saved.reads_rules and saved.rules_name == "backgammon" and np.array_equal(saved.array, whole.array)
    assert saved.meta["training"]["alpha_halving"] == 32 and saved.meta["training_state"]["games_done"] == 96
    constant = L.train_run(L.start_run(dataclasses.replace(settings, alpha_halving=0, checkpoint_every=0)))
    assert not np.array_equal(whole.array, constant.array)  # the halving is what differs
    assert np.array_equal(constant.array, L.train(BACKGAMMON, 96, 5, (8, 0), alpha=0.2)[0])

    resumed = interrupted_run(settings, tmp_path / "part.npz", 48)
    assert resumed.done == 32 and resumed.knob_weights is None and not resumed.settings.reads_rules
    L.train_run(resumed, tmp_path / "part.npz", workers=2)
    assert np.array_equal(whole.array, resumed.array) and np.array_equal(whole.totals, resumed.totals)


def test_train_command_checkpoints_and_resumes_a_run_of_one_rule_set(tiny_model, tmp_path):
    ckpt, out, whole = tmp_path / "c.npz", tmp_path / "m.npz", tmp_path / "w.npz"
    common = ["--rules", "backgammon", "--start", str(tiny_model), "--alpha", "0.05", "--alpha-halving", "32",
              "--seed", "2", "--eval-every", "32", "--eval-games", "10", "--no-progress", "--workers", "1"]
    first = run("train", "--games", "32", "--checkpoint", str(ckpt), "--checkpoint-every", "16", "--out", str(out),
                *common)
    assert first.exit_code == 0, first.output
    assert "after 32 games: " in first.output and "against expert" in first.output
    more = run("train", "--resume", str(ckpt), "--games", "64", "--out", str(out), "--force", "--no-progress",
               "--workers", "1")
    assert more.exit_code == 0, more.output
    straight = run("train", "--games", "64", "--out", str(whole), *common)
    assert straight.exit_code == 0, straight.output
    a, b = L.load_model(out), L.load_model(whole)
    assert np.array_equal(a.array, b.array) and a.rules_name == "backgammon" and not a.reads_rules
    assert [e["after_games"] for e in a.meta["evaluations"]] == [32, 64] == [e["after_games"] for e in b.meta["evaluations"]]
    assert a.meta["training"]["start_sha256"] == L.load_model(tiny_model).sha256
    # a finished run goes on from its own model file
    longer = run("train", "--resume", str(whole), "--games", "80", "--out", str(tmp_path / "l.npz"),
                 "--no-progress", "--workers", "1")
    assert longer.exit_code == 0, longer.output
    assert L.load_model(tmp_path / "l.npz").meta["training"]["games"] == 80
    assert_one_line_error(run("train", "--resume", str(ckpt), "--alpha", "0.1", "--out", str(tmp_path / "x.npz")),
                          "drop --alpha")
    assert_one_line_error(run("train", "--resume", str(tiny_model), "--out", str(tmp_path / "x.npz")),
                          "is not a checkpoint of a training run")
    assert not (tmp_path / "x.npz").exists()


def test_short_training_improves_against_random():
    """A few hundred games of self-play beat the untrained network against random.

    Each win rate over n games has sd at most 0.5/sqrt(n); the trained one must
    be higher by more than four sd of the difference (a chance failure is below 1e-4).
    """
    untrained = L.new_model(BACKGAMMON, (16, 0), seed=6)
    trained, report = L.train(BACKGAMMON, 600, seed=6, hidden=(16, 0))
    assert report.games == 600 and report.states > 600 * 20
    n = 1200
    rates = []
    for array in (untrained, trained):
        me = learned_strategy(array, BACKGAMMON, "learned", 4)
        rec = play_records(BACKGAMMON, me, load_strategy("random"), 21, 0, n)
        rates.append(float((rec[:, K.WINNER] == 0).mean()))
    sd = math.sqrt(2) * 0.5 / math.sqrt(n)
    assert rates[1] - rates[0] > 4 * sd, rates


def test_td_lambda_returns():
    """The lambda-returns td_update aims at, from seat A's view, and the direction of a single step."""
    from acesim.kernels.train import td_update

    model = L.new_model(AMERICAN, (4, 0), seed=1)
    rules_array = AMERICAN.to_array()
    boards = game_boards(BACKGAMMON, 1, 3)[:3]
    trace = np.zeros((3, TRACE_WIDTH), dtype=np.int64)
    trace[:, K.T_BOARD :] = boards
    trace[:, K.T_SIDE] = [0, 1, 0]
    p = np.zeros(3)
    N.win_probabilities(model, boards, p)
    seat_a = np.where(trace[:, K.T_SIDE] == 0, p, 1 - p)
    scale = model[N.M_POINTS_SCALE]
    for lam in (0.0, 0.6, 1.0):
        values, targets = np.zeros((3, 2)), np.zeros((3, 2))
        td_update(model.copy(), rules_array, trace, 3, 1, 6, lam, 0.1, new_scratch(1), values, targets, np.bool_(False))
        assert np.allclose(values[:, 0], seat_a)
        # seat B won 6 points: R = 0 for winning, (-6/scale + 1)/2 for points, from A's view
        returns = [0.0, (1 - 6 / scale) / 2]
        for k in (0, 1):
            g = np.zeros(3)
            g[2] = returns[k]
            for t in (1, 0):
                g[t] = (1 - lam) * values[t + 1, k] + lam * g[t + 1]
            assert np.allclose(targets[:, k], g)
    # one state: its own side's value moves towards the result
    for side, winner, up in ((0, 0, True), (1, 0, False), (1, 1, True)):
        one = trace[:1].copy()
        one[0, K.T_SIDE] = side
        stepped = model.copy()
        td_update(stepped, rules_array, one, 1, winner, 1, 0.7, 0.5, new_scratch(1), np.zeros((1, 2)), np.zeros((1, 2)),
                  np.bool_(False))
        before, after = np.zeros(1), np.zeros(1)
        N.win_probabilities(model, boards[:1], before)
        N.win_probabilities(stepped, boards[:1], after)
        assert (after[0] > before[0]) == up


def test_td_lambda_returns_of_split_points():
    """A network with its points beyond 1 split: seat A's view swaps those won and those lost where seat B
    is on roll, and each is held to what its side can still score beyond 1 (``net.points_range``)."""
    from acesim.kernels.train import td_update

    model = L.new_model(AMERICAN, (4, 0), seed=1, split_points=True)
    model[N.HEADER :] = np.random.default_rng(2).normal(0, 0.5, len(model) - N.HEADER)
    assert int(model[N.M_OUTPUTS]) == N.SPLIT_POINTS
    rules_array = AMERICAN.to_array()
    boards = game_boards(AMERICAN, 1, 3)[[0, 1, -1]]
    boards[1, OFF] = 14  # a side with 14 checkers off can lose at most 1 point beyond 1 (one checker left)
    trace = np.zeros((3, TRACE_WIDTH), dtype=np.int64)
    trace[:, K.T_BOARD :] = boards
    trace[:, K.T_SIDE] = [0, 1, 0]
    scale = model[N.M_POINTS_SCALE]
    ns = N.new_net_scratch()
    expected = np.zeros((3, 3))
    for t, board in enumerate(boards):
        N.outputs(model, board, 0, ns)
        win, loss = N.points_range(board, 0, rules_array)
        y = [ns.y[0], min(ns.y[1], (win - 1) / (scale - 1)), min(ns.y[2], (loss - 1) / (scale - 1))]
        expected[t] = y if trace[t, K.T_SIDE] == 0 else [1 - y[0], y[2], y[1]]
    assert expected[1, 1] == 0.0  # seat A's points beyond 1 won where B, on roll, can lose no more than 1
    for lam in (0.0, 0.6, 1.0):
        values, targets = np.zeros((3, N.MAX_OUTPUTS)), np.zeros((3, N.MAX_OUTPUTS))
        td_update(model.copy(), rules_array, trace, 3, 1, 6, lam, 0.1, new_scratch(1), values, targets, np.bool_(False))
        assert np.allclose(values, expected)
        # seat B won 6 points: A did not win, won nothing beyond 1, and lost 5 beyond 1
        returns = [0.0, 0.0, 5 / (scale - 1)]
        for k in range(3):
            g = np.zeros(3)
            g[2] = returns[k]
            for t in (1, 0):
                g[t] = (1 - lam) * values[t + 1, k] + lam * g[t + 1]
            assert np.allclose(targets[:, k], g)


def test_a_start_networks_points_are_split(tmp_path):
    """``--split-points`` on a start network of one points output keeps its win output and hidden units to
    the bit and starts the points beyond 1 from ``SPLIT_BIAS``; a split start stays split."""
    start, _ = L.train(BACKGAMMON, 16, 3, (5, 0), eval_every=0, eval_games=2)
    fresh = L.new_model(BACKGAMMON, (5, 0), 3, split_points=True)
    split = L.split(start, fresh)
    assert int(split[N.M_OUTPUTS]) == N.SPLIT_POINTS and len(split) == len(fresh)
    assert L.split(split, fresh) is split and L.split(start, L.new_model(BACKGAMMON, (5, 0), 3)) is start
    from acesim.engine.sampling import sample_positions

    ns, beyond = N.new_net_scratch(), 1 / (1 + math.exp(-L.SPLIT_BIAS))
    for board in sample_positions(BACKGAMMON, 30, seed=4)[0]:
        N.outputs(start, board, 0, ns)
        won = ns.y[0]
        N.outputs(split, board, 0, ns)
        assert ns.y[0] == won and ns.y[1] == ns.y[2] == pytest.approx(beyond, rel=1e-15)
        assert N.raw_points(split, ns.y) == pytest.approx(2 * won - 1, abs=1e-15)
    path, out = tmp_path / "start.npz", tmp_path / "split.npz"
    L.save_model(path, start, BACKGAMMON, {})
    common = ("--rules", "backgammon", "--games", "16", "--eval-games", "2", "--workers", "1", "--no-progress")
    result = run("train", *common, "--start", str(path), "--split-points", "--out", str(out))
    assert result.exit_code == 0, result.output
    model = L.load_model(out)
    assert int(model.array[N.M_OUTPUTS]) == N.SPLIT_POINTS and model.meta["training"]["split_points"] is True
    assert model.array[-2:].tolist() != [L.SPLIT_BIAS] * 2  # trained
    again = tmp_path / "again.npz"
    assert run("train", *common, "--start", str(out), "--out", str(again)).exit_code == 0
    assert int(L.load_model(again).array[N.M_OUTPUTS]) == N.SPLIT_POINTS
    # and the split network plays
    player = load_strategy(f"learned:{again}")
    assert (play_records(BACKGAMMON, player, player, 1, 0, 4)[:, K.UNFINISHED] == 0).all()
    settings = L.RunSettings.of_rules(BACKGAMMON, 16, 3, split_points=True)
    assert L.RunSettings.from_json(settings.to_json()) == settings


def test_split_points_bad_input(tmp_path):
    out = tmp_path / "m.npz"
    assert_one_line_error(run("train", "--rules", "backgammon", "--rule", "scoring=single", "--split-points", "--games",
                              "16", "--no-progress", "--out", str(out)),
                          "score every game 1 point: there are no points beyond 1")
    assert not out.exists()


def test_a_network_that_reads_the_rules_splits_its_points(tmp_path):
    """A rule-reading network's points beyond 1 apart: folded under rules that score 1 a game they add
    nothing (the scale is 1), under American rules they are the points beyond 1 of 15; its file loads."""
    from acesim.engine import rule_inputs as RI

    array, knobs = L.new_rule_model((6, 0), 3, split_points=True)
    array[N.HEADER :] = np.random.default_rng(8).normal(0, 0.5, len(array) - N.HEADER)
    assert int(array[N.M_OUTPUTS]) == N.SPLIT_POINTS
    ns, board = N.new_net_scratch(), game_boards(AMERICAN, 1, 2)[9]
    for rules, scale in ((EUROPEAN, 1.0), (AMERICAN, 15.0)):
        folded = RI.fold(array, knobs, rules)
        N.outputs(folded, board, 0, ns)
        y = ns.y[:3].copy()
        assert folded[N.M_POINTS_SCALE] == scale and 0 < y[1] < 1 and 0 < y[2] < 1
        assert N.raw_points(folded, y) == pytest.approx(2 * y[0] - 1 + (scale - 1) * (y[1] - y[2]), abs=1e-15)
    path = tmp_path / "any-split.npz"
    L.save_rule_model(path, array, knobs, {})
    assert int(L.load_model(path).array[N.M_OUTPUTS]) == N.SPLIT_POINTS
    from acesim.engine.rules import PRESETS

    settings = L.RunSettings(tuple(PRESETS.values()), 0.5, 16, 3, split_points=True)
    assert L.RunSettings.from_json(settings.to_json()) == settings and settings.fresh()[0][N.M_OUTPUTS] == 3


# --- model files -------------------------------------------------------------------------


def test_model_file_round_trip(tiny_model):
    model = L.load_model(tiny_model)
    assert model.rules_name == "backgammon" and model.hidden == (16, 0) and model.has_points
    # a model records the knobs of checker play; the cube's are left out of its check
    assert dict(model.knobs) == BACKGAMMON.checker_knobs()
    s = load_strategy(f"learned:{tiny_model}@beam=2")
    assert s.kind == LEARNED and s.width == 2 and s.model_sha256 == model.sha256


def _rewrite(src, dst, change):
    with np.load(src) as data:
        model, meta = data["model"].copy(), json.loads(str(data["meta"]))
    model, meta = change(model, meta)
    np.savez(dst, model=model, meta=np.array(json.dumps(meta)))


@pytest.mark.parametrize(
    "change,fragment",
    [
        (lambda m, d: (m[:-3], d), "numbers; its layer sizes need"),
        (lambda m, d: (np.where(np.arange(len(m)) == 40, np.nan, m), d), "not finite"),
        (lambda m, d: (np.concatenate([m[:1], [99.0], m[2:]]), d), "encodes positions with 99 inputs"),
        (lambda m, d: (m, {**d, "format": 7}), "format 7"),
        (lambda m, d: (m, {**d, "rules_version": 0}), "rules version 0"),
        (lambda m, d: (m, {**d, "rules": {"name": "x"}}), "every rule knob"),
        (lambda m, d: (np.zeros(3), d), "holds no network"),
    ],
)
def test_mismatched_model_files_are_refused(tiny_model, tmp_path, change, fragment):
    bad = tmp_path / "bad.npz"
    _rewrite(tiny_model, bad, change)
    with pytest.raises(AcesimError, match=fragment.replace("(", r"\(")):
        L.load_model(bad)
    result = run("simulate", "--rules", "backgammon", "--games", "2", "--strategy", f"learned:{bad}",
                 "--out", str(tmp_path / "run"), "--no-progress")
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "run").exists()


def test_corrupt_model_files_are_refused(tiny_model, tmp_path):
    raw = tiny_model.read_bytes()
    for name, data in (("truncated.npz", raw[: len(raw) // 2]), ("noise.npz", bytes(range(256)) * 4),
                       ("empty.npz", b"")):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(AcesimError, match="not an acesim model file"):
            L.load_model(path)
        assert_one_line_error(run("ladder", "--rules", "backgammon", "--games", "2", "--strategies",
                                  f"random,learned:{path}", "--no-progress"), "not an acesim model file")
    assert_one_line_error(run("ladder", "--rules", "backgammon", "--games", "2", "--strategies",
                              f"random,learned:{tmp_path / 'missing.npz'}", "--no-progress"), "cannot read model")
    assert_one_line_error(run("ladder", "--rules", "backgammon", "--games", "2", "--strategies",
                              "random,learned:nosuchmodel", "--no-progress"), "no shipped model")


# --- command line ------------------------------------------------------------------------


def test_train_command_writes_a_model_with_its_story(tmp_path):
    out = tmp_path / "m.npz"
    result = run("train", "--rules", "backgammon", "--games", "40", "--hidden", "6", "--eval-every", "20",
                 "--eval-games", "20", "--seed", "3", "--out", str(out), "--no-progress")
    assert result.exit_code == 0, result.output
    model = L.load_model(out)
    meta = model.meta
    assert meta["training"]["games"] == 40 and meta["training"]["seed"] == 3
    assert [e["after_games"] for e in meta["evaluations"]] == [32, 40]
    assert meta["evaluations"][-1]["games"] == 20 and "acesim train" in meta["command"]
    assert "start" not in meta["training"] and "start_sha256" not in meta["training"]  # weights from the seed
    assert_one_line_error(run("train", "--rules", "backgammon", "--games", "4", "--out", str(out)), "exists")
    ok = run("simulate", "--rules", "backgammon", "--games", "6", "--strategy", f"learned:{out}",
             "--vs", "random", "--out", str(tmp_path / "run"), "--no-progress", "--workers", "1")
    assert ok.exit_code == 0, ok.output
    plan = json.loads((tmp_path / "run" / "plan.json").read_text())
    assert plan["strategies"]["a"]["model_sha256"] == model.sha256


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--hidden", "x"], "--hidden takes one or two sizes"),
        (["--hidden", "0"], "hidden layer sizes"),
        (["--lambda", "1.5"], "lambda must be between 0 and 1"),
        (["--checkpoint", "c.txt"], "must end in .npz"),
        (["--objective", "points"], "score every game 1 point"),
        (["--objective", "fame"], "objective must be"),
    ],
)
def test_train_bad_input(tmp_path, args, fragment):
    base = {"--rules": "european", "--games": "5", "--out": str(tmp_path / "m.npz")}
    for flag, value in zip(args[::2], args[1::2]):
        base[flag] = value
    flat = [x for kv in base.items() for x in kv]
    assert_one_line_error(run("train", *flat, "--no-progress"), fragment)
    assert not (tmp_path / "m.npz").exists()
    assert_one_line_error(run("train", "--rules", "european", "--games", "5", "--no-progress"), "needs --out")


def test_training_from_a_model_starts_from_its_weights(tiny_model):
    start = L.load_model(tiny_model).array
    kept = start.copy()
    # no run of 0 games, and no step size 0: 16 games at a tiny step give back the start's weights, nearly
    barely, _ = L.train(BACKGAMMON, 16, 5, (16, 0), alpha=1e-9, start=start)
    assert np.array_equal(start, kept)  # trained on a copy
    assert np.abs(barely - start).max() < 1e-6 and not np.array_equal(barely, start)
    assert np.abs(L.new_model(BACKGAMMON, (16, 0), 5) - start).max() > 0.05  # the seed's weights are far
    with pytest.raises(AcesimError, match="the start network has hidden layers 16,0; the run asks for 8,0"):
        L.train(BACKGAMMON, 16, 5, (8, 0), start=start)
    with pytest.raises(AcesimError, match="the start network maximises points; --objective wins"):
        L.train(BACKGAMMON, 16, 5, (16, 0), objective="wins", start=start)


def test_a_wider_layer_widens_the_start_network(tiny_model):
    """The widened network plays the start's values bit for bit: its added units have output weights of
    zero and the first-layer weights and biases of the network the seed draws."""
    start = L.load_model(tiny_model).array
    fresh = L.new_model(BACKGAMMON, (24, 0), 5)
    wide = L.widened(start, fresh)
    assert wide[N.M_HIDDEN1] == 24 and len(wide) == len(fresh)
    n_in = int(start[N.M_INPUTS])
    w1, fresh_w1 = wide[N.HEADER:N.HEADER + n_in * 24].reshape(n_in, 24), fresh[N.HEADER:N.HEADER + n_in * 24]
    assert np.array_equal(w1[:, :16], start[N.HEADER:N.HEADER + n_in * 16].reshape(n_in, 16))
    assert np.array_equal(w1[:, 16:], fresh_w1.reshape(n_in, 24)[:, 16:])
    ns = N.new_net_scratch()
    for board in game_boards(BACKGAMMON, 2, 1)[:60]:
        N.outputs(start, board, 0, ns)
        before = ns.y[:2].copy()
        N.outputs(wide, board, 0, ns)
        assert np.array_equal(ns.y[:2], before)
    for other in (L.new_model(BACKGAMMON, (12, 0), 5), L.new_model(BACKGAMMON, (24, 4), 5)):
        assert L.widened(start, other) is start  # narrower, or two layers: refused by refuse_other_network
    grown, _ = L.train(BACKGAMMON, 16, 5, (24, 0), alpha=0.05, start=start)
    from_wide, _ = L.train(BACKGAMMON, 16, 5, (24, 0), alpha=0.05, start=wide)
    assert np.array_equal(grown, from_wide)


@pytest.mark.parametrize("activation", ["logistic", "hard-sigmoid"])
def test_a_second_layer_deepens_the_start_network(tiny_model, activation):
    """The deepened network plays the start's values: its second layer's first units pass the start's
    output sums through (exactly for hard-sigmoid units, to the logistic function's cubic term for
    logistic ones), its other units have output weights of zero, and a wider first layer is widened."""
    start = L.with_activation(L.load_model(tiny_model).array, activation)
    for h1 in (16, 20):
        fresh = L.new_model(BACKGAMMON, (h1, 6), 5, activation=activation)
        deep = L.deepened(start, fresh)
        assert (deep[N.M_HIDDEN1], deep[N.M_HIDDEN2]) == (h1, 6) and len(deep) == len(fresh)
        assert deep[N.M_TAG] == start[N.M_TAG]
        ns = N.new_net_scratch()
        worst = 0.0
        for board in game_boards(BACKGAMMON, 2, 1)[:60]:
            N.outputs(start, board, 0, ns)
            before = ns.y[:2].copy()
            N.outputs(deep, board, 0, ns)
            worst = max(worst, float(np.abs(ns.y[:2] - before).max()))
        if activation == "hard-sigmoid":
            assert worst < 1e-12
        else:
            assert 0 < worst < 1e-3
    for other in (L.new_model(BACKGAMMON, (12, 6), 5), L.new_model(BACKGAMMON, (16, 1), 5),
                  L.new_model(BACKGAMMON, (24, 0), 5)):
        assert L.deepened(start, other) is start  # narrower, too few units for the outputs, or one layer
    assert L.deepened(fresh, fresh) is fresh  # two layers already
    two, wide = L.new_model(BACKGAMMON, (16, 6), 5, activation=activation), L.new_model(BACKGAMMON, (20, 0), 5)
    assert np.array_equal(L.grown(start, two), L.deepened(start, two))
    assert np.array_equal(L.grown(start, wide), L.widened(start, wide))
    trained, _ = L.train(BACKGAMMON, 32, 5, (16, 6), alpha=0.05, start=start, activation=activation)
    out_weights = trained[-2 - 6 * 2:-2].reshape(6, 2)
    assert np.abs(out_weights[2:]).max() > 0  # the second layer's fresh units have a say once trained


def test_train_command_starts_from_a_model_of_its_rules(tiny_model, tmp_path):
    start = L.load_model(tiny_model)
    out = tmp_path / "m.npz"
    common = ["--rules", "backgammon", "--start", str(tiny_model), "--games", "16", "--alpha", "0.05", "--seed",
              "5", "--eval-every", "0", "--eval-games", "4", "--out", str(out), "--no-progress", "--workers", "1"]
    ok = run("train", *common)
    assert ok.exit_code == 0, ok.output
    model = L.load_model(out)
    # its hidden layers are the start's (16), not --hidden's default (40), and the start is recorded
    assert model.hidden == (16, 0) and model.meta["training"]["hidden"] == [16, 0]
    assert model.meta["training"]["start"] == str(tiny_model)
    assert model.meta["training"]["start_sha256"] == start.sha256
    assert f"--start {tiny_model}" in model.meta["command"]
    # the run is the library's from the start's weights, on the seed's dice; from the seed's weights it is not
    from_start, _ = L.train(BACKGAMMON, 16, 5, (16, 0), alpha=0.05, start=start.array)
    fresh, _ = L.train(BACKGAMMON, 16, 5, (16, 0), alpha=0.05)
    assert np.array_equal(model.array, from_start) and not np.array_equal(model.array, fresh)
    again = run("train", *common, "--hidden", "16", "--force")  # a --hidden that agrees is accepted
    assert again.exit_code == 0, again.output
    assert np.array_equal(L.load_model(out).array, from_start)


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--hidden", "12"], "has hidden layers 16,0; the run asks for 12,0"),
        (["--hidden", "16,1"], "has hidden layers 16,0; the run asks for 16,1"),
        (["--hidden", "12,4"], "has hidden layers 16,0; the run asks for 12,4"),
        (["--objective", "wins"], "maximises points; --objective wins maximises wins: give --objective points"),
        (["--rules", "european"], "trained under rules 'backgammon'; these games use 'european'"),
        (["--rule", "scoring=single"], "which differ in scoring"),
        (["--start", "{missing}"], "cannot read model"),
        (["--start", "{folder}"], "is a folder"),
        (["--start", "{corrupt}"], "not an acesim model file"),
        (["--start", "{reading}"], "is a network that reads the rules: a run of one rule set starts from"),
        (["--eval-mixes", "3"], "--eval-mixes is for networks that read the rules"),
        (["--checkpoint", "{tmp}/c.npz", "--checkpoint-every", "-16"], "--checkpoint-every must be 0 or more"),
    ],
)
def test_train_from_a_start_bad_input(tiny_model, tmp_path, args, fragment):
    (tmp_path / "folder.npz").mkdir()
    (tmp_path / "corrupt.npz").write_bytes(tiny_model.read_bytes()[:500])
    L.save_rule_model(tmp_path / "reading.npz", *L.new_rule_model((16, 0), 1), {})
    paths = {"{missing}": tmp_path / "none.npz", "{folder}": tmp_path / "folder.npz",
             "{corrupt}": tmp_path / "corrupt.npz", "{reading}": tmp_path / "reading.npz"}
    base = {"--rules": "backgammon", "--start": str(tiny_model), "--games": "16", "--eval-games": "4",
            "--out": str(tmp_path / "m.npz")}
    for flag, value in zip(args[::2], args[1::2]):
        base[flag] = str(paths.get(value, value)).replace("{tmp}", str(tmp_path))
    flat = [x for kv in base.items() for x in kv]
    assert_one_line_error(run("train", *flat, "--no-progress", "--workers", "1"), fragment)
    assert not (tmp_path / "m.npz").exists() and not (tmp_path / "c.npz").exists()


def test_train_converts_a_start_networks_hidden_units(tiny_model, tmp_path):
    """``--activation hard-sigmoid`` on a start network keeps its weights and changes its hidden units; the
    run is the library's from the converted network; a rule-reading run keeps the activation when resumed."""
    out = tmp_path / "h.npz"
    tail = ["--eval-every", "0", "--eval-games", "4", "--no-progress", "--workers", "1"]
    common = ["--rules", "backgammon", "--games", "16", "--alpha", "0.05", "--seed", "5", *tail]
    ok = run("train", *common, "--start", str(tiny_model), "--activation", "hard-sigmoid", "--out", str(out))
    assert ok.exit_code == 0, ok.output
    model = L.load_model(out)
    start = L.load_model(tiny_model).array
    assert model.array[N.M_TAG] == N.HARD_NET_TAG and model.meta["training"]["activation"] == "hard-sigmoid"
    hard, _ = L.train(BACKGAMMON, 16, 5, (16, 0), alpha=0.05, start=start, activation="hard-sigmoid")
    kept, _ = L.train(BACKGAMMON, 16, 5, (16, 0), alpha=0.05, start=start)
    assert np.array_equal(model.array, hard) and not np.array_equal(hard[N.HEADER:], kept[N.HEADER:])
    assert kept[N.M_TAG] == N.NET_TAG and L.activation_of(hard) == "hard-sigmoid"
    # a start network that is already hard-sigmoid stays so without the option
    again = run("train", *common, "--start", str(out), "--out", str(tmp_path / "h2.npz"))
    assert again.exit_code == 0, again.output
    assert L.load_model(tmp_path / "h2.npz").array[N.M_TAG] == N.HARD_NET_TAG
    assert_one_line_error(run("train", *common, "--activation", "relu", "--out", str(tmp_path / "h3.npz")),
                          "activation must be one of")
    assert not (tmp_path / "h3.npz").exists()
    # a rule-reading run converts its start, records it, and keeps it when resumed
    L.save_rule_model(tmp_path / "reading.npz", *L.new_rule_model((8, 0), 1), {})
    check = tmp_path / "c.npz"
    ok = run("train", "--rules", "all", "--start", str(tmp_path / "reading.npz"), "--activation", "hard-sigmoid",
             "--games", "16", "--eval-mixes", "0", "--checkpoint", str(check), "--out", str(tmp_path / "r.npz"), *tail)
    assert ok.exit_code == 0, ok.output
    first = L.load_model(check)
    assert first.array[N.M_TAG] == N.HARD_NET_TAG
    assert first.meta["training_state"]["settings"]["activation"] == "hard-sigmoid"
    more = run("train", "--resume", str(check), "--games", "32", "--out", str(tmp_path / "r2.npz"), "--no-progress",
               "--workers", "1")
    assert more.exit_code == 0, more.output
    assert L.load_model(tmp_path / "r2.npz").array[N.M_TAG] == N.HARD_NET_TAG
    assert_one_line_error(run("train", "--resume", str(check), "--activation", "logistic", "--out",
                              str(tmp_path / "r3.npz"), "--no-progress"), "drop --activation")


def test_luck_with_the_learned_equity_model(tiny_model):
    from acesim.analyses.equity import equity_models

    choice = equity_models(BACKGAMMON, "expert", 40, seed=2, equity=f"learned:{tiny_model}")
    assert choice.chosen == "learned" and set(choice.calibrations) == {"logistic", "learned"}
    assert choice.calibrations["learned"].positions == choice.calibrations["logistic"].positions
    forced = equity_models(BACKGAMMON, "expert", 40, seed=2, equity="logistic")
    assert forced.chosen == "logistic"
    auto = equity_models(BACKGAMMON, "expert", 40, seed=2)  # the shipped backgammon model against the fit
    brier = {name: c.brier for name, c in auto.calibrations.items()}
    assert set(brier) == {"logistic", "learned"} and auto.chosen == min(brier, key=brier.get)
    assert auto.learned is not None and auto.learned.path.endswith("backgammon.npz")
    for c in auto.calibrations.values():
        bins = c.bins
        assert c.reliability == pytest.approx(
            float((bins["n"] * (bins["predicted"] - bins["observed"]) ** 2).sum() / bins["n"].sum()))
    with pytest.raises(AcesimError, match="trained under rules"):
        equity_models(EUROPEAN, "expert", 20, seed=2, equity=f"learned:{tiny_model}")
    result = run("luck", "--rules", "backgammon", "--games", "60", "--equity-games", "30", "--luck-games", "6",
                 "--ladder-games", "4", "--equity", f"learned:{tiny_model}", "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "learned:" in result.output or "learned" in result.output


def test_strategy_specs(tiny_model):
    with pytest.raises(AcesimError, match="needs a model"):
        load_strategy("learned:")
    with pytest.raises(AcesimError, match="beam width"):
        load_strategy(f"learned:{tiny_model}@beam=0")
    assert dataclasses.replace(load_strategy(f"learned:{tiny_model}@full")).width == 0


def reference_points(model: np.ndarray, y: np.ndarray) -> float:
    """The expected points of a network's outputs ``y``, from kernels.net's docstring."""
    scale = model[N.M_POINTS_SCALE]
    if int(model[N.M_OUTPUTS]) == N.SPLIT_POINTS:
        return 2 * y[0] - 1 + (scale - 1) * (y[1] - y[2])
    return scale * (2 * y[1] - 1)


@pytest.mark.parametrize("hidden, rules, activation, split", [
    ((12, 0), EUROPEAN, "logistic", False), ((10, 6), AMERICAN, "logistic", False), ((9, 0), AMERICAN, "logistic", False),
    ((12, 0), EUROPEAN, "hard-sigmoid", False), ((10, 6), AMERICAN, "hard-sigmoid", False),
    ((9, 0), AMERICAN, "logistic", True), ((6, 5), BACKGAMMON, "hard-sigmoid", True)])
def test_the_tangent_is_the_equitys_gradient_over_the_inputs(boards, hidden, rules, activation, split):
    """``set_tangent``: d equity / d x_i for every input, by central differences of the reference network
    (2p - 1 where the player maximises wins, its expected points where it maximises points: the points
    output's scale (2y - 1), or with the points beyond 1 split, 2p - 1 + (scale - 1) (y1 - y2))."""
    model = L.new_model(rules, hidden, seed=4, activation=activation, split_points=split)
    model[N.HEADER :] = np.random.default_rng(6).normal(0, 0.4, len(model) - N.HEADER)
    points = model[N.M_OBJECTIVE] == N.OBJECTIVE_POINTS
    assert points == (rules is not EUROPEAN)

    def equity(x):
        y = reference_forward(model, x)
        return reference_points(model, y) if points else 2 * y[0] - 1

    ns = N.new_net_scratch()
    row = playing_row(model, tangent=N.TANGENT)
    for board in boards[5::40]:
        for view in (0, 1):
            N.set_tangent(row, board, view, ns)
            tangent = ns.root[N.ROOT_TANGENT : N.ROOT_TANGENT + N.N_NET_INPUTS]
            x = reference_inputs(board, view)
            for i in range(N.N_NET_INPUTS):
                e = np.zeros(N.N_NET_INPUTS)
                e[i] = 1e-6
                expected = (equity(x + e) - equity(x - e)) / 2e-6
                assert tangent[i] == pytest.approx(expected, rel=1e-5, abs=1e-8), (i, tangent[i], expected)
            # tangent_value is the tangent times the board's inputs
            assert N.tangent_value(row, board, view, ns) == pytest.approx(float(tangent @ x), rel=1e-12)
    with pytest.raises(ValueError, match="tangent part"):
        N.set_tangent(playing_row(model), boards[0], 0, ns)


def legal_single_moves(rules: Ruleset, board: np.ndarray):
    """Every legal single move ``(src, dst)`` of ``board``'s mover with each die, as the searches find them."""
    from acesim.kernels import board as B
    from acesim.kernels.evaluate import S_MINE, SUMMARY_SIZE, summarize

    summary = np.zeros(SUMMARY_SIZE, dtype=np.int64)
    summarize(board, summary)
    moves = np.zeros((28, 2), dtype=np.int64)
    for die in range(1, 7):
        bits = B.move_rules(rules.to_array(), die, die)
        m = B.legal_moves(board, die, bits, B.open_mask(board), B.blot_mask(board), summary[S_MINE], moves)
        yield from (tuple(int(v) for v in moves[i]) for i in range(m))


@pytest.mark.parametrize("rules", [EUROPEAN, AMERICAN])
def test_the_opponents_summary_follows_each_move(boards, rules):
    """``opponent_summary`` is the flipped board's summary, and ``opponent_moved_summary`` gives the
    summary of the position after each legal single move (entering, hits and bearing off included)."""
    from acesim.kernels import board as B
    from acesim.kernels.evaluate import SUMMARY_SIZE, opponent_moved_summary, opponent_summary, summarize

    flipped, expected = np.zeros_like(boards[0]), np.zeros(SUMMARY_SIZE, dtype=np.int64)
    kinds = set()
    for board in game_boards(rules, 6, 3)[::2]:
        B.flip(board, flipped)
        summarize(flipped, expected)
        there = opponent_summary(board)
        assert there == tuple(expected)
        for src, dst in legal_single_moves(rules, board):
            child = board.copy()
            B.apply_move(child, src, dst)
            assert opponent_moved_summary(there, board, src, dst) == opponent_summary(child), (board, src, dst)
            kinds.add("enter" if src > 24 else "off" if dst == 0 else "hit" if board[dst - 1] == -1 else "move")
    assert kinds == {"enter", "off", "hit", "move"}


@pytest.mark.parametrize("rules", [EUROPEAN, AMERICAN])
def test_the_tangents_steps_value_a_move_as_the_encoded_tangent_does(boards, rules):
    """A move's value by ``tangent_steps`` and ``tangent_features`` (from summaries, not encoding) is the
    change of ``tangent_value`` from the mover's view, to the steps' grid; and every value is on the grid,
    so that a position's value does not depend on the order of the moves that reached it."""
    from acesim.kernels import board as B
    from acesim.kernels.evaluate import SUMMARY_SIZE, moved_summary, opponent_moved_summary, opponent_summary
    from acesim.kernels.evaluate import summarize

    row = np.array(load_strategy("learned:any@tangent").row(rules))
    ns = N.new_net_scratch()
    summary = np.zeros(SUMMARY_SIZE, dtype=np.int64)
    checked = 0
    for board in game_boards(rules, 4, 5)[::3]:
        summarize(board, summary)
        here, there = tuple(summary), opponent_summary(board)
        for view in (0, 1):
            N.set_tangent(row, board, view, ns)
            steps = ns.root[N.ROOT_STEPS :]
            sign = 1.0 if view == 0 else -1.0
            start = N.tangent_features(steps, here, there)
            encoded = N.tangent_value(row, board, view, ns)
            for src, dst in legal_single_moves(rules, board):
                child = board.copy()
                B.apply_move(child, src, dst)
                value = N.tangent_steps(steps, board, src, dst) + N.tangent_features(
                    steps, moved_summary(here, board, src, dst), opponent_moved_summary(there, board, src, dst))
                assert value * N.TANGENT_GRID == round(value * N.TANGENT_GRID)
                assert value - start == pytest.approx(sign * (N.tangent_value(row, child, view, ns) - encoded),
                                                      abs=1e-7)
                checked += 1
    assert checked > 1000
