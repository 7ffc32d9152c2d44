"""Runs on a Dask cluster (loopback only): the same records as a local run, even when a worker dies."""

from __future__ import annotations

import os
import signal

import pandas as pd
import pytest
from typer.testing import CliRunner

from acesim.cli import app
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import load_strategy
from acesim.runs import simulate as sim

distributed = pytest.importorskip("distributed")  # the dask extra; make install installs it

runner = CliRunner()


def _plan(games=1600, chunk=100):
    return sim.make_plan([Ruleset.preset("backgammon"), Ruleset.preset("navy")], load_strategy("safe"),
                         load_strategy("random"), games, 31, chunk)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "run"
    sim.prepare_output(out, False)
    summaries = sim.run(_plan(), out, workers=1)
    return out, summaries


def _same(a, b):
    for name in ("backgammon", "navy"):
        pd.testing.assert_frame_equal(sim.read_records(a / name), sim.read_records(b / name))


def test_local_cluster_equals_a_local_run(local_run, tmp_path):
    out = tmp_path / "dask"
    sim.prepare_output(out, False)
    timings = []
    summaries = sim.run(_plan(), out, scheduler="local:2", timings=timings)
    assert summaries == local_run[1]
    _same(local_run[0], out)
    # every chunk ran on one of two worker processes, each compiling (or loading) the kernels once:
    # its first chunk is the slow one
    pids = {pid for pid, _ in timings}
    assert len(timings) == 32 and 1 <= len(pids) <= 2


@pytest.fixture
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      host="127.0.0.1", silence_logs=50) as c:
        yield c


def test_a_killed_worker_changes_nothing(local_run, cluster, tmp_path):
    """A worker process SIGKILLed mid-run: Dask runs its tasks again elsewhere; the client writes the chunks."""
    from distributed import Client

    with Client(cluster.scheduler_address) as client:
        pids = list(client.run(os.getpid).values())
    killed = []

    def progress(n):
        if not killed:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    out = tmp_path / "dask"
    sim.prepare_output(out, False)
    summaries = sim.run(_plan(), out, progress=progress, scheduler=cluster.scheduler_address)
    assert killed and summaries == local_run[1]
    _same(local_run[0], out)


def test_cli_scheduler_and_bad_input(local_run, tmp_path):
    result = runner.invoke(app, ["simulate", "--scheduler", "bogus", "--games", "10"])
    assert result.exit_code == 1 and "tcp://HOST:PORT or local:N" in result.output
    result = runner.invoke(app, ["simulate", "--scheduler", "local:0", "--games", "10"])
    assert result.exit_code == 1 and "positive number of workers" in result.output
    result = runner.invoke(app, ["simulate", "--out", "s3://bucket/x", "--games", "10"])
    assert result.exit_code == 1 and "file:// URL" in result.output
    out = tmp_path / "shared"
    result = runner.invoke(app, ["simulate", "--rules", "backgammon,navy", "--games", "1600", "--chunk-size", "100",
                                 "--seed", "31", "--strategy", "safe", "--vs", "random", "--scheduler", "local:2",
                                 "--out", f"file://{out}", "--no-progress"])
    assert result.exit_code == 0, result.output
    _same(local_run[0], out)
