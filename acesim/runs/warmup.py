"""Compile the kernels once, into Numba's cache on disk, so that no user command waits for the compiler.

Compiling every kernel takes minutes on two cores, and each kernel is
compiled the first time a run calls it: the README's first ``simulate`` took
3 min 16 s on a fresh install, and 4.4 s once compiled.  ``make install``
runs ``python -m acesim.runs.warmup`` after installing, which plays a few games
through every entry point a command has (games of each kind of player, the
cube, traces and per-roll luck, the equity fit, hint and rollout, legal
plays, the random walk, training), in stages of two groups side by side on
two cores when there are (``STAGES``): the cache they fill is the one every later process reads
(``acesim/kernels/__pycache__``, or ``NUMBA_CACHE_DIR``).  A command that finds the cache cold says so in one line
(``kernels.cache_is_warm``) before it compiles.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable

import numba
import numpy as np

from acesim.analyses.hint import hint
from acesim.common.cluster import backend_for
from acesim.common.tasks import default_workers, map_tasks
from acesim.engine.moves import legal_plays
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from acesim.engine.sampling import sample_positions
from acesim.engine.strategies import load_strategy, lowered
from acesim.kernels import cache_is_warm
from acesim.kernels.choice import _net_two_dice as net_two_dice, _tangent_beam as tangent_beam
from acesim.kernels.choice import exhaustive_play, linear_search, net_best_play, search_arrays
from acesim.kernels.memory import worker_memory
from acesim.kernels.plays import segment_of
from acesim.kernels.rng import STREAM_WORDS
from acesim.kernels.uniform import uniform_play
from acesim.runs import training as learned, simulate
from acesim.runs.options import AnalysisOptions
from acesim.runs.report import PARTS, analysis_plan, build
from acesim.runs.rollout import rollout


EUROPEAN, BACKGAMMON = Ruleset.preset("european"), Ruleset.preset("backgammon")


def _searches() -> tuple:
    """The start, the rules array, the memory area and the segment of a 6-3 under the European rules,
    as the game loop passes them to the searches: the same types, so the same compiled code."""
    memory = worker_memory(1)
    rules = EUROPEAN.to_array()
    n = segment_of(rules, np.int64(6), np.int64(3), np.bool_(False), memory.search.segment)
    return Position.start(EUROPEAN.start).to_board(), rules, memory, np.int64(n)


def _random_search() -> None:
    board, rules, memory, n = _searches()
    uniform_play(board, rules, memory.search.segment, n, np.ones(STREAM_WORDS, dtype=np.uint64), memory.draws)


def _scored_weights() -> np.ndarray:
    """The weight rows of a pairing of ``expert`` (row 0) and the European network (row 1), as the game
    loop takes them."""
    return lowered(load_strategy("expert"), load_strategy("learned:european"), EUROPEAN).weights


def _linear_searches() -> None:
    board, rules, memory, n = _searches()
    weights, sc = _scored_weights(), memory.search
    linear_search(board, rules, sc.segment, n, np.int64(1), weights[0], *search_arrays.py_func(sc), sc.play)
    exhaustive_play(board, rules, sc.segment, n, memory.plays, memory.found, weights[0], sc, sc.play)
    legal_plays(EUROPEAN, Position.start(EUROPEAN.start), (6, 3))


def _compile_for(kernel, *args) -> None:
    """Compile ``kernel`` for the types of ``args``, without running it."""
    kernel.compile(tuple(numba.typeof(arg) for arg in args))


def _tangent_beam() -> None:
    """Compile, without running it, the network's tangent beam as ``net_shortlist`` calls it: the network's
    search needs it a quarter of the way through its compile, and finds it in the cache when the other
    group of the first stage compiled it first."""
    board, rules, memory, n = _searches()
    sc = memory.search
    _compile_for(tangent_beam, board, rules, sc.segment, n, np.int64(16), _scored_weights()[1], np.int64(0), sc.net,
                 sc.beam, sc.beam_scores, sc.beam_sums, sc.parent, sc.parent_sum, sc.child, sc.moves)


def _network_search() -> None:
    board, rules, memory, n = _searches()
    weights, sc = _scored_weights(), memory.search
    # the two-dice search first, which the other group does not compile: by the time the doubles' search
    # needs the tangent beam, the beam and the enumeration, that group has put them in the cache
    _compile_for(net_two_dice, board, rules, sc.segment[0], sc.segment[1], np.bool_(False), weights[1], sc.net,
                 sc.child, sc.parent, sc.moves, sc.moves_after, sc.pairs, sc.play)
    net_best_play(board, rules, sc.segment, n, np.int64(0), np.bool_(False), memory.plays, memory.found,
                  weights[1], sc, sc.play)


def _games() -> None:
    cube = EUROPEAN.with_overrides({"cube": "money"})
    for a, b in (("expert", "random"), ("learned:european", "racer"), ("learned:european@full", "expert")):
        plan = simulate.make_plan([EUROPEAN, cube], load_strategy(a), load_strategy(b), 2, 1)
        simulate.run(plan, workers=1)


def _analyses() -> None:
    build(analysis_plan("report", PARTS, AnalysisOptions("european", games=12, equity_games=12, luck_games=3,
                                                         ladder_games=1)))


def _positions() -> None:
    for rules in (EUROPEAN, BACKGAMMON):
        start = Position.start(rules.start)
        hint(rules, start, "1-2", ply=2)
        legal_plays(rules, start, (6, 3))
        sample_positions(rules, 20, 1)
    rollout(BACKGAMMON, Position.start("backgammon"), 36, dice="3-1", candidates=2, truncate=2)
    rollout(EUROPEAN, Position.start("off-board"), 36, workers=1)


def _training() -> None:
    learned.train(EUROPEAN, 2, 1, eval_every=0, workers=1)


STEPS: dict[str, Callable[[], None]] = {"tangent beam": _tangent_beam, "random search": _random_search,
                                        "linear searches": _linear_searches,
                                        "network search": _network_search, "games": _games,
                                        "analyses": _analyses, "positions": _positions, "training": _training}
# Stages one after the other, each of groups side by side, one per core.  Every player's turn links
# the searches (the random player's and the scoring ones), so the first stage compiles them before
# any later group calls them, which then read them from the cache instead of each compiling them at
# once.  The network's search is the longest to compile, so its group starts with the two-dice search
# and the other group with the three kernels the doubles' search calls that the two-dice search does
# not (the tangent beam, the heuristic's beam, the enumeration of plays): each is in the cache before
# the network's search reaches it, a race the other group wins with room to spare
# (docs/performance-log.md).
# Then the games and the positions (the look-ahead, the rollouts' trials), the two longest of the
# rest, side by side; last the analyses and training, which call the game loop the games compiled.
# Balanced by their cold times.  acesim.kernels.jit locks Numba's cache files, which two processes may
# write at once.
STAGES = ((("tangent beam", "linear searches", "random search"), ("network search",)),
          (("games",), ("positions",)),
          (("analyses",), ("training",)))


def _run_steps(names: tuple[str, ...]) -> list[tuple[str, float]]:
    """Run the named steps in this process; each one's seconds."""
    done = []
    with warnings.catch_warnings():
        # a dozen games give degenerate samples (a zero spread); only the compiling matters here
        warnings.simplefilter("ignore", RuntimeWarning)
        for name in names:
            began = time.perf_counter()
            STEPS[name]()
            done.append((name, time.perf_counter() - began))
    return done


