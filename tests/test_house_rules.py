"""Golden positions for the house-rule knobs ``enter_first``, ``hitting`` and
``doubles = complement-after-1-2`` (docs/rules.md section 4, house rules).

Every expected set is derived by hand from the knob definitions and written out
explicitly, in the style of ``test_knobs.py``.  Each case is asked of both
readings of the rules: the independent reference (``tests/reference_rules.py``)
first, then the engine (``acesim.engine.moves.legal_plays``); a failure says which of
the two disagrees ("reference: ..." or "engine: ...").

``P({point: count})``: positive = mover, negative = opponent; whatever is not
on a point, the bar or waiting is off.  The mover moves 24 -> 1, enters with die
d on 25 - d, and bears off below 1.  Under ``hitting = after-home`` a borne-off
checker counts as home, so those positions account for all 15 mover checkers
(off 0) unless a checker off is the point of the case.
"""

from __future__ import annotations

import pytest

from acesim.common.errors import AcesimError
from acesim.engine.moves import legal_plays
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from tests.helpers import P, check, check_empty
from tests.reference_rules import reference_plays, segment_of

EUROPEAN = Ruleset.preset("european")
AMERICAN = Ruleset.preset("american")
BACKGAMMON = Ruleset.preset("backgammon")

ALL_IN_FIRST = AMERICAN.with_overrides({"enter_first": "all-in-first"})
MIDPOINT = AMERICAN.with_overrides({"enter_first": "midpoint"})
AFTER_HOME = AMERICAN.with_overrides({"hitting": "after-home"})
EUROPEAN_AFTER_HOME = EUROPEAN.with_overrides({"hitting": "after-home"})

# The opponent holds every entry point (19..24, two each), 3 waiting: nothing enters.
CLOSED = {19: -2, 20: -2, 21: -2, 22: -2, 23: -2, 24: -2}


# --- both readings -----------------------------------------------------------------


def engine_plays(rules: Ruleset, pos: Position, dice: tuple[int, int], bonus: bool):
    # ``bonus`` is passed only when set, so the cases without it do not depend on the new keyword.
    if bonus:
        return legal_plays(rules, pos, dice, bonus=True)
    return legal_plays(rules, pos, dice)


def check_reference(rules, pos, dice, expected, dice_used, segment, bonus=False) -> None:
    orders, _ = segment_of(rules, dice, bonus)
    assert tuple(orders[0]) in (segment, segment[::-1]), f"reference: segment {orders[0]} != {segment}"
    got = reference_plays(rules, pos, dice, bonus=bonus)
    assert got == (expected, dice_used), (
        f"reference: dice_used {got[1]} (expected {dice_used}); "
        f"only in reference {sorted(p.to_id() for p in got[0] - expected)}, "
        f"missing {sorted(p.to_id() for p in expected - got[0])}"
    )


def engine_failure(exc: Exception, res, expected: set[Position], dice_used: int, segment) -> AssertionError:
    if res is None:
        return AssertionError(f"engine: {type(exc).__name__}: {exc}")
    got = res.positions()
    return AssertionError(
        f"engine: {type(exc).__name__} {exc}; segment {res.segment} (expected {segment}), "
        f"dice_used {res.dice_used} (expected {dice_used}), {len(res.plays)} plays; "
        f"only in engine {sorted(p.to_id() for p in got - expected)}, "
        f"missing {sorted(p.to_id() for p in expected - got)}"
    )


def both(rules, pos, dice, expected, dice_used, segment, bonus=False) -> None:
    """The reference, then the engine, give exactly ``expected`` using ``dice_used`` dice."""
    check_reference(rules, pos, dice, expected, dice_used, segment, bonus)
    res = None
    try:
        res = engine_plays(rules, pos, dice, bonus)
        check(res, expected, dice_used, segment)
    except (AssertionError, TypeError) as exc:
        raise engine_failure(exc, res, expected, dice_used, segment) from exc


def both_empty(rules, pos, dice, segment, bonus=False) -> None:
    """Nothing playable, in both readings: the empty play, position unchanged."""
    check_reference(rules, pos, dice, {pos}, 0, segment, bonus)
    res = None
    try:
        res = engine_plays(rules, pos, dice, bonus)
        check_empty(res, pos, segment)
    except (AssertionError, TypeError) as exc:
        raise engine_failure(exc, res, {pos}, 0, segment) from exc


