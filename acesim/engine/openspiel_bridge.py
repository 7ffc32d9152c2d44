"""A bridge to OpenSpiel's backgammon, the independent engine the tests cross-check against.

OpenSpiel (``pip install acesim[test]``) is imported lazily, inside the
functions, so acesim itself never needs it.

How OpenSpiel stores a backgammon state (worked out empirically and checked
against the known start position in the tests):

* ``state.board(player, i)`` for ``i`` in ``0..23`` is the number of
  ``player``'s checkers on absolute point ``i``; ``state.board(player, 100)``
  is ``player``'s bar.  Player 0 (``x``) moves from index 0 up to 23 (its home
  board is 18..23), player 1 (``o``) moves from 23 down to 0 (home 0..5).  So
  mover point ``p`` (docs/rules.md numbering, 24 -> 1) is index ``24 - p`` for ``x``
  and ``p - 1`` for ``o``.
* The observation tensor of player ``p`` ends with ``bar[p], off[p],
  p-to-move, bar[q], off[q], q-to-move, die 1, die 2`` (``q`` the opponent).
* A double is played as two consecutive decisions of the same player, each an
  action of up to two checker moves; the second decision only happens when the
  first used both of its dice.  A non-double roll is one decision.
* The very first roll of a game (which also decides who starts) is never a
  double.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from acesim.common.errors import AcesimError
from acesim.engine.position import Position

N_POINTS = 24
N_CHECKERS = 15
BAR_INDEX = 100  # OpenSpiel's board() index for the bar
PASS_POS = -1  # OpenSpiel's CheckerMove.pos for "no move"
CHANCE_PLAYER = -1  # pyspiel.PlayerId.CHANCE
OBS_BOARD_SIZE = 4 * N_POINTS * 2  # per-point encodings of both players
OBS_OFF_MINE = OBS_BOARD_SIZE + 1
OBS_OFF_THEIRS = OBS_BOARD_SIZE + 4
OBS_DICE = OBS_BOARD_SIZE + 6
# Long enough that random games finish by bearing off rather than at the cap
# (OpenSpiel ends a game at max_player_turns; the cap can even fall between the
# two halves of a double).
MAX_PLAYER_TURNS = 100_000

State = Any  # a pyspiel.BackgammonState; pyspiel has no importable type hints


def _pyspiel() -> ModuleType:
    """The pyspiel module, or a one-line AcesimError when it is missing."""
    try:
        import pyspiel
    except ImportError:
        raise AcesimError("open-spiel is not installed (pip install acesim[test])") from None
    return pyspiel


def load_game() -> Any:
    """OpenSpiel's standard backgammon with a turn cap no random game reaches."""
    return _pyspiel().load_game("backgammon", {"max_player_turns": MAX_PLAYER_TURNS})


def _mover_point_index(player: int, point: int) -> int:
    """OpenSpiel's absolute index of ``player``'s point ``point`` (1..24)."""
    return N_POINTS - point if player == 0 else point - 1


def position_from_state(state: State, player: int | None = None) -> Position:
    """The position of ``state`` seen by ``player`` (default: the player to move).

    OpenSpiel player 0 is ``x`` and player 1 is ``o``.  Passing ``player``
    explicitly reads a state after the turn has ended (a chance or terminal
    state) still in the original mover's view, i.e. not flipped.
    """
    if player is None:
        player = state.current_player()
        if player not in (0, 1):
            raise AcesimError(f"state has no player to move (current player {player})")
    opponent = 1 - player
    points = []
    for point in range(1, N_POINTS + 1):
        index = _mover_point_index(player, point)
        mine, theirs = state.board(player, index), state.board(opponent, index)
        if mine and theirs:
            raise AcesimError(f"OpenSpiel state has both colours on point {point}")
        points.append(mine - theirs)
    obs = state.observation_tensor(player)
    return Position(
        points=tuple(points),
        bar=(state.board(player, BAR_INDEX), state.board(opponent, BAR_INDEX)),
        off=(int(obs[OBS_OFF_MINE]), int(obs[OBS_OFF_THEIRS])),
    )


