"""Whole games from Python: rules, strategies and a seed in, one records table out; training games.

Every entry point that plays games lives here: for records
(``play_records``, ``play_games``), for the traces the equity and luck
analyses read (``trace_games``), and for training (``play_training_games``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from acesim.common.errors import AcesimError
from acesim.common.limits import DEFAULT_TURN_CAP
from acesim.engine.position import Position
from acesim.engine.rules import RULES_VERSION, Ruleset
from acesim.engine.strategies import Strategy, as_strategy, lowered, playing_row
from acesim.engine.streams import block_keys, check_seed
from acesim.kernels import game_loop as K
from acesim.kernels.choice import LEARNED, Seats
from acesim.kernels.memory import keep_memory, pairing_memory, worker_memory

# No preset's random games come near it (see tests/test_games.py); a game that
# reaches it is recorded as unfinished, never as a win.

# The columns every records table has before the kernel's counters.
ID_COLUMNS = ("game", "seed", "rules", "rules_version", "strategy_a", "strategy_b")
COLUMNS = ID_COLUMNS + K.RECORD_COLUMNS


def play_records(
    rules: Ruleset,
    strategy_a: Strategy,
    strategy_b: Strategy,
    seed: int,
    first_game: int,
    n_games: int,
    turn_cap: int = DEFAULT_TURN_CAP,
    start: Position | None = None,
) -> np.ndarray:
    """The kernel rows of games ``first_game .. first_game + n_games - 1`` (int64, one row each).

    ``start`` replaces the rule set's starting position (seat A's view), for
    studies of one phase of the game such as a bear-off race.
    """
    if n_games <= 0:
        raise AcesimError(f"the number of games must be positive, got {n_games}")
    if turn_cap <= 0:
        raise AcesimError(f"the turn cap must be positive, got {turn_cap}")
    check_seed(seed)
    records = np.zeros((n_games, K.N_RECORD), dtype=np.int64)
    seats = lowered(strategy_a, strategy_b, rules)
    keep_memory(K.play_games(
        (Position.start(rules.start) if start is None else start).to_board(),
        rules.to_array(),
        block_keys(seed, first_game, n_games),
        first_game,
        turn_cap,
        seats,
        pairing_memory(seats),
        records,
        np.zeros((n_games, 0, K.TRACE_WIDTH), dtype=np.int64),  # no rolls kept
        np.zeros(n_games, dtype=np.int64),
    ))
    if (records[:, K.UNFINISHED] == 2).any():
        raise AssertionError(f"engine bug under {rules.name}: a game reached an impossible position")
    return records


def records_frame(
    records: np.ndarray,
    rules: Ruleset,
    strategy_a: Strategy,
    strategy_b: Strategy,
    seed: int,
    first_game: int,
) -> pd.DataFrame:
    """The records table of ``records`` (docs/records.md describes every column)."""
    n = records.shape[0]
    table = pd.DataFrame(records, columns=list(K.RECORD_COLUMNS))
    ids = pd.DataFrame(
        {
            "game": np.arange(first_game, first_game + n, dtype=np.int64),
            "seed": np.full(n, seed, dtype=np.int64),
            "rules": rules.name,
            "rules_version": np.full(n, RULES_VERSION, dtype=np.int64),
            "strategy_a": strategy_a.spec,
            "strategy_b": strategy_b.spec,
        }
    )
    return pd.concat([ids, table], axis=1)


def play_games(
    rules: Ruleset,
    n_games: int,
    seed: int,
    strategy_a: Strategy | str = "random",
    strategy_b: Strategy | str = "random",
    first_game: int = 0,
    turn_cap: int = DEFAULT_TURN_CAP,
) -> pd.DataFrame:
    """``n_games`` games of ``strategy_a`` (seat A) against ``strategy_b`` (seat B), one row per game."""
    a, b = as_strategy(strategy_a), as_strategy(strategy_b)
    records = play_records(rules, a, b, seed, first_game, n_games, turn_cap)
    return records_frame(records, rules, a, b, seed, first_game)


ANALYSIS_TRACE_ROWS = 4096  # rolls kept per traced game; a longer game is left out (and counted)


@dataclass
class Traces:
    """Traced games: their records and every roll (``K.TRACE_WIDTH`` columns), game by game."""

    games: np.ndarray  # game indices
    records: np.ndarray  # one kernel record row per game
    rolls: np.ndarray  # all traced rolls, concatenated
    start: np.ndarray  # per game: its first row in ``rolls``; one extra entry at the end
    too_long: int  # games whose rolls did not fit ANALYSIS_TRACE_ROWS (not included)

    def game_rolls(self, i: int) -> np.ndarray:
        return self.rolls[self.start[i] : self.start[i + 1]]

    def roll_games(self) -> np.ndarray:
        """The game index of each row of ``rolls``."""
        return np.repeat(self.games, np.diff(self.start))


def trace_games(
    rules: Ruleset,
    strategy_a: Strategy | str,
    strategy_b: Strategy | str,
    seed: int,
    first_game: int,
    n_games: int,
    turn_cap: int = DEFAULT_TURN_CAP,
) -> Traces:
    """Play games ``first_game ..`` exactly as ``play_games`` does, keeping every roll.

    Unfinished games (turn cap) are left out: they have no result to learn from.
    """
    if n_games <= 0:
        raise AcesimError(f"the number of games must be positive, got {n_games}")
    check_seed(seed)
    a, b = as_strategy(strategy_a), as_strategy(strategy_b)
    seats = lowered(a, b, rules)
    keys = block_keys(seed, first_game, n_games)
    first_block = first_game // K.GAMES_PER_BLOCK
    start = Position.start(rules.start).to_board()
    ra = rules.to_array()
    memory = pairing_memory(seats)
    # one game a call: a game's trace is copied out before the next is played into the same rows
    traces = np.zeros((1, ANALYSIS_TRACE_ROWS, K.TRACE_WIDTH), dtype=np.int64)
    played = np.zeros((1, K.N_RECORD), dtype=np.int64)
    length = np.zeros(1, dtype=np.int64)
    record, trace = played[0], traces[0]
    games, records, parts, starts = [], [], [], [0]
    too_long = 0
    for g in range(first_game, first_game + n_games):
        b = g // K.GAMES_PER_BLOCK - first_block
        memory = K.play_games(start, ra, keys[b : b + 1], g, turn_cap, seats, memory, played, traces, length)
        n = int(length[0])
        if record[K.UNFINISHED]:
            continue
        if n > ANALYSIS_TRACE_ROWS:
            too_long += 1
            continue
        games.append(g)
        records.append(record.copy())
        parts.append(trace[:n].copy())
        starts.append(starts[-1] + n)
    keep_memory(memory)
    if not games:
        raise AcesimError("no finished game to trace")
    return Traces(
        np.array(games), np.array(records), np.concatenate(parts), np.array(starts), too_long
    )


def traced_records(
    traces: Traces,
    rules: Ruleset,
    strategy_a: Strategy | str,
    strategy_b: Strategy | str,
    seed: int,
    first_game: int,
    n_games: int,
    turn_cap: int = DEFAULT_TURN_CAP,
) -> np.ndarray:
    """The kernel rows of games ``first_game .. first_game + n_games - 1``, as ``play_records`` gives them,
    taken from ``traces`` of the same players, seed and cap; a game the traces left out (unfinished, or
    too long to keep) is played again, alone, as every game's dice are its own."""
    rows = np.zeros((n_games, K.N_RECORD), dtype=np.int64)
    held = np.zeros(n_games, dtype=bool)
    inside = (traces.games >= first_game) & (traces.games < first_game + n_games)
    rows[traces.games[inside] - first_game] = traces.records[inside]
    held[traces.games[inside] - first_game] = True
    a, b = as_strategy(strategy_a), as_strategy(strategy_b)
    for k in np.flatnonzero(~held):
        rows[k] = play_records(rules, a, b, seed, first_game + int(k), 1, turn_cap)[0]
    return rows


