"""Runs of many games: the plan, chunks on worker processes, Parquet records, summaries.

A run is planned before anything is played: rule sets, strategies, seed, game
count and chunk layout.  Each chunk is one task: a worker plays its games (the
streams of a game depend only on the seed and the game's index, see
``acesim.streams``), writes the chunk's records to a temporary file renamed
into place, and returns the chunk's exact partial sums.  The parent only
merges partial sums, so its memory does not grow with the number of games.

Several rule sets run the same game indices with the same seed, so game ``g``
rolls the same dice under each of them (common random numbers).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import shutil
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from acesim import __version__
from acesim.errors import AcesimError
from acesim.games import COLUMNS, DEFAULT_TURN_CAP, play_records, records_frame
from acesim.rules import RULES_VERSION, Ruleset, load_rulesets
from acesim.streams import check_seed
from acesim.kernels.strategy import LEARNED
from acesim.strategies import Strategy, load_strategy
from acesim.summary import merge, partial, summarize, table_rows

PLAN_FILE = "plan.json"
SUMMARY_JSON = "summary.json"
SUMMARY_CSV = "summary.csv"
RECORDS_DIR = "records"
PARTIAL_SUFFIX = ".partial"
MAX_CHUNK = 100_000
MIN_DASK_CHUNK = 2_000


@dataclass(frozen=True)
class Plan:
    """Everything that decides a run's records."""

    rules: tuple[Ruleset, ...]
    strategy_a: Strategy
    strategy_b: Strategy
    games: int
    seed: int
    chunk_size: int
    turn_cap: int = DEFAULT_TURN_CAP

    def chunks(self) -> list[tuple[int, int]]:
        """``(first game, number of games)`` of every chunk, in order."""
        return [(s, min(self.chunk_size, self.games - s)) for s in range(0, self.games, self.chunk_size)]

    def describe(self) -> dict:
        return {
            "acesim_version": __version__,
            "rules_version": RULES_VERSION,
            "rules": {r.name: r.knobs() for r in self.rules},
            "strategy_a": self.strategy_a.spec,
            "strategy_b": self.strategy_b.spec,
            "strategies": {"a": _strategy_doc(self.strategy_a), "b": _strategy_doc(self.strategy_b)},
            "games": self.games,
            "seed": self.seed,
            "chunk_size": self.chunk_size,
            "chunks": len(self.chunks()),
            "turn_cap": self.turn_cap,
            "streams": "game g: block key SeedSequence(seed).spawn(...)[g // 256], then SplitMix64(g)",
        }


def _strategy_doc(s: Strategy) -> dict:
    """A strategy in full (its weights too), so a resumed run plays exactly as the first.

    A learned strategy's network is too long for a plan: its model file's
    digest stands for it, and resuming reloads the file and checks the digest.
    """
    doc = {"spec": s.spec, "kind": s.kind, "width": s.width, "choice_width": s.choice_width,
           "description": s.description}
    if s.kind == LEARNED:
        return {**doc, "model_sha256": s.model_sha256}
    return {**doc, "weights": list(s.weights)}


def _strategy_from_doc(d: dict, where: str) -> Strategy:
    if int(d["kind"]) == LEARNED:
        s = load_strategy(str(d["spec"]))
        if s.model_sha256 != d["model_sha256"]:
            raise AcesimError(f"{where}: the model of {d['spec']} has changed since the run began: start a new run")
        return s
    return Strategy(d["spec"], int(d["kind"]), int(d["width"]), tuple(float(w) for w in d["weights"]),
                    choice_width=int(d["choice_width"]), description=str(d.get("description", "")))


def plan_from_description(doc: dict, where: str = "plan.json") -> Plan:
    """The plan a ``plan.json`` describes; refused if this acesim would play it differently."""
    try:
        if doc["acesim_version"] != __version__ or doc["rules_version"] != RULES_VERSION:
            raise AcesimError(
                f"{where} was written by acesim {doc['acesim_version']} (rules version "
                f"{doc['rules_version']}); this is acesim {__version__} (rules version {RULES_VERSION}), "
                "whose records may differ: start a new run"
            )
        rules = tuple(Ruleset(**knobs, name=name) for name, knobs in doc["rules"].items())
        a, b = (_strategy_from_doc(d, where) for d in (doc["strategies"]["a"], doc["strategies"]["b"]))
        plan = Plan(rules, a, b, int(doc["games"]), int(doc["seed"]), int(doc["chunk_size"]), int(doc["turn_cap"]))
    except AcesimError:
        raise
    except (KeyError, TypeError, ValueError) as error:
        raise AcesimError(f"{where} is not a complete acesim plan ({error!r} is missing or malformed)") from None
    if plan.describe() != {**doc, "streams": plan.describe()["streams"]}:
        raise AcesimError(f"{where} does not describe a consistent plan")
    return plan


