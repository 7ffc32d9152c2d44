"""The analysis report: compare house rules, value the bonus rolls, measure the luck factor.

``build`` runs every analysis for each rule set (in small tasks on worker
processes or Dask: chunks of games, fits, ladder pairings), ``write`` turns the results into PNG charts, CSV tables,
a Markdown report and a self-contained HTML report (charts embedded).  The
output folder is assembled under a temporary name and renamed into place, so
an error or an interrupt never leaves a half-written report.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import pandas as pd

from acesim import __version__
from acesim.analyses import bonus as B, compare as C
from acesim.analyses.elo import bradley_terry, skill_spread
from acesim.analyses.equity import (
    EquityChoice,
    calibration_from_sums,
    chosen_model,
    equity_models,
    held_out_sums,
    merged_sums,
    model_predictions,
    positions,
)
from acesim.analyses.luck import FORMULAS, bonus_choices, luck_summary, roll_dice_sums, trace_luck
from acesim.common import files as io
from acesim.common.cluster import backend_for
from acesim.common.errors import AcesimError
from acesim.common.stats import Z95, wilson
from acesim.common.tasks import check_workers, map_tasks
from acesim.common.terminal import markdown_table
from acesim.engine.games import Traces, play_games, records_frame, trace_games, traced_records
from acesim.engine.model_files import load_model, model_path
from acesim.engine.rules import RULES_VERSION, Ruleset, load_rulesets
from acesim.engine.strategies import BEST, load_strategy, resolve_spec
from acesim.engine.streams import check_seed
from acesim.kernels import dice_luck as LK, game_loop as K
from acesim.kernels.choice import RANDOM
from acesim.outputs import bonus_charts as PB, compare_charts as PC, elo_chart as PE, luck_charts as PL
from acesim.outputs.document import markdown_to_html, stage_charts_and_tables
from acesim.outputs.findings import findings_markdown, percent, plain, signed
from acesim.runs.ladder import ladder, ladder_table
from acesim.runs.options import AnalysisOptions
from acesim.runs.simulate import default_chunk_size

REPORT_MARK = "report.json"  # marks a folder as an acesim report (for --force)
PARTS = ("compare", "bonus", "luck")


@dataclass(frozen=True)
class ReportPlan:
    """What a report runs: sizes, strategies and the one seed everything derives from."""

    rulesets: tuple[Ruleset, ...]
    strategy: str = AnalysisOptions.strategy
    games: int = AnalysisOptions.games
    equity_games: int = 2_000  # self-play games the equity model is fitted on (its last 20% held out)
    luck_games: int = 300  # games whose every roll is valued (per-roll luck, roll values)
    ladder_games: int = 200  # games per pairing and seat order in the skill ladder
    ladder_strategies: tuple[str, ...] = ("random", "racer", "safe", "blocker", "expert", "best")
    seed: int = AnalysisOptions.seed
    command: str = ""
    parts: tuple[str, ...] = PARTS  # which analyses to run: compare, bonus, luck
    equity: str = AnalysisOptions.equity

    def needs(self, *parts: str) -> bool:
        return any(p in self.parts for p in parts)

    def games_to_play(self) -> int:
        """Every game ``build`` plays, over all rule sets: the total its progress counts up to."""
        total = 0
        for rules in self.rulesets:
            if self.needs("compare", "bonus"):
                total += self.games - self.traced_for_records()
            if self.needs("bonus", "luck"):
                total += self.equity_games + self.luck_games
            if self.needs("luck"):
                pairings = len(self.ladder_for(rules)) * (len(self.ladder_for(rules)) - 1) // 2
                total += 2 * self.ladder_games * pairings
        return total

    def roll_block(self) -> int:
        """Games a cluster of the roll values' intervals (``analyses.bonus.roll_block``): every game is
        traced when the roll values are wanted, the comparison's or the equity fit's and the luck games'."""
        return B.roll_block(max(self.games, self.equity_games + self.luck_games))

    def traced_for_records(self) -> int:
        """How many of the comparison's games, from game 0, the equity fit's and the luck games' traces
        hold: the same player, rules, seed and index make the same game, so they are not played again."""
        if not self.needs("compare", "bonus") or not self.needs("bonus", "luck"):
            return 0
        return min(self.games, self.equity_games + self.luck_games)

    @property
    def player(self) -> str:
        """The one strategy both sides play under every rule set (``best`` resolved against all of them)."""
        return resolve_spec(self.strategy, *self.rulesets)

    def ladder_for(self, rules: Ruleset) -> list[str]:
        """The skill ladder's strategies under ``rules``, ``best`` being the report's one player, each once."""
        specs: list[str] = []
        for spec in self.ladder_strategies:
            spec = resolve_spec(spec, *self.rulesets)
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
        if self.needs("bonus", "luck") and load_strategy(self.player).kind == RANDOM:
            raise AcesimError(
                f"--strategy {self.strategy} is not deterministic; the value of rolls and per-roll luck value "
                f"its plays"
            )
        if self.needs("bonus", "luck"):
            load_strategy(self.player).refuse_deeper(
                "the value of rolls and per-roll luck value each roll by the player's own 1-ply search")
        for r in self.rulesets:
            for spec in (self.player, *self.ladder_for(r)):
                load_strategy(spec).check_rules(r)
        if self.equity.startswith("learned:"):
            model = load_model(model_path(self.equity[len("learned:"):]))
            for r in self.rulesets:
                model.check_rules(r)
        elif self.equity not in ("auto", "logistic"):
            raise AcesimError(f"unknown equity model {self.equity!r}; use auto, logistic or learned:PATH")
        if self.needs("luck") and any("random" not in self.ladder_for(r) or self.player not in self.ladder_for(r)
                                      for r in self.rulesets):
            raise AcesimError("the skill ladder needs 'random' and the report's strategy")


