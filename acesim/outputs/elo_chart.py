"""The skill ladder as a chart: Bradley–Terry Elo per strategy, one series per rule set."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from acesim.common.errors import AcesimError


def elo_chart(elos: dict[str, pd.DataFrame]) -> Figure:
    """Elo of each strategy with its 95 % bootstrap bar, one marker series per rule set.

    ``elos`` maps a rule set's name to its ``bradley_terry`` table.
    Strategies appear in the order first met; a strategy missing from a rule
    set's ladder is simply absent from that series.
    """
    if not elos:
        raise AcesimError("a chart needs at least one rule set's table")
    order: list[str] = []
    anchors: set[str] = set()
    for table in elos.values():
        order += [s for s in table["strategy"] if s not in order]
        anchors.update(table["anchor"])
    position = {s: i for i, s in enumerate(order)}
    fig = Figure(figsize=(max(6.0, 1.2 * len(order) + 3), 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    step = 0.6 / len(elos)
    for k, (name, table) in enumerate(elos.items()):
        x = np.array([position[s] for s in table["strategy"]]) + (k - (len(elos) - 1) / 2) * step
        elo = table["elo"].to_numpy()
        errors = np.vstack([elo - table["ci95_low"].to_numpy(), table["ci95_high"].to_numpy() - elo])
        ax.errorbar(x, elo, yerr=np.maximum(errors, 0), fmt="o", capsize=4, label=name)
    anchor = ", ".join(sorted(anchors))
    ax.axhline(0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(len(order)), order)
    ax.set_xlabel("strategy")
    ax.set_ylabel(f"Elo (400·log10 odds; {anchor} = 0), 95% bootstrap bars")
    shown = sum(len(t) for t in elos.values())
    ax.set_title(f"Skill ladder: Bradley–Terry strengths ({shown} intervals shown)")
    ax.legend(title="rule set")
    ax.grid(axis="y", alpha=0.3)
    return fig
