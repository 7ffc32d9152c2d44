"""The report's findings: plain sentences read off its own tables, each with its number, interval and n.

Nothing here computes a statistic.  Every sentence takes a figure and its 95%
interval from a table the report also writes (``tables/*.csv``), so a finding
can always be traced to a row; the words are chosen by what the interval says
(an edge is "measurable" only when the interval excludes no edge).  Units are
the report's one unit per kind of figure: percent for rates and win chances,
percentage points (pp) for differences of those, points for points, rolls and
turns for length.
"""

from __future__ import annotations

import math

import pandas as pd

DOUBLES = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6))


# --- one unit per kind of figure -----------------------------------------------------------


def percent(x: float, low: float, high: float, digits: int = 1) -> str:
    """A rate or a win chance: ``51.2% [50.6%, 51.8%]``."""
    if x is None or math.isnan(x):
        return "–"
    return f"{100 * x:.{digits}f}% [{100 * low:.{digits}f}%, {100 * high:.{digits}f}%]"


def points_of_percent(x: float, low: float, high: float, digits: int = 1) -> str:
    """A difference of rates or win chances, in percentage points: ``+1.2 pp [+0.4, +2.0]``."""
    if x is None or math.isnan(x):
        return "–"
    return f"{100 * x:+.{digits}f} pp [{100 * low:+.{digits}f}, {100 * high:+.{digits}f}]"


def signed(x: float, low: float, high: float, digits: int = 2) -> str:
    """A mean that can have either sign (points, rolls): ``+0.35 [+0.21, +0.49]``."""
    if x is None or math.isnan(x):
        return "–"
    return f"{x:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


def plain(x: float, low: float, high: float, digits: int = 1) -> str:
    """A positive mean (rolls, turns): ``104.3 [104.1, 104.5]``."""
    if x is None or math.isnan(x):
        return "–"
    return f"{x:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _games(n: int, word: str = "games") -> str:
    return f"n = {int(n):,} {word}"


# --- per rule set --------------------------------------------------------------------------


def _first_mover(row: pd.Series, scoring: str | None) -> str:
    rate = percent(row["first_mover_win_rate"], row["first_mover_win_rate_low"], row["first_mover_win_rate_high"])
    n = _games(row["finished"])
    if row["first_mover_win_rate_low"] > 0.5:
        text = f"**The first mover has a measurable edge:** it wins {rate} of games ({n})."
    elif row["first_mover_win_rate_high"] < 0.5:
        text = f"**The second mover has a measurable edge:** the first mover wins only {rate} of games ({n})."
    else:
        text = (f"**No measurable first-mover edge:** the first mover wins {rate} of games ({n}); "
                "the interval includes 50%.")
    if scoring not in (None, "single"):
        text += (" Counting points, the first mover nets "
                 f"{signed(row['first_mover_points'], row['first_mover_points_low'], row['first_mover_points_high'])}"
                 " points per game.")
    return text


def _length(row: pd.Series) -> str:
    text = (f"**A game lasts {plain(row['rolls_per_game'], row['rolls_per_game_low'], row['rolls_per_game_high'])} "
            f"rolls** on average, both sides together "
            f"({plain(row['turns_per_game'], row['turns_per_game_low'], row['turns_per_game_high'])} turns; "
            f"half the games are over within {row['rolls_per_game_median']:.0f} rolls; {_games(row['finished'])}).")
    if row["unfinished"] > 0:
        verb = "is" if row["unfinished"] == 1 else "are"
        text += (f" {int(row['unfinished']):,} of {int(row['n']):,} games reached the turn cap and {verb} left "
                 "out of every figure.")
    return text


def _forfeits(row: pd.Series) -> str | None:
    if not row["forfeits"] > 0:
        return None
    digits = 1 if row["forfeit_share"] >= 0.01 else 2 if row["forfeit_share"] >= 0.001 else 3
    share = percent(row["forfeit_share"], row["forfeit_share_low"], row["forfeit_share_high"], digits)
    return (f"**{share} of turns forfeit "
            f"a bonus** the mover could not use in full ({_games(row['finished'])}).")


