"""Rule sets side by side: one records table per rule set in, tables of figures out.

Every rule set is played on the same game indices with common random numbers
(the same game index rolls the same dice under every rule set until the games
diverge), so the rows of two rule sets pair by the ``game`` column and a
paired difference is far sharper than comparing two independent means
(docs/statistics.md, "Paired differences between rule sets").

Means and rates are over finished games; unfinished games (turn cap) are
counted apart and never enter a figure.  Intervals are at 95%: Wilson for the
first-mover win rate, ``mean ± 1.96·sd/√n`` for means, and for the share of
turns whose bonus was forfeited a ratio estimator whose per-game (cluster)
delta-method variance sets the effective size of a Wilson interval.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np
import pandas as pd

from acesim.common.errors import AcesimError
from acesim.common.stats import Z95, ratio_ci, sample_mean_ci, wilson
from acesim.engine.rules import Ruleset, parse_override

# How the interval of the forfeit share is computed; also a column of the table.
FORFEIT_SHARE_METHOD = (
    "ratio estimator; Wilson at the effective number of turns from the per-game cluster delta method"
)

# Per-game figures that ``paired_differences`` can pair, in report order.
PAIRED_METRICS: tuple[str, ...] = (
    "first_mover_win",
    "first_mover_points",
    "rolls",
    "turns",
    "forfeits",
    "dice_lost",
    "extra_rolls",
)

# What each paired metric is, in the game's words, and its unit.
METRIC_LABELS: dict[str, tuple[str, str]] = {
    "first_mover_win": ("first-mover win rate", "share of games"),
    "first_mover_points": ("first mover's points minus second mover's", "points per game"),
    "rolls": ("rolls per game (both sides)", "rolls"),
    "turns": ("turns per game (both sides)", "turns"),
    "forfeits": ("forfeited bonuses per game", "forfeits"),
    "dice_lost": ("dice lost per game", "dice"),
    "extra_rolls": ("extra rolls per game", "rolls"),
    "points": ("points per game (the winner's)", "points"),
}

# Paired as well when a rule set has the doubling cube: what a game is worth.
CUBE_PAIRED_METRICS: tuple[str, ...] = ("points",)

LENGTH_COLUMNS: tuple[str, ...] = ("rolls", "turns")


# --- per-game figures -------------------------------------------------------------


def _both(df: pd.DataFrame, column: str) -> np.ndarray:
    """A per-side counter summed over seat A and seat B."""
    return (df[f"{column}_a"] + df[f"{column}_b"]).to_numpy(np.float64)


def _finished(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["unfinished"] == 0]


def per_game(df: pd.DataFrame) -> pd.DataFrame:
    """The per-game figures of ``PAIRED_METRICS``, indexed by ``game`` (all games, finished or not).

    The first mover's signed points are +points when it won and −points when
    it lost, which is its points minus the second mover's in a zero-sum game.
    """
    first_won = (df["winner"] == df["first_mover"]).to_numpy()
    points = df["points"].to_numpy(np.float64)
    out = pd.DataFrame(
        {
            "unfinished": df["unfinished"].to_numpy() != 0,
            "first_mover_win": first_won.astype(np.float64),
            "first_mover_points": np.where(first_won, points, -points),
            **{name: _both(df, name) for name in PAIRED_METRICS[2:]},
            "points": points,
        },
        index=pd.Index(df["game"].to_numpy(np.int64), name="game"),
    )
    return out


def _median(x: np.ndarray) -> float:
    return float(np.median(x)) if len(x) else math.nan


# --- one row per rule set -----------------------------------------------------------


def rule_set_table(frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The headline figures of each rule set, one row each, in the order of ``frames``.

    Columns: ``rules, n, finished, unfinished, first_mover_wins,
    first_mover_win_rate(_low, _high)`` (Wilson), ``first_mover_points(_low,
    _high, _median)`` (the first mover's expected points minus the second
    mover's), ``rolls_per_game`` and ``turns_per_game`` (``_low, _high,
    _median``; both sides), ``forfeits, turns, forfeit_share(_low, _high)``
    with ``forfeit_share_method`` naming its interval (``ratio_ci``), ``dice_lost_per_game(_low, _high)`` and
    ``extra_rolls_per_game(_low, _high)``.  Every figure is over finished games.
    """
    rows = []
    for name, df in frames.items():
        games = per_game(df)
        done = games[~games["unfinished"]]
        finished = len(done)
        wins = int(done["first_mover_win"].sum())
        row: dict[str, object] = {
            "rules": name,
            "n": len(games),
            "finished": finished,
            "unfinished": len(games) - finished,
            "first_mover_wins": wins,
            "first_mover_win_rate": wins / finished if finished else math.nan,
        }
        row["first_mover_win_rate_low"], row["first_mover_win_rate_high"] = wilson(wins, finished)
        for key, column, median in (
            ("first_mover_points", "first_mover_points", True),
            ("rolls_per_game", "rolls", True),
            ("turns_per_game", "turns", True),
            ("dice_lost_per_game", "dice_lost", False),
            ("extra_rolls_per_game", "extra_rolls", False),
        ):
            x = done[column].to_numpy()
            row[key], row[f"{key}_low"], row[f"{key}_high"] = sample_mean_ci(x)
            if median:
                row[f"{key}_median"] = _median(x)
        forfeits, turns = done["forfeits"].to_numpy(), done["turns"].to_numpy()
        row["forfeits"] = int(forfeits.sum())
        row["turns"] = int(turns.sum())
        row["forfeit_share"], row["forfeit_share_low"], row["forfeit_share_high"] = ratio_ci(forfeits, turns)
        row["forfeit_share_method"] = FORFEIT_SHARE_METHOD
        rows.append(row)
    return pd.DataFrame(rows)


