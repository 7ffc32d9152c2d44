"""The house-rule landscape: figures per rule set, the knobs' effects on them, the best trade-offs.

DataFrames in, DataFrames out (docs/landscape.md, formulas in docs/statistics.md):

* ``rule_set_figures``: one row per rule set, each figure with its 95%
  interval (``_low``, ``_high``) and the number it rests on (``_n``);
* ``effects``: per figure, a least-squares regression of the rule sets'
  figures on the design's knobs (treatment coding against the base rule
  set), each knob value's main effect, then every two-knob interaction
  screened one pair at a time; intervals at 95% and Bonferroni-corrected
  over all the terms of the figure, ranked by size;
* ``pareto_front``: the rule sets no other beats on two figures at once;
* ``preset_changes``: what one changed knob would do to each preset, from
  the figure's model (main effects and the interactions that held).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats as S

from acesim.analyses import compare as C
from acesim.analyses.luck import luck_summary
from acesim.common.errors import AcesimError
from acesim.common.stats import Z95, sample_mean_ci, wilson
from acesim.engine.rules import KNOB_VALUES, KNOBS, PRESETS, Ruleset

ALPHA = 0.05


@functools.lru_cache(maxsize=4096)
def t_quantile(p: float, df: int) -> float:
    """Student's t quantile (cached: a figure's fits ask for the same few again and again)."""
    return float(S.t.ppf(p, df)) if df > 0 else math.nan


@dataclass(frozen=True)
class Figure:
    """A figure of the landscape: its words, its unit, and which way is better for a table."""

    label: str
    unit: str  # "rate" (shown in percent), "points", "rolls", "share"
    effects: bool = True  # whether the knobs' effects on it are fitted


FIGURES: dict[str, Figure] = {
    "first_mover_win_rate": Figure("first-mover win rate", "rate"),
    "first_mover_points": Figure("first mover's net points per game", "points", effects=False),
    "rolls_mean": Figure("rolls per game (mean)", "rolls"),
    "rolls_median": Figure("rolls per game (median)", "rolls", effects=False),
    "rolls_p95": Figure("rolls per game (95th percentile)", "rolls"),
    "turns_mean": Figure("turns per game (mean)", "turns", effects=False),
    "turn_cap_share": Figure("share of games cut at the turn cap", "rate", effects=False),
    "points_per_game": Figure("points per game (the winner's)", "points", effects=False),
    # what a game is worth multiplies with the stakes, the scoring and the cube: fitted on a log scale
    "log_points_per_game": Figure("points per game (the winner's), log scale", "log"),
    "forfeits_per_game": Figure("forfeited bonuses per game", "forfeits"),
    "forfeit_share": Figure("share of turns that forfeit a bonus", "rate", effects=False),
    "luck_share": Figure("luck's share of the result's variance (R²)", "rate"),
    "skill_win_rate": Figure("the player's win rate against random", "rate"),
    "dropped_share": Figure("share of games ended by a dropped double", "rate"),
    "cube_value": Figure("final cube value", "points", effects=False),
    "cube_offers_per_game": Figure("doubles offered per game", "offers", effects=False),
}
CUBE_FIGURES = ("dropped_share", "cube_value", "cube_offers_per_game")
EFFECT_FIGURES = tuple(k for k, f in FIGURES.items() if f.effects)


@dataclass
class RuleSetData:
    """One rule set's records: self-play games, games against random (both seats), per-game luck."""

    rules: Ruleset
    records: pd.DataFrame
    skill: pd.DataFrame  # the player in seat A against random, then in seat B
    luck: pd.DataFrame  # analyses.luck.game_luck's table
    equity: dict = field(default_factory=dict)  # the equity model's name and calibration


# --- per rule set -------------------------------------------------------------------------------


def quantile_ci(x: np.ndarray, q: float, z: float = Z95) -> tuple[float, float, float]:
    """The ``q`` quantile of ``x`` and its distribution-free interval from order statistics.

    The ranks ``n q ∓ z sqrt(n q (1 − q))``, rounded outwards and clipped to
    the sample, bound the quantile with about 95% coverage (the binomial
    count of values below it, in its normal approximation).
    """
    x = np.sort(np.asarray(x, dtype=np.float64))
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    half = z * math.sqrt(n * q * (1 - q))
    lo = max(0, math.floor(n * q - half) - 1)
    hi = min(n - 1, math.ceil(n * q + half))
    return (float(np.quantile(x, q, method="inverted_cdf")), float(x[lo]), float(x[hi]))


