"""The analysis report: compare house rules, value the bonus rolls, measure the luck factor.

``build`` runs every analysis for each rule set (rule sets in parallel
worker processes), ``write`` turns the results into PNG charts, CSV tables,
a Markdown report and a self-contained HTML report (charts embedded).  The
output folder is assembled under a temporary name and renamed into place, so
an error or an interrupt never leaves a half-written report.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
from markdown_it import MarkdownIt

from acesim import __version__, io
from acesim.analysis import bonus as B
from acesim.analysis import compare as C
from acesim.analysis.elo import bradley_terry, skill_spread
from acesim.analysis.equity import equity_models
from acesim.analysis.luck import FORMULAS, luck_summary, trace_luck
from acesim.errors import AcesimError
from acesim.games import play_games, trace_games
from acesim.cluster import backend_for
from acesim.ladder import ladder, ladder_table
from acesim.model_files import load_model, model_path
from acesim.plots import bonus as PB
from acesim.plots import compare as PC
from acesim.plots import elo as PE
from acesim.plots import luck as PL
from acesim.rules import RULES_VERSION, Ruleset, load_rulesets
from acesim.stats import Z95, wilson
from acesim.strategies import load_strategy, resolve_spec
from acesim.streams import check_seed
from acesim.tasks import check_workers, map_tasks

REPORT_MARK = "report.json"  # marks a folder as an acesim report (for --force)
PARTS = ("compare", "bonus", "luck")


@dataclass(frozen=True)
class ReportPlan:
    """What a report runs: sizes, strategies and the one seed everything derives from."""

    rulesets: tuple[Ruleset, ...]
    strategy: str = "best"  # "best": each rule set's strongest shipped player (strategies.best_spec)
    games: int = 10_000  # games per rule set for the comparison and the bonus-roll figures
    equity_games: int = 2_000  # self-play games the equity model is fitted on (20% held out)
    luck_games: int = 300  # games whose every roll is valued (per-roll luck, roll values)
    ladder_games: int = 200  # games per pairing and seat order in the skill ladder
    ladder_strategies: tuple[str, ...] = ("random", "racer", "safe", "blocker", "expert", "best")
    seed: int = 42
    command: str = ""
    parts: tuple[str, ...] = PARTS  # which analyses to run: compare, bonus, luck
    equity: str = "auto"  # the equity model V: auto, logistic or learned:PATH (analysis.equity)

    def needs(self, *parts: str) -> bool:
        return any(p in self.parts for p in parts)

    def player(self, rules: Ruleset) -> str:
        """The strategy both sides play under ``rules`` (``best`` resolved)."""
        return resolve_spec(self.strategy, rules)

    def ladder_for(self, rules: Ruleset) -> list[str]:
        """The skill ladder's strategies under ``rules``, ``best`` resolved, each once."""
        specs: list[str] = []
        for spec in self.ladder_strategies:
            spec = resolve_spec(spec, rules)
            if spec not in specs:
                specs.append(spec)
        return specs

    def check(self) -> None:
        unknown = [p for p in self.parts if p not in PARTS]
        if unknown or not self.parts:
            raise AcesimError(f"unknown report part {unknown[0] if unknown else ''!r}; parts: {', '.join(PARTS)}")
        for name in ("games", "equity_games", "luck_games", "ladder_games"):
            if getattr(self, name) <= 0:
                raise AcesimError(f"--{name.replace('_', '-')} must be positive, got {getattr(self, name)}")
        if self.equity_games < 10:
            raise AcesimError(f"--equity-games must be at least 10, got {self.equity_games}")
        if not self.rulesets:
            raise AcesimError("a report needs at least one rule set")
        names = [r.name for r in self.rulesets]
        if len(set(names)) != len(names):
            raise AcesimError(f"rule sets must have distinct names, got {', '.join(names)}")
        for r in self.rulesets:
            if self.needs("bonus", "luck") and load_strategy(self.player(r)).kind == 0:
                raise AcesimError(
                    f"--strategy {self.strategy} is not deterministic; the value of rolls and per-roll luck value "
                    f"its plays"
                )
            for spec in (self.player(r), *self.ladder_for(r)):
                load_strategy(spec).check_rules(r)
        if self.equity.startswith("learned:"):
            model = load_model(model_path(self.equity[len("learned:"):]))
            for r in self.rulesets:
                model.check_rules(r)
        elif self.equity not in ("auto", "logistic"):
            raise AcesimError(f"unknown equity model {self.equity!r}; use auto, logistic or learned:PATH")
        if self.needs("luck") and any("random" not in self.ladder_for(r) or self.player(r) not in self.ladder_for(r)
                                      for r in self.rulesets):
            raise AcesimError("the skill ladder needs 'random' and the report's strategy")