# --- the doubling cube -------------------------------------------------------------


def cube_table(frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """What the cube does, one row per rule set, over finished games.

    Columns: ``rules, finished, dropped, dropped_share(_low, _high)`` (games
    ended by a dropped double, Wilson), ``cube_value(_low, _high)`` (the final
    cube value), ``cube_offers_per_game(_low, _high)`` (doubles offered, both
    sides) and ``points_per_game(_low, _high)`` (the winner's points, the cube
    included); means with ``mean ± 1.96·sd/√n``.
    """
    rows = []
    for name, df in frames.items():
        done = _finished(df)
        finished = len(done)
        dropped = int(done["dropped"].sum())
        row: dict[str, object] = {
            "rules": name,
            "finished": finished,
            "dropped": dropped,
            "dropped_share": dropped / finished if finished else math.nan,
        }
        row["dropped_share_low"], row["dropped_share_high"] = wilson(dropped, finished)
        for key, x in (
            ("cube_value", done["cube_value"].to_numpy(np.float64)),
            ("cube_offers_per_game", _both(done, "cube_offers")),
            ("points_per_game", done["points"].to_numpy(np.float64)),
        ):
            row[key], row[f"{key}_low"], row[f"{key}_high"] = sample_mean_ci(x)
        rows.append(row)
    return pd.DataFrame(rows)


# --- paired differences -----------------------------------------------------------


def _check_pairing(frames: Mapping[str, pd.DataFrame]) -> None:
    """Refuse frames that do not pair game by game (different or repeated game indices)."""
    reference: np.ndarray | None = None
    reference_name = ""
    for name, df in frames.items():
        games = np.sort(df["game"].to_numpy(np.int64))
        if len(games) > 1 and (np.diff(games) == 0).any():
            raise AcesimError(f"rule set {name!r} has a game index more than once; cannot pair games")
        if reference is None:
            reference, reference_name = games, name
        elif not np.array_equal(games, reference):
            raise AcesimError(
                f"rule sets {reference_name!r} and {name!r} were not played on the same game indices; "
                "cannot pair games"
            )


def bonferroni_z(m: int, alpha: float = 0.05) -> float:
    """The two-sided z of level ``alpha / m``: the interval half-width multiplier for m intervals."""
    return NormalDist().inv_cdf(1 - alpha / (2 * max(m, 1)))


def paired_differences(
    frames: Mapping[str, pd.DataFrame],
    base: str,
    metrics: Sequence[str] = PAIRED_METRICS,
) -> pd.DataFrame:
    """Each other rule set minus ``base``, per metric, paired game by game.

    For a rule set A and metric x, ``d_i = x_i(A) − x_i(base)`` over the games
    finished under both (the same games for every metric of that pair), with
    ``mean(d) ± 1.96·sd(d)/√n`` (paired) beside ``±1.96·sqrt(var_A/n +
    var_base/n)`` (unpaired, as if the games were independent).  ``m`` is the
    number of intervals in the table; ``notable`` is true when the paired
    interval at ``z`` for ``0.05 / m`` (Bonferroni, ``bonferroni_low/high``)
    excludes 0.

    Columns: ``rules, base, metric, n, mean_base, mean_rules, diff,
    paired_low, paired_high, unpaired_low, unpaired_high, width_ratio``
    (paired width / unpaired width; below 1 when pairing helps), ``m,
    z_bonferroni, bonferroni_low, bonferroni_high, notable``.
    """
    if base not in frames:
        raise AcesimError(f"base rule set {base!r} is not among the rule sets ({', '.join(frames)})")
    known = PAIRED_METRICS + CUBE_PAIRED_METRICS
    unknown = [m for m in metrics if m not in known]
    if unknown:
        raise AcesimError(f"unknown metric {unknown[0]!r}; metrics: {', '.join(known)}")
    _check_pairing(frames)
    others = [name for name in frames if name != base]
    m = len(others) * len(metrics)
    z_bonf = bonferroni_z(m)
    base_games = per_game(frames[base])
    rows = []
    for name in others:
        games = per_game(frames[name]).reindex(base_games.index)
        both = ~games["unfinished"].to_numpy() & ~base_games["unfinished"].to_numpy()
        n = int(both.sum())
        for metric in metrics:
            xa = games[metric].to_numpy()[both]
            xb = base_games[metric].to_numpy()[both]
            diff, low, high = sample_mean_ci(xa - xb)
            _, b_low, b_high = sample_mean_ci(xa - xb, z_bonf)
            if n > 1:
                half = Z95 * math.sqrt((np.var(xa, ddof=1) + np.var(xb, ddof=1)) / n)
            else:
                half = math.nan
            paired_width, unpaired_width = high - low, 2 * half
            rows.append(
                {
                    "rules": name,
                    "base": base,
                    "metric": metric,
                    "n": n,
                    "mean_base": float(xb.mean()) if n else math.nan,
                    "mean_rules": float(xa.mean()) if n else math.nan,
                    "diff": diff,
                    "paired_low": low,
                    "paired_high": high,
                    "unpaired_low": diff - half,
                    "unpaired_high": diff + half,
                    "width_ratio": paired_width / unpaired_width if unpaired_width > 0 else math.nan,
                    "m": m,
                    "z_bonferroni": z_bonf,
                    "bonferroni_low": b_low,
                    "bonferroni_high": b_high,
                    "notable": bool(b_low > 0 or b_high < 0),
                }
            )
    return pd.DataFrame(rows)


# --- game length ----------------------------------------------------------------------


def length_distribution(frames: Mapping[str, pd.DataFrame], column: str = "rolls") -> pd.DataFrame:
    """The distribution of game length over finished games, long format.

    ``column`` is ``"rolls"`` (rolls_a + rolls_b) or ``"turns"`` (turns_a +
    turns_b).  Columns: ``rules, length, count, share, ecdf`` with one row
    per length seen; ``ecdf`` is the share of games at most that long.
    """
    if column not in LENGTH_COLUMNS:
        raise AcesimError(f"game length is counted in rolls or turns, not {column!r}")
    parts = []
    for name, df in frames.items():
        lengths = _both(_finished(df), column).astype(np.int64)
        values, counts = np.unique(lengths, return_counts=True)
        total = counts.sum()
        share = counts / total if total else counts.astype(np.float64)
        parts.append(
            pd.DataFrame(
                {
                    "rules": name,
                    "length": values,
                    "count": counts.astype(np.int64),
                    "share": share,
                    "ecdf": np.cumsum(share),
                }
            )
        )
    if not parts:
        return pd.DataFrame(columns=["rules", "length", "count", "share", "ecdf"])
    return pd.concat(parts, ignore_index=True)


# --- sweeps over one knob -------------------------------------------------------------


def parse_sweep(spec: str) -> tuple[str, list[str]]:
    """``knob=v1,v2,...`` into the knob and its values, checked as ``--rule knob=v`` would be."""
    knob, sep, raw = spec.partition("=")
    knob = knob.strip()
    values = [v.strip() for v in raw.split(",")]
    if not sep or not knob or not raw.strip() or any(not v for v in values):
        raise AcesimError(f"sweep {spec!r} must look like knob=value1,value2,...")
    seen: set[str] = set()
    for value in values:
        _, typed = parse_override(f"{knob}={value}")
        shown = _show(typed)
        if shown in seen:
            raise AcesimError(f"sweep {spec!r} lists {knob}={shown} twice")
        seen.add(shown)
    return knob, values


def _show(value: str | bool | int) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def sweep_rulesets(base: Ruleset, knob: str, values: Sequence[str]) -> list[Ruleset]:
    """One rule set per value of ``knob``, the rest as in ``base``, named ``base[knob=value]``.

    Values go through the ``--rule`` parser and the ``Ruleset`` checks, so an
    unknown knob, a bad value or a contradiction gives the usual one-line error.
    """
    if not values:
        raise AcesimError(f"sweep of {knob} needs at least one value")
    rulesets = []
    names: set[str] = set()
    for value in values:
        knob_name, typed = parse_override(f"{knob}={value}")
        name = f"{base.name}[{knob_name}={_show(typed)}]"
        if name in names:
            raise AcesimError(f"sweep of {knob_name} lists {_show(typed)} twice")
        names.add(name)
        # with_overrides checks the knob and the Ruleset checks the value;
        # its "+knob=value" name is replaced by the sweep's bracketed one
        ruleset = base.with_overrides({knob_name: typed})
        rulesets.append(dataclasses.replace(ruleset, name=name))
    return rulesets