def warm(say: Callable[[str], None] = lambda line: None, workers: int | None = None) -> float:
    """Run every step once, stage by stage, the groups of a stage side by side on up to ``workers``
    processes (every core, at most one per group, when None); return the seconds it took."""
    began = time.perf_counter()
    n = min(max(len(groups) for groups in STAGES), workers or default_workers())

    def said(_: int, done: list[tuple[str, float]]) -> None:
        for name, seconds in done:
            say(f"  {name}: {seconds:.0f} s")

    if n == 1:
        said(0, _run_steps(tuple(name for groups in STAGES for group in groups for name in group)))
    else:
        with backend_for(n) as backend:
            for groups in STAGES:
                map_tasks(_run_steps, [(group,) for group in groups], backend, said)
    return time.perf_counter() - began


def main(argv: list[str] | None = None) -> None:
    """``python -m acesim.runs.warmup [--if-cold]``: compile every kernel (``--if-cold``: unless the cache
    already holds them, as after an earlier install whose kernel sources have not changed since)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv not in ([], ["--if-cold"]):
        sys.exit("usage: python -m acesim.runs.warmup [--if-cold]")
    if argv and cache_is_warm():
        return
    print("acesim: compiling the kernels into Numba's cache (once per install; a few minutes)", flush=True)
    seconds = warm(lambda line: print(line, flush=True))
    print(f"acesim: kernels compiled in {seconds:.0f} s", flush=True)


if __name__ == "__main__":
    main()
