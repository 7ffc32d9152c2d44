"""``acesim ladder``: round-robin bookkeeping, both seat orders, CLI and bad input."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from acesim.cli import app
from acesim.common.errors import AcesimError
from acesim.engine.games import play_games
from acesim.engine.rules import PRESETS
from acesim.engine.strategies import load_strategy
from acesim.runs.ladder import ladder, ladder_matrix, ladder_table
from tests.test_cli import assert_one_line_error

runner = CliRunner()


def test_ladder_counts_both_seat_orders():
    rules = PRESETS["american"]
    strategies = [load_strategy(s) for s in ("racer", "safe", "expert")]
    matches = ladder(rules, strategies, games=25, seed=3)
    assert [(m.first, m.second) for m in matches] == [("racer", "safe"), ("racer", "expert"), ("safe", "expert")]
    # recount one pairing from the records of both orders
    ab = play_games(rules, 25, 3, "racer", "expert")
    ba = play_games(rules, 25, 3, "expert", "racer")
    wins = int(((ab.winner == 0) & (ab.unfinished == 0)).sum() + ((ba.winner == 1) & (ba.unfinished == 0)).sum())
    finished = int((ab.unfinished == 0).sum() + (ba.unfinished == 0).sum())
    match = matches[1]
    assert (match.first_wins, match.games) == (wins, finished)
    # the two seat orders roll the same dice: game g's opening gives the first move to the
    # same seat, so each strategy moves first in one order and second in the other
    assert (ab.first_mover.to_numpy() == ba.first_mover.to_numpy()).all()
    table = ladder_table(matches, strategies)
    assert len(table) == 6
    for m in matches:
        forward = table[(table.strategy == m.first) & (table.opponent == m.second)].iloc[0]
        backward = table[(table.strategy == m.second) & (table.opponent == m.first)].iloc[0]
        assert forward.wins + backward.wins == m.games
        assert forward.ci95_low <= forward.win_rate <= forward.ci95_high
    matrix = ladder_matrix(table, strategies)
    assert list(matrix.index) == list(matrix.columns) == ["racer", "safe", "expert"]
    assert matrix.loc["racer", "racer"] == "—"


def test_ladder_rejects_bad_strategy_lists():
    rules = PRESETS["navy"]
    with pytest.raises(AcesimError, match="at least two"):
        ladder(rules, [load_strategy("expert")], 5, 1)
    with pytest.raises(AcesimError, match="given twice"):
        ladder(rules, [load_strategy("expert"), load_strategy("expert")], 5, 1)


def test_cli_ladder_markdown_and_csv(tmp_path):
    out = tmp_path / "ladder.csv"
    result = runner.invoke(
        app,
        ["ladder", "--rules", "american", "--games", "10", "--strategies", "racer,blocker",
         "--workers", "1", "--no-progress", "--markdown", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert "| **racer** |" in result.output and "20 games per pairing" in result.output
    table = pd.read_csv(out)
    assert set(table.strategy) == {"racer", "blocker"} and (table.games > 0).all()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--rules", "european,navy"], "one rule set"),
        (["--strategies", "expert,wizard"], "unknown strategy 'wizard'"),
        (["--strategies", "expert"], "at least two"),
        (["--workers", "-1"], "number of workers must be positive"),
    ],
)
def test_cli_ladder_bad_input(args, fragment):
    result = runner.invoke(app, ["ladder", "--no-progress", "--games", "5", *args])
    assert_one_line_error(result, fragment)
