"""Speed measurements for ``make bench`` (recorded in docs/benchmarks.md, never asserted by tests)."""

from __future__ import annotations

import math
import random
import resource
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from acesim.analyses.hint import PLIES, hint
from acesim.common.cluster import cluster_address
from acesim.common.errors import AcesimError
from acesim.common.terminal import WIDTH, key_count, markdown_table, text_table
from acesim.engine.games import play_records
from acesim.engine.openspiel_bridge import random_states
from acesim.engine.position import Position
from acesim.engine.rules import PRESETS, load_ruleset
from acesim.engine.sampling import sample_positions
from acesim.engine.strategies import load_strategy, resolve_spec
from acesim.kernels import game_loop as K, layout as L
from acesim.kernels.plays import (
    FULL,
    enumerate_each,
    enumerate_plays,
    grown_workspace,
    new_workspace,
    segment_of,
)
from acesim.runs import simulate as sim
from acesim.runs.rollout import check_luck_plays, rollout


PASSES = 7


@dataclass(frozen=True)
class BenchRow:
    engine: str
    rules: str
    rolls: str  # "non-double" or "double"
    calls: int
    us_per_call: float
    mean_plays: float
    note: str = ""

    @property
    def calls_per_s(self) -> float:
        return 1e6 / self.us_per_call


def _time_kernel(boards: np.ndarray, dice: np.ndarray, rules: np.ndarray) -> tuple[float, float]:
    """Best-of-seven microseconds per call from a jitted loop, and mean plays per call.

    Process CPU time, best of several passes: this VM's speed wanders by tens
    of percent between seconds, and the minimum is the repeatable figure.
    """
    ws = new_workspace()
    out = np.zeros(3, dtype=np.int64)
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    while enumerate_each(boards, dice, rules, ws, out, segment) == FULL:
        ws = grown_workspace(ws)  # warm-up: compile and size the workspace
    best = float("inf")
    total = 0
    for _ in range(PASSES):
        start = time.process_time()
        total = enumerate_each(boards, dice, rules, ws, out, segment)
        best = min(best, time.process_time() - start)
    return best / len(boards) * 1e6, total / len(boards)


def _time_python_calls(boards: np.ndarray, dice: np.ndarray, rules: np.ndarray) -> float:
    """Microseconds per kernel call made one at a time from Python (as a binding would)."""
    ws = new_workspace()
    out = np.zeros(3, dtype=np.int64)
    segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
    for board, (a, b) in zip(boards, dice):  # warm-up and sizing
        n = segment_of(rules, a, b, False, segment)
        while enumerate_plays(board, rules, segment, n, ws, out) == FULL:
            ws = grown_workspace(ws)
    best = float("inf")
    for _ in range(PASSES):
        start = time.process_time()
        for board, (a, b) in zip(boards, dice):
            n = segment_of(rules, a, b, False, segment)
            enumerate_plays(board, rules, segment, n, ws, out)
        best = min(best, time.process_time() - start)
    return best / len(boards) * 1e6


def _time_openspiel(n_positions: int, seed: int) -> list[BenchRow]:

    samples = random_states(n_positions, seed)
    rows = []
    for label, want_double in (("non-double", False), ("double", True)):
        states = [s for s, (a, b) in samples if (a == b) == want_double]
        if not states:
            continue
        for s in states:  # warm-up
            s.legal_actions()
        best = float("inf")
        n_actions = 0
        for _ in range(PASSES):
            start = time.process_time()
            n_actions = sum(len(s.legal_actions()) for s in states)
            best = min(best, time.process_time() - start)
        note = "legal_actions() from Python"
        if want_double:
            note += "; a double is two decisions, this times the first"
        rows.append(
            BenchRow("openspiel", "backgammon", label, len(states), best / len(states) * 1e6,
                     n_actions / len(states), note)
        )
    return rows


