"""The Numba engine (``acesim.engine.moves.legal_plays``) against the independent reference.

``reference_rules.py`` is a plain pure-Python reading of docs/rules.md sections 1,
2, 4 and 5 that follows every sequence of single-checker moves.  Here both are
asked for the legal plays (distinct resulting positions) and the dice used on:

* hand-checked cases (the reference first, then the engine);
* positions met in random games under each of the four presets;
* the long European doubles segments (8 dice: the double and its complement);
* Hypothesis: random knob mixes with positions from random games, and
  arbitrary valid positions (spread, bear-off, bar-heavy) with random dice,
  and with the double played after a 1-2 (``bonus=True``).

The reference is slow, so every comparison has a budget of single moves; a
case over budget is skipped and counted, never silently.  The counts are
printed (``pytest -s``) when the module finishes.
"""

from __future__ import annotations

import collections
import dataclasses
import json

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from acesim.engine.moves import legal_plays
from acesim.engine.position import Position
from acesim.engine.rules import KNOB_VALUES, KNOBS, Ruleset
from acesim.engine.sampling import sample_positions
from tests.reference_rules import TooMuchWork, reference_plays

PRESET_NAMES = ("european", "american", "navy", "backgammon")
EUROPEAN = Ruleset.preset("european")
AMERICAN = Ruleset.preset("american")
NAVY = Ruleset.preset("navy")

# Single moves the reference may explore per comparison.
BUDGET_EIGHT_DIE = 3_000  # the plain walk of an 8-die segment grows very fast
BUDGET_OTHER = 200_000  # never reached in practice by 2- and 4-die segments
BUDGET_MERGED = 12_000  # the state-merging walk for the heavy 8-die segments

STATS: collections.Counter[str] = collections.Counter()


@pytest.fixture(scope="module", autouse=True)
def _report_counts():
    yield
    print("\nreference comparisons (checked / skipped over budget):")
    for key in sorted(STATS):
        print(f"  {key}: {STATS[key]}")


# --- comparing ------------------------------------------------------------------


def segment_length(rules: Ruleset, dice: tuple[int, int], bonus: bool = False) -> int:
    """2, 4 or 8; ``bonus``: the double played after a 1-2 (only complement-after-1-2 reads it)."""
    if dice[0] != dice[1]:
        return 2
    if rules.doubles == "four-plus-complement":
        return 8
    if rules.doubles == "complement-after-1-2" and bonus and rules.acey_deucey != "none":
        return 8
    return 4


def describe(rules: Ruleset, pos: Position, dice, engine, ref, bonus: bool = False) -> str:
    engine_set, engine_used = engine
    ref_set, ref_used = ref
    knobs = {k: v for k, v in rules.knobs().items()}
    only_engine = sorted(json.dumps(p.to_json()) for p in engine_set - ref_set)
    only_ref = sorted(json.dumps(p.to_json()) for p in ref_set - engine_set)
    return (
        "engine and reference disagree\n"
        f"position: {json.dumps(pos.to_json())}\n"
        f"rules: {json.dumps(knobs)}\n"
        f"dice: {list(dice)}{' (bonus: the double after a 1-2)' if bonus else ''}\n"
        f"dice_used: engine {engine_used}, reference {ref_used}\n"
        f"plays: engine {len(engine_set)}, reference {len(ref_set)}\n"
        f"only in engine ({len(only_engine)}): {only_engine[:10]}\n"
        f"only in reference ({len(only_ref)}): {only_ref[:10]}\n"
        f"{pos.render()}"
    )


