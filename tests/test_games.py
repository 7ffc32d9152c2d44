"""Whole random games: identities every record row must satisfy, per preset and knob mix."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acesim.common.errors import AcesimError
from acesim.engine.games import play_games
from acesim.engine.position import Position
from acesim.engine.rules import PRESETS, Ruleset
from acesim.kernels import layout as L
from acesim.kernels.scoring import points_won
from tests.helpers import P, knob_mixes

GAMES = {"european": 60, "american": 600, "navy": 600, "backgammon": 600}


def _side(df: pd.DataFrame, column: str) -> tuple[pd.Series, pd.Series]:
    return df[f"{column}_a"], df[f"{column}_b"]


def check_identities(df: pd.DataFrame, rules: Ruleset) -> None:
    finished = df[df.unfinished == 0]
    assert (df.unfinished != 2).all()
    assert (finished.winner.isin([0, 1])).all()
    for seat in "ab":
        turns, rolls = df[f"turns_{seat}"], df[f"rolls_{seat}"]
        extra = df[f"extra_rolls_{seat}"]
        # each turn opens with one roll; every earned extra roll adds one
        assert (rolls == turns + extra).all()
        assert (df[f"doubles_{seat}"] + df[f"one_two_{seat}"] <= rolls).all()
        chosen = sum(df[f"chose_{d}_{seat}"] for d in range(1, 7))
        assert (chosen <= df[f"one_two_{seat}"]).all()
        if rules.acey_deucey == "none":
            assert (chosen == 0).all()
        if not rules.doubles_extra_roll:
            assert (extra <= chosen).all()
        if not rules.bonus_needs_full_use:
            assert (df[f"forfeits_{seat}"] == 0).all()
        assert (df[f"borne_off_{seat}"].between(0, 15)).all()
    # turns alternate: the first mover has as many turns as the other, or one more
    first_turns = np.where(df.first_mover == 0, df.turns_a, df.turns_b)
    second_turns = np.where(df.first_mover == 0, df.turns_b, df.turns_a)
    assert ((first_turns - second_turns).clip(0, 1) == first_turns - second_turns).all()
    # the doubling cube: a power of two no higher than cube_max, one offer per take plus the
    # dropped one; without the cube, none of it
    takes = np.log2(df.cube_value.clip(lower=1)).round().astype(int)
    assert (2 ** takes == df.cube_value).all() and (df.cube_value <= rules.cube_max).all()
    assert (df.cube_offers_a + df.cube_offers_b == takes + df.dropped).all()
    if rules.cube == "none":
        assert (df.cube_value == 1).all() and (df.dropped == 0).all()
        assert (df.cube_offers_a == 0).all() and (df.cube_offers_b == 0).all()
    played, dropped = finished[finished.dropped == 0], finished[finished.dropped == 1]
    # the winner of a game played out bore off all 15 and moved at least its starting pip count
    start_pips = Position.start(rules.start).pips()[0]
    winner_off = np.where(played.winner == 0, played.borne_off_a, played.borne_off_b)
    loser_off = np.where(played.winner == 0, played.borne_off_b, played.borne_off_a)
    winner_pips = np.where(played.winner == 0, played.pips_moved_a, played.pips_moved_b)
    assert (winner_off == 15).all() and (loser_off < 15).all()
    assert (winner_pips >= start_pips).all()
    # a game played out ended on the winner's turn: it moved last; a dropped double came
    # before the doubler's turn, which is not counted: the loser moved last
    for part, last in ((played, 1), (dropped, 0)):
        winner_turns = np.where(part.winner == 0, part.turns_a, part.turns_b)
        loser_turns = np.where(part.winner == 0, part.turns_b, part.turns_a)
        winner_first = part.winner == part.first_mover
        assert (np.where(winner_first, winner_turns - loser_turns, loser_turns - winner_turns)
                == np.where(winner_first, last, 1 - last)).all()
    stakes = 2 ** played.stakes_doublings
    base = played.points // (stakes * played.cube_value)
    assert (base * stakes * played.cube_value == played.points).all()
    # a drop concedes the game as it stands at the cube before the double: one game, or
    # under per-checker scoring the loser's checkers not borne off
    conceded = 1
    if rules.scoring == "per-checker":
        conceded = 15 - np.where(dropped.winner == 0, dropped.borne_off_b, dropped.borne_off_a)
    assert (dropped.points == dropped.cube_value * conceded * 2 ** dropped.stakes_doublings).all()
    if rules.scoring == "single":
        assert (base == 1).all()
    elif rules.scoring == "per-checker":
        assert (base == 15 - loser_off).all()
    else:
        assert base.isin([1, 2, 3]).all()
        assert ((base >= 2) == (loser_off == 0)).all()
    if not rules.stakes_double_on_1_2:
        assert (finished.stakes_doublings == 0).all()
    else:
        assert (finished.stakes_doublings == finished.one_two_a + finished.one_two_b).all()


@pytest.mark.parametrize("name", list(PRESETS))
def test_record_identities_per_preset(name):
    rules = PRESETS[name]
    df = play_games(rules, GAMES[name], seed=21)
    assert len(df) == GAMES[name] and (df.unfinished == 0).all()
    check_identities(df, rules)


@settings(max_examples=25, deadline=None)
@given(knobs=knob_mixes(), seed=st.integers(0, 2**32 - 1))
def test_record_identities_under_random_knob_mixes(knobs, seed):
    rules = Ruleset.preset("navy").with_overrides(knobs)
    n = 6 if rules.doubles == "four-plus-complement" else 40
    check_identities(play_games(rules, n, seed), rules)


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("pairing", [("expert", "racer"), ("safe", "blocker@beam=2"), ("expert@full", "random")])
def test_record_identities_with_heuristic_strategies(name, pairing):
    rules = PRESETS[name]
    n = 20 if "random" in pairing and name == "european" else 60
    df = play_games(rules, n, 3, *pairing)
    assert (df.unfinished == 0).all()
    check_identities(df, rules)
    assert (df.strategy_a == pairing[0]).all() and (df.strategy_b == pairing[1]).all()


def test_same_seed_same_records_other_seed_other_records():
    rules = PRESETS["navy"]
    a = play_games(rules, 50, seed=5)
    pd.testing.assert_frame_equal(a, play_games(rules, 50, seed=5))
    assert not a.equals(play_games(rules, 50, seed=6))


def test_dice_frequencies_match_two_fair_dice():
    """P(double) = 1/6 and P(1-2) = 1/18 over the rolls of random games (the opening
    roll under opening=use is never a double, so backgammon is left out)."""
    df = play_games(PRESETS["american"], 1500, seed=8)
    rolls = int((df.rolls_a + df.rolls_b).sum())
    for column, p in (("doubles", 1 / 6), ("one_two", 1 / 18)):
        observed = int((df[f"{column}_a"] + df[f"{column}_b"]).sum()) / rolls
        tolerance = 4 * math.sqrt(p * (1 - p) / rolls)  # 4 sigma: rare false alarms
        assert abs(observed - p) < tolerance, (column, observed, p, rolls)


def test_game_count_and_cap_must_be_positive():
    with pytest.raises(AcesimError, match="number of games must be positive"):
        play_games(PRESETS["navy"], 0, seed=1)
    with pytest.raises(AcesimError, match="turn cap must be positive"):
        play_games(PRESETS["navy"], 5, seed=1, turn_cap=0)


def test_turn_cap_ends_games_unfinished_never_as_wins():
    df = play_games(PRESETS["backgammon"], 30, seed=2, turn_cap=20)
    assert (df.unfinished == 1).all() and (df.winner == -1).all() and (df.points == 0).all()
    assert ((df.turns_a + df.turns_b) == 20).all()


@pytest.mark.parametrize(
    "scoring, loser, expected",
    [
        ("single", {"off": 0}, 1),
        ("per-checker", {"off": 4}, 11),
        ("gammons", {"off": 1}, 1),
        ("gammons", {"off": 0}, 2),
        ("gammons", {"off": 0, "bar": 1}, 3),
        ("gammons", {"off": 0, "waiting": 1}, 3),
        ("gammons", {"off": 0, "home": 1}, 3),
    ],
)
def test_points_won(scoring, loser, expected):
    """The mover has just borne off its 15th checker; the loser's checkers decide."""
    off = loser.get("off", 0)
    bar, waiting, home = loser.get("bar", 0), loser.get("waiting", 0), loser.get("home", 0)
    rest = 15 - off - bar - waiting - home
    pts = {20: -rest}
    if home:
        pts[3] = -home
    pos = P(pts, bar=(0, bar), waiting=(0, waiting), off=(15, off))
    rules = Ruleset.preset("navy").with_overrides({"scoring": scoring})
    assert points_won(pos.to_board(), rules.to_array(), 0) == expected
    assert points_won(pos.to_board(), rules.to_array(), 2) == 4 * expected
    assert L.N_CHECKERS == 15