def bench_moves(n_positions: int, n_openspiel: int, seed: int) -> list[BenchRow]:
    """Legal-play generation over positions from random games, per preset and roll kind."""
    rows: list[BenchRow] = []
    for name, ruleset in PRESETS.items():
        boards, dice = sample_positions(ruleset, n_positions, seed)
        rules = ruleset.to_array()
        doubles = dice[:, 0] == dice[:, 1]
        for label, mask in (("non-double", ~doubles), ("double", doubles)):
            b, d = np.ascontiguousarray(boards[mask]), np.ascontiguousarray(dice[mask])
            us, plays = _time_kernel(b, d, rules)
            rows.append(BenchRow("acesim", name, label, len(b), us, plays, "kernel, jitted loop"))
            if name == "backgammon":
                us_py = _time_python_calls(b, d, rules)
                rows.append(
                    BenchRow("acesim", name, label, len(b), us_py, plays, "kernel, one call from Python")
                )
    try:
        rows += _time_openspiel(n_openspiel, seed)
    except AcesimError:
        pass  # open-spiel not installed: the table says so by its absence
    return rows


def format_moves_table(rows: list[BenchRow], markdown: bool = False) -> str:
    openspiel = {r.rolls: r.us_per_call for r in rows if r.engine == "openspiel"}
    header = ["engine", "rules", "rolls", "calls", "µs/call", "calls/s", "plays/call", "vs OpenSpiel", "how"]
    lines = []
    for r in rows:
        ratio = ""
        if r.rules == "backgammon" and r.engine == "acesim" and r.rolls in openspiel:
            ratio = f"{openspiel[r.rolls] / r.us_per_call:.1f}× faster"
        lines.append([
            r.engine, r.rules, r.rolls, f"{r.calls}", f"{r.us_per_call:.2f}",
            f"{r.calls_per_s:,.0f}", f"{r.mean_plays:.1f}", ratio, r.note,
        ])
    return _render(header, lines, markdown)


# --- whole games ------------------------------------------------------------------

GAME_STRATEGIES = ("random", "racer", "safe", "blocker", "expert", "best")  # best: the preset's learned model


ROUNDS = 3  # every case is timed once per round; a case's figure is its best round


@dataclass(frozen=True)
class GamesRow:
    engine: str
    rules: str
    strategy: str
    games: int
    games_per_s: float  # the best round
    rolls_per_game: float
    note: str = ""
    slowest_games_per_s: float = float("nan")  # the worst round: how noisy the machine was


def _games_case(ruleset, strategy, n_games: int, seed: int):
    """A function timing one run of ``n_games`` self-play games (process CPU time); the kernels compiled first."""
    s = load_strategy(strategy)
    play_records(ruleset, s, s, seed, 0, 2)  # compile or load the kernels
    runs = 0

    def run() -> tuple[float, float]:
        nonlocal runs
        start = time.process_time()
        records = play_records(ruleset, s, s, seed, runs * n_games, n_games)
        elapsed = time.process_time() - start
        runs += 1
        return elapsed, float((records[:, K.ROLLS] + records[:, K.ROLLS + 1]).mean())

    return run


def _openspiel_games_per_s(n_games: int, seed: int) -> list[GamesRow]:
    try:
        import pyspiel
    except ImportError:
        return []

    game = pyspiel.load_game("backgammon")
    rng = random.Random(seed)

    def play() -> int:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        return 0

    rows = []
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for _ in range(n_games):
            play()
        best = min(best, time.process_time() - start)
    rows.append(GamesRow("openspiel", "backgammon", "uniform action", n_games, n_games / best, float("nan"),
                         "C++ engine stepped from Python (apply_action, legal_actions)"))
    sims = max(1, n_games // 4)
    start = time.process_time()
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)
    rows.append(GamesRow("openspiel", "backgammon", "uniform action", sims, sims / (time.process_time() - start),
                         float("nan"), "pyspiel.random_sim_test: C++ loop, with its per-state checks"))
    return rows


