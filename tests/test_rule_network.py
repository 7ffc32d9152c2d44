"""One network that reads the rules: knob units, folding, training by batch rule sets, checkpoints."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from acesim.common.errors import AcesimError
from acesim.engine import rule_inputs as RI
from acesim.engine.games import play_games, play_records
from acesim.engine.model_files import load_model, shipped_path
from acesim.engine.rules import CHECKER_KNOBS, KNOB_VALUES, PRESETS, Ruleset
from acesim.engine.strategies import load_strategy, lowered, playing_row
from acesim.kernels import game_loop as K, net as N
from acesim.runs import training as L
from tests.helpers import interrupted_run
from tests.test_cli import assert_one_line_error, run
from tests.test_learned import game_boards, reference_forward, reference_inputs

EUROPEAN = Ruleset.preset("european")
MONEY = EUROPEAN.with_overrides({"cube": "money"})


def mix(seed: int) -> Ruleset:
    return RI.random_rules(np.random.default_rng(seed), f"mix{seed}")


@pytest.fixture(scope="module")
def boards():
    return np.concatenate([game_boards(EUROPEAN, 2, 1), game_boards(PRESETS["backgammon"], 2, 2)])


def random_model(hidden=(9, 0), seed=3):
    """A rule-reading network with weights large enough that every part matters."""
    array, knob_weights = L.new_rule_model(hidden, seed)
    rng = np.random.default_rng(seed)
    array[N.HEADER :] = rng.normal(0, 0.3, len(array) - N.HEADER)
    return array, rng.normal(0, 0.5, knob_weights.shape)


# --- the knob units --------------------------------------------------------------------------


def test_knob_units_one_per_value_but_the_first_and_one_per_boolean():
    expected = sum(1 if KNOB_VALUES[k] is bool else len(KNOB_VALUES[k]) - 1 for k in CHECKER_KNOBS)
    assert RI.N_KNOB_UNITS == len(RI.KNOB_UNITS) == len(set(RI.KNOB_UNITS)) == expected
    assert not any(u.startswith("cube") for u in RI.KNOB_UNITS)
    # a rule set with every knob at its first value (false) has no active unit
    first = Ruleset(**{k: (False if KNOB_VALUES[k] is bool else KNOB_VALUES[k][0]) for k in CHECKER_KNOBS})
    assert not RI.knob_units(first).any()
    units = RI.knob_units(EUROPEAN)
    assert {RI.KNOB_UNITS[i] for i in np.flatnonzero(units)} == set(RI.active_units(EUROPEAN))
    assert "doubles=four-plus-complement" in RI.active_units(EUROPEAN) and "bearoff=standard" not in RI.active_units(EUROPEAN)
    # the cube's knobs are not inputs
    assert np.array_equal(RI.knob_units(MONEY), units)


def test_batch_rules_depend_on_seed_and_batch_only_and_are_valid():
    anchors = list(PRESETS.values())
    draws = [RI.batch_rules(5, b, anchors, 0.5) for b in range(200)]
    assert draws == [RI.batch_rules(5, b, anchors, 0.5) for b in range(200)]
    assert draws != [RI.batch_rules(6, b, anchors, 0.5) for b in range(200)]
    presets = sum(d.name in PRESETS for d in draws)
    assert 60 <= presets <= 140  # half of 200, with room for chance (sd 7)
    assert all(not d.has_cube for d in draws)
    assert all(RI.batch_rules(5, b, anchors, 0.0).name in PRESETS for b in range(20))
    assert all(RI.batch_rules(5, b, anchors, 1.0).name not in PRESETS for b in range(20))
    # a random mix never combines acey_deucey=none with its extra roll (Ruleset refuses it)
    mixes = [RI.random_rules(np.random.default_rng(s)) for s in range(300)]
    assert not any(m.acey_deucey == "none" and m.acey_deucey_extra_roll for m in mixes)
    assert len({tuple(m.checker_knobs().items()) for m in mixes}) > 250


# --- folding ---------------------------------------------------------------------------------


@pytest.mark.parametrize("hidden", [(9, 0), (7, 5)])
@pytest.mark.parametrize("rules", [*PRESETS.values(), mix(1), mix(2)], ids=lambda r: r.name)
def test_folding_equals_the_unfolded_network_with_knob_inputs(boards, hidden, rules):
    array, knob_weights = random_model(hidden)
    folded = RI.fold(array, knob_weights, rules)
    # by hand: the unfolded network reads position inputs and knob units side by side
    h1 = hidden[0]
    n_in = N.N_NET_INPUTS
    w1 = array[N.HEADER : N.HEADER + n_in * h1].reshape(n_in, h1)
    unfolded = np.concatenate([array[: N.HEADER], w1.ravel(), knob_weights.ravel(), array[N.HEADER + n_in * h1 :]])
    unfolded[N.M_INPUTS] = n_in + RI.N_KNOB_UNITS
    units = RI.knob_units(rules)
    ns = N.new_net_scratch()
    for board in boards[::4]:
        x = np.concatenate([reference_inputs(board, 0), units])
        N.outputs(folded, board, 0, ns)
        assert np.allclose(ns.y[:2], reference_forward(unfolded, x), rtol=0, atol=1e-12)
    assert folded[N.M_OUTPUTS] == 2
    assert folded[N.M_POINTS_SCALE] == RI.points_scale(rules)
    assert folded[N.M_OBJECTIVE] == (N.OBJECTIVE_POINTS if RI.scores_points(rules) else N.OBJECTIVE_WINS)


def test_points_scale_per_rule_set():
    assert RI.points_scale(PRESETS["american"]) == 15.0
    assert RI.points_scale(PRESETS["backgammon"]) == 3.0
    assert RI.points_scale(EUROPEAN) == 1.0
    assert RI.points_scale(EUROPEAN.with_overrides({"stakes_double_on_1_2": True})) == 4.0
    assert not RI.scores_points(EUROPEAN) and RI.scores_points(PRESETS["american"])


def test_unfolding_one_step_is_sgd_on_the_unfolded_network(boards):
    """One TD step on the folded network, unfolded, equals the step on the network with knob inputs."""
    rules = mix(3)
    array, knob_weights = random_model((6, 0))
    before = RI.fold(array, knob_weights, rules)
    after = before.copy()
    ns = N.new_net_scratch()
    board = boards[5]
    target = np.array([0.9, 0.2])
    m = N.encode(board, 0, ns)
    N.forward(after, m, ns)
    N.sgd_step(after, m, ns, target, 0.3, np.bool_(False))
    trained, trained_knobs = array.copy(), knob_weights.copy()
    RI.unfold(trained, trained_knobs, before, after, rules)
    # the same step by hand, on the unfolded network whose extra inputs are the knob units
    h1, n_in = 6, N.N_NET_INPUTS
    w1 = array[N.HEADER : N.HEADER + n_in * h1].reshape(n_in, h1)
    wide = np.concatenate([array[: N.HEADER], w1.ravel(), knob_weights.ravel(), array[N.HEADER + n_in * h1 :]])
    wide[N.M_INPUTS] = n_in + RI.N_KNOB_UNITS
    wide[N.M_POINTS_SCALE] = before[N.M_POINTS_SCALE]
    units = RI.knob_units(rules)
    m = N.encode(board, 0, ns)
    active = list(np.flatnonzero(units))
    ns.idx[m : m + len(active)] = [n_in + u for u in active]
    ns.val[m : m + len(active)] = 1.0
    N.forward(wide, m + len(active), ns)
    N.sgd_step(wide, m + len(active), ns, target, 0.3, np.bool_(False))
    w1_wide = wide[N.HEADER : N.HEADER + (n_in + RI.N_KNOB_UNITS) * h1].reshape(n_in + RI.N_KNOB_UNITS, h1)
    expected = np.concatenate([wide[: N.HEADER], w1_wide[:n_in].ravel(), wide[N.HEADER + w1_wide.size :]])
    expected[N.M_INPUTS], expected[N.M_POINTS_SCALE] = n_in, array[N.M_POINTS_SCALE]
    assert np.allclose(trained, expected, rtol=0, atol=1e-13)
    assert np.allclose(trained_knobs, w1_wide[n_in:], rtol=0, atol=1e-13)
    assert not np.allclose(trained_knobs, knob_weights)


# --- model files and playing -----------------------------------------------------------------


@pytest.fixture(scope="module")
def reading_model(tmp_path_factory):
    """A small rule-reading network trained briefly, its checkpoint written as a model file."""
    path = tmp_path_factory.mktemp("models") / "reads.npz"
    settings = L.RunSettings(tuple(PRESETS.values()), 0.5, 96, 4, (12, 0))
    L.train_run(L.start_run(settings), path)
    return path


def test_rule_reading_model_file_round_trip(reading_model):
    model = load_model(reading_model)
    assert model.reads_rules and model.untrained_units == () and model.knobs == ()
    meta = json.loads(str(np.load(reading_model)["meta"]))
    assert meta["format"] == 2 and meta["rule_inputs"]["units"] == list(RI.KNOB_UNITS)
    assert meta["training_state"]["games_done"] == 96
    for rules in [*PRESETS.values(), mix(4), MONEY]:
        assert np.array_equal(model.network(rules), RI.fold(model.array, model.knob_weights, rules))


@pytest.mark.parametrize("rules", [*PRESETS.values(), mix(5), mix(6)], ids=lambda r: r.name)
def test_rule_reading_model_plays_every_rule_set(reading_model, rules):
    spec = f"learned:{reading_model}"
    first = play_games(rules, 12, 21, spec, "expert")
    assert first.equals(play_games(rules, 12, 21, spec, "expert"))
    assert (first["unfinished"] == 0).all()
    # it plays exactly as the network folded for these rules (searched the heuristic's way, as the
    # network in training plays)
    folded = L.learned_strategy(load_model(reading_model).network(rules), rules, spec, L.DEFAULT_WIDTH)
    assert np.array_equal(play_records(rules, load_strategy(f"{spec}@heuristic"), load_strategy("expert"), 21, 0,
                                       12),
                          play_records(rules, folded, load_strategy("expert"), 21, 0, 12))


def test_rule_reading_model_under_the_cube_and_in_the_analyses(reading_model):
    from acesim.analyses.equity import equity_models

    spec = f"learned:{reading_model}"
    seats = lowered(load_strategy(spec), load_strategy("expert"), MONEY)
    folded = load_model(reading_model).network(MONEY)
    assert np.array_equal(seats.cube_models[0, : len(folded)], folded)
    assert np.array_equal(seats.weights[0, : len(folded)], folded)
    games = play_games(MONEY, 8, 3, spec, "expert")
    assert (games["unfinished"] == 0).all()
    choice = equity_models(EUROPEAN, "expert", 40, 5, equity=spec)
    assert choice.chosen == "learned"
    assert np.array_equal(choice.learned.array, load_model(reading_model).network(EUROPEAN))


def test_rule_reading_strategy_needs_rules(reading_model):
    s = load_strategy(f"learned:{reading_model}")
    with pytest.raises(AcesimError, match="reads the rules"):
        lowered(s, s)
    plain = s.for_rules(EUROPEAN)
    assert plain.reading_model is None
    with pytest.raises(AcesimError, match="differ in"):
        plain.check_rules(PRESETS["navy"])


def test_format_one_models_play_as_before():
    """A shipped (format 1) model is its own network: strategies and seats hold its array unchanged."""
    model = load_model(shipped_path("european"))
    assert not model.reads_rules and model.meta["format"] == 1
    assert model.network(EUROPEAN) is model.array
    s = load_strategy("learned:european")
    assert s.reading_model is None and s.row(EUROPEAN) == s.weights
    assert np.array_equal(lowered(s, s, EUROPEAN).weights[0], playing_row(model.array, s.tangent))
    assert np.array_equal(lowered(s, s).weights[0], playing_row(model.array, s.tangent))
    with pytest.raises(AcesimError, match="differ in"):
        model.network(PRESETS["navy"])
    assert model.network(PRESETS["navy"], check=False) is model.array


def test_model_files_written_before_a_knob_value_existed(reading_model, tmp_path):
    """A unit missing from the file has weights 0, and rules that use it are refused in one line."""
    with np.load(reading_model) as data:
        array, knob_weights, meta = data["model"], data["knob_weights"], json.loads(str(data["meta"]))
    drop = RI.KNOB_UNITS.index("hitting=after-home")
    meta["rule_inputs"]["units"].pop(drop)
    path = tmp_path / "old.npz"
    np.savez(path, model=array, knob_weights=np.delete(knob_weights, drop, axis=0), meta=json.dumps(meta))
    model = load_model(path)
    assert model.untrained_units == ("hitting=after-home",)
    assert not model.knob_weights[drop].any()
    model.network(EUROPEAN)
    with pytest.raises(AcesimError, match="hitting=after-home"):
        model.network(EUROPEAN.with_overrides({"hitting": "after-home"}))


@pytest.mark.parametrize(
    "change,fragment",
    [
        (lambda a, k, m: (a, k[:, :3], m), "knob weights of shape"),
        (lambda a, k, m: (a, np.where(k > 0, np.nan, k), m), "not finite"),
        (lambda a, k, m: (a, k, {**m, "rule_inputs": {"version": 1, "units": ["fame", *m["rule_inputs"]["units"][1:]]}}),
         "does not know: fame"),
        (lambda a, k, m: (a, k, {**m, "rule_inputs": None}), "does not name its knob inputs"),
        (lambda a, k, m: (a, k, {**m, "training": {"objective": "fame"}}), "unknown objective"),
        (lambda a, k, m: (a[:-1], k, m), "layer sizes need"),
    ],
)
def test_bad_rule_reading_files_are_refused(reading_model, tmp_path, change, fragment):
    with np.load(reading_model) as data:
        array, knob_weights, meta = change(data["model"], data["knob_weights"], json.loads(str(data["meta"])))
    path = tmp_path / "bad.npz"
    np.savez(path, model=array, knob_weights=knob_weights, meta=json.dumps(meta))
    with pytest.raises(AcesimError, match=fragment):
        load_model(path)
    assert_one_line_error(run("simulate", "--rules", "european", "--games", "2", "--strategy", f"learned:{path}",
                              "--no-progress", "--workers", "1"), fragment)


# --- training: reproducible, resumable -------------------------------------------------------


@pytest.mark.parametrize("halving,encoding,loss", [(0, 1, "squared"), (32, 2, "squared"), (32, 1, "cross-entropy")])
def test_resumed_training_equals_the_uninterrupted_run(tmp_path, halving, encoding, loss):
    settings = L.RunSettings(tuple(PRESETS.values()), 0.5, 96, 5, (8, 0), checkpoint_every=32,
                                 alpha_halving=halving, encoding=encoding, loss=loss)
    whole = L.train_run(L.start_run(settings), tmp_path / "whole.npz")
    assert int(whole.array[N.M_INPUTS]) == N.n_inputs(encoding)
    assert load_model(tmp_path / "whole.npz").meta["training"].get("loss", "squared") == loss
    if loss != "squared":  # the loss is the only difference, and it changes the steps
        squared = L.train_run(L.start_run(dataclasses.replace(settings, loss="squared", checkpoint_every=0)))
        assert not np.array_equal(whole.array, squared.array)

    resumed = interrupted_run(settings, tmp_path / "part.npz", 48)
    assert resumed.done == 32 and resumed.settings.encoding == encoding and resumed.settings.loss == loss
    L.train_run(resumed, tmp_path / "part.npz")
    assert np.array_equal(whole.array, resumed.array)
    assert np.array_equal(whole.knob_weights, resumed.knob_weights)
    assert np.array_equal(whole.totals, resumed.totals)
    # and with two workers: the same network
    other = L.train_run(L.start_run(dataclasses.replace(settings, checkpoint_every=0)), workers=2)
    assert np.array_equal(whole.array, other.array) and np.array_equal(whole.knob_weights, other.knob_weights)


def test_train_command_trains_checkpoints_and_resumes(tmp_path):
    ckpt, out, whole = tmp_path / "c.npz", tmp_path / "m.npz", tmp_path / "w.npz"
    common = ["--hidden", "6", "--seed", "2", "--eval-games", "10", "--eval-mixes", "1", "--no-progress",
              "--workers", "1"]
    first = run("train", "--rules", "all", "--games", "32", "--eval-every", "32", "--checkpoint", str(ckpt),
                "--checkpoint-every", "16", "--out", str(out), *common)
    assert first.exit_code == 0, first.output
    assert "after 32 games, navy:" in first.output and "mix1:" in first.output
    more = run("train", "--resume", str(ckpt), "--games", "64", "--out", str(out), "--force", "--no-progress",
               "--workers", "1")
    assert more.exit_code == 0, more.output
    straight = run("train", "--rules", "all", "--games", "64", "--eval-every", "32", "--out", str(whole), *common)
    assert straight.exit_code == 0, straight.output
    a, b = load_model(out), load_model(whole)
    assert np.array_equal(a.array, b.array) and np.array_equal(a.knob_weights, b.knob_weights)
    assert a.meta["training"]["games"] == 64 and [e["after_games"] for e in a.meta["evaluations"]][::5] == [32, 64]
    assert load_model(ckpt).meta["training_state"]["games_done"] == 64
    ok = run("simulate", "--rules", "navy", "--games", "4", "--strategy", f"learned:{out}", "--vs", "expert",
             "--no-progress", "--workers", "1", "--out", str(tmp_path / "run"))
    assert ok.exit_code == 0, ok.output


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--rules", "all", "--random-share", "1.5"], "random share"),
        (["--rules", "all", "--objective", "wins"], "maximises points"),
        (["--rules", "all", "--rule", "bearoff=exact"], "no --rule overrides"),
        (["--rules", "european,navy", "--rule", "cube=money"], "cubeless"),
        (["--rules", "all", "--checkpoint-every", "-1", "--checkpoint", "c.npz"], "--checkpoint-every"),
        (["--rules", "all", "--checkpoint", "c.txt"], "must end in .npz"),
        (["--rules", "european", "--eval-mixes", "3"], "--eval-mixes is for networks that read the rules"),
        (["--rules", "european", "--alpha-halving", "24"], "multiple of 16"),
        (["--rules", "all", "--alpha-halving", "10"], "multiple of 16"),
        (["--rules", "all,fame"], "unknown rules"),
        (["--rules", "all", "--loss", "huber"], "the loss must be one of squared, cross-entropy, got 'huber'"),
        (["--rules", "european", "--loss", "l1"], "the loss must be one of squared, cross-entropy, got 'l1'"),
    ],
)
def test_train_reading_bad_input(tmp_path, args, fragment):
    out = tmp_path / "m.npz"
    assert_one_line_error(run("train", "--games", "5", "--out", str(out), "--no-progress", *args), fragment)
    assert not out.exists()


def test_resume_bad_input(reading_model, tmp_path):
    out = str(tmp_path / "m.npz")
    assert_one_line_error(run("train", "--resume", str(reading_model), "--hidden", "20", "--out", out),
                          "drop --hidden")
    assert_one_line_error(run("train", "--resume", str(reading_model), "--lambda", "0.5", "--seed", "3",
                              "--out", out), "drop --seed, --lambda")
    assert_one_line_error(run("train", "--resume", str(reading_model), "--loss", "cross-entropy", "--out", out),
                          "drop --loss")
    assert_one_line_error(run("train", "--resume", str(shipped_path("european")), "--out", out),
                          "not a checkpoint")
    assert_one_line_error(run("train", "--resume", str(reading_model), "--games", "20", "--out", out),
                          "fewer")
    assert_one_line_error(run("train", "--resume", str(tmp_path / "none.npz"), "--out", out), "none.npz")


def test_a_run_started_from_a_model_continues_its_weights_and_records_it(reading_model, tmp_path):
    model = load_model(reading_model)
    settings = L.RunSettings(tuple(PRESETS.values()), 0.5, 32, 9, (12, 0), alpha=0.05,
                                 start=str(reading_model))
    begun = L.start_run(settings)
    assert np.array_equal(begun.array, model.array) and np.array_equal(begun.knob_weights, model.knob_weights)
    assert begun.settings.start_sha256 == model.sha256 and begun.done == 0
    L.train_run(begun, tmp_path / "next.npz")
    state = load_model(tmp_path / "next.npz").meta["training_state"]["settings"]
    assert state["start"] == str(reading_model) and state["start_sha256"] == model.sha256
    # a run from the same file with the same settings is the same run; one from fresh weights is not
    again = L.train_run(L.start_run(settings))
    fresh = L.train_run(L.start_run(dataclasses.replace(settings, start="")))
    assert np.array_equal(again.array, begun.array) and not np.array_equal(fresh.array, begun.array)
    # resumed from its checkpoint it keeps going from its own weights, not the start file's
    resumed = L.resume_run(tmp_path / "next.npz", 48)
    assert np.array_equal(resumed.array, begun.array) and resumed.settings.start == str(reading_model)


def test_train_command_starts_from_a_model(reading_model, tmp_path):
    out = tmp_path / "m.npz"
    ok = run("train", "--rules", "all", "--start", str(reading_model), "--games", "16", "--eval-every", "0",
             "--eval-games", "4", "--eval-mixes", "0", "--out", str(out), "--no-progress", "--workers", "1")
    assert ok.exit_code == 0, ok.output
    assert load_model(out).meta["training"]["start_sha256"] == load_model(reading_model).sha256
    common = ["--games", "16", "--out", str(out), "--force", "--no-progress"]
    assert_one_line_error(run("train", "--rules", "all", "--start", str(reading_model), "--hidden", "8", *common),
                          "hidden layers 12,0; the run asks for 8,0")
    assert_one_line_error(run("train", "--rules", "all", "--start", str(reading_model), "--hidden", "20,1",
                              *common), "hidden layers 12,0; the run asks for 20,1")  # too few for two outputs
    assert_one_line_error(run("train", "--rules", "all", "--start", str(shipped_path("european")), *common),
                          "not a network that reads the rules")
    assert_one_line_error(run("train", "--rules", "european", "--start", str(reading_model), *common),
                          "is a network that reads the rules: a run of one rule set starts from a model of")
    assert_one_line_error(run("train", "--resume", str(out), "--start", str(reading_model), *common),
                          "drop --start")


@pytest.mark.parametrize("rules", ["navy", "backgammon"])
def test_hint_and_rollout_fold_a_rule_reading_model(reading_model, rules):
    spec = f"learned:{reading_model}"
    hint = run("hint", "-p", "start", "-d", "6-3", "-r", rules, "--strategy", spec, "--json", "--top", "0")
    assert hint.exit_code == 0, hint.output
    rolled = run("rollout", "-p", "start", "-r", rules, "-d", "6-3", "--candidates", "2", "-n", "36",
                 "--strategy", spec, "--json", "--workers", "1")
    assert rolled.exit_code == 0, rolled.output
    assert json.loads(rolled.output)["trials"] == 36


def test_a_rule_reading_run_evaluates_every_100000_games_by_default(tmp_path):
    out = tmp_path / "m.npz"
    result = run("train", "--rules", "european,navy", "--games", "16", "--hidden", "4", "--eval-games", "4",
                 "--eval-mixes", "0", "--out", str(out), "--no-progress", "--workers", "1")
    assert result.exit_code == 0, result.output
    model = load_model(out)
    assert model.meta["training_state"]["settings"]["eval_every"] == 100_000
    assert [e["rules"] for e in model.meta["evaluations"]] == list(PRESETS)  # the end's, under every preset
    assert [r["name"] for r in model.meta["training_state"]["settings"]["anchors"]] == ["european", "navy"]


def test_the_step_size_halves_every_alpha_halving_games():
    settings = L.RunSettings(tuple(PRESETS.values()), 0.5, 96, 5, (8, 0), alpha=0.2, alpha_halving=32)
    assert [settings.step_size(d) for d in (0, 16, 32, 48, 64)] == [0.2, 0.2, 0.1, 0.1, 0.05]
    assert dataclasses.replace(settings, alpha_halving=0).step_size(10**6) == 0.2
    halved = L.train_run(L.start_run(settings))
    constant = L.train_run(L.start_run(dataclasses.replace(settings, alpha_halving=0)))
    assert not np.array_equal(halved.array, constant.array)
    # a checkpoint written before the option existed reads as a constant step
    doc = settings.to_json()
    del doc["alpha_halving"]
    assert L.RunSettings.from_json(doc).alpha_halving == 0


# --- the held-out mixes ------------------------------------------------------------------------


def test_held_out_mixes_are_never_drawn_for_training(tmp_path, monkeypatch):
    import json

    from acesim.engine import rule_inputs as RI

    seen = {RI._key(RI.batch_rules(5, b, [], 1.0).checker_knobs()) for b in range(40)}
    picked = RI.draw_held_out(3, seen)
    assert len({RI._key(k) for k in picked}) == 3 and not {RI._key(k) for k in picked} & seen
    assert not {RI._key(k) for k in picked} & {RI._key(r.checker_knobs()) for r in PRESETS.values()}
    # make the first mixes a run draws the held-out ones: every later draw avoids them
    first = [RI.batch_rules(5, b, [], 1.0).checker_knobs() for b in range(3)]
    path = tmp_path / "held.json"
    path.write_text(json.dumps(first))
    monkeypatch.setattr(RI, "HELD_OUT_FILE", path)
    RI.held_out_mixes.cache_clear()
    RI._held_out_keys.cache_clear()
    try:
        assert [r.name for r in RI.held_out_mixes()] == ["held-1", "held-2", "held-3"]
        keys = {RI._key(k) for k in first}
        for b in range(3):
            assert RI._key(RI.batch_rules(5, b, [], 1.0).checker_knobs()) not in keys
    finally:
        RI.held_out_mixes.cache_clear()
        RI._held_out_keys.cache_clear()


def test_the_twenty_held_out_mixes_are_distinct_and_none_a_preset():
    from acesim.engine import rule_inputs as RI

    mixes = RI.held_out_mixes()
    keys = {RI._key(r.checker_knobs()) for r in mixes}
    assert len(mixes) == 20 and len(keys) == 20
    assert not keys & {RI._key(r.checker_knobs()) for r in PRESETS.values()}
    # the run of docs/learned.md had drawn none of them in its first 76,250 batches (a sample of them, drawn
    # as batch_rules draws, without its avoiding them)
    drawn = set()
    for b in range(0, 76_250, 7):
        rng = np.random.default_rng(np.random.SeedSequence(1, spawn_key=(RI.RULES_KEY, b)))
        if rng.random() < 0.5:
            drawn.add(RI._key(RI.random_rules(rng, held_out=False).checker_knobs()))
    assert len(drawn) > 4000 and not keys & drawn


def test_fold_network_writes_the_folded_network_as_a_preset_model(reading_model, tmp_path):
    """scripts/fold-network: the model it writes plays under its preset exactly as the rule-reading
    one does there, and only there; bad input is one line and a non-zero exit, writing nothing."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parents[1] / "scripts" / "fold-network"

    def fold(*args):
        return subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, text=True)

    out = tmp_path / "navy.npz"
    done = fold(reading_model, "navy", out)
    assert done.returncode == 0, done.stderr
    folded, source = load_model(out), load_model(reading_model)
    navy = PRESETS["navy"]
    assert not folded.reads_rules and folded.rules_name == "navy"
    assert np.array_equal(folded.array, source.network(navy))
    assert folded.meta["folded_from"]["rules"] == "navy"
    with pytest.raises(AcesimError, match="differ in"):
        folded.network(EUROPEAN)
    for args, fragment in [((reading_model, "navy", out), "exists"),
                           ((reading_model, "chess", tmp_path / "x.npz"), "unknown preset"),
                           ((out, "navy", tmp_path / "y.npz"), "nothing to fold"),
                           ((reading_model,), "usage")]:
        refused = fold(*args)
        assert refused.returncode != 0 and "Traceback" not in refused.stderr
        assert len(refused.stderr.splitlines()) == 1 and fragment in refused.stderr
    assert not (tmp_path / "x.npz").exists() and not (tmp_path / "y.npz").exists()


