"""The landscape report: findings in words, charts, tables, method; HTML and Markdown.

``write_report`` takes the plan's description and the tables of
``analyses.landscape.landscape`` and writes ``report/`` of an explore run:
``landscape.md``, a self-contained ``landscape.html`` (charts embedded, by
``document.markdown_to_html``), ``figures/*.png`` and ``tables/*.csv``.  The
folder is built beside its place and renamed into it, so a kill never
leaves half a report.  Every sentence of the findings is read off a table
the report also writes, with its figure, its 95% interval and its n.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from acesim.analyses.landscape import EFFECT_FIGURES, FIGURES, TARGETS
from acesim.common import files as io
from acesim.common.stats import Z95
from acesim.common.terminal import markdown_table
from acesim.engine.rules import KNOBS, PRESETS
from acesim.outputs import landscape_charts as P
from acesim.outputs.document import markdown_to_html, stage_charts_and_tables
from acesim.outputs.findings import percent, plain, points_of_percent, signed

REPORT_MARK = "landscape.json"
PRESET_ORDER = tuple(PRESETS)


# --- one unit per kind of figure ------------------------------------------------------------


def value_text(figure: str, x: float, low: float, high: float) -> str:
    """A figure with its interval in the figure's unit."""
    unit = FIGURES[figure].unit
    if unit == "rate":
        return percent(x, low, high, 1)
    digits = 2 if unit in ("points", "forfeits", "offers") else 1
    return plain(x, low, high, digits) if x is not None and not (isinstance(x, float) and math.isnan(x)) and x >= 0 \
        else signed(x, low, high, digits)


def change_text(figure: str, x: float, low: float, high: float) -> str:
    """A change of a figure with its interval: percentage points for rates, a factor for a figure fitted
    on a log scale, else the figure's unit."""
    unit = FIGURES[figure].unit
    if unit == "log":
        return f"×{math.exp(x):.2f} [×{math.exp(low):.2f}, ×{math.exp(high):.2f}]"
    if unit == "rate":
        return points_of_percent(x, low, high, 1)
    digits = 2 if unit in ("points", "forfeits", "offers") else 1
    return f"{signed(x, low, high, digits)} {unit}"


def row_text(row: pd.Series, figure: str) -> str:
    """``figure`` of a row of ``tables/rule_sets.csv`` with its interval."""
    return value_text(figure, row[figure], row[f"{figure}_low"], row[f"{figure}_high"])


def interval_text(figure: str, low: float, high: float) -> str:
    """An interval of a change alone, in the unit of ``change_text``: ``[+0.4, +2.0]``."""
    return "[" + change_text(figure, 0.0, low, high).split(" [", 1)[1].split("]", 1)[0] + "]"


def _n(n: int, what: str = "games") -> str:
    return f"n = {int(n):,} {what}"


def _term(r) -> str:
    if r["kind"] == "interaction":
        return f"`{r['knob']}={r['value']}` together with `{r['knob_b']}={r['value_b']}`"
    return f"changing `{r['knob']}` from {r['base_value']} to {r['value']}"


# --- findings --------------------------------------------------------------------------------


def _fairest(t: dict[str, pd.DataFrame], most: int = 3) -> list[str]:
    f = t["fairest"]
    key = "first_mover_win_rate"
    named = "; ".join(f"{r['rule_set']} ({row_text(r, key)}, {_n(r[f'{key}_n'])})" for _, r in f.head(most).iterrows())
    even = int(f["even_within_interval"].sum())
    worst = f.iloc[-1]
    return [f"**The fairest rule sets found:** the first mover wins {named}. {even} of {len(f)} rule sets show no "
            f"measurable first-mover edge (the interval includes 50%); the largest edge is {worst['rule_set']}'s, "
            f"{row_text(worst, key)} ({_n(worst[f'{key}_n'])}). The knobs of every rule set named here are in the "
            "tables below."]


