"""Which play of a roll, and which double after a 1-2: one position, every play ranked.

``hint(rules, position, dice)`` returns a DataFrame with one row per distinct
legal play of the roll, best first, valued by a strategy (default: the
strongest player for the rules, ``best``) at ply 0, 1, 2 or 3 (see
``kernels.lookahead``).  For a 1-2 that earns a double the rows are the whole
decision: the 1-2's plays (stage ``1-2``), then the six doubles after the
best of them, each with its best play (stage ``double``), so the table says
which double to call and what each is worth.  Under the European rules a
double's play is its whole eight-die segment.

Columns: ``rank`` (within the stage), ``stage`` (``play``, ``1-2`` or
``double``), ``double`` (the double of a ``double`` row, else 0), ``play``
(compact notation, e.g. ``waiting/22(4)``, ``13/7*``), ``position`` (the ID
after the play), ``equity`` (what the strategy maximises: ``2 P(win) - 1``,
or expected points when it plays for points), ``diff`` (equity minus the
stage's best), ``win`` (the mover's win probability), ``points`` (expected
signed points before stakes doublings), ``ply`` (the depth that valued the
row) and ``chosen`` (the play, or double, the strategy itself makes in
games).  A heuristic strategy has no equity: its rows carry its score in
``equity`` and ``diff`` and NaN for ``win`` and ``points``.  ``frame.attrs``
holds the rules, the strategy, the dice, the segment and the seconds taken.

Ply 2 values the best ``PLY2_CANDIDATES`` plays of ply 1 one roll deeper;
the rest keep their ply-1 value and rank after them (``ply`` says which).
Ply 3 values the few best of those (``PLY3_FILTER``) two rolls deeper, and
ranks them first.
"""

from __future__ import annotations

import math
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from acesim.common.errors import AcesimError
from acesim.common.terminal import WIDTH, text_table
from acesim.engine.moves import Square, parse_dice, segment_nodes
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import Strategy, as_strategy, lowered, resolve_spec
from acesim.kernels import layout as L, lookahead as HK
from acesim.kernels.choice import LEARNED, RANDOM, choose_double
from acesim.kernels.memory import keep_memory, worker_memory
from acesim.kernels.sequence import BONUS, after_segment, bonus_die_rolled, roll_sequence, still_on_roll
from acesim.kernels.turn import play_dice


@dataclass(frozen=True)
class Filter:
    """A stage of the move filter: the best ``count`` plays, of those within ``margin`` of the best (equity)."""

    count: int
    margin: float = math.inf

    def __post_init__(self) -> None:
        if not 1 <= self.count <= MAX_FILTER_COUNT:
            raise AcesimError(f"a filter keeps 1..{MAX_FILTER_COUNT} plays, got {self.count}")
        if not self.margin >= 0:  # NaN too
            raise AcesimError(f"a filter's margin is an equity of 0 or more, got {self.margin}")

    def keep(self, scores: np.ndarray) -> np.ndarray:
        """The indices of the plays kept, best first (stably)."""
        order = np.argsort(-scores, kind="stable")
        within = scores[order] >= scores[order[0]] - self.margin if len(order) else order
        return order[within][: self.count]


MAX_FILTER_COUNT = 1024
PLY2_CANDIDATES = 32
PLY2_FILTER = Filter(PLY2_CANDIDATES)  # hint's ply 2: the best 32 at ply 1 go one roll deeper
PLY3_FILTER = Filter(8, 0.16)  # hint's ply 3: the best 8 at ply 2 within 0.16 of the best go two rolls deeper
PLIES = (0, 1, 2, 3)
COLUMNS = ["rank", "stage", "double", "play", "position", "equity", "diff", "win", "points", "ply", "chosen"]


def _square_order(square: Square) -> int:
    return {"waiting": 26, "bar": 25}.get(square, square) if isinstance(square, str) else int(square)


