"""Charts of the equity model and the luck factor: one panel or series per rule set."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from acesim.common.errors import AcesimError
from acesim.outputs.bonus_charts import _figure

FACES = range(1, 7)


def _check(tables: dict) -> None:
    if not tables:
        raise AcesimError("a chart needs at least one rule set's table")


def calibration_chart(bins: dict[str, pd.DataFrame]) -> Figure:
    """Predicted vs observed win rate on held-out positions, ten bins, one panel per rule set.

    A table with a ``model`` column (``analyses.equity.equity_models``'s
    calibrations, concatenated) draws one series per equity model in its
    panel, with the model's Brier score and its reliability term when the
    table has ``brier`` and ``reliability`` columns.
    """
    _check(bins)
    fig, axes = _figure(4.2 * len(bins), 4.4, ncols=len(bins))
    for ax, (name, table) in zip(axes, bins.items()):
        ax.plot([0, 100], [0, 100], color="grey", linestyle="--", linewidth=1, label="perfect calibration")
        groups = table.groupby("model", sort=False) if "model" in table else [("", table)]
        for model, part in groups:
            err = 100 * np.clip(np.vstack([part["observed"] - part["observed_low"],
                                           part["observed_high"] - part["observed"]]), 0, None)
            label = model or "model"
            if "brier" in part:
                label += f", Brier {float(part['brier'].iloc[0]):.4f}"
            if "reliability" in part:
                label += f", reliability {float(part['reliability'].iloc[0]):.5f}"
            ax.errorbar(100 * part["predicted"], 100 * part["observed"], yerr=err, marker="o", capsize=3,
                        label=label)
        ax.set_xlabel("predicted win chance of the side on roll (%)")
        ax.set_ylabel("observed win rate (%, 95% CI)")
        ax.set_title(f"{name} (n = {int(table.groupby('model')['n'].sum().iloc[0] if 'model' in table else table['n'].sum()):,} positions)",
                     fontsize=9)
        ax.set_xlim(0, 100)
        ax.set_ylim(0, 100)
        ax.legend(fontsize=8, loc="upper left")
    fig.suptitle("Equity model calibration on held-out games")
    return fig


def roll_value_chart(values: dict[str, pd.DataFrame]) -> Figure:
    """Heat maps: the equity value of each roll (percentage points of win probability) per rule set."""
    _check(values)
    fig, axes = _figure(4.2 * len(values), 4.2, ncols=len(values))
    limit = max(float(np.abs(t["value"]).max()) for t in values.values()) * 100
    image = None
    for ax, (name, table) in zip(axes, values.items()):
        grid = np.zeros((6, 6))
        for row in table.itertuples():
            grid[row.die_1 - 1, row.die_2 - 1] = grid[row.die_2 - 1, row.die_1 - 1] = row.value * 100
        image = ax.imshow(grid, cmap="RdBu", vmin=-limit, vmax=limit, origin="lower")
        for i in range(6):
            for j in range(6):
                ax.text(j, i, f"{grid[i, j]:+.1f}", ha="center", va="center", fontsize=8)
        ax.set_xticks(range(6), [str(d) for d in FACES])
        ax.set_yticks(range(6), [str(d) for d in FACES])
        ax.set_xlabel("die (face)")
        ax.set_ylabel("other die (face)")
        ax.set_title(f"{name} (n = {int(table['states'].iloc[0]):,} positions)", fontsize=10)
    fig.colorbar(image, ax=axes, label="value of the roll (percentage points of win chance)")
    fig.suptitle("Equity value of each roll over the average roll")
    return fig


def luck_chart(games: dict[str, pd.DataFrame]) -> Figure:
    """Seat A's win rate by its net luck (binned), per rule set: how far luck decides games."""
    _check(games)
    fig, (ax,) = _figure(6.5, 4.5)
    edges = np.linspace(-1.5, 1.5, 13)
    centres = (edges[:-1] + edges[1:]) / 2
    for name, table in games.items():
        which = np.clip(np.digitize(table["net_luck"], edges) - 1, 0, len(centres) - 1)
        rate = pd.Series(table["result_a"].to_numpy()).groupby(which).mean()
        count = pd.Series(which).value_counts()
        keep = count.reindex(rate.index) >= 5
        ax.plot(100 * centres[rate.index[keep]], 100 * rate[keep], marker="o",
                label=f"{name} (n = {len(table):,} games)")
    ax.axhline(50, color="grey", linewidth=1, linestyle="--")
    ax.set_xlabel("net luck of seat A (percentage points of win chance gained from the dice)")
    ax.set_ylabel("seat A win rate (%)")
    ax.set_title("Games against net luck (bins with at least 5 games)")
    ax.legend(title="rule set", fontsize=8)
    return fig


def phase_choice_chart(tables: dict[str, pd.DataFrame]) -> Figure:
    """Share of each double taken after a 1-2, by game phase, one panel per rule set."""
    _check(tables)
    fig, axes = _figure(4.5 * len(tables), 4.0, ncols=len(tables))
    for ax, (name, table) in zip(axes, tables.items()):
        phases = list(dict.fromkeys(table["phase"]))
        width = 0.8 / max(len(phases), 1)
        for k, phase in enumerate(phases):
            part = table[table["phase"] == phase]
            err = 100 * np.clip(np.vstack([part["share"] - part["ci95_low"], part["ci95_high"] - part["share"]]),
                                0, None)
            ax.bar(part["face"] + (k - (len(phases) - 1) / 2) * width, 100 * part["share"], width, yerr=err,
                   capsize=2, label=f"{phase} (n = {int(part['total'].iloc[0]):,})")
        ax.set_xlabel("double taken after a 1-2 (face)")
        ax.set_ylabel("share of 1-2 bonuses (%, 95% CI)")
        ax.set_title(name, fontsize=10)
        ax.legend(title="phase", fontsize=8)
    fig.suptitle("Which double after a 1-2, by game phase")
    return fig