# --- enter_first = all-in-first -------------------------------------------------------


def test_all_in_first_refuses_point_moves_while_checkers_wait():
    # Mover 13:2, 13 waiting; opponent 15 waiting.  6-3: only entries.  waiting/19/16
    # is refused too: the entered checker stands on a point and 12 still wait.
    pos = P({13: 2}, waiting=(13, 15))
    both(ALL_IN_FIRST, pos, (6, 3), {P({13: 2, 19: 1, 22: 1}, waiting=(11, 15))}, 2, (6, 3))
    # Contrast, enter_first = none: 13/7 13/10, 13/4, waiting/19/16 and the rest.
    expected_none = {
        P({13: 2, 19: 1, 22: 1}, waiting=(11, 15)),  # waiting/19 waiting/22
        P({13: 2, 16: 1}, waiting=(12, 15)),  # waiting/19/16 = waiting/22/16
        P({13: 1, 19: 1, 10: 1}, waiting=(12, 15)),  # waiting/19 13/10
        P({13: 1, 22: 1, 7: 1}, waiting=(12, 15)),  # waiting/22 13/7
        P({7: 1, 10: 1}, waiting=(13, 15)),  # 13/7 13/10
        P({13: 1, 4: 1}, waiting=(13, 15)),  # 13/7/4 = 13/10/4
    }
    both(AMERICAN, pos, (6, 3), expected_none, 2, (6, 3))


def test_all_in_first_last_waiting_enters_then_point_checkers_move():
    # Mover 13:14, 1 waiting.  6-3: the first die must enter (13/7 or 13/10 first is
    # refused); once in, the second die moves any checker.
    #   waiting/19 19/16 = waiting/22 22/16;  waiting/19 13/10;  waiting/22 13/7.
    pos = P({13: 14}, waiting=(1, 15))
    w = (0, 15)
    expected = {
        P({13: 14, 16: 1}, waiting=w),
        P({13: 13, 19: 1, 10: 1}, waiting=w),
        P({13: 13, 22: 1, 7: 1}, waiting=w),
    }
    both(ALL_IN_FIRST, pos, (6, 3), expected, 2, (6, 3))


def test_all_in_first_double_enters_then_moves():
    # Mover 13:13, 2 waiting.  4-4 (four): the first two 4s can only enter
    # (waiting/21 twice); then 21:2 13:13 with two 4s left, moving freely.
    pos = P({13: 13}, waiting=(2, 15))
    w = (0, 15)
    expected = {
        P({17: 2, 13: 13}, waiting=w),  # 21/17 21/17
        P({21: 1, 13: 14}, waiting=w),  # 21/17/13
        P({21: 1, 17: 1, 13: 12, 9: 1}, waiting=w),  # 21/17 13/9
        P({21: 2, 13: 11, 9: 2}, waiting=w),  # 13/9 13/9
        P({21: 2, 13: 12, 5: 1}, waiting=w),  # 13/9/5
    }
    both(ALL_IN_FIRST, pos, (4, 4), expected, 4, (4, 4, 4, 4))


def test_all_in_first_no_legal_move_loses_the_dice():
    # Mover 13:14, 1 waiting; opponent holds 19 and 22 (11 waiting).  6-3: the waiting
    # checker cannot enter, and the 13s may not move while it waits.
    pos = P({13: 14, 19: -2, 22: -2}, waiting=(1, 11))
    both_empty(ALL_IN_FIRST, pos, (6, 3), (6, 3))
    # Contrast, enter_first = none: 13/7 13/10, or 13/4.
    expected_none = {
        P({13: 12, 7: 1, 10: 1, 19: -2, 22: -2}, waiting=(1, 11)),
        P({13: 13, 4: 1, 19: -2, 22: -2}, waiting=(1, 11)),
    }
    both(AMERICAN, pos, (6, 3), expected_none, 2, (6, 3))