def analysis_plan(command: str, parts: tuple[str, ...], options: AnalysisOptions = AnalysisOptions(),
                  out: Path | None = None) -> ReportPlan:
    """The checked plan of ``acesim COMMAND`` (compare, bonus, luck or report), with the command line
    that reproduces it; sizes not given derive from ``games``."""
    o = options
    rulesets = load_rulesets(o.rules, o.overrides)
    for path in o.rules_files:
        rulesets += load_rulesets(str(path), o.overrides)
    if o.sweep:
        knob, values = C.parse_sweep(o.sweep)
        rulesets = C.sweep_rulesets(rulesets[0], knob, values)
    if o.games <= 0:
        raise AcesimError(f"the number of games must be positive, got {o.games}")
    check_seed(o.seed)
    derived = report_sizes_from_numbers(o.games)
    plan = ReportPlan(
        rulesets=tuple(rulesets),
        strategy=o.strategy,
        games=o.games,
        equity_games=o.equity_games if o.equity_games is not None else derived["equity_games"],
        luck_games=o.luck_games if o.luck_games is not None else derived["luck_games"],
        ladder_games=o.ladder_games if o.ladder_games is not None else derived["ladder_games"],
        seed=o.seed,
        parts=parts,
        equity=o.equity,
    )
    line = [f"acesim {command} --rules {o.rules}"]
    line += [f"--rules-file {p}" for p in o.rules_files] + [f"--rule {r}" for r in o.overrides]
    line += [f"--sweep {o.sweep}"] if o.sweep else []
    # only the options the command has: compare has no equity model
    line += [f"--games {plan.games}", f"--strategy {o.strategy}"]
    if plan.needs("bonus", "luck"):
        line += [f"--equity-games {plan.equity_games}", f"--luck-games {plan.luck_games}"]
    if plan.needs("luck"):
        line += [f"--ladder-games {plan.ladder_games}"]
    line += [f"--seed {o.seed}"]
    line += [f"--equity {o.equity}"] if o.equity != "auto" and plan.needs("bonus", "luck") else []
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
    equity_positions: int = 0  # the held-out positions the equity models are calibrated on
    equity_games: int = 0  # and their games
    rolls: pd.DataFrame | None = None
    dice: B.DiceSums | None = None  # the sums the roll values are estimated from (``analyses.bonus.roll_values``)
    # the double played after each 1-2 of every traced game (the equity fit's, the luck games' and, when
    # the comparison's games calibrate the equity models, theirs), and its phase: counting the luck
    # games' alone would leave most of the choices out
    choices: pd.DataFrame | None = None
    luck_games: pd.DataFrame | None = None
    luck: dict = field(default_factory=dict)
    ladder: pd.DataFrame | None = None
    elo: pd.DataFrame | None = None
    bonus_model: pd.DataFrame | None = None
    too_long: int = 0


STAGES = {  # what a progress note says a finished task was
    "games": "comparison games",
    "held-out games": "comparison games",
    "equity": "equity-fit games",
    "ladder": "ladder games",
    "luck": "luck games",
    "elo": "Elo ratings",
    "bonus": "bonus-roll model",
}


def _task(stage: str, plan: ReportPlan, index: int, *args):
    """One piece of one rule set's work (runs in a worker process); ``build`` combines the pieces.

    Every game is seeded by its own index (``acesim.engine.streams``), so a chunk of
    games plays exactly what the whole run would have played for those games.
    """
    rules = plan.rulesets[index]
    s = plan.player
    if stage == "games":
        first, n = args
        return play_games(rules, n, plan.seed, s, s, first_game=first)
    if stage == "held-out games":
        # comparison games played once the equity models are fitted: their positions calibrate them too
        first, n, equity = args
        try:
            traces = trace_games(rules, s, s, plan.seed, first, n)
        except AcesimError:
            # no game of this chunk could be traced: the finished ones were too long to keep
            return play_games(rules, n, plan.seed, s, s, first_game=first), None, None, None
        calibration, dice = _traced_sums(rules, s, equity, traces, plan.roll_block())
        return _traced_records(plan, rules, traces, first, n), calibration, bonus_choices(traces), dice
    if stage == "equity":
        traces = trace_games(rules, s, s, plan.seed, 0, plan.equity_games)
        choice = equity_models(rules, s, plan.equity_games, plan.seed, plan.equity, among=plan.rulesets,
                               traces=traces)
        return (choice, bonus_choices(traces), _comparison_records(plan, rules, traces, 0, plan.equity_games),
                _traced_sums(rules, s, choice, traces, plan.roll_block())[1])
    if stage == "ladder":
        x, y = (load_strategy(spec) for spec in args)
        (match,) = ladder(rules, [x, y], plan.ladder_games, plan.seed, workers=1)
        return match
    if stage == "luck":
        first, n, equity = args
        # the luck games follow the equity model's games: the model never saw them
        first += plan.equity_games
        try:
            traces = trace_games(rules, s, s, plan.seed, first, n)
        except AcesimError:
            # no game of this chunk could be traced: the finished ones were too long to keep
            records = play_games(rules, n, plan.seed, s, s, first_game=first)
            kept = records.iloc[: max(0, plan.traced_for_records() - first)]
            return None, None, int((records["unfinished"] == 0).sum()), kept if len(kept) else None, None
        rolls, games = trace_luck(rules, traces, s, s, equity.model)
        dice = _traced_sums(rules, s, equity, traces, plan.roll_block(), only_chosen=True)[1]
        return rolls, games, traces.too_long, _comparison_records(plan, rules, traces, first, n), dice
    if stage == "elo":
        (table,) = args
        return bradley_terry(table, bootstrap=200, seed=plan.seed)
    if stage == "bonus":
        (records,) = args
        return B.bonus_model(records)
    raise AssertionError(f"unknown report stage {stage!r}")


