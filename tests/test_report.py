"""The report and the analysis commands: what they promise is in the files, bad input is one line."""

from __future__ import annotations

import dataclasses
import json
import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from acesim.analyses.bonus import roll_values
from acesim.analyses.equity import calibrate_probabilities, equity_models, model_predictions, positions
from acesim.analyses.luck import bonus_choices, roll_dice_sums
from acesim.cli import app
from acesim.engine.games import play_games, trace_games
from acesim.engine.rules import Ruleset
from acesim.kernels import dice_luck as LK, game_loop as K
from acesim.runs.options import AnalysisOptions
from acesim.runs.report import analysis_plan, build

runner = CliRunner()
SMALL = ["--games", "150", "--equity-games", "60", "--luck-games", "6", "--ladder-games", "4", "--workers", "1"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("r") / "report"
    result = runner.invoke(app, ["report", "--rules", "european,backgammon", "--seed", "9", "--out", str(out), *SMALL])
    assert result.exit_code == 0, result.output
    return out


def test_report_has_every_chart_and_table(report):
    meta = json.loads((report / "report.json").read_text())
    expected_figures = {
        "first_mover", "points", "length_rolls", "length_turns", "paired_differences", "win_by_doubles_diff",
        "win_by_one_two_diff", "roll_values", "chosen_by_phase", "calibration", "luck", "elo",
    }
    assert set(meta["figures"]) == expected_figures
    html = (report / "report.html").read_text()
    markdown = (report / "report.md").read_text()
    assert len(re.findall(r'<img alt="[^"]+" src="data:image/png;base64,', html)) == len(expected_figures)
    for name in expected_figures:
        assert (report / "figures" / f"{name}.png").stat().st_size > 1000
        assert f"figures/{name}.png" in markdown
    for name in meta["tables"]:
        assert (report / "tables" / f"{name}.csv").stat().st_size > 0
    assert {"comparison", "paired_differences", "bonus_model", "roll_values", "luck", "elo",
            "relative_skill", "calibration", "rules"} <= set(meta["tables"])
    # the reproducing command and seed, the formulas, the knob tables
    assert "`acesim report --rules european,backgammon --games 150 --strategy best --equity-games 60 " \
        "--luck-games 6 --ladder-games 4 --seed 9 --out" in markdown
    # best is one player for both rule sets: the shipped network that reads the rules,
    # said in the report and its metadata (tests/test_one_player.py)
    assert meta["player"] == "learned:any"
    assert meta["players"] == {"european": "learned:any", "backgammon": "learned:any"}
    assert "played by `learned:any` against itself under every rule set (`best`: the shipped network that " \
        "plays them all)" in markdown
    assert set(pd.read_csv(report / "tables" / "ladder.csv")["strategy"]) == {"random", "racer", "safe", "blocker",
                                                                            "expert", "learned:any"}
    assert "net luck N = L_A - L_B" in html and "home_after_all_in" in html
    assert meta["rules"]["backgammon"]["start"] == "backgammon"


def test_report_is_reproducible(report, tmp_path):
    out = tmp_path / "again"
    args = ["report", "--rules", "european,backgammon", "--seed", "9", "--out", str(out), *SMALL]
    assert runner.invoke(app, args).exit_code == 0
    # every file, byte for byte: no timestamp, floats rounded as written, charts drawn the same
    files = sorted(p.relative_to(report) for p in report.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    for name in files:
        # the reproducing command names its own --out folder
        assert (out / name).read_bytes().replace(str(out).encode(), b"OUT") == \
            (report / name).read_bytes().replace(str(report).encode(), b"OUT"), name
    assert "written" not in json.loads((report / "report.json").read_text())


def test_chosen_doubles_count_every_game_of_the_comparison(report):
    """The double chosen after a 1-2, by phase, counts every game of the comparison, not only the equity
    fit's and the luck games': the 150 games ``trace_games`` plays from game 0 (a chunk of games plays
    what the whole run would)."""
    table = pd.read_csv(report / "tables" / "chosen_by_phase.csv")
    european = table[table["rules"] == "european"]
    expected = bonus_choices(trace_games(Ruleset.preset("european"), "learned:any", "learned:any", 9, 0, 150))
    assert european.groupby("phase")["total"].first().to_dict() == expected["phase"].value_counts().to_dict()
    chosen = european.groupby(["phase", "face"])["chosen"].first()
    for (phase, face), n in expected.value_counts(["phase", "bonus_double"]).items():
        assert chosen[(phase, face)] == n
    assert european["chosen"].sum() == len(expected)
    # more than the equity fit's and the luck games' choices
    assert len(expected) > len(bonus_choices(trace_games(Ruleset.preset("european"), "learned:any", "learned:any",
                                                           9, 0, 66)))
    assert (table[table["rules"] == "backgammon"]["total"] == 0).all()  # no 1-2 bonus in backgammon (no rows)


def test_comparison_records_are_the_games_played_from_game_0():
    """The comparison's records reuse the equity fit's and the luck games' traces (games 0 .. 65 here)
    and play the rest: the same table, row for row, as playing all 150 games."""
    plan = analysis_plan("bonus", ("bonus",), AnalysisOptions("european", games=150, equity_games=60,
                                                            luck_games=6, seed=9))
    assert plan.traced_for_records() == 66 and plan.games_to_play() == 150
    (result,) = build(plan)
    expected = play_games(Ruleset.preset("european"), 150, 9, "learned:any", "learned:any")
    pd.testing.assert_frame_equal(result.records, expected)
    # fewer comparison games than traced ones: the first of the traces only
    small = dataclasses.replace(plan, games=40)
    assert small.traced_for_records() == 40
    (result,) = build(small)
    pd.testing.assert_frame_equal(result.records, expected.iloc[:40])


@pytest.fixture(scope="module")
def small_bonus():
    """A bonus run of 150 European games (the equity fit's 60, then 6 luck games), and beside it the equity
    fit's models and all 150 games traced at once."""
    plan = analysis_plan("bonus", ("bonus",), AnalysisOptions("european", games=150, equity_games=60,
                                                            luck_games=6, seed=9))
    (result,) = build(plan, workers=2)
    rules = Ruleset.preset("european")
    choice = equity_models(rules, "learned:any", 60, 9, traces=trace_games(rules, "learned:any", "learned:any", 9, 0, 60))
    return result, choice, trace_games(rules, "learned:any", "learned:any", 9, 0, 150)


def test_calibration_holds_out_every_game_not_fitted_on_but_the_luck_games(small_bonus):
    """The equity models are calibrated on the fit's last 20% (games 48 .. 59 here) and on every comparison
    game after the luck games' (66 .. 149): the bins and Brier scores of calibrating both models on those
    games' positions at once, and the model of the lower Brier score over them."""
    result, choice, traces = small_bonus
    frame = positions(traces)
    held = ((frame["game"] >= 48) & (frame["game"] < 60) | (frame["game"] >= 66)).to_numpy()
    test, boards = frame[held], traces.rolls[held, K.T_BOARD:]
    expected = {
        "logistic": calibrate_probabilities(choice.logistic.predict(test[list(LK.INPUTS)].to_numpy()),
                                            test["won"].to_numpy(), choice.base_rate, test),
        "learned": calibrate_probabilities(choice.learned.predict_boards(boards), test["won"].to_numpy(),
                                           choice.base_rate, test),
    }
    assert test["game"].nunique() == 12 + 84 == result.equity_games
    for name, c in expected.items():
        got = result.calibration[result.calibration["model"] == name].reset_index(drop=True)
        pd.testing.assert_frame_equal(got[list(c.bins.columns)], c.bins, check_exact=False, rtol=1e-12)
        assert got["brier"].iloc[0] == pytest.approx(c.brier, rel=1e-12)
    brier = {name: c.brier for name, c in expected.items()}
    assert result.equity_model == min(brier, key=brier.get)
    assert result.equity_positions == len(test)


def test_roll_values_come_from_every_roll_of_the_comparisons_games(small_bonus):
    """Every roll of the 150 games (the equity fit's, the luck games' and the rest), each valued after the
    roll that came by the chosen model: the same table as the sums of all 150 traced games at once."""
    result, choice, traces = small_bonus
    rules = Ruleset.preset("european")
    frame = positions(traces)
    predictions = model_predictions(choice, frame, traces.rolls[:, K.T_BOARD:])
    name = result.equity_model
    sums = roll_dice_sums(rules, traces, "learned:any", {name: choice.learned if name == "learned" else choice.logistic},
                          predictions, frame[list(LK.INPUTS)].to_numpy(), "learned")
    got, expected = roll_values(result.dice), roll_values(sums[name])
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-9)
    assert got["games"].iloc[0] == 150 and got["states"].iloc[0] == (traces.rolls[:, K.T_OPENING] == 0).sum()


def test_report_speaks_first_in_words(report):
    markdown = (report / "report.md").read_text()
    sections = re.findall(r"^## (.+)$", markdown, flags=re.M)
    assert sections[0] == "Findings"
    assert sections.index("Glossary") > sections.index("Tables") > sections.index("Luck factor")
    assert sections[-2:] == ["How the figures were made", "Files"]
    findings = markdown.split("## Findings")[1].split("\n## ")[0]
    for name in ("european", "backgammon"):
        assert f"**{name}**" in findings
    bullets = [line for line in findings.splitlines() if line.startswith("* ")]
    assert len(bullets) >= 10
    assert all(re.search(r"n = [\d,]+", b) and "[" in b for b in bullets)
    # rates in percent, differences in percentage points, throughout
    assert "first mover wins" in findings and "%" in findings and " pp [" in findings
    comparison = pd.read_csv(report / "tables" / "comparison.csv").set_index("rules")
    rate = comparison.loc["european", "first_mover_win_rate"]
    assert f"{100 * rate:.1f}% [" in findings
    # the CSV floats are rounded to what the text can use
    for table in (report / "tables").glob("*.csv"):
        for number in re.findall(r"-?\d+\.\d+(?:e[-+]\d+)?", table.read_text()):
            mantissa = number.split("e")[0].replace("-", "").replace(".", "").lstrip("0")
            assert len(mantissa) <= 6, (table.name, number)


def test_existing_output_needs_force_and_must_be_a_report(report, tmp_path):
    args = ["report", "--rules", "navy", "--out", str(report), *SMALL]
    result = runner.invoke(app, args)
    assert result.exit_code == 1 and "already exists" in result.output
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep me")
    result = runner.invoke(app, ["report", "--rules", "navy", "--out", str(other), "--force", *SMALL])
    assert result.exit_code == 1 and "not an acesim report" in result.output
    assert (other / "mine.txt").read_text() == "keep me"


# Sizes and seeds out of range are typer's bounds: one-line usage errors from the
# console script (tests/test_faults_input.py).
@pytest.mark.parametrize(
    "args, message",
    [
        (["compare", "--rules", "nope"], "unknown rules 'nope'"),
        (["compare", "--sweep", "doubles_extra_roll"], "knob=value1,value2"),
        (["compare", "--sweep", "bogus=1,2"], "unknown rule knob 'bogus'"),
        (["luck", "--strategy", "random", "--games", "10"], "not deterministic"),
        (["report", "--games", "10"], "needs --out"),
        (["compare", "--workers", "0", "--games", "10"], "workers must be positive"),
    ],
)
def test_bad_input_is_one_line(args, message, tmp_path):
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output


def test_compare_sweep_prints_paired_differences(tmp_path):
    out = tmp_path / "sweep"
    result = runner.invoke(
        app, ["compare", "--rules", "european", "--sweep", "doubles_extra_roll=true,false", "--games", "120",
              "--strategy", "racer", "--workers", "1", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert "european[doubles_extra_roll=false]" in result.output and "Paired differences" in result.output
    meta = json.loads((out / "report.json").read_text())
    assert meta["parts"] == ["compare"] and "paired_differences" in meta["figures"]
    assert not (out / "figures" / "elo.png").exists()
