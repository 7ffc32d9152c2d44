"""Hand-built positions for every rule knob that changes the legal plays.

Expected positions are derived by hand from docs/rules.md sections 2 and 4 and
written out explicitly.  ``P({point: count})``: positive = mover, negative =
opponent; whatever is not on a point, the bar or waiting is off.  The mover
moves 24 -> 1, enters with die d on 25 - d, and bears off below 1.
"""

from __future__ import annotations

import pytest

from acesim.engine.moves import legal_plays
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from tests.helpers import P, check, check_empty

EUROPEAN = Ruleset.preset("european")
AMERICAN = Ruleset.preset("american")
NAVY = Ruleset.preset("navy")
BACKGAMMON = Ruleset.preset("backgammon")








# --- entering from waiting -----------------------------------------------------


def test_enter_from_waiting_blocked_entry_point():
    # All waiting; opponent holds our 19 (two), 13 waiting.  6-3: the 6 cannot enter,
    # so waiting/22 then 22/16 is the only way to use both dice.
    pos = P({19: -2}, waiting=(15, 13))
    check(legal_plays(AMERICAN, pos, (6, 3)), {P({16: 1, 19: -2}, waiting=(14, 13))}, 2, (6, 3))


def test_enter_from_waiting_hits_blot():
    # Opponent blot on our 22 (14 waiting).  6-3 from the start:
    #   waiting/19 waiting/22*   -> hit;  waiting/22*/16 -> hit;  waiting/19/16 -> no hit.
    pos = P({22: -1}, waiting=(15, 14))
    expected = {
        P({19: 1, 22: 1}, bar=(0, 1), waiting=(13, 14)),
        P({16: 1}, bar=(0, 1), waiting=(14, 14)),
        P({16: 1, 22: -1}, waiting=(14, 14)),
    }
    check(legal_plays(AMERICAN, pos, (6, 3)), expected, 2, (6, 3))


def test_waiting_checkers_cannot_enter_on_blocked_points_at_all():
    # Opponent holds 19 and 20 (two each, 11 waiting); all mover checkers waiting.
    pos = P({19: -2, 20: -2}, waiting=(15, 11))
    check_empty(legal_plays(AMERICAN, pos, (6, 5)), pos, (6, 5))
    check_empty(legal_plays(NAVY, pos, (5, 5)), pos, (5, 5, 5, 5))


# --- entering from the bar -------------------------------------------------------


def test_enter_from_bar_two_checkers():
    # Bar 2, 13 waiting, american (bar first).  4-2: bar/21 bar/23 is forced.
    pos = P(bar=(2, 0), waiting=(13, 15))
    check(legal_plays(AMERICAN, pos, (4, 2)), {P({21: 1, 23: 1}, waiting=(13, 15))}, 2, (4, 2))


def test_enter_from_bar_partial_entry_loses_rest():
    # As above, but the opponent holds our 21 (two, 13 waiting): only bar/23; the 4 is lost
    # because a checker is still on the bar.
    pos = P({21: -2}, bar=(2, 0), waiting=(13, 13))
    for dice in ((4, 2), (2, 4)):
        res = legal_plays(AMERICAN, pos, dice)
        check(res, {P({21: -2, 23: 1}, bar=(1, 0), waiting=(13, 13))}, 1, dice)


def test_enter_from_bar_hits_blot():
    # Bar 1, 13:14; opponent blot on our 20 (14 waiting).  5-1, american (bar first):
    #   bar/20* then 20/19 or 13/12;   bar/24 then 24/19 (no hit) or 13/8.
    pos = P({13: 14, 20: -1}, bar=(1, 0), waiting=(0, 14))
    expected = {
        P({19: 1, 13: 14}, bar=(0, 1), waiting=(0, 14)),  # bar/20*/19
        P({20: 1, 13: 13, 12: 1}, bar=(0, 1), waiting=(0, 14)),  # bar/20* 13/12
        P({19: 1, 13: 14, 20: -1}, waiting=(0, 14)),  # bar/24/19
        P({24: 1, 13: 13, 8: 1, 20: -1}, waiting=(0, 14)),  # bar/24 13/8
    }
    check(legal_plays(AMERICAN, pos, (5, 1)), expected, 2, (5, 1))