def _traced_sums(rules: Ruleset, strategy: str, equity: EquityChoice, traces: Traces, block: int,
                 only_chosen: bool = False) -> tuple[dict, dict]:
    """Each equity model's calibration sums over the positions of traced games and the sums of the roll values
    (``analyses.bonus.DiceSums``) by it, by model name (``only_chosen``: the chosen model's roll-value sums
    alone, and no calibration); ``block`` games a cluster of the roll values (``analyses.bonus.roll_block``)."""
    frame, boards = positions(traces), traces.rolls[:, K.T_BOARD :]
    predictions = model_predictions(equity, frame, boards)
    models = {"logistic": equity.logistic, "learned": equity.learned}
    wanted = [equity.chosen] if only_chosen else list(predictions)
    dice = roll_dice_sums(rules, traces, strategy, {name: models[name] for name in wanted}, predictions,
                          frame[list(LK.INPUTS)].to_numpy(), "learned" if equity.learned is not None else "logistic",
                          block)
    return ({} if only_chosen else held_out_sums(equity, frame, predictions)), dice


def _comparison_records(plan: ReportPlan, rules: Ruleset, traces: Traces, first: int, n: int) -> pd.DataFrame | None:
    """The records of those of traced games ``first .. first + n - 1`` that the comparison holds, or None."""
    n = min(n, plan.traced_for_records() - first)
    return _traced_records(plan, rules, traces, first, n) if n > 0 else None


def _traced_records(plan: ReportPlan, rules: Ruleset, traces: Traces, first: int, n: int) -> pd.DataFrame:
    """The records of games ``first .. first + n - 1``, from ``traces`` (those it left out played again)."""
    s = load_strategy(plan.player)
    return records_frame(traced_records(traces, rules, s, s, plan.seed, first, n), rules, s, s, plan.seed, first)


def _chunks(first: int, end: int, size: int) -> list[tuple[int, int]]:
    """``(first game, number of games)`` of each chunk of ``size`` games from ``first`` up to ``end``."""
    return [(g, min(size, end - g)) for g in range(first, end, size)]