@pytest.mark.parametrize("name", ["european", "backgammon"])
def test_the_game_loop_grows_the_random_strategys_scratch(name):
    """Random games from a scratch too small for most doubles play exactly as from a large one."""
    from acesim.engine.strategies import load_strategy, lowered
    from acesim.engine.streams import block_keys
    from acesim.kernels import game_loop as K
    from acesim.kernels.memory import worker_memory
    from acesim.kernels.uniform import new_uniform_scratch

    rules = PRESETS[name]
    s = load_strategy("random")
    seats = lowered(s, s, rules)
    start = Position.start(rules.start).to_board()
    records = []
    for capacity in (64, 1 << 16):
        rec = np.zeros((6, K.N_RECORD), dtype=np.int64)
        memory = worker_memory()._replace(draws=new_uniform_scratch(capacity))
        grown = K.play_games(start, rules.to_array(), block_keys(5, 0, 6), 0, 100_000, seats, memory, rec,
                             np.zeros((6, 0, K.TRACE_WIDTH), dtype=np.int64), np.zeros(6, dtype=np.int64))
        assert grown.draws.shape[0] >= memory.draws.shape[0]
        records.append(rec)
    assert np.array_equal(records[0], records[1])
    assert (records[0][:, K.WINNER] >= 0).all()