# --- bar_first ----------------------------------------------------------------------

BAR_AND_WAITING = P(bar=(1, 0), waiting=(14, 15))


def test_bar_first_true_bar_before_waiting():
    # Bar 1 + 14 waiting, 6-5.  Bar first: the bar checker enters with one die, then
    # the other die enters a waiting checker or moves the entered one.
    expected = {
        P({19: 1, 20: 1}, waiting=(13, 15)),  # bar/19 waiting/20  (= bar/20 waiting/19)
        P({14: 1}, waiting=(14, 15)),  # bar/19/14 = bar/20/14
    }
    check(legal_plays(AMERICAN, BAR_AND_WAITING, (6, 5)), expected, 2, (6, 5))


def test_bar_first_false_waiting_may_enter_first():
    rules = AMERICAN.with_overrides({"bar_first": False})
    expected = {
        P({19: 1, 20: 1}, waiting=(13, 15)),
        P({14: 1}, waiting=(14, 15)),
        P({19: 1, 20: 1}, bar=(1, 0), waiting=(12, 15)),  # waiting/19 waiting/20
        P({14: 1}, bar=(1, 0), waiting=(13, 15)),  # waiting/19/14 = waiting/20/14
    }
    check(legal_plays(rules, BAR_AND_WAITING, (6, 5)), expected, 2, (6, 5))


def test_bar_first_blocked_bar_checker_freezes_everything():
    # Bar 1, 13:14; opponent holds our 19 and 20 (11 waiting).  6-5.
    pos = P({13: 14, 19: -2, 20: -2}, bar=(1, 0), waiting=(0, 11))
    check_empty(legal_plays(AMERICAN, pos, (6, 5)), pos, (6, 5))
    # bar_first = false: the board checkers play: 13/7 13/8, or 13/2 (13/7/2 = 13/8/2).
    rules = AMERICAN.with_overrides({"bar_first": False})
    expected = {
        P({13: 12, 8: 1, 7: 1, 19: -2, 20: -2}, bar=(1, 0), waiting=(0, 11)),
        P({13: 13, 2: 1, 19: -2, 20: -2}, bar=(1, 0), waiting=(0, 11)),
    }
    check(legal_plays(rules, pos, (6, 5)), expected, 2, (6, 5))


# --- bar_entry = doubles-only -------------------------------------------------------


NAVY_DOUBLES_ONLY = NAVY.with_overrides({"bar_entry": "doubles-only"})


def test_bar_entry_doubles_only_waiting_still_enters():
    # Navy + doubles-only.  Bar 1, waiting 1, 3:13 (locked at home); opp 15 waiting.
    # 3-2: the bar checker may not enter, the waiting one may: waiting/22/20 = waiting/23/20.
    pos = P({3: 13}, bar=(1, 0), waiting=(1, 15))
    check(
        legal_plays(NAVY_DOUBLES_ONLY, pos, (3, 2)),
        {P({3: 13, 20: 1}, bar=(1, 0), waiting=(0, 15))},
        2,
        (3, 2),
    )
    # Contrast, bar_entry = any (navy, no bar first): bar and waiting both enter freely.
    expected_any = {
        P({3: 13, 22: 1, 23: 1}, waiting=(0, 15)),  # bar/22 waiting/23 = bar/23 waiting/22
        P({3: 13, 20: 1}, waiting=(1, 15)),  # bar/22/20
        P({3: 13, 20: 1}, bar=(1, 0), waiting=(0, 15)),  # waiting/22/20
    }
    check(legal_plays(NAVY, pos, (3, 2)), expected_any, 2, (3, 2))