def _effect_sentence(e: pd.DataFrame, figure: str, lead: str, sign: int | None = None) -> str | None:
    if e.empty:
        return None
    part = e[(e["figure"] == figure) & (e["kind"] == "main")]
    if sign is not None:
        part = part[part["estimate"] * sign > 0]
    notable = part[part["notable"].astype(bool)]
    if part.empty:
        return None
    if notable.empty:
        r = part.iloc[0]
        return (f"**{lead}:** no knob is notable after the correction for the {int(r['m'])} main effects; the largest, "
                f"{_term(r)}, moves {FIGURES[figure].label} by "
                f"{change_text(figure, r['estimate'], r['ci95_low'], r['ci95_high'])} "
                f"({int(r['rule_sets'])} rule sets of {int(r['games_per_rule_set']):,}+ games).")
    r = notable.iloc[0]
    return (f"**{lead}:** {_term(r)} moves {FIGURES[figure].label} by "
            f"{change_text(figure, r['estimate'], r['ci95_low'], r['ci95_high'])} "
            f"(Bonferroni-corrected over the {int(r['m'])} main effects: "
            f"{interval_text(figure, r['adj_low'], r['adj_high'])}; "
            f"{int(r['rule_sets'])} rule sets of {int(r['games_per_rule_set']):,}+ games each).")


def _skill(t: dict[str, pd.DataFrame]) -> list[str]:
    table = t["rule_sets"]
    r = table.loc[table["luck_share"].idxmin()]
    s = table.loc[table["skill_win_rate"].idxmax()]
    out = [f"**Skill counts most under {r['rule_set']}:** there luck accounts for "
           f"{value_text('luck_share', r['luck_share'], r['luck_share_low'], r['luck_share_high'])} of the variance of "
           f"the result ({_n(r['luck_share_n'])}; over all rule sets it runs from "
           f"{100 * table['luck_share'].min():.0f}% to {100 * table['luck_share'].max():.0f}%), and the player beats "
           f"random in {value_text('skill_win_rate', r['skill_win_rate'], r['skill_win_rate_low'], r['skill_win_rate_high'])} "
           f"of games ({_n(r['skill_win_rate_n'])}). The player beats random most often under {s['rule_set']}: "
           f"{value_text('skill_win_rate', s['skill_win_rate'], s['skill_win_rate_low'], s['skill_win_rate_high'])} "
           f"({_n(s['skill_win_rate_n'])})."]
    sentence = _effect_sentence(t["effects"], "luck_share", "The knob that hands most of the result to the dice", 1)
    if sentence:
        out.append(sentence)
    sentence = _effect_sentence(t["effects"], "luck_share", "The knob that hands most of the result to skill", -1)
    if sentence:
        out.append(sentence)
    return out


def _interactions(e: pd.DataFrame, most: int = 4) -> list[str]:
    part = e[(e["kind"] == "interaction") & e["notable"].astype(bool)]
    if part.empty:
        m = e[e["kind"] == "interaction"]
        if m.empty:
            return []
        return [f"**No two-knob interaction is notable** on any figure after the correction "
                f"({len(m)} interaction terms screened over {m['figure'].nunique()} figures)."]
    rows = part.assign(scaled=part.apply(lambda r: abs(r["estimate"]) / _spread(e, r["figure"]), axis=1))
    rows = rows.sort_values("scaled", ascending=False).head(most)
    said = "; ".join(f"{_term(r)} on {FIGURES[r['figure']].label}: "
                     f"{change_text(r['figure'], r['estimate'], r['ci95_low'], r['ci95_high'])} beyond their main "
                     f"effects" for _, r in rows.iterrows())
    return [f"**Interactions that matter** ({len(part)} notable of {int((e['kind'] == 'interaction').sum())} screened; "
            f"the largest for their figure): {said}."]


def _spread(e: pd.DataFrame, figure: str) -> float:
    part = e[(e["figure"] == figure) & (e["kind"] == "main")]["estimate"].abs()
    return float(part.max()) if len(part) and part.max() > 0 else 1.0