def analysis_plan(
    command: str,
    parts: tuple[str, ...],
    rules: str,
    rules_files: Sequence[Path] = (),
    overrides: Sequence[str] = (),
    sweep: str | None = None,
    games: int = 10_000,
    strategy: str = "best",
    equity_games: int | None = None,
    luck_games: int | None = None,
    ladder_games: int | None = None,
    seed: int = 42,
    equity: str = "auto",
    out: Path | None = None,
) -> ReportPlan:
    """The checked plan of ``acesim COMMAND`` (compare, bonus, luck or report), with the command line
    that reproduces it; sizes not given derive from ``games``."""
    rulesets = load_rulesets(rules, overrides)
    for path in rules_files:
        rulesets += load_rulesets(str(path), overrides)
    if sweep:
        knob, values = C.parse_sweep(sweep)
        rulesets = C.sweep_rulesets(rulesets[0], knob, values)
    if games <= 0:
        raise AcesimError(f"the number of games must be positive, got {games}")
    check_seed(seed)
    defaults = report_sizes_from_numbers(games)
    plan = ReportPlan(
        rulesets=tuple(rulesets),
        strategy=strategy,
        games=games,
        equity_games=equity_games if equity_games is not None else defaults["equity_games"],
        luck_games=luck_games if luck_games is not None else defaults["luck_games"],
        ladder_games=ladder_games if ladder_games is not None else defaults["ladder_games"],
        seed=seed,
        parts=parts,
        equity=equity,
    )
    line = [f"acesim {command} --rules {rules}"]
    line += [f"--rules-file {p}" for p in rules_files] + [f"--rule {r}" for r in overrides]
    line += [f"--sweep {sweep}"] if sweep else []
    line += [f"--games {plan.games}", f"--strategy {strategy}", f"--equity-games {plan.equity_games}",
             f"--luck-games {plan.luck_games}", f"--ladder-games {plan.ladder_games}", f"--seed {seed}"]
    line += [f"--equity {equity}"] if equity != "auto" else []
    line += [f"--out {out}"] if out is not None else []
    plan = dataclasses.replace(plan, command=" ".join(line))
    plan.check()
    return plan


@dataclass
class RuleSetResult:
    """Everything the report shows about one rule set."""

    rules: Ruleset
    player: str = ""  # the strategy both sides played (``best`` resolved)
    records: pd.DataFrame | None = None
    calibration: pd.DataFrame | None = None  # of every equity model, column ``model``
    equity_model: str = ""  # the one the luck and roll values use
    brier: float = float("nan")
    brier_constant: float = float("nan")
    equity_positions: int = 0
    rolls: pd.DataFrame | None = None
    luck_games: pd.DataFrame | None = None
    luck: dict = field(default_factory=dict)
    ladder: pd.DataFrame | None = None
    elo: pd.DataFrame | None = None
    too_long: int = 0


def _one_rule_set(plan: ReportPlan, index: int) -> RuleSetResult:
    """All the games and analyses of one rule set (runs in a worker process)."""
    rules = plan.rulesets[index]
    s = plan.player(rules)
    result = RuleSetResult(rules, player=s)
    if plan.needs("compare", "bonus"):
        result.records = play_games(rules, plan.games, plan.seed, s, s)
    if plan.needs("bonus", "luck"):
        choice = equity_models(rules, s, plan.equity_games, plan.seed, plan.equity)
        model, calibration = choice.model, choice.calibration
        result.calibration = pd.concat(
            [c.bins.assign(model=name, brier=c.brier, reliability=c.reliability)
             for name, c in choice.calibrations.items()]
        )
        result.equity_model = choice.chosen
        result.brier, result.brier_constant = calibration.brier, calibration.brier_constant
        result.equity_positions = calibration.positions
        # the luck games follow the equity model's games: the model never saw them
        traces = trace_games(rules, s, s, plan.seed, plan.equity_games, plan.luck_games)
        result.rolls, result.luck_games = trace_luck(rules, traces, s, s, model)
        result.luck = luck_summary(result.luck_games, rules.name, s, s)
        result.too_long = traces.too_long
    if plan.needs("luck"):
        strategies = [load_strategy(x) for x in plan.ladder_for(rules)]
        matches = ladder(rules, strategies, plan.ladder_games, plan.seed, workers=1)
        result.ladder = ladder_table(matches, strategies)
        result.elo = bradley_terry(result.ladder, bootstrap=200, seed=plan.seed)
    return result