def test_bar_entry_doubles_only_enters_on_a_double():
    # Bar 1, 3:14 (locked).  3-3: bar/22/19/16/13; 3-2: nothing.
    pos = P({3: 14}, bar=(1, 0), waiting=(0, 15))
    check(legal_plays(NAVY_DOUBLES_ONLY, pos, (3, 3)), {P({3: 14, 13: 1}, waiting=(0, 15))}, 4, (3, 3, 3, 3))
    check_empty(legal_plays(NAVY_DOUBLES_ONLY, pos, (3, 2)), pos, (3, 2))


def test_bar_entry_doubles_only_with_bar_first_freezes_on_non_double():
    # American + doubles-only: bar 1, 13:14.  6-5: the bar checker cannot enter on a
    # non-double and bar-first forbids everything else.
    rules = AMERICAN.with_overrides({"bar_entry": "doubles-only"})
    pos = P({13: 14}, bar=(1, 0), waiting=(0, 15))
    check_empty(legal_plays(rules, pos, (6, 5)), pos, (6, 5))


def test_bar_entry_doubles_only_european_double_with_complement():
    # European + doubles-only: bar 1, 1:14 (the 1s can never move: no bear-off while a
    # checker is out, and any die from 1 would bear off); opponent 15 waiting.
    # 3-3 = 3,3,3,3,4,4,4,4: bar/22/19/16/13, then 13/9/5 -> all home: bear-off only,
    # exact; nothing on the 4 (and 5/1 is not a bear-off) -> the last two 4s are lost.
    rules = EUROPEAN.with_overrides({"bar_entry": "doubles-only"})
    pos = P({1: 14}, bar=(1, 0), waiting=(0, 15))
    check(legal_plays(rules, pos, (3, 3)), {P({5: 1, 1: 14}, waiting=(0, 15))}, 6, (3, 3, 3, 3, 4, 4, 4, 4))
    # A non-double: the bar checker may not enter, and bar first freezes the rest.
    check_empty(legal_plays(rules, pos, (3, 1)), pos, (3, 1))
    # Contrast, plain european: 3-1 enters and moves on: bar/22/21 = bar/24/21.
    check(legal_plays(EUROPEAN, pos, (3, 1)), {P({1: 14, 21: 1}, waiting=(0, 15))}, 2, (3, 1))


# --- bar_entry = bonus-only (issue 19: an Australian variant) ------------------------


NAVY_BONUS_ONLY = NAVY.with_overrides({"bar_entry": "bonus-only"})


def test_bar_entry_bonus_only_enters_on_the_rolled_1_2():
    # Bar 1, 3:14 (locked at home); opponent 15 waiting.  A hit checker re-enters only
    # while playing a double or a 1-2: 1-2 enters and moves on, bar/23/22 = bar/24/22;
    # doubles-only refuses the same 1-2.
    pos = P({3: 14}, bar=(1, 0), waiting=(0, 15))
    check(legal_plays(NAVY_BONUS_ONLY, pos, (1, 2)), {P({3: 14, 22: 1}, waiting=(0, 15))}, 2, (1, 2))
    check_empty(legal_plays(NAVY_DOUBLES_ONLY, pos, (1, 2)), pos, (1, 2))


def test_bar_entry_bonus_only_enters_on_a_double_and_not_on_other_rolls():
    pos = P({3: 14}, bar=(1, 0), waiting=(0, 15))
    check(legal_plays(NAVY_BONUS_ONLY, pos, (3, 3)), {P({3: 14, 13: 1}, waiting=(0, 15))}, 4, (3, 3, 3, 3))
    for dice in ((3, 2), (3, 1), (6, 5)):
        check_empty(legal_plays(NAVY_BONUS_ONLY, pos, dice), pos, dice)
    # Waiting checkers are not hit checkers: they enter on any roll.
    waiting = P({3: 13}, bar=(1, 0), waiting=(1, 15))
    check(legal_plays(NAVY_BONUS_ONLY, waiting, (3, 2)), {P({3: 13, 20: 1}, bar=(1, 0), waiting=(0, 15))}, 2, (3, 2))


