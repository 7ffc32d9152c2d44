"""The doubling cube: Janowski's decision rule, dropped doubles, takes in real games, the knobs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from acesim.common.errors import AcesimError
from acesim.engine.games import play_games, play_records, records_frame, trace_games
from acesim.engine.model_files import base_model, load_model, shipped_path
from acesim.engine.rules import CHECKER_KNOBS, Ruleset, load_ruleset, parse_override
from acesim.engine.strategies import best_spec, load_strategy, lowered
from acesim.kernels import cube as C, game_loop as K, layout as L
from acesim.kernels.net import new_net_scratch
from tests.helpers import P
from tests.test_faults_input import console, console_one_line_error

LIVES = (0.0, 0.25, C.CUBE_LIFE, 1.0)
WINS_LOSSES = ((1.0, 1.0), (1.5, 1.0), (1.0, 1.7), (2.2, 1.4))
GRID = np.linspace(0.0, 1.0, 201)


def janowski_take_point(win: float, loss: float, life: float) -> float:
    """Janowski's take point as his paper writes it: (2L - 1) / (2W + 2L + x)."""
    return (2 * loss - 1) / (2 * win + 2 * loss + life)


# --- the decision functions -----------------------------------------------------------------


@pytest.mark.parametrize("win,loss", WINS_LOSSES)
@pytest.mark.parametrize("life", LIVES)
def test_a_taker_that_cannot_win_never_takes_and_the_take_point_is_janowskis(win, loss, life):
    tp = janowski_take_point(win, loss, life)
    assert not C.should_take(0.0, win, loss, life)
    assert C.should_take(1.0, win, loss, life)
    for q in GRID:
        assert C.should_take(q, win, loss, life) == (q > 0 and q >= tp), q
    # the mix of live and dead cube puts the owner's equity at the take point at exactly
    # half the doubled cube lost, which is what taking is worth against dropping
    assert 2 * C.cubeful_equity(tp, win, loss, life, C.OWNED) == pytest.approx(-1.0)
    assert C.take_point(win, loss, life) == pytest.approx(tp)


@pytest.mark.parametrize("win,loss", WINS_LOSSES)
def test_the_take_points_at_the_ends_of_cube_life(win, loss):
    # a dead cube: taking is worth twice the cubeless equity, dropping one cube; the
    # take point balances 2 (q (W + L) - L) = -1
    dead = (loss - 0.5) / (win + loss)
    assert C.take_point(win, loss, 0.0) == pytest.approx(dead)
    # a perfectly live cube: Janowski's live take point (a fifth of the games at W = L = 1)
    assert C.take_point(win, loss, 1.0) == pytest.approx(janowski_take_point(win, loss, 1.0))
    assert C.live_take_point(win, loss) == pytest.approx(C.take_point(win, loss, 1.0))
    # the cube's life lowers the take point: owning the cube is worth something
    assert C.take_point(win, loss, 1.0) < C.take_point(win, loss, C.CUBE_LIFE) < dead


def _double_point(win: float, loss: float, life: float, owned: bool) -> float:
    """Where no-double and double-take equities cross, solved from Janowski's straight lines."""
    tp = (loss - 0.5) / (win + loss + 0.5)
    cp = (loss + 1) / (win + loss + 0.5)
    # both equities are a + b p between the live take and cash points
    if owned:
        a_nd, b_nd = -loss, (1 + loss) / cp
    else:
        a_nd, b_nd = -1 - 2 * tp / (cp - tp), 2 / (cp - tp)
    a_dt, b_dt = -1 - tp * (win + loss + 0.5), win + loss + 0.5
    dead_a, dead_b = -loss, win + loss
    a0 = life * a_nd + (1 - life) * dead_a
    b0 = life * b_nd + (1 - life) * dead_b
    a1 = 2 * (life * a_dt + (1 - life) * dead_a)
    b1 = 2 * (life * b_dt + (1 - life) * dead_b)
    return (a0 - a1) / (b1 - b0)


@pytest.mark.parametrize("owned", [False, True])
@pytest.mark.parametrize("win,loss", WINS_LOSSES)
@pytest.mark.parametrize("life", (0.0, 0.25, C.CUBE_LIFE))
def test_the_double_point_is_where_doubling_starts_to_gain(win, loss, life, owned):
    point = _double_point(win, loss, life, owned)
    # just below it no double; just above it a double (until the opponent drops and the
    # doubler would rather play on: too good)
    assert not C.should_double(point - 1e-6, win, loss, life, owned)
    above = point + 1e-6
    no_double = C.cubeful_equity(above, win, loss, life, C.OWNED if owned else C.CENTRED)
    if no_double < 1.0:
        assert C.should_double(above, win, loss, life, owned)


