"""Positions reached in random games, for tests and benchmarks."""

from __future__ import annotations

import numpy as np

from acesim.common.errors import AcesimError
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from acesim.kernels import layout as L
from acesim.kernels.board import INVARIANT_MESSAGES, check_invariants
from acesim.kernels.memory import keep_memory, worker_memory
from acesim.kernels.randomplay import random_walk



def sample_positions(
    rules: Ruleset, n_samples: int, seed: int, max_games: int = 1_000_000
) -> tuple[np.ndarray, np.ndarray]:
    """``n_samples`` boards (mover's view) met before segments of random games, with their dice.

    Every play the enumerator generates on the way is checked with the jitted
    ``check_invariants``; a violation is an engine bug and raises.
    """
    if n_samples <= 0:
        raise AcesimError(f"the number of samples must be positive, got {n_samples}")
    block_key = np.random.SeedSequence(seed).generate_state(4, np.uint64)
    samples = np.zeros((n_samples, L.BOARD_SIZE), dtype=L.BOARD_DTYPE)
    dice = np.zeros((n_samples, 2), dtype=np.int64)
    start = Position.start(rules.start).to_board()
    memory = worker_memory()
    n, violation, grown = random_walk(start, rules.to_array(), block_key, max_games, n_samples, memory, samples, dice)
    keep_memory(grown)
    if violation:
        raise AssertionError(f"engine bug under {rules.name}: {INVARIANT_MESSAGES[int(violation)]}")
    for board in samples[:n]:
        code = int(check_invariants(board))
        if code:
            raise AssertionError(f"engine bug under {rules.name}: {INVARIANT_MESSAGES[code]}")
    return samples[:n], dice[:n]
