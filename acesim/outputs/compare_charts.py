"""Charts of rule sets side by side, from the tables of ``acesim.analyses.compare``.

Each function takes a table and returns a ``matplotlib.figure.Figure`` drawn
on the Agg canvas, without pyplot, so nothing global changes and nothing is
shown: the caller saves the figure or puts it in a report.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from acesim.analyses.compare import LENGTH_COLUMNS, METRIC_LABELS
from acesim.common.errors import AcesimError

_PALETTE = matplotlib.colormaps["tab10"]


def _colour(i: int) -> tuple[float, float, float, float]:
    """The i-th rule set's colour, the same in every chart of one table."""
    return _PALETTE(i % _PALETTE.N)


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _need_rows(table: pd.DataFrame, what: str) -> None:
    if table.empty:
        raise AcesimError(f"nothing to chart: the {what} table is empty")


def _unfinished_note(row: pd.Series) -> str:
    """A legend label's note that games hit the turn cap (docs/statistics.md: say so)."""
    unfinished = int(row.get("unfinished", 0))
    return f", {unfinished} unfinished" if unfinished else ""


def _per_rule_set_chart(
    table: pd.DataFrame,
    value: str,
    scale: float,
    reference: float,
    reference_label: str,
    ylabel: str,
    title: str,
    median: str | None = None,
) -> Figure:
    """One point with its 95% interval per rule set, a reference line, and the rule sets in the legend."""
    fig = _figure(max(5.0, 1.2 * len(table) + 3.0), 4.5)
    ax = fig.add_subplot()
    for i, (_, row) in enumerate(table.iterrows()):
        y = row[value] * scale
        err = np.array([[y - row[f"{value}_low"] * scale], [row[f"{value}_high"] * scale - y]])
        ax.errorbar(
            [i], [y], yerr=err, fmt="o", capsize=5, color=_colour(i),
            label=f"{row['rules']} (n={int(row['finished'])}{_unfinished_note(row)})",
        )
        if median is not None:
            ax.plot([i], [row[median] * scale], marker="x", linestyle="none", color=_colour(i))
    ax.axhline(reference, color="grey", linestyle="--", linewidth=1, label=reference_label)
    if median is not None:
        ax.plot([], [], marker="x", linestyle="none", color="black", label="median")
    ax.set_xticks(range(len(table)), list(table["rules"]), rotation=20, ha="right")
    ax.set_xlim(-0.5, len(table) - 0.5)
    ax.set_xlabel("rule set")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig


def first_mover_chart(table: pd.DataFrame) -> Figure:
    """The first mover's win rate per rule set with its Wilson 95% interval, against 50%."""
    _need_rows(table, "rule set")
    return _per_rule_set_chart(
        table,
        "first_mover_win_rate",
        scale=100.0,
        reference=50.0,
        reference_label="50% (no first-move advantage)",
        ylabel="first-mover win rate (% of finished games)",
        title="First-mover advantage by rule set (95% Wilson intervals)",
    )


def points_chart(table: pd.DataFrame) -> Figure:
    """The first mover's points minus the second mover's per rule set, mean with 95% interval and median."""
    _need_rows(table, "rule set")
    return _per_rule_set_chart(
        table,
        "first_mover_points",
        scale=1.0,
        reference=0.0,
        reference_label="0 (no first-move advantage)",
        ylabel="first mover's points − second mover's (points per game)",
        title="First mover's expected points edge by rule set (mean ± 95% interval)",
        median="first_mover_points_median",
    )


def cube_points_chart(cube: pd.DataFrame) -> Figure:
    """Points per game (the winner's, the cube included) per rule set, with its 95% interval, against 1."""
    _need_rows(cube, "rule set")
    return _per_rule_set_chart(
        cube,
        "points_per_game",
        scale=1.0,
        reference=1.0,
        reference_label="1 (a single game)",
        ylabel="points per game (the winner's)",
        title="Points per game with the cube (mean ± 95% interval)",
    )