def test_a_dead_cube_without_gammons_doubles_as_soon_as_it_is_the_favourite():
    # dead cube, W = L = 1: playing on is worth 2p - 1, a double taken 2 (2p - 1), so doubling
    # gains exactly where the cubeless equity turns positive
    even = _double_point(1.0, 1.0, 0.0, False)
    assert 2 * even - 1 == pytest.approx(0.0)
    assert not C.should_double(even, 1.0, 1.0, 0.0, False)
    assert C.should_double(even + 1e-9, 1.0, 1.0, 0.0, False)


@pytest.mark.parametrize("life", (0.0, 0.25, C.CUBE_LIFE))  # a perfectly live cube is never too good
def test_no_double_when_it_cannot_win_and_too_good_with_gammons(life):
    for win, loss in WINS_LOSSES:
        assert not C.should_double(0.0, win, loss, life, False)
        assert not C.should_double(0.0, win, loss, life, True)
    # a side that wins almost surely and often doubly: playing on is worth more than the
    # cube the opponent would drop, so it does not double
    win, loss, p = 2.0, 1.0, 0.995
    assert C.cubeful_equity(p, win, loss, life, C.CENTRED) > 1.0
    assert not C.should_take(1 - p, loss, win, life)
    assert not C.should_double(p, win, loss, life, False)


def test_without_gammons_a_sure_winner_doubles_out():
    for life in (0.0, 0.25, C.CUBE_LIFE):
        p = 0.999
        assert C.should_double(p, 1.0, 1.0, life, False)
        assert not C.should_take(1 - p, 1.0, 1.0, life)


# --- W and L from the networks ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["european", "american", "backgammon"])
def test_win_and_loss_are_what_the_network_says(name):
    """W and L give the network's expected points; a network of the points beyond 1 apart gives each side's."""
    from acesim.engine.sampling import sample_positions
    from acesim.kernels.net import (M_OUTPUTS, M_POINTS_SCALE, SPLIT_POINTS, bounded_points, outputs,
                                    points_range, stakes_multiplier)

    rules = Ruleset.preset(name)
    model = base_model(rules).array
    boards, _ = sample_positions(rules, 200, 4)
    ra = rules.to_array()
    ns = new_net_scratch()
    both_above_1 = 0
    for board in boards:
        if board[L.OFF] == 15 or board[L.OPP_OFF] == 15:
            continue
        p, win, loss = C.win_and_loss(model, board, ra, ns)
        assert win >= 1.0 and loss >= 1.0
        if rules.scoring == "single":
            assert win == loss == 1.0
            continue
        assert model[M_OUTPUTS] > 1
        outputs(model, board, 0, ns)
        y, scale = ns.y, model[M_POINTS_SCALE]
        if model[M_OUTPUTS] == SPLIT_POINTS:
            # the chances of the points beyond 1, given a win or a loss, held to what a game can still score
            most_won, most_lost = points_range(board, 0, ra)
            stakes = stakes_multiplier(model, ra)
            assert win == pytest.approx(min(max(1 + (scale - 1) * y[1] / p, 1), most_won * stakes), abs=1e-12)
            assert loss == pytest.approx(min(max(1 + (scale - 1) * y[2] / (1 - p), 1), most_lost * stakes),
                                         abs=1e-12)
            unbounded = 1 < win < most_won * stakes and 1 < loss < most_lost * stakes
            if unbounded:
                # the same expected points the checker play maximises
                expected = 2 * p - 1 + (scale - 1) * (y[1] - y[2])
                assert p * win - (1 - p) * loss == pytest.approx(expected, abs=1e-9)
            both_above_1 += unbounded
            continue
        expected = bounded_points(model, board, 0, ra, y[0], scale * (2 * y[1] - 1))
        assert p * win - (1 - p) * loss == pytest.approx(expected, abs=1e-9)
        assert win == 1.0 or loss == 1.0
    if model[M_OUTPUTS] == SPLIT_POINTS:
        assert both_above_1 > 50  # each side's gammons count for it, not only the net excess


@pytest.mark.parametrize("scoring", ["single", "per-checker", "gammons"])
def test_a_drop_concedes_the_game_as_it_stands(scoring):
    """One game, as in money play; under per-checker scoring the dropper's checkers not off."""
    rules = load_ruleset("european", ["cube=money", f"scoring={scoring}"]).to_array()
    for taker_off in (0, 4, 14):
        board = P({1: 1, 2: -(15 - taker_off)}).to_board()
        expected = 15 - taker_off if scoring == "per-checker" else 1
        assert C.drop_points(board, rules) == expected


# --- whole games ---------------------------------------------------------------------------------


