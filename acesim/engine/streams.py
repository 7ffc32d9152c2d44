"""Random streams from one root seed, independent of how games are split up.

Games are grouped in blocks of ``GAMES_PER_BLOCK``.  Block ``b`` takes the
key ``SeedSequence(seed).spawn(b + 1)[b].generate_state(4, uint64)``, that is
the ``b``-th spawned child of the root seed; each game seeds its own dice and
choice streams from its block's key and its index (``acesim.kernels.rng``).
A chunk of games only needs the keys of the blocks it touches, so the records
are identical whatever the chunk size and the number of workers.
"""

from __future__ import annotations

import numpy as np

from acesim.common.errors import AcesimError
from acesim.common.limits import MAX_SEED
from acesim.kernels.game_loop import GAMES_PER_BLOCK


def check_seed(seed: int) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise AcesimError(f"the seed must be between 0 and {MAX_SEED}, got {seed}")
    return seed


def block_keys(seed: int, first_game: int, n_games: int) -> np.ndarray:
    """The keys of every block that games ``first_game .. first_game + n_games - 1`` touch."""
    first = first_game // GAMES_PER_BLOCK
    last = (first_game + n_games - 1) // GAMES_PER_BLOCK
    return np.stack(
        [
            np.random.SeedSequence(seed, spawn_key=(b,)).generate_state(4, np.uint64)
            for b in range(first, last + 1)
        ]
    )
