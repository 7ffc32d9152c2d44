"""Positions: the JSON interchange form of docs/rules.md section 1, position IDs, text boards.

A ``Position`` is always seen from the mover (the side on roll): positive point
counts are the mover's checkers, negative ones the opponent's, and each pair
(``bar``, ``waiting``, ``off``) is ``(mover, opponent)``.

Position ID
-----------
24 characters of URL-safe base64 (``A-Z a-z 0-9 - _``) encoding 144 bits, most
significant first: for points 1..24 the count plus 15 in five bits (0 means 15
opposing checkers, 15 empty, 30 fifteen of the mover's), then four bits each
for mover bar, opponent bar, mover waiting, opponent waiting, mover off,
opponent off.  The Acey-Deucey start is ``e973ve973ve973ve973vAP8A`` and the
backgammon start ``a9730fJ73qo972PU973xAAAA``; any ID decodes to exactly one
position and every valid position has exactly one ID.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from acesim.common.errors import AcesimError
from acesim.common.inputs import MAX_SMALL_INPUT, read_text
from acesim.kernels import layout as L
from acesim.kernels.board import INVARIANT_MESSAGES, check_invariants, pip_count

ID_LENGTH = 24
GNU_ID_LENGTH = 14
_GNU_ALPHABET = re.compile(r"[A-Za-z0-9+/]+")
_ID_ALPHABET = re.compile(r"[A-Za-z0-9_-]+")
_KEYS = ("points", "bar", "waiting", "off")


@dataclass(frozen=True)
class Position:
    points: tuple[int, ...]
    bar: tuple[int, int] = (0, 0)
    waiting: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem:
            raise AcesimError(f"impossible position: {problem}")

    # --- construction -------------------------------------------------------

    @classmethod
    def start(cls, start: str = "off-board") -> Position:
        """The start of the game under rule ``start`` (``off-board`` or ``backgammon``)."""
        if start == "off-board":
            return cls(points=(0,) * L.N_POINTS, waiting=(15, 15))
        if start == "backgammon":
            points = [0] * L.N_POINTS
            for index, count in ((23, 2), (12, 5), (7, 3), (5, 5)):
                points[index] = count
                points[L.N_POINTS - 1 - index] = -count
            return cls(points=tuple(points))
        raise AcesimError(f"unknown start {start!r}; allowed: off-board, backgammon")

    @classmethod
    def from_json(cls, data: Any) -> Position:
        if not isinstance(data, Mapping):
            raise AcesimError("position must be a JSON object with points, bar, waiting, off")
        unknown = sorted(set(data) - set(_KEYS))
        if unknown:
            raise AcesimError(f"position has unknown key {unknown[0]!r}; keys: {', '.join(_KEYS)}")
        missing = [k for k in _KEYS if k not in data]
        if missing:
            raise AcesimError(f"position is missing {missing[0]!r}")
        points = _int_list(data["points"], "points", L.N_POINTS, -15, 15)
        pairs = [tuple(_int_list(data[k], k, 2, 0, 15)) for k in _KEYS[1:]]
        return cls(tuple(points), *pairs)

    @classmethod
    def from_json_text(cls, text: str) -> Position:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise AcesimError(f"position is not valid JSON: {exc.msg} at column {exc.colno}") from None
        except RecursionError:
            raise AcesimError("position is not valid JSON: nested too deeply") from None
        return cls.from_json(data)

    @classmethod
    def from_id(cls, text: str) -> Position:
        text = text.strip()
        if len(text) != ID_LENGTH:
            raise AcesimError(
                f"position ID {text!r} has {len(text)} characters; an ID has {ID_LENGTH}"
            )
        # b64decode would also take '+' and '/', giving one position two IDs
        if not _ID_ALPHABET.fullmatch(text):
            raise AcesimError(f"position ID {text!r} has a character outside A-Z a-z 0-9 - _")
        raw = base64.b64decode(text, altchars=b"-_", validate=True)
        bits = int.from_bytes(raw, "big")
        fields = []
        for width in [4] * 6 + [5] * L.N_POINTS:
            fields.append(bits & ((1 << width) - 1))
            bits >>= width
        fields.reverse()
        point_codes, counters = fields[: L.N_POINTS], fields[L.N_POINTS :]
        if any(code > 30 for code in point_codes):
            raise AcesimError(f"position ID {text!r} is not a valid ID (a point code is out of range)")
        return cls(
            points=tuple(code - 15 for code in point_codes),
            bar=(counters[0], counters[1]),
            waiting=(counters[2], counters[3]),
            off=(counters[4], counters[5]),
        )

    @classmethod
    def from_board(cls, board: np.ndarray) -> Position:
        """The position of a kernel board, checked by the jitted ``check_invariants``.

        Segments can have 100,000 plays, so this skips the slower Python-side
        validation that user input goes through.
        """
        code = check_invariants(board)
        if code:
            raise AcesimError(f"impossible position: {INVARIANT_MESSAGES[code]}")
        return cls.from_checked_values(board.tolist())

    @classmethod
    def from_checked_values(cls, values: list[int]) -> Position:
        """A position from a board row (as a list) that ``check_invariants`` accepted."""
        pos = object.__new__(cls)
        object.__setattr__(pos, "points", tuple(values[: L.N_POINTS]))
        object.__setattr__(pos, "bar", (values[L.BAR], values[L.OPP_BAR]))
        object.__setattr__(pos, "waiting", (values[L.WAITING], values[L.OPP_WAITING]))
        object.__setattr__(pos, "off", (values[L.OFF], values[L.OPP_OFF]))
        return pos

    # --- views ----------------------------------------------------------------

    def to_json(self) -> dict[str, list[int]]:
        return {
            "points": list(self.points),
            "bar": list(self.bar),
            "waiting": list(self.waiting),
            "off": list(self.off),
        }

    def to_board(self) -> np.ndarray:
        board = np.zeros(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
        board[: L.N_POINTS] = self.points
        board[L.BAR], board[L.OPP_BAR] = self.bar
        board[L.WAITING], board[L.OPP_WAITING] = self.waiting
        board[L.OFF], board[L.OPP_OFF] = self.off
        return board

    def to_id(self) -> str:
        bits = 0
        for v in self.points:
            bits = (bits << 5) | (v + 15)
        for v in (*self.bar, *self.waiting, *self.off):
            bits = (bits << 4) | v
        return base64.b64encode(bits.to_bytes(18, "big"), altchars=b"-_").decode("ascii")

    def to_gnu_id(self) -> str:
        """GNU Backgammon's 14-character position ID (``GNU_ID`` below); no waiting checkers."""
        self._check_foreign("a GNU Backgammon position ID")
        bits: list[int] = []
        for side in (1, 0):  # the side not on roll first
            for count in self._own_counts(side):
                bits += [1] * count + [0]
        bits += [0] * (80 - len(bits))
        key = bytes(sum(bits[8 * i + k] << k for k in range(8)) for i in range(10))
        return base64.b64encode(key).decode("ascii")[:GNU_ID_LENGTH]

    def to_xgid(self) -> str:
        """eXtreme Gammon's XGID, money game, centred cube, the mover as the bottom player on roll."""
        self._check_foreign("an XGID")
        cells = [_xg_cell(-self.bar[1])] + [_xg_cell(v) for v in self.points] + [_xg_cell(self.bar[0])]
        return "XGID=" + "".join(cells) + ":0:0:1:00:0:0:0:0:10"

    def foreign_ids(self) -> dict[str, str]:
        """``gnu_id`` and ``xgid`` of this position, when those formats can hold it (no waiting checkers)."""
        if any(self.waiting):
            return {}
        return {"gnu_id": self.to_gnu_id(), "xgid": self.to_xgid()}

    def _check_foreign(self, what: str) -> None:
        if any(self.waiting):
            raise AcesimError(f"a position with checkers still waiting to enter cannot be written as {what}")

    def _own_counts(self, side: int) -> list[int]:
        """Side ``side``'s checkers on its own points 1..24, then its bar."""
        if side == 0:
            counts = [max(v, 0) for v in self.points]
        else:
            counts = [max(-v, 0) for v in reversed(self.points)]
        return counts + [self.bar[side]]

    @classmethod
    def from_gnu_id(cls, text: str) -> Position:
        """A position from GNU Backgammon's position ID (optionally ``ID:MATCHID``, the match ID unread)."""
        text = text.strip()
        if text.upper().startswith("GNUID="):
            text = text[6:]
        text = text.split(":", 1)[0].strip()
        if len(text) != GNU_ID_LENGTH or not _GNU_ALPHABET.fullmatch(text):
            raise AcesimError(f"GNU position ID {text!r} must be {GNU_ID_LENGTH} characters of A-Z a-z 0-9 + /")
        key = base64.b64decode(text + "==")
        bits = [(byte >> k) & 1 for byte in key for k in range(8)]
        sides: list[list[int]] = [[], []]
        i = 0
        for side in range(2):
            for _ in range(25):
                count = 0
                while i < 80 and bits[i]:
                    count += 1
                    i += 1
                if i >= 80:
                    raise AcesimError(f"GNU position ID {text!r} is not a valid ID (it runs out of bits)")
                i += 1
                sides[side].append(count)
        if any(bits[i:]):
            raise AcesimError(f"GNU position ID {text!r} is not a valid ID (bits after the position)")
        opponent, mover = sides
        for label, counts in (("side on roll", mover), ("opponent", opponent)):
            if sum(counts) > L.N_CHECKERS:
                raise AcesimError(f"GNU position ID {text!r} gives the {label} {sum(counts)} checkers; each side has 15")
        points = []
        for p in range(1, L.N_POINTS + 1):
            mine, theirs = mover[p - 1], opponent[L.N_POINTS - p]
            if mine and theirs:
                raise AcesimError(f"GNU position ID {text!r} puts both sides on point {p}")
            points.append(mine - theirs)
        bar = (mover[24], opponent[24])
        return cls(tuple(points), bar, (0, 0), (L.N_CHECKERS - sum(mover), L.N_CHECKERS - sum(opponent)))

    @classmethod
    def from_xgid(cls, text: str) -> Position:
        """A position from an XGID (``XGID=`` then the fields); the checkers and the side on roll are read.

        A cube or a match score would change what every equity means, and
        acesim plays money games without a cube: such an XGID is refused.
        The dice field is not read (give the roll with ``--dice``).
        """
        body = text.strip()[5:]
        fields = body.split(":")
        if len(fields) < 4 or len(fields[0]) != 26:
            raise AcesimError("an XGID is XGID= then 26 position characters and at least 3 more fields separated by ':'")
        cells = fields[0]
        try:
            cube, cube_position, turn = int(fields[1]), int(fields[2]), int(fields[3])
        except ValueError:
            raise AcesimError(f"XGID cube, cube owner and turn must be integers: {':'.join(fields[1:4])!r}") from None
        try:
            match_length = int(fields[8]) if len(fields) > 8 else 0
        except ValueError:
            raise AcesimError(f"XGID match length (field 9) must be an integer: {fields[8]!r}") from None
        if turn not in (1, -1):
            raise AcesimError(f"XGID turn must be 1 or -1, got {turn}")
        if cube != 0 or cube_position != 0 or match_length != 0:
            raise AcesimError("acesim plays money games without a cube: the XGID's cube, cube owner and match "
                              "length must be 0")
        counts = [_xg_count(c, text) for c in cells]  # bottom player positive
        if turn == -1:  # the top player is on roll: see the board from its side
            counts = [-v for v in reversed(counts)]
        mover_bar, opp_bar = counts[25], -counts[0]
        if mover_bar < 0 or opp_bar < 0:
            raise AcesimError("XGID has a checker of the wrong side on a bar")
        points = tuple(counts[1:25])
        mine = sum(v for v in points if v > 0) + mover_bar
        theirs = -sum(v for v in points if v < 0) + opp_bar
        for label, n in (("side on roll", mine), ("opponent", theirs)):
            if n > L.N_CHECKERS:
                raise AcesimError(f"XGID gives the {label} {n} checkers; each side has 15")
        return cls(points, (mover_bar, opp_bar), (0, 0), (L.N_CHECKERS - mine, L.N_CHECKERS - theirs))

    def flipped(self) -> Position:
        """The same position seen by the opponent."""
        return Position(
            points=tuple(-v for v in reversed(self.points)),
            bar=self.bar[::-1],
            waiting=self.waiting[::-1],
            off=self.off[::-1],
        )

    def pips(self) -> tuple[int, int]:
        """Pip counts (mover, opponent); waiting and bar checkers count 25."""
        return (
            int(pip_count(self.to_board())),
            int(pip_count(self.flipped().to_board())),
        )

    def render(self) -> str:
        """The board as text: X is the mover (moving 24 -> 1), O the opponent."""
        return render_board(self)