def _roll_values(part: pd.DataFrame) -> str:
    part = part.set_index(["die_1", "die_2"])

    def value(a: int, b: int) -> str:
        r = part.loc[(a, b)]
        return points_of_percent(r["value"], r["ci95_low"], r["ci95_high"])

    states = int(part["states"].iloc[0])
    best = max(DOUBLES, key=lambda d: part.loc[d, "value"])
    doubles = "; ".join(f"{a}-{b} {value(a, b)}" for a, b in DOUBLES)
    return (f"**A 1-2 is worth {value(1, 2)}** of win chance over the average roll. Each double: {doubles}; "
            f"the most valuable double is {best[0]}-{best[1]} ({_games(states, 'positions valued')} "
            f"of {int(part['games'].iloc[0]):,} games).")


def _bonus_model(part: pd.DataFrame) -> str:
    part = part[part["model"] == "win"].set_index("term")

    def effect(term: str) -> str:
        r = part.loc[term]
        return f"{r['effect']:+.1f} pp [{r['effect_ci95_low']:+.1f}, {r['effect_ci95_high']:+.1f}]"

    games = int(part["games"].iloc[0])
    return (f"**Each 1-2 a side rolls more than its opponent** moves its win chance by {effect('one_two_diff')}; "
            f"**each double more**, by {effect('doubles_diff')} ({_games(games)}).")


def _luck(row: pd.Series) -> str:
    share = row["r2_result_on_net_luck"]
    if math.isnan(share):
        why = ("the same seat won every game, so the result has no variance for net luck to explain"
               if row["seat_a_win_rate"] in (0.0, 1.0) else "net luck was the same in every game")
        return (f"**How much the dice decide cannot be measured here:** {why} ({_games(row['games'])}); "
                "play more luck games.")
    words = "most of" if share >= 0.5 else "much of" if share >= 0.25 else "some of"
    return (f"**The dice decide {words} the result:** the side the dice favoured wins "
            f"{percent(row['luckier_side_won'], row['luckier_side_won_low'], row['luckier_side_won_high'])} of games, "
            f"and net luck accounts for {percent(share, row['r2_low'], row['r2_high'], 0)} of the variance of the "
            f"result ({_games(row['games'])}).")


def _skill(row: pd.Series) -> str:
    words = "Skill counts too" if row["win_low"] > 0.5 else "Skill shows no measurable effect"
    return (f"**{words}:** the strongest player of the ladder, `{row['strongest']}`, beats a random player "
            f"in {percent(row['win_rate_vs_random'], row['win_low'], row['win_high'])} of games "
            f"({_games(row['games'])}).")


def _cube(row: pd.Series) -> str:
    return (f"**The doubling cube ends {percent(row['dropped_share'], row['dropped_share_low'], row['dropped_share_high'])}"
            f" of games by a dropped double;** the final cube is "
            f"{plain(row['cube_value'], row['cube_value_low'], row['cube_value_high'], 2)} on average, "
            f"{plain(row['cube_offers_per_game'], row['cube_offers_per_game_low'], row['cube_offers_per_game_high'], 2)}"
            f" doubles are offered per game, and a game is worth "
            f"{plain(row['points_per_game'], row['points_per_game_low'], row['points_per_game_high'], 2)} points "
            f"({_games(row['finished'])}).")


def rule_set_findings(t: dict[str, pd.DataFrame], name: str) -> list[str]:
    """The sentences for one rule set, from whichever of its tables the report has."""
    knobs = t["rules"].set_index("knob")[name] if "rules" in t else None
    scoring = str(knobs["scoring"]) if knobs is not None and "scoring" in knobs.index else None
    cube = knobs is not None and "cube" in knobs.index and str(knobs["cube"]) != "none"
    out: list[str] = []
    if "comparison" in t:
        row = t["comparison"].set_index("rules").loc[name]
        out += [_first_mover(row, scoring), _length(row)]
        forfeits = _forfeits(row)
        if forfeits:
            out.append(forfeits)
    if cube and "cube" in t:
        out.append(_cube(t["cube"].set_index("rules").loc[name]))
    if "roll_values" in t:
        out.append(_roll_values(t["roll_values"][t["roll_values"]["rules"] == name]))
    if "bonus_model" in t:
        out.append(_bonus_model(t["bonus_model"][t["bonus_model"]["rules"] == name]))
    if "luck" in t:
        out.append(_luck(t["luck"].set_index("rules").loc[name]))
    if "relative_skill" in t:
        out.append(_skill(t["relative_skill"].set_index("rules").loc[name]))
    return out


