"""Tables that fit a terminal (100 columns unless it is wider), never a number cut short.

A table too wide for the terminal is split into several tables over the same
rows, each repeating the key columns (the rule set, the figure, the rank);
header text wraps at its spaces, and a cell wraps only in a column of free
text (a play, a note), at its spaces.  A number is never wrapped, cut or
replaced by an ellipsis: a plain table whose keys and widest column alone are
wider than the terminal is printed wider than it (no table of acesim's comes
near that at 100 columns; tests/test_terminal_tables.py).

``markdown_table`` writes a Markdown table (for files: as wide as it is);
``text_table`` renders plain aligned columns (hint, rollout, bench);
``rich_tables`` builds ``rich`` tables (the CLI's), ``markdown_blocks`` splits
Markdown into paragraphs and tables so the tables can be fitted the same way.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

WIDTH = 100
MIN_TEXT_WIDTH = 16  # the narrowest a free-text column is made before the table is split
GAP = 2  # spaces between plain columns


@dataclass(frozen=True)
class Group:
    """One of the tables a wide table is split into: its columns and their widths."""

    columns: list[int]
    widths: list[int]


def _words(text: str) -> list[str]:
    return text.split() or [""]


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]


def key_count(rows: Sequence[Sequence[str]], most: int = 3) -> int:
    """How many leading columns tell the rows apart (a rule set, or a rule set and a figure)."""
    for k in range(1, most):
        if len({tuple(row[:k]) for row in rows}) == len(rows):
            return k
    return most


def layout(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int = WIDTH,
    keys: int | None = 1,
    text: frozenset[int] | set[int] = frozenset(),
    units: Sequence[Sequence[int]] | None = None,
    overhead=lambda n: GAP * (n - 1),
) -> list[Group]:
    """Split columns into groups that each fit ``width``, the first ``keys`` columns in every group
    (``None``: as many as tell the rows apart, ``key_count``).

    ``text`` are the columns whose cells may wrap; ``units`` are runs of
    columns kept in one group (a value and its n), by default each column;
    ``overhead(n)`` is what a table of n columns adds to their widths.
    """
    n = len(header)
    cells = [[str(row[i]) for row in rows] for i in range(n)]
    natural = [max([len(header[i]), *map(len, cells[i])]) for i in range(n)]
    least = []
    for i in range(n):
        words = max(len(w) for w in _words(header[i]))
        if i in text:
            longest = max([words, *(len(w) for c in cells[i] for w in _words(c))])
            least.append(max(longest, min(natural[i], MIN_TEXT_WIDTH)))
        else:
            least.append(max([words, *map(len, cells[i])]))
    if keys is None:
        keys = key_count(rows)
    key_columns = list(range(min(keys, n)))
    units = [list(u) for u in units] if units is not None else [[i] for i in range(len(key_columns), n)]

    def split(limit: int) -> list[list[int]]:
        groups: list[list[int]] = []
        current: list[int] = []
        for unit in units:
            trial = key_columns + current + unit
            if current and sum(least[i] for i in trial) + overhead(len(trial)) > limit:
                groups.append(current)
                current = []
            current = current + unit
        if current or not groups:
            groups.append(current)
        return groups

    groups = split(width)
    # as many tables as the width needs, their columns shared out evenly: the narrowest
    # limit that still needs no more tables
    for limit in range(width // len(groups), width):
        if len(split(limit)) <= len(groups):
            groups = split(limit)
            break
    out = []
    for group in groups:
        columns = key_columns + group
        widths = [least[i] for i in columns]
        # spare room goes to the columns whose header or text would otherwise wrap, a column at a time
        spare = width - sum(widths) - overhead(len(columns))
        while spare > 0:
            short = [k for k, i in enumerate(columns) if widths[k] < natural[i]]
            if not short:
                break
            for k in short[:spare]:
                widths[k] += 1
            spare -= min(spare, len(short))
        out.append(Group(columns, widths))
    return out


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A Markdown table's lines: the header (an empty cell as ``| |``), the rule, one line per row."""
    return ["|" + "|".join(f" {h} " if h else " " for h in header) + "|", "|" + "---|" * len(header),
            *("| " + " | ".join(str(c) for c in row) + " |" for row in rows)]