def test_bar_entry_bonus_only_without_a_1_2_bonus_is_doubles_only():
    # Under acey_deucey = none a 1-2 is an ordinary roll, so it is no bonus roll either.
    rules = NAVY.with_overrides({"bar_entry": "bonus-only", "acey_deucey": "none", "acey_deucey_extra_roll": False})
    pos = P({3: 14}, bar=(1, 0), waiting=(0, 15))
    check_empty(legal_plays(rules, pos, (1, 2)), pos, (1, 2))


def test_bar_entry_bonus_only_european_1_2_with_bar_first():
    # European (bar first) + bonus-only: bar 1, 1:14.  3-1 freezes everything, 1-2 enters:
    # bar/24/22 = bar/23/22.
    rules = EUROPEAN.with_overrides({"bar_entry": "bonus-only"})
    pos = P({1: 14}, bar=(1, 0), waiting=(0, 15))
    check_empty(legal_plays(rules, pos, (3, 1)), pos, (3, 1))
    check(legal_plays(rules, pos, (1, 2)), {P({1: 14, 22: 1}, waiting=(0, 15))}, 2, (1, 2))


# --- home = locked ----------------------------------------------------------------


def test_home_free_vs_locked():
    # Mover 10:1 5:14; opponent 15 waiting.  Roll 2-1.
    pos = P({10: 1, 5: 14}, waiting=(0, 15))
    w = (0, 15)
    # free (american): 2s: 10/8, 5/3; 1s: 10/9, 5/4.
    free = {
        P({7: 1, 5: 14}, waiting=w),  # 10/7
        P({8: 1, 5: 13, 4: 1}, waiting=w),  # 10/8 5/4
        P({9: 1, 5: 13, 3: 1}, waiting=w),  # 10/9 5/3
        P({10: 1, 5: 12, 4: 1, 3: 1}, waiting=w),  # 5/3 5/4
        P({10: 1, 5: 13, 2: 1}, waiting=w),  # 5/2
    }
    check(legal_plays(AMERICAN, pos, (2, 1)), free, 2, (2, 1))
    # locked (navy): the 5s may not move while 10 is out -> 10/8/7 only.
    check(legal_plays(NAVY, pos, (2, 1)), {P({7: 1, 5: 14}, waiting=w)}, 2, (2, 1))
    # the knob alone: american + home locked gives the same single play.
    locked = AMERICAN.with_overrides({"home": "locked"})
    check(legal_plays(locked, pos, (2, 1)), {P({7: 1, 5: 14}, waiting=w)}, 2, (2, 1))


def test_home_lock_releases_when_last_checker_arrives_mid_play():
    # Navy: mover 7:1 5:14.  2-1:
    #   7/5 (all home, lock off) then 5/4          -> 5:14 4:1
    #   7/6 (all home, lock off) then 6/4 or 5/3   -> 5:14 4:1 | 6:1 5:13 3:1
    #   (exact bear-off: nothing on 1 or 2)
    w = (0, 15)
    pos = P({7: 1, 5: 14}, waiting=w)
    expected = {P({5: 14, 4: 1}, waiting=w), P({6: 1, 5: 13, 3: 1}, waiting=w)}
    check(legal_plays(NAVY, pos, (2, 1)), expected, 2, (2, 1))