def _quiet_knobs(e: pd.DataFrame, factors: list[str]) -> list[str]:
    moved = set(e[e["notable"].astype(bool)]["knob"]) | set(e[e["notable"].astype(bool)]["knob_b"])
    quiet = [k for k in factors if k not in moved]
    if not quiet:
        return []
    return [f"**Knobs with no notable effect** on any of the {e['figure'].nunique()} figures fitted: "
            f"{', '.join(f'`{k}`' for k in quiet)}."]


def _presets(t: dict[str, pd.DataFrame]) -> list[str]:
    ch = t["preset_changes"]
    if ch.empty:
        return []
    out = []
    words = {"first_mover_win_rate": "brings the first mover's win rate closest to 50%",
             "luck_share": "hands most of the result to skill",
             "rolls_mean": "shortens the game most"}
    for preset in PRESET_ORDER:
        p = ch[ch["preset"] == preset]
        if p.empty:
            continue
        said = []
        for figure in TARGETS:
            here = p[p["figure"] == figure]
            if figure == "first_mover_win_rate" and len(here) and \
                    here["preset_low"].iloc[0] <= 0.5 <= here["preset_high"].iloc[0]:
                r = here.iloc[0]
                said.append(f"no measurable first-mover edge to remove "
                            f"({value_text(figure, r['preset_value'], r['preset_low'], r['preset_high'])}, "
                            f"{_n(r['preset_n'])})")
                continue
            f = here[here["clear"].astype(bool) & (here["gain"] > 0)]
            if f.empty:
                any_row = p[p["figure"] == figure]
                if not any_row.empty:
                    said.append(f"no single change is predicted to move {FIGURES[figure].label} clearly the "
                                "right way")
                continue
            r = f.loc[f["gain"].idxmax()]
            also = f" (and so {r['also']})" if r["also"] else ""
            measured = (f"; played as {r['measured_as']}: "
                        f"{value_text(figure, r['measured_value'], r['measured_low'], r['measured_high'])}"
                        if r["measured_as"] else "")
            said.append(f"`{r['knob']}` {r['from']} → {r['to']}{also} {words[figure]}: "
                        f"{change_text(figure, r['change'], r['change_low'], r['change_high'])} from "
                        f"{value_text(figure, r['preset_value'], r['preset_low'], r['preset_high'])} "
                        f"({_n(r['preset_n'])}{measured})")
        n = int(p["rule_sets"].iloc[0])
        k = int(p["changes"].iloc[0])
        out.append(f"**{preset} with one knob changed** (predicted by the effects model of {n} rule sets; a "
                   f"change counts when its interval, corrected for the {k} changes considered, excludes 0): "
                   + "; ".join(said) + ".")
    return out


def _front(t: dict[str, pd.DataFrame]) -> list[str]:
    table = t["rule_sets"]
    front = table[table["front_luck_length"].astype(bool)].sort_values("rolls_mean")
    presets = [n for n in PRESET_ORDER if n in set(front["rule_set"])]
    named = "; ".join(f"{r.rule_set} ({plain(r.rolls_mean, r.rolls_mean_low, r.rolls_mean_high)} rolls, luck "
                      f"{percent(r.luck_share, r.luck_share_low, r.luck_share_high, 0)})" for r in front.head(6).itertuples())
    more = f" and {len(front) - 6} more" if len(front) > 6 else ""
    on = (f"Of the presets, {', '.join(presets)} {'is' if len(presets) == 1 else 'are'} on it."
          if presets else "No preset is on it: for each, some rule set found is both shorter and less lucky.")
    return [f"**The best trade-offs between a short game and a skilful one** (no other rule set is both shorter "
            f"and less decided by the dice; point estimates): {named}{more}. {on}"]