def largest_output_change(start, grown) -> float:
    """The largest change of an output from rule-reading network ``start`` to ``grown`` over the
    positions of a few random games of every preset."""
    ns = N.new_net_scratch()
    largest = 0.0
    for rules in PRESETS.values():
        before, after = RI.fold(start.array, start.knob_weights, rules), RI.fold(grown.array, grown.knob_weights, rules)
        for board in game_boards(rules, 3, 1)[:40]:
            N.outputs(before, board, 0, ns)
            was = ns.y[:2].copy()
            N.outputs(after, board, 0, ns)
            largest = max(largest, float(np.abs(ns.y[:2] - was).max()))
    return largest


def test_a_deeper_run_from_a_model_deepens_it_and_plays_as_it_did(reading_model, tmp_path):
    """``--hidden H,H2`` from a one-layer rule-reading model adds a second layer whose first units pass the
    start's outputs through: under every preset the deepened network's outputs are the start's to the
    logistic function's cubic term, its knob weights are the start's, and it trains on, as the command
    line's run does."""
    model = load_model(reading_model)
    settings = L.RunSettings(tuple(PRESETS.values()), 0.5, 32, 9, (12, 6), alpha=0.05, start=str(reading_model))
    begun = L.start_run(settings)
    assert (int(begun.array[N.M_HIDDEN1]), int(begun.array[N.M_HIDDEN2])) == (12, 6)
    assert np.array_equal(begun.knob_weights, model.knob_weights)
    assert 0 < largest_output_change(model, begun) < 1e-3
    trained = L.train_run(begun, tmp_path / "deep.npz")
    assert load_model(tmp_path / "deep.npz").hidden == (12, 6)
    ok = run("train", "--rules", "all", "--start", str(reading_model), "--hidden", "12,6", "--games", "32", "--seed",
             "9", "--alpha", "0.05", "--eval-every", "0", "--eval-games", "4", "--eval-mixes", "0", "--out",
             str(tmp_path / "cli.npz"), "--no-progress", "--workers", "1")
    assert ok.exit_code == 0, ok.output
    assert np.array_equal(load_model(tmp_path / "cli.npz").array, trained.array)
    refused = run("train", "--rules", "all", "--start", str(reading_model), "--hidden", "8,6", "--games", "32",
                  "--out", str(tmp_path / "no.npz"), "--no-progress", "--workers", "1")
    assert refused.exit_code != 0 and "has hidden layers 12,0; the run asks for 8,6" in refused.output
    assert not (tmp_path / "no.npz").exists()


