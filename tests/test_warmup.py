"""The first run: kernels compiled at install, and a cold cache said in one line (issue 28).

The README's first ``simulate`` took 3 min 16 s on a fresh install and said nothing while Numba
compiled; ``make install`` now runs ``python -m acesim.runs.warmup --if-cold``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acesim.kernels import cache_folder
from acesim.runs import warmup

ROOT = Path(__file__).resolve().parents[1]


def _acesim(*args: str, cache: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-c", "from acesim.cli import main; main()", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_cold_cache_is_said_before_anything_else(tmp_path):
    cold = tmp_path / "cache"
    cold.mkdir()
    result = _acesim("simulate", "--games", "0", cache=cold)  # refused at once, after the note
    lines = result.stderr.splitlines()
    assert result.returncode != 0
    assert lines[0].startswith("acesim: compiling the game kernels (first run only")
    # commands that play nothing, and help, never say it
    for args in (["rules", "list"], ["simulate", "--help"], ["show", "start"]):
        assert "compiling" not in _acesim(*args, cache=cold).stderr


@pytest.mark.parametrize("given, level", [(None, "2"), ("1", "1"), ("3", "3")])
def test_the_kernels_compile_at_llvms_second_level_unless_the_environment_names_one(given, level):
    """Every module of the package reaches Numba through ``acesim.kernels``, which sets the level first
    (imported here one after another, as a command imports what it runs); a level the user gives
    (``make test`` gives 1) stands."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_OPT"} | {"PYTHONPATH": str(ROOT)}
    if given is not None:
        env["NUMBA_OPT"] = given
    probe = ("import importlib, pkgutil, acesim\n"
             "for m in pkgutil.walk_packages(acesim.__path__, 'acesim.'): importlib.import_module(m.name)\n"
             "import numba.core.config as c; print(int(c.OPT))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == level


def test_the_cache_of_this_checkout_is_warm_after_games_were_played():
    assert (cache_folder() / "kernels.digest").exists()
    from acesim.engine.games import play_records
    from acesim.engine.rules import Ruleset
    from acesim.engine.strategies import load_strategy

    play_records(Ruleset.preset("european"), load_strategy("racer"), load_strategy("racer"), 1, 0, 1)
    assert warmup.cache_is_warm()
    assert "compiling" not in _acesim("simulate", "--games", "0").stderr


def test_warmup_if_cold_does_nothing_on_a_warm_cache(capsys, monkeypatch):
    monkeypatch.setattr(warmup, "cache_is_warm", lambda: True)
    monkeypatch.setattr(warmup, "warm", lambda say=None: pytest.fail("compiled a warm cache"))
    warmup.main(["--if-cold"])
    assert capsys.readouterr().out == ""
    with pytest.raises(SystemExit, match="usage"):
        warmup.main(["--now"])


@pytest.mark.parametrize("workers", [1, 2])
def test_warmup_runs_every_step_once_stage_after_stage_and_says_each(monkeypatch, tmp_path, workers):
    """Every step runs once, in one process or each stage's groups side by side in two, no step of
    the second stage before every step of the first has ended; each is said."""
    def step(name):
        def run():
            (tmp_path / name).write_text(f"{time.time_ns()} ")
            time.sleep(0.2)
            (tmp_path / name).open("a").write(f"{time.time_ns()}")
        return run  # files: the steps may run in workers

    monkeypatch.setattr(warmup, "STEPS", {n: step(n) for n in "abcde"})
    monkeypatch.setattr(warmup, "STAGES", ((("a",), ("b", "c")), (("d",), ("e",))))
    said = []
    warmup.warm(said.append, workers)
    assert sorted(s.split(":")[0].strip() for s in said) == list("abcde")
    times = {p.name: [int(t) for t in p.read_text().split()] for p in tmp_path.iterdir()}
    assert sorted(times) == list("abcde") and all(len(t) == 2 for t in times.values())
    assert max(times[n][1] for n in "abc") < min(times[n][0] for n in "de")


def test_the_stages_hold_every_step_once():
    assert sorted(n for groups in warmup.STAGES for group in groups for n in group) == sorted(warmup.STEPS)