def test_all_in_first_bar_entry_allowed_board_moves_not():
    # Mover bar 1, 13:1, 13 waiting; opponent 15 waiting.  6-5.
    pos = P({13: 1}, bar=(1, 0), waiting=(13, 15))
    # bar_first = false: bar and waiting checkers enter in any mix; 13/7, 13/8 and
    # bar/19/14 are refused (checkers still wait).
    rules = ALL_IN_FIRST.with_overrides({"bar_first": False})
    expected = {
        P({13: 1, 19: 1, 20: 1}, waiting=(12, 15)),  # bar/19 waiting/20 = waiting/19 bar/20
        P({13: 1, 19: 1, 20: 1}, bar=(1, 0), waiting=(11, 15)),  # waiting/19 waiting/20
    }
    both(rules, pos, (6, 5), expected, 2, (6, 5))
    # bar_first = true (american): the bar checker enters first, then a waiting one.
    both(ALL_IN_FIRST, pos, (6, 5), {P({13: 1, 19: 1, 20: 1}, waiting=(12, 15))}, 2, (6, 5))


def test_enter_first_without_waiting_checkers_changes_nothing():
    # Backgammon start: nobody waits.  Mover 13:15 (opponent on our 1).  4-2:
    # 13/9 13/11, or 13/7 (13/9/7 = 13/11/7), under every enter_first value.
    pos = P({13: 15, 1: -15})
    expected = {P({13: 13, 9: 1, 11: 1, 1: -15}), P({13: 14, 7: 1, 1: -15})}
    for value in ("none", "all-in-first", "midpoint"):
        both(BACKGAMMON.with_overrides({"enter_first": value}), pos, (4, 2), expected, 2, (4, 2))


# --- enter_first = midpoint -------------------------------------------------------------


def test_midpoint_to_13_allowed_past_13_refused():
    # Mover 16:1, 14 waiting; opponent 15 waiting.  3-1: 16/13 is allowed, 13/12, 15/12
    # (so 16/12 either way) are refused while checkers wait.
    #   16/13 waiting/24;  16/15 waiting/22;  waiting/22/21 = waiting/24/21;  waiting/22 waiting/24.
    pos = P({16: 1}, waiting=(14, 15))
    expected = {
        P({13: 1, 24: 1}, waiting=(13, 15)),
        P({15: 1, 22: 1}, waiting=(13, 15)),
        P({16: 1, 21: 1}, waiting=(13, 15)),
        P({16: 1, 22: 1, 24: 1}, waiting=(12, 15)),
    }
    both(MIDPOINT, pos, (3, 1), expected, 2, (3, 1))


def test_midpoint_checker_on_13_stays_while_checkers_wait():
    # Mover 13:1, 14 waiting; the opponent holds 19..24 (3 waiting).  4-2: nothing enters
    # and 13/9, 13/11 are refused: no legal move.
    pos = P({13: 1, **CLOSED}, waiting=(14, 3))
    both_empty(MIDPOINT, pos, (4, 2), (4, 2))


def test_midpoint_all_entered_checkers_on_13_move_on():
    # Same blockade, mover 13:15 (waiting 0): 13/9 13/11, or 13/7.
    pos = P({13: 15, **CLOSED}, waiting=(0, 3))
    expected = {
        P({13: 13, 9: 1, 11: 1, **CLOSED}, waiting=(0, 3)),
        P({13: 14, 7: 1, **CLOSED}, waiting=(0, 3)),
    }
    both(MIDPOINT, pos, (4, 2), expected, 2, (4, 2))


def test_midpoint_last_waiting_enters_then_13_passes():
    # Mover 13:14, 1 waiting; opponent 15 waiting.  6-1: 13/7 or 13/12 first is refused;
    # once the last checker is in, the other die may pass 13.
    #   waiting/19/18 = waiting/24/18;  waiting/19 13/12;  waiting/24 13/7.
    pos = P({13: 14}, waiting=(1, 15))
    w = (0, 15)
    expected = {
        P({13: 14, 18: 1}, waiting=w),
        P({13: 13, 19: 1, 12: 1}, waiting=w),
        P({13: 13, 24: 1, 7: 1}, waiting=w),
    }
    both(MIDPOINT, pos, (6, 1), expected, 2, (6, 1))