def test_home_lock_does_not_return_after_a_checker_is_off():
    # Navy: mover bar 1, 5:13, off 1 (a checker was hit during the bear-off).
    # Once one checker is off the lock stays released; no bear-off with a checker on the bar.
    w = (0, 15)
    pos = P({5: 13}, bar=(1, 0), waiting=w, off=(1, 0))
    expected = {
        P({22: 1, 5: 13}, waiting=w, off=(1, 0)),  # bar/23/22 = bar/24/22
        P({23: 1, 5: 12, 4: 1}, waiting=w, off=(1, 0)),  # bar/23 5/4
        P({24: 1, 5: 12, 3: 1}, waiting=w, off=(1, 0)),  # bar/24 5/3
        P({5: 11, 4: 1, 3: 1}, bar=(1, 0), waiting=w, off=(1, 0)),  # 5/4 5/3
        P({5: 12, 2: 1}, bar=(1, 0), waiting=w, off=(1, 0)),  # 5/2
    }
    check(legal_plays(NAVY, pos, (2, 1)), expected, 2, (2, 1))
    # Contrast: nothing off yet -> the 5s are locked, only the bar checker plays.
    pos0 = P({5: 14}, bar=(1, 0), waiting=w)
    check(legal_plays(NAVY, pos0, (2, 1)), {P({22: 1, 5: 14}, waiting=w)}, 2, (2, 1))


# --- bearing off needs all 15 not-off checkers home ---------------------------------


def test_no_bear_off_with_a_checker_waiting():
    # American: mover 3:14 + 1 waiting.  3-3: only the waiting checker can play:
    # waiting/22/19/16/13 (3/off is not allowed).
    pos = P({3: 14}, waiting=(1, 15))
    check(legal_plays(AMERICAN, pos, (3, 3)), {P({3: 14, 13: 1}, waiting=(0, 15))}, 4, (3, 3, 3, 3))
    # Contrast: that checker already off -> four checkers bear off from 3.
    pos_off = P({3: 14}, waiting=(0, 15))
    check(legal_plays(AMERICAN, pos_off, (3, 3)), {P({3: 10}, waiting=(0, 15))}, 4, (3, 3, 3, 3))


def test_no_bear_off_with_a_checker_on_the_bar():
    # American: mover bar 1, 1:14.  1-1: bar/24 then 24/23/22/21 (1/off not allowed).
    pos = P({1: 14}, bar=(1, 0), waiting=(0, 15))
    check(legal_plays(AMERICAN, pos, (1, 1)), {P({1: 14, 21: 1}, waiting=(0, 15))}, 4, (1, 1, 1, 1))


def test_bear_off_allowed_once_last_checker_gets_home_mid_play():
    # Mover 7:1 2:14.  6-2.
    w = (0, 15)
    pos = P({7: 1, 2: 14}, waiting=w)
    # American (standard): 7/1 then 2/off; or 7/5 then the 6 bears off from 5 (highest).
    # (2/off first is illegal while 7 is out.)
    american = {P({2: 13, 1: 1}, waiting=w), P({2: 14}, waiting=w)}
    check(legal_plays(AMERICAN, pos, (6, 2)), american, 2, (6, 2))
    # Navy (exact): 7/5 leaves the 6 unplayable, so only 7/1 2/off uses both dice.
    check(legal_plays(NAVY, pos, (6, 2)), {P({2: 13, 1: 1}, waiting=w)}, 2, (6, 2))


# --- bearoff = exact vs standard ------------------------------------------------------


def test_bearoff_standard_from_highest_lower_point():
    # Mover 4:2 1:1 (12 off).  6-5: standard takes both 4s; exact cannot play.
    w = (0, 15)
    pos = P({4: 2, 1: 1}, waiting=w)
    check(legal_plays(AMERICAN, pos, (6, 5)), {P({1: 1}, waiting=w)}, 2, (6, 5))
    check_empty(legal_plays(NAVY, pos, (6, 5)), pos, (6, 5))
    # the knob alone on navy:
    check(legal_plays(NAVY.with_overrides({"bearoff": "standard"}), pos, (6, 5)), {P({1: 1}, waiting=w)}, 2, (6, 5))


