"""Statistical validation of whole random games against exact figures and independent engines.

Every check compares an estimate with an expected value (or two estimates with
each other) within a tolerance derived from the sample sizes, never from an
observed result:

* a count of Bernoulli events with known probabilities ``p_i`` (dice):
  ``|count - sum p_i| <= Z * sqrt(sum p_i (1 - p_i))``;
* two proportions (pooled two-sample z test):
  ``|p1 - p2| <= Z * sqrt(p_bar (1 - p_bar) (1/n1 + 1/n2))``, ``p_bar`` the pooled rate;
* one mean with known variance ``var``: ``|mean - mu| <= Z * sqrt(var / n)``;
* two means (Welch): ``|m1 - m2| <= Z * sqrt(s1^2/n1 + s2^2/n2)``.

``Z = 4`` (four standard errors, normal approximation): a correct engine
fails one comparison with probability about 6e-5, so all 23 comparisons of
this file together give a false alarm for about 1 seed in 700.  The seeds are
fixed, so a run is reproducible.

The ``random`` strategy picks uniformly among the distinct resulting positions
of each segment (and the double after a 1-2 uniformly among 1..6).  The second
engines below are driven by exactly that policy, so that any disagreement
points at the rules, not at the policy.

Run with ``pytest -s`` to see the measured figures.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd
import pyspiel  # noqa: F401  (required test extra: a missing package must fail, not skip)
import pytest

from acesim.common.stats import wilson
from acesim.engine.games import play_games, play_records
from acesim.engine.moves import legal_plays
from acesim.engine.openspiel_bridge import dice_of, is_roll_start, load_game, position_from_state
from acesim.engine.position import Position
from acesim.engine.rules import PRESETS, load_ruleset
from acesim.engine.strategies import load_strategy
from acesim.engine.streams import block_keys
from acesim.kernels import game_loop as K
from acesim.kernels.board import pip_count
from acesim.kernels.choice import RANDOM, play_segment
from acesim.kernels.evaluate import N_FEATURES
from acesim.kernels.layout import OFF, OPP_BAR, OPP_OFF
from acesim.kernels.memory import worker_memory
from acesim.kernels.rng import STREAM_WORDS, die, seed_game_streams
from tests.reference_rules import (
    all_sequences,
    bar_may_enter,
    doubles_by_layers,
    reference_plays,
    single_moves,
    to_position,
    to_state,
)

Z = 4.0  # standard errors of tolerance for every comparison (see the module docstring)

BACKGAMMON = load_ruleset("backgammon")

# acesim's own random-vs-random backgammon games, shared by tests 1 and 4
# (~2500 games/s, so a few seconds).
N_ACESIM = 20_000
ACESIM_SEED = 20250101

# The pure-Python reference engine plays ~25-45 backgammon games/s on this
# machine (measured: 3.8 games/s through ``reference_plays`` itself, whose cost
# is building a validated Position per move sequence; ~12 games/s with
# ``merge_states``; the state-level wrapper below, checked against
# ``reference_plays`` on its first games, is 2-4x faster again).  800 games
# take ~15 s.
N_REFERENCE = 800
REFERENCE_SEED = 777
N_REFERENCE_CHECKED = 3  # games whose every roll is also checked against reference_plays

# OpenSpiel driven by acesim's policy: ~0.15-0.2 s per game (each roll expands
# every action, and both halves of a double, to find the distinct results).
N_OPENSPIEL = 150
OPENSPIEL_SEED = 4242
N_OPENSPIEL_CHECKED = 2  # games whose every roll's result set is checked against acesim
N_OPENSPIEL_UNIFORM = 1000  # uniform-ACTION games, reported only


# --- small statistics helpers -------------------------------------------------------


def two_proportion_tolerance(x1: int, n1: int, x2: int, n2: int) -> float:
    """``Z`` standard errors of ``p1 - p2`` under the null ``p1 = p2`` (pooled)."""
    p = (x1 + x2) / (n1 + n2)
    return Z * math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))


def welch_tolerance(a: np.ndarray, b: np.ndarray) -> float:
    """``Z`` standard errors of ``mean(a) - mean(b)`` for independent samples."""
    return Z * math.sqrt(np.var(a, ddof=1) / len(a) + np.var(b, ddof=1) / len(b))


def show_wilson(label: str, x: int, n: int) -> str:
    low, high = wilson(x, n)
    return f"{label}: {x}/{n} = {x / n:.4f} (95% Wilson {low:.4f}-{high:.4f})"


def show_mean(label: str, values: np.ndarray) -> str:
    m, sd = float(np.mean(values)), float(np.std(values, ddof=1))
    half = 1.96 * sd / math.sqrt(len(values))
    return f"{label}: {m:.3f} ± {half:.3f} (sd {sd:.2f}, n {len(values)})"


# --- acesim's games -------------------------------------------------------------------


@pytest.fixture(scope="module")
def acesim_games() -> pd.DataFrame:
    df = play_games(BACKGAMMON, N_ACESIM, ACESIM_SEED)
    assert (df.unfinished == 0).all(), "a random backgammon game reached the turn cap"
    return df


# --- 1. the reference engine's games -----------------------------------------------------
#
# The reference of tests/reference_rules.py works on plain state tuples
# ``(points, bar_m, bar_o, waiting_m, waiting_o, off_m, off_o)``.  Its
# ``reference_plays`` turns every finished move sequence into a validated
# Position, which is what makes it slow; ``reference_results`` applies the same
# section-2 selection to the same sequences but keeps the states, and the first
# games check it against ``reference_plays`` roll by roll.


def reference_results(state: tuple, dice: tuple[int, int]) -> set[tuple]:
    """The distinct final states of the legal plays of ``dice`` (docs/rules.md section 2)."""
    a, b = dice
    if a == b:  # fixed order; sequences meeting in one state are followed once
        finals, _ = doubles_by_layers(BACKGAMMON, state, [a] * 4, None)
        return finals
    may_enter = bar_may_enter(BACKGAMMON, (a, b))
    sequences = all_sequences(BACKGAMMON, state, [a, b], may_enter, None)
    sequences += all_sequences(BACKGAMMON, state, [b, a], may_enter, None)
    used = max(len(moves) for moves, _ in sequences)
    best = [(moves, final) for moves, final in sequences if len(moves) == used]
    if used == 1:  # only one die playable: the higher one if it alone can be played
        high, low = max(a, b), min(a, b)
        wanted = high if single_moves(BACKGAMMON, state, high, bar_may_enter(BACKGAMMON, (high, low))) else low
        best = [(moves, final) for moves, final in best if moves[0][0] == wanted]
    return {final for _, final in best}


def flip_state(state: tuple) -> tuple:
    points, bar_m, bar_o, wait_m, wait_o, off_m, off_o = state
    return (tuple(-v for v in reversed(points)), bar_o, bar_m, wait_o, wait_m, off_o, off_m)


def reference_game(
    rng: random.Random, start: Position, check: bool = False
) -> tuple[bool, int, int]:
    """One random-vs-random game under the backgammon preset (docs/rules.md section 3).

    Returns ``(first mover won, turns, winner's points)``.  ``start`` must look
    the same from either side (whoever moves first sees it).  Opening: one die
    each, ties roll again, the higher die moves first and plays both dice
    (``opening = use``); no extra rolls; doubles play four; 15 off ends the game.
    """
    die_a, die_b = rng.randint(1, 6), rng.randint(1, 6)
    while die_a == die_b:
        die_a, die_b = rng.randint(1, 6), rng.randint(1, 6)
    first = 0 if die_a > die_b else 1
    side, turns, dice = first, 0, (die_a, die_b)
    state = to_state(start)
    while True:
        turns += 1
        finals = reference_results(state, dice)
        if check:
            expected, _ = reference_plays(BACKGAMMON, to_position(state), dice)
            assert {to_position(f) for f in finals} == expected, (state, dice)
        ordered = sorted(finals)  # a fixed order, so the seed fixes the game
        state = ordered[rng.randrange(len(ordered))]
        if state[5] == 15:
            points, _, bar_o, _, _, _, off_o = state
            if off_o > 0:
                score = 1
            elif bar_o > 0 or any(v < 0 for v in points[:6]):
                score = 3  # loser on the bar or in the winner's home board
            else:
                score = 2
            return side == first, turns, score
        state = flip_state(state)
        side = 1 - side
        dice = (rng.randint(1, 6), rng.randint(1, 6))


@pytest.mark.slow
def test_first_mover_win_rate_acesim_vs_reference_engine(acesim_games: pd.DataFrame) -> None:
    """P(first mover wins), game length and gammon rate: acesim vs the reference engine.

    Tolerances: pooled two-proportion z test and Welch's test, ``Z`` sigma,
    from both sample sizes (see the module docstring).
    """
    df = acesim_games
    ace_first = df.winner == df.first_mover
    ace_turns = (df.turns_a + df.turns_b).to_numpy()
    ace_gammons = df.points >= 2

    rng = random.Random(REFERENCE_SEED)
    start = Position.start("backgammon")
    games = [reference_game(rng, start, check=i < N_REFERENCE_CHECKED) for i in range(N_REFERENCE)]
    ref_first = sum(won for won, _, _ in games)
    ref_turns = np.array([turns for _, turns, _ in games])
    ref_gammons = sum(score >= 2 for _, _, score in games)

    n_ace, n_ref = len(df), len(games)
    print()
    print(show_wilson("acesim    first mover wins", int(ace_first.sum()), n_ace))
    print(show_wilson("reference first mover wins", ref_first, n_ref))
    print(show_mean("acesim    turns per game", ace_turns))
    print(show_mean("reference turns per game", ref_turns))
    print(show_wilson("acesim    gammon or backgammon", int(ace_gammons.sum()), n_ace))
    print(show_wilson("reference gammon or backgammon", ref_gammons, n_ref))

    for label, x_ace, x_ref in (
        ("first mover wins", int(ace_first.sum()), ref_first),
        ("gammon or backgammon", int(ace_gammons.sum()), ref_gammons),
    ):
        diff = x_ace / n_ace - x_ref / n_ref
        tolerance = two_proportion_tolerance(x_ace, n_ace, x_ref, n_ref)
        assert abs(diff) <= tolerance, (label, x_ace / n_ace, x_ref / n_ref, tolerance)
    diff = ace_turns.mean() - ref_turns.mean()
    tolerance = welch_tolerance(ace_turns, ref_turns)
    assert abs(diff) <= tolerance, ("turns per game", ace_turns.mean(), ref_turns.mean(), tolerance)


# The reference engine cannot play enough whole backgammon games for the
# first-mover rate to say much: random play gives the first mover only ~0.3
# points of advantage, while 800 games give a tolerance of ~±0.07.  So the
# same comparison also runs on a short game where the first mover matters and
# both engines play many games: a pure race from a symmetric bear-off start
# (each side 3-3-3-2-2-2 on its points 1..6), with the same rules (backgammon
# preset: opening = use, doubles four, standard bear-off), the same policy and
# the same whole-game loop on the acesim side (the game kernel behind
# ``play_games``, given this start).  ~16 turns a game; the reference plays
# ~300-500 games/s.  The race is sensitive to the opening rule: with
# ``opening = reroll`` acesim gives 0.603 first-mover wins and 16.07 turns
# against 0.576 and 16.26 with ``use`` (200 000 games each), differences that
# are about 1.1x and 1.9x the tolerances below (~0.024 and ~0.10).
RACE = Position(points=(3, 3, 3, 2, 2, 2) + (0,) * 12 + (-2, -2, -2, -3, -3, -3))
N_RACE_ACESIM = 50_000
N_RACE_REFERENCE = 10_000
RACE_SEED = 5150


def acesim_records(start: Position, rules, n_games: int, seed: int) -> np.ndarray:
    """Random-vs-random records of ``n_games`` games from ``start``."""
    uniform = load_strategy("random")
    records = play_records(rules, uniform, uniform, seed, 0, n_games, start=start)
    assert (records[:, K.UNFINISHED] == 0).all()
    return records


@pytest.mark.slow
def test_first_mover_win_rate_in_a_race_acesim_vs_reference_engine() -> None:
    """The fair alternative: first-mover wins and turns in a short race, both engines.

    Tolerances: pooled two-proportion z test and Welch's test, ``Z`` sigma.
    """
    assert RACE.flipped() == RACE
    records = acesim_records(RACE, BACKGAMMON, N_RACE_ACESIM, RACE_SEED)
    ace_first = int((records[:, K.WINNER] == records[:, K.FIRST_MOVER]).sum())
    ace_turns = records[:, K.TURNS] + records[:, K.TURNS + 1]

    rng = random.Random(RACE_SEED)
    games = [reference_game(rng, RACE, check=i < 20) for i in range(N_RACE_REFERENCE)]
    ref_first = sum(won for won, _, _ in games)
    ref_turns = np.array([turns for _, turns, _ in games])

    n_ace, n_ref = len(records), len(games)
    print()
    print(show_wilson("race: acesim    first mover wins", ace_first, n_ace))
    print(show_wilson("race: reference first mover wins", ref_first, n_ref))
    print(show_mean("race: acesim    turns per game", ace_turns))
    print(show_mean("race: reference turns per game", ref_turns))
    diff = ace_first / n_ace - ref_first / n_ref
    tolerance = two_proportion_tolerance(ace_first, n_ace, ref_first, n_ref)
    assert abs(diff) <= tolerance, ("first mover wins", ace_first / n_ace, ref_first / n_ref, tolerance)
    diff = ace_turns.mean() - ref_turns.mean()
    tolerance = welch_tolerance(ace_turns, ref_turns)
    assert abs(diff) <= tolerance, ("turns per game", ace_turns.mean(), ref_turns.mean(), tolerance)


# --- 2. pips per roll when nothing can block ---------------------------------------------


def roll_moments() -> tuple[Fraction, Fraction]:
    """Exact mean and variance of the pips one roll moves (a double counts 4 x d)."""
    values = [4 * a if a == b else a + b for a in range(1, 7) for b in range(1, 7)]
    mean = Fraction(sum(values), 36)
    var = Fraction(sum(v * v for v in values), 36) - mean * mean
    return mean, var


# The opponent's 15 checkers stand on its own 1-point (the mover's 24), where the
# mover never lands; the mover's 15 start on point 23 and run downhill.  Bearing
# off needs all 15 home, 15 x 17 = 255 pips away, and ROLLS_PER_RUN rolls move at
# most 24 pips each, so no run can bear off; a checker outside home (>= 7) can
# always play any die (its target is >= 1 and open), so every die is playable.
FREE_RUN = Position(points=(0,) * 22 + (15, -15))
ROLLS_PER_RUN = 10
assert 24 * ROLLS_PER_RUN < 15 * (23 - 6)
N_RUNS = 5_000
PIPS_SEED = 99


def test_mean_pips_per_roll_is_49_over_6_when_nothing_blocks() -> None:
    expected, variance = roll_moments()
    assert expected == Fraction(49, 6)
    rules = BACKGAMMON.to_array()
    ws, uniform, _, sc = worker_memory()
    out = np.zeros(3, dtype=np.int64)
    weights = np.zeros(N_FEATURES, dtype=np.float64)
    dice = np.zeros(STREAM_WORDS, dtype=np.uint64)
    choices = np.zeros(STREAM_WORDS, dtype=np.uint64)
    seed_game_streams(block_keys(PIPS_SEED, 0, 1)[0], 0, dice, choices)
    start = FREE_RUN.to_board()
    pips = np.zeros(N_RUNS * ROLLS_PER_RUN, dtype=np.int64)
    short = []
    k = 0
    for _ in range(N_RUNS):
        board = start.copy()
        for _ in range(ROLLS_PER_RUN):
            a, b = int(die(dice)), int(die(dice))
            before = int(pip_count(board))
            ws, uniform, n, used = play_segment(
                board, rules, a, b, False, RANDOM, 0, weights, choices, ws, uniform, out, sc
            )
            if used != n:
                short.append((Position.from_board(board), (a, b), int(used), int(n)))
            pips[k] = before - int(pip_count(board))
            k += 1
        assert board[OFF] == 0 and board[OPP_OFF] == 0 and board[OPP_BAR] == 0
        assert board[23] == -15, "the opponent's checkers must not move"
    assert not short, f"{len(short)} rolls did not use all their dice, e.g. {short[:3]}"
    n = len(pips)
    mean = pips.mean()
    # known variance of one roll's pips (exact, from the 36 outcomes): Z sigma of the mean
    tolerance = Z * math.sqrt(float(variance) / n)
    print(f"\npips per roll: {mean:.4f} over {n} rolls; expected {float(expected):.4f} "
          f"± {tolerance:.4f} (sd per roll {math.sqrt(float(variance)):.3f})")
    assert abs(mean - float(expected)) <= tolerance, (mean, float(expected), tolerance)


# --- 3. dice frequencies -------------------------------------------------------------------

# (rules, strategy, games): about 100 000 rolls each.  The American preset with
# random play is already covered by tests/test_games.py.  The European preset is
# slow with ``random`` (~10 games/s), so it runs with ``expert`` (~600 games/s).
REROLL_BACKGAMMON = PRESETS["backgammon"].with_overrides({"opening": "reroll"})
DICE_CASES = [
    (PRESETS["american"], "expert", 1000),
    (PRESETS["navy"], "random", 500),
    (PRESETS["navy"], "expert", 1000),
    (PRESETS["european"], "expert", 1000),
    (REROLL_BACKGAMMON, "random", 1000),
    (REROLL_BACKGAMMON, "expert", 2000),
    (PRESETS["backgammon"], "random", 1000),  # opening = use: handled below
    (PRESETS["backgammon"], "expert", 2000),
]


@pytest.mark.parametrize(
    "rules, strategy, n_games", DICE_CASES, ids=[f"{r.name}-{s}" for r, s, _ in DICE_CASES]
)
def test_dice_frequencies(rules, strategy, n_games) -> None:
    """P(double) = 1/6 and P(1-2) = 1/18 for every roll of two fresh dice.

    Under ``opening = use`` each game's first roll is the opening pair, never a
    double and a 1-2 with probability 2/30 = 1/15 (uniform over the 30 ordered
    non-double pairs).  So with ``R`` rolls and ``g`` opening rolls, the counts
    have expectation ``D = (R - g)/6`` and ``T = g/15 + (R - g)/18`` and
    variance ``(R - g)(1/6)(5/6)`` and ``g (1/15)(14/15) + (R - g)(1/18)(17/18)``
    (independent Bernoulli rolls; the number of rolls is a stopping time, so
    the expectation holds by optional stopping).  ``g = 0`` under ``reroll``.
    Tolerance: ``Z`` standard deviations of the count.
    """
    df = play_games(rules, n_games, seed=31, strategy_a=strategy, strategy_b=strategy)
    assert (df.unfinished == 0).all()
    rolls = int((df.rolls_a + df.rolls_b).sum())
    openings = n_games if rules.opening == "use" else 0
    fresh = rolls - openings
    doubles = int((df.doubles_a + df.doubles_b).sum())
    one_two = int((df.one_two_a + df.one_two_b).sum())
    checks = (
        ("doubles", doubles, fresh / 6, fresh * (1 / 6) * (5 / 6)),
        (
            "one_two",
            one_two,
            openings / 15 + fresh / 18,
            openings * (1 / 15) * (14 / 15) + fresh * (1 / 18) * (17 / 18),
        ),
    )
    print(f"\n{rules.name} {strategy}: {rolls} rolls ({openings} opening rolls): "
          f"doubles {doubles / rolls:.5f}, 1-2 {one_two / rolls:.5f}")
    for label, observed, mean, var in checks:
        tolerance = Z * math.sqrt(var)
        assert abs(observed - mean) <= tolerance, (label, observed, mean, tolerance, rolls)


# --- 4. OpenSpiel's backgammon driven by acesim's policy -----------------------------------


def test_openspiel_opening_is_opening_use() -> None:
    """OpenSpiel's first chance node is acesim's ``opening = use``; later rolls are fair dice.

    Under ``opening = use`` (one die each, ties again, the higher die moves
    first with both dice) each (first mover, unordered non-double roll) pair has
    probability 1/30.  OpenSpiel's first chance node has 30 outcomes; each must
    start a decision of one player with a non-double, the 30 (player, roll)
    pairs all different, each with probability 1/30.
    """
    initial = load_game().new_initial_state()
    outcomes = initial.chance_outcomes()
    seen = Counter()
    for action, p in outcomes:
        state = initial.child(action)
        assert is_roll_start(state)
        assert position_from_state(state) == Position.start("backgammon")
        a, b = dice_of(state)
        assert a != b
        seen[(state.current_player(), min(a, b), max(a, b))] += 1
        assert p == pytest.approx(1 / 30)
    assert len(outcomes) == 30 and len(seen) == 30 and set(seen.values()) == {1}
    # a later roll: 36 ordered outcomes of two fair dice
    state = initial.child(outcomes[0][0])
    state.apply_action(state.legal_actions()[0])
    assert state.is_chance_node()
    rolls = Counter()
    for action, p in state.chance_outcomes():
        child = state.child(action)
        a, b = dice_of(child)
        rolls[(min(a, b), max(a, b))] += p
    assert len(rolls) == 21
    for (a, b), p in rolls.items():
        assert p == pytest.approx(1 / 36 if a == b else 2 / 36)


def openspiel_results(state) -> dict[tuple, tuple[int, ...]]:
    """The distinct positions the mover's whole roll can reach, each with one action path.

    A non-double is one decision; a double is one or two (the second only after
    a first action that used both its dice).  Positions are keyed by the
    observation tensor in the mover's view (it encodes every point, both bars,
    both off counts), which is much faster than building a Position.
    Intermediate states of a double are expanded once each: what the second
    half can do depends only on that state.
    """
    mover = state.current_player()
    results: dict[tuple, tuple[int, ...]] = {}
    halves = set()
    for first in state.legal_actions():
        child = state.child(first)
        if child.current_player() == mover:  # second half of a double
            key = tuple(child.observation_tensor(mover))
            if key in halves:
                continue
            halves.add(key)
            for second in child.legal_actions():
                results.setdefault(tuple(child.child(second).observation_tensor(mover)), (first, second))
        else:
            results.setdefault(tuple(child.observation_tensor(mover)), (first,))
    return results


def sample_chance(state, rng: random.Random) -> int:
    actions, probabilities = zip(*state.chance_outcomes())
    return rng.choices(actions, weights=probabilities)[0]


def openspiel_game(game, rng: random.Random, policy: str, check: bool = False) -> int:
    """Turns of one OpenSpiel game: ``policy`` ``"positions"`` (acesim's random) or ``"actions"``.

    A turn is one chance node: each roll of the dice (the opening included,
    which is the first mover's first roll) starts one side's turn, and
    OpenSpiel's backgammon has no extra rolls.
    """
    state = game.new_initial_state()
    turns = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            turns += 1
            continue
        if policy == "actions":
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])
            continue
        results = openspiel_results(state)
        if check:
            mover, dice = state.current_player(), dice_of(state)
            reached = set()
            for path in results.values():
                final = state.clone()
                for action in path:
                    final.apply_action(action)
                reached.add(position_from_state(final, mover))
            assert len(reached) == len(results)
            assert reached == legal_plays(BACKGAMMON, position_from_state(state), dice).positions()
        keys = sorted(results)  # a fixed order, so the seed fixes the game
        for action in results[keys[rng.randrange(len(keys))]]:
            state.apply_action(action)
    assert max(state.returns()) > 0, "OpenSpiel ended a game at its turn cap"
    return turns


@pytest.mark.slow
def test_mean_turns_openspiel_driven_by_acesim_policy_vs_acesim(acesim_games: pd.DataFrame) -> None:
    """Mean turns per game: OpenSpiel with acesim's ``random`` policy vs acesim.

    Tolerance: Welch, ``Z * sqrt(s1^2/n1 + s2^2/n2)`` from both samples.
    """
    game = load_game()
    rng = random.Random(OPENSPIEL_SEED)
    os_turns = np.array(
        [openspiel_game(game, rng, "positions", check=i < N_OPENSPIEL_CHECKED) for i in range(N_OPENSPIEL)]
    )
    ace_turns = (acesim_games.turns_a + acesim_games.turns_b).to_numpy()
    print()
    print(show_mean("acesim                    turns per game", ace_turns))
    print(show_mean("OpenSpiel, acesim policy  turns per game", os_turns))
    diff = os_turns.mean() - ace_turns.mean()
    tolerance = welch_tolerance(os_turns, ace_turns)
    assert abs(diff) <= tolerance, (os_turns.mean(), ace_turns.mean(), tolerance)


def test_report_openspiel_uniform_action_games(acesim_games: pd.DataFrame) -> None:
    """Reported, not compared: OpenSpiel's own random player (uniform over ACTIONS).

    Several actions can reach one position, so this is a different policy
    from acesim's ``random``; the figure shows how much that matters for game
    length.  Only that every game ends by bearing off is asserted.
    """
    game = load_game()
    rng = random.Random(OPENSPIEL_SEED + 1)
    turns = np.array([openspiel_game(game, rng, "actions") for _ in range(N_OPENSPIEL_UNIFORM)])
    ace_turns = (acesim_games.turns_a + acesim_games.turns_b).to_numpy()
    z = (turns.mean() - ace_turns.mean()) / math.sqrt(
        np.var(turns, ddof=1) / len(turns) + np.var(ace_turns, ddof=1) / len(ace_turns)
    )
    print()
    print(show_mean("OpenSpiel uniform actions turns per game", turns))
    print(show_mean("acesim (uniform positions) turns per game", ace_turns))
    print(f"difference {turns.mean() - ace_turns.mean():+.3f} turns, z = {z:+.2f}")
    assert len(turns) == N_OPENSPIEL_UNIFORM