def _int_list(value: Any, key: str, length: int, low: int, high: int) -> list[int]:
    if not isinstance(value, list) or len(value) != length:
        raise AcesimError(f"position {key!r} must be a list of {length} integers")
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int):
            raise AcesimError(f"position {key}[{i}] must be an integer, got {v!r}")
        if not low <= v <= high:
            raise AcesimError(f"position {key}[{i}] = {v} is out of range {low}..{high}")
    return list(value)


def _problem(pos: Position) -> str | None:
    """What makes ``pos`` impossible, or None."""
    if len(pos.points) != L.N_POINTS:
        return f"there are {len(pos.points)} points, not {L.N_POINTS}"
    for name in _KEYS[1:]:
        pair = getattr(pos, name)
        if len(pair) != 2 or any(not 0 <= v <= 15 for v in pair):
            return f"{name} must be two counts from 0 to 15"
    for side, sign, label in ((0, 1, "mover"), (1, -1, "opponent")):
        on_points = sum(v * sign for v in pos.points if v * sign > 0)
        total = on_points + pos.bar[side] + pos.waiting[side] + pos.off[side]
        if total != L.N_CHECKERS:
            return (
                f"the {label} has {total} checkers (points {on_points}, bar {pos.bar[side]}, "
                f"waiting {pos.waiting[side]}, off {pos.off[side]}); each side has 15"
            )
    if pos.off[0] == L.N_CHECKERS and pos.off[1] == L.N_CHECKERS:
        return "both sides have borne off all 15 checkers"
    return None