def _put(row: dict, key: str, value: tuple[float, float, float], n: int) -> None:
    row[key], row[f"{key}_low"], row[f"{key}_high"] = value
    row[f"{key}_n"] = int(n)


def rule_set_row(data: RuleSetData, player: str) -> dict:
    """Every figure of one rule set, each with its interval and n (finished games unless said)."""
    rules, name = data.rules, data.rules.name
    basic = C.rule_set_table({name: data.records}).iloc[0]
    games = C.per_game(data.records)
    done = games[~games["unfinished"]]
    n, finished = len(games), len(done)
    row: dict = {"rule_set": name, "games": n, "finished": finished, "unfinished": n - finished}
    _put(row, "first_mover_win_rate", (basic["first_mover_win_rate"], basic["first_mover_win_rate_low"],
                                       basic["first_mover_win_rate_high"]), finished)
    _put(row, "first_mover_points", (basic["first_mover_points"], basic["first_mover_points_low"],
                                     basic["first_mover_points_high"]), finished)
    rolls = done["rolls"].to_numpy()
    _put(row, "rolls_mean", sample_mean_ci(rolls), finished)
    _put(row, "rolls_median", quantile_ci(rolls, 0.5), finished)
    _put(row, "rolls_p95", quantile_ci(rolls, 0.95), finished)
    _put(row, "turns_mean", sample_mean_ci(done["turns"].to_numpy()), finished)
    _put(row, "turn_cap_share", ((n - finished) / n, *wilson(n - finished, n)), n)
    points = sample_mean_ci(done["points"].to_numpy())
    _put(row, "points_per_game", points, finished)
    # every finished game is worth at least one point, so the mean's interval is cut there before the log
    _put(row, "log_points_per_game", tuple(math.log(max(v, 1.0)) if not math.isnan(v) else math.nan
                                           for v in points), finished)
    _put(row, "forfeits_per_game", sample_mean_ci(done["forfeits"].to_numpy()), finished)
    _put(row, "forfeit_share", (basic["forfeit_share"], basic["forfeit_share_low"], basic["forfeit_share_high"]),
         int(basic["turns"]))
    luck = luck_summary(data.luck, name, player, player)
    _put(row, "luck_share", (luck["r2_result_on_net_luck"], luck["r2_low"], luck["r2_high"]), luck["games"])
    row["luckier_side_won"] = luck["luckier_side_won"]
    row["luckier_side_won_low"], row["luckier_side_won_high"] = luck["luckier_side_won_low"], luck["luckier_side_won_high"]
    skill = data.skill
    skill_done = skill[skill["unfinished"] == 0]
    half = len(skill) // 2
    seat_of_player = np.r_[np.zeros(half, dtype=np.int64), np.ones(len(skill) - half, dtype=np.int64)]
    won = (skill["winner"].to_numpy() == seat_of_player)[skill["unfinished"].to_numpy() == 0]
    k, m = int(won.sum()), len(skill_done)
    _put(row, "skill_win_rate", (k / m if m else math.nan, *wilson(k, m)), m)
    row["skill_unfinished"] = int(len(skill) - m)
    if rules.has_cube:
        cube = C.cube_table({name: data.records}).iloc[0]
        for key in CUBE_FIGURES:
            _put(row, key, (cube[key], cube[f"{key}_low"], cube[f"{key}_high"]), finished)
    else:
        for key in CUBE_FIGURES:
            _put(row, key, (math.nan, math.nan, math.nan), 0)
    for key in ("model", "brier", "brier_constant", "reliability", "positions"):
        row[f"equity_{key}"] = data.equity.get(key)
    return row


def rule_set_figures(datas: Sequence[RuleSetData], player: str) -> pd.DataFrame:
    """``rule_set_row`` of every rule set, in order."""
    return pd.DataFrame([rule_set_row(d, player) for d in datas])


# --- the design matrix -------------------------------------------------------------------------