def compare(
    rules: Ruleset, pos: Position, dice, category: str, merged_fallback: bool = True, bonus: bool = False
) -> bool:
    """Assert engine == reference; False (and a counted skip) when over budget.

    An 8-die segment first gets the plain walk of every sequence; when that is
    over budget and ``merged_fallback`` is on, the state-merging walk.
    ``bonus``: the double ``dice`` is the one played after a 1-2.
    """
    dice = (int(dice[0]), int(dice[1]))
    length = segment_length(rules, dice, bonus)
    attempts = [("plain walk", BUDGET_OTHER, False)]
    if length == 8:
        attempts = [("plain walk", BUDGET_EIGHT_DIE, False)]
        if merged_fallback:
            attempts.append(("merged states", BUDGET_MERGED, True))
    for walk, budget, merge_states in attempts:
        try:
            ref = reference_plays(rules, pos, dice, budget=budget, merge_states=merge_states, bonus=bonus)
        except TooMuchWork:
            continue
        # ``bonus`` only when set: the other comparisons do not depend on the keyword.
        res = legal_plays(rules, pos, dice, bonus=True) if bonus else legal_plays(rules, pos, dice)
        engine = (res.positions(), res.dice_used)
        assert engine == ref, describe(rules, pos, dice, engine, ref, bonus)
        assert res.complete == (res.dice_used == length)
        assert len(res.segment) == length
        STATS[f"{category} [{length}-die] checked, {walk}"] += 1
        return True
    STATS[f"{category} [{length}-die] skipped (over budget)"] += 1
    return False


def game_over(pos: Position) -> bool:
    return pos.off[0] == 15 or pos.off[1] == 15


# --- hand-checked cases -------------------------------------------------------------


def P(pts=None, bar=(0, 0), waiting=(0, 0)) -> Position:
    """``{point: count}`` (positive mover, negative opponent); the rest of each side is off."""
    points = [0] * 24
    for point, count in (pts or {}).items():
        points[point - 1] = count
    mover = sum(v for v in points if v > 0)
    opp = -sum(v for v in points if v < 0)
    off = (15 - mover - bar[0] - waiting[0], 15 - opp - bar[1] - waiting[1])
    return Position(tuple(points), tuple(bar), tuple(waiting), off)


HAND_CASES = [
    # From the start 6-3: waiting/19 waiting/22, or one checker waiting/19/16 = waiting/22/16.
    ("start 6-3", EUROPEAN, P(waiting=(15, 15)), (6, 3),
     {P({19: 1, 22: 1}, waiting=(13, 15)), P({16: 1}, waiting=(14, 15))}, 2),
    # Exact bear-off: a lone checker on 3 cannot use a 6 or a 5.
    ("exact 6-5 from 3", EUROPEAN, P({3: 1}, waiting=(0, 15)), (6, 5),
     {P({3: 1}, waiting=(0, 15))}, 0),
    # Standard: the 6 (higher) bears it off from the highest point; game over after 1 die.
    ("standard 6-5 from 3", AMERICAN, P({3: 1}, waiting=(0, 15)), (6, 5),
     {P(waiting=(0, 15))}, 1),
    # 6/off alone ends the game with one die, but 6/5* 5/off uses both: only the hit play.
    ("hit before last off", AMERICAN, P({6: 1, 5: -1}, waiting=(0, 14)), (6, 1),
     {P(bar=(0, 1), waiting=(0, 14))}, 2),
    # Only one die usable: the higher (6: 10/4) when it can be played ...
    ("higher die", NAVY, P({10: 1, 5: -2}, waiting=(0, 13)), (5, 6),
     {P({4: 1, 5: -2}, waiting=(0, 13))}, 1),
    # ... otherwise the lower (5: 10/5).
    ("lower die", NAVY, P({10: 1, 4: -2}, waiting=(0, 13)), (6, 5),
     {P({5: 1, 4: -2}, waiting=(0, 13))}, 1),
    # bar_first + bar_entry=doubles-only on a non-double: nothing moves.
    ("bar frozen", EUROPEAN.with_overrides({"bar_entry": "doubles-only"}),
     P(bar=(1, 0), waiting=(14, 15)), (6, 5), {P(bar=(1, 0), waiting=(14, 15))}, 0),
    # Without bar_first the waiting checkers still enter.
    ("bar waits, waiting enters", NAVY.with_overrides({"bar_entry": "doubles-only"}),
     P(bar=(1, 0), waiting=(14, 15)), (6, 5),
     {P({19: 1, 20: 1}, bar=(1, 0), waiting=(12, 15)), P({14: 1}, bar=(1, 0), waiting=(13, 15))}, 2),
    # Home locked: the 14 checkers on 3 may not move; 13/11/10 = 13/12/10.
    ("home locked", NAVY, P({3: 14, 13: 1}, waiting=(0, 15)), (2, 1),
     {P({3: 14, 10: 1}, waiting=(0, 15))}, 2),
    # European 6-6 for a lone waiting checker: four 6's to point 1, the first 1 bears
    # it off and ends the game: 5 dice of 8.
    ("european 6-6 lone checker", EUROPEAN, P(waiting=(1, 15)), (6, 6),
     {P(waiting=(0, 15))}, 5),
    # The same under four: waiting/19/13/7/1.
    ("american 6-6 lone checker", AMERICAN, P(waiting=(1, 15)), (6, 6),
     {P({1: 1}, waiting=(0, 15))}, 4),
    # Two checkers on 6, exact bear-off, 3-3 under four: bearoff-only forbids 6/3 ...
    ("bearoff-only", EUROPEAN.with_overrides({"doubles": "four"}),
     P({6: 2}, waiting=(0, 15)), (3, 3), {P({6: 2}, waiting=(0, 15))}, 0),
    # ... a free home board allows 6/3 6/3 3/off 3/off.
    ("free home board", EUROPEAN.with_overrides({"doubles": "four", "home_after_all_in": "free"}),
     P({6: 2}, waiting=(0, 15)), (3, 3), {P(waiting=(0, 15))}, 4),
]


