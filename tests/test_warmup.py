"""The first run: kernels compiled at install, and a cold cache said in one line (issue 28).

The README's first ``simulate`` took 3 min 16 s on a fresh install and said nothing while Numba
compiled; ``make install`` now runs ``python -m acesim.runs.warmup --if-cold``.
"""

from __future__ import annotations

import os
import subprocess
import sys
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
def test_warmup_runs_every_step_once_and_says_each(monkeypatch, tmp_path, workers):
    """Every step runs once, in one process or the groups side by side in two, and each is said."""
    def step(name):
        return lambda: (tmp_path / name).open("a").write("ran ")  # a file: the steps may run in workers

    monkeypatch.setattr(warmup, "STEPS", {n: step(n) for n in "abcd"})
    monkeypatch.setattr(warmup, "GROUPS", (("a", "b"), ("c", "d")))
    said = []
    warmup.warm(said.append, workers)
    assert sorted(s.split(":")[0].strip() for s in said) == list("abcd")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {n: "ran " for n in "abcd"}


def test_the_groups_hold_every_step_once():
    assert sorted(n for group in warmup.GROUPS for n in group) == sorted(warmup.STEPS)