def build(plan: ReportPlan, workers: int = 1, progress=None, scheduler: str | None = None) -> list[RuleSetResult]:
    """Run every rule set's games and analyses on ``workers`` processes (or Dask with ``scheduler``).

    The work is split into small tasks (chunks of the comparison and the luck
    games, the equity fit, each ladder pairing, the Elo fit, the bonus model)
    so that every worker stays busy and progress comes back as tasks finish:
    ``progress(games, note)`` is called in this process after each task with
    the number of games it played (0 for a fit) and what it was, e.g.
    ``"european: luck games"``; ``plan.games_to_play()`` is their total.  The
    results are the same whatever the split, the workers and the scheduler.
    """
    plan.check()
    check_workers(workers)
    results = [RuleSetResult(rules, player=plan.player) for rules in plan.rulesets]
    dask = scheduler is not None
    with backend_for(workers, scheduler) as backend:

        def run(tasks: list[tuple]) -> list:
            """``(stage, rule set index, args, games)`` tasks; their results in order."""

            def done(k: int, _) -> None:
                stage, i, _args, games = tasks[k]
                if progress:
                    progress(games, f"{plan.rulesets[i].name}: {STAGES[stage]}")

            return map_tasks(_task, [(stage, plan, i, *args) for stage, i, args, _ in tasks], backend, done)

        # The longest tasks go first, so that no worker is left with one at the end of a round.
        first: list[tuple] = []
        if plan.needs("bonus", "luck"):
            first += [("equity", i, (), plan.equity_games) for i in range(len(plan.rulesets))]
        if plan.needs("luck"):
            first += [("ladder", i, pair, 2 * plan.ladder_games)
                      for i, rules in enumerate(plan.rulesets) for pair in combinations(plan.ladder_for(rules), 2)]
        # With the equity models fitted first, the comparison's games are played after them, traced, and
        # their positions calibrate the models too: every game the logistic model was not fitted on but
        # the luck games, which need the model chosen by that calibration, is held out.
        traced = plan.traced_for_records()
        size = default_chunk_size(max(1, plan.games - traced), workers, dask)
        comparison = _chunks(traced, plan.games, size) if plan.needs("compare", "bonus") else []
        if not plan.needs("bonus", "luck"):  # no equity model: the comparison's games alone, untraced
            first += [("games", i, (g, n), n) for i in range(len(plan.rulesets)) for g, n in comparison]
        played = run(first)
        # the comparison's records, each in game order: those of the equity fit's and the luck games'
        # traces, then those of the games played for the comparison alone
        from_traces: dict[int, list] = {i: [] for i in range(len(plan.rulesets))}
        from_play: dict[int, list] = {}
        matches: dict[int, list] = {}
        models: dict[int, EquityChoice] = {}
        sums: dict[int, list] = {}  # each rule set's calibration sums, a dict (model name -> sums) a part
        rolled: dict[int, list] = {}  # and the sums of its roll values, likewise
        for (stage, i, _args, _), out in zip(first, played):
            r = results[i]
            if stage == "games":
                from_play.setdefault(i, []).append(out)
            elif stage == "ladder":
                matches.setdefault(i, []).append(out)
            elif stage == "equity":
                equity, r.choices, kept, dice = out
                from_traces[i].append(kept)
                rolled[i] = [dice]
                # the tasks need the models, not the fit's calibration
                models[i] = dataclasses.replace(equity, held_out={})
                sums[i] = [equity.held_out]
        second: list[tuple] = []
        for i, rules in enumerate(plan.rulesets):
            if i in matches:
                strategies = [load_strategy(x) for x in plan.ladder_for(rules)]
                results[i].ladder = ladder_table(matches[i], strategies)
                second.append(("elo", i, (results[i].ladder,), 0))
        second += [("held-out games", i, (g, n, models[i]), n) for i in models for g, n in comparison]
        for (stage, i, _args, _), out in zip(second, run(second)):
            if stage == "elo":
                results[i].elo = out
            else:
                records, part, choices, dice = out
                from_play.setdefault(i, []).append(records)
                if part is not None:
                    sums[i].append(part)
                    rolled[i].append(dice)
                    results[i].choices = pd.concat([results[i].choices, choices], ignore_index=True)
        for i, parts in sums.items():
            models[i] = dataclasses.replace(models[i], chosen=_calibrate(results[i], parts, plan.equity))
        # luck games are slow: small chunks, no Dask minimum
        third = [("luck", i, (g, n, models[i]), n) for i in models
                 for g, n in _chunks(0, plan.luck_games, default_chunk_size(plan.luck_games, workers))]
        for i, parts in _by_rule_set(third, run(third)).items():
            r = results[i]
            traced = [(rolls, games) for rolls, games, _, _, _ in parts if rolls is not None]
            if not traced:
                raise AcesimError("no finished game to trace")
            r.rolls = pd.concat([rolls for rolls, _ in traced], ignore_index=True)
            r.choices = pd.concat([r.choices, r.rolls[list(r.choices.columns)]], ignore_index=True)
            r.luck_games = pd.concat([games for _, games in traced], ignore_index=True)
            r.too_long = sum(too_long for _, _, too_long, _, _ in parts)
            r.luck = luck_summary(r.luck_games, r.rules.name, r.player, r.player)
            from_traces[i] += [kept for _, _, _, kept, _ in parts]
            rolled[i] += [dice for *_, dice in parts if dice is not None]
            # every traced game of the comparison, valued by the chosen model
            r.dice = B.merged_dice_sums([part[r.equity_model] for part in rolled[i]])
        for i in range(len(plan.rulesets)):
            frames = [f for f in from_traces[i] + from_play.get(i, []) if f is not None]
            if frames:
                results[i].records = pd.concat(frames, ignore_index=True)
        # each rule set's bonus model on a worker, beside the others
        if plan.needs("bonus"):
            fourth = [("bonus", i, (r.records,), 0) for i, r in enumerate(results)]
            for (_, i, _, _), out in zip(fourth, run(fourth)):
                results[i].bonus_model = out
    return results


def _by_rule_set(tasks: list[tuple], outs: list) -> dict[int, list]:
    """The tasks' results, those of each rule set in task order."""
    by: dict[int, list] = {}
    for (_stage, i, _args, _), out in zip(tasks, outs):
        by.setdefault(i, []).append(out)
    return by


def _calibrate(r: RuleSetResult, parts: list[dict], equity: str) -> str:
    """``r``'s calibration of each equity model over all its held-out games, from the parts' sums; the
    model ``equity`` asks for (under ``auto`` the one of the lower Brier score over them), which it returns."""
    calibrations = {name: calibration_from_sums(merged_sums([part[name] for part in parts])) for name in parts[0]}
    r.calibration = pd.concat(
        [c.bins.assign(model=name, brier=c.brier, reliability=c.reliability) for name, c in calibrations.items()]
    )
    r.equity_model = chosen_model(equity, calibrations)
    chosen = calibrations[r.equity_model]
    r.brier, r.brier_constant = chosen.brier, chosen.brier_constant
    r.equity_positions = chosen.positions
    r.equity_games = chosen.games
    return r.equity_model


# --- tables ---------------------------------------------------------------------------


