"""The ``acesim`` command line: rules, show, moves, the JSON-lines batch contract, and
what a user meets first: --version, shell completion, and help texts that show every
default, list the strategies that exist and offer each analysis only its own options.

Most tests drive ``acesim.cli.app`` in-process with typer's ``CliRunner``
(stdout and stderr are captured separately); a few run the real console
script, whose ``main()`` wrapper turns usage errors into one line too.

Every bad input must give exactly one line on stderr starting
``acesim: error:``, a non-zero exit, no traceback and no half-written file.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import tomllib
from importlib.metadata import version
import subprocess
import sys
from pathlib import Path

import pytest
import typer.testing
from typer.main import get_command
from typer.testing import CliRunner

from acesim import cli
from acesim.cli import app
from acesim.engine.moves import answer_query
from acesim.engine.position import Position
from acesim.engine.rules import KNOBS, PRESET_SOURCES, PRESETS, RULES_VERSION

runner = CliRunner()

START_ID = "e973ve973ve973ve973vAP8A"  # the off-board (Acey-Deucey) start
BACKGAMMON_START_ID = "a9730fJ73qo972PU973xAAAA"


def run(*args: str, input: str | bytes | None = None):
    return runner.invoke(app, list(args), input=input)


def P(pts: dict[int, int], bar=(0, 0), waiting=(0, 0), off=(0, 0)) -> Position:
    points = [0] * 24
    for point, count in pts.items():
        points[point - 1] = count
    return Position(tuple(points), tuple(bar), tuple(waiting), tuple(off))


def assert_no_traceback(result) -> None:
    assert "Traceback" not in result.output
    # CliRunner stores an uncaught exception (not SystemExit) in result.exception
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"uncaught {type(result.exception).__name__}: {result.exception}"
    )


def assert_one_line_error(result, *fragments: str, code: int | None = None) -> str:
    """Exit != 0, stderr exactly one line 'acesim: error: ...' naming the problem."""
    assert_no_traceback(result)
    assert result.exit_code != 0, result.output
    if code is not None:
        assert result.exit_code == code
    lines = result.stderr.splitlines()
    assert len(lines) == 1, f"stderr is not one line: {result.stderr!r}"
    line = lines[0]
    assert line.startswith("acesim: error: "), line
    for fragment in fragments:
        assert fragment.lower() in line.lower(), f"{fragment!r} not in {line!r}"
    return line


def table_rows(text: str) -> dict[str, list[str]]:
    """Rows of a rich table keyed by their first cell, boxed or in columns two spaces apart;
    a table split to fit the terminal repeats its key column, and a row's parts are joined."""
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        if re.search(r"[│┃]", line):
            cells = [c.strip() for c in re.split(r"[│|┃]", line)][1:-1]
        else:
            cells = re.split(r"\s{2,}", line.strip())
        if len(cells) >= 2 and cells[0]:
            rows.setdefault(cells[0], []).extend(cells[1:])
    return rows


# --- rules --------------------------------------------------------------------


def test_rules_list_names_every_preset_and_knob():
    result = run("rules", "list")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    rows = table_rows(result.stdout)
    for name in PRESETS:
        assert name in result.stdout
        assert f"{name}: {PRESET_SOURCES[name].split(',')[0]}" in result.stdout
    for knob in KNOBS:
        assert knob in rows, knob
        assert len(rows[knob]) == len(PRESETS)
    # european column of the doubles row
    assert rows["doubles"][list(PRESETS).index("european")] == "four-plus-complement"


@pytest.mark.parametrize("name", list(PRESETS))
def test_rules_show_preset_has_every_knob_row(name):
    result = run("rules", "show", name)
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    preset = PRESETS[name]
    for knob in KNOBS:
        value = getattr(preset, knob)
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        assert knob in rows, knob
        assert rows[knob][0] == shown
        assert rows[knob][-1] == shown  # the preset column, unchanged
    assert "(changed)" not in result.stdout
    assert f"Rule set {name}" in result.stdout


def test_rules_show_overrides_are_marked_changed():
    result = run("rules", "show", "navy", "--rule", "home=free", "--rule", "bar_first=true",
                 "--rule", "bearoff=exact")  # bearoff=exact is navy's own value
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    assert rows["home"][0] == "free"
    assert rows["home"][-1] == "locked (changed)"
    assert rows["bar_first"][0] == "true"
    assert rows["bar_first"][-1] == "false (changed)"
    assert rows["bearoff"][-1] == "exact"
    assert result.stdout.count("(changed)") == 2
    assert "navy+home=free+bar_first=true" in result.stdout


