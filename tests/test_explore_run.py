"""An exploration end to end on a small design: its files, its report, a killed run resumed, Dask.

The tables of a run killed twice and resumed, and of a run on a Dask
``local:2`` cluster, are the tables of an unbroken local run, byte for byte.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from acesim.cli import app
from acesim.common.limits import DEFAULT_TURN_CAP
from acesim.engine.games import play_games
from acesim.engine.rules import Ruleset
from acesim.runs import explore as X

runner = CliRunner()
ARGS = ["--base", "european", "--vary", "doubles", "--vary", "bearoff", "--games", "100", "--skill-games", "8",
        "--equity-games", "20", "--luck-games", "6", "--seed", "9", "--no-progress"]
RULE_SETS = 9  # the factorial's six and the three other presets


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "landscape"
    result = runner.invoke(app, ["explore", *ARGS, "--workers", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _tables(out: Path) -> dict[str, bytes]:
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in (out / "report" / "tables").glob("*.csv")}
    files["design.csv"] = (out / "design.csv").read_bytes()
    return files


def _same(a: Path, b: Path) -> None:
    ta, tb = _tables(a), _tables(b)
    assert sorted(ta) == sorted(tb)
    for name in ta:
        assert ta[name] == tb[name], name
    for folder in sorted((a / "rule-sets").iterdir()):
        for name in X.RECORD_FILES:
            pd.testing.assert_frame_equal(pd.read_parquet(folder / f"{name}.parquet"),
                                          pd.read_parquet(b / "rule-sets" / folder.name / f"{name}.parquet"))


def test_the_run_writes_design_records_and_report(reference):
    design = pd.read_csv(reference / "design.csv")
    assert len(design) == RULE_SETS and set(design["role"]) == {"base+preset", "preset", "design"}
    for name in design["rule_set"]:
        folder = reference / "rule-sets" / name
        assert {p.name for p in folder.iterdir()} == {"records.parquet", "skill.parquet", "luck.parquet", "done.json"}
    assert len(pd.read_parquet(reference / "rule-sets" / "navy" / "records.parquet")) == 100
    assert len(pd.read_parquet(reference / "rule-sets" / "navy" / "skill.parquet")) == 16
    report = reference / "report"
    html = (report / "landscape.html").read_text()
    figures = sorted(p.stem for p in (report / "figures").glob("*.png"))
    assert {"landscape_luck_length", "landscape_fair_length", "first_mover", "effects_rolls_mean"} <= set(figures)
    assert html.count('src="data:image/png;base64,') == len(figures)
    md = (report / "landscape.md").read_text()
    assert "## Findings" in md and "The fairest rule sets found" in md and "Bonferroni" in md
    table = pd.read_csv(report / "tables" / "rule_sets.csv")
    # luck's share is undefined where one seat won every luck game (no variance to explain): value and
    # interval are then all missing, and only then
    undefined = table["luck_share"].isna()
    for name in table.loc[undefined, "rule_set"]:
        assert pd.read_parquet(reference / "rule-sets" / name / "luck.parquet")["result_a"].nunique() == 1
    assert table.loc[undefined, ["luck_share_low", "luck_share_high"]].isna().all().all()
    for figure in ("first_mover_win_rate", "rolls_mean", "rolls_p95", "luck_share", "skill_win_rate"):
        rows = table[~undefined] if figure == "luck_share" else table
        assert (rows[f"{figure}_low"] <= rows[figure]).all() and (rows[figure] <= rows[f"{figure}_high"]).all()
        assert (table[f"{figure}_n"] > 0).all()
    effects = pd.read_csv(report / "tables" / "effects.csv")
    # six rule sets fit the four main terms; a pair's interactions would leave no degree of freedom
    assert set(effects["kind"]) == {"main"} and set(effects["term"]) >= {"doubles=four", "bearoff=standard"}
    assert (effects["m"] == 3).all() and (effects["rule_sets"] == 6).all()


@pytest.mark.parametrize("cap", [None, 85])
def test_self_play_records_are_every_game_played_from_game_0(cap):
    """The records reuse the equity fit's and the luck games' traces (games 0 .. 25 of 40) and play the
    rest: the table of playing all 40. Under a turn cap of its own the equity fit's games, traced to
    the default cap, are played again to the run's, so unfinished games are recorded as the cap ends them."""
    rules = Ruleset.preset("navy")
    design = X.Design(rules, (), "full", 0, (rules,), ("base",))
    plan = X.make_plan(design, "expert", 40, 4, 20, 6, 9, *(() if cap is None else (cap,)))
    frame = pd.read_parquet(io.BytesIO(X.rule_set_task(plan, 0)["records"]))
    expected = play_games(rules, 40, 9, "expert", "expert", turn_cap=cap or DEFAULT_TURN_CAP)
    pd.testing.assert_frame_equal(frame, expected)
    if cap is not None:
        assert (expected["unfinished"] > 0).any()  # the cap ends some games: the other branch is exercised


def _acesim(*args: str) -> subprocess.Popen:
    script = Path(sys.executable).with_name("acesim")
    return subprocess.Popen([str(script), "explore", *args], start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def _kill_after(proc: subprocess.Popen, out: Path, done: int) -> int:
    """SIGKILL the run's whole process group once ``done`` rule sets are finished; how many were."""
    deadline = time.time() + 300
    while time.time() < deadline and len(list(out.glob("rule-sets/*/done.json"))) < done:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return len(list(out.glob("rule-sets/*/done.json")))


def test_a_run_killed_twice_and_damaged_resumes_to_the_tables_of_an_unbroken_run(reference, tmp_path):
    out = tmp_path / "landscape"
    first = _kill_after(_acesim(*ARGS, "--workers", "1", "--out", str(out)), out, 2)
    second = _kill_after(_acesim("--resume", str(out), "--workers", "1", "--no-progress"), out, first + 2)
    assert first < second < RULE_SETS, "the kills came too late to interrupt anything"
    assert not (out / "report").exists()
    # and a finished rule set damaged since: a file cut short, another's mark of completion lost
    finished = sorted(p.parent for p in out.glob("rule-sets/*/done.json"))
    luck = finished[0] / "luck.parquet"
    luck.write_bytes(luck.read_bytes()[:100])
    (finished[1] / "done.json").unlink()
    kept = finished[2] / "records.parquet"
    before = kept.stat().st_mtime_ns
    result = runner.invoke(app, ["explore", "--resume", str(out), "--no-progress", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert kept.stat().st_mtime_ns == before  # a finished rule set is read, not played again
    assert not list(out.rglob("*.partial"))
    _same(reference, out)


def test_a_dask_cluster_gives_the_tables_of_a_local_run(reference, tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "landscape"
    result = runner.invoke(app, ["explore", *ARGS, "--scheduler", "local:2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    _same(reference, out)