def _xg_cell(count: int) -> str:
    """An XGID position character: ``-``, ``A``.. for the bottom player (positive), ``a``.. for the top."""
    if count == 0:
        return "-"
    return chr((64 if count > 0 else 96) + abs(count))


def _xg_count(cell: str, text: str) -> int:
    if cell == "-":
        return 0
    if "A" <= cell <= "O":
        return ord(cell) - 64
    if "a" <= cell <= "o":
        return -(ord(cell) - 96)
    raise AcesimError(f"XGID position character {cell!r} is not '-', A-O or a-o")


def unreached_by(position: Position, start: str) -> str | None:
    """Why games from ``start`` never reach ``position``, when a plain count shows it (else ``None``).

    A network learned its values from such games: asked about a position they
    never reach, it extrapolates.
    """
    if start == "backgammon" and any(position.waiting):
        return "checkers are waiting to enter, which games that start on the board never have"
    for side, name in ((0, "the side on roll"), (1, "its opponent")):
        if position.waiting[side] and position.off[side]:
            return f"{name} has checkers both borne off and waiting to enter, which no game reaches"
    return None


def parse_position(text: str, start: str = "off-board", files: bool = True) -> Position:
    """A position given on the command line: ``start``, an ID, inline JSON, a .json file, a GNU ID or an XGID.

    ``files=False`` never reads a file: a batch line names positions, not paths on the answering machine.
    """
    text = text.strip()
    if not text:
        raise AcesimError("empty position: give start, a position ID, JSON, a .json file, a GNU ID or an XGID")
    if text == "start":
        return Position.start(start)
    if text.startswith("{"):
        return Position.from_json_text(text)
    if text.upper().startswith("XGID="):
        return Position.from_xgid(text)
    head = text.split(":", 1)[0]
    if text.upper().startswith("GNUID=") or (len(head) == GNU_ID_LENGTH and _GNU_ALPHABET.fullmatch(head)):
        return Position.from_gnu_id(text)
    path = Path(text)
    if files and (path.suffix.lower() == ".json" or (len(text) != ID_LENGTH and path.exists())):
        return Position.from_json_text(read_text(path, "position file", MAX_SMALL_INPUT))
    return Position.from_id(text)