def build(plan: ReportPlan, workers: int = 1, progress=None, scheduler: str | None = None) -> list[RuleSetResult]:
    """Run every rule set's games and analyses, ``workers`` rule sets at a time (or one Dask task each)."""
    plan.check()
    check_workers(workers)
    n = len(plan.rulesets)

    def done(i: int, result: RuleSetResult) -> None:
        if progress:
            progress(plan.rulesets[i].name)

    with backend_for(min(workers, n), scheduler) as backend:
        return map_tasks(_one_rule_set, [(plan, i) for i in range(n)], backend, done)


# --- tables ---------------------------------------------------------------------------


def _ci(x: float, low: float, high: float, digits: int = 3, scale: float = 1.0) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x * scale:.{digits}f} [{low * scale:.{digits}f}, {high * scale:.{digits}f}]"


def relative_skill(results: list[RuleSetResult]) -> pd.DataFrame:
    """The ladder's strongest player (highest Elo) vs random, and the share of the result skill can
    move (STATISTICS.md "Relative skill").

    The upper bound is a player that wins every game against ``random`` (W = 1):
    the foresight player of STATISTICS.md is not built yet, so RS here is
    ``(W - 0.5) / (1 - 0.5)``, a lower bound on the relative-skill ratio.
    """
    rows = []
    for r in results:
        t = r.ladder
        strongest = r.elo.set_index("strategy")["elo"].idxmax()
        row = t[(t["strategy"] == strongest) & (t["opponent"] == "random")].iloc[0]
        games, wins = int(row["games"]), int(row["wins"])
        low, high = wilson(wins, games)
        w = wins / games
        rows.append(
            {"rules": r.rules.name, "strongest": strongest, "games": games, "win_rate_vs_random": w, "win_low": low,
             "win_high": high, "relative_skill": 2 * w - 1, "rs_low": 2 * low - 1, "rs_high": 2 * high - 1}
        )
    return pd.DataFrame(rows)


def tables(plan: ReportPlan, results: list[RuleSetResult]) -> dict[str, pd.DataFrame]:
    """Every table of the report, by name (each is written as ``tables/NAME.csv``)."""
    out: dict[str, pd.DataFrame] = {}
    out["rules"] = pd.DataFrame({r.rules.name: r.rules.knobs() for r in results}).rename_axis("knob").reset_index()
    frames = {r.rules.name: r.records for r in results if r.records is not None}
    if plan.needs("compare"):
        out["comparison"] = C.rule_set_table(frames)
        if len(results) > 1:
            out["paired_differences"] = C.paired_differences(frames, results[0].rules.name)
        out["length_rolls"] = C.length_distribution(frames, "rolls")
        out["length_turns"] = C.length_distribution(frames, "turns")
    if plan.needs("bonus"):
        for column in B.DIFFERENCES:
            out[f"win_by_{column}"] = pd.concat(
                [B.win_by_difference(f, column).assign(rules=name) for name, f in frames.items()]
            )
        out["bonus_model"] = pd.concat(
            [B.bonus_model(f, bootstrap=200, seed=plan.seed).assign(rules=name) for name, f in frames.items()]
        )
        out["roll_values"] = pd.concat([B.roll_values(r.rolls).assign(rules=r.rules.name) for r in results])
        out["chosen_by_phase"] = pd.concat(
            [B.chosen_doubles_by_phase(r.rolls).assign(rules=r.rules.name) for r in results]
        )
    if plan.needs("bonus", "luck"):
        out["calibration"] = pd.concat([r.calibration.assign(rules=r.rules.name) for r in results])
        out["luck"] = pd.DataFrame(
            [dict(r.luck, equity_model=r.equity_model, brier=r.brier, brier_constant=r.brier_constant,
                  equity_positions=r.equity_positions,
                  games_too_long_to_trace=r.too_long) for r in results]
        )
    if plan.needs("luck"):
        out["elo"] = pd.concat([r.elo.assign(rules=r.rules.name) for r in results])
        out["ladder"] = pd.concat([r.ladder.assign(rules=r.rules.name) for r in results])
        out["relative_skill"] = relative_skill(results)
    return out


