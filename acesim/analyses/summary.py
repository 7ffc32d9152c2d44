"""The summary of a run: exact partial sums per chunk, merged, then intervals.

Each chunk reduces its records to integer counts, sums and sums of squares
(and value counts for medians), so merging chunks is exact and independent of
their order or number, and memory does not grow with the number of games.
Means and rates are over finished games; unfinished games (turn cap) are
counted apart (docs/statistics.md).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd

from acesim.common.stats import delta_variance, mean_ci, share_interval, wilson

SUMMARY_SCHEMA = 1

_MEDIANS = ("rolls", "turns", "points")


def _both(df: pd.DataFrame, column: str) -> np.ndarray:
    return (df[f"{column}_a"] + df[f"{column}_b"]).to_numpy(np.int64)


def partial(df: pd.DataFrame) -> dict:
    """The exact partial sums of one chunk's records."""
    finished = df[df["unfinished"] == 0]
    first_won = (finished["winner"] == finished["first_mover"]).to_numpy()
    values = {
        "rolls": _both(finished, "rolls"),
        "turns": _both(finished, "turns"),
        "points": finished["points"].to_numpy(np.int64),
        "first_mover_points": np.where(first_won, 1, -1) * finished["points"].to_numpy(np.int64),
        "doubles": _both(finished, "doubles"),
        "one_two": _both(finished, "one_two"),
        "forfeits": _both(finished, "forfeits"),
        "extra_rolls": _both(finished, "extra_rolls"),
        "dice_lost": _both(finished, "dice_lost"),
        "hits": _both(finished, "hits"),
        "cube_value": finished["cube_value"].to_numpy(np.int64),
        "dropped": finished["dropped"].to_numpy(np.int64),
        "cube_offers": _both(finished, "cube_offers"),
    }
    out = {
        "games": int(len(df)),
        "finished": int(len(finished)),
        "unfinished": int(len(df) - len(finished)),
        "first_mover_wins": int(first_won.sum()),
        "seat_a_wins": int((finished["winner"] == 0).sum()),
        "sum": {k: int(v.sum()) for k, v in values.items()},
        "sumsq": {k: int((v.astype(object) ** 2).sum()) if len(v) else 0 for k, v in values.items()},
        # the forfeit rate per turn is a ratio over games (``forfeit_rate``), which needs this product too
        "cross": {"forfeits_turns": int((values["forfeits"].astype(object) * values["turns"]).sum())
                  if len(finished) else 0},
        "counts": {k: Counter(map(int, values[k])) for k in _MEDIANS},
    }
    return out


def merge(partials: list[dict]) -> dict:
    """The partial sums of all chunks together."""
    total = {
        "games": 0,
        "finished": 0,
        "unfinished": 0,
        "first_mover_wins": 0,
        "seat_a_wins": 0,
        "sum": Counter(),
        "sumsq": Counter(),
        "cross": Counter(),
        "counts": {k: Counter() for k in _MEDIANS},
    }
    for p in partials:
        for key in ("games", "finished", "unfinished", "first_mover_wins", "seat_a_wins"):
            total[key] += p[key]
        total["sum"].update(p["sum"])
        total["sumsq"].update(p["sumsq"])
        total["cross"].update(p["cross"])
        for k in _MEDIANS:
            total["counts"][k].update(p["counts"][k])
    return total


_MEAN_KEYS = (
    ("rolls", "rolls_per_game_mean", "rolls_per_game_ci95"),
    ("turns", "turns_per_game_mean", "turns_per_game_ci95"),
    ("points", "points_mean", "points_ci95"),
    ("first_mover_points", "first_mover_points_mean", "first_mover_points_ci95"),
    ("doubles", "doubles_per_game", "doubles_per_game_ci95"),
    ("one_two", "one_two_per_game", "one_two_per_game_ci95"),
    ("forfeits", "forfeits_per_game", "forfeits_per_game_ci95"),
    ("extra_rolls", "extra_rolls_per_game", "extra_rolls_per_game_ci95"),
    ("dice_lost", "dice_lost_per_game", "dice_lost_per_game_ci95"),
    ("hits", "hits_per_game", "hits_per_game_ci95"),
    ("cube_value", "cube_value_mean", "cube_value_ci95"),
    ("cube_offers", "cube_offers_per_game", "cube_offers_per_game_ci95"),
)


def _median(counts: Counter) -> float:
    n = sum(counts.values())
    if n == 0:
        return math.nan
    seen = 0
    lower = upper = None
    for value in sorted(counts):
        seen += counts[value]
        if lower is None and seen >= (n + 1) // 2:
            lower = value
        if seen >= n // 2 + 1:
            upper = value
            break
    return (lower + upper) / 2


def _clean(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, 6)