def test_rules_show_toml_file(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('preset = "navy"\nhome = "free"\nbar_first = true\n', encoding="utf-8")
    result = run("rules", "show", str(path))
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    for knob in KNOBS:
        expected = {"home": "free", "bar_first": "true"}.get(knob)
        if expected is None:
            value = getattr(PRESETS["navy"], knob)
            expected = str(value).lower() if isinstance(value, bool) else str(value)
        assert rows[knob][0] == expected, knob


def test_rules_show_json_file(tmp_path):
    path = tmp_path / "house.json"
    path.write_text(json.dumps({"preset": "american", "scoring": "gammons", "bar_first": False}))
    result = run("rules", "show", str(path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    expected = {**PRESETS["american"].knobs(), "scoring": "gammons", "bar_first": False}
    assert {k: data[k] for k in KNOBS} == expected


def test_rules_show_json_has_every_knob():
    result = run("rules", "show", "european", "--rule", "home=locked", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"name", "rules_version", *KNOBS}
    assert data["rules_version"] == RULES_VERSION
    assert data["name"] == "european+home=locked"
    assert data["home"] == "locked"
    for knob in KNOBS:
        if knob != "home":
            assert data[knob] == getattr(PRESETS["european"], knob)
    assert isinstance(data["bar_first"], bool)


# --- show ---------------------------------------------------------------------


def show_json(*args: str) -> dict:
    result = run("show", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def position_of(data: dict) -> Position:
    return Position.from_json({k: v for k, v in data.items() if k not in ("id", "gnu_id", "xgid")})


def test_show_start_board():
    result = run("show", "start")
    assert result.exit_code == 0, result.output
    assert f"Position ID: {START_ID}" in result.stdout
    assert "waiting 15" in result.stdout
    board_rows = [l for l in result.stdout.splitlines() if l.startswith(" |")]
    assert len(board_rows) == 11
    assert not any("X" in l or "O" in l for l in board_rows)  # nobody on the board yet
    assert "pips 375" in result.stdout


def test_show_start_backgammon():
    result = run("show", "start", "--rules", "backgammon")
    assert result.exit_code == 0, result.output
    assert f"Position ID: {BACKGAMMON_START_ID}" in result.stdout
    assert "pips 167" in result.stdout
    data = show_json("start", "--rules", "backgammon")
    assert data["id"] == BACKGAMMON_START_ID
    assert position_of(data) == Position.start("backgammon")


@pytest.mark.parametrize("start", ["off-board", "backgammon"])
def test_show_id_round_trip(start):
    pos = Position.start(start)
    data = show_json(pos.to_id())
    assert set(data) - {"gnu_id", "xgid"} == {"id", "points", "bar", "waiting", "off"}
    assert ("gnu_id" in data) == (not any(pos.waiting))
    assert data["id"] == pos.to_id()
    assert position_of(data) == pos
    # and back again from the printed ID
    assert show_json(data["id"]) == data


def test_show_inline_json_and_file(tmp_path):
    pos = P({24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -4, 10: -1, 17: -3, 19: -5})
    inline = show_json(json.dumps(pos.to_json()))
    assert inline["id"] == pos.to_id()
    assert position_of(inline) == pos
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(pos.to_json()), encoding="utf-8")
    assert show_json(str(path)) == inline
    board = run("show", str(path))
    assert board.exit_code == 0
    assert f"Position ID: {pos.to_id()}" in board.stdout


# --- moves --------------------------------------------------------------------

ANSWER_KEYS = {"dice_used", "segment", "complete", "plays"}


def check_square(value, kind: str) -> None:
    if isinstance(value, str):
        assert value in ({"bar", "waiting"} if kind == "from" else {"off"}), value
    else:
        assert type(value) is int and 1 <= value <= 24, value


def check_answer_schema(answer: dict) -> None:
    assert set(answer) == ANSWER_KEYS
    assert type(answer["dice_used"]) is int
    assert type(answer["complete"]) is bool
    assert isinstance(answer["segment"], list) and answer["segment"]
    assert all(type(d) is int and 1 <= d <= 6 for d in answer["segment"])
    assert 0 <= answer["dice_used"] <= len(answer["segment"])
    assert answer["complete"] == (answer["dice_used"] == len(answer["segment"]))
    assert isinstance(answer["plays"], list) and answer["plays"]
    for play in answer["plays"]:
        assert set(play) == {"moves", "position"}
        assert len(play["moves"]) == answer["dice_used"]
        for move in play["moves"]:
            assert isinstance(move, list) and len(move) == 2
            check_square(move[0], "from")
            check_square(move[1], "to")
        assert set(play["position"]) == {"points", "bar", "waiting", "off"}
        # the position round-trips through the JSON form
        assert Position.from_json(play["position"]).to_json() == play["position"]
    positions = [json.dumps(p["position"], sort_keys=True) for p in answer["plays"]]
    assert len(set(positions)) == len(positions), "plays must be distinct positions"


def replay(position: dict, moves: list) -> dict:
    """Apply single-checker moves by hand, from the mover's view."""
    points = list(position["points"])
    bar, waiting, off = list(position["bar"]), list(position["waiting"]), list(position["off"])
    for src, dst in moves:
        if src == "bar":
            assert bar[0] > 0
            bar[0] -= 1
        elif src == "waiting":
            assert waiting[0] > 0
            waiting[0] -= 1
        else:
            assert points[src - 1] > 0
            points[src - 1] -= 1
        if dst == "off":
            off[0] += 1
        else:
            if points[dst - 1] == -1:  # a hit
                points[dst - 1] = 0
                bar[1] += 1
            assert points[dst - 1] >= 0, f"landed on a made point {dst}"
            points[dst - 1] += 1
    return {"points": points, "bar": bar, "waiting": waiting, "off": off}


def check_replays(query_position: dict, answer: dict) -> None:
    for play in answer["plays"]:
        assert replay(query_position, play["moves"]) == play["position"], play["moves"]


def test_moves_human_output():
    result = run("moves", "--rules", "european", "--position", "start", "--dice", "6-3")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert "2 legal play(s)" in lines[0]
    assert "segment 6 3" in lines[0] and "complete" in lines[0]
    assert len(lines) == 3
    notations = set()
    for i, line in enumerate(lines[1:], 1):
        number, pos_id, notation = line.split(None, 2)
        assert number == str(i)
        Position.from_id(pos_id)  # a valid ID
        notations.add(notation)
    assert notations == {"waiting/19 waiting/22", "waiting/19 19/16"}


def test_moves_json_matches_batch_schema():
    result = run("moves", "--rules", "european", "--position", "start", "--dice", "6-3", "--json")
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 1
    answer = json.loads(result.stdout)
    check_answer_schema(answer)
    assert answer["segment"] == [6, 3]
    assert answer["dice_used"] == 2
    assert answer["complete"] is True
    assert {tuple(map(tuple, p["moves"])) for p in answer["plays"]} == {
        (("waiting", 19), ("waiting", 22)),
        (("waiting", 19), (19, 16)),
    }
    start = Position.start().to_json()
    check_replays(start, answer)
    # the same answer as the batch contract gives for the same query
    line = json.dumps({"rules": "european", "position": start, "dice": [6, 3]})
    assert answer == answer_query(line)
    # and the human output lists the same positions
    human = run("moves", "--position", "start", "--dice", "6-3").stdout.splitlines()[1:]
    assert [Position.from_id(l.split()[1]).to_json() for l in human] == [
        p["position"] for p in answer["plays"]
    ]


def test_moves_doubles_segment_european():
    result = run("moves", "--position", "start", "--dice", "6-6", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    check_answer_schema(answer)
    assert answer["segment"] == [6, 6, 6, 6, 1, 1, 1, 1]
    check_replays(Position.start().to_json(), answer)


def test_moves_bonus_double_gets_its_complement_only_after_a_1_2():
    """doubles=complement-after-1-2: a rolled 6-6 plays four, the 6-6 after a 1-2 eight (--bonus, "bonus")."""
    rule = ["--rule", "doubles=complement-after-1-2"]
    rolled = json.loads(run("moves", *rule, "--position", "start", "--dice", "6-6", "--json").stdout)
    bonus = json.loads(run("moves", *rule, "--position", "start", "--dice", "6-6", "--bonus", "--json").stdout)
    assert rolled["segment"] == [6, 6, 6, 6] and bonus["segment"] == [6, 6, 6, 6, 1, 1, 1, 1]
    for answer in (rolled, bonus):
        check_answer_schema(answer)
        check_replays(START, answer)
    rules = {"preset": "european", "doubles": "complement-after-1-2"}
    assert answer_query(json.dumps({"rules": rules, "position": START, "dice": [6, 6]})) == rolled
    assert answer_query(json.dumps({"rules": rules, "position": START, "dice": [6, 6], "bonus": True})) == bonus
    # every other doubles rule plays a double after a 1-2 as it plays a rolled one
    for doubles in ("four", "four-plus-complement"):
        rules = {"preset": "european", "doubles": doubles}
        assert (answer_query(json.dumps({"rules": rules, "position": START, "dice": [6, 6], "bonus": True}))
                == answer_query(json.dumps({"rules": rules, "position": START, "dice": [6, 6]})))


# --- batch --------------------------------------------------------------------

HIT_POSITION = P({24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -4, 10: -1, 17: -3, 19: -5})
BAR_POSITION = P({24: 1, 13: 5, 8: 3, 6: 5, 1: -2, 12: -5, 17: -3, 19: -4, 20: -1}, bar=(1, 0))
BEAROFF_POSITION = P({6: 3, 5: 3, 4: 3, 3: 3, 2: 3, 19: -3, 20: -3, 21: -3, 22: -3, 23: -3})
START = Position.start().to_json()

QUERIES = [
    {"rules": "european", "position": START, "dice": [6, 3]},
    {"rules": {"preset": "backgammon"}, "position": HIT_POSITION.to_json(), "dice": [3, 1]},
    {"rules": {"preset": "navy", "home": "free", "bar_first": True}, "position": START, "dice": [1, 2]},
    "BAD",  # placeholder for the bad line
    {"rules": "european", "position": START, "dice": [6, 6]},
    {"rules": {"preset": "american", "bearoff": "exact"}, "position": BAR_POSITION.to_json(), "dice": [5, 2]},
    {"rules": "american", "position": BEAROFF_POSITION.to_json(), "dice": [6, 5]},
]
BAD_LINE = json.dumps({"rules": {"preset": "navy", "colour": "red"}, "position": START, "dice": [6, 3]})


def batch_lines() -> list[str]:
    return [BAD_LINE if q == "BAD" else json.dumps(q) for q in QUERIES]


def batch_text() -> str:
    lines = batch_lines()
    # a blank line and a whitespace-only line are skipped
    return "\n".join(lines[:2] + [""] + lines[2:4] + ["   "] + lines[4:]) + "\n"


def check_batch_answers(stdout: str) -> None:
    answers = [json.loads(line) for line in stdout.splitlines()]
    assert len(answers) == len(QUERIES)
    for query, line, answer in zip(QUERIES, batch_lines(), answers):
        if query == "BAD":
            assert set(answer) == {"error"}
            assert "colour" in answer["error"]
            continue
        check_answer_schema(answer)
        assert answer == answer_query(line)
        check_replays(query["position"], answer)
    # the special cases the batch was built for
    assert answers[0]["segment"] == [6, 3] and len(answers[0]["plays"]) == 2
    assert any(m == [13, 10] for p in answers[1]["plays"] for m in p["moves"])
    hit = [p for p in answers[1]["plays"] if [13, 10] in p["moves"]]
    assert hit and all(p["position"]["bar"][1] == 1 for p in hit)
    assert answers[4]["segment"] == [6, 6, 6, 6, 1, 1, 1, 1]
    assert {p["moves"][0][1] for p in answers[5]["plays"]} == {20, 23}  # enter on 25 - die
    for p in answers[5]["plays"]:
        assert p["moves"][0][0] == "bar"
        hits = any(m[1] == 20 for m in p["moves"])  # the opponent's blot is on 20
        assert p["position"]["bar"] == [0, 1 if hits else 0]
    assert any(m[1] == "off" for p in answers[6]["plays"] for m in p["moves"])


def test_batch_stdout(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(batch_text(), encoding="utf-8")
    result = run("moves", "--batch", str(path))
    assert_one_line_error(result, "1 batch line", code=1)
    check_batch_answers(result.stdout)


def test_batch_all_good_exits_zero(tmp_path):
    path = tmp_path / "q.jsonl"
    good = [l for l, q in zip(batch_lines(), QUERIES) if q != "BAD"]
    path.write_text("\n".join(good) + "\n", encoding="utf-8")
    result = run("moves", "--batch", str(path))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert [json.loads(l) for l in result.stdout.splitlines()] == [answer_query(l) for l in good]


def test_batch_stdin():
    from_stdin = run("moves", "--batch", "-", input=batch_text())
    assert_one_line_error(from_stdin, "1 batch line", code=1)
    check_batch_answers(from_stdin.stdout)


def test_batch_out_file_same_as_stdout(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(batch_text(), encoding="utf-8")
    to_stdout = run("moves", "--batch", str(path))
    out_dir = tmp_path / "answers"
    out_dir.mkdir()
    out = out_dir / "a.jsonl"
    to_file = run("moves", "--batch", str(path), "--out", str(out))
    # the batch has an error line: answers still written, exit 1, one line on stderr
    assert_one_line_error(to_file, "1 batch line", code=1)
    assert to_file.stdout == ""
    assert out.read_text(encoding="utf-8") == to_stdout.stdout
    assert [p.name for p in out_dir.iterdir()] == ["a.jsonl"]  # no .a.jsonl.*.tmp left


def test_batch_out_replaces_existing_file_with_force(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(QUERIES[0]) + "\n", encoding="utf-8")
    out = tmp_path / "a.jsonl"
    out.write_text("old content that is much longer than the answer " * 100)
    result = run("moves", "--batch", str(path), "--out", str(out), "--force")
    assert result.exit_code == 0, result.output
    assert out.read_text() == json.dumps(answer_query(json.dumps(QUERIES[0]))) + "\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "q.jsonl"]


def test_batch_empty_file(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    result = run("moves", "--batch", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (json.dumps({"rules": "european", "position": START}), "dice"),
        (json.dumps({"rules": "european", "position": START, "dice": [6, 3], "x": 1}), "'x'"),
        (json.dumps({"rules": "klingon", "position": START, "dice": [6, 3]}), "klingon"),
        (json.dumps({"rules": {"home": "free"}, "position": START, "dice": [6, 3]}), "preset"),
        (json.dumps({"rules": {"preset": "navy", "home": "sideways"}, "position": START, "dice": [6, 3]}), "home"),
        (json.dumps({"rules": {"preset": "navy", "bar_first": "yes"}, "position": START, "dice": [6, 3]}), "bar_first"),
        (json.dumps({"rules": {"preset": "european", "acey_deucey": "none"}, "position": START, "dice": [6, 3]}), "contradicts"),
        (json.dumps({"rules": "european", "position": {**START, "waiting": [14, 15]}, "dice": [6, 3]}), "impossible"),
        (json.dumps({"rules": "european", "position": START, "dice": [7, 1]}), "dice"),
        (json.dumps({"rules": "european", "position": START, "dice": [6]}), "dice"),
        (json.dumps({"rules": "european", "position": START, "dice": [6.0, 3]}), "dice"),
        (json.dumps({"rules": "european", "position": START, "dice": [True, 3]}), "dice"),
        (json.dumps({"rules": "european", "position": START, "dice": [3, 3], "bonus": "yes"}), "'bonus'"),
        (json.dumps({"rules": "european", "position": START, "dice": [6, 3], "bonus": True}), "must be a double"),
        (json.dumps({"rules": "backgammon", "position": "start", "dice": [3, 3], "bonus": True}), "acey_deucey"),
    ],
)
def test_batch_bad_line_gives_error_object_in_place(tmp_path, line, fragment):
    good = json.dumps(QUERIES[0])
    path = tmp_path / "q.jsonl"
    path.write_text(f"{good}\n{line}\n{good}\n", encoding="utf-8")
    result = run("moves", "--batch", str(path))
    assert_one_line_error(result, code=1)
    answers = [json.loads(l) for l in result.stdout.splitlines()]
    assert len(answers) == 3
    assert answers[0] == answers[2] == answer_query(good)
    assert set(answers[1]) == {"error"}
    assert fragment.lower() in answers[1]["error"].lower()
    assert "\n" not in answers[1]["error"]


def test_batch_deeply_nested_line_is_an_error_object(tmp_path):
    """A pathological (deeply nested) line is one bad line, not a crash of the whole batch."""
    good = json.dumps(QUERIES[0])
    path = tmp_path / "q.jsonl"
    path.write_text(f"{good}\n{'[' * 100000}\n{good}\n", encoding="utf-8")
    result = run("moves", "--batch", str(path))
    assert_one_line_error(result, code=1)
    answers = [json.loads(l) for l in result.stdout.splitlines()]
    assert len(answers) == 3
    assert set(answers[1]) == {"error"}


# --- bad input: one line on stderr, non-zero exit, no traceback ------------------

IMPOSSIBLE = json.dumps({**START, "waiting": [14, 15]})


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Input files for the bad-input cases, in the current folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.toml").write_text('preset = "navy"\nhome = \n', encoding="utf-8")
    (tmp_path / "bad.json").write_text('{"preset": "navy",', encoding="utf-8")
    (tmp_path / "knob.toml").write_text('preset = "navy"\ncolour = "red"\n', encoding="utf-8")
    (tmp_path / "type.toml").write_text('preset = "navy"\nhome = 3\n', encoding="utf-8")
    (tmp_path / "nopreset.toml").write_text('home = "free"\n', encoding="utf-8")
    (tmp_path / "contra.toml").write_text(
        'preset = "european"\nacey_deucey = "none"\n', encoding="utf-8"
    )
    (tmp_path / "list.json").write_text('["navy"]', encoding="utf-8")
    (tmp_path / "impossible.json").write_text(IMPOSSIBLE, encoding="utf-8")
    (tmp_path / "garbled.json").write_text('{"points": [0, 0', encoding="utf-8")
    (tmp_path / "q.jsonl").write_text(json.dumps(QUERIES[0]) + "\n", encoding="utf-8")
    (tmp_path / "latin1.jsonl").write_bytes(b'{"rules": "caf\xe9"}\n')
    (tmp_path / "adir").mkdir()
    return tmp_path


BAD_INPUTS = {
    "unknown knob": (["rules", "show", "navy", "--rule", "colour=red"], ["colour"]),
    "unknown knob in moves": (["moves", "-p", "start", "-d", "6-3", "--rule", "colour=red"], ["colour"]),
    "bad knob value": (["rules", "show", "navy", "--rule", "home=sideways"], ["home", "sideways"]),
    "bad bool value": (["moves", "-p", "start", "-d", "6-3", "--rule", "bar_first=maybe"], ["bar_first"]),
    "override without =": (["rules", "show", "navy", "--rule", "home"], ["knob=value"]),
    "contradictory knobs": (
        ["rules", "show", "european", "--rule", "acey_deucey=none"], ["acey_deucey_extra_roll"]),
    "contradictory knobs 2": (
        ["rules", "show", "backgammon", "--rule", "acey_deucey_extra_roll=true"], ["contradicts"]),
    "contradictory rules file": (["rules", "show", "contra.toml"], ["contradicts"]),
    "unknown preset": (["show", "start", "--rules", "klingon"], ["klingon"]),
    "unknown preset in rules show": (["rules", "show", "klingon"], ["klingon"]),
    "missing rules file": (["rules", "show", "nothere.toml"], ["nothere.toml"]),
    "missing rules file in moves": (["moves", "-p", "start", "-d", "6-3", "-r", "nothere.json"], ["nothere.json"]),
    "malformed toml": (["rules", "show", "bad.toml"], ["bad.toml", "malformed"]),
    "malformed json rules": (["rules", "show", "bad.json"], ["bad.json", "malformed"]),
    "unknown knob in file": (["rules", "show", "knob.toml"], ["colour"]),
    "wrong type in file": (["rules", "show", "type.toml"], ["home"]),
    "no preset in file": (["rules", "show", "nopreset.toml"], ["preset"]),
    "rules file not an object": (["rules", "show", "list.json"], ["preset"]),
    "impossible position inline": (["show", IMPOSSIBLE], ["impossible", "checkers"]),
    "impossible position file": (["moves", "-p", "impossible.json", "-d", "6-3"], ["impossible"]),
    "impossible position id": (["show", "A" * 24], ["impossible"]),
    "malformed position json": (["show", '{"points": [0, 0'], ["not valid JSON"]),
    "malformed position file": (["show", "garbled.json"], ["not valid JSON"]),
    "position unknown key": (["show", json.dumps({**START, "pips": 3})], ["pips"]),
    "position wrong type": (["show", json.dumps({**START, "bar": [0, "1"]})], ["bar"]),
    "missing position file": (["show", "nothere.json"], ["nothere.json"]),
    "bad position id length": (["show", "abc"], ["position ID", "24"]),
    "bad position id character": (["show", "!" * 24], ["position ID"]),
    "game over position": (
        ["moves", "-p", json.dumps({**START, "waiting": [0, 15], "off": [15, 0]}), "-d", "6-3"], ["over"]),
    "dice 7-1": (["moves", "-p", "start", "-d", "7-1"], ["7-1"]),
    "dice 0-3": (["moves", "-p", "start", "-d", "0-3"], ["0-3"]),
    "dice x": (["moves", "-p", "start", "-d", "x"], ["'x'"]),
    "dice 6": (["moves", "-p", "start", "-d", "6"], ["'6'"]),
    "dice 6-3-1": (["moves", "-p", "start", "-d", "6-3-1"], ["6-3-1"]),
    "missing dice": (["moves", "-p", "start"], ["--dice"]),
    "missing position": (["moves", "-d", "6-3"], ["--position"]),
    "out without batch": (["moves", "-p", "start", "-d", "6-3", "--out", "a.jsonl"], ["--batch"]),
    "batch with position": (["moves", "--batch", "q.jsonl", "--position", "start"], ["--position"]),
    "batch with dice": (["moves", "--batch", "q.jsonl", "--dice", "6-3"], ["--dice"]),
    "batch file missing": (["moves", "--batch", "nothere.jsonl"], ["nothere.jsonl"]),
    "batch file not utf-8": (["moves", "--batch", "latin1.jsonl"], ["latin1.jsonl", "UTF-8"]),
    "batch file is a folder": (["moves", "--batch", "adir"], ["adir"]),
    "out into missing folder": (["moves", "--batch", "q.jsonl", "--out", "nope/a.jsonl"], ["nope"]),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_is_one_line(files, case):
    args, fragments = BAD_INPUTS[case]
    before = sorted(p.name for p in files.rglob("*"))
    result = run(*args)
    assert_one_line_error(result, *fragments)
    assert result.stdout == ""
    # nothing written anywhere: no answers file, no temporary file, no new folder
    assert sorted(p.name for p in files.rglob("*")) == before


def test_out_into_missing_folder_creates_nothing(tmp_path):
    query = tmp_path / "q.jsonl"
    query.write_text(json.dumps(QUERIES[0]) + "\n", encoding="utf-8")
    out = tmp_path / "missing" / "deeper" / "a.jsonl"
    result = run("moves", "--batch", str(query), "--out", str(out))
    assert_one_line_error(result, "does not exist", code=1)
    assert not (tmp_path / "missing").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.jsonl"]


def test_out_is_an_existing_folder(tmp_path):
    """--out naming a folder is an unwritable --out path: one line, not a traceback."""
    query = tmp_path / "q.jsonl"
    query.write_text(json.dumps(QUERIES[0]) + "\n", encoding="utf-8")
    target = tmp_path / "answers"
    target.mkdir()
    result = run("moves", "--batch", str(query), "--out", str(target))
    assert_one_line_error(result, "answers")
    assert target.is_dir() and list(target.iterdir()) == []
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_rules_file_not_utf8(tmp_path, suffix):
    path = tmp_path / f"latin1{suffix}"
    path.write_bytes(b'preset = "navy"\n# caf\xe9\n' if suffix == ".toml" else b'{"preset": "caf\xe9"}')
    result = run("rules", "show", str(path))
    assert_one_line_error(result, path.name)


def test_position_file_not_utf8(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"points": "caf\xe9"}')
    result = run("show", str(path))
    assert_one_line_error(result, path.name)


def test_position_id_rejects_standard_base64_characters():
    """'+' is not in the ID alphabet (A-Z a-z 0-9 - _); a position has exactly one ID."""
    pos = Position(tuple([0] * 14 + [1, 0, 0, 0, 3] + [0] * 5), waiting=(11, 15))
    pos_id = pos.to_id()
    assert "-" in pos_id
    result = run("show", pos_id.replace("-", "+"))
    assert_one_line_error(result, "position ID")


# --- the real console script ----------------------------------------------------


def console(*args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("acesim")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "acesim.cli"]
    return subprocess.run(
        command + list(args), input=stdin, capture_output=True, text=True, timeout=120,
        env=None if env is None else {**os.environ, **env},
    )


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--frobnicate"], "--frobnicate"),
        (["moves", "--frobnicate"], "--frobnicate"),
        (["frobnicate"], "frobnicate"),
        (["moves", "--dice"], "--dice"),
        (["bench", "moves", "--positions", "many"], "--positions"),
    ],
)
def test_console_usage_errors_are_one_line(args, fragment):
    proc = console(*args)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("acesim: error: ")
    assert fragment in lines[0]
    assert proc.stdout == ""


def test_console_bad_input_and_success():
    bad = console("moves", "--position", "start", "--dice", "7-1")
    assert bad.returncode == 1
    assert bad.stderr.splitlines() == ["acesim: error: dice '7-1' must be two whole numbers from 1 to 6"]
    good = console("moves", "--batch", "-", stdin=json.dumps(QUERIES[0]) + "\n")
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout) == answer_query(json.dumps(QUERIES[0]))


def test_console_no_arguments_shows_help():
    proc = console()
    assert proc.returncode == 0
    assert "Usage" in proc.stdout and "moves" in proc.stdout


def test_rules_show_file_compares_with_its_base_preset(tmp_path):
    path = tmp_path / "club.toml"
    path.write_text('preset = "navy"\nbearoff = "standard"\n')
    result = runner.invoke(app, ["rules", "show", str(path)])
    assert result.exit_code == 0
    assert "navy preset" in result.output
    assert "exact (changed)" in result.output


def test_console_no_arguments_to_a_group_shows_its_help():
    proc = console("rules")
    assert proc.returncode == 0, proc.stderr
    assert "Usage" in proc.stdout and "list" in proc.stdout and "show" in proc.stdout
    assert proc.stderr == ""


# --- version ------------------------------------------------------------------------


def test_version_is_the_installed_package_s():
    pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert version("acesim") == pyproject["project"]["version"]
    result = run("--version")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"acesim {version('acesim')}\n"
    proc = console("--version")
    assert proc.returncode == 0 and proc.stdout == f"acesim {version('acesim')}\n" and proc.stderr == ""


# --- shell completion -----------------------------------------------------------------

# typer detects the shell from the process tree; this (typer's own test switch) makes
# --show-completion and --install-completion take the shell as their value instead
NO_SHELL_DETECTION = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}


def test_help_offers_shell_completion():
    text = run("--help").stdout
    assert "--install-completion" in text and "--show-completion" in text and "--version" in text


def test_show_completion_prints_a_bash_script():
    proc = console("--show-completion", "bash", env=NO_SHELL_DETECTION)
    assert proc.returncode == 0, proc.stderr
    assert "_ACESIM_COMPLETE=complete_bash" in proc.stdout and "complete " in proc.stdout
    assert "Traceback" not in proc.stderr


def completions(*words: str) -> list[str]:
    """What bash completion offers after ``acesim WORDS`` (the last word being typed)."""
    proc = console(env={"_ACESIM_COMPLETE": "complete_bash", "COMP_WORDS": " ".join(["acesim", *words]),
                        "COMP_CWORD": str(len(words))})
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout.split()


def test_completion_completes_commands_and_each_command_s_own_options():
    assert completions("sim") == ["simulate"]
    assert completions("rules", "") == ["list", "show"]
    assert set(completions("luck", "--eq")) == {"--equity-games", "--equity"}
    assert completions("compare", "--eq") == []


def test_install_completion_writes_into_home(tmp_path):
    proc = console("--install-completion", "bash", env={**NO_SHELL_DETECTION, "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    script = tmp_path / ".bash_completions" / "acesim.sh"
    assert "_ACESIM_COMPLETE=complete_bash" in script.read_text()
    assert str(script.relative_to(tmp_path)) in (tmp_path / ".bashrc").read_text()


# --- help texts -------------------------------------------------------------------------


def all_commands():
    """(words, click command) of every command and subcommand."""
    found = []

    def walk(words, command):
        found.append((words, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk([*words, name], sub)

    walk([], get_command(app))
    return found


COMMANDS = [words for words, _ in all_commands()]


def help_page(words: list[str]) -> str:
    # wide enough that no option's help is wrapped (a wrap would split "--luck-games")
    result = runner.invoke(app, [*words, "--help"], terminal_width=1000)
    assert result.exit_code == 0, result.output
    assert_no_traceback(result)
    return result.stdout


def option_helps(page: str) -> dict[str, str]:
    """Each option's line of a help page (with its continuation), by its first long name."""
    blocks: dict[str, str] = {}
    current = None
    for line in page.splitlines():
        if re.match(r"^  -", line):
            current = re.search(r"--[\w-]+", line).group()
            blocks[current] = line.strip()
        elif current and line.startswith("      ") and line.strip():
            blocks[current] += " " + line.strip()
        else:
            current = None
    return blocks


def shown_default(param) -> str | None:
    """How click writes a default in help, None where it writes none (off flags, no default)."""
    if param.required or param.default is None or (param.is_flag and param.default is False):
        return None
    if param.is_flag and param.secondary_opts:
        return param.opts[0].lstrip("-") if param.default else param.secondary_opts[0].lstrip("-")
    return str(param.default)


@pytest.mark.parametrize("words", COMMANDS, ids=lambda w: " ".join(w) or "acesim")
def test_every_help_shows_every_default_literally(words):
    command = dict((tuple(w), c) for w, c in all_commands())[tuple(words)]
    page = help_page(words)
    assert "{late:" not in page
    blocks = option_helps(page)
    for param in command.params:
        if param.param_type_name != "option" or param.name == "help" or param.hidden:
            continue
        long_name = next(o for o in param.opts if o.startswith("--"))
        assert long_name in blocks, f"{long_name} missing from the help of acesim {' '.join(words)}"
        default = shown_default(param)
        if default is not None:
            assert f"[default: {default}]" in blocks[long_name] or f"[default: {default};" in blocks[long_name], \
                blocks[long_name]


def test_defaults_in_square_brackets_survive_in_help():
    """Rich read "[european]" as a markup tag and dropped it from the help."""
    blocks = option_helps(help_page(["simulate"]))
    assert "[default: european]" in blocks["--rules"]
    assert "[default: expert]" in blocks["--strategy"] and "[default: expert]" in blocks["--vs"]
    assert "[default: 10000]" in blocks["--games"] and "[default: 10000]" in blocks["--turn-cap"]
    assert "[default: 42]" in blocks["--seed"]


def test_the_size_options_show_their_default_at_the_default_games():
    from acesim.runs.report import report_sizes_from_numbers

    sizes = report_sizes_from_numbers(cli.ANALYSIS_GAMES)
    blocks = option_helps(help_page(["report"]))
    for name, size in sizes.items():
        assert f"{size:,} at --games {cli.ANALYSIS_GAMES:,}" in blocks[f"--{name.replace('_', '-')}"]


STRATEGY_OPTIONS = [(words, name) for words, command in all_commands() for param in command.params
                    for name in param.opts if name in ("--strategy", "--strategies")]


def test_strategy_options_are_found():
    assert {" ".join(w) for w, _ in STRATEGY_OPTIONS} >= {
        "hint", "cube", "simulate", "rollout", "ladder", "compare", "bonus", "luck", "report",
        "bench simulate", "bench cluster"}


@pytest.mark.parametrize("words, option", STRATEGY_OPTIONS, ids=lambda x: " ".join(x) if isinstance(x, list) else x)
def test_strategy_help_lists_the_strategies_that_exist(words, option):
    from acesim.engine.model_files import model_dir
    from acesim.engine.strategies import strategy_names

    said = option_helps(help_page(words))[option]
    for name in strategy_names():
        assert re.search(rf"\b{name}\b", said), (name, said)
    for model in model_dir().glob("*.npz"):
        assert model.stem in said
    for form in ("learned:NAME", "learned:PATH", "@full", "@beam=K", "@rank=K"):
        assert form in said


def test_strategy_help_reads_the_weights_file(monkeypatch):
    import acesim.engine.strategies

    monkeypatch.setattr(acesim.engine.strategies, "strategy_names", lambda path=None: ["random", "club_favourite"])
    # the strategy list is written into the command's help the first time it is shown (cli.LateHelp),
    # and tests/conftest.py keeps one command for the suite: build a fresh one
    monkeypatch.setattr(typer.testing, "_get_command", get_command)
    assert "club_favourite" in option_helps(help_page(["simulate"]))["--strategy"]


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["rules", "--help"]])
def test_version_and_help_import_no_engine(argv):
    """Reading the strategies imports Numba (most of a second): not for --version or a help without them."""
    code = (f"import sys; from acesim.cli import main; sys.argv = ['acesim', *{argv!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('numba' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.splitlines()[-1] == "False", proc.stdout + proc.stderr


# --- each analysis command offers only the options it uses ------------------------------

ANALYSIS_PARTS = {"compare": ("compare",), "bonus": ("bonus",), "luck": ("luck",),
                  "report": ("compare", "bonus", "luck")}
EVERY_ANALYSIS = {"--rules", "--rules-file", "--rule", "--sweep", "--games", "--strategy", "--seed", "--workers",
                  "--out", "--force", "--scheduler", "--progress"}
EQUITY = {"--equity-games", "--luck-games", "--equity"}  # the equity model and the valued rolls
ANALYSIS_OPTIONS = {
    "compare": EVERY_ANALYSIS,
    "bonus": EVERY_ANALYSIS | EQUITY,
    "luck": EVERY_ANALYSIS | EQUITY | {"--ladder-games"},
    "report": EVERY_ANALYSIS | EQUITY | {"--ladder-games"},
}


def long_options(name: str) -> set[str]:
    command = get_command(app).commands[name]
    return {o for p in command.params if p.param_type_name == "option" for o in p.opts if o.startswith("--")} - {
        "--help", "--no-progress"}


@pytest.mark.parametrize("name", list(ANALYSIS_OPTIONS))
def test_analysis_command_offers_only_the_options_it_uses(name):
    assert long_options(name) == ANALYSIS_OPTIONS[name]
    assert set(option_helps(help_page([name]))) - {"--help"} == ANALYSIS_OPTIONS[name]


# one value per option, none of them the default: the option, its text, where it lands (a field of
# AnalysisOptions or an argument of the run) and the value it lands as
GIVEN = {
    "--rules": ("rules", "navy", "navy"),
    "--rules-file": ("rules_files", "club.toml", (Path("club.toml"),)),
    "--rule": ("overrides", "home=free", ("home=free",)),
    "--sweep": ("sweep", "bearoff=exact,standard", "bearoff=exact,standard"),
    "--games": ("games", "123", 123),
    "--strategy": ("strategy", "racer", "racer"),
    "--equity-games": ("equity_games", "45", 45),
    "--luck-games": ("luck_games", "6", 6),
    "--ladder-games": ("ladder_games", "7", 7),
    "--seed": ("seed", "9", 9),
    "--workers": ("workers", "1", 1),
    "--out": ("out", "somewhere", Path("somewhere")),
    "--force": ("force", None, True),
    "--scheduler": ("scheduler", "local:1", "local:1"),
    "--equity": ("equity", "logistic", "logistic"),
    "--progress": ("progress", "--no-progress", False),
}
DEFAULTS = {"equity_games": None, "luck_games": None, "ladder_games": None, "equity": "auto"}


@pytest.mark.parametrize("name", list(ANALYSIS_OPTIONS))
def test_analysis_options_reach_the_analysis_unchanged(name, monkeypatch):
    seen = {}

    def analysis(command, parts, options, workers, out, force, scheduler, progress):
        seen.update(command=command, parts=parts, **dataclasses.asdict(options), workers=workers, out=out,
                    force=force, scheduler=scheduler, progress=progress)

    monkeypatch.setattr(cli, "_analysis", analysis)
    args = [name]
    for option in sorted(ANALYSIS_OPTIONS[name]):
        _, text, _ = GIVEN[option]
        args += [text] if option == "--progress" else [option] if text is None else [option, text]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert seen.pop("command") == name and seen.pop("parts") == ANALYSIS_PARTS[name]
    expected = {GIVEN[o][0]: GIVEN[o][2] for o in ANALYSIS_OPTIONS[name]}
    expected.update({k: v for k, v in DEFAULTS.items() if k not in expected})  # what the command lacks
    assert seen == expected


@pytest.mark.parametrize("args, fragment", [
    (["compare", "--equity-games", "5"], "--equity-games"),
    (["compare", "--equity", "logistic"], "--equity"),
    (["compare", "--ladder-games", "5"], "--ladder-games"),
    (["bonus", "--ladder-games", "5"], "--ladder-games"),
])
def test_an_option_of_another_analysis_is_a_one_line_usage_error(args, fragment):
    proc = console(*args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("acesim: error: ") and fragment in lines[0], proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("name", list(ANALYSIS_PARTS))
def test_the_reproducing_command_line_is_one_the_command_takes(name):
    """A report's "Reproduce with" line names only options its command has."""
    from acesim.runs.options import AnalysisOptions
    from acesim.runs.report import analysis_plan

    plan = analysis_plan(name, ANALYSIS_PARTS[name], AnalysisOptions("european", games=100, equity="logistic"),
                         out=Path("x"))
    words = shlex.split(plan.command)
    assert words[:2] == ["acesim", name]
    get_command(app).commands[name].make_context(name, words[2:])  # raises on an unknown option


def test_a_model_records_the_command_line_it_was_given_rebuilt_from_the_options():
    """``train`` writes into the model the options the user gave, by their long names, quoted for a
    shell; that line parses back to the same options."""
    train = get_command(app).commands["train"]
    given = ["-r", "european", "--games", "20", "--hidden", "8", "-o", "my model.npz", "--no-progress", "--force",
             "--rule", "hitting=free", "--rule", "home=free"]
    line = cli._command_line(train.make_context("train", list(given)))
    assert line == ("acesim train --rules european --rule hitting=free --rule home=free --games 20 "
                    "--out 'my model.npz' --hidden 8 --force --no-progress")
    words = shlex.split(line)
    assert train.make_context("train", words[2:]).params == train.make_context("train", list(given)).params
