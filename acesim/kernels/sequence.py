"""The roll sequence of a turn (docs/rules.md section 3): what follows each played segment.

A turn is a run of rolls.  After a roll's segment is played the turn goes on
with the 1-2 bonus double, an extra roll, or ends: passing to the opponent, a
bonus forfeited under ``bonus_needs_full_use``, or the game won at 15 off.
``after_segment`` says which; ``kernels.turn.play_roll``, the one kernel that
plays a roll and its bonus, asks it (and the learned strategy's scores ask
``strategy.rolls_again``, which asks it), so the roll sequence's knobs are
read here and nowhere else.

The knobs are read from the rules array once into a tuple of integers
(``roll_sequence``): the helpers below are inlined into the hot loops, and a
tuple of integers costs nothing to bind there, where an array costs atomic
reference counting.
"""


from acesim.kernels.jit import njit
from acesim.kernels.layout import (
    ACEY_DEUCEY_NONE,
    ACEY_DEUCEY_ROLL_DIE,
    R_ACEY_DEUCEY,
    R_ACEY_DEUCEY_EXTRA_ROLL,
    R_BONUS_NEEDS_FULL_USE,
    R_DOUBLES_EXTRA_ROLL,
)

# What follows a played segment.
PASS = 0  # the turn ends; the opponent is on roll
ROLL_AGAIN = 1  # an extra roll: after a double, or after the double a 1-2 earned
BONUS = 2  # the double a 1-2 earned, chosen or rolled, is played next
FORFEIT = 3  # a bonus was due but the segment did not use every die: the turn ends
GAME_OVER = 4  # the mover has borne off its fifteenth checker

# The fields of ``roll_sequence``'s tuple.
_ACEY_DEUCEY, _BONUS_EXTRA_ROLL, _DOUBLES_EXTRA_ROLL, _FULL_USE = 0, 1, 2, 3


@njit(cache=True)
def roll_sequence(rules):
    """The roll sequence's knobs of ``rules``, as the tuple the helpers below take."""
    return (rules[R_ACEY_DEUCEY], rules[R_ACEY_DEUCEY_EXTRA_ROLL], rules[R_DOUBLES_EXTRA_ROLL],
            rules[R_BONUS_NEEDS_FULL_USE])


@njit(cache=True, inline="always")
def is_one_two(die_a, die_b):
    """The roll is a 1-2 (acey-deucey)."""
    return die_a != die_b and die_a + die_b == 3


@njit(cache=True, inline="always")
def bonus_lost(seq, n, used):
    """A bonus due after a segment of ``n`` dice that used ``used`` is forfeited."""
    return seq[_FULL_USE] != 0 and used < n


@njit(cache=True, inline="always")
def bonus_die_rolled(seq):
    """The double after a 1-2 is one die rolled (``roll-die``), not the mover's choice."""
    return seq[_ACEY_DEUCEY] == ACEY_DEUCEY_ROLL_DIE


@njit(cache=True, inline="always")
def after_segment(seq, die_a, die_b, bonus, n, used, won):
    """What follows the segment of roll ``(die_a, die_b)`` that used ``used`` of its ``n`` dice.

    ``bonus`` marks the double played after a 1-2 (``die_a == die_b`` is that
    double); ``won``: the mover has all 15 off.  One of ``PASS``,
    ``ROLL_AGAIN``, ``BONUS``, ``FORFEIT``, ``GAME_OVER``.
    """
    if won:
        return GAME_OVER  # a turn that reaches 15 off ends the game at once
    if bonus:
        due = seq[_BONUS_EXTRA_ROLL] != 0
        follows = ROLL_AGAIN
    elif is_one_two(die_a, die_b):
        due = seq[_ACEY_DEUCEY] != ACEY_DEUCEY_NONE
        follows = BONUS
    else:
        due = die_a == die_b and seq[_DOUBLES_EXTRA_ROLL] != 0
        follows = ROLL_AGAIN
    if not due:
        return PASS
    if bonus_lost(seq, n, used):
        return FORFEIT
    return follows


@njit(cache=True, inline="always")
def still_on_roll(step):
    """After ``step`` the same side plays again (its bonus double or an extra roll)."""
    return step == ROLL_AGAIN or step == BONUS