def render_board(pos: Position) -> str:
    """Stacks up to five checkers a point; a taller stack shows its count on the fifth row."""
    rows = 5

    def cell(point: int, row: int) -> str:
        v = pos.points[point - 1]
        n, mark = abs(v), ("X" if v > 0 else "O")
        if n == 0 or row >= n:
            return " . " if row == 0 and n == 0 else "   "
        if row == rows - 1 and n > rows:
            return f"{n:>2} "
        return f" {mark} "

    def half(points: list[int], top: bool) -> list[str]:
        lines = []
        order = range(rows) if top else reversed(range(rows))
        for row in order:
            left = "".join(cell(p, row) for p in points[:6])
            right = "".join(cell(p, row) for p in points[6:])
            lines.append(f" |{left}|{right}|")
        return lines

    top_points = list(range(13, 25))
    bottom_points = list(range(12, 0, -1))
    header = " +" + "".join(f"{p:^3}" for p in top_points[:6]) + "+" + "".join(
        f"{p:^3}" for p in top_points[6:]
    ) + "+"
    footer = " +" + "".join(f"{p:^3}" for p in bottom_points[:6]) + "+" + "".join(
        f"{p:^3}" for p in bottom_points[6:]
    ) + "+"
    blank = " |" + " " * 18 + "|" + " " * 18 + "|"
    mover_pips, opp_pips = pos.pips()
    lines = [f" Position ID: {pos.to_id()}", header]
    lines += half(top_points, top=True)
    lines.append(blank)
    lines += half(bottom_points, top=False)
    lines.append(footer)
    lines.append(
        f" X (on roll, moves 24->1): bar {pos.bar[0]:>2}  waiting {pos.waiting[0]:>2}  "
        f"off {pos.off[0]:>2}  pips {mover_pips}"
    )
    lines.append(
        f" O (opponent, moves 1->24): bar {pos.bar[1]:>2}  waiting {pos.waiting[1]:>2}  "
        f"off {pos.off[1]:>2}  pips {opp_pips}"
    )
    return "\n".join(lines)
