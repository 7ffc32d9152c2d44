"""A slow, plain, independent reference for the legal plays of one segment.

Written only from docs/rules.md sections 1, 2, 4 and 5 (not from the kernels), so
that the property tests in ``test_reference.py`` compare two independent
readings of the rules.

Internally a state is a small tuple, always in the mover's view::

    (points, bar_mover, bar_opp, waiting_mover, waiting_opp, off_mover, off_opp)

``points`` is a 24-tuple, ``points[i]`` is point ``i + 1``; positive counts
are the mover's checkers, negative counts the opponent's.  The mover moves from
24 towards 1 and bears off below 1; it enters with die ``d`` on point ``25 - d``.

The enumeration is deliberately naive: every sequence of single-checker moves
(one per die, in segment order) is followed to its end, where it ends because
the segment is used up, the next die has no legal move, or the mover's 15th
checker was borne off.  The rules of section 2 are then applied to the finished
sequences: keep those with the maximal number of dice used, and for a
non-double that can only use one die keep the higher die when it alone can be
played.

Three house-rule knobs (docs/rules.md section 4, house rules) are read here
from their definitions alone, each as a plain check on the current state
before every single move (:func:`single_moves`), never on the state the
segment started from:

* ``enter_first``: ``all-in-first`` -- while the mover has a checker waiting,
  no checker standing on a point may move (entering from waiting or from the
  bar stays legal); ``midpoint`` -- while the mover has a checker waiting, no
  checker may move from a point ``>= 13`` to a point below 13 (landing on 13
  is legal; a checker already below 13 moves freely).  Both read only the
  waiting count, whatever ``start`` is (under ``start = backgammon`` nobody
  waits in a game, so there they change nothing).
* ``hitting = after-home``: a move that lands on an opposing blot (entries
  included) is legal only if the mover has, before that move, a checker on its
  points 1-6 or a checker borne off.  The move that brings the first checker
  home may not hit; a later die of the same segment may.
* ``doubles = complement-after-1-2``: a rolled double is four of its number; the
  double played after a 1-2 (``bonus=True``) is four of its number then four of
  its complement, when ``acey_deucey`` is not ``none`` (with ``none`` there is no
  1-2 bonus and the value plays as ``four``).
"""

from __future__ import annotations

from acesim.engine.position import Position
from acesim.engine.rules import Ruleset

N_CHECKERS = 15
BAR = "bar"
WAITING = "waiting"
OFF = "off"


class TooMuchWork(Exception):
    """The enumeration explored more single moves than the caller's budget."""


# --- states -------------------------------------------------------------------


def to_state(pos: Position) -> tuple:
    return (
        tuple(pos.points),
        pos.bar[0],
        pos.bar[1],
        pos.waiting[0],
        pos.waiting[1],
        pos.off[0],
        pos.off[1],
    )


def to_position(state: tuple) -> Position:
    points, bar_m, bar_o, wait_m, wait_o, off_m, off_o = state
    return Position(
        points=tuple(points),
        bar=(bar_m, bar_o),
        waiting=(wait_m, wait_o),
        off=(off_m, off_o),
    )


def segment_of(
    rules: Ruleset, dice: tuple[int, int], bonus: bool = False
) -> tuple[list[list[int]], bool]:
    """The orders in which the segment's dice may be played, and whether it is a doubles segment.

    ``bonus``: the double ``dice = (d, d)`` is the one played after a 1-2 (chosen or
    rolled by one die), not a rolled double.  Only ``doubles = complement-after-1-2``
    reads it: four of ``d`` for a rolled double, four of ``d`` then four of ``7 - d``
    for the bonus double (under ``acey_deucey = none`` there is no bonus double and
    it plays as ``four``).
    """
    a, b = dice
    if a != b:
        if bonus:
            raise ValueError(f"bonus is the double played after a 1-2, not {dice!r}")
        return [[a, b], [b, a]], False
    c = 7 - a
    if rules.doubles == "four":
        return [[a] * 4], True
    if rules.doubles == "four-plus-complement":
        return [[a] * 4 + [c] * 4], True
    if rules.doubles == "complement-after-1-2":
        if bonus and rules.acey_deucey != "none":
            return [[a] * 4 + [c] * 4], True
        return [[a] * 4], True
    raise ValueError(f"unknown doubles rule {rules.doubles!r}")


# --- single moves ---------------------------------------------------------------


def all_in_home(state: tuple) -> bool:
    """Every mover checker not yet off stands on points 1-6 (none on bar, none waiting)."""
    points, bar_m, _, wait_m, _, _, _ = state
    if bar_m > 0 or wait_m > 0:
        return False
    for point in range(7, 25):
        if points[point - 1] > 0:
            return False
    return True


