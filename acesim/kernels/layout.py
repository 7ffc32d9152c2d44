"""Named indices of the flat board and of the lowered rules array.

The board is seen from the side on roll (the *mover*), as in docs/rules.md section 1:
the mover travels from point 24 towards point 1 and bears off below point 1.
Point ``p`` (1..24) lives at index ``p - 1``; mover's checkers are positive,
the opponent's negative.  The six counters after the points are never negative.
Two padding bytes make the row 32 bytes long, so a row read as four ``uint64``
words is an exact key of the position (used for deduplication).
"""

import numpy as np

BOARD_DTYPE = np.int8
BOARD_SIZE = 32

N_POINTS = 24
N_CHECKERS = 15
HOME_TOP = 6  # the mover's home board is points 1..HOME_TOP
MIDPOINT = 13  # the mover's point 13, the opponent's 12-point (enter_first = midpoint)

BAR = 24  # mover's checkers on the bar
OPP_BAR = 25
WAITING = 26  # mover's checkers that have never entered
OPP_WAITING = 27
OFF = 28  # mover's checkers borne off
OPP_OFF = 29

# A move's ``from`` and ``to`` in kernel arrays: points are 1..24, and these.
FROM_BAR = 25
FROM_WAITING = 26
TO_OFF = 0

# The lowered Ruleset: one small int per knob, at these indices.
R_START = 0
R_OPENING = 1
R_DOUBLES = 2
R_DOUBLES_EXTRA_ROLL = 3
R_ACEY_DEUCEY = 4
R_ACEY_DEUCEY_EXTRA_ROLL = 5
R_BONUS_NEEDS_FULL_USE = 6
R_BAR_FIRST = 7
R_BAR_ENTRY = 8
R_HOME = 9
R_HOME_AFTER_ALL_IN = 10
R_BEAROFF = 11
R_SCORING = 12
R_STAKES_DOUBLE_ON_1_2 = 13
R_ENTER_FIRST = 14
R_HITTING = 15
R_CUBE = 16
R_CUBE_MAX = 17  # the highest cube value, the number itself
RULES_SIZE = 18
RULES_DTYPE = np.int64

# Knob value codes; the order of each tuple in acesim.engine.rules.KNOB_VALUES matches.
START_OFF_BOARD, START_BACKGAMMON = 0, 1
OPENING_REROLL, OPENING_USE = 0, 1
DOUBLES_FOUR, DOUBLES_FOUR_PLUS_COMPLEMENT, DOUBLES_COMPLEMENT_AFTER_1_2 = 0, 1, 2
ACEY_DEUCEY_NONE, ACEY_DEUCEY_CHOOSE, ACEY_DEUCEY_ROLL_DIE = 0, 1, 2
BAR_ENTRY_ANY, BAR_ENTRY_DOUBLES_ONLY, BAR_ENTRY_BONUS_ONLY = 0, 1, 2
HOME_FREE, HOME_LOCKED = 0, 1
HOME_AFTER_ALL_IN_FREE, HOME_AFTER_ALL_IN_BEAROFF_ONLY = 0, 1
BEAROFF_EXACT, BEAROFF_STANDARD = 0, 1
SCORING_SINGLE, SCORING_PER_CHECKER, SCORING_GAMMONS = 0, 1, 2
ENTER_FIRST_NONE, ENTER_FIRST_ALL_IN, ENTER_FIRST_MIDPOINT = 0, 1, 2
HITTING_FREE, HITTING_AFTER_HOME = 0, 1
CUBE_NONE, CUBE_MONEY = 0, 1

MAX_SEGMENT = 8  # four of a number then four of its complement
