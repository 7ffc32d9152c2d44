"""Cross-check of the ``backgammon`` preset against OpenSpiel's backgammon.

OpenSpiel is an independent engine; on every start-of-roll position met in
seeded random OpenSpiel games, acesim's legal plays must reach exactly the same
set of resulting positions as OpenSpiel's legal actions (docs/rules.md section 2:
plays are distinct resulting positions).  open-spiel is a required test extra
(``pip install acesim[test]``), so a missing package fails here rather than
skipping.

OpenSpiel plays a double as two decisions of two dice each and applies the
maximal-dice rule to each half on its own; docs/rules.md applies it to all four
dice.  The two differ only when some first half that uses two dice leaves
fewer playable dice than another first half.  That never happens in the
sampled positions (nor in 20 000 more checked while writing this file), so the
comparison below is exact, with no exclusions.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pyspiel  # required: the cross-check must fail, not skip, without open-spiel
import pytest

from acesim.common.errors import AcesimError
from acesim.engine.moves import SegmentPlays, legal_plays
from acesim.engine.openspiel_bridge import (
    dice_of,
    is_roll_start,
    load_game,
    openspiel_result_positions,
    position_from_state,
    random_states,
)
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset

BACKGAMMON = Ruleset.preset("backgammon")
ROOT_SEED = 20240611
TARGET_POSITIONS = 1000
BATCH = 250
MAX_POSITIONS = 4000  # sampling stops here even if coverage is short (the test then fails)
KEEP_PROBABILITY = 0.5  # keep every other start of roll: more games, less correlation

# Each kind of position the sample must contain at least this many times.
MIN_COVERAGE = {
    "mover on the bar": 30,
    "bear-off": 30,
    "doubles": 30,
    "doubles from the bar": 10,
    "doubles in the bear-off": 10,
    "roll that can win the game": 5,
    "no legal move": 10,
    "only part of the roll playable": 10,
}


def all_home(pos: Position) -> bool:
    """Every mover checker not yet off is on points 1-6 (bearing off is allowed)."""
    return pos.bar[0] == 0 and pos.waiting[0] == 0 and all(v <= 0 for v in pos.points[6:])


def kinds(pos: Position, dice: tuple[int, int], plays: SegmentPlays) -> list[str]:
    """The coverage categories of one sampled roll."""
    double = dice[0] == dice[1]
    found = {
        "mover on the bar": pos.bar[0] > 0,
        "bear-off": all_home(pos),
        "doubles": double,
        "doubles from the bar": double and pos.bar[0] > 0,
        "doubles in the bear-off": double and all_home(pos),
        "roll that can win the game": any(p.off[0] == 15 for p in plays.positions()),
        "no legal move": plays.dice_used == 0,
        "only part of the roll playable": 0 < plays.dice_used < len(plays.segment),
    }
    return [name for name, hit in found.items() if hit]


@dataclass
class Mismatch:
    position: Position
    dice: tuple[int, int]
    only_acesim: set[Position]
    only_openspiel: set[Position]

    def describe(self) -> str:
        return (
            f"position {self.position.to_json()} dice {self.dice}\n"
            f"{self.position.render()}\n"
            f"  only acesim:    {[p.to_json() for p in self.only_acesim]}\n"
            f"  only OpenSpiel: {[p.to_json() for p in self.only_openspiel]}"
        )


@dataclass
class CrossCheck:
    checked: int
    coverage: Counter[str]
    mismatches: list[Mismatch]


def short_coverage(coverage: Counter[str]) -> list[str]:
    return [name for name, need in MIN_COVERAGE.items() if coverage[name] < need]


@pytest.fixture(scope="module")
def crosscheck() -> CrossCheck:
    """Compare batch after batch of random positions until size and coverage are met."""
    seeds = iter(np.random.SeedSequence(ROOT_SEED).spawn(MAX_POSITIONS // BATCH))
    coverage: Counter[str] = Counter()
    mismatches: list[Mismatch] = []
    checked = 0
    while checked < MAX_POSITIONS and (checked < TARGET_POSITIONS or short_coverage(coverage)):
        for state, dice in random_states(BATCH, next(seeds), KEEP_PROBABILITY):
            pos = position_from_state(state)
            plays = legal_plays(BACKGAMMON, pos, dice)
            ours, theirs = plays.positions(), openspiel_result_positions(state)
            if ours != theirs:
                mismatches.append(Mismatch(pos, dice, ours - theirs, theirs - ours))
            coverage.update(kinds(pos, dice, plays))
            checked += 1
    return CrossCheck(checked, coverage, mismatches)


# --- the bridge itself ----------------------------------------------------------


def test_start_position_in_either_players_view() -> None:
    initial = load_game().new_initial_state()
    starters = Counter()
    for opening, _ in initial.chance_outcomes():  # 30 non-double rolls, either side to start
        state = initial.child(opening)
        starters[state.current_player()] += 1
        assert is_roll_start(state)
        assert position_from_state(state) == Position.start("backgammon")
        a, b = dice_of(state)
        assert a != b, "OpenSpiel's opening roll is never a double"
    assert starters == {0: 15, 1: 15}


def test_second_half_of_a_double_is_not_a_roll_start() -> None:
    for state, dice in random_states(200, ROOT_SEED):
        if dice[0] != dice[1]:
            continue
        mover = state.current_player()
        for action in state.legal_actions():
            child = state.child(action)
            if child.current_player() == mover:
                assert not is_roll_start(child)
                assert dice_of(child) == dice
                with pytest.raises(AcesimError, match="not the start of a roll"):
                    openspiel_result_positions(child)
                return
    pytest.fail("no double with a second half in the first 200 sampled rolls")


def test_random_states_repeat_for_the_same_seed() -> None:
    first = random_states(40, 7, keep_probability=0.5)
    again = random_states(40, 7, keep_probability=0.5)
    assert [s.history() for s, _ in first] == [s.history() for s, _ in again]
    assert [d for _, d in first] == [d for _, d in again]
    assert all(is_roll_start(s) for s, _ in first)


def test_missing_open_spiel_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # makes `import pyspiel` fail
    with pytest.raises(AcesimError, match=r"pip install acesim\[test\]"):
        load_game()


# --- the cross-check --------------------------------------------------------------


def test_same_resulting_positions_as_openspiel(crosscheck: CrossCheck) -> None:
    assert crosscheck.checked >= TARGET_POSITIONS
    shown = "\n".join(m.describe() for m in crosscheck.mismatches[:3])
    assert not crosscheck.mismatches, (
        f"{len(crosscheck.mismatches)} of {crosscheck.checked} positions differ; first ones:\n{shown}"
    )


def test_sample_covers_bar_bear_off_and_doubles(crosscheck: CrossCheck) -> None:
    missing = {name: crosscheck.coverage[name] for name in short_coverage(crosscheck.coverage)}
    assert not missing, (
        f"after {crosscheck.checked} positions, too few of {missing} (need {MIN_COVERAGE})"
    )


def test_openspiel_is_the_engine_we_think() -> None:
    game = pyspiel.load_game("backgammon")
    assert game.num_distinct_actions() == 1352
    assert game.max_chance_outcomes() == 36
