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


def test_games_bench_plays_the_presets_and_strategies_asked_for():
    rows = bench_games(4, seed=3, strategies=("racer", "expert@rank=2"), rounds=1, presets=("navy",))
    assert [(r.engine, r.rules, r.strategy) for r in rows] == [("acesim", "navy", "racer"),
                                                               ("acesim", "navy", "expert@rank=2")]


def test_games_bench_options_refuse_bad_names_in_one_line():
    from typer.testing import CliRunner

    from acesim.cli import app

    for args, said in [(["--rules", "europa"], "unknown preset 'europa'"),
                       (["--strategies", "expert,,racer"], "empty name in --strategies"),
                       (["--strategies", "racer,racer"], "'racer' is given twice in --strategies"),
                       (["--rules", "navy", "--strategies", "wizard"], "unknown strategy 'wizard'")]:
        result = CliRunner().invoke(app, ["bench", "games", "--games", "2", *args])
        assert result.exit_code == 1
        assert said in result.output and len(result.output.strip().splitlines()) == 1, result.output