TRACE_ROWS = 2048  # states kept per training game; a longer game teaches nothing (and is counted)


def play_training_games(
    network: np.ndarray, rules: Ruleset, seed: int, first_game: int, n_games: int, width: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Self-play games of ``network`` (both seats) for TD training: traces, their lengths, records.

    Game ``g`` plays the dice of game ``g`` of ``seed``; doubles segments are
    searched with a beam of ``width``.  Traces are cut to the longest game's
    length (at most ``TRACE_ROWS``).
    """
    traces = np.zeros((n_games, TRACE_ROWS, K.TRACE_WIDTH), dtype=np.int64)
    lengths = np.zeros(n_games, dtype=np.int64)
    records = np.zeros((n_games, K.N_RECORD), dtype=np.int64)
    row = playing_row(network)
    # the network in both seats at ply 1; training is cubeless (docs/rules.md section 6): no cube models
    seats = Seats(np.array([LEARNED, LEARNED], dtype=np.int64), np.array([[width, width], [width, width]],
                  dtype=np.int64), np.stack([row, row]), np.zeros((2, 0), dtype=np.float64))
    keep_memory(K.play_games(Position.start(rules.start).to_board(), rules.to_array(),
                             block_keys(seed, first_game, n_games), first_game, DEFAULT_TURN_CAP, seats,
                             worker_memory(width), records, traces, lengths))
    keep = int(min(max(lengths.max(), 1), TRACE_ROWS))
    return np.ascontiguousarray(traces[:, :keep]), lengths, records