@pytest.mark.parametrize(
    "rules,pos,dice,expected,used", [c[1:] for c in HAND_CASES], ids=[c[0] for c in HAND_CASES]
)
def test_hand_cases(rules, pos, dice, expected, used):
    assert reference_plays(rules, pos, dice) == (expected, used)
    res = legal_plays(rules, pos, dice)
    assert (res.positions(), res.dice_used) == (expected, used)


# --- positions from random games -------------------------------------------------------


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_preset_game_positions(preset):
    rules = Ruleset.preset(preset)
    boards, dice = sample_positions(rules, 400, seed=1000 + PRESET_NAMES.index(preset))
    checked = 0
    for board, roll in zip(boards, dice):
        pos = Position.from_board(board)
        if game_over(pos):
            STATS[f"preset {preset} game over"] += 1
            continue
        checked += compare(rules, pos, roll, f"preset {preset}")
    assert checked >= 300


@pytest.mark.slow
def test_european_eight_die_segments():
    """The European doubles met in random games: the plain walk when affordable, else merged."""
    boards, dice = sample_positions(EUROPEAN, 1200, seed=77)
    checked = 0
    for board, roll in zip(boards, dice):
        pos = Position.from_board(board)
        if roll[0] == roll[1] and not game_over(pos):
            checked += compare(EUROPEAN, pos, roll, "european doubles")
    assert STATS["european doubles [8-die] checked, plain walk"] >= 50
    assert checked >= 120


# --- Hypothesis: knob mixes ------------------------------------------------------------------


def knob_value(knob: str):
    values = KNOB_VALUES[knob]
    return st.booleans() if values is bool else st.sampled_from(values)


@st.composite
def rulesets(draw) -> Ruleset:
    knobs = {knob: draw(knob_value(knob)) for knob in KNOBS}
    if knobs["acey_deucey"] == "none":
        knobs["acey_deucey_extra_roll"] = False
    return dataclasses.replace(EUROPEAN, **knobs, name="hypothesis")


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), seed=st.integers(0, 2**32 - 1))
def test_knob_mix_game_positions(rules, seed):
    boards, dice = sample_positions(rules, 12, seed)
    for board, roll in zip(boards, dice):
        pos = Position.from_board(board)
        if not game_over(pos):
            compare(rules, pos, roll, "hypothesis knob mix, game positions")


