"""Legal plays from Python: the thin typed layer over ``kernels.plays``.

``legal_plays(rules, position, dice)`` answers one query; ``answer_query`` and
``answer_batch`` implement the JSON-lines contract of ``acesim moves --batch``
(documented in docs/batch.md).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from acesim.common import files as io
from acesim.common.errors import AcesimError
from acesim.common.inputs import open_text
from acesim.engine.position import Position, parse_position
from acesim.engine.rules import Ruleset
from acesim.kernels import layout as L
from acesim.kernels.board import INVARIANT_MESSAGES, check_rows
from acesim.kernels.plays import (
    FULL,
    collect_plays,
    enumerate_plays,
    grown_workspace,
    new_workspace,
    segment_of,
)

Square = int | str  # a point 1..24, or "bar" / "waiting" (from), "off" (to)


@dataclass(frozen=True)
class Play:
    """One legal play: its single-checker moves and the resulting position (mover's view)."""

    moves: tuple[tuple[Square, Square], ...]
    position: Position
    hits: tuple[bool, ...] = ()

    def notation(self) -> str:
        """Readable moves, e.g. ``waiting/22 22/16*``; ``*`` marks a hit."""
        if not self.moves:
            return "(no move)"
        parts = []
        for (src, dst), hit in zip(self.moves, self.hits or (False,) * len(self.moves)):
            parts.append(f"{src}/{dst}{'*' if hit else ''}")
        return " ".join(parts)


@dataclass(frozen=True)
class SegmentPlays:
    """Every legal play of one segment (docs/rules.md section 2)."""

    segment: tuple[int, ...]
    dice_used: int
    complete: bool
    plays: tuple[Play, ...]

    def positions(self) -> set[Position]:
        return {play.position for play in self.plays}


class _Enumerator:
    """Owns a kernel workspace, growing it whenever a segment needs more room.

    Its own, not the worker's memory area (``kernels.memory``): the plays are
    read out of its level table after the call, which any game kernel run in
    between would overwrite.
    """

    def __init__(self) -> None:
        self.ws = new_workspace(4096)
        self.out = np.zeros(3, dtype=np.int64)
        self.segment = np.zeros(L.MAX_SEGMENT, dtype=np.int64)
        self.count = 0  # enumerations so far: tells a SegmentNodes whether the table is still its own

    def run(self, board: np.ndarray, rules: np.ndarray, dice: tuple[int, int], bonus: bool) -> int:
        n = segment_of(rules, dice[0], dice[1], bonus, self.segment)
        self.count += 1
        while enumerate_plays(board, rules, self.segment, n, self.ws, self.out) == FULL:
            self.ws = grown_workspace(self.ws)
        return n


_ENUMERATOR = _Enumerator()


# Kernel move codes to the squares of the JSON contract.
_FROM: dict[int, Square] = {p: p for p in range(1, L.N_POINTS + 1)}
_FROM[L.FROM_BAR] = "bar"
_FROM[L.FROM_WAITING] = "waiting"
_TO: dict[int, Square] = {p: p for p in range(1, L.N_POINTS + 1)}
_TO[L.TO_OFF] = "off"
# A move and its hit flag as one small code, ``(source * _SPAN + destination) * 2 + hit``, so that
# the plays of a segment (up to 100,000) turn into Python objects by table look-ups.
_SPAN = max(_TO) + 1
_MOVE_OF: list[tuple[Square, Square] | None] = [None] * ((max(_FROM) + 1) * _SPAN * 2)
_HIT_OF: list[bool] = [False] * len(_MOVE_OF)
for _src, _square in _FROM.items():
    for _dst, _target in _TO.items():
        for _hit in (0, 1):
            _MOVE_OF[(_src * _SPAN + _dst) * 2 + _hit] = (_square, _target)
            _HIT_OF[(_src * _SPAN + _dst) * 2 + _hit] = bool(_hit)


_DICE = re.compile(r"([0-9]{1,3})\s*[-,]\s*([0-9]{1,3})", re.ASCII)


def parse_dice(value: Any) -> tuple[int, int]:
    """``"6-3"``, ``[6, 3]`` or ``(6, 3)`` -> ``(6, 3)``, each die 1..6."""
    if isinstance(value, str):
        # ASCII digits only: int() would also take "+6" and fullwidth digits
        match = _DICE.fullmatch(value.strip())
        if match is None:
            raise AcesimError(f"dice {value!r} must look like 6-3")
        dice = [int(match[1]), int(match[2])]
    elif isinstance(value, (list, tuple)):
        dice = list(value)
    else:
        raise AcesimError(f"dice {value!r} must be two dice like [6, 3]")
    if len(dice) != 2 or any(isinstance(d, bool) or not isinstance(d, int) for d in dice):
        raise AcesimError(f"dice {value!r} must be two whole numbers from 1 to 6")
    if any(not 1 <= d <= 6 for d in dice):
        raise AcesimError(f"dice {value!r} must be two whole numbers from 1 to 6")
    return dice[0], dice[1]


def check_bonus(rules: Ruleset, dice: tuple[int, int], bonus: bool) -> None:
    """``bonus`` (the double played after a 1-2) needs a double and rules with a 1-2 bonus."""
    if not bonus:
        return
    if dice[0] != dice[1]:
        raise AcesimError(f"the double played after a 1-2 must be a double, not {dice[0]}-{dice[1]}")
    if rules.acey_deucey == "none":
        raise AcesimError("these rules have no double after a 1-2 (acey_deucey = none)")


def _enumerate(rules: Ruleset, position: Position, dice: tuple[int, int], bonus: bool) -> tuple[np.ndarray, int]:
    """Run the kernel; the plays are left in the shared workspace."""
    if position.off[0] == L.N_CHECKERS or position.off[1] == L.N_CHECKERS:
        raise AcesimError("the game is over in this position: a side has borne off all 15")
    check_bonus(rules, dice, bonus)
    board = position.to_board()
    return board, _ENUMERATOR.run(board, rules.to_array(), dice, bonus)


def count_plays(rules: Ruleset, position: Position, dice: tuple[int, int], bonus: bool = False) -> tuple[int, int]:
    """``(number of legal plays, dice used)`` without building the plays."""
    _enumerate(rules, position, parse_dice(dice), bonus)
    first, stop, used = (int(v) for v in _ENUMERATOR.out)
    return stop - first, used


@dataclass(frozen=True)
class SegmentNodes:
    """The resulting positions of a segment's distinct plays, before any is turned into a ``Play``.

    A segment of eight dice can have tens of thousands of plays; a caller
    that values them all but shows a few (``analyses.hint``) builds only
    those with ``plays``, which reads the moves out of the enumerator's
    table and so must come before the next enumeration.
    """

    start: np.ndarray  # the board the segment starts from (mover's view)
    segment: tuple[int, ...]
    dice_used: int
    boards: np.ndarray  # one row per distinct play, its resulting board
    first: int  # the first play's node in the enumerator's table
    enumeration: int  # which enumeration filled the table

    @property
    def complete(self) -> bool:
        return self.dice_used == len(self.segment)

    def plays(self, rows: Iterable[int]) -> tuple[Play, ...]:
        """The plays of the given rows, with their moves."""
        if _ENUMERATOR.count != self.enumeration:
            raise AcesimError("the plays of this segment were overwritten by a later enumeration")
        rows = list(rows)
        moves = np.zeros((len(rows), L.MAX_SEGMENT, 2), dtype=np.int64)
        hits = np.zeros((len(rows), L.MAX_SEGMENT), dtype=np.int64)
        lengths = np.zeros(len(rows), dtype=np.int64)
        ws = _ENUMERATOR.ws
        if rows == list(range(len(self.boards))):
            collect_plays(ws, self.start, self.first, self.first + len(rows), moves, hits, lengths)
        else:
            for i, row in enumerate(rows):
                node = self.first + row
                collect_plays(ws, self.start, node, node + 1, moves[i : i + 1], hits[i : i + 1], lengths[i : i + 1])
        codes = (moves[:, :, 0] * _SPAN + moves[:, :, 1]) * 2 + (hits != 0)
        boards = self.boards[rows].tolist()
        plays: list[Play | None] = [None] * len(rows)
        for k in np.unique(lengths).tolist():  # only the moves each play has become Python objects
            which = np.flatnonzero(lengths == k)
            for i, play_codes in zip(which.tolist(), codes[which, :k].tolist()):
                plays[i] = Play(tuple(map(_MOVE_OF.__getitem__, play_codes)), Position.from_checked_values(boards[i]),
                                tuple(map(_HIT_OF.__getitem__, play_codes)))
        return tuple(plays)


def segment_nodes(rules: Ruleset, position: Position, dice: tuple[int, int], bonus: bool = False) -> SegmentNodes:
    """The distinct plays of the segment that ``dice`` starts, as resulting boards (``SegmentNodes``).

    ``bonus``: ``dice`` are the double played after a 1-2 (``segment_of``).
    """
    board, n = _enumerate(rules, position, parse_dice(dice), bonus)
    enumerator = _ENUMERATOR
    first, stop, used = (int(v) for v in enumerator.out)
    code = check_rows(enumerator.ws.nodes, first, stop)
    if code:
        raise AssertionError(f"engine bug: a play is impossible: {INVARIANT_MESSAGES[code]}")
    segment = tuple(int(d) for d in enumerator.segment[:n])
    boards = enumerator.ws.nodes[first:stop].copy()
    return SegmentNodes(board, segment, used, boards, first, enumerator.count)


def legal_plays(rules: Ruleset, position: Position, dice: tuple[int, int], bonus: bool = False) -> SegmentPlays:
    """Every legal play of the segment that ``dice`` starts (``[d, d]``: the doubles segment).

    ``bonus``: ``[d, d]`` is the double played after a 1-2, which under
    ``doubles = complement-after-1-2`` is followed by its complement.

    The plays are the distinct resulting positions, each with one sequence of
    moves that reaches it, in the order the enumerator finds them.
    """
    nodes = segment_nodes(rules, position, dice, bonus)
    plays = nodes.plays(range(len(nodes.boards)))
    return SegmentPlays(nodes.segment, nodes.dice_used, nodes.complete, plays)


# --- the batch contract -----------------------------------------------------


def result_to_json(result: SegmentPlays) -> dict[str, Any]:
    return {
        "dice_used": result.dice_used,
        "segment": list(result.segment),
        "complete": result.complete,
        "plays": [
            {"moves": [list(m) for m in play.moves], "position": play.position.to_json()}
            for play in result.plays
        ],
    }


def rules_from_query(value: Any) -> Ruleset:
    if isinstance(value, str):
        return Ruleset.preset(value)
    if isinstance(value, dict):
        return Ruleset.from_mapping(value, name="query")
    raise AcesimError("'rules' must be a preset name or an object with a 'preset' key")


def answer_query(line: str) -> dict[str, Any]:
    """One batch line in, one answer object out (``{"error": ...}`` for a bad line)."""
    try:
        try:
            query = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AcesimError(f"line is not valid JSON: {exc.msg} at column {exc.colno}") from None
        except RecursionError:
            raise AcesimError("line is not valid JSON: nested too deeply") from None
        if not isinstance(query, dict):
            raise AcesimError("query must be a JSON object with rules, position and dice")
        for key in ("rules", "position", "dice"):
            if key not in query:
                raise AcesimError(f"query is missing {key!r}")
        unknown = sorted(set(query) - {"rules", "position", "dice", "bonus"})
        if unknown:
            raise AcesimError(f"query has unknown key {unknown[0]!r}")
        rules = rules_from_query(query["rules"])
        given = query["position"]
        position = (parse_position(given, rules.start, files=False) if isinstance(given, str)
                    else Position.from_json(given))
        dice = parse_dice(query["dice"])
        bonus = query.get("bonus", False)
        if not isinstance(bonus, bool):
            raise AcesimError(f"'bonus' must be true or false, got {bonus!r}")
        return result_to_json(legal_plays(rules, position, dice, bonus))
    except AcesimError as exc:
        return {"error": str(exc)}


def answer_batch(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Answers in query order; blank lines are skipped."""
    for line in lines:
        if line.strip():
            yield answer_query(line)


# A query is a few hundred bytes; a longer line is answered with an error, not read whole.
MAX_QUERY_BYTES = 2**20
TOO_LONG = f"line is longer than {MAX_QUERY_BYTES // 2**20} MiB"


def answer_batch_file(batch: str | Path, out: Path | None, stdin: TextIO | None = None,
                      stdout: TextIO | None = None) -> int:
    """Answer the queries of ``batch`` (a file, or ``-`` for ``stdin``) one line at a time; return how
    many lines failed.

    Each answer is written as soon as it is made, to ``stdout`` or, with
    ``out``, to a temporary file renamed into place at the end: a batch of any
    length takes the memory of one answer, and a reader of standard output
    sees the first answer at once.
    """
    failed = 0

    def answer_all(lines: Iterable[str | None], write) -> None:
        nonlocal failed
        for line in lines:
            if line is not None and not line.strip():
                continue
            answer = answer_query(line) if line is not None else {"error": TOO_LONG}
            failed += "error" in answer
            write(json.dumps(answer) + "\n")

    with _query_lines(batch, stdin) as lines:
        if out is None:
            sink = stdout if stdout is not None else sys.stdout

            def write_line(text: str) -> None:
                sink.write(text)
                sink.flush()

            answer_all(lines, write_line)
        else:
            def write_file(tmp: Path) -> None:
                with open(tmp, "w", encoding="utf-8") as handle:
                    answer_all(lines, handle.write)

            io.write_atomically(out, write_file)
    return failed


@contextmanager
def _query_lines(batch: str | Path, stdin: TextIO | None) -> Iterator[Iterator[str | None]]:
    """The lines of ``batch``, read one at a time (``-``: standard input); ``None`` stands for a
    line over ``MAX_QUERY_BYTES``, skipped unread."""
    if str(batch) == "-":
        yield _bounded_lines(stdin if stdin is not None else sys.stdin, "standard input")
        return
    handle = open_text(batch, "batch file")
    try:
        yield _bounded_lines(handle, str(batch))
    finally:
        handle.close()


def _bounded_lines(handle: TextIO, where: str) -> Iterator[str | None]:
    number = 0
    try:
        while True:
            line = handle.readline(MAX_QUERY_BYTES + 1)
            if not line:
                return
            number += 1
            if len(line) > MAX_QUERY_BYTES and not line.endswith("\n"):
                while True:  # the rest of the long line
                    rest = handle.readline(MAX_QUERY_BYTES)
                    if not rest or rest.endswith("\n"):
                        break
                yield None
                continue
            yield line
    except UnicodeDecodeError:
        raise AcesimError(f"{where} is not UTF-8 text (after line {number})") from None