def _length(t: dict[str, pd.DataFrame]) -> list[str]:
    table = t["rule_sets"]
    out = []
    for sign, lead in ((1, "The knob that lengthens games most"), (-1, "The knob that shortens games most")):
        s = _effect_sentence(t["effects"], "rolls_mean", lead, sign)
        if s:
            out.append(s)
    lo, hi = table.loc[table["rolls_mean"].idxmin()], table.loc[table["rolls_mean"].idxmax()]
    out.append(f"**Game length runs** from {plain(lo['rolls_mean'], lo['rolls_mean_low'], lo['rolls_mean_high'])} "
               f"rolls on average under {lo['rule_set']} to {plain(hi['rolls_mean'], hi['rolls_mean_low'], hi['rolls_mean_high'])} "
               f"under {hi['rule_set']} (both sides' rolls; {_n(lo['rolls_mean_n'])} and {_n(hi['rolls_mean_n'])}).")
    capped = table[table["unfinished"] > 0]
    if len(capped):
        out.append(f"**{len(capped)} rule sets had games cut at the turn cap** ({int(capped['unfinished'].sum()):,} "
                   "games in all), left out of every figure but the turn-cap share.")
    return out


def _cube(t: dict[str, pd.DataFrame]) -> list[str]:
    table = t["rule_sets"].dropna(subset=["dropped_share"])
    if table.empty:
        return []
    lo, hi = table.loc[table["dropped_share"].idxmin()], table.loc[table["dropped_share"].idxmax()]
    out = [f"**With the doubling cube** ({len(table)} rule sets), a dropped double ends from "
           f"{value_text('dropped_share', lo['dropped_share'], lo['dropped_share_low'], lo['dropped_share_high'])} of "
           f"games under {lo['rule_set']} to "
           f"{value_text('dropped_share', hi['dropped_share'], hi['dropped_share_low'], hi['dropped_share_high'])} "
           f"under {hi['rule_set']} ({_n(lo['dropped_share_n'])} each)."]
    sentence = _effect_sentence(t["effects"], "dropped_share", "The knob that moves the dropped doubles most")
    return out + ([sentence] if sentence else [])


def findings(doc: dict, t: dict[str, pd.DataFrame]) -> list[str]:
    """The findings as Markdown list items, each sentence with its number, interval and n."""
    e = t["effects"]
    sentences = [*_fairest(t)]
    if e.empty:
        return [f"* {s}" for s in sentences + _length(t) + _front(t)] + [
            "* **No knob effects:** the design has too few rule sets in its space to fit them."]
    s = _effect_sentence(e, "first_mover_win_rate", "The knob that moves the first mover's edge most")
    if s:
        sentences.append(s)
    sentences += _length(t)
    sentences += _skill(t)
    sentences += _front(t)
    sentences += _cube(t)
    sentences += _interactions(e)
    sentences += _presets(t)
    sentences += _quiet_knobs(e, list(doc["factors"]))
    return [f"* {s}" for s in sentences]


# --- tables in the report ----------------------------------------------------------------------


def _changed(row: pd.Series, base: dict) -> str:
    changed = [f"{k}={_cell(row[k])}" for k in KNOBS if _cell(row[k]) != _cell(base[k])]
    return ", ".join(changed) if changed else "(the base)"


def _cell(v) -> str:
    return str(v).lower() if isinstance(v, bool) or str(v) in ("True", "False") else str(v)


