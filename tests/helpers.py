"""Shared test helpers: hand-built positions, exact play-set checks, knob mixes, interrupted training runs."""

from __future__ import annotations

import pickle
from pathlib import Path

from hypothesis import strategies as st

from acesim.engine.position import Position
from acesim.engine.rules import KNOB_VALUES, KNOBS


def P(pts=None, bar=(0, 0), waiting=(0, 0), off=None) -> Position:
    """A position from ``{point: count}``; the rest of each side is off unless given."""
    points = [0] * 24
    for point, count in (pts or {}).items():
        assert 1 <= point <= 24 and points[point - 1] == 0
        points[point - 1] = count
    if off is None:
        mover = sum(v for v in points if v > 0)
        opp = -sum(v for v in points if v < 0)
        off = (15 - mover - bar[0] - waiting[0], 15 - opp - bar[1] - waiting[1])
    return Position(tuple(points), tuple(bar), tuple(waiting), tuple(off))


def check(res, expected: set[Position], dice_used: int, segment: tuple[int, ...]) -> None:
    """The exact set, one play per position, the dice used and completeness."""
    assert res.segment == segment
    assert res.dice_used == dice_used
    assert res.complete == (dice_used == len(segment))
    assert res.positions() == expected
    assert len(res.plays) == len(expected), "plays must be deduplicated by position"
    for play in res.plays:
        assert len(play.moves) == dice_used


def check_empty(res, position: Position, segment: tuple[int, ...]) -> None:
    """Nothing playable: exactly one play, the empty one, position unchanged."""
    assert res.segment == segment
    assert res.dice_used == 0
    assert res.complete is False
    assert len(res.plays) == 1
    assert res.plays[0].moves == ()
    assert res.plays[0].position == position


def knob_mixes():
    """Every knob drawn independently, minus the one contradictory combination."""
    knobs = {
        knob: st.booleans() if KNOB_VALUES[knob] is bool else st.sampled_from(KNOB_VALUES[knob])
        for knob in KNOBS
    }
    return st.fixed_dictionaries(knobs).filter(
        lambda k: not (k["acey_deucey"] == "none" and k["acey_deucey_extra_roll"])
    )


def cache_index(index: Path) -> dict:
    """A Numba cache index file's entries: each key (its first item the argument types) to its data file's name."""
    with open(index, "rb") as f:
        pickle.load(f)  # Numba's version
        _, overloads = pickle.loads(f.read())
    return overloads


class Stop(Exception):
    """Raised by a progress callback to interrupt a training run."""


def interrupted_run(settings, checkpoint: Path, after: int):
    """The training run of ``settings`` interrupted after ``after`` games and read back from ``checkpoint``
    (``runs.training.resume_run``), where it wrote its checkpoints."""
    import pytest

    from acesim.runs import training as L

    def stop(done, evaluations):
        if done == after:
            raise Stop

    with pytest.raises(Stop):
        L.train_run(L.start_run(settings), checkpoint, progress=stop)
    return L.resume_run(checkpoint)