def test_bearoff_standard_must_move_when_higher_point_occupied():
    # Mover 6:1 2:1 (13 off).  4-3.
    w = (0, 15)
    pos = P({6: 1, 2: 1}, waiting=w)
    # standard: neither die may bear off from below while 6 is occupied; 6/2 then 3 off
    # from 2 (highest), or 6/3 then 4 off from 3 (highest): both leave one on 2.
    check(legal_plays(AMERICAN, pos, (4, 3)), {P({2: 1}, waiting=w)}, 2, (4, 3))
    # exact (navy): 6/2 or 6/3, then nothing -> one die; the higher (4) is playable: 6/2.
    check(legal_plays(NAVY, pos, (4, 3)), {P({2: 2}, waiting=w)}, 1, (4, 3))


def test_bearoff_exact_from_the_matching_point():
    # Navy: mover 3:1 1:1 (13 off).  3-1: 3/off and 1/off -> all 15 off on the last die.
    w = (0, 15)
    pos = P({3: 1, 1: 1}, waiting=w)
    check(legal_plays(NAVY, pos, (3, 1)), {P(waiting=w, off=(15, 0))}, 2, (3, 1))


# --- home_after_all_in = bearoff-only -----------------------------------------------


def test_home_after_all_in_bearoff_only_vs_free():
    # Mover 6:1 2:1 (13 off).  4-2.
    w = (0, 15)
    pos = P({6: 1, 2: 1}, waiting=w)
    # European (exact, bear-off only): 4 has no checker on 4 and 6/2 is not allowed;
    # only 2/off.  The 4 is lost.
    check(legal_plays(EUROPEAN, pos, (4, 2)), {P({6: 1}, waiting=w)}, 1, (4, 2))
    # Navy (exact, free): 6/2 2/off = 6/4 4/off = 2/off 6/2 -> one position.
    check(legal_plays(NAVY, pos, (4, 2)), {P({2: 1}, waiting=w)}, 2, (4, 2))
    # The knob alone on european reproduces navy here.
    free = EUROPEAN.with_overrides({"home_after_all_in": "free"})
    check(legal_plays(free, pos, (4, 2)), {P({2: 1}, waiting=w)}, 2, (4, 2))


def test_bearoff_only_starts_when_last_checker_arrives_mid_play():
    # Mover 7:1 2:1 (13 off).  3-1.
    w = (0, 15)
    pos = P({7: 1, 2: 1}, waiting=w)
    # European: 7/6 or 7/4 puts all home -> the other die may only bear off exactly
    # (nothing on 3 / on 1): dead ends.  2/1 first (home free while 7 is out) then 7/4.
    check(legal_plays(EUROPEAN, pos, (3, 1)), {P({4: 1, 1: 1}, waiting=w)}, 2, (3, 1))
    # With home_after_all_in = free, 7/6/3 (= 7/4/3) is allowed as well.
    free = EUROPEAN.with_overrides({"home_after_all_in": "free"})
    check(legal_plays(free, pos, (3, 1)), {P({4: 1, 1: 1}, waiting=w), P({3: 1, 2: 1}, waiting=w)}, 2, (3, 1))


# --- hits and blocks on intermediate landings ---------------------------------------


def test_hit_on_intermediate_landing():
    # American: mover 13:1 1:14 (the 1s cannot move: no bear-off); opponent blot on 10,
    # 14 waiting.  3-2 with the one checker: 13/10*/8 hits, 13/11/8 does not.
    pos = P({13: 1, 1: 14, 10: -1}, waiting=(0, 14))
    expected = {
        P({8: 1, 1: 14}, bar=(0, 1), waiting=(0, 14)),
        P({8: 1, 1: 14, 10: -1}, waiting=(0, 14)),
    }
    res = legal_plays(AMERICAN, pos, (3, 2))
    check(res, expected, 2, (3, 2))
    hit_play = next(p for p in res.plays if p.position.bar[1] == 1)
    assert hit_play.moves == ((13, 10), (10, 8))
    assert hit_play.hits == (True, False)


def test_blocked_intermediate_point():
    # As above but two opponents on 10 (13 waiting): 13/10 is blocked, so 13/11/8 only.
    pos = P({13: 1, 1: 14, 10: -2}, waiting=(0, 13))
    res = legal_plays(AMERICAN, pos, (3, 2))
    check(res, {P({8: 1, 1: 14, 10: -2}, waiting=(0, 13))}, 2, (3, 2))
    assert res.plays[0].moves == ((13, 11), (11, 8))