def dice_of(state: State) -> tuple[int, int]:
    """The two dice of a decision state, as rolled (``(d, d)`` for a double)."""
    obs = state.observation_tensor(state.current_player())
    a, b = int(obs[OBS_DICE]), int(obs[OBS_DICE + 1])
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise AcesimError(f"state has no dice to play (dice {a}, {b})")
    return a, b


def is_roll_start(state: State) -> bool:
    """Whether ``state`` is a decision right after the dice were rolled.

    False for the second half of a double, which follows the mover's own action.
    """
    if not state.is_player_node():
        return False
    history = state.full_history()
    return bool(history) and history[-1].player == CHANCE_PLAYER


def dice_in_action(state: State, action: int) -> int:
    """How many dice (0, 1 or 2) OpenSpiel ``action`` plays in decision ``state``."""
    moves = state.spiel_move_to_checker_moves(state.current_player(), action)
    return sum(1 for move in moves if move.pos != PASS_POS)


def openspiel_results(state: State) -> dict[Position, int]:
    """Every position OpenSpiel reaches with the full roll of ``state``.

    Maps each resulting position (in the mover's view, not flipped) to the
    largest number of dice OpenSpiel plays to reach it.  For a double the first
    decision's actions are each followed by every action of the second decision,
    when OpenSpiel offers one (it does not after a first half that used fewer
    than two dice, nor after the game ended).
    """
    if not is_roll_start(state):
        raise AcesimError("state is not the start of a roll")
    mover = state.current_player()
    a, b = dice_of(state)
    results: dict[Position, int] = {}

    def record(final: State, used: int) -> None:
        if final.is_terminal() and max(final.returns()) == 0:
            raise AcesimError("OpenSpiel ended the game at its turn cap, not by bearing off")
        position = position_from_state(final, mover)
        results[position] = max(used, results.get(position, 0))

    for action in state.legal_actions():
        used = dice_in_action(state, action)
        child = state.child(action)
        if a == b and child.current_player() == mover:
            for second in child.legal_actions():
                record(child.child(second), used + dice_in_action(child, second))
        else:
            record(child, used)
    return results


def openspiel_result_positions(state: State) -> set[Position]:
    """All distinct positions OpenSpiel's legal actions reach with the full roll.

    ``state`` must be the start of a roll (see :func:`is_roll_start`); results
    are in the original mover's view.
    """
    return set(openspiel_results(state))


def _sample_chance(state: State, rng: np.random.Generator) -> int:
    outcomes, probabilities = zip(*state.chance_outcomes())
    return int(rng.choice(outcomes, p=np.asarray(probabilities) / sum(probabilities)))


def random_states(
    n_positions: int,
    seed: int | np.random.SeedSequence,
    keep_probability: float = 1.0,
) -> list[tuple[State, tuple[int, int]]]:
    """Start-of-roll states (with their dice) met in random OpenSpiel games.

    Games start from ``game.new_initial_state()``; chance outcomes follow their
    probabilities and players pick uniformly among their legal actions, all
    from one ``numpy`` Generator seeded with ``seed`` (an int or a
    ``SeedSequence``, e.g. one of ``SeedSequence(root).spawn(k)``).  Each start-of-roll
    decision state is kept (as a clone) with ``keep_probability``; lower values
    spread the sample over more games.  New games start until ``n_positions``
    states are collected.
    """
    if n_positions < 0:
        raise AcesimError(f"n_positions must be >= 0, got {n_positions}")
    if not 0.0 < keep_probability <= 1.0:
        raise AcesimError(f"keep_probability must be in (0, 1], got {keep_probability}")
    game = load_game()
    rng = np.random.default_rng(seed)
    samples: list[tuple[State, tuple[int, int]]] = []
    while len(samples) < n_positions:
        state = game.new_initial_state()
        while not state.is_terminal() and len(samples) < n_positions:
            if state.is_chance_node():
                state.apply_action(_sample_chance(state, rng))
                continue
            if is_roll_start(state) and rng.random() < keep_probability:
                samples.append((state.clone(), dice_of(state)))
            actions = state.legal_actions()
            state.apply_action(int(actions[rng.integers(len(actions))]))
    return samples