def text_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int = WIDTH,
    keys: int = 1,
    left: set[int] | frozenset[int] = frozenset(),
    text: set[int] | frozenset[int] = frozenset(),
) -> list[str]:
    """Plain aligned columns (``left`` ones left-aligned, the others right) in as many tables as fit ``width``.

    The tables are separated by a blank line; a header wraps over several lines when it must.
    """
    lines: list[str] = []
    for g, group in enumerate(layout(header, rows, width, keys, text)):
        if g:
            lines.append("")
        last = len(group.columns) - 1

        def fmt(parts: list[list[str]]) -> list[str]:
            height = max(len(p) for p in parts)
            parts = [p + [""] * (height - len(p)) for p in parts]
            return [
                "  ".join(
                    p[line].ljust(w) if i in left or k == last else p[line].rjust(w)
                    for k, (i, p, w) in enumerate(zip(group.columns, parts, group.widths))
                ).rstrip()
                for line in range(height)
            ]

        heads = [_wrap(header[i], w) if len(header[i]) > w else [header[i]]
                 for i, w in zip(group.columns, group.widths)]
        height = max(len(h) for h in heads)
        lines += fmt([[""] * (height - len(h)) + h for h in heads])  # headers sit on the first row
        for row in rows:
            lines += fmt([_wrap(str(row[i]), w) if i in text else [str(row[i])]
                          for i, w in zip(group.columns, group.widths)])
    return lines


def _rich_overhead(style: box.Box) -> callable:
    """What a rich table of the CLI's style adds to its columns' widths, measured once per column count."""
    console = Console(width=10_000, file=None)
    cache: dict[int, int] = {}

    def overhead(n: int) -> int:
        if n not in cache:
            table = Table(box=style)
            for _ in range(n):
                table.add_column("x", width=1)
            cache[n] = console.measure(table).maximum - n
        return cache[n]

    return overhead


RICH_BOX = box.SIMPLE_HEAD
_overhead = _rich_overhead(RICH_BOX)


def rich_tables(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int = WIDTH,
    keys: int | None = None,
    title: str | None = None,
    right: set[int] | frozenset[int] = frozenset(),
    text: set[int] | frozenset[int] = frozenset(),
    units: Sequence[Sequence[int]] | None = None,
) -> list[Table]:
    """``rich`` tables over ``rows`` that each fit ``width``; the title goes on the first.

    Besides the ``text`` columns, a column without a digit in any cell is words and may wrap at its
    spaces: rich cuts a table it cannot fit, so a long key (a figure's name) must be able to wrap.
    """
    text = set(text) | {i for i in range(len(header)) if not any(c.isdigit() for row in rows for c in str(row[i]))}
    tables = []
    for g, group in enumerate(layout(header, rows, width, keys, text, units, _overhead)):
        table = Table(title=title if g == 0 else None, box=RICH_BOX, title_justify="left")
        for i, w in zip(group.columns, group.widths):
            # the widths hold every cell whole, so only a header (or free text) ever wraps
            table.add_column(Text(header[i]), width=w, justify="right" if i in right else "left", overflow="fold")
        for row in rows:
            # as Text, never markup: a swept rule set is named european[bar_entry=any], which rich would
            # take for a style tag and drop
            table.add_row(*(Text(str(row[i])) for i in group.columns))
        tables.append(table)
    return tables


def markdown_blocks(text: str) -> list[str | tuple[list[str], list[list[str]]]]:
    """Markdown split into runs of other Markdown (kept as text) and tables as ``(header, rows)`` of plain text.

    A cell's inline markup (code, emphasis) is dropped: the terminal shows its text.
    """
    parser = MarkdownIt("commonmark").enable("table")
    tokens = parser.parse(text)
    lines = text.split("\n")
    blocks: list = []
    taken = 0  # lines before this one are in a block already
    k = 0
    while k < len(tokens):
        token = tokens[k]
        if token.type != "table_open":
            k += 1
            continue
        start, end = token.map
        if start > taken:
            blocks.append("\n".join(lines[taken:start]))
        header: list[str] = []
        rows: list[list[str]] = []
        row: list[str] = []
        in_head = False
        while tokens[k].type != "table_close":
            t = tokens[k]
            if t.type == "thead_open":
                in_head = True
            elif t.type == "thead_close":
                in_head = False
            elif t.type == "tr_open":
                row = []
            elif t.type == "tr_close":
                if in_head:
                    header = row
                else:
                    rows.append(row)
            elif t.type == "inline":
                row.append("".join(c.content for c in t.children or [] if c.type in ("text", "code_inline")))
            k += 1
        blocks.append((header, rows))
        taken = end
    if taken < len(lines):
        rest = "\n".join(lines[taken:])
        if rest.strip():
            blocks.append(rest)
    return blocks