def test_midpoint_checker_below_13_moves_freely():
    # Mover 13:1 10:1, 13 waiting; opponent holds 19..24.  4-2: 13/9 and 13/11 are
    # refused, the checker on 10 moves: 10/8/4 = 10/6/4.
    pos = P({13: 1, 10: 1, **CLOSED}, waiting=(13, 3))
    both(MIDPOINT, pos, (4, 2), {P({13: 1, 4: 1, **CLOSED}, waiting=(13, 3))}, 2, (4, 2))


def test_midpoint_higher_die_rule_on_the_restricted_moves():
    # Mover 16:1, 14 waiting; opponent holds 19..24.  3-1: 16/13 or 16/15 alone, but
    # neither 13/12 nor 15/12 may follow.  One die only: the higher, 16/13.
    pos = P({16: 1, **CLOSED}, waiting=(14, 3))
    both(MIDPOINT, pos, (3, 1), {P({13: 1, **CLOSED}, waiting=(14, 3))}, 1, (3, 1))
    # Mover 15:1: 6-2, the 6 (15/9) passes 13 and is refused; 15/13 and then nothing.
    # The higher die cannot be played alone, so the lower: 15/13.
    pos = P({15: 1, **CLOSED}, waiting=(14, 3))
    both(MIDPOINT, pos, (6, 2), {P({13: 1, **CLOSED}, waiting=(14, 3))}, 1, (6, 2))


def test_enter_first_double_from_the_start():
    # All 15 waiting, opponent 15 waiting.  6-6 (four).
    pos = P(waiting=(15, 15))
    # all-in-first: four entries, waiting/19(4).
    both(ALL_IN_FIRST, pos, (6, 6), {P({19: 4}, waiting=(11, 15))}, 4, (6, 6, 6, 6))
    # midpoint: a checker may go waiting/19/13 but no further; e entries, m moves 19/13,
    # m <= e, e + m = 4.
    expected = {
        P({19: 4}, waiting=(11, 15)),  # e=4
        P({19: 2, 13: 1}, waiting=(12, 15)),  # e=3, m=1
        P({13: 2}, waiting=(13, 15)),  # e=2, m=2
    }
    both(MIDPOINT, pos, (6, 6), expected, 4, (6, 6, 6, 6))


# --- hitting = after-home --------------------------------------------------------------------


def test_after_home_entry_onto_a_blot():
    # All 15 waiting (nothing home, nothing off); opponent blot on our 22 (14 waiting).
    # 6-3: waiting/22* is refused, so waiting/19/16 is the only play of both dice.
    pos = P({22: -1}, waiting=(15, 14))
    both(AFTER_HOME, pos, (6, 3), {P({16: 1, 22: -1}, waiting=(14, 14))}, 2, (6, 3))
    # With one checker on our 5 (14 waiting, none off) the entry may hit.
    pos = P({5: 1, 22: -1}, waiting=(14, 14))
    expected = {
        P({5: 1, 16: 1, 22: -1}, waiting=(13, 14)),  # waiting/19/16
        P({5: 1, 19: 1, 22: 1}, bar=(0, 1), waiting=(12, 14)),  # waiting/19 waiting/22*
        P({2: 1, 19: 1, 22: -1}, waiting=(13, 14)),  # waiting/19 5/2
        P({5: 1, 16: 1}, bar=(0, 1), waiting=(13, 14)),  # waiting/22*/16
    }
    both(AFTER_HOME, pos, (6, 3), expected, 2, (6, 3))


def test_after_home_point_move_onto_a_blot():
    # Mover 13:15 (none home, none off); opponent blot on 10 (14 waiting).  3-1: 13/10*
    # is refused; 13/12/9 is the only play of both dice.
    pos = P({13: 15, 10: -1}, waiting=(0, 14))
    both(AFTER_HOME, pos, (3, 1), {P({13: 14, 9: 1, 10: -1}, waiting=(0, 14))}, 2, (3, 1))


