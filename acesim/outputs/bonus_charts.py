"""Charts of the value of doubles and 1-2 rolls: one series per rule set.

Figures are built on the Agg canvas directly (no pyplot, no global state), so
they never open a window and can be saved from any process.
"""

from __future__ import annotations

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from acesim.common.errors import AcesimError

_WHAT = {
    "doubles_diff": ("doubles", "doubles(side) − doubles(opponent)"),
    "one_two_diff": ("1-2 rolls", "1-2 rolls(side) − 1-2 rolls(opponent)"),
}


# Panels per row: wider figures are scaled down on a page until their numbers are too small to read.
MAX_PANELS_PER_ROW = 2


def _figure(width: float, height: float, ncols: int = 1) -> tuple[Figure, list]:
    """A figure of ``ncols`` panels of ``width / ncols`` by ``height``, at most two to a row."""
    cols = min(ncols, MAX_PANELS_PER_ROW)
    rows = -(-ncols // cols)
    fig = Figure(figsize=(width / ncols * cols, height * rows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = list(fig.subplots(rows, cols, squeeze=False).ravel())
    for spare in axes[ncols:]:
        spare.remove()
    return fig, axes[:ncols]


def _check(tables: dict[str, pd.DataFrame]) -> None:
    if not tables:
        raise AcesimError("a chart needs at least one rule set's table")


def win_by_difference_chart(tables: dict[str, pd.DataFrame], column: str = "one_two_diff") -> Figure:
    """Win rate (left) and mean signed points (right) of a side by its lead, per rule set.

    ``tables`` maps a rule set's name to its ``win_by_difference`` table for
    ``column``; the bands are the tables' 95 % intervals.
    """
    _check(tables)
    if column not in _WHAT:
        raise AcesimError(f"column must be one of {', '.join(_WHAT)}, got {column!r}")
    noun, axis_label = _WHAT[column]
    fig, (left, right) = _figure(11, 4.5, 2)
    ticks: dict[int, str] = {}
    for name, table in tables.items():
        x = table["bin"].to_numpy()
        ticks.update(zip(x.tolist(), table["label"]))
        (line,) = left.plot(x, 100 * table["win_rate"], marker="o", label=name)
        left.fill_between(x, 100 * table["ci95_low"], 100 * table["ci95_high"], color=line.get_color(), alpha=0.2)
        right.plot(x, table["mean_points"], marker="o", color=line.get_color(), label=name)
        right.fill_between(
            x, table["points_ci95_low"], table["points_ci95_high"], color=line.get_color(), alpha=0.2
        )
    for ax in (left, right):
        ax.set_xticks(sorted(ticks), [ticks[k] for k in sorted(ticks)])
        ax.set_xlabel(f"{axis_label} (count; end bins clipped)")
        ax.grid(alpha=0.3)
        ax.legend(title="rule set")
    left.axhline(50, color="grey", lw=0.8, ls="--")
    right.axhline(0, color="grey", lw=0.8, ls="--")
    left.set_ylabel("win rate of the side (%), 95% Wilson band")
    right.set_ylabel("mean signed points per game (points), 95% band")
    left.set_title(f"Win rate by lead in {noun}")
    right.set_title(f"Points by lead in {noun}")
    fig.suptitle(f"Value of {noun}: finished games, both sides of each game")
    return fig
