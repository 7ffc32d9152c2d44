"""The ``acesim`` command line: parse options, call one library function, print.

Every ``AcesimError`` becomes one line on stderr and exit status 1; usage
errors (a missing or malformed option) are one line and exit status 2.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from acesim.common import files as aio
from acesim.common.errors import AcesimError
from acesim.common.limits import MAX_CHUNK_SIZE, MAX_GAMES, MAX_SEED, MAX_TURN_CAP, TRAIN_WIDTH
from acesim.common.tasks import check_workers, default_workers
from acesim.common.terminal import WIDTH, markdown_blocks, markdown_table, rich_tables
from acesim.runs.options import SIMULATE_DEFAULTS, AnalysisOptions, ExploreOptions, SimulateOptions

# Plain help, not rich's: rich reads "[european]" or "[default: 42]" in a help text as a
# markup tag and drops it, and every app and sub-app must say so (each decides for its commands).
app = typer.Typer(
    help="Monte Carlo statistics for Acey-Deucey and its house rules.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # help laid out for up to 100 columns, like the tables: click's 80 cut the command summaries short
    context_settings={"max_content_width": 100},
)
rules_app = typer.Typer(help="List and inspect rule sets.", no_args_is_help=True, rich_markup_mode=None)
bench_app = typer.Typer(help="Measure the engine's speed.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(rules_app, name="rules")
app.add_typer(bench_app, name="bench")


def _print_version(value: bool) -> None:
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        typer.echo(f"acesim {version('acesim')}")
    except PackageNotFoundError:
        typer.echo("acesim: error: acesim is not installed (no package metadata); pip install -e .", err=True)
        raise typer.Exit(1) from None
    raise typer.Exit()


@app.callback()
def _acesim(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True, help="Print acesim's version and exit.")] = False,
) -> None:
    # the group's own options; its help is the Typer's
    pass


# Help texts that name the engine's own lists (the strategies, the default sizes) hold a
# {late:KEY} placeholder, filled in only when the help is shown: reading those lists imports
# Numba or pandas, most of a second, too slow for every run, --version and tab completion.
STRATEGIES = "{late:strategies}"
_LATE = re.compile(r"\{late:(\w+)\}")
ANALYSIS_GAMES = AnalysisOptions.games  # --games of compare, bonus, luck and report


def _late_help(key: str) -> str:
    if key == "strategies":
        from acesim.engine.model_files import model_dir
        from acesim.engine.strategies import strategy_names

        shipped = ", ".join(sorted(p.stem for p in model_dir().glob("*.npz"))) or "none"
        return (f"Strategies: {', '.join(strategy_names())}; learned:NAME of a shipped model ({shipped}) or "
                f"learned:PATH.npz; best: one shipped learned model that plays every rule set at hand, else expert; NAME@full searches "
                f"every play, NAME@beam=K a beam of K positions, NAME@rank=K ranks the doubles after a 1-2 by "
                f"beams of K (both: NAME@beam=K@rank=K); a learned player's beam over more than four dice ranks "
                f"by the network's tangent, NAME@tangent every beam, NAME@heuristic none (the search before "
                f"2026-12-05); learned:NAME@ply=2 looks one roll deeper at the best 6 plays within 0.25 of the "
                f"best (@keep=K, @margin=M set them), several times slower.")
    from acesim.runs.report import report_sizes_from_numbers

    return f"{report_sizes_from_numbers(ANALYSIS_GAMES)[key]:,}"


class LateHelp(typer.core.TyperCommand):
    """A command whose option help texts may hold {late:KEY} placeholders (``_late_help``)."""

    def format_help(self, ctx, formatter) -> None:
        for param in self.params:
            if param.help:
                param.help = _LATE.sub(lambda m: _late_help(m.group(1)), param.help)
        super().format_help(ctx, formatter)


# Tables are laid out for 100 columns, or the terminal's width if it is wider (acesim.common.terminal);
# piped output would otherwise be cut to 80 columns.
console = Console(highlight=False, width=max(shutil.get_terminal_size().columns, WIDTH))

POSITION_HELP = "'start', a position ID, inline JSON, a .json file, a GNU ID or an XGID."


def _check_scheduler(scheduler: str | None) -> None:
    """Refuse a bad --scheduler before any work (Dask is imported only when one is given)."""
    if scheduler is not None:
        from acesim.common.cluster import check_scheduler

        check_scheduler(scheduler)


RulesOption = Annotated[
    str, typer.Option("--rules", "-r", help="Preset name or a .toml/.json rules file.")
]
RuleOverride = Annotated[
    Optional[list[str]],
    typer.Option("--rule", metavar="KNOB=VALUE", help="Override one knob: knob=value (repeatable)."),
]
PositionOption = Annotated[str, typer.Option("--position", "-p", help=POSITION_HELP)]


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Turn AcesimError into a one-line message and a non-zero exit; Ctrl-C into exit 130."""
    try:
        yield
    except AcesimError as exc:
        typer.echo(f"acesim: error: {exc}", err=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        typer.echo("acesim: interrupted", err=True)
        raise typer.Exit(130) from None


# --- rules ------------------------------------------------------------------


@rules_app.command("list")
def rules_list() -> None:
    """The rule presets and where each comes from."""
    from acesim.engine.rules import PRESET_SOURCES, PRESETS

    from acesim.engine.rules import KNOBS

    rows = [[knob, *(_show_value(getattr(r, knob)) for r in PRESETS.values())] for knob in KNOBS]
    for table in rich_tables(["knob", *PRESETS], rows, console.width, keys=1,
                             title="Rule presets (acesim rules show NAME for one in detail)"):
        console.print(table)
    for name, source in PRESET_SOURCES.items():
        console.print(f"{name}: {source}")


@rules_app.command("show")
def rules_show(
    name: Annotated[str, typer.Argument(help="Preset name or a .toml/.json rules file.")],
    rule: RuleOverride = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the knobs as JSON.")] = False,
) -> None:
    """Every knob of a rule set, with the preset it starts from."""
    from acesim.engine.rules import KNOBS, RULES_VERSION, allowed_values, load_ruleset

    with one_line_errors():
        ruleset = load_ruleset(name, rule or ())
    if as_json:
        typer.echo(json.dumps({"name": ruleset.name, "rules_version": RULES_VERSION, **ruleset.knobs()}, indent=2))
        return
    base = ruleset.base_preset()
    changed = ruleset.changed_knobs()
    header = ["knob", "value", "allowed"] + ([f"{ruleset.base} preset"] if base is not None else [])
    rows = []
    for knob in KNOBS:
        value = _show_value(getattr(ruleset, knob))
        row = [knob, value, allowed_values(knob)]
        if base is not None:
            preset_value = _show_value(getattr(base, knob))
            row.append(f"{preset_value} (changed)" if knob in changed else preset_value)
        rows.append(row)
    # the allowed values are a list in words: they wrap, the knob and its values do not
    for table in rich_tables(header, rows, console.width, keys=1, text={2},
                             title=f"Rule set {ruleset.name} (rules version {RULES_VERSION})"):
        console.print(table)
    for note in ruleset.source_notes():
        console.print(note)


def _show_value(value: str | bool | int) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


# --- positions ----------------------------------------------------------------


@app.command("show")
def show(
    position: Annotated[
        str, typer.Argument(help=POSITION_HELP)
    ],
    rules: RulesOption = "european",
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON form.")] = False,
) -> None:
    """Draw a position as a text board (X is the side on roll)."""
    from acesim.engine.position import parse_position
    from acesim.engine.rules import load_ruleset

    with one_line_errors():
        ruleset = load_ruleset(rules)
        pos = parse_position(position, ruleset.start)
    ids = {"id": pos.to_id(), **pos.foreign_ids()}
    if as_json:
        typer.echo(json.dumps({**ids, **pos.to_json()}))
    else:
        typer.echo(pos.render())
        typer.echo("  ".join(f"{name}: {value}" for name, value in ids.items()))


# --- legal plays --------------------------------------------------------------


@app.command("moves")
def moves(
    rules: RulesOption = "european",
    rule: RuleOverride = None,
    position: Annotated[
        Optional[str],
        typer.Option("--position", "-p", help=POSITION_HELP),
    ] = None,
    dice: Annotated[
        Optional[str], typer.Option("--dice", "-d", help="Two dice, e.g. 6-3; d-d is the doubles segment.")
    ] = None,
    bonus: Annotated[
        bool,
        typer.Option("--bonus", help="The double d-d is the one played after a 1-2, not a rolled one "
                     "(they differ under doubles=complement-after-1-2)."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Answer in the batch JSON form.")] = False,
    batch: Annotated[
        Optional[Path], typer.Option("--batch", help="JSON-lines file of queries ('-' for stdin).")
    ] = None,
    out: Annotated[
        Optional[Path], typer.Option("--out", "-o", help="Write batch answers here instead of stdout.")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out file.")] = False,
) -> None:
    """Every legal play of a roll, or answers to a batch of queries (see docs/batch.md)."""
    if batch is not None:
        with one_line_errors():
            if position is not None or dice is not None or bonus:
                raise AcesimError(
                    "--batch takes its positions and dice from the file; drop --position/--dice/--bonus"
                )
            if out is not None:
                # before the answers: never a device, FIFO or symlink, never the batch itself
                aio.check_output_file(out, force, [batch])
            from acesim.engine.moves import answer_batch_file

            failed = answer_batch_file(batch, out)
        if failed:
            typer.echo(f"acesim: error: {failed} batch line(s) could not be answered", err=True)
            raise typer.Exit(1)
        return

    from acesim.engine.moves import legal_plays, parse_dice, result_to_json
    from acesim.engine.position import parse_position
    from acesim.engine.rules import load_ruleset

    with one_line_errors():
        if position is None or dice is None:
            raise AcesimError("moves needs --position and --dice (or --batch FILE)")
        if out is not None or force:
            raise AcesimError("--out and --force go with --batch")
        ruleset = load_ruleset(rules, rule or ())
        pos = parse_position(position, ruleset.start)
        roll = parse_dice(dice)
        result = legal_plays(ruleset, pos, roll, bonus)
    if as_json:
        typer.echo(json.dumps(result_to_json(result)))
        return
    status = "complete" if result.complete else "not complete"
    typer.echo(
        f"Rules {ruleset.name}; dice {roll[0]}-{roll[1]}; segment "
        f"{' '.join(map(str, result.segment))}; dice used {result.dice_used} of "
        f"{len(result.segment)} ({status}); {len(result.plays)} legal play(s)"
    )
    width = len(str(len(result.plays)))
    for i, play in enumerate(result.plays, 1):
        typer.echo(f"{i:>{width}}  {play.position.to_id()}  {play.notation()}")


@app.command("hint", cls=LateHelp)
def hint(
    position: PositionOption,
    dice: Annotated[str, typer.Option("--dice", "-d", help="The roll, e.g. 6-3 or 1-2.")],
    rules: RulesOption = "european",
    rule: RuleOverride = None,
    strategy: Annotated[str, typer.Option(
        "--strategy", help=f"The evaluating strategy. {STRATEGIES}")
    ] = "best",
    ply: Annotated[Optional[int], typer.Option(
        "--ply", min=0, max=3, help="0: heuristic score; 1: the strategy's evaluation; 2: one roll deeper "
                                    "(under a second at the worst); 3: the best few of ply 2 two rolls deeper "
                                    "(a few seconds at the worst).  [default: 2 with a network, else 1]")] = None,
    top: Annotated[int, typer.Option("--top", min=0, max=10**6, help="Plays shown per stage; 0 for all.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: the attributes and one object per play.")] = False,
) -> None:
    """Rank every legal play of a roll. By a strategy's evaluation; after a 1-2, the six doubles too."""
    from acesim.analyses.hint import format_hint, hint_json, hint as rank_plays
    from acesim.engine.position import parse_position
    from acesim.engine.rules import load_ruleset

    with one_line_errors():
        ruleset = load_ruleset(rules, rule or ())
        pos = parse_position(position, ruleset.start)
        frame = rank_plays(ruleset, pos, dice, strategy, ply, top or None)
    _cubeless_note(ruleset, "hint ranks checker plays by cubeless equity", " (acesim cube gives the cube's decision)")
    _unreached_note(ruleset, pos, frame.attrs["strategy"])
    if as_json:
        typer.echo(json.dumps(hint_json(frame)))
    else:
        typer.echo(format_hint(frame, ruleset, console.width))


@app.command("cube", cls=LateHelp)
def cube(
    position: PositionOption,
    rules: RulesOption = "european",
    rule: RuleOverride = None,
    strategy: Annotated[str, typer.Option(
        "--strategy", help="Whose cube decisions: a learned strategy decides by its own network, any other "
                           f"by the shipped network that plays the rules, as in games. {STRATEGIES}")
    ] = "best",
    owner: Annotated[str, typer.Option(
        "--owner", help="Who holds the cube: centre or mover (the side on roll redoubles).")] = "centre",
    cube_value: Annotated[int, typer.Option(
        "--cube-value", min=1, max=64, help="The cube's value (1 when centred).")] = 1,
    ply: Annotated[Optional[int], typer.Option(
        "--ply", min=1, max=2, help="1: the decision the games make, by the network's win probability; 2: the "
                                    "win probability one roll deeper (a fraction of a second).  "
                                    "[default: 2 with a network, else 1]")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: every number of the decision.")] = False,
) -> None:
    """Double or not, take or pass: the cube's decision before the side on roll rolls, under cube=money."""
    from acesim.analyses.cube_action import cube_action, cube_action_json, format_cube_action
    from acesim.engine.position import parse_position
    from acesim.engine.rules import load_ruleset

    with one_line_errors():
        ruleset = load_ruleset(rules, rule or ())
        pos = parse_position(position, ruleset.start)
        decision = cube_action(ruleset, pos, strategy, cube_value, owner, ply)
    _unreached_note(ruleset, pos, decision.strategy)
    if as_json:
        typer.echo(json.dumps(cube_action_json(decision)))
    else:
        typer.echo(format_cube_action(decision))


def _unreached_note(ruleset, position, strategy: str) -> None:
    """Say on stderr when a network is asked about a position its rules' games never reach."""
    from acesim.engine.position import unreached_by

    why = unreached_by(position, ruleset.start)
    if why is not None and strategy.startswith("learned:"):
        typer.echo(f"note: {strategy} learned from {ruleset.name} games, which never reach this position "
                   f"({why}): its values here are extrapolations", err=True)


def _cubeless_note(ruleset, what: str, more: str = "") -> None:
    """Say on stderr, so that JSON output stays clean, that the cube is left out (docs/rules.md section 6)."""
    if ruleset.has_cube:
        typer.echo(f"note: {what}; cube={ruleset.cube} does not enter it{more}", err=True)


# --- games ------------------------------------------------------------------------

SeedOption = Annotated[
    int, typer.Option("--seed", min=0, max=MAX_SEED, help="Root seed; the same seed gives the same records.")
]
WorkersOption = Annotated[
    Optional[int], typer.Option("--workers", "-w", help="Worker processes.  [default: every core]")
]
ProgressOption = Annotated[
    bool, typer.Option("--progress/--no-progress", help="Show a progress bar with games/s and ETA (on a terminal only).")
]


def _worker_count(workers: int | None) -> int:
    """``--workers``, every core when not given; a one-line error outside 1..MAX_WORKERS."""
    return check_workers(workers if workers is not None else default_workers())


def _rule_sets(spec: str, overrides: list[str] | None):
    from acesim.engine.rules import load_rulesets

    return load_rulesets(spec, overrides or ())


def _rules_files(spec: str) -> list[Path]:
    """The files among the comma-separated names of ``--rules`` (every name that is not a preset)."""
    from acesim.engine.rules import PRESETS

    return [Path(n.strip()) for n in spec.split(",") if n.strip() and n.strip() not in PRESETS]


@contextmanager
def _progress_bar(total: int, label: str, enabled: bool, unit: str = "games"):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    stderr = Console(stderr=True)
    # a bar is for a person watching: in a log or a pipe it would be one more line before the result or an error
    if not enabled or not stderr.is_terminal:
        yield None
        return

    class GamesPerSecond(TextColumn):
        def __init__(self):
            super().__init__("")

        def render(self, task):
            speed = task.finished_speed or task.speed
            return TextColumn("{task.description}").render(task).__class__(
                f"{speed:,.0f} {unit}/s" if speed else f"… {unit}/s"
            )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        GamesPerSecond(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=stderr, transient=False) as bar:
        task = bar.add_task(label, total=total)

        def advance(n: int, note: str | None = None) -> None:
            bar.advance(task, n)
            if note is not None:
                bar.update(task, description=f"{label} {note}")

        yield advance


def _summary_table(summaries: list[dict], width: int | None = None) -> list[Table]:
    """The figures of every rule set side by side, each rule set's value and n in one table
    (as many tables as ``width``, the console's by default, needs); simulate says the players
    and the seed before its games."""
    from acesim.analyses.summary import PERCENT_FIGURES, has_cube, table_rows

    header = ["figure"]
    for doc in summaries:
        header += [f"{doc['rules_name']}: value [95% CI]", "n"]
    # side by side, every rule set shows the cube's rows when one of them has the cube
    cube = any(has_cube(doc) for doc in summaries)
    per_rules = [table_rows(doc, cube) for doc in summaries]
    rows = []
    for i, row in enumerate(per_rules[0]):
        cells = [row["metric"]]
        for rules_rows in per_rules:
            r = rules_rows[i]
            if r["value"] is None:
                cells += ["—", "0"]
            else:
                fmt = _percent if row["metric"] in PERCENT_FIGURES else _fmt
                cells += [f"{fmt(r['value'])} [{fmt(r['ci95_low'])}, {fmt(r['ci95_high'])}]", f"{r['n']:,} {r['n_of']}"]
        rows.append(cells)
    for doc in summaries:
        if doc["unfinished"]:
            console.print(f"{doc['rules_name']}: {doc['unfinished']} game(s) reached the turn cap and are left out")
    return rich_tables(header, rows, width or console.width, keys=1,
                       right=set(range(2, len(header), 2)), units=[[k, k + 1] for k in range(1, len(header), 2)])


def _fmt(x) -> str:
    if x is None:
        return "—"
    return f"{x:.4f}" if abs(x) < 10 else f"{x:.2f}"


def _percent(x) -> str:
    return "—" if x is None else f"{100 * x:.2f}%"


SchedulerOption = Annotated[
    Optional[str],
    typer.Option("--scheduler", help="Run the chunks on Dask: tcp://HOST:PORT (a running scheduler) or local:N."),
]


def _out_target(out: str | None) -> tuple[Path | None, bool]:
    """``--out`` as a folder, and whether it names storage every worker shares (a file:// URL)."""
    if out is None:
        return None, False
    if out.startswith("file://"):
        return Path(out[len("file://"):]), True
    if "://" in out:
        raise AcesimError(f"--out {out!r}: only local folders and file:// URLs (a filesystem all workers mount)")
    return Path(out), False


@app.command("simulate", cls=LateHelp)
def simulate(
    rules: Annotated[
        Optional[str],
        typer.Option("--rules", "-r", help=f"Preset names or rules files, comma-separated.  [default: {SIMULATE_DEFAULTS.rules}]"),
    ] = None,
    rule: RuleOverride = None,
    games: Annotated[
        Optional[int], typer.Option("--games", "-n", min=1, max=MAX_GAMES, help=f"Games per rule set.  [default: {SIMULATE_DEFAULTS.games}]")
    ] = None,
    strategy: Annotated[Optional[str], typer.Option(
        "--strategy", help=f"Seat A's strategy. {STRATEGIES}  [default: {SIMULATE_DEFAULTS.strategy}]")] = None,
    vs: Annotated[Optional[str], typer.Option(
        "--vs", help=f"Seat B's strategy, one of --strategy's.  [default: {SIMULATE_DEFAULTS.vs}]")] = None,
    strategies_file: Annotated[
        Optional[Path], typer.Option("--strategies-file", help="Weights file instead of the built-in one.")
    ] = None,
    seed: Annotated[
        Optional[int],
        typer.Option("--seed", min=0, max=MAX_SEED,
                     help=f"Root seed; the same seed gives the same records.  [default: {SIMULATE_DEFAULTS.seed}]"),
    ] = None,
    workers: WorkersOption = None,
    chunk_size: Annotated[
        Optional[int],
        typer.Option("--chunk-size", min=1, max=MAX_CHUNK_SIZE, help="Games per chunk (records do not depend on it)."),
    ] = None,
    turn_cap: Annotated[
        Optional[int],
        typer.Option("--turn-cap", min=1, max=MAX_TURN_CAP,
                     help=f"Turns after which a game ends unfinished.  [default: {SIMULATE_DEFAULTS.turn_cap}]"),
    ] = None,
    out: Annotated[
        Optional[str],
        typer.Option("--out", "-o", help="Folder (or file:// URL all Dask workers reach) for records and summaries."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing output folder.")] = False,
    resume: Annotated[
        Optional[Path], typer.Option("--resume", help="Finish the interrupted run in this folder (its plan.json).")
    ] = None,
    scheduler: SchedulerOption = None,
    progress: ProgressOption = True,
) -> None:
    """Play many games and summarise them (records as chunked Parquet under --out)."""
    from acesim.runs import simulate as sim

    with one_line_errors():
        n_workers = _worker_count(workers)
        _check_scheduler(scheduler)
        if resume is not None and (out is not None or force):
            raise AcesimError("--resume continues the run in its own folder; drop --out and --force")
        options = SimulateOptions(rules, tuple(rule or ()), strategy, vs, strategies_file, games, seed, chunk_size,
                                  turn_cap)
        target, shared = (resume, False) if resume is not None else _out_target(out)
        plan = sim.plan_for(options, n_workers, scheduler is not None, resume)
        if target is not None and resume is None:
            lock = sim.prepare_output(target, force)  # noqa: F841 (held for the run's life)
        # the first line at once: the games may take a while
        console.print(f"{plan.strategy_a.spec} (seat A) vs {plan.strategy_b.spec} (seat B), seed {plan.seed}")
        with _progress_bar(plan.games * len(plan.rules), "games", progress) as advance:
            summaries = sim.run(plan, target, n_workers, advance, resume=resume is not None,
                                scheduler=scheduler, shared_out=shared)
    for table in _summary_table(summaries):
        console.print(table)
    if target is not None:
        console.print(f"records and summaries in {target}")


UNTIL_CI_CAP = 100 * 1296  # trials --until-ci may play unless --max-trials says otherwise


@app.command("rollout", cls=LateHelp)
def rollout(
    position: PositionOption,
    rules: RulesOption = "european",
    rule: RuleOverride = None,
    dice: Annotated[Optional[str], typer.Option(
        "--dice", "-d", help="Roll out the best plays of this roll (after a 1-2: each double) instead.")] = None,
    candidates: Annotated[int, typer.Option(
        "--candidates", min=1, max=64, help="With --dice, the most plays rolled out after the move filter: the "
                                            "best within --margin of the best at ply 2 (ply 1 for a heuristic).")
    ] = 8,
    margin: Annotated[float, typer.Option(
        "--margin", help="With --dice, the equity behind the best within which a play is rolled out.")] = 0.10,
    filter_count: Annotated[int, typer.Option(
        "--filter-count", help="With --dice and a network, the most plays valued at ply 2: the "
                                                "best within --filter-margin of the best at ply 1.")] = 16,
    filter_margin: Annotated[float, typer.Option(
        "--filter-margin", help="With --dice and a network, the equity behind the best at ply 1 within which "
                                "a play goes on to ply 2.")] = 0.16,
    play: Annotated[Optional[list[str]], typer.Option(
        "--play", help="With --dice, roll out this play too, whatever the filter says, e.g. '13/11 6/5' "
                       "(repeatable).")] = None,
    games: Annotated[Optional[int], typer.Option(
        "--games", "-n", min=1, max=MAX_GAMES, help="Trials per candidate.  [default: 1296]")] = None,
    strategy: Annotated[str, typer.Option(
        "--strategy", help=f"Both sides' strategy. {STRATEGIES}")
    ] = "best",
    truncate: Annotated[int, typer.Option(
        "--truncate", min=0, max=MAX_TURN_CAP, help="Stop each trial after this many rolls (0: play to the end).")] = 0,
    until_ci: Annotated[Optional[float], typer.Option(
        "--until-ci", help="Play batches of 1,296 trials until every points interval is this narrow (half-width) "
                           "or the best is separated, at most --max-trials.")
    ] = None,
    max_trials: Annotated[Optional[int], typer.Option(
        "--max-trials", min=1, max=MAX_GAMES, help=f"With --until-ci, the most trials per candidate.  "
                                                   f"[default: {UNTIL_CI_CAP:,}]")] = None,
    reduce: Annotated[Optional[bool], typer.Option(
        "--reduce/--no-reduce", help="Subtract each roll's luck.  [default: on for learned strategies]")] = None,
    luck_plays: Annotated[str, typer.Option(
        "--luck-plays", metavar="heuristic|player",
        help="Whose play of each of the 21 rolls the network values to measure a roll's luck: the heuristic "
             "that shortlists the network's doubles plays (fast), or the trial player's own (several times "
             "slower; see docs/benchmarks.md).")] = "heuristic",
    trial_ply: Annotated[int, typer.Option(
        "--trial-ply",
        help="How the trials choose their plays: 1, the network's value of each play; 2, one roll deeper for "
             "the best 4 within 0.10 at ply 1 (a stronger player, about 30 times slower; see "
             "docs/benchmarks.md).")] = 1,
    seed: SeedOption = 42,
    workers: WorkersOption = None,
    scheduler: SchedulerOption = None,
    progress: ProgressOption = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: the settings, the candidates, the outcomes.")] = False,
) -> None:
    """Roll out a position or a roll's best plays. Games played on from each, with luck-corrected values."""
    from acesim.analyses.hint import Filter
    from acesim.engine.position import parse_position
    from acesim.engine.rules import load_ruleset
    from acesim.runs.rollout import Choice, format_rollout, rollout_json, rollout as roll_out

    with one_line_errors():
        ruleset = load_ruleset(rules, rule or ())
        pos = parse_position(position, ruleset.start)
        n_workers = _worker_count(workers)
        _check_scheduler(scheduler)
        if until_ci is not None and games is not None:
            raise AcesimError("--until-ci plays until its target or --max-trials; drop --games")
        if until_ci is None and max_trials is not None:
            raise AcesimError("--max-trials goes with --until-ci; without it, --games is the number of trials")
        trials = (max_trials or UNTIL_CI_CAP) if until_ci is not None else (games or 1296)
        choice = Choice(candidates, margin, Filter(filter_count, filter_margin), tuple(play or ()))
        with _progress_bar(trials, "trials", progress and not as_json, "trials") as advance:
            result = roll_out(ruleset, pos, trials, strategy, dice, choice, truncate, seed, until_ci, reduce,
                              n_workers, scheduler, on_progress=(lambda n, half: advance(n, f"±{half:.3f}")) if advance else None,
                              luck_plays=luck_plays, trial_ply=trial_ply)
    _cubeless_note(ruleset, "rollout trials are played without the cube")
    _unreached_note(ruleset, pos, result.attrs["strategy"])
    if as_json:
        typer.echo(json.dumps(rollout_json(result)))
    else:
        typer.echo(format_rollout(result, console.width))


@app.command("ladder", cls=LateHelp)
def ladder(
    rules: RulesOption = "european",
    rule: RuleOverride = None,
    games: Annotated[
        int, typer.Option("--games", "-n", min=1, max=MAX_GAMES, help="Games per pairing and seat order.")
    ] = 1000,
    strategies: Annotated[
        Optional[str],
        typer.Option("--strategies", help=f"Comma-separated strategies. {STRATEGIES}  [default: every strategy "
                                          "of the weights file]"),
    ] = None,
    strategies_file: Annotated[
        Optional[Path], typer.Option("--strategies-file", help="Weights file instead of the built-in one.")
    ] = None,
    seed: SeedOption = 42,
    workers: WorkersOption = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the table as CSV here.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out file.")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
    scheduler: SchedulerOption = None,
    progress: ProgressOption = True,
) -> None:
    """Round-robin of strategies, both seats, win rates with 95% intervals."""
    from acesim.engine.strategies import load_strategy, resolve_spec, strategy_names
    from acesim.runs.ladder import ladder as run_ladder, ladder_matrix, ladder_table

    with one_line_errors():
        rule_sets = _rule_sets(rules, rule)
        if len(rule_sets) != 1:
            raise AcesimError("ladder takes one rule set")
        ruleset = rule_sets[0]
        specs = [s.strip() for s in strategies.split(",")] if strategies is not None else strategy_names(
            strategies_file)
        if any(not s for s in specs):
            raise AcesimError(f"empty strategy name in --strategies {strategies!r}")
        chosen = [load_strategy(resolve_spec(s, ruleset), strategies_file) for s in specs]
        n_workers = _worker_count(workers)
        if out is not None:
            # fail now, not after the games: an existing file, an input, a device
            aio.check_output_file(out, force, [strategies_file, *_rules_files(rules)])
        elif force:
            raise AcesimError("--force goes with --out")
        total = games * len(chosen) * (len(chosen) - 1)
        with _progress_bar(total, "games", progress) as advance:
            matches = run_ladder(ruleset, chosen, games, seed, n_workers, advance, scheduler)
        table = ladder_table(matches, chosen)
    matrix = ladder_matrix(table, chosen)
    title = (
        f"Ladder under {ruleset.name}: row's win rate against column [95% Wilson CI]; "
        f"{2 * games:,} games per pairing ({games:,} in each seat order), seed {seed}"
    )
    if markdown:
        typer.echo(f"{title}\n")
        rows = [[f"**{name}**", *row] for name, row in matrix.iterrows()]
        typer.echo("\n".join(markdown_table(["", *matrix.columns], rows)))
    else:
        rows = [[name, *row] for name, row in matrix.iterrows()]
        for t in rich_tables(["", *matrix.columns], rows, console.width, keys=1, title=title):
            console.print(t)
    if out is not None:
        with one_line_errors():
            aio.write_text(out, table.to_csv(index=False))


READING_EVAL_EVERY = 100_000  # a rule-reading run's evaluations play six rule sets: fewer of them
# The settings a run keeps from its checkpoint: --resume refuses them on the command line.
_RUN_SETTINGS = ("rules", "rule", "seed", "hidden", "lam", "alpha", "width", "objective", "eval_every",
                 "eval_games", "random_share", "eval_mixes", "checkpoint_every", "alpha_halving", "start",
                 "encoding", "activation", "loss", "split_points")


@app.command("train")
def train(
    ctx: typer.Context,
    rules: Annotated[str, typer.Option(
        "--rules", "-r", help="Preset name or a .toml/.json rules file; 'all' or several, comma-separated, "
                              "train one network that reads the rules, with these rule sets as anchors.")
    ] = "european",
    rule: RuleOverride = None,
    games: Annotated[int, typer.Option("--games", "-n", min=1, max=MAX_GAMES, help="Self-play games.")] = 60_000,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Model file to write (.npz).")] = None,
    seed: SeedOption = 1,
    hidden: Annotated[
        str, typer.Option("--hidden", help="Hidden layer sizes: one number, or two comma-separated.")
    ] = "40",
    lam: Annotated[float, typer.Option("--lambda", help="TD(lambda)'s lambda.")] = 0.7,
    alpha: Annotated[float, typer.Option("--alpha", help="Step size.")] = 0.1,
    width: Annotated[int, typer.Option(
        "--width", help="Candidates of a doubles segment the network judges in self-play.")] = TRAIN_WIDTH,
    objective: Annotated[
        str, typer.Option("--objective", help="What the player maximises: auto (points when scoring "
                                              "makes them differ from wins), wins or points.")
    ] = "auto",
    eval_every: Annotated[
        int, typer.Option("--eval-every", help="Evaluate against expert every N games (0 = only at the end); "
                                               "a network that reads the rules, evaluated under six rule sets, "
                                               "every 100,000 unless given.")
    ] = 10_000,
    eval_games: Annotated[int, typer.Option("--eval-games", help="Games of each evaluation.")] = 1000,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing model file.")] = False,
    random_share: Annotated[Optional[float], typer.Option(
        "--random-share", help="Train a network that reads the rules: this share of the batches of 16 games "
                               "is played under random mixes of every checker knob, the rest under the "
                               "anchors of --rules.  [default: 0.5 with --rules all or several]")] = None,
    alpha_halving: Annotated[int, typer.Option(
        "--alpha-halving", help="Halve the step size every N games (0 = constant).")] = 0,
    eval_mixes: Annotated[int, typer.Option(
        "--eval-mixes", help="Rule-reading runs: random mixes evaluated besides the four presets.")] = 2,
    checkpoint: Annotated[Optional[Path], typer.Option(
        "--checkpoint", help="Write the model and the training state here atomically every "
                             "--checkpoint-every games; --resume continues from it.")] = None,
    checkpoint_every: Annotated[int, typer.Option(
        "--checkpoint-every", help="Games between checkpoints.")] = 10_000,
    start: Annotated[Optional[Path], typer.Option(
        "--start", help="Start from this model's weights instead of weights drawn from the seed (its hidden "
                        "layers; its sha256 is recorded): a model of the rule set of --rules, or a "
                        "rule-reading model for a rule-reading run. A --hidden wider than its one hidden "
                        "layer widens it: the new units come from the seed, with output weights of 0; a second "
                        "layer (--hidden H,H2) deepens it, its first units passing the start's outputs through, "
                        "so the grown network plays as the start did.")] = None,
    encoding: Annotated[int, typer.Option(
        "--encoding", help="The inputs a new network reads: 0, the board alone (faster to play); 1, the "
                           "board and the heuristic's features; 2, "
                           "those and the contact between the armies; 3, those and the chances of being hit "
                           "(docs/learned.md). A --start network reads by its own; one of encoding 1 or 2 "
                           "can gain a later encoding's inputs, weighed 0.")] = 1,
    activation: Annotated[Optional[str], typer.Option(
        "--activation", help="The hidden units of the network: logistic, or hard-sigmoid (the logistic's "
                             "tangent at 0 held to [0, 1], faster to play).  [default: a --start network's "
                             "own (given, it converts them), else logistic]")] = None,
    loss: Annotated[str, typer.Option(
        "--loss", help="What each state's step descends: squared (the outputs' squared error, as "
                       "TD-Gammon) or cross-entropy (whose step does not fade where an output nears 0 or 1; "
                       "about a quarter of the squared error's --alpha moves outputs near 1/2 as far).")
    ] = "squared",
    split_points: Annotated[bool, typer.Option(
        "--split-points", help="The points won and lost beyond 1 as two outputs of their own beside the win (as "
                               "GNU Backgammon's gammon outputs), instead of one output of the points: a network "
                               "that reads the rules, or a model of rules that score points; a --start "
                               "network's points output is replaced by the two.")] = False,
    resume: Annotated[Optional[Path], typer.Option(
        "--resume", help="Continue the run of this checkpoint (or finished model) with its own settings "
                         "(--games may raise its target); the result equals the uninterrupted run's.")] = None,
    workers: WorkersOption = None,
    progress: ProgressOption = True,
) -> None:
    """Train the learned player by TD(lambda) self-play and write its model file."""
    with one_line_errors():
        _train_run(ctx, rules, rule, games, out, seed, hidden, lam, alpha, width, objective, eval_every,
                   eval_games, force, random_share, eval_mixes, checkpoint, checkpoint_every, resume, workers,
                   progress, alpha_halving, start, encoding, activation, loss, split_points)


def _on_command_line(ctx: typer.Context, name: str) -> bool:
    # by name: typer carries its own copy of click, whose ParameterSource is not click's
    return getattr(ctx.get_parameter_source(name), "name", "") == "COMMANDLINE"


def _command_line(ctx: typer.Context) -> str:
    """The command as the user gave it, rebuilt from its parsed options: every option given on the
    command line, by its long name, in the command's order (what a model file records as its origin)."""
    words = ["acesim", ctx.info_name]
    for param in ctx.command.params:
        if not _on_command_line(ctx, param.name):
            continue
        value = ctx.params[param.name]
        longs = [o for o in param.opts if o.startswith("--")]
        if getattr(param, "is_flag", False):
            words.append(longs[0] if value else (param.secondary_opts or longs)[0])
            continue
        for one in value if isinstance(value, (list, tuple)) else [value]:
            words += [longs[0], str(one)]
    return shlex.join(words)


def _start_encoding(ctx: typer.Context, start: Path, array, encoding: int) -> int:
    """The encoding of a run that starts from ``array``: its own, or a later --encoding when it reads
    encoding 1 or 2 (the network gains that encoding's inputs, weighed 0); any other is one line."""
    from acesim.kernels import net as N

    own = int(array[N.M_ENCODING])
    if not _on_command_line(ctx, "encoding"):
        return own
    if encoding < own or (own == 0 and encoding != 0):
        raise AcesimError(f"{start} reads positions by encoding {own}; drop --encoding {encoding}")
    return encoding


def _train_run(ctx, rules, rule, games, out, seed, hidden, lam, alpha, width, objective, eval_every,
               eval_games, force, random_share, eval_mixes, checkpoint, checkpoint_every, resume, workers,
               progress, alpha_halving, start, encoding, activation, loss, split_points) -> None:
    """``acesim train``: a new run (of one rule set, or of one network that reads the rules), or ``--resume``
    of one."""
    from acesim.engine.rules import PRESETS
    from acesim.runs import training as L

    if out is None:
        raise AcesimError("train needs --out FILE.npz")
    for path in (out, checkpoint):
        if path is not None and path.suffix != ".npz":
            raise AcesimError(f"the model file must end in .npz, got {path}")
    if out.exists() and not force:
        raise AcesimError(f"{out} exists; use --force to replace it")
    n_workers = _worker_count(workers)
    if resume is not None:
        given = [p for p in _RUN_SETTINGS if _on_command_line(ctx, p)]
        if given:
            names = ", ".join("--lambda" if p == "lam" else f"--{p.replace('_', '-')}" for p in given)
            raise AcesimError(f"--resume continues a run with the settings of its checkpoint; drop {names}")
        run = L.resume_run(resume, games if _on_command_line(ctx, "games") else None)
        checkpoint = resume if checkpoint is None else checkpoint
    else:
        reads_rules = random_share is not None or rules == "all" or "," in rules
        if reads_rules:
            if not _on_command_line(ctx, "eval_every"):
                eval_every = READING_EVAL_EVERY
            if rules == "all" and rule:
                raise AcesimError("--rules all takes no --rule overrides; name the rule sets instead")
            anchors = tuple(PRESETS.values()) if rules == "all" else tuple(_rule_sets(rules, rule))
        else:
            if _on_command_line(ctx, "eval_mixes"):
                raise AcesimError("--eval-mixes is for networks that read the rules (--rules all, or --random-share)")
            anchors = tuple(_rule_sets(rules, rule))
            if len(anchors) != 1:
                raise AcesimError("train takes one rule set")
        sizes = L.parse_hidden(hidden)
        begin = None if start is None else L.start_model(start, None if reads_rules else anchors[0])
        if begin is not None and not _on_command_line(ctx, "hidden"):
            sizes = begin.hidden
        if begin is not None:
            encoding = _start_encoding(ctx, start, begin.array, encoding)
        common = dict(
            hidden=sizes, lam=lam, alpha=alpha, width=width, eval_every=eval_every or games, eval_games=eval_games,
            checkpoint_every=checkpoint_every if checkpoint is not None else 0, alpha_halving=alpha_halving,
            start=str(start) if start else "", encoding=encoding, loss=loss,
            activation=L.run_activation(activation, None if begin is None else begin.array))
        if reads_rules:
            settings = L.RunSettings(anchors, 0.5 if random_share is None else random_share, games, seed,
                                     eval_mixes=eval_mixes, objective=objective, split_points=split_points, **common)
        else:
            settings = L.RunSettings.of_rules(anchors[0], games, seed, objective=objective,
                                              split_points=split_points, **common)
        run = L.start_run(settings, _command_line(ctx))  # checks every setting before any game
    for path in (out, checkpoint):
        if path is not None:
            aio.check_target(path)  # fail now, not after the training, if it cannot be written
    total = run.settings.games
    with _progress_bar(total, "training", progress) as advance:
        if advance is not None:
            advance(run.done)
        last = [run.done]

        def report(done: int, evaluations: list[dict] | None) -> None:
            if advance is not None:
                advance(done - last[0])
            last[0] = done
            for e in evaluations or ():
                low, high = e["win_rate_ci95"]
                under = f", {e['rules']}" if "rules" in e else ""
                console.print(
                    f"after {done:,} games{under}: {e['win_rate']:.3f} [{low:.3f}, {high:.3f}] against "
                    f"expert over {e['games']:,} games", markup=False,
                )
            console.file.flush()  # a log file keeps each evaluation even if the run is stopped

        L.train_run(run, checkpoint, n_workers, report)
    run.save(out, n_workers)
    summary = f"{out}: {run.games:,} games in {run.seconds / 60:.1f} min"
    if not run.settings.reads_rules and run.evaluations:
        final = run.evaluations[-1]
        low, high = final["win_rate_ci95"]
        summary += f"; against expert {final['win_rate']:.3f} [{low:.3f}, {high:.3f}] (n = {final['games']:,})"
    console.print(summary, markup=False)


# --- analyses and reports --------------------------------------------------------

RulesFileOption = Annotated[
    Optional[list[Path]],
    typer.Option("--rules-file", metavar="FILE", help="A .toml/.json rules file to add to --rules (repeatable)."),
]
SweepOption = Annotated[
    Optional[list[str]],
    typer.Option("--sweep", metavar="KNOB=V1,V2,...", help="Vary one knob over the first rule set of --rules."),
]


def _analysis_games(parts: tuple[str, ...]):
    """``--games``, its help in the words of the command's parts: luck plays none of these games."""
    def listed(words: list[str]) -> str:
        return f"{', '.join(words[:-1])} and {words[-1]}" if len(words) > 1 else "".join(words)

    figures = [f for p, f in (("compare", "comparison"), ("bonus", "bonus-roll")) if p in parts]
    derived = ["--equity-games", "--luck-games"] if {"bonus", "luck"} & set(parts) else []
    derived += ["--ladder-games"] if "luck" in parts else []
    said = f"Games per rule set for the {listed(figures)} figures" if figures else "The size of the run"
    if derived:
        said += f"; {listed(derived)} default from it"
    return Annotated[int, typer.Option("--games", "-n", min=1, max=MAX_GAMES, help=f"{said}.")]


def _size_default(name: str) -> str:
    return f"  [default: from --games; {{late:{name}}} at --games {ANALYSIS_GAMES:,}]"


EquityGames = Annotated[
    Optional[int],
    typer.Option("--equity-games", min=1, max=MAX_GAMES,
                 help="Games to fit the equity model on." + _size_default("equity_games")),
]
LuckGames = Annotated[
    Optional[int],
    typer.Option("--luck-games", min=1, max=MAX_GAMES,
                 help="Games whose every roll is valued." + _size_default("luck_games")),
]
LadderGames = Annotated[
    Optional[int],
    typer.Option("--ladder-games", min=1, max=MAX_GAMES,
                 help="Games per pairing and seat order in the skill ladder." + _size_default("ladder_games")),
]


def _analysis(name: str, parts: tuple[str, ...], options: AnalysisOptions, workers: int | None, out: Path | None,
              force: bool, scheduler: str | None, progress: bool) -> None:
    """What compare, bonus, luck and report do with their options: plan, run, print, write."""
    from acesim.runs import report as R

    with one_line_errors():
        plan = R.analysis_plan(name, parts, options, out)
        n_workers = _worker_count(workers)
        _check_scheduler(scheduler)
        with _progress_bar(plan.games_to_play(), name, progress) as advance:
            done = R.run(plan, n_workers, out, force, scheduler, advance)
        _print_markdown(done.summary)
        if done.page is not None:
            console.print(f"report, figures (PNG) and tables (CSV) in {out}; open {done.page}")


def _one_sweep(sweep: list[str] | None) -> str | None:
    """``--sweep``: typer takes it repeatable only to say that a run sweeps one knob."""
    if sweep is not None and len(sweep) > 1:
        raise AcesimError(f"--sweep is given {len(sweep)} times; a run sweeps one knob (knob=v1,v2,...)")
    return sweep[0] if sweep else None


def _print_markdown(lines: list[str]) -> None:
    """Markdown on the terminal, its tables split to fit (rich would cut their cells short)."""
    from rich.markdown import Markdown

    for block in markdown_blocks("\n".join(lines)):
        if isinstance(block, str):
            console.print(Markdown(block))
        else:
            for table in rich_tables(*block, width=console.width):
                console.print(table)


# The options of compare, bonus, luck and report; each command offers those its parts read
# (report.ReportPlan.needs: the equity model and the valued rolls serve bonus and luck, the skill
# ladder luck alone), and takes its defaults from AnalysisOptions.
AnalysisRules = Annotated[str, typer.Option("--rules", "-r", help="Preset names or rules files, comma-separated.")]
AnalysisStrategy = Annotated[str, typer.Option("--strategy", help=f"The strategy both sides play. {STRATEGIES}")]
ReportFolder = Annotated[Optional[Path], typer.Option("--out", "-o", help="Folder for the report, figures and tables.")]
ReplaceReport = Annotated[bool, typer.Option("--force", help="Replace an existing report folder.")]
EquityModel = Annotated[str, typer.Option(
    "--equity", help="Equity model V: auto (the one of the lower Brier score of the logistic model and the shipped network), "
                     "logistic, or learned:PATH.")]
CompareGames = _analysis_games(("compare",))
BonusGames = _analysis_games(("bonus",))
LuckGamesPlayed = _analysis_games(("luck",))
ReportGames = _analysis_games(("compare", "bonus", "luck"))
_D = AnalysisOptions()


@app.command("compare", cls=LateHelp)
def compare(
    rules: AnalysisRules = _D.rules,
    rules_file: RulesFileOption = None,
    rule: RuleOverride = None,
    sweep: SweepOption = None,
    games: CompareGames = _D.games,
    strategy: AnalysisStrategy = _D.strategy,
    seed: SeedOption = _D.seed,
    workers: WorkersOption = None,
    out: ReportFolder = None,
    force: ReplaceReport = False,
    scheduler: SchedulerOption = None,
    progress: ProgressOption = True,
) -> None:
    """Compare rule sets on common dice. First-mover advantage, game length, forfeits, paired differences."""
    with one_line_errors():
        options = AnalysisOptions(rules, tuple(rules_file or ()), tuple(rule or ()), _one_sweep(sweep), games,
                                  strategy, seed=seed)
    _analysis("compare", ("compare",), options, workers, out, force, scheduler, progress)


@app.command("bonus", cls=LateHelp)
def bonus(
    rules: AnalysisRules = _D.rules,
    rules_file: RulesFileOption = None,
    rule: RuleOverride = None,
    sweep: SweepOption = None,
    games: BonusGames = _D.games,
    strategy: AnalysisStrategy = _D.strategy,
    equity_games: EquityGames = _D.equity_games,
    luck_games: LuckGames = _D.luck_games,
    seed: SeedOption = _D.seed,
    workers: WorkersOption = None,
    out: ReportFolder = None,
    force: ReplaceReport = False,
    scheduler: SchedulerOption = None,
    progress: ProgressOption = True,
    equity: EquityModel = _D.equity,
) -> None:
    """Value the bonus rolls. Win rate by lead in doubles and 1-2s, a logistic model, the value of each roll."""
    with one_line_errors():
        options = AnalysisOptions(rules, tuple(rules_file or ()), tuple(rule or ()),
                                  _one_sweep(sweep), games, strategy, equity_games, luck_games, seed=seed,
                                  equity=equity)
    _analysis("bonus", ("bonus",), options, workers, out, force, scheduler, progress)


@app.command("luck", cls=LateHelp)
def luck(
    rules: AnalysisRules = _D.rules,
    rules_file: RulesFileOption = None,
    rule: RuleOverride = None,
    sweep: SweepOption = None,
    games: LuckGamesPlayed = _D.games,
    strategy: AnalysisStrategy = _D.strategy,
    equity_games: EquityGames = _D.equity_games,
    luck_games: LuckGames = _D.luck_games,
    ladder_games: LadderGames = _D.ladder_games,
    seed: SeedOption = _D.seed,
    workers: WorkersOption = None,
    out: ReportFolder = None,
    force: ReplaceReport = False,
    scheduler: SchedulerOption = None,
    progress: ProgressOption = True,
    equity: EquityModel = _D.equity,
) -> None:
    """Measure the luck factor: per-roll luck, the skill ladder (Elo) and relative skill."""
    with one_line_errors():
        options = AnalysisOptions(rules, tuple(rules_file or ()), tuple(rule or ()), _one_sweep(sweep), games,
                                  strategy, equity_games, luck_games, ladder_games, seed, equity)
    _analysis("luck", ("luck",), options, workers, out, force, scheduler, progress)


@app.command("report", cls=LateHelp)
def report(
    rules: AnalysisRules = _D.rules,
    rules_file: RulesFileOption = None,
    rule: RuleOverride = None,
    sweep: SweepOption = None,
    games: ReportGames = _D.games,
    strategy: AnalysisStrategy = _D.strategy,
    equity_games: EquityGames = _D.equity_games,
    luck_games: LuckGames = _D.luck_games,
    ladder_games: LadderGames = _D.ladder_games,
    seed: SeedOption = _D.seed,
    workers: WorkersOption = None,
    out: ReportFolder = None,
    force: ReplaceReport = False,
    scheduler: SchedulerOption = None,
    progress: ProgressOption = True,
    equity: EquityModel = _D.equity,
) -> None:
    """Run every analysis into a report. A self-contained HTML and Markdown report, PNG charts and CSV tables."""
    with one_line_errors():
        if out is None:
            raise AcesimError("report needs --out FOLDER")
        options = AnalysisOptions(rules, tuple(rules_file or ()), tuple(rule or ()), _one_sweep(sweep), games,
                                  strategy, equity_games, luck_games, ladder_games, seed, equity)
    _analysis("report", ("compare", "bonus", "luck"), options, workers, out, force, scheduler, progress)


# --- the house-rule landscape ----------------------------------------------------------------


_E = ExploreOptions()


@app.command("explore", cls=LateHelp)
def explore(
    base: Annotated[Optional[str], typer.Option(
        "--base", help=f"The base rule set: a preset or a .toml/.json rules file.  [default: {_E.base}]")] = None,
    rule: RuleOverride = None,
    vary: Annotated[Optional[list[str]], typer.Option(
        "--vary", metavar="KNOB[=V1,V2,...]",
        help="A knob to vary, over all its values or those given (repeatable).  [default: every knob]")] = None,
    design: Annotated[Optional[str], typer.Option(
        "--design", help="auto (the full factorial if it has at most --rule-sets rule sets, else random), "
                         f"full or random.  [default: {_E.design}]")] = None,
    rule_sets: Annotated[Optional[int], typer.Option(
        "--rule-sets", min=1, help="Rule sets of a random design, the four presets and the base among them.  "
                                   f"[default: {_E.rule_sets}]")] = None,
    max_rule_sets: Annotated[Optional[int], typer.Option(
        "--max-rule-sets", min=1, help=f"Refuse a design larger than this.  [default: {_E.max_rule_sets}]")] = None,
    strategy: Annotated[Optional[str], typer.Option(
        "--strategy", help=f"The one player of every rule set. {STRATEGIES}  [default: {_E.strategy}]")] = None,
    games: Annotated[Optional[int], typer.Option(
        "--games", "-n", min=1, max=MAX_GAMES, help="Self-play games per rule set; the other sizes default "
                                                     f"from it.  [default: {_E.games}]")] = None,
    skill_games: Annotated[Optional[int], typer.Option(
        "--skill-games", min=1, max=MAX_GAMES, help="Games per seat against random.  [default: --games / 8, "
                                                     "at most 1000]")] = None,
    equity_games: Annotated[Optional[int], typer.Option(
        "--equity-games", min=1, max=MAX_GAMES, help="Games to fit the luck's equity model on.  [default: "
                                                      "--games / 4, at most 1000]")] = None,
    luck_games: Annotated[Optional[int], typer.Option(
        "--luck-games", min=1, max=MAX_GAMES, help="Games whose every roll is valued.  [default: --games / 10, "
                                                    "at most 400]")] = None,
    seed: Annotated[Optional[int], typer.Option(
        "--seed", min=0, max=MAX_SEED, help=f"Root seed of the design and the dice.  [default: {_E.seed}]")] = None,
    turn_cap: Annotated[Optional[int], typer.Option(
        "--turn-cap", min=1, max=MAX_TURN_CAP, help="Turns after which a game ends unfinished.  "
                                                    f"[default: {_E.turn_cap}]")] = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", "-o", help="Folder for the design, the records and the report.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing explore folder.")] = False,
    resume: Annotated[Optional[Path], typer.Option(
        "--resume", help="Finish the interrupted exploration in this folder (its explore.json).")] = None,
    design_only: Annotated[bool, typer.Option(
        "--design-only", help="Write the plan and the design table, play nothing (--resume plays it).")] = False,
    workers: WorkersOption = None,
    scheduler: SchedulerOption = None,
    progress: ProgressOption = True,
) -> None:
    """Map the house-rule landscape. A designed experiment over the knobs: their effects on fairness, length,
    luck and skill."""
    from acesim.runs import explore as X

    planned = {"base": base, "rule": rule, "vary": vary, "design": design, "rule_sets": rule_sets,
               "max_rule_sets": max_rule_sets, "strategy": strategy, "games": games, "skill_games": skill_games,
               "equity_games": equity_games, "luck_games": luck_games, "seed": seed, "turn_cap": turn_cap}
    with one_line_errors(), ExitStack() as stack:
        if resume is not None:
            given = [f"--{k.replace('_', '-')}" for k, v in planned.items() if v is not None]
            if given or out is not None or force:
                raise AcesimError(f"--resume continues the run with its own plan; drop "
                                  f"{', '.join(given + ['--out'] * (out is not None) + ['--force'] * force)}")
        elif out is None:
            raise AcesimError("explore needs --out FOLDER (or --resume FOLDER)")
        n_workers = _worker_count(workers)
        bar = {}

        def on_plan(plan) -> None:
            d = plan.design
            console.print(f"{len(d.rulesets)} rule sets ({'full factorial' if d.kind == 'full' else 'random design'} "
                          f"of {len(d.factors)} knobs around {d.base.name}), {plan.games:,} games each, played by "
                          f"{plan.player}, seed {plan.seed}")
            if not design_only:
                bar["advance"] = stack.enter_context(
                    _progress_bar(len(d.rulesets), "rule sets", progress, unit="rule sets"))

        def advance(n: int, note: str) -> None:
            if bar.get("advance"):
                bar["advance"](n, note)

        asked = {("overrides" if k == "rule" else k): tuple(v) if isinstance(v, list) else v
                 for k, v in planned.items() if v is not None}
        plan, path, findings = X.explore(ExploreOptions(**asked), out, force, resume, n_workers, scheduler,
                                         design_only, advance, on_plan)
    if design_only:
        console.print(f"design written to {path}; acesim explore --resume {path.parent} plays it")
        return
    _print_markdown(findings)
    console.print(f"landscape report, figures (PNG) and tables (CSV) in {path.parent}; open {path}")


# --- benchmarks ---------------------------------------------------------------


@bench_app.command("moves")
def bench_moves(
    positions: Annotated[int, typer.Option(min=1, max=10**8, help="Positions per preset, from random games.")] = 20000,
    openspiel_positions: Annotated[int, typer.Option(min=1, max=10**8, help="OpenSpiel backgammon positions.")] = 5000,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Root seed of the random games.")] = 2026,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
) -> None:
    """Legal-play generation speed per preset, and OpenSpiel's legal_actions() for scale."""
    from acesim.runs.bench import bench_moves as run, format_moves_table

    with one_line_errors():
        rows = run(positions, openspiel_positions, seed)
    typer.echo(format_moves_table(rows, markdown=markdown))


def _comma_list(text: str, option: str) -> tuple[str, ...]:
    """The comma-separated names of ``option``; an empty name is a one-line error."""
    names = tuple(n.strip() for n in text.split(","))
    if any(not n for n in names):
        raise AcesimError(f"empty name in {option} {text!r}")
    for n in names:
        if names.count(n) > 1:
            raise AcesimError(f"{n!r} is given twice in {option}")
    return names


@bench_app.command("games", cls=LateHelp)
def bench_games(
    games: Annotated[
        int, typer.Option(min=1, max=MAX_GAMES, help="Games per preset and strategy (European random: a twentieth).")
    ] = 2000,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Root seed.")] = 2026,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
    strategies: Annotated[str | None, typer.Option(
        help="Comma-separated strategies to time, each in self-play.  "
             f"[default: random,racer,safe,blocker,expert,best] {STRATEGIES}")] = None,
    rules: Annotated[str | None, typer.Option(
        help="Comma-separated presets to play.  [default: european,american,navy,backgammon]")] = None,
) -> None:
    """Whole self-play games per second per core, per preset and strategy, and OpenSpiel's."""
    from acesim.runs.bench import GAME_STRATEGIES, bench_games as run, format_games_table
    from acesim.engine.rules import PRESETS

    with one_line_errors():
        if games <= 0:
            raise AcesimError(f"the number of games must be positive, got {games}")
        specs = GAME_STRATEGIES if strategies is None else _comma_list(strategies, "--strategies")
        presets = tuple(PRESETS) if rules is None else _comma_list(rules, "--rules")
        rows = run(games, seed, specs, presets=presets)
    typer.echo(format_games_table(rows, markdown=markdown))


@bench_app.command("hint")
def bench_hint(
    positions: Annotated[int, typer.Option(min=1, max=10**6, help="Positions per preset, from random games.")] = 200,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Root seed.")] = 2026,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
) -> None:
    """Seconds per hint, per preset and ply, with the rule set's best player."""
    from acesim.runs.bench import bench_hint as run

    with one_line_errors():
        typer.echo(run(positions, seed, markdown))


@bench_app.command("rollout")
def bench_rollout(
    positions: Annotated[int, typer.Option(min=1, max=10**5, help="Positions per preset, from random games.")] = 12,
    trials: Annotated[int, typer.Option(min=2, max=10**7, help="Trials per position.")] = 144,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Root seed.")] = 2026,
    workers: WorkersOption = None,
    luck_plays: Annotated[str, typer.Option(
        "--luck-plays", help="Comma-separated ways of measuring luck to compare with no correction "
                             "(heuristic, player).")] = "heuristic,player",
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
) -> None:
    """The luck correction's cost and effect on rollouts, per preset: trials/s and how many times fewer trials."""
    from acesim.runs.bench import bench_rollout as run

    with one_line_errors():
        ways = tuple(w.strip() for w in luck_plays.split(",") if w.strip())
        typer.echo(run(positions, trials, seed, _worker_count(workers), markdown, ways))


@bench_app.command("simulate", cls=LateHelp)
def bench_simulate(
    rules: RulesOption = "european",
    strategy: Annotated[str, typer.Option(help=f"Strategy of both seats. {STRATEGIES}")] = "expert",
    games: Annotated[int, typer.Option(min=1, max=MAX_GAMES, help="Games to play.")] = 100_000,
    workers: WorkersOption = None,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Root seed.")] = 2026,
) -> None:
    """A full simulate run into a temporary folder: wall time, games/s, peak memory."""
    from acesim.runs.bench import bench_simulate as run

    with one_line_errors():
        if games <= 0:
            raise AcesimError(f"the number of games must be positive, got {games}")
        result = run(rules, strategy, games, _worker_count(workers),
                     seed)
    typer.echo(json.dumps(result, indent=2))


@bench_app.command("cluster", cls=LateHelp)
def bench_cluster(
    rules: RulesOption = "backgammon",
    strategy: Annotated[str, typer.Option(help=f"Strategy of both seats. {STRATEGIES}")] = "expert",
    games: Annotated[int, typer.Option(min=1, max=MAX_GAMES, help="Games to play.")] = 40_000,
    workers: Annotated[int, typer.Option(help="Local processes and Dask workers.")] = 2,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Root seed.")] = 2026,
) -> None:
    """The same run locally and on a Dask LocalCluster: games/s and the overhead per chunk."""
    from acesim.runs.bench import bench_cluster as run

    with one_line_errors():
        if games <= 0:
            raise AcesimError("games must be positive")
        check_workers(workers)
        result = run(rules, strategy, games, workers, seed)
    typer.echo(json.dumps(result, indent=2))


_OUTPUT_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def _drop_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's last flush of what is
    still buffered does not fail again with a traceback."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass


# The commands that run kernels (every other one reads files, shows rules or prints help).
_PLAYING = {"moves", "hint", "simulate", "rollout", "ladder", "train", "compare", "bonus", "luck", "report", "bench",
            "explore"}


def _compiling_note(argv: list[str]) -> None:
    """Say on stderr, before anything else, that a cold kernel cache means minutes of compiling."""
    words = [w for w in argv if not w.startswith("-")]
    if not words or words[0] not in _PLAYING or any(w in ("--help", "-h") for w in argv):
        return
    from acesim.kernels import cache_is_warm

    if not cache_is_warm():
        typer.echo("acesim: compiling the game kernels (first run only; a few minutes; "
                   "make install does it ahead)", err=True)


def main() -> None:
    """Console entry point: usage errors also become one line on stderr."""
    _compiling_note(sys.argv[1:])
    try:
        code = app(standalone_mode=False)
        # output small enough to stay in the buffer meets a full device only here
        sys.stdout.flush()
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except OSError as exc:
        # writing standard output (the only file not written through acesim.common.files) failed
        if exc.filename is not None or exc.errno not in _OUTPUT_ERRNOS:
            raise
        _drop_stdout()
        typer.echo(f"acesim: error: cannot write standard output: {exc.strerror}", err=True)
        sys.exit(1)
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("acesim: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:
        # typer's usage errors (click's, vendored): anything with format_message and exit_code
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            if type(exc).__name__ == "NoArgsIsHelpError":  # its message is the help text
                typer.echo(exc.format_message())
                sys.exit(0)
            typer.echo(f"acesim: error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        raise
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
