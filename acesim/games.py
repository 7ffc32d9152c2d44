"""Whole games from Python: seeded streams in, one records table out."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acesim.errors import AcesimError
from acesim.kernels.game import N_RECORD, RECORD_COLUMNS, play_games
from acesim.kernels.plays import new_workspace
from acesim.position import Position
from acesim.rules import RULES_VERSION, Ruleset

# No preset's random games come near it (see tests/test_games.py); a game that
# reaches it is recorded as unfinished, never as a win.
DEFAULT_TURN_CAP = 10_000


def play_random_games(
    rules: Ruleset, n_games: int, seed: int, turn_cap: int = DEFAULT_TURN_CAP
) -> pd.DataFrame:
    """``n_games`` random-vs-random games from one seeded stream, one row per game."""
    if n_games <= 0:
        raise AcesimError(f"the number of games must be positive, got {n_games}")
    if turn_cap <= 0:
        raise AcesimError(f"the turn cap must be positive, got {turn_cap}")
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    records = np.zeros((n_games, N_RECORD), dtype=np.int64)
    start = Position.start(rules.start).to_board()
    play_games(start, rules.to_array(), rng, n_games, turn_cap, new_workspace(), records)
    if (records[:, RECORD_COLUMNS.index("unfinished")] == 2).any():
        raise AssertionError(f"engine bug under {rules.name}: a game reached an impossible position")
    table = pd.DataFrame(records, columns=list(RECORD_COLUMNS))
    table.insert(0, "game", np.arange(n_games, dtype=np.int64))
    table["rules"] = rules.name
    table["rules_version"] = RULES_VERSION
    return table
