"""GNU Backgammon position IDs and XGIDs: read and written for positions those formats can hold."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from acesim.cli import app
from acesim.common.errors import AcesimError
from acesim.engine.position import Position, parse_position
from acesim.engine.rules import Ruleset
from acesim.engine.sampling import sample_positions
from tests.helpers import P

START_GNU = "4HPwATDgc/ABMA"  # GNU Backgammon's manual: the starting position
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"  # eXtreme Gammon's starting position
# After the opening 3-1 played 8/5 6/5, with the opponent on roll: GNU Backgammon's ID of that play.
AFTER_31_GNU = "sGfwATDgc/ABMA"


def test_the_starting_position():
    start = Position.start("backgammon")
    assert start.to_gnu_id() == START_GNU
    assert start.to_xgid() == START_XGID
    assert parse_position(START_GNU) == start
    assert parse_position(START_XGID) == start
    assert parse_position("GNUID=" + START_GNU + ":cAkAAAAAAAAA") == start


def test_a_known_position_after_a_play():
    played = P({1: -2, 5: 2, 6: 4, 8: 2, 12: -5, 13: 5, 17: -3, 19: -5, 24: 2})
    assert played.flipped().to_gnu_id() == AFTER_31_GNU
    assert Position.from_gnu_id(AFTER_31_GNU) == played.flipped()


def test_xgid_with_the_top_player_on_roll_is_seen_from_that_side():
    pos = P({1: -2, 5: 2, 6: 4, 8: 2, 12: -5, 13: 5, 17: -3, 19: -5, 24: 2}, bar=(0, 0))
    text = pos.to_xgid()
    cells = text[5:31]
    mirrored = "".join(c.swapcase() if c != "-" else c for c in reversed(cells))
    other = "XGID=" + mirrored + ":0:0:-1:00:0:0:0:0:10"
    assert Position.from_xgid(other) == pos


@pytest.mark.parametrize("preset", ["backgammon", "european"])
def test_round_trips_on_positions_of_random_games(preset):
    boards, _ = sample_positions(Ruleset.preset(preset), 400, 9)
    seen = 0
    for board in boards:
        pos = Position.from_board(board)
        if any(pos.waiting):
            continue
        assert Position.from_gnu_id(pos.to_gnu_id()) == pos
        assert Position.from_xgid(pos.to_xgid()) == pos
        assert parse_position(pos.to_gnu_id()) == pos
        seen += 1
    assert seen > 50


def test_bar_and_borne_off_checkers():
    pos = P({3: 2, 20: -1}, bar=(1, 2), off=(12, 12))
    assert Position.from_gnu_id(pos.to_gnu_id()) == pos
    assert Position.from_xgid(pos.to_xgid()) == pos


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("GNUID=4HPwATDgc/AB", "14 characters"),
        ("4HPwATDgc-ABMA", "14 characters"),
        ("//////////////", "runs out of bits"),
        ("2sAQAQAPAQAAAA", "both sides on point 11"),
        ("XGID=-b----E-C---eE---c-e----B-:1:0:1:00:0:0:0:0:10", "without a cube"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10", "without a cube"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:0:10", "'Z'"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1", "26 position characters"),
        ("XGID=-b----O-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "checkers"),
    ],
)
def test_bad_ids_are_one_line_errors(text, fragment):
    with pytest.raises(AcesimError) as err:
        parse_position(text)
    assert fragment.lower() in str(err.value).lower()


def test_waiting_checkers_have_no_foreign_id():
    start = Position.start()
    assert start.foreign_ids() == {}
    with pytest.raises(AcesimError, match="waiting"):
        start.to_gnu_id()
    with pytest.raises(AcesimError, match="waiting"):
        start.to_xgid()


def test_show_prints_every_id_it_can():
    result = CliRunner().invoke(app, ["show", START_XGID, "--json"])
    assert result.exit_code == 0, result.output
    assert '"gnu_id": "4HPwATDgc/ABMA"' in result.output and '"xgid": "XGID=' in result.output
    result = CliRunner().invoke(app, ["show", "start", "--json"])
    assert "gnu_id" not in result.output


def test_a_batch_line_names_its_position_by_any_id_and_never_by_a_file(tmp_path):
    from acesim.engine.moves import answer_query

    start = answer_query(json.dumps({"rules": "backgammon", "position": "start", "dice": [3, 1]}))
    gnu = answer_query(json.dumps({"rules": "backgammon", "position": "4HPwATDgc/ABMA", "dice": [3, 1]}))
    assert "error" not in start and gnu == start
    own = Position.start("off-board").to_id()
    assert answer_query(json.dumps({"rules": "european", "position": own, "dice": [1, 2]})) == \
        answer_query(json.dumps({"rules": "european", "position": "start", "dice": [1, 2]}))
    file = tmp_path / "p.json"
    file.write_text(json.dumps(Position.start("off-board").to_json()))
    answer = answer_query(json.dumps({"rules": "european", "position": str(file), "dice": [1, 2]}))
    assert "error" in answer