def load_plan(out: Path) -> Plan:
    """The plan of the run in folder ``out`` (for ``--resume``)."""
    path = Path(out) / PLAN_FILE
    if not Path(out).is_dir():
        raise AcesimError(f"cannot resume {out}: no such folder")
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise AcesimError(f"cannot resume {out}: it has no {PLAN_FILE}, so it is not an acesim run") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AcesimError(f"cannot resume {out}: {PLAN_FILE} is unreadable ({error})") from None
    if not isinstance(doc, dict):
        raise AcesimError(f"cannot resume {out}: {PLAN_FILE} is not a plan")
    return plan_from_description(doc, str(path))


def same_plan(old: Plan, new: Plan) -> str | None:
    """``None`` if ``new`` would give the same records as ``old``, else the first difference."""
    a, b = old.describe(), new.describe()
    names = {"rules": "rule sets", "strategies": "strategies", "games": "number of games", "seed": "seed",
             "chunk_size": "chunk size", "turn_cap": "turn cap"}
    for key, name in names.items():
        if a[key] != b[key]:
            return name
    return None


def resume_plan(
    folder: Path,
    workers: int,
    rules: str | None = None,
    overrides: Sequence[str] = (),
    strategy: str | None = None,
    vs: str | None = None,
    strategies_file: Path | None = None,
    games: int | None = None,
    seed: int | None = None,
    chunk_size: int | None = None,
    turn_cap: int | None = None,
) -> Plan:
    """The plan of the run in ``folder``; any option also given must agree with it (else a one-line error)."""
    plan = load_plan(folder)
    given = (rules, strategy, vs, strategies_file, games, seed, chunk_size, turn_cap)
    if all(v is None for v in given) and not overrides:
        return plan
    asked = make_plan(
        load_rulesets(rules if rules is not None else "european", overrides)
        if rules is not None or overrides else list(plan.rules),
        load_strategy(strategy if strategy is not None else "expert", strategies_file)
        if strategy is not None or strategies_file else plan.strategy_a,
        load_strategy(vs if vs is not None else "expert", strategies_file)
        if vs is not None or strategies_file else plan.strategy_b,
        games if games is not None else plan.games,
        seed if seed is not None else plan.seed,
        chunk_size if chunk_size is not None else plan.chunk_size,
        workers,
        turn_cap if turn_cap is not None else plan.turn_cap,
    )
    difference = same_plan(plan, asked)
    if difference:
        raise AcesimError(f"refusing to resume {folder}: its plan has a different {difference}")
    return plan


def default_chunk_size(games: int, workers: int, dask: bool = False) -> int:
    """About 20 chunks per worker (a live progress bar, balanced load), within 1..MAX_CHUNK.

    On Dask a task costs milliseconds of scheduling and transfer, so chunks
    are at least MIN_DASK_CHUNK games (half a second or more of play for the
    fastest strategy), which keeps that overhead under 5% (README).
    """
    size = max(1, min(MAX_CHUNK, math.ceil(games / (20 * max(1, workers)))))
    return min(games, max(size, MIN_DASK_CHUNK)) if dask else size


def make_plan(
    rules: Sequence[Ruleset],
    strategy_a: Strategy,
    strategy_b: Strategy,
    games: int,
    seed: int,
    chunk_size: int | None = None,
    workers: int = 1,
    turn_cap: int = DEFAULT_TURN_CAP,
    dask: bool = False,
) -> Plan:
    """A checked plan; every bad input is a one-line ``AcesimError``."""
    if games <= 0:
        raise AcesimError(f"the number of games must be positive, got {games}")
    if chunk_size is not None and chunk_size <= 0:
        raise AcesimError(f"the chunk size must be positive, got {chunk_size}")
    if turn_cap <= 0:
        raise AcesimError(f"the turn cap must be positive, got {turn_cap}")
    if not rules:
        raise AcesimError("no rule set given")
    names = [r.name for r in rules]
    for name in names:
        if names.count(name) > 1:
            raise AcesimError(f"rule set {name!r} is given twice; give each rule set a distinct name")
        if not name or "/" in name or name.startswith("."):
            raise AcesimError(f"rule set name {name!r} cannot name an output folder")
    for r in rules:
        strategy_a.check_rules(r)
        strategy_b.check_rules(r)
    check_seed(seed)
    size = chunk_size or default_chunk_size(games, workers, dask)
    return Plan(tuple(rules), strategy_a, strategy_b, games, seed, min(size, games), turn_cap)


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# --- the output folder --------------------------------------------------------------


