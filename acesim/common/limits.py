"""Sane bounds on the sizes a user asks for, checked before any work starts.

Each is far above any real use and far below what would exhaust this machine:
a run beyond them is a typo, and refusing it costs one line instead of a
``MemoryError`` after minutes, or a number the kernels' int64 cannot hold.
"""

# Games per rule set or pairing: a month of play on two cores at heuristic speed.
MAX_GAMES = 10**10
# Games held in memory by one worker at once: a chunk's records are ~312 bytes a game.
MAX_CHUNK_SIZE = 10**6
# Turns before a game is cut off as unfinished; no preset's random game comes near 10**4.
MAX_TURN_CAP = 10**6
DEFAULT_TURN_CAP = 10_000  # turns after which a game ends unfinished, unless a run says otherwise
# Root seeds: what numpy's SeedSequence takes and an int64 column records.
MAX_SEED = 2**63 - 1

# Candidates of a doubles segment a learned player's network judges
# (kernels.choice._net_judged): in play, and in training self-play, where
# many games matter more than each one's best play.  Here, not in
# model_files, so that the command line can show them without loading Numba.
PLAY_WIDTH = 16
TRAIN_WIDTH = 4
