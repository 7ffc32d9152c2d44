"""Compile the kernels once, into Numba's cache on disk, so that no user command waits for the compiler.

Compiling every kernel takes minutes on two cores, and each kernel is
compiled the first time a run calls it: the README's first ``simulate`` took
3 min 16 s on a fresh install, and 4.4 s once compiled.  ``make install``
runs ``python -m acesim.runs.warmup`` after installing, which plays a few games
through every entry point a command has (games of each kind of player, the
cube, traces and per-roll luck, the equity fit, hint and rollout, legal
plays, the random walk, training), in this one process: the cache it fills is
the one every later process reads (``acesim/kernels/__pycache__``, or
``NUMBA_CACHE_DIR``).  A command that finds the cache cold says so in one line
(``kernels.cache_is_warm``) before it compiles.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable

from acesim.analyses.hint import hint
from acesim.engine.moves import legal_plays
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from acesim.engine.sampling import sample_positions
from acesim.engine.strategies import load_strategy
from acesim.kernels import cache_is_warm
from acesim.runs import training as learned, simulate
from acesim.runs.options import AnalysisOptions
from acesim.runs.report import PARTS, analysis_plan, build
from acesim.runs.rollout import rollout


def _steps() -> list[tuple[str, Callable[[], object]]]:
    european, backgammon = Ruleset.preset("european"), Ruleset.preset("backgammon")
    cube = european.with_overrides({"cube": "money"})

    def games() -> None:
        for a, b in (("expert", "random"), ("learned:european", "racer"), ("learned:european@full", "expert")):
            plan = simulate.make_plan([european, cube], load_strategy(a), load_strategy(b), 2, 1)
            simulate.run(plan, workers=1)

    def analyses() -> None:
        build(analysis_plan("report", PARTS, AnalysisOptions("european", games=12, equity_games=12, luck_games=3,
                                                             ladder_games=1)))

    def positions() -> None:
        for rules in (european, backgammon):
            start = Position.start(rules.start)
            hint(rules, start, "1-2", ply=2)
            legal_plays(rules, start, (6, 3))
            sample_positions(rules, 20, 1)
        rollout(backgammon, Position.start("backgammon"), 36, dice="3-1", candidates=2, truncate=2)
        rollout(european, Position.start("off-board"), 36, workers=1)

    def training() -> None:
        learned.train(european, 2, 1, eval_every=0, workers=1)

    return [("games", games), ("analyses", analyses), ("positions", positions), ("training", training)]


def warm(say: Callable[[str], None] = lambda line: None) -> float:
    """Run every step once in this process; return the seconds it took."""
    began = time.perf_counter()
    with warnings.catch_warnings():
        # a dozen games give degenerate samples (a zero spread); only the compiling matters here
        warnings.simplefilter("ignore", RuntimeWarning)
        for name, step in _steps():
            t = time.perf_counter()
            step()
            say(f"  {name}: {time.perf_counter() - t:.0f} s")
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