def test_after_home_a_checker_borne_off_counts_as_home():
    # Mover 13:14 and one checker off; blot on 10.  3-1: the hit is allowed.
    pos = P({13: 14, 10: -1}, waiting=(0, 14))
    assert pos.off == (1, 0)
    expected = {
        P({13: 12, 12: 1, 10: 1}, bar=(0, 1), waiting=(0, 14)),  # 13/10* 13/12
        P({13: 13, 9: 1}, bar=(0, 1), waiting=(0, 14)),  # 13/10*/9
        P({13: 13, 9: 1, 10: -1}, waiting=(0, 14)),  # 13/12/9
    }
    assert all(p.off == (1, 0) for p in expected)
    both(AFTER_HOME, pos, (3, 1), expected, 2, (3, 1))


def test_after_home_bar_entry_onto_a_blot():
    # Bar 1, opponent blot on our 20 (14 waiting).  5-1, american (bar first).
    # Nothing home, none off (13:14): bar/20* is refused; bar/24 then 24/19 or 13/8.
    # (The condition is the state, not history: it would read the same if the bar
    # checker had been the mover's only home checker, hit last turn.)
    pos = P({13: 14, 20: -1}, bar=(1, 0), waiting=(0, 14))
    expected = {
        P({19: 1, 13: 14, 20: -1}, waiting=(0, 14)),
        P({24: 1, 13: 13, 8: 1, 20: -1}, waiting=(0, 14)),
    }
    both(AFTER_HOME, pos, (5, 1), expected, 2, (5, 1))
    # One checker off (13:13): the entry may hit.
    pos = P({13: 13, 20: -1}, bar=(1, 0), waiting=(0, 14))
    assert pos.off == (1, 0)
    expected = {
        P({19: 1, 13: 13}, bar=(0, 1), waiting=(0, 14)),  # bar/20*/19
        P({20: 1, 13: 12, 12: 1}, bar=(0, 1), waiting=(0, 14)),  # bar/20* 13/12
        P({19: 1, 13: 13, 20: -1}, waiting=(0, 14)),  # bar/24/19
        P({24: 1, 13: 12, 8: 1, 20: -1}, waiting=(0, 14)),  # bar/24 13/8
    }
    both(AFTER_HOME, pos, (5, 1), expected, 2, (5, 1))


def test_after_home_bar_first_freezes_when_every_entry_would_hit():
    # Bar 1, 13:14, none off; opponent blots on our 19 and 20 (13 waiting).  6-5,
    # american (bar first): bar/19* and bar/20* are refused, and nothing else may move.
    pos = P({13: 14, 19: -1, 20: -1}, bar=(1, 0), waiting=(0, 13))
    both_empty(AFTER_HOME, pos, (6, 5), (6, 5))
    # Contrast, hitting = free: bar/19*/14, bar/19* 13/8, bar/20*/14, bar/20* 13/7.
    expected_free = {
        P({14: 1, 13: 14, 20: -1}, bar=(0, 1), waiting=(0, 13)),
        P({19: 1, 13: 13, 8: 1, 20: -1}, bar=(0, 1), waiting=(0, 13)),
        P({14: 1, 13: 14, 19: -1}, bar=(0, 1), waiting=(0, 13)),
        P({20: 1, 13: 13, 7: 1, 19: -1}, bar=(0, 1), waiting=(0, 13)),
    }
    both(AMERICAN, pos, (6, 5), expected_free, 2, (6, 5))


def test_after_home_earlier_die_brings_a_checker_home_later_die_hits():
    # Mover 8:1 13:14 (none home, none off); opponent blot on 9 (14 waiting).  2-4.
    # 13/9* first is refused; after 8/6 the 4 may hit.
    #   8/6 6/2 = 8/4 4/2;  8/6 13/9*;  13/11 8/4 = 8/4 13/11;  13/11 11/7.
    # (13/11 then 13/9* is refused: nothing home yet.)
    pos = P({8: 1, 13: 14, 9: -1}, waiting=(0, 14))
    expected = {
        P({2: 1, 13: 14, 9: -1}, waiting=(0, 14)),
        P({6: 1, 13: 13, 9: 1}, bar=(0, 1), waiting=(0, 14)),
        P({4: 1, 11: 1, 13: 13, 9: -1}, waiting=(0, 14)),
        P({8: 1, 7: 1, 13: 13, 9: -1}, waiting=(0, 14)),
    }
    both(AFTER_HOME, pos, (2, 4), expected, 2, (2, 4))