def _effects_lines(e: pd.DataFrame, most: int = 8) -> list[str]:
    lines: list[str] = []
    if e.empty:
        return ["The design has too few rule sets in its space to fit the knobs' effects.", ""]
    for figure in EFFECT_FIGURES:
        part = e[e["figure"] == figure]
        if part.empty:
            continue
        mains = part[part["kind"] == "main"].head(most)
        inter = part[(part["kind"] == "interaction") & part["notable"].astype(bool)].head(most)
        first = part.iloc[0]
        rows = [[_term_cell(r), change_text(figure, r["estimate"], r["ci95_low"], r["ci95_high"]),
                 change_text(figure, r["estimate"], r["adj_low"], r["adj_high"]), "yes" if r["notable"] else "no"]
                for _, r in pd.concat([mains, inter]).iterrows()]
        m_int = part.loc[part["kind"] == "interaction", "m"]
        lines += [f"**{FIGURES[figure].label}** ({int(first['rule_sets'])} rule sets, {int(first['games_per_rule_set']):,}+ "
                  f"games each; R² of the main-effects model {first['r2_main_model']:.2f}; Bonferroni over the "
                  f"m = {int(mains['m'].iloc[0])} main effects and, apart, the m = {int(m_int.iloc[0]) if len(m_int) else 0} "
                  f"interactions screened; the {len(mains)} largest main effects and the notable interactions):", "",
                  *markdown_table(["term", "effect [95%]", "effect [Bonferroni]", "notable"], rows), ""]
    return lines


def _term_cell(r) -> str:
    if r["kind"] == "interaction":
        return f"{r['knob']}={r['value']} × {r['knob_b']}={r['value_b']}"
    return f"{r['knob']}: {r['base_value']} → {r['value']}"


def _fairest_lines(t: dict[str, pd.DataFrame], base: dict, most: int = 10) -> list[str]:
    f = t["fairest"].head(most)
    design = t["design"].set_index("rule_set")
    rows = [[r["rule_set"], value_text("first_mover_win_rate", r["first_mover_win_rate"], r["first_mover_win_rate_low"],
                                       r["first_mover_win_rate_high"]), f"{int(r['first_mover_win_rate_n']):,}",
             plain(r["rolls_mean"], r["rolls_mean_low"], r["rolls_mean_high"]),
             percent(r["luck_share"], r["luck_share_low"], r["luck_share_high"], 0),
             _changed(design.loc[r["rule_set"]], base)] for _, r in f.iterrows()]
    return [f"The {len(f)} fairest rule sets (first mover's win rate closest to 50%):", "",
            *markdown_table(["rule set", "first-mover win rate", "games", "rolls per game", "luck's share",
                             "knobs unlike the base"], rows), ""]


def named_rule_sets(t: dict[str, pd.DataFrame], most: int = 3) -> list[str]:
    """The rule sets the findings name, in the order they come: the fairest, the shortest and longest,
    the least and most decided by the dice, the player's best, and both fronts."""
    table = t["rule_sets"]
    names = list(t["fairest"]["rule_set"].head(most))
    for column, pick in (("rolls_mean", "idxmin"), ("rolls_mean", "idxmax"), ("luck_share", "idxmin"),
                         ("skill_win_rate", "idxmax")):
        names.append(table.loc[getattr(table[column], pick)(), "rule_set"])
    for front in ("front_luck_length", "front_fair_length"):
        names += list(table[table[front].astype(bool)].sort_values("rolls_mean")["rule_set"])
    return list(dict.fromkeys(n for n in names if n not in PRESETS))


def _named_lines(t: dict[str, pd.DataFrame], base: dict) -> list[str]:
    names = named_rule_sets(t)
    table = t["rule_sets"].set_index("rule_set")
    design = t["design"].set_index("rule_set")
    keys = ("first_mover_win_rate", "rolls_mean", "luck_share", "skill_win_rate")
    rows = [[name, *(value_text(k, table.loc[name, k], table.loc[name, f"{k}_low"], table.loc[name, f"{k}_high"])
                     for k in keys), _changed(design.loc[name], base)] for name in names]
    return ["The rule sets the findings name (the presets are in the table above; every rule set is in "
            "`tables/rule_sets.csv` and `../design.csv`):", "",
            *markdown_table(["rule set", *(FIGURES[k].label for k in keys), "knobs unlike the base"], rows), ""]