def _ahead() -> Ruleset:
    # standard bear-off: seat A's last checker comes off with any roll; single scoring, and
    # the stakes rule so the points carry it when B rolls a 1-2 first
    return load_ruleset("european", ["cube=money", "bearoff=standard", "stakes_double_on_1_2=true"])


def test_a_dropped_double_ends_the_game_with_the_cube_before_it():
    rules = _ahead()
    # seat A has one checker left on its 1-point; seat B has everything far from home
    start = P({1: 1, 2: -5, 3: -5, 4: -5})
    a = b = load_strategy("expert")
    records = play_records(rules, a, b, 5, 0, 60, start=start)
    df = records_frame(records, rules, a, b, 5, 0)
    assert (df.winner == 0).all() and (df.dropped == 1).all()
    assert (df.points == df.cube_value * 2 ** df.stakes_doublings).all()
    assert (df.cube_value == 1).all() and (df.cube_offers_a == 1).all() and (df.cube_offers_b == 0).all()
    # A doubled before its first roll: it played no turn, and B at most the one before
    assert (df.turns_a == 0).all() and (df.rolls_a == 0).all()
    assert (df.turns_b == (df.first_mover == 1)).all()
    assert (df.borne_off_a == 14).all()


def test_the_cube_off_records_hold_no_cube_and_ask_no_network():
    rules = Ruleset.preset("navy")
    seats = lowered(load_strategy("expert"), load_strategy("random"), rules)
    assert seats.cube_models.shape == (2, 0)
    df = play_games(rules, 40, 3, "expert", "random")
    assert (df.cube_value == 1).all() and (df.dropped == 0).all()
    assert (df.cube_offers_a == 0).all() and (df.cube_offers_b == 0).all()


def test_each_seat_gets_its_own_equity_model():
    rules = load_ruleset("american", ["cube=money"])
    learned = load_strategy("learned:american")
    seats = lowered(learned, load_strategy("expert"), rules)
    net = base_model(rules).network(rules)
    assert np.array_equal(seats.cube_models[0, : len(learned.weights)], learned.weights)
    assert np.array_equal(seats.cube_models[1, : len(net)], net)
    # the cube changes no checker play: the rule set's best player is the preset's
    assert best_spec(rules) == best_spec(Ruleset.preset("american")) == "learned:any"


def test_a_seat_without_a_network_decides_the_cube_by_the_network_that_plays_the_rules():
    expert = load_strategy("expert")
    # a preset's rules: the network `best` plays under them, the preset's own where best.toml names it
    preset = load_ruleset("backgammon", ["cube=money"])
    own = load_model(shipped_path("backgammon")).array
    assert np.array_equal(lowered(expert, expert, preset).cube_models[0, : len(own)], own)
    preset = load_ruleset("european", ["cube=money"])
    folded = load_model(shipped_path("any")).network(preset)
    assert np.array_equal(lowered(expert, expert, preset).cube_models[0, : len(folded)], folded)
    # a house rule: the network that reads the rules, folded for it, in both seats
    house = load_ruleset("european", ["cube=money", "hitting=after-home"])
    folded = load_model(shipped_path("any")).network(house)
    seats = lowered(expert, expert, house)
    for seat in range(2):
        assert np.array_equal(seats.cube_models[seat, : len(folded)], folded)


@pytest.mark.parametrize("cube_max", [2, 4])
def test_the_cube_stops_at_cube_max(cube_max):
    rules = load_ruleset("navy", ["cube=money", f"cube_max={cube_max}"])
    df = play_games(rules, 150, 7, "expert", "learned:navy")
    takes = np.log2(df.cube_value).round().astype(int)
    assert (df.cube_value <= cube_max).all() and (2 ** takes == df.cube_value).all()
    offers = df.cube_offers_a + df.cube_offers_b
    assert (offers == takes + df.dropped).all()
    # at cube_max no one offers again: every offer came below it
    assert (df.cube_value == cube_max).any()
    assert (offers <= int(np.log2(cube_max))).all()