def test_both_intermediates_blocked_is_the_empty_play():
    # Opponent holds 10 and 11 (two each, 11 waiting): 8 is open but cannot be reached.
    pos = P({13: 1, 1: 14, 10: -2, 11: -2}, waiting=(0, 11))
    check_empty(legal_plays(AMERICAN, pos, (3, 2)), pos, (3, 2))
    check_empty(legal_plays(NAVY, pos, (3, 2)), pos, (3, 2))


# --- maximal dice use, either order, higher die ---------------------------------------


def test_either_order_lower_die_first_to_use_both():
    # American: mover 10:1 1:14; opponent holds 4 (two, 13 waiting).  6-3:
    # 10/4 is blocked, but 10/7/1 uses both dice.
    pos = P({10: 1, 1: 14, 4: -2}, waiting=(0, 13))
    for dice in ((6, 3), (3, 6)):
        res = legal_plays(AMERICAN, pos, dice)
        check(res, {P({1: 15, 4: -2}, waiting=(0, 13))}, 2, dice)
        assert res.plays[0].moves == ((10, 7), (7, 1))


def test_both_dice_preferred_over_one():
    # American: mover 9:1 8:1 (13 off); opponent holds 3 (two, 13 waiting).  5-1.
    #   5s: 9/4 (8/3 blocked);  1s: 9/8, 8/7.
    #   9/4 then 8/7                      -> 7:1 4:1
    #   8/7 then 9/4 (same) or 7/2        -> 9:1 2:1
    #   9/8 then 8/3 blocked              -> one die only: not a legal play
    w = (0, 13)
    pos = P({9: 1, 8: 1, 3: -2}, waiting=w)
    expected = {P({7: 1, 4: 1, 3: -2}, waiting=w), P({9: 1, 2: 1, 3: -2}, waiting=w)}
    check(legal_plays(AMERICAN, pos, (5, 1)), expected, 2, (5, 1))


def test_higher_die_when_only_one_can_be_played():
    # American: mover 10:1 (14 off); opponent holds 1 (two, 13 waiting).  6-3:
    #   10/4 then 3: 4/1 blocked, no bear-off from 4 with a 3 -> stop;
    #   10/7 then 6: 7/1 blocked -> stop.  One die, and the 6 is playable: 10/4.
    pos = P({10: 1, 1: -2}, waiting=(0, 13))
    for dice in ((6, 3), (3, 6)):
        check(legal_plays(AMERICAN, pos, dice), {P({4: 1, 1: -2}, waiting=(0, 13))}, 1, dice)


def test_lower_die_when_higher_cannot_be_played():
    # Same, opponent also holds 4 (two more, 11 waiting): the 6 cannot move at all -> 10/7.
    pos = P({10: 1, 1: -2, 4: -2}, waiting=(0, 11))
    for dice in ((6, 3), (3, 6)):
        check(legal_plays(AMERICAN, pos, dice), {P({7: 1, 1: -2, 4: -2}, waiting=(0, 11))}, 1, dice)


# --- doubles segments: fixed order ----------------------------------------------------


def test_doubles_first_unplayable_die_ends_segment():
    # European: mover 24:1 5:14; opponent holds 6 (two, 13 waiting).  6-6 =
    # 6,6,6,6,1,1,1,1: 24/18/12, then 12/6 is blocked (the 5s cannot move a 6) ->
    # the segment ends: the 1s are lost although 12/11 or 5/4 would be playable.
    pos = P({24: 1, 5: 14, 6: -2}, waiting=(0, 13))
    after = P({12: 1, 5: 14, 6: -2}, waiting=(0, 13))
    check(legal_plays(EUROPEAN, pos, (6, 6)), {after}, 2, (6, 6, 6, 6, 1, 1, 1, 1))
    check(legal_plays(AMERICAN, pos, (6, 6)), {after}, 2, (6, 6, 6, 6))