def _is_acesim_output(path: Path) -> bool:
    if not path.is_dir():
        return False
    entries = list(path.iterdir())
    return not entries or (path / PLAN_FILE).exists()


def prepare_output(out: Path, force: bool) -> None:
    """Check that ``out`` can be written, then create it (empty).  Nothing is written on error."""
    out = Path(out)
    if out.exists() or out.is_symlink():
        if not force:
            raise AcesimError(f"output {out} already exists; use --force to replace it")
        if not _is_acesim_output(out):
            raise AcesimError(f"refusing to replace {out}: it is not an acesim output folder")
    parent = out.parent if str(out.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise AcesimError(f"cannot write {out}: {parent} is not a folder")
    if not parent.is_dir():
        raise AcesimError(f"cannot write {out}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise AcesimError(f"cannot write {out}: folder {parent} is not writable")
    if out.exists():
        shutil.rmtree(out)
    try:
        out.mkdir()
    except OSError as error:
        raise AcesimError(f"cannot write {out}: {error.strerror}") from None


def rules_folder(out: Path, plan: Plan, ruleset: Ruleset) -> Path:
    """Where one rule set's records and summary go: ``out`` itself, or ``out/NAME`` for several."""
    return out if len(plan.rules) == 1 else out / ruleset.name


def chunk_path(folder: Path, first_game: int, plan: Plan) -> Path:
    return folder / RECORDS_DIR / f"chunk-{first_game // plan.chunk_size:06d}.parquet"


def _write_json(path: Path, doc: dict) -> None:
    tmp = path.with_name(path.name + PARTIAL_SUFFIX)
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    os.replace(tmp, path)


def _write_frame_csv(path: Path, frame: pd.DataFrame) -> None:
    tmp = path.with_name(path.name + PARTIAL_SUFFIX)
    frame.to_csv(tmp, index=False)
    os.replace(tmp, path)


def write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` to ``path`` through a temporary name, so a kill leaves no half file."""
    for column in ("rules", "strategy_a", "strategy_b"):
        frame[column] = frame[column].astype("category")
    tmp = path.with_name(path.name + PARTIAL_SUFFIX)
    try:
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_records(folder: Path) -> pd.DataFrame:
    """All records of one rule set's folder, in game order."""
    files = sorted((Path(folder) / RECORDS_DIR).glob("chunk-*.parquet"))
    if not files:
        raise AcesimError(f"no records in {folder}")
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True).sort_values("game", ignore_index=True)


def valid_chunk(path: Path, plan: Plan, ruleset: Ruleset, first_game: int, n_games: int) -> pd.DataFrame | None:
    """The chunk's records if ``path`` holds exactly them (readable, the right games), else ``None``.

    A truncated or corrupted file fails to read; a file from another plan has
    other games, seed or rules.  Either way the chunk is played again.
    """
    if not path.is_file():
        return None
    try:
        frame = pd.read_parquet(path)
    except Exception:  # pyarrow raises several types for damaged files
        return None
    games = frame["game"].to_numpy() if "game" in frame else None
    if (
        games is None
        or len(frame) != n_games
        or not (games == range(first_game, first_game + n_games)).all()
        or not (frame["seed"] == plan.seed).all()
        or not (frame["rules"].astype(str) == ruleset.name).all()
        or list(frame.columns) != list(COLUMNS)
    ):
        return None
    return frame


# --- running --------------------------------------------------------------------------


def run_chunk(plan: Plan, rules_index: int, first_game: int, n_games: int, out: Path | None) -> dict:
    """Play one chunk; write its Parquet file when ``out`` is given; return its partial sums."""
    frame = chunk_frame(plan, rules_index, first_game, n_games)
    if out is not None:
        write_parquet(frame, chunk_path(rules_folder(out, plan, plan.rules[rules_index]), first_game, plan))
    return partial(frame)


def chunk_frame(plan: Plan, rules_index: int, first_game: int, n_games: int) -> pd.DataFrame:
    """The records of one chunk, as a DataFrame."""
    ruleset = plan.rules[rules_index]
    records = play_records(
        ruleset, plan.strategy_a, plan.strategy_b, plan.seed, first_game, n_games, plan.turn_cap
    )
    return records_frame(records, ruleset, plan.strategy_a, plan.strategy_b, plan.seed, first_game)


def _init_worker() -> None:
    # Ctrl-C reaches the whole process group; the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the parent's SIGTERM flag; Pool.terminate() needs
    # SIGTERM to end it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _run_task(args) -> tuple[tuple[int, int], int, dict]:
    plan, (rules_index, first_game, n_games), out = args
    return (rules_index, first_game), n_games, run_chunk(plan, rules_index, first_game, n_games, out)


class _Stop:
    """Set by SIGINT or SIGTERM; the parent's loop notices it between results."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum, frame) -> None:
        self.requested = True


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def run(
    plan: Plan,
    out: Path | None = None,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    resume: bool = False,
    scheduler: str | None = None,
    timings: list | None = None,
    shared_out: bool = False,
) -> list[dict]:
    """Run ``plan``; return one summary document per rule set (also written under ``out``).

    ``progress(n)`` is called with the number of games of each finished chunk.
    On Ctrl-C or SIGTERM the workers are killed, temporary files are removed,
    the complete chunk files stay, no summary is written, and
    ``KeyboardInterrupt`` is raised.  With ``resume`` the chunks whose files
    under ``out`` are complete and belong to this plan are read, not played.
    ``scheduler`` sends the chunks to a Dask cluster (``acesim.cluster``);
    ``timings`` then receives ``(worker pid, seconds)`` per chunk played.
    """
    if workers <= 0:
        raise AcesimError(f"the number of workers must be positive, got {workers}")
    out = Path(out) if out is not None else None
    tasks = [(i, first, n) for i in range(len(plan.rules)) for first, n in plan.chunks()]
    partials: dict[tuple[int, int], dict] = {}
    if out is not None:
        _write_json(out / PLAN_FILE, plan.describe())
        for ruleset in plan.rules:
            (rules_folder(out, plan, ruleset) / RECORDS_DIR).mkdir(parents=True, exist_ok=True)
        for stale in out.rglob(f"*{PARTIAL_SUFFIX}"):
            stale.unlink(missing_ok=True)
    if resume and out is not None:
        missing = []
        for task in tasks:
            i, first, n = task
            path = chunk_path(rules_folder(out, plan, plan.rules[i]), first, plan)
            frame = valid_chunk(path, plan, plan.rules[i], first, n)
            if frame is None:
                path.unlink(missing_ok=True)
                missing.append(task)
            else:
                partials[(i, first)] = partial(frame)
                if progress:
                    progress(n)
        tasks = missing
    pooled = (workers > 1 and len(tasks) > 1) or scheduler is not None
    stop = _Stop()
    # In-process chunks are jitted code that a flag cannot interrupt: there a
    # signal raises as soon as the chunk returns.  With workers the parent only
    # waits, so a flag it polls is the robust way to stop.
    handler = stop if pooled else _raise_interrupt
    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        if scheduler is not None:
            from acesim.cluster import run_on_cluster

            run_on_cluster(plan, tasks, out, scheduler, progress, partials, stop, timings, shared_out)
        elif pooled:
            _run_pool(plan, tasks, out, workers, progress, partials, stop)
        else:
            for task in tasks:
                partials[task[:2]] = run_chunk(plan, *task, out)
                if progress:
                    progress(task[2])
    except KeyboardInterrupt:
        if out is not None:
            for stale in out.rglob(f"*{PARTIAL_SUFFIX}"):
                stale.unlink(missing_ok=True)
        raise
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    summaries = []
    for i, ruleset in enumerate(plan.rules):
        merged = merge([partials[(i, first)] for first, _ in plan.chunks()])
        meta = {
            "rules_name": ruleset.name,
            "rules": ruleset.knobs(),
            "rules_version": RULES_VERSION,
            "seed": plan.seed,
            "strategy_a": plan.strategy_a.spec,
            "strategy_b": plan.strategy_b.spec,
            "turn_cap": plan.turn_cap,
            "acesim_version": __version__,
        }
        doc = summarize(merged, meta)
        summaries.append(doc)
        if out is not None:
            folder = rules_folder(out, plan, ruleset)
            _write_json(folder / SUMMARY_JSON, doc)
            _write_frame_csv(folder / SUMMARY_CSV, pd.DataFrame(table_rows(doc)))
    if out is not None and len(plan.rules) > 1:
        _write_frame_csv(out / SUMMARY_CSV, pd.DataFrame([row for d in summaries for row in table_rows(d)]))
    return summaries


def _run_pool(plan, tasks, out, workers, progress, partials, stop: _Stop) -> None:
    """Chunks on ``workers`` processes; on a stop request or an error they are killed."""
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    pool = context.Pool(workers, initializer=_init_worker)
    try:
        results = pool.imap_unordered(_run_task, [(plan, task, out) for task in tasks])
        for _ in tasks:
            while True:
                if stop.requested:
                    raise KeyboardInterrupt
                try:
                    key, n, part = results.next(timeout=0.1)
                    break
                except multiprocessing.TimeoutError:
                    continue
            partials[key] = part
            if progress:
                progress(n)
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()