def length_chart(distribution: pd.DataFrame, column: str = "rolls") -> Figure:
    """Game length per rule set: ECDF lines (left) and a histogram of shares (right)."""
    if column not in LENGTH_COLUMNS:
        raise AcesimError(f"game length is counted in rolls or turns, not {column!r}")
    _need_rows(distribution, "game length")
    unit = f"{column} per game"
    fig = _figure(11.0, 4.5)
    ecdf_ax, hist_ax = fig.subplots(1, 2)
    lengths = distribution["length"].to_numpy()
    low, high = int(lengths.min()), int(lengths.max())
    step = max(1, int(np.ceil((high - low + 1) / 40)))
    edges = np.arange(low, high + step + 1, step) - 0.5
    for i, (name, part) in enumerate(distribution.groupby("rules", sort=False)):
        n = int(part["count"].sum())
        label = f"{name} (n={n})"
        x = np.concatenate([[part["length"].iloc[0]], part["length"].to_numpy()])
        y = np.concatenate([[0.0], part["ecdf"].to_numpy() * 100])
        ecdf_ax.step(x, y, where="post", color=_colour(i), label=label)
        hist_ax.hist(
            part["length"].to_numpy(), bins=edges, weights=part["share"].to_numpy() * 100,
            histtype="step", linewidth=1.5, color=_colour(i), label=label,
        )
    ecdf_ax.set_xlabel(unit)
    ecdf_ax.set_ylabel("% of finished games at most this long")
    ecdf_ax.set_ylim(0, 102)
    ecdf_ax.set_title("Empirical distribution function")
    ecdf_ax.legend(fontsize="small")
    hist_ax.set_xlabel(unit)
    bin_word = column if step > 1 else column[:-1]
    hist_ax.set_ylabel(f"% of finished games per bin of {step} {bin_word}")
    hist_ax.set_title("Histogram")
    hist_ax.legend(fontsize="small")
    fig.suptitle(f"Game length in {column} by rule set (finished games)")
    return fig


def paired_chart(diffs: pd.DataFrame) -> Figure:
    """Paired against unpaired 95% intervals of each rule set minus the base, one panel per metric.

    The paired interval is the one to read; the unpaired one is drawn beside
    it once to show what common random numbers gain.  A star marks a
    difference whose Bonferroni-corrected interval excludes 0.
    """
    _need_rows(diffs, "paired differences")
    metrics = list(dict.fromkeys(diffs["metric"]))
    rules = list(dict.fromkeys(diffs["rules"]))
    base = str(diffs["base"].iloc[0])
    m = int(diffs["m"].iloc[0])
    fig = _figure(8.0, 1.4 + 0.3 * len(rules) + len(metrics) * (0.9 + 0.45 * len(rules)))
    axes = np.atleast_1d(fig.subplots(len(metrics), 1, squeeze=False)[:, 0])
    for ax, metric in zip(axes, metrics):
        label, unit = METRIC_LABELS.get(metric, (metric, "per game"))
        scale = 1.0
        if metric == "first_mover_win":
            scale, unit = 100.0, "percentage points"
        part = diffs[diffs["metric"] == metric].set_index("rules")
        for j, name in enumerate(rules):
            if name not in part.index:
                continue
            row = part.loc[name]
            d = row["diff"] * scale
            for offset, kind, style in ((0.15, "paired", "-"), (-0.15, "unpaired", ":")):
                err = [[d - row[f"{kind}_low"] * scale], [row[f"{kind}_high"] * scale - d]]
                bars = ax.errorbar(
                    [d], [j + offset], xerr=err, capsize=3, color=_colour(j),
                    fmt="o" if kind == "paired" else "s",
                    markerfacecolor=_colour(j) if kind == "paired" else "white",
                )
                bars[-1][0].set_linestyle(style)
            if bool(row["notable"]):
                ax.annotate("*", (row["paired_high"] * scale, j + 0.15), xytext=(4, -4),
                            textcoords="offset points", fontsize=14)
        ax.axvline(0.0, color="grey", linewidth=1)
        ax.set_yticks(range(len(rules)), rules)
        ax.set_ylim(-0.6, len(rules) - 0.4)
        ax.invert_yaxis()
        ax.set_ylabel("rule set")
        ax.set_xlabel(f"{label}: rule set − {base} ({unit})")
    handles = [Line2D([], [], color=_colour(j), marker="o", label=name) for j, name in enumerate(rules)]
    handles += [
        Line2D([], [], color="black", marker="o", linestyle="-", label="paired 95% interval"),
        Line2D([], [], color="black", marker="s", markerfacecolor="white", linestyle=":",
               label="unpaired 95% interval"),
        Line2D([], [], color="none", marker="$*$", markeredgecolor="black",
               label=f"notable: Bonferroni interval excludes 0 (m={m})"),
    ]
    # beside the panels (the figure is tall: below them it would be a screen away), never over an interval
    fig.legend(handles=handles, fontsize="small", loc="outside right upper")
    fig.suptitle(f"Each rule set minus {base}, paired game by game (common random numbers)")
    return fig