def test_a_wider_run_from_a_model_widens_it_and_plays_as_it_did(reading_model, tmp_path):
    """``--hidden`` wider than the start's layer adds the seed's units with output weights of zero: under
    every preset the widened network's outputs are the start's, bit for bit, and it trains on."""
    model = load_model(reading_model)
    settings = L.RunSettings(tuple(PRESETS.values()), 0.5, 32, 9, (20, 0), alpha=0.05,
                                 start=str(reading_model))
    begun = L.start_run(settings)
    assert int(begun.array[N.M_HIDDEN1]) == 20 and begun.knob_weights.shape == (RI.N_KNOB_UNITS, 20)
    fresh, fresh_knobs = L.new_rule_model((20, 0), 9)
    assert np.array_equal(begun.knob_weights[:, :12], model.knob_weights)
    assert np.array_equal(begun.knob_weights[:, 12:], fresh_knobs[:, 12:])
    assert largest_output_change(model, begun) == 0.0
    trained = L.train_run(begun, tmp_path / "wide.npz")
    wide = load_model(tmp_path / "wide.npz")
    assert wide.hidden == (20, 0) and wide.meta["training_state"]["settings"]["hidden"] == [20, 0]
    out_weights = trained.array[N.HEADER + int(trained.array[N.M_INPUTS]) * 20 + 20:][:-2].reshape(20, 2)
    assert np.abs(out_weights[12:]).max() > 0  # the new units have a say once trained
    ok = run("train", "--rules", "all", "--start", str(reading_model), "--hidden", "20", "--games", "32", "--seed",
             "9", "--alpha", "0.05", "--eval-every", "0", "--eval-games", "4", "--eval-mixes", "0", "--out",
             str(tmp_path / "cli.npz"), "--no-progress", "--workers", "1")
    assert ok.exit_code == 0, ok.output
    assert np.array_equal(load_model(tmp_path / "cli.npz").array, trained.array)