def figures(plan: ReportPlan, results: list[RuleSetResult], t: dict[str, pd.DataFrame]) -> dict:
    """Every chart of the report, by name (each is written as ``figures/NAME.png``)."""
    names = [r.rules.name for r in results]
    figs = {}
    if plan.needs("compare"):
        figs["first_mover"] = PC.first_mover_chart(t["comparison"])
        figs["points"] = PC.points_chart(t["comparison"])
        figs["length_rolls"] = PC.length_chart(t["length_rolls"], "rolls")
        figs["length_turns"] = PC.length_chart(t["length_turns"], "turns")
        if "paired_differences" in t:
            figs["paired_differences"] = PC.paired_chart(t["paired_differences"])
    if plan.needs("bonus"):
        for column in B.DIFFERENCES:
            per = {n: g.drop(columns="rules") for n, g in t[f"win_by_{column}"].groupby("rules", sort=False)}
            figs[f"win_by_{column}"] = PB.win_by_difference_chart({n: per[n] for n in names}, column)
        figs["roll_values"] = PL.roll_value_chart({r.rules.name: B.roll_values(r.rolls) for r in results})
        phase = {r.rules.name: B.chosen_doubles_by_phase(r.rolls) for r in results}
        phase = {n: v for n, v in phase.items() if len(v)}
        if phase:
            figs["chosen_by_phase"] = PL.phase_choice_chart(phase)
    if plan.needs("bonus", "luck"):
        figs["calibration"] = PL.calibration_chart({r.rules.name: r.calibration for r in results})
    if plan.needs("luck"):
        figs["luck"] = PL.luck_chart({r.rules.name: r.luck_games for r in results})
        figs["elo"] = PE.elo_chart({r.rules.name: r.elo for r in results})
    return figs


# --- writing ---------------------------------------------------------------------------------


SECTIONS = (
    ("First-player advantage and game length", ("first_mover", "points", "length_rolls", "length_turns",
                                                 "paired_differences")),
    ("Value of doubles and 1-2 rolls", ("win_by_doubles_diff", "win_by_one_two_diff", "roll_values",
                                        "chosen_by_phase")),
    ("Luck factor", ("calibration", "luck", "elo")),
)


def _summary_markdown(plan: ReportPlan, results: list[RuleSetResult], t: dict[str, pd.DataFrame]) -> list[str]:
    """The headline tables, as Markdown lines."""
    players = ", ".join(f"`{r.player}` under {r.rules.name}" for r in results)
    lines = [f"Played by `{plan.strategy}` against itself: {players}.", ""]
    names = [r.rules.name for r in results]
    if plan.needs("compare"):
        lines += _comparison_lines(t, results)
    if plan.needs("bonus"):
        lines += _bonus_lines(t, names)
    if plan.needs("luck"):
        lines += _luck_lines(plan, t, results)
    return lines