def is_open(points: tuple, point: int) -> bool:
    """At most one opposing checker."""
    return points[point - 1] >= -1


def bar_may_enter(rules: Ruleset, dice: tuple[int, int]) -> bool:
    """May a hit checker re-enter during the segment the roll ``dice`` starts (the bar_entry knob)?

    any: always. doubles-only: on a doubles segment (rolled or chosen, its complement included).
    bonus-only: on those and on the rolled 1-2 itself, when a 1-2 earns a bonus double.
    """
    a, b = dice
    if rules.bar_entry == "any" or a == b:
        return True
    return rules.bar_entry == "bonus-only" and {a, b} == {1, 2} and rules.acey_deucey != "none"


def has_home_or_off(state: tuple) -> bool:
    """The mover has a checker on its points 1-6 or a checker borne off (``hitting = after-home``)."""
    points, _, _, _, _, off_m, _ = state
    if off_m > 0:
        return True
    for point in range(1, 7):
        if points[point - 1] > 0:
            return True
    return False


def house_rules_allow(rules: Ruleset, state: tuple, move: tuple) -> bool:
    """The ``enter_first`` and ``hitting`` knobs for one single move on the current ``state``."""
    points, _, _, wait_m, _, _, _ = state
    source, destination = move

    if rules.enter_first not in ("none", "all-in-first", "midpoint"):
        raise ValueError(f"unknown enter_first rule {rules.enter_first!r}")
    from_a_point = source not in (BAR, WAITING)
    if wait_m > 0 and from_a_point:
        # all-in-first: nothing standing on a point moves while a checker waits.
        if rules.enter_first == "all-in-first":
            return False
        # midpoint: nothing passes point 13 while a checker waits (13 itself is fine).
        if rules.enter_first == "midpoint" and source >= 13 and destination != OFF and destination < 13:
            return False

    if rules.hitting not in ("free", "after-home"):
        raise ValueError(f"unknown hitting rule {rules.hitting!r}")
    lands_on_blot = destination != OFF and points[destination - 1] == -1
    if rules.hitting == "after-home" and lands_on_blot and not has_home_or_off(state):
        return False
    return True


def single_moves(rules: Ruleset, state: tuple, die: int, may_enter: bool) -> list[tuple]:
    """All legal single-checker moves ``(source, destination)`` for ``die``.

    ``may_enter``: whether a checker on the bar may enter in this segment (:func:`bar_may_enter`).

    ``source`` is a point 1..24, ``BAR`` or ``WAITING``; ``destination`` a
    point 1..24 or ``OFF``.  Two different moves may lead to the same state.
    The moves of section 2 are listed first, then :func:`house_rules_allow`
    removes those the ``enter_first`` and ``hitting`` knobs forbid.
    """
    moves = board_moves(rules, state, die, may_enter)
    return [move for move in moves if house_rules_allow(rules, state, move)]


def board_moves(rules: Ruleset, state: tuple, die: int, may_enter: bool) -> list[tuple]:
    """The single moves of docs/rules.md section 2 (bar, waiting, home lock, bear-off), no house rules."""
    points, bar_m, _, wait_m, _, off_m, _ = state
    moves: list[tuple] = []
    entry_point = 25 - die
    # Entering from the bar.
    if bar_m > 0 and may_enter and is_open(points, entry_point):
        moves.append((BAR, entry_point))

    # With bar_first, a checker on the bar freezes everything else.
    if rules.bar_first and bar_m > 0:
        return moves

    # Entering from waiting: at any time (bar_first handled above).
    if wait_m > 0 and is_open(points, entry_point):
        moves.append((WAITING, entry_point))

    bearing_off_allowed = all_in_home(state)
    home_locked = rules.home == "locked" and not bearing_off_allowed and off_m == 0
    only_bear_off = rules.home_after_all_in == "bearoff-only" and bearing_off_allowed

    highest_occupied = 0
    for point in range(1, 25):
        if points[point - 1] > 0:
            highest_occupied = point

    for point in range(1, 25):
        if points[point - 1] <= 0:
            continue
        if home_locked and point <= 6:
            continue
        target = point - die
        if target >= 1:
            if only_bear_off:
                continue
            if is_open(points, target):
                moves.append((point, target))
        else:
            if not bearing_off_allowed:
                continue
            if rules.bearoff == "exact":
                if point == die:
                    moves.append((point, OFF))
            elif rules.bearoff == "standard":
                if point == die or (point < die and point == highest_occupied):
                    moves.append((point, OFF))
            else:
                raise ValueError(f"unknown bearoff rule {rules.bearoff!r}")
    return moves


