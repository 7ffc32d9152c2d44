"""The report's findings, read off synthetic tables whose findings are known."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from acesim.outputs.findings import between_findings, findings_markdown, percent, points_of_percent, rule_set_findings


def comparison_row(name: str, rate: float, low: float, high: float, *, rolls: float = 100.0,
                   unfinished: int = 0, forfeits: int = 0, share: float = 0.0) -> dict:
    n = 10_000
    return {
        "rules": name, "n": n, "finished": n - unfinished, "unfinished": unfinished,
        "first_mover_win_rate": rate, "first_mover_win_rate_low": low, "first_mover_win_rate_high": high,
        "first_mover_points": 0.25, "first_mover_points_low": 0.1, "first_mover_points_high": 0.4,
        "rolls_per_game": rolls, "rolls_per_game_low": rolls - 0.5, "rolls_per_game_high": rolls + 0.5,
        "rolls_per_game_median": rolls - 2, "turns_per_game": rolls * 0.8, "turns_per_game_low": rolls * 0.8 - 0.5,
        "turns_per_game_high": rolls * 0.8 + 0.5, "forfeits": forfeits, "forfeit_share": share,
        "forfeit_share_low": share * 0.9, "forfeit_share_high": share * 1.1 + 1e-5,
    }


def knobs(**scoring: str) -> pd.DataFrame:
    return pd.DataFrame({"knob": ["scoring", "bearoff"], **{n: [s, "exact"] for n, s in scoring.items()}})


def paired(rows: list[tuple[str, str, float, float, float, bool]]) -> pd.DataFrame:
    return pd.DataFrame([
        {"rules": r, "base": "base", "metric": m, "n": 10_000, "mean_base": 0.5 if m == "first_mover_win" else 100.0,
         "mean_rules": (0.5 if m == "first_mover_win" else 100.0) + d, "diff": d, "paired_low": lo, "paired_high": hi,
         "notable": notable, "m": len(rows)}
        for r, m, d, lo, hi, notable in rows
    ])


def roll_values(name: str, best: tuple[int, int]) -> pd.DataFrame:
    rows = []
    for a in range(1, 7):
        for b in range(a, 7):
            v = 0.05 if (a, b) == (1, 2) else 0.03 if (a, b) == best else 0.01 if a == b else -0.002
            rows.append({"die_1": a, "die_2": b, "value": v, "ci95_low": v - 0.001, "ci95_high": v + 0.001,
                         "states": 5_000, "games": 60, "rules": name})
    return pd.DataFrame(rows)


def test_first_mover_edge_is_named_only_when_the_interval_excludes_50_percent():
    t = {"rules": knobs(a="single", b="single", c="per-checker"),
         "comparison": pd.DataFrame([comparison_row("a", 0.52, 0.51, 0.53), comparison_row("b", 0.47, 0.46, 0.48),
                                     comparison_row("c", 0.505, 0.495, 0.515)])}
    a, b, c = (rule_set_findings(t, n)[0] for n in "abc")
    assert a.startswith("**The first mover has a measurable edge:**") and "52.0% [51.0%, 53.0%]" in a
    assert b.startswith("**The second mover has a measurable edge:**") and "47.0% [46.0%, 48.0%]" in b
    assert c.startswith("**No measurable first-mover edge:**") and "50.5% [49.5%, 51.5%]" in c
    assert "n = 10,000 games" in a
    # points are named where the scoring makes them differ from wins
    assert "points per game" not in a and "+0.25 [+0.10, +0.40] points per game" in c


def test_length_forfeits_and_the_turn_cap():
    t = {"comparison": pd.DataFrame([
        comparison_row("a", 0.5, 0.49, 0.51, rolls=80.0, unfinished=1, forfeits=0),
        comparison_row("b", 0.5, 0.49, 0.51, rolls=120.0, unfinished=3, forfeits=40, share=0.004),
    ])}
    a, b = rule_set_findings(t, "a"), rule_set_findings(t, "b")
    assert "80.0 [79.5, 80.5] rolls" in a[1] and "within 78 rolls" in a[1]
    assert "1 of 10,000 games reached the turn cap and is left out" in a[1]
    assert "3 of 10,000 games reached the turn cap and are left out" in b[1]
    assert len(a) == 2, "no forfeits: no forfeit sentence"
    assert b[2].startswith("**0.40% [0.36%, 0.44%] of turns forfeit a bonus**")


def test_roll_values_name_the_1_2_each_double_and_the_best():
    t = {"roll_values": roll_values("a", (5, 5))}
    (s,) = rule_set_findings(t, "a")
    assert "**A 1-2 is worth +5.0 pp [+4.9, +5.1]**" in s
    assert "5-5 +3.0 pp [+2.9, +3.1]" in s and "1-1 +1.0 pp [+0.9, +1.1]" in s
    assert "the most valuable double is 5-5" in s and "n = 5,000 positions valued of 60 games" in s


def test_luck_words_follow_the_share_the_dice_explain():
    def luck(name, r2):
        return {"rules": name, "games": 300, "luckier_side_won": 0.9, "luckier_side_won_low": 0.86,
                "luckier_side_won_high": 0.93, "r2_result_on_net_luck": r2, "r2_low": r2 - 0.05, "r2_high": r2 + 0.05}
    t = {"luck": pd.DataFrame([luck("a", 0.7), luck("b", 0.3), luck("c", 0.1)])}
    assert "decide most of the result" in rule_set_findings(t, "a")[0]
    assert "decide much of the result" in rule_set_findings(t, "b")[0]
    assert "decide some of the result" in rule_set_findings(t, "c")[0]
    assert "70% [65%, 75%] of the variance" in rule_set_findings(t, "a")[0]
    # one seat won every luck game: R^2 is undefined, and the finding says why instead of a number
    one_sided = {**luck("d", float("nan")), "r2_low": float("nan"), "r2_high": float("nan"), "games": 6,
                 "seat_a_win_rate": 0.0}
    text = rule_set_findings({"luck": pd.DataFrame([one_sided])}, "d")[0]
    assert text == ("**How much the dice decide cannot be measured here:** the same seat won every game, so the "
                    "result has no variance for net luck to explain (n = 6 games); play more luck games.")


def test_the_sharpest_differences_between_rule_sets():
    d = paired([
        ("x", "first_mover_win", 0.010, 0.002, 0.018, False),
        ("y", "first_mover_win", -0.030, -0.038, -0.022, True),
        ("x", "rolls", 20.0, 19.0, 21.0, True),
        ("y", "rolls", -35.0, -36.0, -34.0, True),
    ])
    first, length = between_findings({"paired_differences": d})
    assert "differs most between y and base" in first and "-3.0 pp [-3.8, -2.2]" in first
    assert "47.0% against 50.0%" in first
    assert "y games are 35.0 rolls shorter [34.0, 36.0]" in length

    none = between_findings({"paired_differences": paired([
        ("x", "first_mover_win", 0.010, 0.002, 0.018, False), ("y", "first_mover_win", -0.004, -0.012, 0.004, False),
        ("x", "rolls", 2.0, -1.0, 5.0, False)])})
    assert len(none) == 1 and none[0].startswith("**No rule set moves the first mover's win chance measurably")
    assert "x's, is +1.0 pp [+0.2, +1.8]" in none[0]


def test_every_finding_carries_an_interval_and_its_sample_size():
    t = {"rules": knobs(a="gammons", b="single"),
         "comparison": pd.DataFrame([comparison_row("a", 0.52, 0.51, 0.53, forfeits=5, share=0.02),
                                     comparison_row("b", 0.5, 0.49, 0.51)]),
         "roll_values": pd.concat([roll_values("a", (6, 6)), roll_values("b", (1, 1))]),
         "paired_differences": paired([("b", "first_mover_win", -0.02, -0.03, -0.01, True),
                                       ("b", "rolls", 5.0, 4.0, 6.0, True)])}
    lines = findings_markdown(t, ["a", "b"])
    bullets = [x for x in lines if x.startswith("* ")]
    assert len(bullets) == 4 + 3 + 2
    for b in bullets:
        assert re.search(r"\[[-+]?\d", b), b
        assert re.search(r"n = [\d,]+ ", b), b
    assert lines[0] == "**a**" and "**Between the rule sets**" in lines


@pytest.mark.parametrize("x, low, high, text", [(0.5123, 0.5, 0.52, "51.2% [50.0%, 52.0%]"),
                                                 (float("nan"), 0, 0, "–")])
def test_percent(x, low, high, text):
    assert percent(x, low, high) == text


def test_points_of_percent_signs_each_bound():
    assert points_of_percent(-0.012, -0.02, 0.004) == "-1.2 pp [-2.0, +0.4]"


def cube_row(name: str, dropped: float, cube: float, offers: float, points: float) -> dict:
    return {"rules": name, "finished": 4_000, "dropped": round(dropped * 4_000), "dropped_share": dropped,
            "dropped_share_low": dropped - 0.01, "dropped_share_high": dropped + 0.01,
            "cube_value": cube, "cube_value_low": cube - 0.05, "cube_value_high": cube + 0.05,
            "cube_offers_per_game": offers, "cube_offers_per_game_low": offers - 0.02,
            "cube_offers_per_game_high": offers + 0.02, "points_per_game": points,
            "points_per_game_low": points - 0.1, "points_per_game_high": points + 0.1}


def test_the_cube_sentence_only_for_rule_sets_with_the_cube():
    t = {"rules": pd.DataFrame({"knob": ["scoring", "cube"], "off": ["single", "none"], "on": ["single", "money"]}),
         "cube": pd.DataFrame([cube_row("off", 0.0, 1.0, 0.0, 1.0), cube_row("on", 0.3, 2.0, 1.2, 1.9)])}
    assert rule_set_findings(t, "off") == []
    (s,) = rule_set_findings(t, "on")
    assert s.startswith("**The doubling cube ends 30.0% [29.0%, 31.0%] of games by a dropped double;**")
    assert "2.00 [1.95, 2.05] on average" in s and "1.20 [1.18, 1.22] doubles" in s
    assert "worth 1.90 [1.80, 2.00] points" in s and "n = 4,000 games" in s


def test_what_a_game_is_worth_between_rule_sets():
    d = paired([("on", "points", 0.9, 0.8, 1.0, True), ("small", "points", 0.1, -0.05, 0.25, False)])
    (worth,) = between_findings({"paired_differences": d})
    assert worth.startswith("**A game is worth more under on than under base:**")
    assert "+0.90 [+0.80, +1.00] points per game" in worth and "n = 10,000 games" in worth
    d = paired([("small", "points", -0.1, -0.25, 0.05, False)])
    (worth,) = between_findings({"paired_differences": d})
    assert worth.startswith("**No rule set changes what a game is worth measurably from base:**")
    assert "-0.10 [-0.25, +0.05]" in worth
    # without the cube the paired figures have no points row, and no sentence is made of it
    assert between_findings({"paired_differences": paired([("x", "rolls", 2.0, -1.0, 5.0, False)])}) == []