# --- Hypothesis: arbitrary positions ----------------------------------------------------------

OFF, BAR, WAITING = 0, 25, 26  # location codes besides the points 1..24


@st.composite
def mover_locations(draw) -> list[int]:
    style = draw(st.sampled_from(["spread", "few points", "bear-off", "bar", "entering"]))
    anywhere = st.integers(0, 26)
    if style == "spread":
        return draw(st.lists(anywhere, min_size=15, max_size=15))
    if style == "few points":
        spots = draw(st.lists(anywhere, min_size=1, max_size=4))
        return draw(st.lists(st.sampled_from(spots), min_size=15, max_size=15))
    if style == "bear-off":
        outside = draw(st.lists(st.integers(7, 26), max_size=2))
        home = draw(st.lists(st.integers(0, 6), min_size=15 - len(outside), max_size=15 - len(outside)))
        return outside + home
    if style == "bar":
        on_bar = draw(st.integers(1, 5))
        return [BAR] * on_bar + draw(
            st.lists(anywhere, min_size=15 - on_bar, max_size=15 - on_bar)
        )
    waiting = draw(st.integers(1, 15))  # "entering": early game
    return [WAITING] * waiting + draw(
        st.lists(st.integers(13, 24), min_size=15 - waiting, max_size=15 - waiting)
    )


@st.composite
def positions(draw) -> Position:
    mover = draw(mover_locations())
    if all(loc == OFF for loc in mover):
        mover[0] = draw(st.integers(1, 6))
    points = [0] * 24
    bar, waiting, off = [0, 0], [0, 0], [0, 0]
    for loc in mover:
        if loc == OFF:
            off[0] += 1
        elif loc == BAR:
            bar[0] += 1
        elif loc == WAITING:
            waiting[0] += 1
        else:
            points[loc - 1] += 1
    free_points = [p for p in range(1, 25) if points[p - 1] == 0]
    opp_style = draw(st.sampled_from(["spread", "blots in mover's home", "off-board"]))
    if opp_style == "blots in mover's home":
        choices = [p for p in free_points if p <= 12] or free_points
    elif opp_style == "off-board":
        choices = [OFF, BAR, WAITING] + free_points[:3]
    else:
        choices = [OFF, BAR, WAITING] + free_points
    opp = draw(st.lists(st.sampled_from(choices + [WAITING, OFF]), min_size=15, max_size=15))
    if all(loc == OFF for loc in opp):
        opp[0] = WAITING
    for loc in opp:
        if loc == OFF:
            off[1] += 1
        elif loc == BAR:
            bar[1] += 1
        elif loc == WAITING:
            waiting[1] += 1
        else:
            points[loc - 1] -= 1
    return Position(tuple(points), tuple(bar), tuple(waiting), tuple(off))


dice_rolls = st.one_of(
    st.tuples(st.integers(1, 6), st.integers(1, 6)),
    st.integers(1, 6).map(lambda d: (d, d)),
    st.just((1, 2)),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), pos=positions(), dice=dice_rolls)
def test_arbitrary_positions(rules, pos, dice):
    if not compare(rules, pos, dice, "hypothesis arbitrary positions"):
        event("skipped: over budget")


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), pos=positions(), die=st.integers(1, 6))
def test_arbitrary_positions_bonus_doubles(rules, pos, die):
    """The double played after a 1-2 (``bonus=True``): 8 dice under complement-after-1-2."""
    assume(rules.acey_deucey != "none")  # no double follows a 1-2: the engine refuses the question
    if not compare(rules, pos, (die, die), "hypothesis arbitrary positions, bonus doubles", bonus=True):
        event("skipped: over budget")


@settings(max_examples=80, deadline=None)
@given(pos=positions(), dice=dice_rolls)
def test_arbitrary_positions_presets(pos, dice):
    for name in PRESET_NAMES:
        compare(Ruleset.preset(name), pos, dice, "hypothesis arbitrary positions, presets")
