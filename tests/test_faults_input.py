"""Hostile input that once got a traceback, a hang or a silent default (issue 15's faults 2, 5 and 6).

Each case must give one line on stderr starting ``acesim: error:`` and a
non-zero exit, and start no games.  Cases that typer's own bounds refuse are
run through the real console script, whose ``main()`` turns usage errors into
one line; cases that would block forever on the old code (a FIFO given as
input) run there too, under a timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acesim.cli import app
from acesim.common.errors import AcesimError
from acesim.engine.moves import parse_dice
from acesim.engine.rules import Ruleset, load_ruleset, parse_override
from acesim.engine.strategies import load_strategy
from acesim.outputs.document import markdown_to_html

runner = CliRunner()


def one_line_error(result, *fragments: str) -> str:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code != 0, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("acesim: error: "), lines[0]
    for fragment in fragments:
        assert fragment.lower() in lines[0].lower(), lines[0]
    return lines[0]


def console(*args: str, timeout: float = 120, cwd: Path | None = None) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("acesim")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "acesim.cli"]
    return subprocess.run(command + list(args), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, cwd=cwd)


def console_one_line_error(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("acesim: error: "), lines[0]
    for fragment in fragments:
        assert fragment.lower() in lines[0].lower(), lines[0]


# --- strategy weights (fault 2) ----------------------------------------------------


@pytest.mark.parametrize(
    "table, fragment",
    [
        ("pip_lead = inf", "finite"),
        ("pip_lead = -inf", "finite"),
        ("pip_lead = nan", "finite"),
        ("pip_lead = 1e308\noff = -1e308", "outside"),
        ("pip_lead = 2e6", "outside"),
    ],
)
def test_non_finite_or_absurd_weights_are_refused_on_load(tmp_path, table, fragment):
    path = tmp_path / "w.toml"
    path.write_text(f"[racer]\n{table}\n")
    with pytest.raises(AcesimError, match=fragment):
        load_strategy("racer", path)
    result = runner.invoke(app, ["simulate", "--strategies-file", str(path), "--strategy", "racer", "--vs", "racer",
                                 "--games", "4", "--workers", "1", "--no-progress"])
    one_line_error(result, "racer.pip_lead")


def test_large_finite_weights_still_load(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text("[racer]\npip_lead = 1e6\noff = -1e6\n")
    assert load_strategy("racer", path).weights[0] == 1e6


def test_strategies_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "w.toml"
    path.write_bytes(b"\xff\xfe[racer]\npip_lead = 1\n")
    result = runner.invoke(app, ["simulate", "--strategies-file", str(path), "--games", "4", "--no-progress"])
    one_line_error(result, "not UTF-8")


@pytest.mark.parametrize("spec", ["", "  "])
def test_empty_strategy_is_refused_not_replaced_by_expert(spec):
    with pytest.raises(AcesimError, match="empty strategy"):
        load_strategy(spec)
    for option in ("--strategy", "--vs"):
        result = runner.invoke(app, ["simulate", option, spec, "--games", "4", "--workers", "1", "--no-progress"])
        one_line_error(result, "empty strategy")


@pytest.mark.parametrize("spec", ["", "racer,,expert", "racer, "])
def test_ladder_with_an_empty_strategy_list_is_refused(spec):
    result = runner.invoke(app, ["ladder", "--strategies", spec, "--games", "2", "--no-progress"])
    one_line_error(result, "empty strategy")


def test_empty_rules_are_refused_not_replaced_by_european():
    result = runner.invoke(app, ["simulate", "--rules", "", "--games", "4", "--no-progress"])
    one_line_error(result, "empty rule set name")


# --- rule values and rule-set names (faults 5 and 6) -------------------------------


@pytest.mark.parametrize("raw", ["yes", "no", "on", "off", "1", "0", "TRUE", "False", ""])
def test_boolean_knobs_take_true_or_false_only(raw):
    with pytest.raises(AcesimError, match="allowed: true, false"):
        parse_override(f"doubles_extra_roll={raw}")
    result = runner.invoke(app, ["rules", "show", "european", "--rule", f"doubles_extra_roll={raw}"])
    one_line_error(result, "doubles_extra_roll")


def test_boolean_knobs_accept_true_and_false():
    assert parse_override("doubles_extra_roll=false") == ("doubles_extra_roll", False)
    assert parse_override(" bar_first = true ") == ("bar_first", True)


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("a\\u0000b", "printable"),
        ("tab\\there", "printable"),
        ("a/b", "'/'"),
        ("..", "names a folder"),
        ("", "printable"),
        ("x" * 300, "longer than 64"),
    ],
)
def test_rule_set_names_that_cannot_name_a_folder(tmp_path, name, fragment):
    path = tmp_path / "club.toml"
    path.write_text(f'preset = "navy"\nname = "{name}"\n', encoding="utf-8")
    with pytest.raises(AcesimError, match=fragment):
        load_ruleset(str(path))
    result = runner.invoke(app, ["simulate", "--rules", str(path), "--games", "4", "--no-progress"])
    one_line_error(result, "name")


def test_rule_set_name_must_be_text(tmp_path):
    path = tmp_path / "club.toml"
    path.write_text('preset = "navy"\nname = 7\n')
    with pytest.raises(AcesimError, match="must be text"):
        load_ruleset(str(path))


def test_long_file_stem_is_fine_when_the_file_changes_nothing(tmp_path):
    path = tmp_path / ("long" * 30 + ".toml")
    path.write_text('preset = "navy"\n')
    assert load_ruleset(str(path)) == Ruleset.preset("navy")


def test_override_names_may_grow_past_the_limit():
    ruleset = load_ruleset("european", [f"{k}={v}" for k, v in [
        ("doubles_extra_roll", "false"), ("bar_first", "false"), ("bar_entry", "doubles-only"),
        ("home", "locked"), ("bearoff", "standard"), ("scoring", "per-checker")]])
    assert len(ruleset.name) > 64


# --- dice ------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["６-３", "+6-+3", "6-+3", "٦-٣", "6-3-1", "6", "6-", "0x6-3", "6.0-3"])
def test_dice_are_ascii_digits_only(text):
    with pytest.raises(AcesimError, match="dice"):
        parse_dice(text)
    result = runner.invoke(app, ["moves", "--position", "start", "--dice", text])
    one_line_error(result, "dice")


@pytest.mark.parametrize("text", ["6-3", " 6-3 ", "6,3", "6 - 3"])
def test_dice_in_the_usual_forms(text):
    assert parse_dice(text) == (6, 3)


# --- repeated options ----------------------------------------------------------------


def test_a_repeated_sweep_is_refused_not_cut_to_the_last():
    result = runner.invoke(app, ["compare", "--rules", "european", "--sweep", "doubles_extra_roll=true,false",
                                 "--sweep", "bar_first=true,false", "--games", "10"])
    one_line_error(result, "--sweep", "2 times")


# --- sizes beyond any real run (typer's bounds, through the console script) --------------


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["simulate", "--games", "99999999999999999999999"], "--games"),
        (["simulate", "--games", "0"], "--games"),
        (["simulate", "--games", "-3"], "--games"),
        (["simulate", "--games", "10", "--chunk-size", "0"], "--chunk-size"),
        (["simulate", "--games", "1000", "--chunk-size", "100000000000"], "--chunk-size"),
        (["simulate", "--games", "10", "--turn-cap", "1180591620717411303424"], "--turn-cap"),
        (["simulate", "--games", "10", "--seed", "-1"], "--seed"),
        (["bench", "moves", "--seed", "-1"], "--seed"),
        (["bench", "games", "--seed", str(2**64)], "--seed"),
        (["ladder", "--games", "0"], "--games"),
        (["bonus", "--games", "10", "--luck-games", "0"], "--luck-games"),
        (["compare", "--games", "0"], "--games"),
        (["bonus", "--games", "10", "--seed", "-1"], "--seed"),
        (["train", "--games", "0", "--out", "m.npz"], "--games"),
    ],
)
def test_sizes_out_of_bounds_are_one_line_usage_errors(tmp_path, args, fragment):
    proc = console(*args, cwd=tmp_path)
    console_one_line_error(proc, fragment)
    assert proc.returncode == 2


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["moves", "--position", "start", "--dice", "6-3", "--bonus"], ("must be a double", "6-3")),
        (["moves", "--rules", "backgammon", "--position", "start", "--dice", "3-3", "--bonus"],
         ("acey_deucey",)),
        (["moves", "--batch", "q.jsonl", "--bonus"], ("--bonus",)),
    ],
)
def test_moves_bonus_misuse_is_a_one_line_error(tmp_path, args, fragments):
    (tmp_path / "q.jsonl").write_text("", encoding="utf-8")
    console_one_line_error(console(*args, cwd=tmp_path), *fragments)


# --- inputs that are not regular files -----------------------------------------------------


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "input.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "args, what",
    [
        (["rules", "show", "{fifo}"], "rules file"),
        (["show", "{fifo}"], "position file"),
        (["moves", "--batch", "{fifo}"], "batch file"),
        (["simulate", "--strategies-file", "{fifo}", "--games", "4"], "strategies file"),
    ],
)
def test_a_fifo_as_input_is_refused_not_waited_on(fifo, args, what):
    proc = console(*[a.replace("{fifo}", str(fifo)) for a in args], timeout=60)
    console_one_line_error(proc, what, "not a regular file")


def test_a_folder_as_rules_file(tmp_path):
    folder = tmp_path / "club.toml"
    folder.mkdir()
    result = runner.invoke(app, ["rules", "show", str(folder)])
    one_line_error(result, "is a folder")


# --- the report's HTML --------------------------------------------------------------------


def test_report_html_keeps_bold_and_one_list_per_list():
    html = markdown_to_html(["# Findings", "", "* **first** point", "* second point", "", "A `code` word."], {})
    assert "<strong>first</strong>" in html
    assert html.count("<ul>") == 1 and html.count("<li>") == 2
    assert "<code>code</code>" in html and "<h1>Findings</h1>" in html


def test_report_html_escapes_text_and_embeds_images():
    html = markdown_to_html(["<script>x</script> & co", "", "![A chart](figures/first_mover.png)"],
                             {"first_mover": b"\x89PNG"})
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert '<figure><img alt="A chart" src="data:image/png;base64,iVBORw==">' in html
    assert "<p><figure>" not in html


# --- the library checks the same bounds ------------------------------------------------------


def test_make_plan_refuses_sizes_beyond_the_limits():
    from acesim.common.limits import MAX_CHUNK_SIZE, MAX_GAMES, MAX_TURN_CAP
    from acesim.runs.simulate import make_plan

    rules, s = [Ruleset.preset("navy")], load_strategy("racer")
    with pytest.raises(AcesimError, match="at most"):
        make_plan(rules, s, s, MAX_GAMES + 1, 1)
    with pytest.raises(AcesimError, match="chunk size must be at most"):
        make_plan(rules, s, s, 10, 1, chunk_size=MAX_CHUNK_SIZE + 1)
    with pytest.raises(AcesimError, match="turn cap must be at most"):
        make_plan(rules, s, s, 10, 1, turn_cap=MAX_TURN_CAP + 1)


def test_rule_set_folders_fit_a_file_name_however_long_the_overrides_make_the_name():
    from acesim.runs.simulate import make_plan, rules_folder

    knobs = [("doubles_extra_roll", "false"), ("bar_first", "false"), ("bar_entry", "doubles-only"),
             ("home", "locked"), ("bearoff", "standard"), ("scoring", "per-checker"), ("opening", "use"),
             ("home_after_all_in", "free"), ("stakes_double_on_1_2", "true"), ("start", "backgammon"),
             ("doubles", "four"), ("bonus_needs_full_use", "false"), ("acey_deucey_extra_roll", "false")]
    long_a = load_ruleset("european", [f"{k}={v}" for k, v in knobs])
    long_b = load_ruleset("european", [f"{k}={v}" for k, v in knobs] + ["acey_deucey=roll-die"])
    assert len(long_a.name) > 255
    plan = make_plan([long_a, long_b], load_strategy("racer"), load_strategy("racer"), 10, 1)
    folders = {rules_folder(Path("out"), plan, r).name for r in (long_a, long_b)}
    assert len(folders) == 2 and all(len(f.encode()) <= 255 for f in folders)
    short = make_plan([Ruleset.preset("navy"), Ruleset.preset("european")], load_strategy("racer"),
                      load_strategy("racer"), 10, 1)
    assert rules_folder(Path("out"), short, Ruleset.preset("navy")) == Path("out/navy")


# --- messages that named the wrong thing, and inputs read without bound (issue 28) ---------------


def run(*args: str):
    return runner.invoke(app, list(args))


def test_an_empty_position_is_named_as_such():
    one_line_error(run("show", ""), "empty position")
    one_line_error(run("hint", "-p", " ", "-d", "6-3"), "empty position")


def test_an_xgid_match_length_that_is_no_number_is_the_field_quoted():
    line = one_line_error(run("show", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:x:10"), "match length")
    assert "'x'" in line and "0:0:1" not in line


def test_a_json_rules_file_with_a_key_twice_is_refused_as_toml_is(tmp_path):
    path = tmp_path / "club.json"
    path.write_text('{"preset": "navy", "bar_first": true, "bar_first": false}')
    one_line_error(run("rules", "show", str(path)), "'bar_first' is given twice")


@pytest.mark.parametrize("what, args", [
    ("rules file", lambda p: ["rules", "show", str(p)]),
    ("strategies file", lambda p: ["ladder", "--strategies-file", str(p), "--games", "1"]),
])
def test_a_huge_rules_or_weights_file_is_refused_before_it_is_parsed(tmp_path, what, args):
    path = tmp_path / "big.toml"
    path.write_text('preset = "navy"\n' + "#" * (2 * 2**20))  # took minutes to parse at 50 MB
    one_line_error(run(*args(path)), what, "larger than 1 MiB")


def test_best_on_simulate_names_every_command_that_takes_it():
    line = one_line_error(run("simulate", "--strategy", "best", "--games", "2"), "best")
    assert "hint" in line and "rollout" in line