def test_every_take_in_real_games_is_at_a_taker_probability_above_zero():
    """Replays each traced game's turn starts through the cube rule; the takes it finds are the records'."""
    rules = load_ruleset("european", ["cube=money"])
    a, b = load_strategy("expert"), load_strategy("learned:european")
    traces = trace_games(rules, a, b, 9, 0, 40)
    seats = lowered(a, b, rules)
    ra = rules.to_array()
    ns = new_net_scratch()
    takes_seen = 0
    for i in range(len(traces.games)):
        record = traces.records[i]
        rolls = traces.game_rolls(i)
        owner, value, takes, offers = -1, 1, 0, 0
        previous = -1
        for row in rolls:
            side = int(row[K.T_SIDE])
            if side != previous and owner != 1 - side and 2 * value <= rules.cube_max:
                board = row[K.T_BOARD:].astype(np.int8)
                action = C.offer(board, ra, seats.cube_models[side], seats.cube_models[1 - side], owner == side, ns)
                if action != C.NO_DOUBLE:
                    offers += 1
                if action == C.TAKEN:
                    p, _, _ = C.win_and_loss(seats.cube_models[1 - side], board, ra, ns)
                    assert 1 - p > 0.0
                    takes += 1
                    value *= 2
                    owner = 1 - side
                assert action != C.DROPPED, "a dropped double ends the game before its turn's roll"
            previous = side
        assert value == record[K.CUBE_VALUE]
        assert offers + record[K.DROPPED_DOUBLE] == record[K.CUBE_OFFERS] + record[K.CUBE_OFFERS + 1]
        takes_seen += takes
    assert takes_seen > 0


# --- the knobs --------------------------------------------------------------------------------------


def test_cube_knobs_lower_to_their_codes_and_values():
    rules = load_ruleset("navy", ["cube=money", "cube_max=16"])
    array = rules.to_array()
    assert array[L.R_CUBE] == L.CUBE_MONEY and array[L.R_CUBE_MAX] == 16
    assert array[14] == 0 and array[15] == 0
    assert Ruleset.preset("navy").to_array()[L.R_CUBE] == L.CUBE_NONE
    assert parse_override("cube_max=16") == ("cube_max", 16)
    assert rules.name == "navy+cube=money+cube_max=16"
    assert "cube" not in CHECKER_KNOBS and "cube_max" not in CHECKER_KNOBS


@pytest.mark.parametrize("text", ["cube_max=3", "cube_max=abc", "cube_max=16.0", "cube_max=", "cube=yes"])
def test_bad_cube_overrides_are_one_line_errors(text):
    with pytest.raises(AcesimError, match="allowed"):
        load_ruleset("navy", [text])


@pytest.mark.parametrize("body,fragment", [
    ('preset = "navy"\ncube_max = "16"\n', "cube_max"),
    ('preset = "navy"\ncube_max = 3\n', "cube_max"),
    ('preset = "navy"\ncube_max = true\n', "cube_max"),
    ('preset = "navy"\ncube = 2\n', "cube"),
])
def test_bad_cube_values_in_rule_files(tmp_path, body, fragment):
    path = tmp_path / "house.toml"
    path.write_text(body)
    with pytest.raises(AcesimError, match=fragment):
        Ruleset.from_file(path)


def test_integer_cube_max_in_files_and_json(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('preset = "navy"\ncube = "money"\ncube_max = 16\n')
    assert Ruleset.from_file(path).cube_max == 16
    path = tmp_path / "house.json"
    path.write_text(json.dumps({"preset": "navy", "cube": "money", "cube_max": 8}))
    assert Ruleset.from_file(path).cube_max == 8


@pytest.mark.parametrize("args,fragments", [
    (["rules", "show", "navy", "--rule", "cube_max=3"], ("cube_max", "2, 4, 8, 16, 32, 64")),
    (["rules", "show", "navy", "--rule", "cube_max=abc"], ("cube_max", "abc")),
    (["compare", "--rules", "navy", "--sweep", "cube_max=2,3", "--games", "10"], ("cube_max", "3")),
    (["train", "--rules", "navy", "--rule", "cube=money", "--games", "10", "--out", "m.npz"], ("cubeless",)),
])
def test_bad_cube_input_on_the_command_line(tmp_path, args, fragments):
    console_one_line_error(console(*args, cwd=tmp_path), *fragments)
    assert not (tmp_path / "m.npz").exists()


def test_a_rule_file_with_a_string_cube_max_on_the_command_line(tmp_path):
    (tmp_path / "house.toml").write_text('preset = "navy"\ncube = 2\n')
    console_one_line_error(console("rules", "show", "house.toml", cwd=tmp_path), "cube", "none, money")


def test_rules_show_prints_the_integer_knob():
    proc = console("rules", "show", "navy", "--rule", "cube=money", "--rule", "cube_max=16", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["cube"] == "money" and data["cube_max"] == 16
    assert shipped_path("navy").exists()


def test_rules_show_says_when_cube_max_is_ignored():
    proc = console("rules", "show", "navy", "--rule", "cube_max=8")
    assert proc.returncode == 0, proc.stderr
    assert "cube_max = 8 is ignored with cube = none" in proc.stdout
    proc = console("rules", "show", "navy", "--rule", "cube=money", "--rule", "cube_max=8")
    assert "ignored" not in proc.stdout and "Source of cube = money" in proc.stdout
