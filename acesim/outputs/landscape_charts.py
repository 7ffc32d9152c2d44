"""Charts of the house-rule landscape, from the tables of ``acesim.analyses.landscape``.

Each function takes a table and returns a ``matplotlib.figure.Figure`` on the
Agg canvas (no pyplot): the knobs' effects on one figure with their
intervals, the rule sets on two figures with the presets marked and the
best trade-offs drawn, and the first mover's win rate of every rule set.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from acesim.analyses.landscape import FIGURES
from acesim.common.errors import AcesimError

PRESET_COLOURS = {"european": "tab:blue", "american": "tab:orange", "navy": "tab:green", "backgammon": "tab:red"}
NOTABLE, PLAIN, INTERACTION = "tab:blue", "0.6", "tab:purple"
# Rates are drawn in percent, their differences in percentage points.
_SCALE = {"rate": 100.0}


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _unit(figure: str, difference: bool) -> tuple[float, str]:
    unit = FIGURES[figure].unit
    scale = _SCALE.get(unit, 1.0)
    if unit == "rate":
        return scale, "percentage points" if difference else "%"
    return scale, unit


def effects_chart(terms: pd.DataFrame, figure: str, most: int = 24) -> Figure:
    """The main effects and notable interactions on ``figure``, largest first, with both intervals.

    The thick bar is the 95% interval of each term, the thin one the
    Bonferroni-corrected interval; a term is drawn in colour when the
    corrected interval excludes 0.  At most ``most`` terms: the largest.
    """
    part = terms[terms["figure"] == figure]
    if part.empty:
        raise AcesimError(f"nothing to chart: no effects on {figure}")
    shown = pd.concat([part[part["kind"] == "main"], part[(part["kind"] == "interaction") & part["notable"]]])
    shown = shown.sort_values("size", ascending=False, kind="stable").head(most).iloc[::-1]
    scale, unit = _unit(figure, True)
    factor = FIGURES[figure].unit == "log"
    show = (lambda v: np.exp(v)) if factor else (lambda v: v * scale)
    fig = _figure(9.0, 1.4 + 0.3 * len(shown))
    ax = fig.add_subplot()
    y = np.arange(len(shown))
    for k, (_, r) in enumerate(shown.iterrows()):
        colour = (INTERACTION if r["kind"] == "interaction" else NOTABLE) if r["notable"] else PLAIN
        ax.plot([show(r["adj_low"]), show(r["adj_high"])], [k, k], color=colour, lw=1)
        ax.plot([show(r["ci95_low"]), show(r["ci95_high"])], [k, k], color=colour, lw=4, alpha=0.6)
        ax.plot(show(r["estimate"]), k, "o", color=colour, ms=5)
    ax.axvline(1 if factor else 0, color="black", lw=0.8)
    if factor:
        ax.set_xscale("log")
    ax.set_yticks(y, [_term_label(r) for _, r in shown.iterrows()], fontsize=8)
    first = part.iloc[0]
    m_int = part.loc[part["kind"] == "interaction", "m"]
    what = "factor of points per game" if factor else f"change ({unit})"
    ax.set_xlabel(f"{what} from the base rule set's knob value")
    ax.set_title(f"Knob effects on {FIGURES[figure].label}\n{int(first['rule_sets'])} rule sets × "
                 f"{int(first['games_per_rule_set']):,}+ games; Bonferroni: m = "
                 f"{int(part.loc[part['kind'] == 'main', 'm'].iloc[0])} main, "
                 f"{int(m_int.iloc[0]) if len(m_int) else 0} interaction terms", fontsize=10)
    ax.legend(handles=[Line2D([], [], color=NOTABLE, lw=4, label="main effect, notable"),
                       Line2D([], [], color=INTERACTION, lw=4, label="interaction, notable"),
                       Line2D([], [], color=PLAIN, lw=4, label="not notable"),
                       Line2D([], [], color="0.3", lw=4, alpha=0.6, label="95% interval"),
                       Line2D([], [], color="0.3", lw=1, label="Bonferroni interval")],
              fontsize=7, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    return fig


def _term_label(r: pd.Series) -> str:
    if r["kind"] == "interaction":
        return f"{r['knob']}={r['value']} × {r['knob_b']}={r['value_b']}"
    return f"{r['knob']}: {r['base_value']} → {r['value']}"


def landscape_chart(table: pd.DataFrame, x: str, y: str, front: str, title: str,
                    x_distance_from: float | None = None) -> Figure:
    """Every rule set on figures ``x`` and ``y`` with their 95% intervals, the presets named, and the
    front (``front``: a boolean column) joined by a line.

    With ``x_distance_from`` the x axis is the distance of ``x`` from that
    value (the first mover's edge from an even game), its interval folded
    at 0.
    """
    if table.empty:
        raise AcesimError("nothing to chart: no rule sets")
    sx, ux = _unit(x, False)
    sy, uy = _unit(y, False)
    xs, xl, xh = (table[c].to_numpy(np.float64) * sx for c in (x, f"{x}_low", f"{x}_high"))
    if x_distance_from is not None:
        c = x_distance_from * sx
        d, dl, dh = np.abs(xs - c), xl - c, xh - c
        lo = np.where((dl <= 0) & (dh >= 0), 0.0, np.minimum(np.abs(dl), np.abs(dh)))
        hi = np.maximum(np.abs(dl), np.abs(dh))
        xs, xl, xh = d, lo, hi
    ys, yl, yh = (table[c].to_numpy(np.float64) * sy for c in (y, f"{y}_low", f"{y}_high"))
    fig = _figure(9.0, 6.5)
    ax = fig.add_subplot()
    ax.errorbar(xs, ys, xerr=[xs - xl, xh - xs], yerr=[ys - yl, yh - ys], fmt="o", ms=3, color="0.55",
                ecolor="0.85", elinewidth=0.8, zorder=1, label="rule set (95% intervals)")
    on = table[front].to_numpy(bool)
    order = np.argsort(xs[on])
    ax.plot(xs[on][order], ys[on][order], "-o", color="black", ms=4, lw=1.2, zorder=3,
            label=f"best trade-offs ({on.sum()} on the front)")
    for i, (_, r) in enumerate(table.iterrows()):
        name = r["rule_set"]
        if name in PRESET_COLOURS:
            ax.plot(xs[i], ys[i], "D", color=PRESET_COLOURS[name], ms=8, zorder=4, label=name)
            ax.annotate(name, (xs[i], ys[i]), xytext=(6, 4), textcoords="offset points", fontsize=9,
                        color=PRESET_COLOURS[name])
        elif on[i]:
            ax.annotate(name, (xs[i], ys[i]), xytext=(5, -9), textcoords="offset points", fontsize=7)
    xlabel = FIGURES[x].label if x_distance_from is None else \
        f"first mover's edge: |{FIGURES[x].label} − {100 * x_distance_from:.0f}%|"
    if x_distance_from is not None and FIGURES[x].unit == "rate":
        ux = "percentage points"
    ax.set_xlabel(f"{xlabel} ({ux})")
    ax.set_ylabel(f"{FIGURES[y].label} ({uy})")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return fig


def first_mover_chart(table: pd.DataFrame) -> Figure:
    """The first mover's win rate of every rule set, sorted, with 95% intervals; presets in colour."""
    if table.empty:
        raise AcesimError("nothing to chart: no rule sets")
    t = table.sort_values("first_mover_win_rate", kind="stable", ignore_index=True)
    fig = _figure(10.0, 4.5)
    ax = fig.add_subplot()
    x = np.arange(len(t))
    v = t["first_mover_win_rate"].to_numpy() * 100
    lo, hi = t["first_mover_win_rate_low"].to_numpy() * 100, t["first_mover_win_rate_high"].to_numpy() * 100
    ax.vlines(x, lo, hi, color="0.75", lw=1)
    ax.plot(x, v, "o", color="0.45", ms=2.5)
    for i, name in enumerate(t["rule_set"]):
        if name in PRESET_COLOURS:
            ax.plot(x[i], v[i], "D", color=PRESET_COLOURS[name], ms=7, label=name)
    ax.axhline(50, color="black", lw=0.8, label="an even game")
    ax.set_xticks([])
    ax.set_xlabel(f"the {len(t)} rule sets, by first-mover win rate")
    ax.set_ylabel("first-mover win rate (%), 95% interval")
    ax.set_title("How fair is each rule set: the first mover's win rate", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    return fig
