"""Golden positions: every worked example of the four source texts in docs/sources/.

Every expected position below is derived by hand from docs/rules.md (section 2
and the knob table of section 4), never pasted from the engine.  Positions are
written with ``P({point: count, ...})``: positive counts are the mover's
checkers, negative the opponent's; whatever is not on a point, on the bar or
waiting is off.  The mover moves 24 -> 1 and enters with die d on 25 - d.

Texts:  000 = European rules, 001 = encyclopedia (navy rules + 8 variants),
        002 = standard backgammon chapter, 004 = Russian guide.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from acesim.engine.moves import legal_plays
from acesim.engine.position import Position
from acesim.engine.rules import PRESET_SOURCES, Ruleset
from tests.helpers import P, check, check_empty

REPO = Path(__file__).resolve().parent.parent
SOURCES = REPO / "docs" / "sources"

EUROPEAN = Ruleset.preset("european")
AMERICAN = Ruleset.preset("american")
NAVY = Ruleset.preset("navy")
BACKGAMMON = Ruleset.preset("backgammon")


# --- the source texts themselves ----------------------------------------------

# The passage of its source text that each worked example below is built on,
# word for word (the Russian guide in its own words), so that a quotation in
# this file cannot drift from the text it claims to quote.
PASSAGES = [
    ("000", "if you roll 6-3, then you enter one checker on the opponent's six-point and one checker on "
            "his three-point"),
    ("000", "if you roll 4-4 and can only play three of your 4's. Then you are not allowed to play any of "
            "the 3's on the other side of the dice"),
    ("000", "If you are able to enter some but not all of your checkers on the bar, you must enter as many "
            "as you can then give up the remainder of your turn."),
    ("000", "you must roll the exact number required to bear off"),
    ("001", "if the 6 and 5 points are open and you roll a 6-5, you may not use that roll to bear off a "
            "checker from the 4-point"),
    ("001", "Pieces may be only moved from the bar upon rolling doubles."),
    ("001", "If you roll a 6-6 and only have three checkers on your 6-point to bear off, you may not take "
            "another turn (although you can bear off the three checkers from that point)."),
    ("002", "With 6-5, Ivory can move 24/18 and then 18/13."),
    ("002", "In the starting setup with 6-5, 24/19 is blocked, so that rear checker can only reach 13 by "
            "playing the 6 first."),
    ("002", "In the starting position, can Ivory use a 6 to play 13/7 even though 12 is blocked?"),
    ("002", "Ivory uses the four 1s to make the 7-point and 5-point: 8/7 twice and 6/5 twice."),
    ("002", "With 4-3, both dice can be played as 6/2, 2/off. The final 3 is oversized."),
    ("002", "One Ivory checker is on the 2-point. Either 6 or 5 could remove it on its own."),
    ("004", "Единицей вводите шашку на 24-й пункт, двойкой — на 23-й."),
    ("004", "Называете 6-6 и вводите четыре шашки на 19-й пункт"),
    ("004", "По американским правилам вернуть шашки с бара — первая обязанность: пока они не вошли, другие "
            "шашки не двигаются"),
    ("004", "Во флотской традиции ходить остальными шашками можно и с шашкой на баре."),
    ("004", "В американской версии работают правила коротких нард: если на этом пункте пусто, нужно сделать "
            "ход шашкой с более высокого пункта, а если выше никого нет — снять шашку с самого высокого "
            "занятого."),
    ("004", "В европейской и флотской версиях нужно точное число: лишняя кость сгорает."),
]


def _source_text(number: str) -> str:
    (path,) = SOURCES.glob(f"{number}_*.txt")
    return path.read_text(encoding="utf-8")


def _plain(text: str) -> str:
    """Typographic quotes and dashes as ASCII and whitespace collapsed: how a comment can quote a text."""
    text = unicodedata.normalize("NFC", text).replace("\u2019", "'").replace("\u2013", "-")
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize(("number", "passage"), PASSAGES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(PASSAGES)])
def test_passage_is_in_its_source_text(number, passage):
    assert _plain(passage) in _plain(_source_text(number))


@pytest.mark.parametrize("preset", sorted(PRESET_SOURCES))
def test_preset_source_names_a_text_in_the_repository(preset):
    # `acesim rules list` cites these paths; each must be a file of the repository.
    path = PRESET_SOURCES[preset].split()[0].rstrip(",")
    assert (REPO / path).is_file(), path


# --- helpers ----------------------------------------------------------------


# The Acey-Deucey start: everything waiting.
START = P(waiting=(15, 15))
# The backgammon start, mover's view: 24:2 13:5 8:3 6:5 / opponent 1:-2 12:-5 17:-3 19:-5.
BG = {24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -5, 17: -3, 19: -5}


def bg(**changes: int) -> Position:
    """The backgammon start with some mover points changed: bg(p24=1, p18=1)."""
    d = dict(BG)
    for key, value in changes.items():
        point = int(key[1:])
        if value:
            d[point] = value
        else:
            d.pop(point, None)
    return P(d)






def _open(points: list[int], dst: int) -> bool:
    return points[dst - 1] >= -1


def _reference_results(pos: Position, segment: tuple[int, ...]) -> tuple[set[Position], int]:
    """A deliberately tiny, independent model for a fixed-order segment.

    Valid ONLY where the mover has nothing on the bar, home is free and bearing
    off stays impossible throughout (a waiting checker or a checker on 7+ that
    never gets home).  Each die: enter a waiting checker on 25-d, or move one
    checker d pips to an open point (hitting a blot).  The first die with no
    move ends the segment; only sequences reaching the deepest die count.
    """
    assert pos.bar[0] == 0
    frontier, used = {pos}, 0
    for d in segment:
        nxt = set()
        for p in frontier:
            points = list(p.points)
            assert p.waiting[0] > 0 or any(v > 0 for v in points[6:]), "bear-off possible"
            sources = [s for s in range(1, 25) if points[s - 1] > 0]
            if p.waiting[0] > 0:
                sources.append(25)  # 25 = waiting
            for src in sources:
                dst = src - d
                if dst < 1 or not _open(points, dst):
                    continue
                new = list(points)
                opp_bar = p.bar[1]
                if new[dst - 1] == -1:
                    new[dst - 1] = 0
                    opp_bar += 1
                new[dst - 1] += 1
                waiting = p.waiting
                if src == 25:
                    waiting = (p.waiting[0] - 1, p.waiting[1])
                else:
                    new[src - 1] -= 1
                nxt.add(Position(tuple(new), (p.bar[0], opp_bar), waiting, p.off))
        if not nxt:
            break
        frontier, used = nxt, used + 1
    return frontier, used


# --- 000 European / 004 Russian: entering 6-3 from the start ------------------


@pytest.mark.parametrize("preset", ["european", "american", "navy"])
def test_entry_6_3_from_start(preset):
    # 000: "if you roll 6-3, then you enter one checker on the opponent's six-point and
    # one checker on his three-point" (our 19 and 22); 004: or enter on 22 and move on to 16.
    # waiting/19 19/16 reaches the same position as waiting/22 22/16 -> one play.
    res = legal_plays(Ruleset.preset(preset), START, (6, 3))
    expected = {
        P({19: 1, 22: 1}, waiting=(13, 15)),  # two checkers entered
        P({16: 1}, waiting=(14, 15)),  # one checker entered and moved on
    }
    check(res, expected, 2, (6, 3))
    routes = {play.moves for play in res.plays if play.position == P({16: 1}, waiting=(14, 15))}
    assert routes <= {(("waiting", 22), (22, 16)), (("waiting", 19), (19, 16))}


def test_entry_3_6_same_as_6_3():
    # The order the dice are given in does not matter for a non-double.
    a = legal_plays(EUROPEAN, START, (6, 3)).positions()
    b = legal_plays(EUROPEAN, START, (3, 6)).positions()
    assert a == b == {P({19: 1, 22: 1}, waiting=(13, 15)), P({16: 1}, waiting=(14, 15))}


# --- 000 European: 4-4 where only three 4s can be played ---------------------


def test_european_4_4_only_three_fours_no_threes():
    # 000: "if you roll 4-4 and can only play three of your 4's. Then you are not
    # allowed to play any of the 3's".
    #   mover: one runner on 20, 3:5 2:5 1:4 (these cannot move a 4: no bear-off
    #   while the runner is out); opponent: two on 4.
    #   4s: 20/16 16/12 12/8, then 8/4 is blocked -> three 4s; the 3s (8/5 ...) are lost.
    pos = P({20: 1, 3: 5, 2: 5, 1: 4, 4: -2})
    res = legal_plays(EUROPEAN, pos, (4, 4))
    check(res, {P({8: 1, 3: 5, 2: 5, 1: 4, 4: -2})}, 3, (4, 4, 4, 4, 3, 3, 3, 3))


def test_american_4_4_only_three_fours():
    # Same board under doubles = four: segment of four 4s, three used.
    pos = P({20: 1, 3: 5, 2: 5, 1: 4, 4: -2})
    res = legal_plays(AMERICAN, pos, (4, 4))
    check(res, {P({8: 1, 3: 5, 2: 5, 1: 4, 4: -2})}, 3, (4, 4, 4, 4))


# --- 004 Russian: the 1-2 example, then a chosen 6-6 -------------------------

AFTER_1_2 = P({24: 1, 23: 1}, waiting=(13, 15))


@pytest.mark.parametrize("preset", ["european", "american", "navy"])
def test_acey_deucey_1_2_from_start(preset):
    # 004, translated: "the 1 enters a checker on 24, the 2 on 23".  Alternatives: waiting/23 23/22
    # or waiting/24 24/22 (same position).
    res = legal_plays(Ruleset.preset(preset), START, (1, 2))
    expected = {AFTER_1_2, P({22: 1}, waiting=(14, 15))}
    check(res, expected, 2, (1, 2))


def _expected_6_6_after_1_2() -> set[Position]:
    """Four 6s from AFTER_1_2 with an empty opposing board, by hand.

    The checker on 24 can take 0-3 sixes (24, 18, 12, 6; a fourth would bear off,
    which is not allowed with checkers waiting), the one on 23 likewise (23, 17,
    11, 5), and each newly entered checker takes 1-4 sixes (19, 13, 7, 1).  The
    three routes use disjoint points, so each split is a different position.
    """
    a_route, b_route, e_route = [24, 18, 12, 6], [23, 17, 11, 5], [19, 13, 7, 1]
    partitions = {
        0: [()],
        1: [(1,)],
        2: [(2,), (1, 1)],
        3: [(3,), (2, 1), (1, 1, 1)],
        4: [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)],
    }
    out = set()
    for ka in range(4):
        for kb in range(4):
            rest = 4 - ka - kb
            if rest < 0:
                continue
            for parts in partitions[rest]:
                pts: dict[int, int] = {}
                for p in (a_route[ka], b_route[kb], *(e_route[k - 1] for k in parts)):
                    pts[p] = pts.get(p, 0) + 1
                out.add(P(pts, waiting=(13 - len(parts), 15)))
    return out


@pytest.mark.parametrize("preset", ["american", "navy"])
def test_chosen_6_6_after_1_2_four_moves(preset):
    # 004, translated: "name 6-6 and enter four checkers on 19".  The chosen double is queried as
    # dice (6, 6): four 6s under american/navy.  Navy's home lock changes nothing
    # here (no checker reaching 1-6 could move on anyway).
    res = legal_plays(Ruleset.preset(preset), AFTER_1_2, (6, 6))
    expected = _expected_6_6_after_1_2()
    assert len(expected) == 24
    four_on_19 = P({24: 1, 23: 1, 19: 4}, waiting=(9, 15))
    assert four_on_19 in expected
    check(res, expected, 4, (6, 6, 6, 6))


def test_chosen_6_6_after_1_2_european_complement():
    # Under european the chosen 6-6 is 6,6,6,6 then the complement 1,1,1,1.
    res = legal_plays(EUROPEAN, AFTER_1_2, (6, 6))
    assert res.segment == (6, 6, 6, 6, 1, 1, 1, 1)
    # The guide's play: four enter on 19, then e.g. four 1s enter on 24.
    assert P({24: 5, 23: 1, 19: 4}, waiting=(5, 15)) in res.positions()
    # ... and the four-move result is not a complete european play.
    assert P({24: 1, 23: 1, 19: 4}, waiting=(9, 15)) not in res.positions()
    expected, used = _reference_results(AFTER_1_2, res.segment)
    assert used == 8
    check(res, expected, 8, (6, 6, 6, 6, 1, 1, 1, 1))


# --- 002 backgammon chapter --------------------------------------------------


def test_backgammon_6_5_from_start():
    # 002: "24/18 and then 18/13"; "24/19 is blocked, so that rear checker can only
    # reach 13 by playing the 6 first".  Full set, by hand:
    #   6s: 24/18, 13/7, 8/2 (6/off not allowed); 5s: 13/8, 8/3 (24/19, 6/1 blocked).
    res = legal_plays(BACKGAMMON, P(BG), (6, 5))
    expected = {
        bg(p24=1, p13=6, p18=0),  # 24/18/13
        bg(p24=1, p18=1, p13=4, p8=4),  # 24/18 13/8
        bg(p24=1, p18=1, p8=2, p3=1),  # 24/18 8/3
        bg(p13=3, p7=1, p8=4),  # 13/7 13/8
        bg(p13=4, p7=1, p8=2, p3=1),  # 13/7 8/3
        bg(p13=4, p2=1),  # 13/2 (= 8/2 13/8 = 13/7/2)
        bg(p8=1, p3=1, p2=1),  # 8/2 8/3
    }
    assert len(expected) == 7
    check(res, expected, 2, (6, 5))
    assert ((24, 18), (18, 13)) in {play.moves for play in res.plays}


def test_backgammon_6_1_from_start_13_7_jumps_blocked_12():
    # 002: "can Ivory use a 6 to play 13/7 even though 12 is blocked?" Its answer: yes.
    #   6s: 24/18, 13/7, 8/2;  1s: 24/23, 8/7, 6/5 (13/12 blocked);
    #   one checker: 13/7/6 only (24/18/17, 24/23/17, 8/2/1, 8/7/1 blocked).
    res = legal_plays(BACKGAMMON, P(BG), (6, 1))
    expected = {
        bg(p24=0, p23=1, p18=1),  # 24/18 24/23
        bg(p24=1, p18=1, p8=2, p7=1),  # 24/18 8/7
        bg(p24=1, p18=1, p6=4, p5=1),  # 24/18 6/5
        bg(p13=4, p7=1, p24=1, p23=1),  # 13/7 24/23
        bg(p13=4, p8=2, p7=2),  # 13/7 8/7
        bg(p13=4, p7=1, p6=4, p5=1),  # 13/7 6/5
        bg(p8=2, p2=1, p24=1, p23=1),  # 8/2 24/23
        bg(p8=1, p7=1, p2=1),  # 8/2 8/7
        bg(p8=2, p2=1, p6=4, p5=1),  # 8/2 6/5
        bg(p13=4, p6=6),  # 13/7/6
    }
    assert len(expected) == 10
    check(res, expected, 2, (6, 1))


def test_jump_over_blocked_point_alone():
    # Only the 6 can start: 13/12 is blocked (five on 12), 13/7 jumps it, then 7/6.
    #   mover 13:1 (14 off); opponent 12:-5 (10 off).
    pos = P({13: 1, 12: -5})
    res = legal_plays(BACKGAMMON, pos, (6, 1))
    check(res, {P({6: 1, 12: -5})}, 2, (6, 1))
    assert res.plays[0].moves == ((13, 7), (7, 6))


def test_backgammon_1_1_from_start():
    # 002: "the four 1s make the 7-point and 5-point: 8/7 twice and 6/5 twice".
    # The full set: 1s can move the 24s (down to 20; 19 blocked), the 8s and 6s
    # (down to 2; 1 blocked); 13/12 is blocked.  Checked against the tiny model.
    res = legal_plays(BACKGAMMON, P(BG), (1, 1))
    example = bg(p8=1, p7=2, p6=3, p5=2)
    assert example in res.positions()
    expected, used = _reference_results(P(BG), (1, 1, 1, 1))
    assert used == 4 and example in expected
    # Sanity of the model on this case: every result moved exactly 4 pips.
    assert all(p.pips()[0] == P(BG).pips()[0] - 4 for p in expected)
    check(res, expected, 4, (1, 1, 1, 1))


def test_backgammon_4_3_bear_off_oversized_three():
    # 002: one checker on the 6-point, open home board, 4-3: 6/2, 2/off ("the final
    # 3 is oversized").  6/3 3/off reaches the same: all 15 off, both dice used.
    #   opponent: 0 off, all in its home board (our 19-21).
    opp = {19: -5, 20: -5, 21: -5}
    pos = P({6: 1, **opp})
    res = legal_plays(BACKGAMMON, pos, (4, 3))
    check(res, {P(opp, off=(15, 0))}, 2, (4, 3))
    assert res.plays[0].moves in {((6, 2), (2, "off")), ((6, 3), (3, "off"))}


def test_backgammon_6_5_only_one_die_last_checker():
    # 002: "One checker is on the 2-point. Either 6 or 5 could remove it on its own."
    # The checker goes off with one die and the game ends: one die used, not complete.
    #   opponent: 11 off, four left (on our 20 and 22).
    opp = {20: -2, 22: -2}
    pos = P({2: 1, **opp})
    for dice in ((6, 5), (5, 6)):
        res = legal_plays(BACKGAMMON, pos, dice)
        check(res, {P(opp, off=(15, 11))}, 1, dice)
        assert res.plays[0].moves == ((2, "off"),)


# --- 001 encyclopedia: variants ----------------------------------------------


def test_variant6_exact_bearoff_6_5_cannot_bear_off_from_4():
    # 001 variant 6: "if the 6 and 5 points are open and you roll a 6-5, you may not
    # use that roll to bear off a checker from the 4-point".
    #   mover all home: 4:3 3:4 2:4 1:4; opponent two on our 20.
    pos = P({4: 3, 3: 4, 2: 4, 1: 4, 20: -2})
    check_empty(legal_plays(NAVY, pos, (6, 5)), pos, (6, 5))
    check_empty(legal_plays(EUROPEAN, pos, (6, 5)), pos, (6, 5))
    # Contrast, standard bear-off: both dice take a checker from the 4 (highest).
    res = legal_plays(AMERICAN, pos, (6, 5))
    check(res, {P({4: 1, 3: 4, 2: 4, 1: 4, 20: -2})}, 2, (6, 5))


def test_variant8_6_6_with_three_on_the_six_point():
    # 001 variant 8: "If you roll a 6-6 and only have three checkers on your 6-point
    # to bear off ... you can bear off the three checkers from that point".
    #   mover 6:3 1:2 (10 off); opponent two on our 20.
    pos = P({6: 3, 1: 2, 20: -2})
    after_three = P({1: 2, 20: -2})
    check(legal_plays(NAVY, pos, (6, 6)), {after_three}, 3, (6, 6, 6, 6))
    # european: the fourth 6 fails, so the four 1s are lost too.
    check(legal_plays(EUROPEAN, pos, (6, 6)), {after_three}, 3, (6, 6, 6, 6, 1, 1, 1, 1))
    # standard bear-off: the fourth 6 takes a checker from the 1 (now the highest).
    check(legal_plays(AMERICAN, pos, (6, 6)), {P({1: 1, 20: -2})}, 4, (6, 6, 6, 6))


NAVY_BAR_DOUBLES_ONLY = NAVY.with_overrides({"bar_entry": "doubles-only"})


def test_variant7_bar_entry_only_on_doubles():
    # 001 variant 7: "Pieces may be only moved from the bar upon rolling doubles."
    #   mover: bar 1, 3:14 (locked at home under navy until the bar checker is in);
    #   opponent: 15 waiting.
    pos = P({3: 14}, bar=(1, 0), waiting=(0, 15))
    check_empty(legal_plays(NAVY_BAR_DOUBLES_ONLY, pos, (3, 2)), pos, (3, 2))
    # A double lets it in: bar/22/19/16/13.
    res = legal_plays(NAVY_BAR_DOUBLES_ONLY, pos, (3, 3))
    check(res, {P({13: 1, 3: 14}, waiting=(0, 15))}, 4, (3, 3, 3, 3))
    # Contrast, plain navy: the 3-2 enters and moves on (bar/22/20 = bar/23/20).
    check(legal_plays(NAVY, pos, (3, 2)), {P({20: 1, 3: 14}, waiting=(0, 15))}, 2, (3, 2))


# --- 004 Russian: bar first (American) vs navy --------------------------------


def test_bar_first_american_vs_navy_moves_with_checker_on_bar():
    # 004: American - the bar checker must come in first; navy - other checkers may
    # move while one is on the bar.
    #   mover: bar 1, 13:14;  opponent: two on our 20 (blocks the 5), 13 on our 1.
    #   roll 5-3: the 5 cannot enter, the 3 enters on 22.
    pos = P({13: 14, 20: -2, 1: -13}, bar=(1, 0))
    american = {
        P({22: 1, 13: 13, 8: 1, 20: -2, 1: -13}),  # bar/22 13/8
        P({17: 1, 13: 14, 20: -2, 1: -13}),  # bar/22/17
    }
    check(legal_plays(AMERICAN, pos, (5, 3)), american, 2, (5, 3))
    navy = american | {
        P({13: 12, 10: 1, 8: 1, 20: -2, 1: -13}, bar=(1, 0)),  # 13/10 13/8
        P({13: 13, 5: 1, 20: -2, 1: -13}, bar=(1, 0)),  # 13/5 (13/10/5 = 13/8/5)
    }
    check(legal_plays(NAVY, pos, (5, 3)), navy, 2, (5, 3))


# --- 004 Russian: American standard bear-off vs exact -------------------------


def test_american_standard_vs_exact_bearoff():
    # 004, translated: American - "if that point is empty, move a checker from a higher point;
    # if there is none higher, bear off from the highest occupied"; European/navy:
    # "an exact number is needed: the extra die is lost".
    #   mover 5:1 2:2 (12 off); opponent two on our 20.  Roll 6-3.
    pos = P({5: 1, 2: 2, 20: -2})
    # American: 6 takes the 5 off (highest, lower than 6), then the 3 takes a 2 off;
    # or 3 first 5/2 (a 3 cannot bear off from 2 while 5 is occupied), then 6 off from 2.
    american = {P({2: 1, 20: -2}), P({2: 2, 20: -2})}
    check(legal_plays(AMERICAN, pos, (6, 3)), american, 2, (6, 3))
    # Navy (exact, free inside home): only 5/2 is possible, the 6 is lost.
    check(legal_plays(NAVY, pos, (6, 3)), {P({2: 3, 20: -2})}, 1, (6, 3))
    # European (exact, bear-off only once all are home): nothing at all.
    check_empty(legal_plays(EUROPEAN, pos, (6, 3)), pos, (6, 3))


def test_european_bar_partial_entry_gives_up_rest():
    # 000: "If you are able to enter some but not all of your checkers on the bar,
    # you must enter as many as you can then give up the remainder of your turn."
    #   mover: bar 2, 13:13; opponent: two on our 21 (blocks the 4), 13 waiting.
    pos = P({13: 13, 21: -2}, bar=(2, 0), waiting=(0, 13))
    for dice in ((4, 2), (2, 4)):
        res = legal_plays(EUROPEAN, pos, dice)
        check(res, {P({13: 13, 23: 1, 21: -2}, bar=(1, 0), waiting=(0, 13))}, 1, dice)