def bench_games(n_games: int, seed: int, strategies=GAME_STRATEGIES, rounds: int = ROUNDS,
                presets=tuple(PRESETS)) -> list[GamesRow]:
    """Self-play games per second per core, per preset and strategy, and OpenSpiel's for scale.

    European ``random`` enumerates every play of every eight-die segment, so it
    runs a tenth of the games, and the learned players (``best``, resolved per
    preset) a fifth.  The cases are timed in ``rounds`` rounds,
    each round timing every case once on new games, so a slow spell of a shared
    machine spoils one round of many cases rather than every run of one case;
    a case reports its best round and its worst.  ``presets``: the presets to play (OpenSpiel's rows
    come with backgammon's).
    """
    unknown = [p for p in presets if p not in PRESETS]
    if unknown:
        raise AcesimError(f"unknown preset {unknown[0]!r}; presets are {', '.join(PRESETS)}")
    cases = []
    for name, ruleset in PRESETS.items():
        if name not in presets:
            continue
        for spec in strategies:
            strategy = resolve_spec(spec, ruleset)
            n = n_games
            if name == "european" and strategy == "random":
                n = max(2, n_games // 10)
            elif strategy.startswith("learned:"):
                n = max(2, n_games // 5)
            cases.append((name, strategy, n, _games_case(ruleset, strategy, n, seed)))
    times = [[] for _ in cases]
    rolls = [0.0] * len(cases)
    for _ in range(rounds):
        for k, (_, _, _, run) in enumerate(cases):
            elapsed, rolls[k] = run()
            times[k].append(elapsed)
    rows = [
        GamesRow("acesim", name, strategy, n, n / min(t), rolls[k], "self-play, one core", n / max(t))
        for k, ((name, strategy, n, _), t) in enumerate(zip(cases, times))
    ]
    if "backgammon" in presets:
        rows += _openspiel_games_per_s(max(10, n_games // 10), seed)
    return rows


def format_games_table(rows: list[GamesRow], markdown: bool = False) -> str:
    openspiel = max((r.games_per_s for r in rows if r.engine == "openspiel"), default=None)
    header = ["engine", "rules", "strategy", "games", "games/s per core", "slowest round", "rolls/game",
              "vs OpenSpiel", "how"]
    lines = []
    for r in rows:
        ratio = ""
        if openspiel and r.rules == "backgammon" and r.engine == "acesim" and r.strategy == "random":
            ratio = f"{r.games_per_s / openspiel:.1f}×"
        rolls = "" if r.rolls_per_game != r.rolls_per_game else f"{r.rolls_per_game:.1f}"
        slowest = "" if r.slowest_games_per_s != r.slowest_games_per_s else f"{r.slowest_games_per_s:,.0f}"
        lines.append([r.engine, r.rules, r.strategy, f"{r.games:,}", f"{r.games_per_s:,.0f}", slowest, rolls, ratio,
                      r.note])
    return _render(header, lines, markdown)


# --- a whole run: speed on every core, and memory ---------------------------------------


def bench_simulate(rules: str, strategy: str, games: int, workers: int, seed: int) -> dict:
    """Wall time, games/s and peak memory of a full ``simulate`` run writing Parquet to a temp folder."""
    s = load_strategy(strategy)
    plan = sim.make_plan([load_ruleset(rules)], s, s, games, seed, workers=workers)
    folder = Path(tempfile.mkdtemp(prefix="acesim-bench-"))
    try:
        out = folder / "run"
        sim.prepare_output(out, force=False)
        start = time.perf_counter()
        sim.run(plan, out, workers)
        wall = time.perf_counter() - start
        size = sum(p.stat().st_size for p in out.rglob("*.parquet"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "rules": rules,
        "strategy": strategy,
        "games": games,
        "workers": workers,
        "chunk_size": plan.chunk_size,
        "wall_s": wall,
        "games_per_s": games / wall,
        "parent_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "worker_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "parquet_mb": size / 2**20,
    }


def _render(header: list[str], lines: list[list[str]], markdown: bool, width: int = WIDTH) -> str:
    """A Markdown table (for files: as wide as it is), or plain aligned columns no wider than ``width``.

    The plain table repeats the columns that tell its rows apart in each part it is split into;
    the last column, when it is the words of ``how``, wraps.
    """
    if markdown:
        return "\n".join(markdown_table(header, lines))
    text = {len(header) - 1} if header[-1] == "how" else set()
    keys = key_count([line[: len(header) - len(text)] for line in lines])
    return "\n".join(text_table(header, lines, width, keys=keys, left=set(range(len(header))), text=text))


def bench_cluster(rules: str, strategy: str, games: int, workers: int, seed: int,
                  chunk_sizes: tuple[int, ...] | None = None) -> dict:
    """The same run locally (``workers`` processes) and on a ``workers``-process Dask LocalCluster.

    First the cluster starts (timed apart) and every worker plays a small
    chunk twice: the first time each worker process compiles (or loads from
    Numba's on-disk cache) the kernels, the second time it does not, which
    shows that the kernels are compiled once per worker process, not per
    chunk.  The parent process is warmed the same way, so the local workers
    (forked from it) start compiled.  Then, for each chunk size, wall times,
    games/s and the Dask overhead per chunk ``(wall_dask - wall_local) /
    chunks`` with its share of the local wall time.
    """
    s = load_strategy(strategy)
    ruleset = load_ruleset(rules)
    sizes = chunk_sizes or (sim.default_chunk_size(games, workers, dask=True), sim.default_chunk_size(games, workers),
                            max(1, games // 400))
    rows = []
    folder = Path(tempfile.mkdtemp(prefix="acesim-bench-"))
    try:
        start = time.perf_counter()
        with cluster_address(f"local:{workers}") as address:
            startup = time.perf_counter() - start
            warm = sim.make_plan([ruleset], s, s, 20 * workers * 4, seed, 20)
            first: list = []
            second: list = []
            sim.run(warm, None, workers, scheduler=address, timings=first)
            sim.run(warm, None, workers, scheduler=address, timings=second)
            sim.run(warm, None, 1)  # the parent: forked local workers start compiled
            for size in dict.fromkeys(sizes):
                plan = sim.make_plan([ruleset], s, s, games, seed, size, workers)
                walls = {}
                for mode in ("local", "dask"):
                    out = folder / f"{mode}-{size}"
                    sim.prepare_output(out, force=False)
                    begin = time.perf_counter()
                    sim.run(plan, out, workers, scheduler=address if mode == "dask" else None)
                    walls[mode] = time.perf_counter() - begin
                chunks = len(plan.chunks())
                rows.append({
                    "chunk_size": size, "chunks": chunks,
                    "local_wall_s": round(walls["local"], 3), "dask_wall_s": round(walls["dask"], 3),
                    "local_games_per_s": round(games / walls["local"]),
                    "dask_games_per_s": round(games / walls["dask"]),
                    "overhead_per_chunk_ms": round(1000 * (walls["dask"] - walls["local"]) / chunks, 1),
                    "overhead_share": round((walls["dask"] - walls["local"]) / walls["local"], 4),
                })
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    def per_worker(timings):
        seen: dict[int, list[float]] = {}
        for pid, seconds in timings:
            seen.setdefault(pid, []).append(round(seconds, 3))
        return {str(pid): v for pid, v in seen.items()}

    return {
        "rules": rules, "strategy": strategy, "games": games, "workers": workers,
        "cluster_startup_s": round(startup, 2),
        "warm_up_chunk_seconds_first_pass": per_worker(first),
        "warm_up_chunk_seconds_second_pass": per_worker(second),
        "runs": rows,
    }


def _in_play(board) -> bool:
    """Neither side has borne off every checker: a position there is something to analyse in."""
    return board[L.OFF] < L.N_CHECKERS and board[L.OPP_OFF] < L.N_CHECKERS


def bench_hint(n_positions: int, seed: int, markdown: bool = False) -> str:
    """Seconds per ``acesim.analyses.hint`` call, per preset and ply, over positions of random games.

    Each position comes with the roll that was played from it (a 1-2 in one
    of 18, whose hint values the six doubles' whole segments too).  The
    strategy is ``best``; the kernels are compiled before the timing.
    """
    lines = []
    for name, ruleset in PRESETS.items():
        boards, dice = sample_positions(ruleset, n_positions, seed)
        playing = [i for i, b in enumerate(boards) if _in_play(b)]
        positions = [Position.from_board(boards[i]) for i in playing]
        rolls = [(int(dice[i][0]), int(dice[i][1])) for i in playing]
        strategy = resolve_spec("best", ruleset)
        for ply in PLIES:
            hint(ruleset, Position.start(ruleset.start), (1, 2), strategy, ply)  # compile or load the kernels
            seconds, plays = [], []
            for position, roll in zip(positions, rolls):
                frame = hint(ruleset, position, roll, strategy, ply, top=1)
                seconds.append(frame.attrs["seconds"])
                plays.append(frame.attrs["plays"])
            s = np.array(seconds)
            lines.append([name, strategy, str(ply), str(len(s)), f"{np.mean(plays):.1f}", f"{np.median(s):.4f}",
                          f"{np.percentile(s, 95):.4f}", f"{s.max():.4f}"])
    header = ["rules", "strategy", "ply", "positions", "mean plays", "median s", "95th percentile s", "max s"]
    return _render(header, lines, markdown)


def _fewer_trials(plain: float, corrected: float) -> float:
    """How many times fewer trials the corrected rollout needs: a few trials of a decided
    position can show no spread at all, one way or both."""
    if corrected > 0:
        return plain / corrected
    return math.inf if plain > 0 else math.nan


def bench_rollout(n_positions: int, trials: int, seed: int, workers: int, markdown: bool = False,
                  luck_plays: tuple[str, ...] = ("heuristic", "player")) -> str:
    """The luck correction's cost and effect, per preset and way of measuring luck, on positions of random games.

    Each position (the ``sample_positions`` of ``seed``, waiting checkers
    allowed) is rolled out ``trials`` times with the rule set's ``best``
    player, once without the correction and once per ``luck_plays``, one
    after the other so that the machine's swings fall on every way alike.
    The variance per trial with and without the correction is averaged over
    the positions; their ratio is how many times fewer trials the corrected
    rollout needs for the same interval width, and trials/s times that ratio
    is the plain trials/s that would reach the same width.
    """
    for way in luck_plays:
        check_luck_plays(way)  # before the first rollout, not after it
    ways = (None,) + tuple(luck_plays)
    lines = []
    for name, ruleset in PRESETS.items():
        boards, _ = sample_positions(ruleset, n_positions, seed)
        variance = {way: [] for way in ways}
        seconds = {way: 0.0 for way in ways}
        for board in filter(_in_play, boards):
            for way in ways:
                result = rollout(ruleset, Position.from_board(board), trials, "best", seed=seed, workers=workers,
                                 reduce=way is not None, luck_plays=way or "heuristic")
                variance[way].append(result.candidates.iloc[0]["sd"] ** 2)
                seconds[way] += result.attrs["seconds"]
        plain = float(np.mean(variance[None]))
        for way in ways:
            ratio = _fewer_trials(plain, float(np.mean(variance[way]))) if way is not None else 1.0
            speed = len(variance[way]) * trials / seconds[way]
            lines.append([name, resolve_spec("best", ruleset), way or "none", str(len(variance[way])), f"{trials:,}",
                          f"{np.sqrt(np.mean(variance[way])):.3f}", f"{ratio:.1f}", f"{speed:.1f}",
                          f"{speed * ratio:.1f}"])
    header = ["rules", "strategy", "luck plays", "positions", "trials each", "sd/trial", "fewer trials (x)",
              "trials/s", "plain-equivalent trials/s"]
    return _render(header, lines, markdown)
