"""Runs of many games: the plan, chunks on worker processes, Parquet records, summaries.

A run is planned before anything is played: rule sets, strategies, seed, game
count and chunk layout.  Each chunk is one task: a worker plays its games (the
streams of a game depend only on the seed and the game's index, see
``acesim.engine.streams``), writes the chunk's records to a temporary file renamed
into place, and returns the chunk's exact partial sums.  The parent only
merges partial sums, so its memory does not grow with the number of games.

Several rule sets run the same game indices with the same seed, so game ``g``
rolls the same dice under each of them (common random numbers).
"""

from __future__ import annotations

import io as pyio
import hashlib
import json
import math
import os
import shutil
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from acesim import __version__
from acesim.analyses.summary import has_cube, merge, partial, summarize, table_rows
from acesim.common import files as io
from acesim.common.cluster import backend_for
from acesim.common.errors import AcesimError
from acesim.common.inputs import read_plan
from acesim.common.limits import DEFAULT_TURN_CAP, MAX_CHUNK_SIZE, MAX_GAMES, MAX_TURN_CAP
from acesim.common.tasks import Backend, check_workers, map_tasks
from acesim.engine.games import COLUMNS, play_records, records_frame
from acesim.engine.rules import RULES_VERSION, Ruleset, load_rulesets
from acesim.engine.strategies import Strategy, load_strategy
from acesim.engine.streams import check_seed
from acesim.kernels.choice import LEARNED
from acesim.kernels.evaluate import N_FEATURES
from acesim.runs.options import SIMULATE_DEFAULTS, SimulateOptions

PLAN_FILE = "plan.json"
MAX_PLAN_BYTES = 4 * 2**20  # a plan is a few kilobytes: its strategies' weights and the rules
# rule-set folder names stay well inside a filesystem name (255 bytes)
MAX_FOLDER_NAME = 200
SUMMARY_JSON = "summary.json"
SUMMARY_CSV = "summary.csv"
RECORDS_DIR = "records"
PARTIAL_SUFFIX = io.PARTIAL_SUFFIX
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
        return {**doc, "model_sha256": s.model_sha256, "tangent": s.tangent}
    return {**doc, "weights": list(s.weights)}


