"""Positions: JSON validation, position IDs, flipping and the text board."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acesim.common.errors import AcesimError
from acesim.engine.position import Position, parse_position
from acesim.kernels import layout as L
from acesim.kernels.board import check_invariants, flip


def test_acey_deucey_start():
    p = Position.start("off-board")
    assert p.points == (0,) * 24 and p.waiting == (15, 15)
    assert p.pips() == (375, 375)


def test_backgammon_start_matches_rules_md():
    p = Position.start("backgammon")
    assert p.points[23] == 2 and p.points[12] == 5 and p.points[7] == 3 and p.points[5] == 5
    assert p.points[0] == -2 and p.points[11] == -5 and p.points[16] == -3 and p.points[18] == -5
    assert p.pips() == (167, 167)
    assert p.flipped() == p


@st.composite
def positions(draw):
    """Any valid position: each side's 15 checkers spread over points, bar, waiting, off."""
    points = [0] * 24
    free = list(range(24))
    counters = {}
    for sign, side in ((1, 0), (-1, 1)):
        remaining = 15
        buckets = {"bar": 0, "waiting": 0, "off": 0}
        while remaining:
            where = draw(st.sampled_from(["point", "bar", "waiting", "off"]))
            k = draw(st.integers(1, remaining))
            if where == "point":
                owned = [i for i in free if points[i] * sign >= 0]
                i = draw(st.sampled_from(owned))
                points[i] += sign * k
            else:
                buckets[where] += k
            remaining -= k
        counters[side] = buckets
    if counters[0]["off"] == 15 and counters[1]["off"] == 15:
        counters[1]["off"], counters[1]["waiting"] = 14, 1
    return Position(
        points=tuple(points),
        bar=(counters[0]["bar"], counters[1]["bar"]),
        waiting=(counters[0]["waiting"], counters[1]["waiting"]),
        off=(counters[0]["off"], counters[1]["off"]),
    )


@settings(max_examples=300, deadline=None)
@given(positions())
def test_id_and_json_round_trip(pos):
    pid = pos.to_id()
    assert len(pid) == 24
    assert Position.from_id(pid) == pos
    assert Position.from_json(pos.to_json()) == pos
    assert Position.from_board(pos.to_board()) == pos
    assert parse_position(pid) == pos


@settings(max_examples=200, deadline=None)
@given(positions())
def test_flip_kernel_matches_python_flip(pos):
    out = np.zeros(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
    flip(pos.to_board(), out)
    assert Position.from_board(out) == pos.flipped()
    assert pos.flipped().flipped() == pos
    assert check_invariants(out) == 0


def test_distinct_positions_have_distinct_ids():
    a = Position.start("off-board")
    b = Position(points=(1,) + (0,) * 23, waiting=(14, 15))
    assert a.to_id() != b.to_id()


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "must be a JSON object"),
        ({"points": [0] * 24, "bar": [0, 0], "waiting": [15, 15]}, "missing 'off'"),
        ({"points": [0] * 23, "bar": [0, 0], "waiting": [15, 15], "off": [0, 0]}, "list of 24"),
        ({"points": [0] * 24, "bar": [0, 0], "waiting": [15, 15], "off": [0, 0], "x": 1}, "unknown key 'x'"),
        ({"points": [16] + [0] * 23, "bar": [0, 0], "waiting": [0, 15], "off": [0, 0]}, "out of range"),
        ({"points": [0] * 24, "bar": [0, 0], "waiting": [15, 14], "off": [0, 0]}, "opponent has 14 checkers"),
        ({"points": [1] + [0] * 23, "bar": [0, 0], "waiting": [15, 15], "off": [0, 0]}, "mover has 16 checkers"),
        ({"points": [0] * 24, "bar": [-1, 0], "waiting": [16, 15], "off": [0, 0]}, "out of range"),
        ({"points": [0.5] + [0] * 23, "bar": [0, 0], "waiting": [15, 15], "off": [0, 0]}, "must be an integer"),
        ({"points": [0] * 24, "bar": [0, 0], "waiting": [0, 0], "off": [15, 15]}, "both sides have borne off"),
    ],
)
def test_bad_positions_say_what_is_wrong(data, message):
    with pytest.raises(AcesimError, match=message):
        Position.from_json(data)


@pytest.mark.parametrize(
    "text, message",
    [
        ("abc", "has 3 characters"),
        ("e973ve973ve973ve973vAP8!", "character outside"),
        ("____________________AP8A", "not a valid ID"),
        ("e973ve973ve973ve973vAP8B", "opponent has 16 checkers"),
        ('{"points": 3, "bar": [0, 0], "waiting": [15, 15], "off": [0, 0]}', "must be a list of 24"),
        ("{oops", "not valid JSON"),
    ],
)
def test_bad_position_text(text, message):
    with pytest.raises(AcesimError, match=message):
        parse_position(text)


def test_position_file(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"points": %s, "bar": [0, 0], "waiting": [15, 15], "off": [0, 0]}' % ([0] * 24))
    assert parse_position(str(path)) == Position.start()
    with pytest.raises(AcesimError, match="cannot read position file"):
        parse_position(str(tmp_path / "missing.json"))


def test_render_shows_points_counters_and_id():
    p = Position(
        points=(-2,) + (0,) * 4 + (7,) + (0,) * 17 + (1,),
        bar=(1, 0),
        waiting=(5, 10),
        off=(1, 3),
    )
    text = p.render()
    assert p.to_id() in text
    for label in ("13", "24", "12", " 1 "):
        assert label in text
    assert " 7 " in text  # a stack taller than five shows its count
    assert "bar  1  waiting  5  off  1" in text
    assert "bar  0  waiting 10  off  3" in text
