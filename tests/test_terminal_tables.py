"""Every table the CLI prints fits 100 columns, and no number in it is cut, wrapped or ellipsised.

The terminal tables are rendered at width 100 from real (small) runs; each
test checks every line's width, that no "…" appears, and that every cell of
the table's data appears whole on one line of the output.
"""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from acesim.analyses.hint import format_hint, hint
import acesim.cli as cli
from acesim.common.terminal import layout, markdown_blocks, rich_tables, text_table
from acesim.engine.position import Position
from acesim.engine.rules import load_ruleset
from acesim.runs import bench
from acesim.runs.rollout import format_rollout, rollout

WIDTH = 100
runner = CliRunner()


def check_fits(text: str, cells=(), width: int = WIDTH) -> None:
    lines = text.splitlines()
    too_wide = [line for line in lines if cell_len(line.rstrip()) > width]
    assert not too_wide, "\n".join(too_wide)
    assert "…" not in text
    for cell in cells:
        assert any(cell in line for line in lines), f"{cell!r} is not whole on any line"


@pytest.fixture
def console_100(monkeypatch):
    """The CLI's console at 100 columns, writing to the runner's stdout."""
    monkeypatch.setattr(cli, "console", Console(highlight=False, width=WIDTH))


def run(*args: str) -> str:
    result = runner.invoke(cli.app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


# --- the splitting itself --------------------------------------------------------------------------


def test_a_wide_table_is_split_with_its_key_column_repeated():
    header = ["rule set"] + [f"figure number {k} [95% CI]" for k in range(8)]
    rows = [[name] + [f"{k + 0.123456:.4f} [{k:.4f}, {k + 1:.4f}]" for k in range(8)]
            for name in ("european", "american", "navy", "backgammon")]
    lines = text_table(header, rows, WIDTH)
    check_fits("\n".join(lines), [c for row in rows for c in row])
    blocks = "\n".join(lines).split("\n\n")
    assert len(blocks) > 1
    for block in blocks:
        assert all(name in block for name in ("european", "american", "navy", "backgammon"))
    # the same rows split over as few tables as fit, their widths close to even
    groups = layout(header, rows, WIDTH, keys=1)
    assert len(groups) == len(blocks)
    sizes = [len(g.columns) for g in groups]
    assert max(sizes) - min(sizes) <= 1


def test_rows_told_apart_by_two_columns_repeat_both():
    header = ["rule set", "figure", "difference", "paired 95% CI", "unpaired 95% CI", "width ratio"]
    rows = [[r, f, "+9.570 rolls *", "[+7.354, +11.786]", "[+7.177, +11.963]", "0.93"]
            for r in ("american", "navy") for f in ("rolls per game (both sides)", "first mover's points minus "
                                                    "second mover's")]
    tables = rich_tables(header, rows, width=60)
    console = Console(width=60, record=True, file=open("/dev/null", "w"))
    for t in tables:
        console.print(t)
    text = console.export_text()
    # the numbers stay whole; the figure's name is words, and wraps
    check_fits(text, [c for row in rows for c in row[2:]] + ["american", "navy"], 60)
    assert "second mover's" in text
    assert len(tables) > 1
    assert all(str(t.columns[0].header) == "rule set" and str(t.columns[1].header) == "figure" for t in tables)


def test_markdown_blocks_keep_the_text_and_read_the_tables():
    blocks = markdown_blocks("Intro `code` line.\n\n| a | b |\n|---|---|\n| **x** | `1.5` |\n\nAfter.\n")
    assert blocks[0].strip() == "Intro `code` line."
    assert blocks[1] == (["a", "b"], [["x", "1.5"]])
    assert blocks[2].strip() == "After."


# --- the CLI's tables ------------------------------------------------------------------------------


def test_analysis_summary_fits(console_100, monkeypatch, tmp_path):
    printed: list[list[str]] = []
    original = cli._print_markdown

    def capture(lines):
        printed.append(lines)
        original(lines)

    monkeypatch.setattr(cli, "_print_markdown", capture)
    out = run("report", "--rules", "european,american,navy,backgammon", "--games", "150", "--equity-games", "60",
              "--luck-games", "6", "--ladder-games", "4", "--strategy", "expert", "--workers", "1", "--no-progress",
              "--out", str(tmp_path / "r"))
    (lines,) = printed
    tables = [b for b in markdown_blocks("\n".join(lines)) if not isinstance(b, str)]
    assert len(tables) >= 5  # comparison, paired differences, bonus model, roll values, luck
    check_fits(out, [cell for _, rows in tables for row in rows for cell in row])


def test_simulate_summary_fits(console_100):
    out = run("simulate", "--rules", "european,american,navy,backgammon", "--games", "30", "--strategy", "expert",
              "--workers", "1", "--no-progress")
    numbers = re.findall(r"-?\d+\.\d+ \[-?\d+\.\d+, -?\d+\.\d+\]", out)
    rates = re.findall(r"\d+\.\d\d% \[\d+\.\d\d%, \d+\.\d\d%\]", out)  # the rates, in percent
    assert len(numbers) == 4 * 8 and len(rates) == 4 * 4
    check_fits(out, ["european: value [95% CI]", "backgammon: value [95% CI]", "2,", "30 games"])


def test_the_cube_tables_fit(console_100, monkeypatch):
    printed: list[list[str]] = []
    original = cli._print_markdown

    def capture(lines):
        printed.append(lines)
        original(lines)

    monkeypatch.setattr(cli, "_print_markdown", capture)
    out = run("compare", "--rules", "navy", "--sweep", "cube=none,money", "--games", "60", "--strategy", "expert",
              "--workers", "1", "--no-progress")
    (lines,) = printed
    tables = [b for b in markdown_blocks("\n".join(lines)) if not isinstance(b, str)]
    cube = [rows for header, rows in tables if "ended by a dropped double" in header]
    assert len(cube) == 1 and len(cube[0]) == 2
    check_fits(out, [cell for _, rows in tables for row in rows for cell in row])
    out = run("simulate", "--rules", "navy", "--rule", "cube=money", "--games", "30", "--strategy", "expert",
              "--workers", "1", "--no-progress")
    check_fits(out, ["games ended by a dropped double", "final cube value", "doubles offered per game"])


def test_rules_list_and_show_fit(console_100, tmp_path):
    out = run("rules", "list")
    check_fits(out, ["four-plus-complement", "bearoff-only", "per-checker", "stakes_double_on_1_2", "cube_max"])
    for name in ("european", "american", "navy", "backgammon"):
        check_fits(run("rules", "show", name), ["home_after_all_in"])
    out = run("rules", "show", "european", "--rule", "scoring=gammons")
    check_fits(out, ["single (changed)", "gammons"])


def test_ladder_fits(console_100):
    out = run("ladder", "--rules", "european", "--games", "4", "--strategies", "random,racer,safe,blocker,expert,best",
              "--workers", "1", "--no-progress")
    cells = re.findall(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", out)
    assert len(cells) == 6 * 5
    check_fits(out, ["learned:any"])


@pytest.mark.parametrize("rules, dice, ply", [("european", "1-2", 1), ("american", "6-6", 2), ("navy", "3-1", 1)])
def test_hint_fits(rules, dice, ply):
    ruleset = load_ruleset(rules)
    frame = hint(ruleset, Position.start(ruleset.start), dice, "best", ply, None)
    text = format_hint(frame, ruleset, WIDTH)
    check_fits(text, [f"{e:+.4f}" for e in frame["equity"]])
    for play in frame["play"]:  # a long play wraps at its spaces, never inside a move
        assert all(any(move in line for line in text.splitlines()) for move in play.split())
    # narrower still: the table splits and the play wraps, the numbers stay whole
    check_fits(format_hint(frame, ruleset, 60), [f"{e:+.4f}" for e in frame["equity"]], 60)


def test_rollout_fits():
    ruleset = load_ruleset("european")
    result = rollout(ruleset, Position.start(ruleset.start), 36, "expert", "1-2", 4, seed=3, workers=1)
    text = format_rollout(result, WIDTH)
    frame = result.candidates
    check_fits(text, [f"{x:.3f}" for x in frame["p_best"]] + [f"{x:.3f}" for x in frame["sd"]]
               + [f"{x:+.3f}" for x in frame["points"]])
    assert "P(best)" in text


def test_bench_tables_fit():
    moves = [bench.BenchRow("acesim", name, rolls, 20_000, 1.234, 17.5, "jitted loop over sampled positions")
             for name in ("european", "american", "navy", "backgammon") for rolls in ("non-double", "double")]
    moves.append(bench.BenchRow("openspiel", "backgammon", "double", 5000, 61.7, 48.0,
                                "pyspiel legal_actions() from Python, per call"))
    text = bench.format_moves_table(moves)
    check_fits(text, ["1.23", "810,373", "50.0× faster"])
    games = [bench.GamesRow("acesim", name, strategy, 2000, 12_345.6, 101.2, "self-play, one core", 11_000.0)
             for name in ("european", "backgammon") for strategy in ("random", "expert", "learned:european")]
    games.append(bench.GamesRow("openspiel", "backgammon", "uniform action", 200, 310.0, float("nan"),
                                "pyspiel.random_sim_test: C++ loop, with its per-state checks"))
    text = bench.format_games_table(games)
    check_fits(text, ["12,346", "11,000", "101.2", "39.8×", "learned:european"])
    # the Markdown form is for files and stays one wide table
    assert all(line.startswith("|") for line in bench.format_games_table(games, markdown=True).splitlines())


def test_analyses_show_progress_on_a_terminal_and_nothing_in_a_pipe():
    """compare, bonus, luck and report draw simulate's bar on a terminal; a log or a pipe gets none."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).with_name("acesim")
    args = [str(script), "compare", "--rules", "european,backgammon", "--games", "40", "--strategy", "expert",
            "--workers", "1"]
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    piped = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
    assert piped.returncode == 0 and piped.stderr == ""
    shown = subprocess.run(args, capture_output=True, text=True, env={**env, "TTY_COMPATIBLE": "1"}, timeout=600)
    assert shown.returncode == 0
    assert "games/s" in shown.stderr and "80/80" in shown.stderr
    assert "european" in shown.stdout


def test_a_swept_rule_set_keeps_its_brackets_in_a_table():
    """A --sweep names rule sets european[bar_entry=any]: rich must not take that for a style tag."""
    from rich.console import Console

    from acesim.common.terminal import rich_tables

    console = Console(width=100, record=True, file=open("/dev/null", "w"))
    for table in rich_tables(["rule set", "rolls per game"], [["european[bar_entry=any]", "95.9 [95.7, 96.1]"],
                                                              ["european[bar_entry=bonus-only]", "102.9"]]):
        console.print(table)
    text = console.export_text()
    assert "european[bar_entry=any]" in text and "european[bar_entry=bonus-only]" in text