def _comparison_lines(t: dict[str, pd.DataFrame], results: list[RuleSetResult]) -> list[str]:
    lines = []
    comp = t["comparison"].set_index("rules")
    lines += ["| rule set | games (finished) | first-mover win rate [95% CI] | first mover's net points "
              "per game [95% CI] | rolls per game [95% CI] | turns per game [95% CI] | forfeited "
              "bonus share of turns [95% CI] | dice lost per game | extra rolls per game |",
              "|---|---|---|---|---|---|---|---|---|"]
    for name, row in comp.iterrows():
        lines.append(
            f"| {name} | {int(row['n']):,} ({int(row['finished']):,}) | "
            f"{_ci(row['first_mover_win_rate'], row['first_mover_win_rate_low'], row['first_mover_win_rate_high'])} | "
            f"{_ci(row['first_mover_points'], row['first_mover_points_low'], row['first_mover_points_high'])} | "
            f"{_ci(row['rolls_per_game'], row['rolls_per_game_low'], row['rolls_per_game_high'], 1)} | "
            f"{_ci(row['turns_per_game'], row['turns_per_game_low'], row['turns_per_game_high'], 1)} | "
            f"{_ci(row['forfeit_share'], row['forfeit_share_low'], row['forfeit_share_high'], 4)} | "
            f"{_ci(row['dice_lost_per_game'], row['dice_lost_per_game_low'], row['dice_lost_per_game_high'], 2)} | "
            f"{_ci(row['extra_rolls_per_game'], row['extra_rolls_per_game_low'], row['extra_rolls_per_game_high'], 2)} |"
        )
    lines.append("")
    if "paired_differences" in t:
        d = t["paired_differences"]
        m = int(d["m"].iloc[0])
        lines += [f"Paired differences against **{results[0].rules.name}** on common dice "
                  f"({m} intervals; * = excludes 0 after Bonferroni):", "",
                  "| rule set | metric | difference | paired 95% CI | unpaired 95% CI | width ratio |",
                  "|---|---|---|---|---|---|"]
        for row in d.itertuples():
            star = " *" if row.notable else ""
            lines.append(f"| {row.rules} | {row.metric} | {row.diff:+.4f}{star} | [{row.paired_low:+.4f}, "
                         f"{row.paired_high:+.4f}] | [{row.unpaired_low:+.4f}, {row.unpaired_high:+.4f}] | "
                         f"{row.width_ratio:.2f} |")
        lines.append("")
    return lines