def test_after_home_the_move_reaching_home_may_not_hit():
    # Mover 10:1 13:14 (none home, none off); opponent blot on 5 (14 waiting).  5-1:
    # 10/5* would be the first checker home and is refused.
    #   13/8 10/9 = 10/9 13/8;  13/8 13/12 = 13/12 13/8;  13/8/7 = 13/12/7;  10/9/4.
    pos = P({10: 1, 13: 14, 5: -1}, waiting=(0, 14))
    expected = {
        P({9: 1, 8: 1, 13: 13, 5: -1}, waiting=(0, 14)),
        P({10: 1, 12: 1, 8: 1, 13: 12, 5: -1}, waiting=(0, 14)),
        P({10: 1, 7: 1, 13: 13, 5: -1}, waiting=(0, 14)),
        P({4: 1, 13: 14, 5: -1}, waiting=(0, 14)),
    }
    both(AFTER_HOME, pos, (5, 1), expected, 2, (5, 1))


# --- hitting = after-home: the hit becomes legal in the middle of a double --------------


def test_after_home_double_hit_after_a_checker_gets_home():
    # Mover 24:13 (stuck: opponent holds 21), A on 9, B on 14; none off.  Opponent 21:-2,
    # blot on 11, 12 waiting.  3-3 (four).  B's only first move is 14/11*, legal only
    # once A stands home (9/6).  A: 9/6/3 at most.  So A first, then:
    #   A 9/6, B 14/11*/8/5          -> 6:1 5:1
    #   A 9/6/3, B 14/11*/8          -> 3:1 8:1
    # (B four times, 14/11*/8/5/2, would hit with nothing home: refused.)
    pos = P({24: 13, 9: 1, 14: 1, 21: -2, 11: -1}, waiting=(0, 12))
    expected = {
        P({24: 13, 6: 1, 5: 1, 21: -2}, bar=(0, 1), waiting=(0, 12)),
        P({24: 13, 3: 1, 8: 1, 21: -2}, bar=(0, 1), waiting=(0, 12)),
    }
    both(AFTER_HOME, pos, (3, 3), expected, 4, (3, 3, 3, 3))
    # Contrast, hitting = free: B may also go first, all four 3s: 14/11*/8/5/2.
    expected_free = expected | {P({24: 13, 9: 1, 2: 1, 21: -2}, bar=(0, 1), waiting=(0, 12))}
    both(AMERICAN, pos, (3, 3), expected_free, 4, (3, 3, 3, 3))


def test_after_home_double_entry_hits_after_a_checker_gets_home():
    # Mover 20:13 (stuck: opponent holds 19), A on 7, 1 waiting; none off.  Opponent
    # 19:-2, blot on our 24, 12 waiting.  1-1 (four): waiting/24* is legal only once A
    # has made 7/6.  A moves a times, the entered checker C c times, a + c = 4, a >= 1
    # before C enters:
    #   a=4: A on 3, C still waiting;  a=3: A 4, C on 24*;  a=2: A 5, C 23;  a=1: A 6, C 22.
    pos = P({20: 13, 7: 1, 19: -2, 24: -1}, waiting=(1, 12))
    expected = {
        P({20: 13, 3: 1, 19: -2, 24: -1}, waiting=(1, 12)),
        P({20: 13, 4: 1, 24: 1, 19: -2}, bar=(0, 1), waiting=(0, 12)),
        P({20: 13, 5: 1, 23: 1, 19: -2}, bar=(0, 1), waiting=(0, 12)),
        P({20: 13, 6: 1, 22: 1, 19: -2}, bar=(0, 1), waiting=(0, 12)),
    }
    both(AFTER_HOME, pos, (1, 1), expected, 4, (1, 1, 1, 1))
    # Contrast, hitting = free: also a=0, waiting/24*/23/22/21.
    expected_free = expected | {P({20: 13, 7: 1, 21: 1, 19: -2}, bar=(0, 1), waiting=(0, 12))}
    both(AMERICAN, pos, (1, 1), expected_free, 4, (1, 1, 1, 1))