def relative_skill(results: list[RuleSetResult]) -> pd.DataFrame:
    """The ladder's strongest player (highest Elo) vs random, and the share of the result skill can
    move (docs/statistics.md, "Relative skill").

    The upper bound is a player that wins every game against ``random`` (W = 1):
    the foresight player of docs/statistics.md is not built yet, so RS here is
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
        # the cube's tables, and what a game is worth among the paired figures, only where a
        # rule set has the cube: without it they say nothing (every game is worth its scoring)
        cube = any(r.rules.has_cube for r in results)
        if cube:
            out["cube"] = C.cube_table(frames)
        if len(results) > 1:
            metrics = C.PAIRED_METRICS + (C.CUBE_PAIRED_METRICS if cube else ())
            out["paired_differences"] = C.paired_differences(frames, results[0].rules.name, metrics)
        out["length_rolls"] = C.length_distribution(frames, "rolls")
        out["length_turns"] = C.length_distribution(frames, "turns")
    if plan.needs("bonus"):
        for column in B.DIFFERENCES:
            out[f"win_by_{column}"] = pd.concat(
                [B.win_by_difference(f, column).assign(rules=name) for name, f in frames.items()]
            )
        out["bonus_model"] = pd.concat([r.bonus_model.assign(rules=r.rules.name) for r in results])
        out["roll_values"] = pd.concat([B.roll_values(r.dice).assign(rules=r.rules.name) for r in results])
        out["chosen_by_phase"] = pd.concat(
            [B.chosen_doubles_by_phase(r.choices).assign(rules=r.rules.name) for r in results]
        )
    if plan.needs("bonus", "luck"):
        out["calibration"] = pd.concat([r.calibration.assign(rules=r.rules.name) for r in results])
        out["luck"] = pd.DataFrame(
            [dict(r.luck, equity_model=r.equity_model, brier=r.brier, brier_constant=r.brier_constant,
                  equity_positions=r.equity_positions, equity_games=r.equity_games,
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
        if "cube" in t:
            figs["cube_points"] = PC.cube_points_chart(t["cube"])
    if plan.needs("bonus"):
        for column in B.DIFFERENCES:
            per = {n: g.drop(columns="rules") for n, g in t[f"win_by_{column}"].groupby("rules", sort=False)}
            figs[f"win_by_{column}"] = PB.win_by_difference_chart({n: per[n] for n in names}, column)
        figs["roll_values"] = PL.roll_value_chart({r.rules.name: t["roll_values"][t["roll_values"]["rules"] == r.rules.name]
                                                   for r in results})
        phase = {r.rules.name: B.chosen_doubles_by_phase(r.choices) for r in results}
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
                                                 "paired_differences", "cube_points")),
    ("Value of doubles and 1-2 rolls", ("win_by_doubles_diff", "win_by_one_two_diff", "roll_values",
                                        "chosen_by_phase")),
    ("Luck factor", ("calibration", "luck", "elo")),
)


def summary_markdown(plan: ReportPlan, results: list[RuleSetResult], t: dict[str, pd.DataFrame]) -> list[str]:
    """What a terminal shows after an analysis: the findings in words, then the headline tables."""
    return [f"Played by {_player_words(plan)}.", "",
            *findings_markdown(t, [r.rules.name for r in results]), *_table_lines(plan, results, t)]


def _player_words(plan: ReportPlan) -> str:
    """The one player, under every rule set, and why when ``best`` chose it."""
    words = f"`{plan.player}` against itself under every rule set"
    if plan.strategy.strip() != BEST:
        return words
    if plan.player.startswith("learned:"):
        return f"{words} (`best`: the shipped network that plays them all)"
    return f"{words} (`best`: no shipped network plays them all)"


def _table_lines(plan: ReportPlan, results: list[RuleSetResult], t: dict[str, pd.DataFrame]) -> list[str]:
    """The headline tables, as Markdown lines."""
    lines: list[str] = []
    names = [r.rules.name for r in results]
    if plan.needs("compare"):
        lines += _comparison_lines(t, results)
    if plan.needs("bonus"):
        lines += _bonus_lines(plan, t, names)
    if plan.needs("luck"):
        lines += _luck_lines(plan, t, results)
    return lines


def _comparison_lines(t: dict[str, pd.DataFrame], results: list[RuleSetResult]) -> list[str]:
    rows = []
    for name, row in t["comparison"].set_index("rules").iterrows():
        def ci(column: str, fmt=plain, digits: int = 1) -> str:
            return fmt(row[column], row[f"{column}_low"], row[f"{column}_high"], digits)

        rows.append([name, f"{int(row['n']):,} ({int(row['finished']):,})", ci("first_mover_win_rate", percent),
                     ci("first_mover_points", signed, 3), ci("rolls_per_game"), ci("turns_per_game"),
                     ci("forfeit_share", percent, 2), ci("dice_lost_per_game", plain, 2),
                     ci("extra_rolls_per_game", plain, 2)])
    lines = ["First mover, game length and forfeits (finished games; 95% intervals):", "",
             *markdown_table(["rule set", "games (finished)", "first mover wins", "first mover's net points per game",
                              "rolls per game", "turns per game", "turns that forfeit a bonus", "dice lost per game",
                              "extra rolls per game"], rows), ""]
    if "cube" in t:
        rows = []
        for name, row in t["cube"].set_index("rules").iterrows():
            def ci(column: str, fmt=plain, digits: int = 2) -> str:
                return fmt(row[column], row[f"{column}_low"], row[f"{column}_high"], digits)

            rows.append([name, f"{int(row['finished']):,}", ci("dropped_share", percent, 1), ci("cube_value"),
                         ci("cube_offers_per_game"), ci("points_per_game")])
        lines += ["The doubling cube (finished games; 95% intervals):", "",
                  *markdown_table(["rule set", "games", "ended by a dropped double", "final cube value",
                                   "doubles offered per game", "points per game"], rows), ""]
    if "paired_differences" in t:
        d = t["paired_differences"]
        m = int(d["m"].iloc[0])
        rows = []
        for row in d.itertuples():
            star = " *" if row.notable else ""
            label, unit = C.METRIC_LABELS[row.metric]
            if row.metric == "first_mover_win":
                diff = f"{100 * row.diff:+.2f} pp"
                paired = f"[{100 * row.paired_low:+.2f}, {100 * row.paired_high:+.2f}]"
                unpaired = f"[{100 * row.unpaired_low:+.2f}, {100 * row.unpaired_high:+.2f}]"
            else:
                diff = f"{row.diff:+.3f} {unit}"
                paired = f"[{row.paired_low:+.3f}, {row.paired_high:+.3f}]"
                unpaired = f"[{row.unpaired_low:+.3f}, {row.unpaired_high:+.3f}]"
            rows.append([row.rules, label, f"{diff}{star}", paired, unpaired, f"{row.width_ratio:.2f}"])
        lines += [f"Paired differences against **{results[0].rules.name}** on common dice: each rule set minus "
                  f"{results[0].rules.name}, game by game ({m} intervals; * = excludes 0 after the Bonferroni "
                  "correction for all of them):", "",
                  *markdown_table(["rule set", "figure", "difference", "paired 95% CI", "unpaired 95% CI",
                                   "width ratio"], rows), ""]
    return lines


def _sampling_unit(plan: ReportPlan) -> str:
    block = plan.roll_block()
    return "the game" if block == 1 else f"blocks of {block} consecutive games"


def _bonus_lines(plan: ReportPlan, t: dict[str, pd.DataFrame], names: list[str]) -> list[str]:
    bm = t["bonus_model"]
    rows = []
    for name in names:
        part = bm[bm["rules"] == name].set_index(["model", "term"])

        def eff(model, term, unit):
            r = part.loc[(model, term)]
            return f"{r['effect']:+.2f}{unit} [{r['effect_ci95_low']:+.2f}, {r['effect_ci95_high']:+.2f}]"

        rows.append([name, f"{int(part['games'].iloc[0]):,}", eff("win", "doubles_diff", " pp"),
                     eff("win", "one_two_diff", " pp"), eff("points", "doubles_diff", ""),
                     eff("points", "one_two_diff", "")])
    lines = ["Value of the bonus rolls (logistic model of a side's win on its lead in doubles and in "
             "1-2s; average marginal effect of one more than the opponent, cluster-robust 95% CI over games):", "",
             *markdown_table(["rule set", "games", "one more double", "one more 1-2", "points per extra double",
                              "points per extra 1-2"], rows), ""]
    rv = t["roll_values"]
    special = ((1, 2), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6))
    rows = []
    for name in names:
        part = rv[rv["rules"] == name].set_index(["die_1", "die_2"])
        rows.append([name, f"{int(part['states'].iloc[0]):,} in {int(part['games'].iloc[0]):,} games",
                     *(plain(100 * part.loc[d, "value"], 100 * part.loc[d, "ci95_low"], 100 * part.loc[d, "ci95_high"])
                       for d in special)])
    lines += ["Value of the special rolls over the average roll (percentage points of win chance, 95% CI; "
              "over every roll of the traced games, from the value after the roll that came; "
              f"{_sampling_unit(plan)} as the sampling unit):", "",
              *markdown_table(["rule set", "positions", *(f"{a}-{b}" for a, b in special)], rows), ""]
    return lines


def _luck_lines(plan: ReportPlan, t: dict[str, pd.DataFrame], results: list[RuleSetResult]) -> list[str]:
    rows = [[row.rules, f"{row.games:,}",
             percent(row.luckier_side_won, row.luckier_side_won_low, row.luckier_side_won_high),
             percent(row.r2_result_on_net_luck, row.r2_low, row.r2_high), f"{100 * row.net_luck_sd:.1f} pp",
             f"{percent(row.luck_adjusted_a_mean, row.luck_adjusted_a_low, row.luck_adjusted_a_high)} "
             f"({100 * row.luck_adjusted_a_sd:.1f} pp)",
             f"{row.equity_model}: {row.brier:.4f} ({row.brier_constant:.4f})"]
            for row in t["luck"].itertuples()]
    lines = ["Luck (every roll of the luck games valued against all 21 rolls; 95% intervals):", "",
             *markdown_table(["rule set", "games", "luckier side won", "result variance explained by net luck (R²)",
                              "sd of net luck", "luck-adjusted win chance of seat A (sd)",
                              "equity model: Brier (constant)"], rows)]
    rs = t["relative_skill"].set_index("rules")
    rows = []
    for r in results:
        elo = r.elo.set_index("strategy")
        best = elo["elo"].idxmax()
        spread = f"{skill_spread(r.elo):.0f} [{elo.loc[best, 'ci95_low']:.0f}, {elo.loc[best, 'ci95_high']:.0f}]"
        s = rs.loc[r.rules.name]
        rows.append([r.rules.name, f"`{best}`", spread, percent(s["win_rate_vs_random"], s["win_low"], s["win_high"]),
                     f"{int(s['games']):,}", percent(s["relative_skill"], s["rs_low"], s["rs_high"])])
    lines += ["", "Skill (the ladder of strategies, each pairing played from both seats):", "",
              *markdown_table(["rule set", "strongest", "Elo(strongest) − Elo(random) [95% CI]",
                               "strongest beats random", "games", "relative skill RS"], rows), ""]
    return lines


def _knob_table(t: dict[str, pd.DataFrame]) -> list[str]:
    return markdown_table(list(t["rules"].columns), t["rules"].itertuples(index=False))


GLOSSARY = (
    ("first mover", "the side that plays the first roll of the game, after the opening roll decides who starts"),
    ("seat A, seat B", "the two sides of a game by where they sit, not by who moved first: seat A plays "
                       "the strategy under study, seat B its opponent (here both play the same strategy)"),
    ("common dice", "game i is played with the same dice under every rule set, so the rule sets are compared "
                    "on the same luck and their differences are measured game by game (paired)"),
    ("1-2 (acey-deucey)", "the roll 1-2: under most Acey-Deucey rules the mover plays it, then chooses any "
                          "double to play, then rolls again"),
    ("forfeit", "a bonus (the chosen double, the complement, the extra roll) lost because the mover could not "
                "use every die of the roll that earned it"),
    ("win chance, equity", "the probability that a side wins from a position, as the equity model estimates it"),
    ("luck", "how much a roll changed the mover's win chance compared with the average roll from the same "
             "position; net luck is one side's luck over the game minus the other's"),
    ("R²", "the share of the variance of the game result that net luck accounts for"),
    ("Elo", "a rating of playing strength: 400 Elo more means winning about 10 games for every 1 lost; "
            "random play is 0"),
    ("relative skill RS", "how far the strongest player's result against random is from a coin flip towards "
                          "winning every game (0%: skill moves nothing, 100%: skill decides everything)"),
    ("95% interval", "the range of values consistent with the games played: a study repeated many times would "
                     "cover the true value in 95 of 100 runs. Written as value [low, high]"),
    ("pp (percentage points)", "the difference of two percentages: 52% is 2 pp above 50%"),
    ("n", "the sample size a figure rests on: games, or positions valued"),
)


def _glossary_lines() -> list[str]:
    return [f"* **{term}**: {meaning}." for term, meaning in GLOSSARY]


def _choices_counted(plan: ReportPlan) -> str:
    """Which games the doubles chosen after a 1-2 are counted over (``build``)."""
    if plan.needs("compare", "bonus") and plan.games > plan.traced_for_records():
        return "every game of the comparison"
    return "these and the equity model's games"


def _method_lines(plan: ReportPlan) -> list[str]:
    """How the figures were made: the command, the sample sizes, the intervals and the formulas."""
    return [
        f"Reproduce with: `{plan.command}`" if plan.command else "",
        "",
        f"Sizes per rule set: {plan.games:,} games for the comparison and the bonus-roll figures "
        f"(common random numbers: game i has the same dice stream under every rule set); "
        f"{plan.equity_games:,} games to fit the equity model (on their first 80%; both equity models are "
        f"calibrated on all the comparison's other games, the luck games apart); "
        f"{plan.luck_games:,} further games whose every roll is valued against all 21 rolls (the double "
        f"chosen after a 1-2, by phase, is counted over {_choices_counted(plan)}; the value of each roll "
        f"is estimated over every roll of {_choices_counted(plan)}, from the value after the roll that came "
        "and the covariates of every position: docs/statistics.md); "
        f"{plan.ladder_games:,} games per pairing and seat order in the skill ladder of "
        f"{', '.join(plan.ladder_strategies)}.",
        "",
        "Every figure carries its sample size and a 95% interval: Wilson for proportions, "
        f"mean ± {Z95:.2f} sd/√n for means, paired per-game differences for rule-set differences, "
        "cluster-robust standard errors over games (sandwich, delta method) for the bonus model's "
        "coefficients and effects, bootstrap over games for Elo ratings; a share or mean over the units of games "
        "(turns, positions, the doubles chosen) takes the game as the sampling unit, since the units of one game "
        "are not independent. Rates and win chances are in percent, their "
        "differences in percentage points (pp). The statistics are defined in acesim's `docs/statistics.md`, "
        "the rules in `docs/rules.md`.",
        "",
        *[f"* `{f}`" for f in FORMULAS],
        "* `V(s)`: the win probability of the side on roll (under every scoring rule), from one of two "
        "equity models: a logistic model on the features of both sides and both pip counts, fitted here, "
        "or the learned network shipped for the rule set (TD(λ) self-play, `acesim train`); both are "
        f"scored on the same held-out games (the comparison's games the logistic model was not fitted on, the luck games apart) and the report uses {'the one of the lower Brier score over them (both shown in the calibration chart)' if plan.equity == 'auto' else '`' + plan.equity + '`'}. `W(s, r)`: the value "
        "after the strategy plays roll r in s, its bonus included (1-2: the chosen double; roll-die: "
        "the six dice averaged), then V if the mover rolls again, else 1 − V of the opponent's view.",
        "* Relative skill `RS = (W(strongest vs random) − 0.5) / (W_bound − 0.5)`, the strongest player being "
        "the ladder's highest Elo (docs/statistics.md writes `expert`, the strongest player it knew), with the "
        "bound `W_bound = 1` (a player that wins every game): the foresight player is not built, so this RS is "
        "a lower bound.",
        "* Skill ladder: Bradley–Terry maximum likelihood, Elo = 400·log10 odds, random = 0, bootstrap "
        "95% intervals (200 resamples).",
        "",
    ]


def _text(plan: ReportPlan, results: list[RuleSetResult], t: dict[str, pd.DataFrame],
          charts: set[str]) -> list[str]:
    """The report as Markdown lines: findings in words, charts, tables, then terms and method.

    Charts are referenced as ``figures/NAME.png``.
    """
    names = [r.rules.name for r in results]
    lines = [
        f"# acesim report: {', '.join(names)}",
        "",
        f"acesim {__version__}, rules version {RULES_VERSION}, seed {plan.seed}; played by "
        f"{_player_words(plan)}. "
        "Terms are explained in the glossary and the method at the end.",
        "",
        "## Findings",
        "",
        *findings_markdown(t, names),
    ]
    for title, keys in SECTIONS:
        present = [key for key in keys if key in charts]
        if present:
            lines += [f"## {title}", ""]
        for key in present:
            lines += [f"![{FIGURE_CAPTIONS[key]}](figures/{key}.png)", ""]
    lines += [
        "## Tables", "",
        *_table_lines(plan, results, t),
        "## Rule sets", "",
        *_knob_table(t), "",
        "## Glossary", "",
        *_glossary_lines(), "",
        "## How the figures were made", "",
        *_method_lines(plan),
        "## Files", "",
        "Every table is also in `tables/` as CSV (6 significant digits):", "",
        *[f"* `tables/{name}.csv`" for name in t],
    ]
    return lines


FIGURE_CAPTIONS = {
    "first_mover": "First-mover win rate per rule set",
    "points": "First mover's net points per game",
    "length_rolls": "Game length in rolls",
    "length_turns": "Game length in turns",
    "paired_differences": "Paired differences between rule sets",
    "cube_points": "Points per game with the doubling cube",
    "win_by_doubles_diff": "Win rate by lead in doubles",
    "win_by_one_two_diff": "Win rate by lead in 1-2 rolls",
    "roll_values": "Equity value of each roll",
    "chosen_by_phase": "Double chosen after a 1-2 by game phase",
    "calibration": "Equity model calibration",
    "luck": "Win rate by net luck",
    "elo": "Skill ladder (Elo)",
}


def _is_report(out: Path) -> bool:
    return (out / REPORT_MARK).exists()


def check_output(out: Path, force: bool) -> None:
    """Refuse an existing output unless ``force`` and it is an acesim report; check the parent."""
    io.check_output_folder(out, force, "report", _is_report)


def write(plan: ReportPlan, results: list[RuleSetResult], out: Path, force: bool = False,
          t: dict[str, pd.DataFrame] | None = None) -> Path:
    """Write the report into ``out`` (replaced only with ``force``); returns the HTML path.
    ``t``: its tables, when the caller has them already."""
    check_output(out, force)
    t = tables(plan, results) if t is None else t
    figs = figures(plan, results, t)
    with io.building_folder(out) as staging:
        images = stage_charts_and_tables(staging, figs, t)
        lines = _text(plan, results, t, set(images))
        (staging / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (staging / "report.html").write_text(markdown_to_html(lines, images), encoding="utf-8")
        meta = {
            "acesim_version": __version__,
            "rules_version": RULES_VERSION,
            "command": plan.command,
            "seed": plan.seed,
            "strategy": plan.strategy,
            "player": plan.player,
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
        }
        (staging / REPORT_MARK).write_text(json.dumps(meta, indent=2, default=str) + "\n")
    return out / "report.html"


@dataclass
class Analysis:
    """A finished run of ``acesim compare``, ``bonus``, ``luck`` or ``report``."""

    results: list[RuleSetResult]
    tables: dict[str, pd.DataFrame]
    summary: list[str]  # the Markdown the command shows on the terminal
    page: Path | None  # the HTML report written, when there is an output folder


def run(plan: ReportPlan, workers: int = 1, out: Path | None = None, force: bool = False,
        scheduler: str | None = None, progress=None) -> Analysis:
    """Play and analyse ``plan``; with ``out``, write its report there (replaced only with ``force``),
    the folder locked against a second run while this one lasts."""
    if out is not None:
        check_output(out, force)
    with io.output_lock(out):
        results = build(plan, workers, progress, scheduler)
        t = tables(plan, results)
        page = write(plan, results, out, force, t) if out is not None else None
    return Analysis(results, t, summary_markdown(plan, results, t), page)


def report_sizes_from_numbers(games: int) -> dict:
    """Default sizes of the other parts for a comparison of ``games`` games per rule set."""
    return {"equity_games": max(10, min(2_000, games // 5)), "luck_games": max(3, min(300, games // 30)),
            "ladder_games": max(1, min(200, games // 50))}