def _bonus_lines(t: dict[str, pd.DataFrame], names: list[str]) -> list[str]:
    lines = ["Value of the bonus rolls (logistic model of a side's win on its lead in doubles and in "
              "1-2s; average marginal effect of one more than the opponent, bootstrap 95% CI over games):", "",
              "| rule set | one more double | one more 1-2 | points per extra double | points per extra 1-2 |",
              "|---|---|---|---|---|"]
    bm = t["bonus_model"]
    for name in names:
        part = bm[bm["rules"] == name].set_index(["model", "term"])

        def eff(model, term, unit):
            r = part.loc[(model, term)]
            return f"{r['effect']:+.2f} [{r['effect_ci95_low']:+.2f}, {r['effect_ci95_high']:+.2f}]{unit}"

        lines.append(f"| {name} | {eff('win', 'doubles_diff', ' pp')} | {eff('win', 'one_two_diff', ' pp')} | "
                     f"{eff('points', 'doubles_diff', '')} | {eff('points', 'one_two_diff', '')} |")
    lines.append("")
    rv = t["roll_values"]
    lines += ["Equity value of the special rolls over the average roll (percentage points of win "
              "probability, 95% CI; from the per-roll values of the luck games):", "",
              "| rule set | states | 1-2 | 1-1 | 2-2 | 3-3 | 4-4 | 5-5 | 6-6 |", "|---|---|---|---|---|---|---|---|---|"]
    for name in names:
        part = rv[rv["rules"] == name].set_index(["die_1", "die_2"])
        cells = [_ci(part.loc[(a, b), "value"], part.loc[(a, b), "ci95_low"], part.loc[(a, b), "ci95_high"], 1, 100)
                 for a, b in ((1, 2), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6))]
        lines.append(f"| {name} | {int(part['states'].iloc[0]):,} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def _luck_lines(plan: ReportPlan, t: dict[str, pd.DataFrame], results: list[RuleSetResult]) -> list[str]:
    lk = t["luck"]
    lines = ["Luck factor, three ways:", "",
              "| rule set | luck games | luckier side won [95% CI] | R² of result on net luck [95% CI] | "
              "sd of net luck | luck-adjusted result of seat A, mean [95% CI] (sd) | equity model used: Brier (constant) | skill spread Elo(best) − Elo(random) [95% CI] | "
              "strongest vs random [95% CI] | relative skill RS |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    rs = t["relative_skill"].set_index("rules")
    for r, row in zip(results, lk.itertuples()):
        elo = r.elo.set_index("strategy")
        best = elo["elo"].idxmax()
        spread = f"{skill_spread(r.elo):.0f} [{elo.loc[best, 'ci95_low']:.0f}, {elo.loc[best, 'ci95_high']:.0f}] ({best})"
        s = rs.loc[r.rules.name]
        lines.append(
            f"| {row.rules} | {row.games:,} | {_ci(row.luckier_side_won, row.luckier_side_won_low, row.luckier_side_won_high)} | "
            f"{_ci(row.r2_result_on_net_luck, row.r2_low, row.r2_high)} | {row.net_luck_sd:.3f} | "
            f"{_ci(row.luck_adjusted_a_mean, row.luck_adjusted_a_low, row.luck_adjusted_a_high)} "
            f"({row.luck_adjusted_a_sd:.3f}) | "
            f"{row.equity_model}: {row.brier:.4f} ({row.brier_constant:.4f}) | {spread} | "
            f"{s['strongest']}: {_ci(s['win_rate_vs_random'], s['win_low'], s['win_high'])} (n = {int(s['games']):,}) | "
            f"{_ci(s['relative_skill'], s['rs_low'], s['rs_high'])} |"
        )
    lines.append("")
    return lines


def _knob_table(t: dict[str, pd.DataFrame]) -> list[str]:
    k = t["rules"]
    cols = list(k.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in k.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return lines


def _text(plan: ReportPlan, results: list[RuleSetResult], t: dict[str, pd.DataFrame],
          charts: set[str]) -> list[str]:
    """The report as Markdown lines; charts are referenced as ``figures/NAME.png``."""
    names = ", ".join(r.rules.name for r in results)
    lines = [
        f"# acesim report: {names}",
        "",
        f"acesim {__version__}, rules version {RULES_VERSION}, seed {plan.seed}, strategy "
        f"`{plan.strategy}` against itself: "
        + ", ".join(f"`{r.player}` under {r.rules.name}" for r in results) + ".",
        "",
        f"Reproduce with: `{plan.command}`" if plan.command else "",
        "",
        f"Sizes per rule set: {plan.games:,} games for the comparison and the bonus-roll figures "
        f"(common random numbers: game i has the same dice stream under every rule set); "
        f"{plan.equity_games:,} games to fit the equity model (the last 20% held out for its calibration); "
        f"{plan.luck_games:,} further games whose every roll is valued against all 21 rolls; "
        f"{plan.ladder_games:,} games per pairing and seat order in the skill ladder of "
        f"{', '.join(plan.ladder_strategies)}.",
        "",
        "Every figure carries its sample size and a 95% interval: Wilson for proportions, "
        f"mean ± {Z95:.2f} sd/√n for means, paired per-game differences for rule-set differences, "
        "bootstrap over games for model effects and Elo ratings.",
        "",
        "## Rule sets",
        "",
        *_knob_table(t),
        "",
        "## Summary",
        "",
        *_summary_markdown(plan, results, t),
        "## Formulas",
        "",
        *[f"* `{f}`" for f in FORMULAS],
        "* `V(s)`: the win probability of the side on roll (under every scoring rule), from one of two "
        "equity models: a logistic model on the features of both sides and both pip counts, fitted here, "
        "or the learned network shipped for the rule set (TD(λ) self-play, `acesim train`); both are "
        f"calibrated on the same held-out games and the report uses {'the better calibrated (the lower reliability term of the Brier score, shown in the calibration chart)' if plan.equity == 'auto' else '`' + plan.equity + '`'}. `W(s, r)`: the value "
        "after the strategy plays roll r in s, its bonus included (1-2: the chosen double; roll-die: "
        "the six dice averaged), then V if the mover rolls again, else 1 − V of the opponent's view.",
        "* Relative skill `RS = (W(strongest vs random) − 0.5) / (W_bound − 0.5)`, the strongest player being "
        "the ladder's highest Elo (STATISTICS.md writes `expert`, the strongest player it knew), with the bound "
        "`W_bound = 1` (a player that wins every game): the foresight player is not built, so this RS is a "
        "lower bound.",
        "* Skill ladder: Bradley–Terry maximum likelihood, Elo = 400·log10 odds, random = 0, bootstrap "
        "95% intervals (200 resamples).",
        "",
    ]
    for title, keys in SECTIONS:
        present = [key for key in keys if key in charts]
        if present:
            lines += [f"## {title}", ""]
        for key in present:
            lines += [f"![{FIGURE_CAPTIONS[key]}](figures/{key}.png)", ""]
    lines += ["## Tables", "", "Every table is also in `tables/` as CSV:", ""]
    lines += [f"* `tables/{name}.csv`" for name in t]
    return lines


FIGURE_CAPTIONS = {
    "first_mover": "First-mover win rate per rule set",
    "points": "First mover's net points per game",
    "length_rolls": "Game length in rolls",
    "length_turns": "Game length in turns",
    "paired_differences": "Paired differences between rule sets",
    "win_by_doubles_diff": "Win rate by lead in doubles",
    "win_by_one_two_diff": "Win rate by lead in 1-2 rolls",
    "roll_values": "Equity value of each roll",
    "chosen_by_phase": "Double chosen after a 1-2 by game phase",
    "calibration": "Equity model calibration",
    "luck": "Win rate by net luck",
    "elo": "Skill ladder (Elo)",
}


def _markdown_to_html(lines: list[str], images: dict[str, bytes]) -> str:
    """The report's Markdown as one self-contained HTML page, its charts embedded as data URIs."""
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")

    def image(renderer, tokens, index, options, env):
        token = tokens[index]
        key = Path(str(token.attrGet("src"))).stem
        alt = html.escape(token.content)
        data = base64.b64encode(images[key]).decode("ascii")
        return (f'<figure><img alt="{alt}" src="data:image/png;base64,{data}">'
                f"<figcaption>{alt}</figcaption></figure>")

    parser.add_render_rule("image", image)
    # an image alone on its line is a figure, not a paragraph holding one
    body = re.sub(r"<p>(<figure>.*?</figure>)</p>", r"\1", parser.render("\n".join(lines) + "\n"), flags=re.S)
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;line-height:1.4}"
             "table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;"
             "padding:3px 6px}img{max-width:100%}figure{margin:1em 0}")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>acesim report</title>"
            f"<style>{style}</style></head><body>\n" + body + "</body></html>\n")