def _show(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def contrasts(design: pd.DataFrame, factors: dict[str, Sequence], base: dict) -> pd.DataFrame:
    """Treatment coding against the base: one 0/1 column ``knob=value`` per varied value not the base's."""
    columns = {}
    for knob in KNOBS:
        if knob not in factors:
            continue
        values = design[knob].to_numpy()
        for value in factors[knob]:
            if value == base[knob]:
                continue
            columns[f"{knob}={_show(value)}"] = (values == value).astype(np.float64)
    return pd.DataFrame(columns, index=design.index)


def _independent(x: np.ndarray, candidates: np.ndarray, tol: float = 1e-9) -> list[int]:
    """The candidate columns that each add a dimension to ``x`` and the ones kept before them."""
    kept: list[int] = []
    base = x
    rank = np.linalg.matrix_rank(base, tol) if base.size else 0
    for j in range(candidates.shape[1]):
        col = candidates[:, j : j + 1]
        if not col.any():
            continue
        trial = np.hstack([base, col]) if base.size else col
        r = np.linalg.matrix_rank(trial, tol)
        if r > rank:
            base, rank = trial, r
            kept.append(j)
    return kept


@dataclass(frozen=True)
class OLS:
    """A least-squares fit: coefficients, their covariance, residual degrees of freedom."""

    names: tuple[str, ...]
    beta: np.ndarray
    cov: np.ndarray
    df: int
    r2: float
    n: int


def ols(x: np.ndarray, y: np.ndarray, names: Sequence[str]) -> OLS:
    """Ordinary least squares with the classical covariance ``s² (XᵀX)⁻¹``, ``s² = RSS / (n − p)``."""
    n, p = x.shape
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x @ beta
    df = n - p
    s2 = float(resid @ resid) / df if df > 0 else math.nan
    cov = s2 * np.linalg.pinv(x.T @ x)
    tss = float(((y - y.mean()) ** 2).sum())
    r2 = 1 - float(resid @ resid) / tss if tss > 0 else math.nan
    return OLS(tuple(names), beta, cov, df, r2, n)


def _term_row(fit: OLS, j: int, t_adj: float) -> dict:
    est, se = float(fit.beta[j]), float(math.sqrt(max(fit.cov[j, j], 0.0)))
    if fit.df > 0 and se > 0:
        t95 = t_quantile(1 - ALPHA / 2, fit.df)
        p = float(2 * S.t.sf(abs(est) / se, fit.df))
    else:
        t95, p = math.nan, math.nan
    return {"estimate": est, "se": se, "ci95_low": est - t95 * se, "ci95_high": est + t95 * se,
            "adj_low": est - t_adj * se, "adj_high": est + t_adj * se, "p": p, "df": fit.df}


@dataclass
class FigureModel:
    """One figure's fits: the main-effects model, and the model with the interactions that held."""

    figure: str
    terms: pd.DataFrame  # every main effect and screened interaction, with intervals
    model: OLS | None  # main effects plus the notable interactions
    columns: tuple[str, ...]  # the model's columns after the intercept
    aliased: tuple[str, ...]  # contrasts the design cannot tell apart from others


def _interaction_column(design_cols: dict[str, np.ndarray], a: str, b: str) -> np.ndarray:
    return design_cols[a] * design_cols[b]


def fit_figure(design: pd.DataFrame, y: pd.Series, factors: dict[str, Sequence], base: dict,
               figure: str, n_games: pd.Series | None = None) -> FigureModel:
    """The knobs' effects on one figure over the rule sets of ``design`` where ``y`` is known.

    Main effects: ``y = b0 + Σ b_c x_c`` over the contrasts ``x_c``
    (``contrasts``).  Interactions: for each pair of knobs, that model plus
    the products of their contrasts, one pair at a time.  The main
    contrasts are one family and the interaction products screened
    another, each of ``m`` terms; a term is notable when its Bonferroni
    interval, at ``t(1 − 0.05 / (2 m), df)``, excludes 0.
    """
    keep = y.notna().to_numpy()
    rows = design[keep]
    yv = y[keep].to_numpy(np.float64)
    frame = contrasts(rows, factors, base)
    cols = {c: frame[c].to_numpy() for c in frame.columns}
    ones = np.ones((len(rows), 1))
    main_idx = _independent(ones, frame.to_numpy())
    main_names = [frame.columns[j] for j in main_idx]
    aliased = tuple(c for c in frame.columns if c not in main_names and np.ptp(cols[c]) > 0)
    x_main = np.hstack([ones, np.column_stack([cols[c] for c in main_names])]) if main_names else ones
    if len(rows) <= x_main.shape[1]:
        raise AcesimError(f"{figure}: {len(rows)} rule sets cannot fit {x_main.shape[1]} terms; "
                          "the design needs more rule sets than knob values")
    main = ols(x_main, yv, ["intercept", *main_names])
    knob_of = {c: c.split("=", 1)[0] for c in main_names}
    screened = []  # (pair, product names, fit)
    for ka, kb in combinations([k for k in KNOBS if k in factors], 2):
        products = [(a, b) for a in main_names if knob_of[a] == ka for b in main_names if knob_of[b] == kb]
        if not products:
            continue
        cand = np.column_stack([_interaction_column(cols, a, b) for a, b in products])
        kept = _independent(x_main, cand)
        if not kept:
            continue
        x = np.hstack([x_main, cand[:, kept]])
        if len(rows) <= x.shape[1]:
            continue
        names = [f"{products[j][0]} × {products[j][1]}" for j in kept]
        screened.append(((ka, kb), [products[j] for j in kept], names, ols(x, yv, [*main.names, *names])))
    # two families, each corrected on its own: the main effects, and every interaction screened
    m_main = len(main_names)
    m_int = sum(len(names) for _, _, names, _ in screened)
    out = []
    games = int(n_games[keep].min()) if n_games is not None and keep.any() else 0
    for j, name in enumerate(main_names, 1):
        t_adj = t_quantile(1 - ALPHA / (2 * m_main), main.df)
        knob, value = name.split("=", 1)
        out.append({"figure": figure, "kind": "main", "term": name, "knob": knob, "value": value,
                    "knob_b": "", "value_b": "", "base_value": _show(base[knob]), "base_value_b": "",
                    **_term_row(main, j, t_adj), "m": m_main})
    for (ka, kb), products, names, fit in screened:
        t_adj = t_quantile(1 - ALPHA / (2 * m_int), fit.df)
        for (a, b), name in zip(products, names):
            j = fit.names.index(name)
            out.append({"figure": figure, "kind": "interaction", "term": name, "knob": ka, "value": a.split("=", 1)[1],
                        "knob_b": kb, "value_b": b.split("=", 1)[1], "base_value": _show(base[ka]),
                        "base_value_b": _show(base[kb]), **_term_row(fit, j, t_adj), "m": m_int})
    terms = pd.DataFrame(out)
    if terms.empty:
        terms = pd.DataFrame(columns=["figure", "kind", "term", "estimate"])
    else:
        terms["notable"] = (terms["adj_low"] > 0) | (terms["adj_high"] < 0)
        terms["rule_sets"] = len(rows)
        terms["games_per_rule_set"] = games
        terms["r2_main_model"] = main.r2
        terms["size"] = terms["estimate"].abs()
        terms = terms.sort_values(["kind", "size"], ascending=[False, False], kind="stable", ignore_index=True)
    # the model the predictions use: main effects and the interactions that held
    held = terms[(terms["kind"] == "interaction") & terms["notable"]] if not terms.empty else terms
    extra = []
    for r in held.itertuples():
        a, b = f"{r.knob}={r.value}", f"{r.knob_b}={r.value_b}"
        extra.append((r.term, _interaction_column(cols, a, b)))
    x = x_main
    names = list(main.names)
    if extra:
        cand = np.column_stack([c for _, c in extra])
        kept = _independent(x_main, cand)
        x = np.hstack([x_main, cand[:, kept]])
        names += [extra[j][0] for j in kept]
    model = ols(x, yv, names) if len(rows) > x.shape[1] else main
    return FigureModel(figure, terms, model, tuple(model.names[1:]), aliased)


def effects(design: pd.DataFrame, table: pd.DataFrame, factors: dict[str, Sequence], base: dict,
            figures: Sequence[str] = EFFECT_FIGURES) -> tuple[pd.DataFrame, dict[str, FigureModel]]:
    """``fit_figure`` for every figure with at least a few rule sets in the fit; all terms in one table."""
    fit_rows = design["in_fit"].astype(bool).to_numpy()
    d = design[fit_rows].reset_index(drop=True)
    t = table[fit_rows].reset_index(drop=True)
    models, parts = {}, []
    for figure in figures:
        y = t[figure]
        if y.notna().sum() < 3 or y.dropna().nunique() < 2:
            continue
        try:
            fm = fit_figure(d, y, factors, base, figure, t.get(f"{figure}_n"))
        except AcesimError:
            continue
        models[figure] = fm
        parts.append(fm.terms)
    terms = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return terms, models


# --- predictions from a figure's model ---------------------------------------------------------


def _row(model_columns: Sequence[str], knobs: dict) -> np.ndarray:
    """The model's regressors for a rule set of ``knobs`` (intercept first)."""
    def on(term: str) -> float:
        knob, value = term.split("=", 1)
        return float(_show(knobs[knob]) == value)

    x = [1.0]
    for c in model_columns:
        if " × " in c:
            a, b = c.split(" × ")
            x.append(on(a) * on(b))
        else:
            x.append(on(c))
    return np.array(x)


def predict_change(fm: FigureModel, before: dict, after: dict, alpha: float = ALPHA) -> tuple[float, float, float]:
    """The model's change of the figure from rule set ``before`` to ``after``, with its ``1 − alpha`` interval."""
    model = fm.model
    c = _row(fm.columns, after) - _row(fm.columns, before)
    est = float(c @ model.beta)
    se = float(math.sqrt(max(c @ model.cov @ c, 0.0)))
    t = t_quantile(1 - alpha / 2, model.df)
    return est, est - t * se, est + t * se


def one_knob_changes(rules: dict, factors: dict[str, Sequence], canonical) -> list[tuple[str, object, dict]]:
    """Every rule set one varied knob away from ``rules`` (silent knobs follow, ``canonical``), valid only."""
    out = []
    for knob in KNOBS:
        if knob not in factors:
            continue
        for value in factors[knob]:
            if value == rules[knob]:
                continue
            after = canonical({**rules, knob: value})
            if after["acey_deucey"] == "none" and after["acey_deucey_extra_roll"]:
                continue
            try:
                Ruleset(**after)
            except AcesimError:
                continue
            out.append((knob, value, after))
    return out


# Which way a figure is better, for a table that wants a fair, skilful game: the figure's distance
# from this target (None: smaller is better; a number: closer to it is better).
TARGETS = {"first_mover_win_rate": 0.5, "luck_share": None, "rolls_mean": None}


def preset_changes(design: pd.DataFrame, table: pd.DataFrame, models: dict[str, FigureModel],
                   factors: dict[str, Sequence], canonical, figures: Sequence[str] = tuple(TARGETS)) -> pd.DataFrame:
    """For each preset in the design, every one-knob change and its predicted effect on ``figures``.

    The prediction is the figure's model's difference (``predict_change``);
    where the changed rule set was itself played, its measured figure is
    beside it.  ``gain`` is how much closer to its target (``TARGETS``) the
    preset's measured figure plus the predicted change comes; ``clear`` says
    the change's interval, Bonferroni-corrected over the ``changes`` one-knob
    changes of the preset, excludes 0.
    """
    rows = []
    keyed = {tuple(_show(r[k]) for k in KNOBS): i for i, r in design.iterrows()}
    for i, r in design.iterrows():
        if r["rule_set"] not in PRESETS or not bool(r["in_fit"]):
            continue
        before = {k: _native(k, r[k]) for k in KNOBS}
        changes = one_knob_changes(before, factors, canonical)
        for knob, value, after in changes:
            also = [f"{k}={_show(after[k])}" for k in KNOBS if k != knob and after[k] != before[k]]
            j = keyed.get(tuple(_show(after[k]) for k in KNOBS))
            for figure in figures:
                if figure not in models:
                    continue
                est, low, high = predict_change(models[figure], before, after)
                # the best of k changes is chosen: its interval is corrected for the k
                _, adj_low, adj_high = predict_change(models[figure], before, after, ALPHA / len(changes))
                now = float(table.loc[i, figure])
                target = TARGETS.get(figure)
                distance = (lambda v: abs(v - target)) if target is not None else (lambda v: v)
                rows.append({
                    "preset": r["rule_set"], "figure": figure, "knob": knob, "from": _show(before[knob]),
                    "to": _show(value), "also": ", ".join(also), "preset_value": now,
                    "preset_low": float(table.loc[i, f"{figure}_low"]),
                    "preset_high": float(table.loc[i, f"{figure}_high"]),
                    "preset_n": int(table.loc[i, f"{figure}_n"]),
                    "change": est, "change_low": low, "change_high": high,
                    "change_adj_low": adj_low, "change_adj_high": adj_high, "changes": len(changes),
                    "clear": bool(adj_low > 0 or adj_high < 0),
                    "gain": distance(now) - distance(now + est),
                    "measured_as": design.loc[j, "rule_set"] if j is not None else "",
                    "measured_value": float(table.loc[j, figure]) if j is not None else math.nan,
                    "measured_low": float(table.loc[j, f"{figure}_low"]) if j is not None else math.nan,
                    "measured_high": float(table.loc[j, f"{figure}_high"]) if j is not None else math.nan,
                    "rule_sets": models[figure].model.n,
                })
    return pd.DataFrame(rows)


def _native(knob: str, value):
    """A knob's value as the Ruleset holds it, from a table cell (CSV text or a NumPy scalar)."""
    values = KNOB_VALUES[knob]
    if values is bool:
        return value if isinstance(value, bool) else str(value).lower() == "true" if isinstance(value, str) else bool(value)
    if isinstance(values[0], int):
        return int(value)
    return str(value)


# --- the best trade-offs -------------------------------------------------------------------------


def pareto_front(table: pd.DataFrame, x: str, y: str) -> pd.Series:
    """Whether each rule set is on the front of the two figures, both smaller being better.

    A rule set is on the front when no other is at least as small on both
    and smaller on one (point estimates; the intervals say how sure).
    """
    xs, ys = table[x].to_numpy(np.float64), table[y].to_numpy(np.float64)
    on = np.zeros(len(table), dtype=bool)
    for i in range(len(table)):
        if math.isnan(xs[i]) or math.isnan(ys[i]):
            continue
        beaten = (xs <= xs[i]) & (ys <= ys[i]) & ((xs < xs[i]) | (ys < ys[i]))
        on[i] = not beaten.any()
    return pd.Series(on, index=table.index)


def fairness(table: pd.DataFrame) -> pd.DataFrame:
    """The rule sets by their first mover's distance from an even game, fairest first."""
    t = table.copy()
    t["first_mover_edge"] = (t["first_mover_win_rate"] - 0.5).abs()
    t["even_within_interval"] = (t["first_mover_win_rate_low"] <= 0.5) & (t["first_mover_win_rate_high"] >= 0.5)
    return t.sort_values("first_mover_edge", kind="stable", ignore_index=True)


# --- everything at once --------------------------------------------------------------------------


def landscape(design: pd.DataFrame, figures: pd.DataFrame, factors: dict[str, Sequence], base: dict,
              canonical) -> dict[str, pd.DataFrame]:
    """Every table of the landscape report from the design and ``rule_set_figures``' table (in the
    design's order): figures, effects, fronts, fairest, preset changes, the fits."""
    table = figures.copy()
    table.insert(1, "role", design["role"].to_numpy())
    table.insert(2, "in_fit", design["in_fit"].to_numpy())
    terms, models = effects(design, table, factors, base)
    table["front_luck_length"] = pareto_front(table, "luck_share", "rolls_mean")
    edge = table.assign(first_mover_edge=(table["first_mover_win_rate"] - 0.5).abs())
    table["front_fair_length"] = pareto_front(edge, "first_mover_edge", "rolls_mean")
    changes = preset_changes(design, table, models, factors, canonical)
    fit_stats = pd.DataFrame([{"figure": f, "rule_sets": m.model.n, "terms": len(m.model.names),
                               "df": m.model.df, "r2": m.model.r2, "aliased": ", ".join(m.aliased)}
                              for f, m in models.items()])
    return {"rule_sets": table, "effects": terms, "fairest": fairness(table), "preset_changes": changes,
            "models": fit_stats}