def compact_notation(moves: Sequence[tuple[Square, Square]], hits: Sequence[bool]) -> str:
    """Moves as players write them: one checker's moves joined (``24/16``, ``13/7*/1``), repeats counted (``8/5(2)``)."""
    if not moves:
        return "(no move)"
    chains: list[list[tuple[Square, bool]]] = []
    for (src, dst), hit in zip(moves, hits or (False,) * len(moves)):
        for chain in chains:
            if chain[-1][0] == src and isinstance(src, int):
                chain.append((dst, hit))
                break
        else:
            chains.append([(src, False), (dst, hit)])
    chains.sort(key=lambda c: -_square_order(c[0][0]))
    texts = []
    for chain in chains:
        kept = [chain[0]] + [step for step in chain[1:-1] if step[1]] + [chain[-1]]
        texts.append("/".join(f"{sq}{'*' if hit else ''}" for sq, hit in kept))
    counts: dict[str, int] = {}
    for text in texts:
        counts[text] = counts.get(text, 0) + 1
    return " ".join(text if k == 1 else f"{text}({k})" for text, k in counts.items())


class Evaluator:
    """One strategy's kernels and the worker memory they use."""

    def __init__(self, rules: Ruleset, strategy: Strategy) -> None:
        self.rules = rules
        self.array = rules.to_array()
        self.strategy = strategy
        seats = lowered(strategy, strategy, rules)
        self.kind = int(seats.kinds[0])
        self.width, self.choice_width = (int(w) for w in seats.widths[0, :2])
        self.weights = np.ascontiguousarray(seats.weights[0])
        self.memory = worker_memory(max(self.width, self.choice_width, 1))
        self.choices = np.zeros(4, dtype=np.uint64)  # only the random strategy draws, and it is refused

    def values(self, boards: np.ndarray, again: bool, ply: int, bonus_next: bool, deep: Filter | None = None,
               deeper: Filter | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Each board's values (``kernels.lookahead``) at ``ply``, and the ply that valued each: every
        board at ply 0 or 1, then those ``deep`` keeps one roll deeper (ply 2), then of those the ones
        ``deeper`` keeps (at ply 2) two rolls deeper (ply 3)."""
        out = np.zeros((len(boards), HK.N_VALUES))
        m = self.memory
        HK.values_of(boards, self.array, self.kind, self.weights, again, ply == 0, m.search, out)
        plies = np.full(len(boards), min(ply, 1))
        stages = [(2, HK.deeper_value, deep or PLY2_FILTER), (3, HK.third_ply_value, deeper or PLY3_FILTER)]
        reached = np.arange(len(boards))
        for depth, kernel, chosen in stages[:max(0, ply - 1)]:
            reached = reached[chosen.keep(out[reached, HK.V_SCORE])]
            ws, uniform = m.plays, m.draws
            for i in reached:
                ws, uniform = kernel(boards[i], self.array, self.kind, self.width, self.choice_width, self.weights,
                                     again, bonus_next, self.choices, ws, uniform, m.found, m.search, out[i])
            m = m._replace(plays=ws, draws=uniform)
            plies[reached] = depth
        self.memory = m
        keep_memory(m)
        return out, plies

    def own_play(self, board: np.ndarray, dice: tuple[int, int], bonus: bool) -> np.ndarray:
        """The strategy's own play of the roll from ``board``, as the game loop plays it."""
        result = board.copy()
        m = self.memory
        ws, uniform, _, _ = play_dice(result, self.array, dice[0], dice[1], bonus, self.kind, self.width,
                                      self.weights, self.choices, m.plays, m.draws, m.found, m.search)
        self.memory = m._replace(plays=ws, draws=uniform)
        keep_memory(self.memory)
        return result

    def own_double(self, board: np.ndarray) -> int:
        m = self.memory
        ws, d = choose_double(board, self.array, self.kind, self.choice_width, self.weights, self.choices,
                              m.plays, m.found, m.search)
        self.memory = m._replace(plays=ws)
        keep_memory(self.memory)
        return int(d)


def _plays_table(evaluator, position, dice, ply, stage, bonus, top, double=0, deep=None, deeper=None):
    """The best ``top`` (all when None) distinct plays of ``dice`` from ``position``, valued and ranked.

    Every play is valued; only the rows kept become ``Play`` objects, since
    an eight-die segment can have tens of thousands of plays.  Returns the
    frame, the number of plays, the segment's nodes and whether the double a
    1-2 earned comes next.
    """
    nodes = segment_nodes(evaluator.rules, position, dice, bonus)
    # what follows every play of the segment but one that wins (the values know a won game)
    step = after_segment(roll_sequence(evaluator.array), dice[0], dice[1], bonus, len(nodes.segment),
                         nodes.dice_used, False)
    again, bonus_next = bool(still_on_roll(step)), step == BONUS
    values, plies = evaluator.values(nodes.boards, again, ply, bonus_next, deep, deeper)
    own = evaluator.own_play(position.to_board(), dice, bonus)
    order = np.lexsort((-values[:, HK.V_SCORE], -plies))  # deeper plies first, then best first, stably
    kept = order if top is None else order[:top]
    plays = nodes.plays(kept)
    heuristic = evaluator.kind != LEARNED or ply == 0
    equity = values[kept, HK.V_SCORE if heuristic else HK.V_EQUITY]
    frame = pd.DataFrame({
        "rank": np.arange(1, len(kept) + 1),
        "stage": stage,
        "double": double,
        "play": [compact_notation(p.moves, p.hits) for p in plays],
        "position": [p.position.to_id() for p in plays],
        "equity": equity,
        "diff": np.where(plies[kept] == plies[kept[0]], equity - equity[0], np.nan),
        "win": values[kept, HK.V_WIN],
        "points": values[kept, HK.V_POINTS],
        "ply": plies[kept],
        "chosen": np.all(nodes.boards[kept] == own, axis=1),
    })
    return frame, len(values), nodes, bonus_next


def _doubles_table(evaluator, position: Position, ply: int, deep: Filter | None = None,
                   deeper: Filter | None = None) -> pd.DataFrame:
    """The six doubles after a 1-2 reached ``position``, each with its best play at ``ply``, best first."""
    rows = [_plays_table(evaluator, position, (d, d), ply, "double", True, 1, d, deep, deeper)[0]
            for d in range(1, 7)]
    doubles = pd.concat(rows, ignore_index=True)
    rolled = bonus_die_rolled(roll_sequence(evaluator.array))
    pick = 0 if rolled else evaluator.own_double(position.to_board())
    doubles["chosen"] = doubles["double"] == pick
    doubles = doubles.sort_values("equity", ascending=False, kind="stable").reset_index(drop=True)
    doubles["rank"] = np.arange(1, 7)
    doubles["diff"] = doubles["equity"] - doubles["equity"].iloc[0]
    return doubles


def hint(
    rules: Ruleset,
    position: Position,
    dice: tuple[int, int] | str,
    strategy: Strategy | str = "best",
    ply: int | None = None,
    top: int | None = None,
    deep: Filter | None = None,
    deeper: Filter | None = None,
) -> pd.DataFrame:
    """Every distinct legal play of ``dice`` from ``position`` (mover's view), best first; see the module docstring.

    ``ply`` None is ``default_ply``: 2 for a strategy with a network, 1 for a
    heuristic.  ``top`` keeps the best ``top`` rows of each stage (all when None).
    At ply 2 and 3 the plays ``deep`` keeps at ply 1 (``PLY2_FILTER``: the best 32)
    go one roll deeper; at ply 3 those ``deeper`` keeps at ply 2 (``PLY3_FILTER``)
    go two rolls deeper.  The deepest rank first.
    """
    start = time.perf_counter()
    roll = parse_dice(dice)
    if ply is not None and ply not in PLIES:
        raise AcesimError(f"ply must be 0, 1, 2 or 3, got {ply}")
    if top is not None and top < 1:
        raise AcesimError(f"top must be at least 1, got {top}")
    if isinstance(strategy, str):
        strategy = as_strategy(resolve_spec(strategy, rules))
    strategy.check_rules(rules)
    strategy.refuse_deeper("hint looks deeper by --ply")
    if ply is None:
        ply = default_ply(strategy)
    evaluator = Evaluator(rules, strategy)
    if evaluator.kind == RANDOM:
        raise AcesimError("the random strategy values no play; give a heuristic or a learned strategy")
    if ply >= 2 and evaluator.kind != LEARNED:
        raise AcesimError(f"ply {ply} needs an equity, which the heuristic {strategy.spec!r} has not; "
                          "use a learned strategy")
    frame, n_plays, nodes, bonus_next = _plays_table(evaluator, position, roll, ply, "play", False, top, 0, deep,
                                                     deeper)
    parts = [frame]
    if bonus_next:
        frame["stage"] = "1-2"
        parts.append(_doubles_table(evaluator, Position.from_id(frame["position"].iloc[0]), ply, deep, deeper))
    out = pd.concat(parts, ignore_index=True)[COLUMNS]
    out.attrs.update({
        "rules": rules.name,
        "strategy": strategy.spec,
        "dice": list(roll),
        "segment": list(nodes.segment),
        "dice_used": nodes.dice_used,
        "plays": n_plays,
        "ply": ply,
        "double_rolled": bool(bonus_next and bonus_die_rolled(roll_sequence(evaluator.array))),
        "seconds": time.perf_counter() - start,
    })
    return out


def default_ply(strategy: Strategy) -> int:
    """Ply 2 where the strategy has an equity to look a roll deeper with (a network), else ply 1.

    Ply 2 is the better judge (judged by GNU Backgammon, docs/analyses.md) and fits an
    interactive wait: under a second at the worst of ``acesim bench hint`` (docs/benchmarks.md).
    """
    return 2 if strategy.kind == LEARNED else 1


def _points_differ(rules: Ruleset) -> bool:
    return rules.to_array()[L.R_SCORING] != L.SCORING_SINGLE


def _double_label(rules: Ruleset, d: int) -> str:
    """A double played after a 1-2, with the complement that follows it."""
    if rules.doubles in ("four-plus-complement", "complement-after-1-2") and d != 7 - d:
        return f"{d}-{d} then {7 - d}-{7 - d}"
    return f"{d}-{d}"


def format_hint(frame: pd.DataFrame, rules: Ruleset, width: int = WIDTH) -> str:
    """The hint as text no wider than ``width``: a header line, then one table per stage, best first.

    A play too long for its column wraps at its spaces; a wide table is split (``acesim.common.terminal``).
    """
    a = frame.attrs
    heuristic = frame["win"].isna().all()
    value = "score" if heuristic else "equity"
    lines = textwrap.wrap(
        f"Rules {a['rules']}; dice {a['dice'][0]}-{a['dice'][1]}; segment {' '.join(map(str, a['segment']))}; "
        f"{a['plays']} legal play(s); strategy {a['strategy']}, ply {a['ply']}; {a['seconds']:.2f} s",
        width, break_long_words=False, break_on_hyphens=False,
    )
    show_points = not heuristic and _points_differ(rules)
    titles = {
        "play": "Plays",
        "1-2": "The 1-2's plays (a double follows)",
        "double": "Each double after the best 1-2 play" + (" (rolled, not chosen)" if a["double_rolled"] else ""),
    }
    for stage in ("play", "1-2", "double"):
        part = frame[frame["stage"] == stage]
        if part.empty:
            continue
        header = ["#", "double"] if stage == "double" else ["#"]
        header += ["play", value, "diff"]
        if not heuristic:
            header.append("win")
        if show_points:
            header.append("points")
        header += ["ply", ""]
        rows = []
        for r in part.itertuples():
            row = [str(r.rank)]
            if stage == "double":
                row.append(_double_label(rules, int(r.double)))
            row += [r.play, f"{r.equity:+.4f}", "" if np.isnan(r.diff) else f"{r.diff:+.4f}"]
            if not heuristic:
                row.append(f"{100 * r.win:.1f}%")
            if show_points:
                row.append(f"{r.points:+.3f}")
            row += [str(r.ply), "chosen" if r.chosen else ""]
            rows.append(row)
        play = header.index("play")
        lines += ["", titles[stage] + ":"]
        lines += text_table(header, rows, width, keys=play, left={1, 2} if stage == "double" else {1}, text={play})
        if stage != "double" and len(part) < a["plays"]:
            lines.append(f"({a['plays'] - len(part)} more; --top to show them)")
    return "\n".join(lines)


def json_records(frame: pd.DataFrame) -> list[dict]:
    """One JSON-ready object per row, NaN as null."""
    return frame.astype(object).where(frame.notna(), None).to_dict(orient="records")


def hint_json(frame: pd.DataFrame) -> dict:
    """The hint as a JSON-ready object: the attributes and one object per row (NaN as null)."""
    return {**frame.attrs, "rows": json_records(frame)}