def test_european_complement_played_after_the_four():
    # European: mover 24:1 1:14 (the 1s cannot move: no bear-off while 24 is out).
    # 3-3 = 3,3,3,3,4,4,4,4: 24/21/18/15/12, 12/8/4 -> all home, bear-off only and exact:
    # the third 4 takes 4/off, the fourth 4 has nothing on the 4 -> 7 dice used.
    pos = P({24: 1, 1: 14}, waiting=(0, 15))
    check(legal_plays(EUROPEAN, pos, (3, 3)), {P({1: 14}, waiting=(0, 15))}, 7, (3, 3, 3, 3, 4, 4, 4, 4))


def test_european_complement_complete():
    # European: mover 24:2 (13 off); opponent 15 waiting, so every point is open.
    # 1-1 = 1,1,1,1,6,6,6,6.  After the 1s the two checkers stand on (24-a, 24-b),
    # a+b = 4: (20,24) (21,23) (22,22).  The 6s split 6*(i, 4-i); no bear-off can
    # happen (the two checkers' points sum to >= 20 > 12), so only landings >= 1 count:
    #   (20,24): (14,6) (8,12) (2,18)      (21,23): (15,5) (9,11) (3,17)
    #   (22,22): (16,4) (10,10) (4,16)=(16,4)
    w = (0, 15)
    pos = P({24: 2}, waiting=w)
    expected = {
        P({14: 1, 6: 1}, waiting=w), P({8: 1, 12: 1}, waiting=w), P({2: 1, 18: 1}, waiting=w),
        P({15: 1, 5: 1}, waiting=w), P({9: 1, 11: 1}, waiting=w), P({3: 1, 17: 1}, waiting=w),
        P({16: 1, 4: 1}, waiting=w), P({10: 2}, waiting=w),
    }
    check(legal_plays(EUROPEAN, pos, (1, 1)), expected, 8, (1, 1, 1, 1, 6, 6, 6, 6))


# --- nothing playable / last checker off ----------------------------------------------


def test_empty_play_keeps_position():
    # American: bar 1 + 14 waiting; opponent holds all of 19-24 (12 checkers, 3 waiting).
    blocks = {p: -2 for p in range(19, 25)}
    pos = P(blocks, bar=(1, 0), waiting=(14, 3))
    for preset in ("european", "american", "navy"):
        for dice in ((6, 5), (1, 2), (4, 4)):
            res = legal_plays(Ruleset.preset(preset), pos, dice)
            assert res.dice_used == 0 and res.complete is False
            assert len(res.plays) == 1
            assert res.plays[0].moves == () and res.plays[0].position == pos


def test_last_checker_off_mid_doubles_segment():
    # American: mover 2:1 (14 off).  4-4: the first 4 bears it off (highest point) and the
    # game ends: one die used, segment not complete.
    w = (0, 15)
    pos = P({2: 1}, waiting=w)
    check(legal_plays(AMERICAN, pos, (4, 4)), {P(waiting=w, off=(15, 0))}, 1, (4, 4, 4, 4))
    # European: mover 2:2 (13 off).  2-2 = 2,2,2,2,5,5,5,5: two 2s bear both off.
    pos2 = P({2: 2}, waiting=w)
    check(legal_plays(EUROPEAN, pos2, (2, 2)), {P(waiting=w, off=(15, 0))}, 2, (2, 2, 2, 2, 5, 5, 5, 5))


def test_last_checker_off_on_first_die_of_non_double():
    # Navy (exact): mover 3:1 (14 off).  3-5: 3/off ends the game; the 5 is not used.
    w = (0, 15)
    pos = P({3: 1}, waiting=w)
    for dice in ((3, 5), (5, 3)):
        res = legal_plays(NAVY, pos, dice)
        check(res, {P(waiting=w, off=(15, 0))}, 1, dice)
