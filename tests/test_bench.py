"""The games benchmark's bookkeeping (its figures are recorded in docs/benchmarks.md, never asserted)."""

import math

from acesim.engine.rules import PRESETS
from acesim.runs.bench import bench_games, format_games_table


def test_games_bench_times_every_case_in_rounds_and_reports_best_and_worst():
    rows = bench_games(4, seed=3, strategies=("random",), rounds=2)
    ours = [r for r in rows if r.engine == "acesim"]
    assert [r.rules for r in ours] == list(PRESETS)
    for r in ours:
        assert r.games == (2 if r.rules == "european" else 4)
        assert math.isfinite(r.games_per_s) and r.games_per_s > 0
        assert 0 < r.slowest_games_per_s <= r.games_per_s
        assert r.rolls_per_game > 0
    table = format_games_table(rows, markdown=True)
    assert "| slowest round |" in table
    assert table.count("| acesim |") == len(PRESETS)