# --- between the rule sets -----------------------------------------------------------------


def _sharpest_length(d: pd.DataFrame) -> str | None:
    rolls = d[d["metric"] == "rolls"]
    notable = rolls[rolls["notable"].astype(bool)]
    if notable.empty:
        return None
    row = notable.loc[notable["diff"].abs().idxmax()]
    longer = "longer" if row["diff"] > 0 else "shorter"
    low, high = sorted((abs(row["paired_low"]), abs(row["paired_high"])))
    return (f"**Game length differs most between {row['rules']} and {row['base']}:** {row['rules']} games are "
            f"{abs(row['diff']):.1f} rolls {longer} [{low:.1f}, {high:.1f}] "
            f"({row['mean_rules']:.1f} against {row['mean_base']:.1f} rolls; paired on common dice, "
            f"{_games(row['n'])}).")


def _sharpest_first_mover(d: pd.DataFrame) -> str | None:
    wins = d[d["metric"] == "first_mover_win"]
    if wins.empty:
        return None
    notable = wins[wins["notable"].astype(bool)]
    m = int(d["m"].iloc[0])
    if notable.empty:
        row = wins.loc[wins["diff"].abs().idxmax()]
        return (f"**No rule set moves the first mover's win chance measurably away from {row['base']}'s:** "
                f"the largest difference, {row['rules']}'s, is "
                f"{points_of_percent(row['diff'], row['paired_low'], row['paired_high'])} ({_games(row['n'])}), "
                f"and corrected for the {m} comparisons no difference excludes 0.")
    row = notable.loc[notable["diff"].abs().idxmax()]
    return (f"**The first mover's edge differs most between {row['rules']} and {row['base']}:** its win chance "
            f"is {points_of_percent(row['diff'], row['paired_low'], row['paired_high'])} under {row['rules']} "
            f"({100 * row['mean_rules']:.1f}% against {100 * row['mean_base']:.1f}%; paired on common dice, "
            f"{_games(row['n'])}; it holds after correcting for the {m} comparisons).")


def _sharpest_points(d: pd.DataFrame) -> str | None:
    """What a game is worth, where the paired figures have it (rule sets with the cube)."""
    points = d[d["metric"] == "points"]
    if points.empty:
        return None
    notable = points[points["notable"].astype(bool)]
    if notable.empty:
        row = points.loc[points["diff"].abs().idxmax()]
        return (f"**No rule set changes what a game is worth measurably from {row['base']}:** the largest "
                f"difference, {row['rules']}'s, is {signed(row['diff'], row['paired_low'], row['paired_high'])} "
                f"points per game ({_games(row['n'])}).")
    row = notable.loc[notable["diff"].abs().idxmax()]
    more = "more" if row["diff"] > 0 else "less"
    return (f"**A game is worth {more} under {row['rules']} than under {row['base']}:** "
            f"{signed(row['diff'], row['paired_low'], row['paired_high'])} points per game "
            f"({row['mean_rules']:.2f} against {row['mean_base']:.2f} points; paired on common dice, "
            f"{_games(row['n'])}).")


def between_findings(t: dict[str, pd.DataFrame]) -> list[str]:
    """The sharpest differences between the rule sets, from the paired differences."""
    if "paired_differences" not in t or t["paired_differences"].empty:
        return []
    d = t["paired_differences"]
    return [s for s in (_sharpest_first_mover(d), _sharpest_length(d), _sharpest_points(d)) if s]


def findings_markdown(t: dict[str, pd.DataFrame], names: list[str]) -> list[str]:
    """The Findings section's body as Markdown lines: a list per rule set, then the differences."""
    lines: list[str] = []
    for name in names:
        sentences = rule_set_findings(t, name)
        if sentences:
            lines += [f"**{name}**", "", *[f"* {s}" for s in sentences], ""]
    between = between_findings(t)
    if between:
        lines += ["**Between the rule sets**", "", *[f"* {s}" for s in between], ""]
    return lines
