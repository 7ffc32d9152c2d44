"""What a won game is worth (docs/rules.md section 4).

Its own module, below the game loop and the position analysis alike: the game
loop plays a deeper player's segments by ``lookahead``, which values won
positions by this.
"""

from acesim.kernels.jit import njit
from acesim.kernels.layout import (
    HOME_TOP,
    N_CHECKERS,
    OPP_BAR,
    OPP_OFF,
    OPP_WAITING,
    R_SCORING,
    SCORING_GAMMONS,
    SCORING_PER_CHECKER,
)


@njit(cache=True)
def points_won(board, rules, stakes_doublings):
    """Points for the mover, who has just borne off its last checker (docs/rules.md section 4)."""
    scoring = rules[R_SCORING]
    points = 1
    if scoring == SCORING_PER_CHECKER:
        points = N_CHECKERS - board[OPP_OFF]
    elif scoring == SCORING_GAMMONS and board[OPP_OFF] == 0:
        points = 2
        # backgammon: a loser's checker on the bar, waiting, or in the winner's home board
        trapped = board[OPP_BAR] + board[OPP_WAITING]
        for i in range(HOME_TOP):
            if board[i] < 0:
                trapped += 1
        if trapped > 0:
            points = 3
    return points * (1 << stakes_doublings)
