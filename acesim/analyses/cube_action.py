"""Whether to double, and whether to take: the cube's decision in one position.

``cube_action(rules, position)`` asks the rule of docs/rules.md section 6 (Janowski's money-game
model, ``kernels.cube``) what to decide before the side on roll rolls: its win probability ``p``
and the mean points ``W`` and ``L`` of a won and a lost game by its equity model, the cubeful
equity (per cube, in units of what a drop concedes) of playing on, of a double taken and of a
double dropped, and the taker's view. At ply 1 every number comes from the kernels the games call
(``win_and_loss``, ``cubeful_equity``, ``should_double``, ``should_take``), so the action is the
one a game would take there. At ply 2 (the default with a network, as ``hint``'s) ``p`` is one roll
deeper: the mean over the side on roll's 36 rolls of its win probability after its own play of
each (``kernels.lookahead``, as the hint values a play at ply 2); ``W`` and ``L`` stay ply 1's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from acesim.analyses.hint import Evaluator, default_ply
from acesim.common.errors import AcesimError
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import as_strategy, lowered, resolve_spec
from acesim.kernels import cube as C, layout as L, lookahead as HK
from acesim.kernels.choice import LEARNED
from acesim.kernels.net import new_net_scratch

OWNERS = ("centre", "mover", "opponent")


@dataclass(frozen=True)
class CubeAction:
    """The cube's decision before the side on roll rolls; equities per cube, in drop units."""

    rules: str
    strategy: str
    ply: int  # 1: the games' decision; 2: the win probability one roll deeper
    cube_value: int
    owner: str  # who holds the cube: ``centre`` or ``mover`` (the side on roll may double)
    drop_points: int  # what a drop concedes per cube: one game, or the dropper's checkers not off
    win: float  # the side on roll's cubeless win probability, by its model
    points_won: float  # W: the mean points of a game it wins, per cube, in drop units
    points_lost: float  # L: those of a game it loses
    no_double: float  # its cubeful equity if it plays on with the cube where it is
    double_take: float  # ... if it doubles and the opponent takes (twice the cubeful equity, the cube theirs)
    double_pass: float  # ... if it doubles and the opponent drops: one cube
    doubles: bool
    taker_win: float  # the opponent's win probability, by the opponent's model
    take_point: float  # the least win probability at which the opponent takes
    takes: bool
    action: str  # "no double", "too good: play on", "double, take" or "double, pass"