def test_after_home_european_eight_dice_hit_among_the_threes():
    # European + after-home.  Mover 24:13 (stuck for 3s and 4s: opponent holds 21 and
    # 20), A on 8, B on 16; none off.  Opponent blot on 13, 10 waiting.
    # 3-3 = 3,3,3,3,4,4,4,4.  The 3s: A 8/5/2 at most; B 16/13* only once A is home.
    #   A 8/5,   B 16/13*/10/7   -> A 5, B 7;  then the 4s: 5/1 and 7/3, then nothing.
    #   A 8/5/2, B 16/13*/10     -> A 2, B 10; then the 4s: 10/6/2, then nothing.
    # No bear-off (the 24s are out): 6 dice, the last two 4s lost.
    pos = P({24: 13, 8: 1, 16: 1, 21: -2, 20: -2, 13: -1}, waiting=(0, 10))
    segment = (3, 3, 3, 3, 4, 4, 4, 4)
    expected = {
        P({24: 13, 1: 1, 3: 1, 21: -2, 20: -2}, bar=(0, 1), waiting=(0, 10)),
        P({24: 13, 2: 2, 21: -2, 20: -2}, bar=(0, 1), waiting=(0, 10)),
    }
    both(EUROPEAN_AFTER_HOME, pos, (3, 3), expected, 6, segment)


def test_after_home_european_eight_dice_hit_waits_for_the_second_six():
    # European + after-home.  Mover 24:13 (stuck: opponent holds 18 and 23), A on 14,
    # B on 21; none off.  Opponent blot on 15, 10 waiting.  6-6 = 6,6,6,6,1,1,1,1.
    # The 6s: A 14/8/2 at most; B's first 6 is 21/15*, legal only once A is on 2, so
    # A 14/8/2 then B 21/15*/9 (A 2, B 9).  The 1s: A 2/1 at most, B 9/8/7/6/5:
    #   B four times -> 2:1 5:1;   A once, B three times -> 1:1 6:1.
    pos = P({24: 13, 14: 1, 21: 1, 18: -2, 23: -2, 15: -1}, waiting=(0, 10))
    segment = (6, 6, 6, 6, 1, 1, 1, 1)
    blocks = {24: 13, 18: -2, 23: -2}
    expected = {
        P({**blocks, 2: 1, 5: 1}, bar=(0, 1), waiting=(0, 10)),
        P({**blocks, 1: 1, 6: 1}, bar=(0, 1), waiting=(0, 10)),
    }
    both(EUROPEAN_AFTER_HOME, pos, (6, 6), expected, 8, segment)
    # Contrast, hitting = free: B may hit at once, A 14/8 then B 21/15*/9/3; the 1s
    # then also reach A 4, B 3 (A 5 B 2 and A 6 B 1 are the positions above).
    expected_free = expected | {P({**blocks, 4: 1, 3: 1}, bar=(0, 1), waiting=(0, 10))}
    both(EUROPEAN, pos, (6, 6), expected_free, 8, segment)


def test_after_home_european_eight_dice_hit_among_the_complement():
    # European + after-home.  Mover 24:13 (opponent holds 23 and 18), A on 7, B on 20
    # (opponent holds 19); none off.  Opponent blot on 14, 8 waiting.
    # 1-1 = 1,1,1,1,6,6,6,6.  The 1s: only A moves, 7/6/5/4/3 (the first 1 brings it home).
    # The 6s: B 20/14*/8/2 (the hit is legal: A is home), the fourth 6 is lost.
    pos = P({24: 13, 7: 1, 20: 1, 23: -2, 18: -2, 19: -2, 14: -1}, waiting=(0, 8))
    segment = (1, 1, 1, 1, 6, 6, 6, 6)
    expected = {P({24: 13, 3: 1, 2: 1, 23: -2, 18: -2, 19: -2}, bar=(0, 1), waiting=(0, 8))}
    both(EUROPEAN_AFTER_HOME, pos, (1, 1), expected, 7, segment)


# --- doubles = complement-after-1-2 ---------------------------------------------------------


def _lone_runner():
    # Mover 24:1 1:14; opponent 15 waiting.  The 1s cannot move until the runner is home.
    return P({24: 1, 1: 14}, waiting=(0, 15))