def _preset_lines(t: dict[str, pd.DataFrame]) -> list[str]:
    table = t["rule_sets"].set_index("rule_set")
    keys = ("first_mover_win_rate", "rolls_mean", "rolls_p95", "points_per_game", "forfeits_per_game", "luck_share",
            "skill_win_rate")
    rows = []
    for name in PRESET_ORDER:
        if name not in table.index:
            continue
        r = table.loc[name]
        rows.append([name, f"{int(r['games']):,}", *(value_text(k, r[k], r[f"{k}_low"], r[f"{k}_high"]) for k in keys)])
    return ["The presets (every figure with its 95% interval; n in `tables/rule_sets.csv`):", "",
            *markdown_table(["preset", "games", *(FIGURES[k].label for k in keys)], rows), ""]


def _method_lines(doc: dict) -> list[str]:
    factors = doc["factors"]
    value_function = ("the player's own network" if doc["equity"].startswith("learned:") else
                      "a logistic model fitted on the player's own games under each rule set (the player has no "
                      "network of its own)")
    return [
        f"Reproduce with: `{doc['command']}`" if doc.get("command") else "",
        "",
        f"* **Design.** Base rule set `{doc['base']['name']}`; {len(factors)} knobs varied "
        f"({', '.join(f'`{k}`' for k in factors)}); a {'full factorial' if doc['design'] == 'full' else 'seeded random design'} "
        f"of {len(doc['rule_sets'])} rule sets with the four presets in it, written to `design.csv` before any game. "
        "A random design draws each varied knob uniformly among its values; a knob with no say (`cube_max` without "
        "the cube, `acey_deucey_extra_roll` without the 1-2 bonus) takes one value there, and each rule set is kept once.",
        f"* **Games.** One player for every rule set, `{doc['player']}` (asked: `{doc['strategy']}`), against itself: "
        f"{doc['games']:,} games per rule set on common dice (game i rolls the same dice under every rule set) for the "
        f"first-mover edge, length, points, forfeits and the cube; {doc['skill_games']:,} games in each seat against "
        f"`random` for the skill figure; {doc['equity_games']:,} games to fit the luck's value function (the last 20% "
        f"held out for its calibration) and {doc['luck_games']:,} further games whose every roll is valued.",
        f"* **Luck's share** is R² of the game's result on net luck (per-roll luck, docs/statistics.md), with V "
        f"{value_function}; its interval from Fisher's z.",
        f"* **Intervals.** Wilson for rates, mean ± {Z95:.2f}·sd/√n for means, order statistics for the median and the "
        "95th percentile; each figure's n is in `tables/rule_sets.csv` (`_n` columns).",
        "* **Effects.** For each figure, least squares over the rule sets in the design's space: "
        "`y = b0 + Σ b_c x_c`, one 0/1 column `x_c` per knob value other than the base's (treatment coding), so "
        "`b_c` is the change of the figure from the base's value to that one, averaged over the design. Each pair "
        "of knobs is then screened by adding the products of their columns to that model. Intervals are "
        "`b ± t(0.975, df)·se`, `se` from `s²(XᵀX)⁻¹`. **Multiple comparisons: Bonferroni** over every main and "
        "interaction term of the figure (`m`); a term is notable when `b ± t(1 − 0.025/m, df)·se` excludes 0. "
        "Terms are ranked by |b|. Predictions for a preset with one knob changed use the model of the main effects "
        "and the notable interactions.",
        "* **Best trade-offs** (Pareto front): the rule sets no other beats on both figures at once, on point "
        "estimates.",
        "",
    ]


GLOSSARY = (
    ("first mover", "the side that plays the first roll of the game"),
    ("first-mover edge", "how far the first mover's win rate is from 50%: 0 for a fair game"),
    ("luck's share (R²)", "the share of the variance of the game result that net luck, the sum of the dice's "
                          "luck for one side minus the other's, accounts for: 100% means the dice decide everything"),
    ("the player's win rate against random", "how often the player beats a side that picks each play at random, "
                                             "both seats played equally: how much skill can do under those rules"),
    ("main effect", "the change of a figure when one knob moves from the base's value to another, averaged over "
                    "the other knobs of the design"),
    ("interaction", "how much two knobs changed together move a figure beyond the sum of their main effects"),
    ("notable", "an effect whose Bonferroni-corrected interval excludes 0"),
    ("pp (percentage points)", "the difference of two percentages"),
    ("n", "the sample size a figure rests on: games, or rule sets for an effect"),
)