def _strategy_from_doc(d: dict, where: str) -> Strategy:
    if int(d["kind"]) == LEARNED:
        s = load_strategy(str(d["spec"]))
        if s.model_sha256 != d["model_sha256"]:
            raise AcesimError(f"{where}: the model of {d['spec']} has changed since the run began: start a new run")
        # a plan written before the tangent ranked the beams has none: those runs searched the heuristic's way
        if (s.width, s.choice_width, s.tangent) != (int(d["width"]), int(d["choice_width"]),
                                                    float(d.get("tangent", 0.0))):
            raise AcesimError(f"{where}: this acesim searches {d['spec']}'s plays otherwise than when the run "
                              "began: start a new run")
        return s
    weights = tuple(float(w) for w in d["weights"])
    if len(weights) != N_FEATURES or not all(math.isfinite(w) for w in weights):
        raise AcesimError(f"{where}: the weights of strategy {d['spec']} are not {N_FEATURES} finite numbers")
    return Strategy(d["spec"], int(d["kind"]), int(d["width"]), weights,
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
        games, seed, chunk_size, turn_cap = (int(doc[k]) for k in ("games", "seed", "chunk_size", "turn_cap"))
        if min(games, chunk_size, turn_cap) <= 0 or chunk_size > games:
            raise AcesimError(f"{where}: games {games}, chunk size {chunk_size} and turn cap {turn_cap} "
                              "must be positive, the chunk size at most the games")
        # checked as a fresh plan is: a plan.json edited by hand may ask for 10**15 games
        plan = make_plan(rules, a, b, games, seed, chunk_size, turn_cap=turn_cap)
    except AcesimError as error:
        if str(error).startswith(where):
            raise
        raise AcesimError(f"{where}: {error}") from None
    except (KeyError, TypeError, ValueError) as error:
        raise AcesimError(f"{where} is not a complete acesim plan ({error!r} is missing or malformed)") from None
    if plan.describe() != {**doc, "streams": plan.describe()["streams"]}:
        raise AcesimError(f"{where} does not describe a consistent plan")
    return plan


def load_plan(out: Path) -> Plan:
    """The plan of the run in folder ``out`` (for ``--resume``)."""
    path = Path(out) / PLAN_FILE
    doc = read_plan(out, PLAN_FILE, "an acesim run", MAX_PLAN_BYTES)
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


def plan_for(options: SimulateOptions, workers: int = 1, dask: bool = False, resume: Path | None = None) -> Plan:
    """The checked plan of ``acesim simulate``: a new run's, options not given taking their defaults;
    or with ``resume`` the plan of the run in that folder, which every option given must agree with
    (else a one-line error)."""
    o = options
    old = load_plan(resume) if resume is not None else None
    if old is not None and not o.given():
        return old
    d = SIMULATE_DEFAULTS
    if o.rules is not None or o.overrides or old is None:
        rules = load_rulesets(o.rules if o.rules is not None else d.rules, o.overrides)
    else:
        rules = list(old.rules)

    def seat(spec: str | None, default: str, kept: Strategy | None) -> Strategy:
        if spec is not None or o.strategies_file is not None or kept is None:
            return load_strategy(spec if spec is not None else default, o.strategies_file)
        return kept

    def value(name: str):
        given = getattr(o, name)
        return given if given is not None else getattr(d if old is None else old, name)

    plan = make_plan(rules, seat(o.strategy, d.strategy, old and old.strategy_a), seat(o.vs, d.vs, old and old.strategy_b),
                     value("games"), value("seed"), value("chunk_size"), workers, value("turn_cap"), dask=dask)
    if old is None:
        return plan
    difference = same_plan(old, plan)
    if difference:
        raise AcesimError(f"refusing to resume {resume}: its plan has a different {difference}")
    return old


def default_chunk_size(games: int, workers: int, dask: bool = False) -> int:
    """About 20 chunks per worker (a live progress bar, balanced load), within 1..MAX_CHUNK.

    On Dask a task costs milliseconds of scheduling and transfer, so chunks
    are at least MIN_DASK_CHUNK games (half a second or more of play for the
    fastest strategy), which keeps that overhead under 5% (docs/cluster.md).
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
    if games > MAX_GAMES:
        raise AcesimError(f"the number of games must be at most {MAX_GAMES:,}, got {games}")
    if chunk_size is not None and chunk_size > MAX_CHUNK_SIZE:
        raise AcesimError(f"the chunk size must be at most {MAX_CHUNK_SIZE:,} games, got {chunk_size}")
    if turn_cap > MAX_TURN_CAP:
        raise AcesimError(f"the turn cap must be at most {MAX_TURN_CAP:,}, got {turn_cap}")
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


# --- the output folder --------------------------------------------------------------


def _is_acesim_output(path: Path) -> bool:
    return (path / PLAN_FILE).exists()


def prepare_output(out: Path, force: bool) -> io.FolderLock:
    """Check that ``out`` can be written, then create it (or empty it, with ``force``).

    Returns the folder's lock, held (``run`` takes it again, re-entrantly); a
    folder another run is writing is refused.  Nothing is written on error.
    """
    return io.prepare_folder(out, force, _is_acesim_output, "output")


def rules_folder(out: Path, plan: Plan, ruleset: Ruleset) -> Path:
    """Where one rule set's records and summary go: ``out`` itself, or ``out/NAME`` for several.

    A name grown long by its overrides is cut and tagged with its digest, so
    the folder name fits the filesystem's 255 bytes and stays distinct.
    """
    if len(plan.rules) == 1:
        return out
    name = ruleset.name
    if len(name.encode("utf-8")) > MAX_FOLDER_NAME:
        name = f"{name[:MAX_FOLDER_NAME - 20]}-{hashlib.sha256(ruleset.name.encode()).hexdigest()[:12]}"
    return out / name


def chunk_path(folder: Path, first_game: int, plan: Plan) -> Path:
    return folder / RECORDS_DIR / f"chunk-{first_game // plan.chunk_size:06d}.parquet"


def _categorical(frame: pd.DataFrame) -> pd.DataFrame:
    for column in ("rules", "strategy_a", "strategy_b"):
        frame[column] = frame[column].astype("category")
    return frame


def write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` to ``path`` through a temporary name, so a kill leaves no half file."""
    frame = _categorical(frame)
    io.write_atomically(path, lambda tmp: frame.to_parquet(tmp, index=False))


def _planned_chunks(folder: Path) -> set[str] | None:
    """The chunk file names the ``plan.json`` of ``folder`` (or of its run folder) plans, if it has one."""
    for place in (folder, folder.parent):
        try:
            doc = json.loads((place / PLAN_FILE).read_text())
            chunks = int(doc["chunks"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if place == folder.parent and folder.name not in doc.get("rules", {}):
            continue
        return {f"chunk-{k:06d}.parquet" for k in range(chunks)}
    return None


def read_records(folder: Path) -> pd.DataFrame:
    """All records of one rule set's folder, in game order.

    Only the chunks its run's plan names are read: a stray file (a copy, a
    chunk of a larger earlier run) would otherwise add games twice.
    """
    folder = Path(folder)
    planned = _planned_chunks(folder)
    files = sorted(f for f in (folder / RECORDS_DIR).glob("chunk-*.parquet")
                   if f.is_file() and (planned is None or f.name in planned))
    if not files:
        raise AcesimError(f"no records in {folder}")
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True).sort_values("game", ignore_index=True)


def remove_strays(out: Path, plan: Plan) -> None:
    """Remove the chunk files under ``out`` that ``plan`` does not name; refuse folders in their place."""
    for ruleset in plan.rules:
        records = rules_folder(out, plan, ruleset) / RECORDS_DIR
        planned = {chunk_path(records.parent, first, plan) for first, _ in plan.chunks()}
        for path in records.iterdir():
            if path.is_dir() and not path.is_symlink():
                raise AcesimError(f"cannot resume {out}: {path} is a folder, not a chunk file; remove it")
            if path.name.startswith("chunk-") and path not in planned:
                path.unlink()


def valid_chunk(path: Path, plan: Plan, ruleset: Ruleset, first_game: int, n_games: int) -> pd.DataFrame | None:
    """The chunk's records if ``path`` holds exactly them (readable, the right games), else ``None``.

    A truncated or corrupted file fails to read; a file from another plan has
    other games, seed or rules.  Either way the chunk is played again.
    """
    if not path.is_file() or path.is_symlink():
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


def _chunk_task(plan: Plan, task: tuple[int, int, int], out: Path | None, workers_write: bool) -> tuple:
    """On a worker: play one chunk; write it, or return it as Parquet bytes for the parent to write."""
    start = time.perf_counter()
    i, first, n = task
    frame = chunk_frame(plan, i, first, n)
    payload = None
    if out is not None:
        if workers_write:
            write_parquet(frame, chunk_path(rules_folder(out, plan, plan.rules[i]), first, plan))
        else:
            buffer = pyio.BytesIO()
            _categorical(frame).to_parquet(buffer, index=False)
            payload = buffer.getvalue()
    return partial(frame), payload, os.getpid(), time.perf_counter() - start


def run(
    plan: Plan,
    out: Path | None = None,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    resume: bool = False,
    scheduler: str | None = None,
    timings: list | None = None,
    shared_out: bool = False,
    backend: Backend | None = None,
) -> list[dict]:
    """Run ``plan``; return one summary document per rule set (also written under ``out``).

    ``progress(n)`` is called with the number of games of each finished chunk.
    On Ctrl-C or SIGTERM the workers are killed, temporary files are removed,
    the complete chunk files stay, no summary is written, and
    ``KeyboardInterrupt`` is raised.  With ``resume`` the chunks whose files
    under ``out`` are complete and belong to this plan are read, not played.
    The chunks run on ``backend`` if given, else on ``workers`` local
    processes or, with ``scheduler``, on a Dask cluster (``acesim.common.cluster``);
    ``timings`` receives ``(worker pid, seconds)`` per chunk played.  ``out``
    is locked for the run (a second run into it is refused); a run that fails
    before any chunk is complete removes what it wrote, so it can be rerun
    without ``--force``.
    """
    check_workers(workers)
    out = Path(out) if out is not None else None
    with io.locked(out), ExitStack() as stack:
        if backend is None:
            backend = stack.enter_context(backend_for(workers, scheduler))
        try:
            partials = _run_chunks(plan, out, backend, progress, resume, timings, shared_out)
        except BaseException:
            if out is not None:
                io.remove_partials(out)
                if not resume:
                    _remove_if_nothing_played(out, plan)
            raise
        try:
            return _write_summaries(plan, out, partials)
        except AcesimError as error:  # only files are written here: a full disk, a vanished folder
            raise AcesimError(f"{error}; every chunk is complete: acesim simulate --resume {out} "
                              "writes the summaries") from None


def _run_chunks(plan, out, backend, progress, resume, timings, shared_out) -> dict[tuple[int, int], dict]:
    """Every chunk's partial sums, keyed by (rule set index, first game): read on resume, else played."""
    tasks = [(i, first, n) for i in range(len(plan.rules)) for first, n in plan.chunks()]
    partials: dict[tuple[int, int], dict] = {}
    if out is not None:
        _refuse_links(out, plan)
        io.write_json(out / PLAN_FILE, plan.describe())
        for ruleset in plan.rules:
            (rules_folder(out, plan, ruleset) / RECORDS_DIR).mkdir(parents=True, exist_ok=True)
        io.remove_partials(out)
    if resume and out is not None:
        remove_strays(out, plan)
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
    workers_write = backend.shares_files or shared_out

    def done(k: int, result: tuple) -> None:
        i, first, n = tasks[k]
        part, payload, pid, seconds = result
        if payload is not None:
            io.write_bytes(chunk_path(rules_folder(out, plan, plan.rules[i]), first, plan), payload)
        partials[(i, first)] = part
        if timings is not None:
            timings.append((pid, seconds))
        if progress:
            progress(n)

    map_tasks(_chunk_task, [(plan, task, out, workers_write) for task in tasks], backend, done)
    return partials


def _refuse_links(out: Path, plan: Plan) -> None:
    """Refuse a run folder whose rule-set or records folders are symlinks: the chunks would be written,
    and stray files removed, wherever they point."""
    for ruleset in plan.rules:
        folder = rules_folder(out, plan, ruleset)
        for path in (folder, folder / RECORDS_DIR):
            if path.is_symlink():
                raise AcesimError(f"refusing to write {out}: {path} is a symlink; acesim writes only inside "
                                  "its run folder")


def _remove_if_nothing_played(out: Path, plan: Plan) -> None:
    """Remove the folder of a run that failed before its first chunk (it holds only the plan)."""
    folders = [rules_folder(out, plan, r) / RECORDS_DIR for r in plan.rules]
    if any(f.is_dir() and any(f.glob("chunk-*.parquet")) for f in folders):
        return  # complete chunks: --resume finishes the run
    for f in folders:
        if f.is_dir() and not any(f.iterdir()):
            f.rmdir()
        if f.parent != out and f.parent.is_dir() and not any(f.parent.iterdir()):
            f.parent.rmdir()
    (out / PLAN_FILE).unlink(missing_ok=True)
    if [p.name for p in out.iterdir()] in ([], [io.LOCK_FILE]):
        shutil.rmtree(out, ignore_errors=True)


def _write_summaries(plan: Plan, out: Path | None, partials: dict) -> list[dict]:
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
            io.write_json(folder / SUMMARY_JSON, doc)
            io.write_csv(folder / SUMMARY_CSV, pd.DataFrame(table_rows(doc)))
    if out is not None and len(plan.rules) > 1:
        cube = any(has_cube(d) for d in summaries)
        io.write_csv(out / SUMMARY_CSV, pd.DataFrame([row for d in summaries for row in table_rows(d, cube)]))
    return summaries