def cube_action(rules: Ruleset, position: Position, strategy: str = "best", cube_value: int = 1,
                owner: str = "centre", ply: int | None = None) -> CubeAction:
    """The cube's decision in ``position`` (the side on roll's view, before its roll); module docstring.

    Both sides judge as ``strategy``'s seats do in games: a learned strategy by its own network, any
    other by the shipped network that plays ``rules`` (``strategies.lowered``). ``ply`` None is
    ``hint.default_ply``: 2 with a network, else 1; ply 2 plays the rolls by the strategy's own search,
    so it needs a learned strategy.
    """
    if not rules.has_cube:
        raise AcesimError(f"rules {rules.name} play without the cube (cube = none); give --rule cube=money")
    if owner not in OWNERS:
        raise AcesimError(f"the cube's owner is one of {', '.join(OWNERS)}, got {owner!r}")
    if owner == "opponent":
        raise AcesimError("the side on roll cannot double a cube its opponent owns: nothing to decide")
    if cube_value < 1 or cube_value & (cube_value - 1):
        raise AcesimError(f"a cube value is a power of 2 (1, 2, 4, ...), got {cube_value}")
    if cube_value > rules.cube_max:
        raise AcesimError(f"cube value {cube_value} is above cube_max = {rules.cube_max}")
    if owner == "centre" and cube_value != 1:
        raise AcesimError(f"a centred cube is at 1 (the first double gives it to the taker), got {cube_value}")
    if 2 * cube_value > rules.cube_max:
        raise AcesimError(f"the cube is at {cube_value} and cube_max = {rules.cube_max}: it cannot be doubled")
    board = position.to_board()
    if board[L.OFF] == L.N_CHECKERS or board[L.OPP_OFF] == L.N_CHECKERS:
        raise AcesimError("the game in this position is over: nothing to decide")
    player = as_strategy(resolve_spec(strategy, rules))
    player.refuse_deeper("acesim cube looks deeper by --ply")
    ply = default_ply(player) if ply is None else ply
    if ply not in (1, 2):
        raise AcesimError(f"the cube's decision is valued at ply 1 (the games' rule) or 2 (one roll deeper), "
                          f"got {ply}")
    if ply == 2 and player.kind != LEARNED:
        raise AcesimError(f"ply 2 plays each roll by the strategy's search and values it by its network, which "
                          f"{player.spec!r} has not; give a learned strategy or --ply 1")
    seats = lowered(player, player, rules)
    model = seats.cube_models[0]
    ra = rules.to_array()
    ns = new_net_scratch()
    owned = owner == "mover"
    drop = float(C.drop_points(board, ra))
    p, win, loss = C.win_and_loss(model, board, ra, ns)
    win, loss = win / drop, loss / drop
    if ply == 2:
        values, _ = Evaluator(rules, player).values(board[None, :].copy(), True, 2, False)
        p = float(values[0, HK.V_WIN])
    no_double = C.cubeful_equity(p, win, loss, C.CUBE_LIFE, C.OWNED if owned else C.CENTRED)
    double_take = 2.0 * C.cubeful_equity(p, win, loss, C.CUBE_LIFE, C.THEIRS)
    doubles = bool(C.should_double(p, win, loss, C.CUBE_LIFE, owned))
    # the taker judges by its own model, which is the mover's here (both seats play ``strategy``): its win
    # probability is the mover's loss, its W and L the mover's L and W
    q, their_win, their_loss = 1.0 - p, loss, win
    takes = bool(C.should_take(q, their_win, their_loss, C.CUBE_LIFE))
    if doubles:
        action = "double, take" if takes else "double, pass"
    elif no_double >= 1.0:
        action = "too good: play on"
    else:
        action = "no double"
    return CubeAction(
        rules=rules.name, strategy=player.spec, ply=ply, cube_value=cube_value, owner=owner, drop_points=int(drop),
        win=p, points_won=win, points_lost=loss, no_double=no_double, double_take=double_take,
        double_pass=1.0, doubles=doubles, taker_win=q,
        take_point=C.take_point(their_win, their_loss, C.CUBE_LIFE), takes=takes, action=action,
    )


def format_cube_action(a: CubeAction) -> str:
    """The decision as a few lines of text: the inputs, the three equities, the action."""
    where = "centred" if a.owner == "centre" else f"at {a.cube_value}, the side on roll's"
    unit = "a game" if a.drop_points == 1 else f"{a.drop_points} points"
    equities = {"no double": a.no_double, "double, take": a.double_take, "double, pass": a.double_pass}
    lines = [
        f"Rules {a.rules}; cube {where}; equity model {a.strategy}, ply {a.ply}"
        + (" (the win probability one roll deeper)" if a.ply == 2 else " (the games' decision)"),
        f"Side on roll: wins {a.win:.1%}; a won game is worth {a.points_won:.3f} and a lost one "
        f"{a.points_lost:.3f} drops (a drop concedes {unit} per cube)",
        "Cubeful equity per cube, in drops:",
    ]
    for name, value in equities.items():
        lines.append(f"  {name:<14} {value:+.4f}")
    lines.append(f"The opponent wins {a.taker_win:.1%} by its model and takes from {a.take_point:.1%}: "
                 f"it {'takes' if a.takes else 'passes'}")
    lines.append(f"Action: {a.action}")
    return "\n".join(lines)


def cube_action_json(a: CubeAction) -> dict:
    return asdict(a)