FOUR_2S = {P({16: 1, 1: 14}, waiting=(0, 15))}  # 24/22/20/18/16
# 24/16, then the 5s: 16/11/6/1 (all home from 6: standard, home free), 1/off.
EIGHT_2S_5S = {P({1: 14}, waiting=(0, 15))}


def test_complement_after_1_2_rolled_double_plays_four():
    rules = AMERICAN.with_overrides({"doubles": "complement-after-1-2"})
    both(rules, _lone_runner(), (2, 2), FOUR_2S, 4, (2, 2, 2, 2))


def test_complement_after_1_2_bonus_double_plays_eight():
    rules = AMERICAN.with_overrides({"doubles": "complement-after-1-2"})
    both(rules, _lone_runner(), (2, 2), EIGHT_2S_5S, 8, (2, 2, 2, 2, 5, 5, 5, 5), bonus=True)
    # The double rolled by one die after the 1-2 (acey_deucey = roll-die) is the bonus too.
    rolled = rules.with_overrides({"acey_deucey": "roll-die"})
    both(rolled, _lone_runner(), (2, 2), EIGHT_2S_5S, 8, (2, 2, 2, 2, 5, 5, 5, 5), bonus=True)


def test_complement_after_1_2_without_acey_deucey_is_four():
    rules = AMERICAN.with_overrides(
        {"doubles": "complement-after-1-2", "acey_deucey": "none", "acey_deucey_extra_roll": False}
    )
    both(rules, _lone_runner(), (2, 2), FOUR_2S, 4, (2, 2, 2, 2))
    # No double follows a 1-2 under these rules: the reference plays a bonus double as four,
    # and the engine refuses to be asked for one (docs/rules.md section 6).
    check_reference(rules, _lone_runner(), (2, 2), FOUR_2S, 4, (2, 2, 2, 2), True)
    with pytest.raises(AcesimError, match="acey_deucey = none"):
        engine_plays(rules, _lone_runner(), (2, 2), True)


def test_four_and_four_plus_complement_ignore_bonus():
    for bonus in (False, True):
        both(AMERICAN, _lone_runner(), (2, 2), FOUR_2S, 4, (2, 2, 2, 2), bonus=bonus)
        european_doubles = AMERICAN.with_overrides({"doubles": "four-plus-complement"})
        both(european_doubles, _lone_runner(), (2, 2), EIGHT_2S_5S, 8, (2, 2, 2, 2, 5, 5, 5, 5), bonus=bonus)


# --- knobs combined -----------------------------------------------------------------------------


def test_midpoint_with_after_home():
    # Mover 16:1, 14 waiting, none off; opponent blots on 13 and on our 22, 13 waiting.
    # 3-1: 16/13* and waiting/22* hit with nothing home (refused); 15/12 passes 13
    # (refused).  Only waiting/24/21 uses both dice.
    rules = AMERICAN.with_overrides({"enter_first": "midpoint", "hitting": "after-home"})
    pos = P({16: 1, 13: -1, 22: -1}, waiting=(14, 13))
    both(rules, pos, (3, 1), {P({16: 1, 21: 1, 13: -1, 22: -1}, waiting=(13, 13))}, 2, (3, 1))


def test_all_in_first_with_after_home():
    # Mover 13:12 and 2 waiting; opponent blots on our 21 and 23, 13 waiting.  4-2.
    rules = AMERICAN.with_overrides({"enter_first": "all-in-first", "hitting": "after-home"})
    # With a checker on our 5 both entries may hit: waiting/21* waiting/23*; no board move.
    pos = P({5: 1, 13: 12, 21: -1, 23: -1}, waiting=(2, 13))
    expected = {P({5: 1, 13: 12, 21: 1, 23: 1}, bar=(0, 2), waiting=(0, 13))}
    both(rules, pos, (4, 2), expected, 2, (4, 2))
    # Without it (13:13): the entries would hit, the board may not move: nothing.
    pos = P({13: 13, 21: -1, 23: -1}, waiting=(2, 13))
    both_empty(rules, pos, (4, 2), (4, 2))