def summarize(merged: dict, meta: dict) -> dict:
    """The ``summary.json`` document (documented in docs/records.md)."""
    n = merged["finished"]
    rolls_total = merged["sum"]["rolls"]
    turns_total = merged["sum"]["turns"]
    doc = {"schema": SUMMARY_SCHEMA, **meta}
    doc.update(
        games=merged["games"],
        finished=n,
        unfinished=merged["unfinished"],
        first_mover_wins=merged["first_mover_wins"],
        seat_a_wins=merged["seat_a_wins"],
        rolls_total=rolls_total,
        turns_total=turns_total,
    )
    rate = merged["first_mover_wins"] / n if n else math.nan
    doc["first_mover_win_rate"] = _clean(rate)
    doc["first_mover_win_rate_ci95"] = [_clean(x) for x in wilson(merged["first_mover_wins"], n)]
    a_rate = merged["seat_a_wins"] / n if n else math.nan
    doc["seat_a_win_rate"] = _clean(a_rate)
    doc["seat_a_win_rate_ci95"] = [_clean(x) for x in wilson(merged["seat_a_wins"], n)]
    for key, value_key, ci_key in _MEAN_KEYS:
        mean, low, high = mean_ci(n, merged["sum"][key], merged["sumsq"][key])
        doc[value_key] = _clean(mean)
        doc[ci_key] = [_clean(low), _clean(high)]
    for key, name in (("rolls", "rolls_per_game"), ("turns", "turns_per_game"), ("points", "points")):
        doc[f"{name}_median"] = _clean(float(_median(merged["counts"][key])))
    for key, name in (("doubles", "double_share_of_rolls"), ("one_two", "one_two_share_of_rolls")):
        k = merged["sum"][key]
        doc[name] = _clean(k / rolls_total if rolls_total else math.nan)
        doc[f"{name}_ci95"] = [_clean(x) for x in wilson(k, rolls_total)]
    k = merged["sum"]["dropped"]
    doc["dropped_games"] = k
    doc["dropped_share"] = _clean(k / n if n else math.nan)
    doc["dropped_share_ci95"] = [_clean(x) for x in wilson(k, n)]
    rate, low, high = forfeit_rate(merged)
    doc["forfeit_rate_per_turn"] = _clean(rate)
    doc["forfeit_rate_per_turn_ci95"] = [_clean(low), _clean(high)]
    return doc


def forfeit_rate(merged: dict) -> tuple[float, float, float]:
    """``(rate, low, high)``: forfeited bonuses per turn, games as clusters (``common.stats.ratio_variance``
    from the merged sums: ``Σ (f − R t)² = Σ f² − 2R Σ f t + R² Σ t²``), then ``share_interval``."""
    n = merged["finished"]
    f, t = merged["sum"]["forfeits"], merged["sum"]["turns"]
    if n == 0 or t <= 0:
        return (math.nan, math.nan, math.nan)
    r = f / t
    if n == 1:
        return (r, math.nan, math.nan)
    sumsq, cross = merged["sumsq"], merged["cross"]
    residual = sumsq["forfeits"] - 2 * r * cross["forfeits_turns"] + r * r * sumsq["turns"]
    return (r, *share_interval(r, delta_variance(max(0.0, float(residual)), n, t), t))


# (label, key of the value, key of its interval, the n it is over)
TABLE_ROWS = (
    ("first-mover win rate", "first_mover_win_rate", "first_mover_win_rate_ci95", "finished"),
    ("seat A win rate", "seat_a_win_rate", "seat_a_win_rate_ci95", "finished"),
    ("rolls per game", "rolls_per_game_mean", "rolls_per_game_ci95", "finished"),
    ("turns per game", "turns_per_game_mean", "turns_per_game_ci95", "finished"),
    ("points per game (winner's)", "points_mean", "points_ci95", "finished"),
    ("first mover's points per game (+won/-lost)", "first_mover_points_mean", "first_mover_points_ci95", "finished"),
    ("doubles per game (both sides)", "doubles_per_game", "doubles_per_game_ci95", "finished"),
    ("1-2s per game (both sides)", "one_two_per_game", "one_two_per_game_ci95", "finished"),
    ("forfeited bonuses per game", "forfeits_per_game", "forfeits_per_game_ci95", "finished"),
    ("share of rolls that are doubles", "double_share_of_rolls", "double_share_of_rolls_ci95", "rolls"),
    ("share of rolls that are 1-2", "one_two_share_of_rolls", "one_two_share_of_rolls_ci95", "rolls"),
    ("forfeited bonuses per turn", "forfeit_rate_per_turn", "forfeit_rate_per_turn_ci95", "turns"),
)

# Shown only for rule sets with the cube: without it they hold 0 drops, a cube of 1 and no offers.
CUBE_TABLE_ROWS = (
    ("games ended by a dropped double", "dropped_share", "dropped_share_ci95", "finished"),
    ("final cube value", "cube_value_mean", "cube_value_ci95", "finished"),
    ("doubles offered per game (both sides)", "cube_offers_per_game", "cube_offers_per_game_ci95", "finished"),
)


# The rates among them: a terminal shows these in percent (summary.csv and summary.json keep the share).
PERCENT_FIGURES = frozenset({"first-mover win rate", "seat A win rate", "share of rolls that are doubles",
                             "share of rolls that are 1-2", "games ended by a dropped double"})


def has_cube(doc: dict) -> bool:
    return doc.get("rules", {}).get("cube", "none") != "none"


def table_rows(doc: dict, cube: bool | None = None) -> list[dict]:
    """One row per reported figure: metric, n, value, 95% interval (the ``summary.csv`` rows).

    The cube's figures come after the others when ``cube`` (by default: when
    the doc's rule set has the cube).
    """
    rows = []
    sizes = {"finished": doc["finished"], "rolls": doc["rolls_total"], "turns": doc["turns_total"]}
    cube = has_cube(doc) if cube is None else cube
    for label, key, ci_key, over in TABLE_ROWS + (CUBE_TABLE_ROWS if cube else ()):
        low, high = doc[ci_key]
        rows.append(
            {
                "rules": doc["rules_name"],
                "metric": label,
                "n": sizes[over],
                "n_of": "games" if over == "finished" else over,
                "value": doc[key],
                "ci95_low": low,
                "ci95_high": high,
            }
        )
    return rows