def _is_report(out: Path) -> bool:
    return (out / REPORT_MARK).exists()


def check_output(out: Path, force: bool) -> None:
    """Refuse an existing output unless ``force`` and it is an acesim report; check the parent."""
    out = Path(out)
    if out.exists() or out.is_symlink():
        if not force:
            raise AcesimError(f"output {out} already exists; use --force to replace it")
        if out.is_symlink() or not out.is_dir() or (any(out.iterdir()) and not _is_report(out)):
            raise AcesimError(f"refusing to replace {out}: it is not an acesim report folder")
    io.check_parent(out)


def write(plan: ReportPlan, results: list[RuleSetResult], out: Path, force: bool = False) -> Path:
    """Write the report into ``out`` (replaced only with ``force``); returns the HTML path."""
    check_output(out, force)
    t = tables(plan, results)
    figs = figures(plan, results, t)
    staging = io.staging_folder(out)
    try:
        (staging / "figures").mkdir()
        (staging / "tables").mkdir()
        images = {}
        for name, fig in figs.items():
            path = staging / "figures" / f"{name}.png"
            fig.savefig(path, dpi=110)
            images[name] = path.read_bytes()
        for name, frame in t.items():
            frame.to_csv(staging / "tables" / f"{name}.csv", index=False)
        lines = _text(plan, results, t, set(images))
        (staging / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (staging / "report.html").write_text(_markdown_to_html(lines, images), encoding="utf-8")
        meta = {
            "acesim_version": __version__,
            "rules_version": RULES_VERSION,
            "command": plan.command,
            "seed": plan.seed,
            "strategy": plan.strategy,
            "players": {r.rules.name: r.player for r in results},
            "games": plan.games,
            "equity_games": plan.equity_games,
            "luck_games": plan.luck_games,
            "ladder_games": plan.ladder_games,
            "ladder_strategies": list(plan.ladder_strategies),
            "rules": {r.rules.name: r.rules.knobs() for r in results},
            "parts": list(plan.parts),
            "figures": sorted(images),
            "tables": sorted(t),
            "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        (staging / REPORT_MARK).write_text(json.dumps(meta, indent=2, default=str) + "\n")
    except OSError as error:
        io.remove_folder(staging)
        raise AcesimError(f"cannot write {out}: {error.strerror or error}") from None
    except BaseException:
        io.remove_folder(staging)
        raise
    io.replace_folder(staging, out)
    return out / "report.html"


def report_sizes_from_numbers(games: int) -> dict:
    """Default sizes of the other parts for a comparison of ``games`` games per rule set."""
    return {"equity_games": max(10, min(2_000, games // 5)), "luck_games": max(3, min(300, games // 30)),
            "ladder_games": max(1, min(200, games // 50))}