def markdown(doc: dict, t: dict[str, pd.DataFrame], charts: list[str]) -> list[str]:
    """The report as Markdown lines (charts referenced as ``figures/NAME.png``)."""
    base = doc["base"]
    lines = [
        "# acesim landscape: which house rules make a fair, skilful game",
        "",
        f"acesim {doc['acesim_version']}, rules version {doc['rules_version']}, seed {doc['seed']}: "
        f"{len(doc['rule_sets'])} rule sets around `{base['name']}`, {doc['games']:,} games each, played by "
        f"`{doc['player']}` under every rule set. Terms are explained at the end.",
        "",
        "## Findings",
        "",
        *findings(doc, t),
        "",
        "## Charts",
        "",
        *[f"![{CAPTIONS.get(c, c)}](figures/{c}.png)\n" for c in charts],
        "## Tables",
        "",
        *_preset_lines(t),
        *_named_lines(t, base),
        *_fairest_lines(t, base),
        "### Knob effects", "",
        *_effects_lines(t["effects"]),
        "## Glossary", "",
        *[f"* **{term}**: {meaning}." for term, meaning in GLOSSARY], "",
        "## How the figures were made", "",
        *_method_lines(doc),
        "## Files", "",
        "Every table is also in `tables/` as CSV (6 significant digits), the design in `../design.csv`, each rule "
        "set's records in `../rule-sets/NAME/` (Parquet):", "",
        *[f"* `tables/{name}.csv`" for name in t],
    ]
    return lines


CAPTIONS = {
    "landscape_luck_length": "Luck's share against game length, the presets marked and the best trade-offs joined",
    "landscape_fair_length": "The first mover's edge against game length, the presets marked and the best trade-offs joined",
    "first_mover": "The first mover's win rate of every rule set",
    **{f"effects_{f}": f"Knob effects on {FIGURES[f].label}" for f in EFFECT_FIGURES},
}


def charts(t: dict[str, pd.DataFrame]) -> dict:
    """Every chart, by name."""
    table = t["rule_sets"]
    figs = {
        "landscape_luck_length": P.landscape_chart(
            table, "luck_share", "rolls_mean", "front_luck_length",
            "Skilful and short: luck's share of the result against game length"),
        "landscape_fair_length": P.landscape_chart(
            table, "first_mover_win_rate", "rolls_mean", "front_fair_length",
            "Fair and short: the first mover's edge against game length", x_distance_from=0.5),
        "first_mover": P.first_mover_chart(table),
    }
    for figure in EFFECT_FIGURES:
        if not t["effects"].empty and (t["effects"]["figure"] == figure).any():
            figs[f"effects_{figure}"] = P.effects_chart(t["effects"], figure)
    return figs


def write_report(doc: dict, t: dict[str, pd.DataFrame], out: Path) -> tuple[Path, list[str]]:
    """Write the report folder ``out`` (replacing an earlier one whole); returns the HTML path and the
    findings (Markdown lines)."""
    out = Path(out)
    figs = charts(t)
    with io.building_folder(out) as staging:
        images = stage_charts_and_tables(staging, figs, t)
        lines = markdown(doc, t, list(images))
        (staging / "landscape.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (staging / "landscape.html").write_text(markdown_to_html(lines, images), encoding="utf-8")
        (staging / REPORT_MARK).write_text(json.dumps({**doc, "figures": sorted(images), "tables": sorted(t)},
                                                      indent=2) + "\n", encoding="utf-8")
    return out / "landscape.html", findings(doc, t)