def apply_move(state: tuple, move: tuple) -> tuple:
    points, bar_m, bar_o, wait_m, wait_o, off_m, off_o = state
    points = list(points)
    source, destination = move
    if source == BAR:
        assert bar_m > 0
        bar_m -= 1
    elif source == WAITING:
        assert wait_m > 0
        wait_m -= 1
    else:
        assert points[source - 1] > 0
        points[source - 1] -= 1
    if destination == OFF:
        off_m += 1
    else:
        here = points[destination - 1]
        assert here >= -1, "landing on a blocked point"
        if here == -1:  # hit: the opposing blot goes to the opponent's bar
            points[destination - 1] = 1
            bar_o += 1
        else:
            points[destination - 1] = here + 1
    return (tuple(points), bar_m, bar_o, wait_m, wait_o, off_m, off_o)


# --- whole segments ----------------------------------------------------------------


def all_sequences(
    rules: Ruleset, state: tuple, order: list[int], may_enter: bool, budget: list[int] | None
) -> list[tuple[tuple, tuple]]:
    """Every finished sequence for dice ``order``: a list of ``(moves, final_state)``.

    A sequence finishes when the dice run out, when the next die has no legal
    move (the remaining dice are lost), or when the mover bears off its 15th
    checker (the game is over at once).
    """
    finished: list[tuple[tuple, tuple]] = []

    def walk(current: tuple, index: int, moves_so_far: tuple) -> None:
        if index == len(order) or current[5] == N_CHECKERS:
            finished.append((moves_so_far, current))
            return
        options = single_moves(rules, current, order[index], may_enter)
        if not options:
            finished.append((moves_so_far, current))
            return
        for move in options:
            if budget is not None:
                budget[0] -= 1
                if budget[0] < 0:
                    raise TooMuchWork
            walk(apply_move(current, move), index + 1, moves_so_far + ((order[index], move),))

    walk(state, 0, ())
    return finished


def doubles_by_layers(
    rules: Ruleset, state: tuple, order: list[int], budget: list[int] | None
) -> tuple[set[tuple], int]:
    """A doubles segment (fixed order) played die by die on the *set* of states reached.

    The same as :func:`all_sequences` followed by the maximal-dice rule, but
    sequences that reach the same state after the same number of dice are
    followed once: what can still happen depends only on the state and on
    which dice are left.  Returns the final states of the longest sequences and
    their length.
    """
    finished: dict[int, set[tuple]] = {}
    frontier = {state}
    for index, die in enumerate(order):
        following: set[tuple] = set()
        for current in frontier:
            options = [] if current[5] == N_CHECKERS else single_moves(rules, current, die, True)
            if not options:
                finished.setdefault(index, set()).add(current)
            for move in options:
                if budget is not None:
                    budget[0] -= 1
                    if budget[0] < 0:
                        raise TooMuchWork
                following.add(apply_move(current, move))
        frontier = following
        if not frontier:
            break
    if frontier:
        finished.setdefault(len(order), set()).update(frontier)
    dice_used = max(finished)
    return finished[dice_used], dice_used


def reference_plays(
    rules: Ruleset,
    position: Position,
    dice: tuple[int, int],
    budget: int | None = None,
    merge_states: bool = False,
    bonus: bool = False,
) -> tuple[set[Position], int]:
    """The distinct positions of the legal plays of the segment ``dice`` starts, and the dice used.

    ``bonus``: ``dice = (d, d)`` is the double played after a 1-2 (see :func:`segment_of`).

    ``budget`` bounds the number of single moves explored; beyond it
    :class:`TooMuchWork` is raised.  ``merge_states`` plays a doubles segment
    with :func:`doubles_by_layers` instead of following every sequence (used
    only for the long European segments that the plain walk cannot afford).
    """
    a, b = dice
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise ValueError(f"bad dice {dice!r}")
    start = to_state(position)
    orders, doubles_segment = segment_of(rules, dice, bonus)
    may_enter = bar_may_enter(rules, dice)
    counter = None if budget is None else [budget]

    if merge_states and doubles_segment:
        finals, dice_used = doubles_by_layers(rules, start, orders[0], counter)
        if dice_used == 0:
            return {position}, 0
        return {to_position(final) for final in finals}, dice_used

    sequences: list[tuple[tuple, tuple]] = []
    for order in orders:
        sequences.extend(all_sequences(rules, start, order, may_enter, counter))

    dice_used = max(len(moves) for moves, _ in sequences)
    if dice_used == 0:
        return {position}, 0

    best = [(moves, final) for moves, final in sequences if len(moves) == dice_used]

    if not doubles_segment and dice_used == 1:
        high, low = max(a, b), min(a, b)
        high_alone = bool(single_moves(rules, start, high, may_enter))
        wanted = high if high_alone else low
        best = [(moves, final) for moves, final in best if moves[0][0] == wanted]

    return {to_position(final) for _, final in best}, dice_used
