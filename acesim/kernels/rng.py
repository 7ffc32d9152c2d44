"""Per-game random streams: xoshiro256** seeded through SplitMix64.

The Python layer derives one 256-bit key per block of games from
``numpy.random.SeedSequence(seed).spawn(...)`` (see ``acesim.engine.streams``).  A
game's two streams, one for its dice and one for its strategies' own choices,
are seeded from that key and the game's index by SplitMix64, the seeding the
xoshiro authors recommend.  Keeping the dice apart from the strategies' choices
is what makes common random numbers work: the same game index rolls the same
dice under every rule set and every pairing of strategies, until the games
themselves diverge.

A stream is a ``uint64[4]`` state array, advanced in place.
"""

import numpy as np

from acesim.kernels.jit import njit

STREAM_WORDS = 4
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_SALT_STRATEGY = np.uint64(0xD1B54A32D192ED03)


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def _splitmix(x):
    """One SplitMix64 output for the counter value ``x``."""
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def seed_game_streams(block_key, game, dice, choices):
    """Seed the dice and choice streams of ``game`` from its block's key."""
    g = np.uint64(game)
    base = block_key[0] ^ _rotl(block_key[1], 17) ^ (g * _GOLDEN)
    for i in range(STREAM_WORDS):
        dice[i] = _splitmix((base + np.uint64(i) * _GOLDEN) ^ block_key[2])
        choices[i] = _splitmix(base ^ (_SALT_STRATEGY + np.uint64(i) * _GOLDEN) ^ block_key[3])
    # xoshiro must not start from the all-zero state (probability 2^-256, but cheap to rule out)
    if dice[0] == 0 and dice[1] == 0 and dice[2] == 0 and dice[3] == 0:
        dice[0] = _GOLDEN
    if choices[0] == 0 and choices[1] == 0 and choices[2] == 0 and choices[3] == 0:
        choices[0] = _GOLDEN


@njit(cache=True)
def next_u64(s):
    """The next 64-bit output of the xoshiro256** stream ``s``."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(cache=True)
def below(s, n):
    """A uniform integer in ``0..n-1`` (``1 <= n < 2**32``), exactly: Lemire's method with rejection."""
    bound = np.uint64(n)
    threshold = (np.uint64(1 << 32) - bound) % bound  # 2^32 mod n
    while True:
        x = next_u64(s) >> np.uint64(32)
        m = x * bound
        if (m & np.uint64(0xFFFFFFFF)) >= threshold:
            return np.int64(m >> np.uint64(32))


@njit(cache=True)
def die(s):
    """One fair die, 1..6."""
    return below(s, 6) + 1
