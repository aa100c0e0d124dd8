"""The one text-table layout every report prints (score, pool, status, compare, ...).

``table(headers, rows, align=...)``: columns two spaces apart, each left- or right-aligned
per ``align`` ('l'/'r' per column, the last letter repeating), trailing spaces stripped.
With ``width``, columns past it wrap into further blocks that repeat the first column. A row
given as a plain string is printed as is (a note inside the table).

``wrap(text)``: a sentence as lines of at most 80 columns (a report's default width), each
line after the first indented two more spaces than the first.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

#: the width of the reports' default tables: an 80-column terminal
WIDTH = 80

Row = Sequence[str] | str


def table(headers: Sequence[str], rows: Sequence[Row], align: str = "lr", indent: int = 0,
          width: int | None = None) -> list[str]:
    """The table's lines (see the module docstring)."""
    cells = [r for r in rows if not isinstance(r, str)]
    n = len(headers)
    widths = [max([len(headers[i]), *(len(r[i]) for r in cells)]) for i in range(n)]
    align = (align + align[-1] * n)[:n]
    blocks: list[list[int]] = []
    current: list[int] = []
    used = indent + widths[0]
    for i in range(1, n):
        if width is not None and current and used + 2 + widths[i] > width:
            blocks.append(current)
            current, used = [], indent + widths[0]
        current.append(i)
        used += 2 + widths[i]
    blocks.append(current)
    pad = " " * indent

    def cell(text: str, i: int) -> str:
        return text.ljust(widths[i]) if align[i] == "l" else text.rjust(widths[i])

    out: list[str] = []
    for b, cols in enumerate(blocks):
        if b:
            out.append("")

        def line(r: Sequence[str], cols: list[int] = cols) -> str:
            return (pad + cell(r[0], 0) + "".join("  " + cell(r[i], i) for i in cols)).rstrip()

        out.append(line(headers))
        out.extend(pad + r if isinstance(r, str) else line(r) for r in rows)
    return out


def wrap(text: str, indent: str = "", more: str | None = None,
         width: int = WIDTH) -> list[str]:
    """``text`` as lines of at most ``width`` columns: the first starts with ``indent``, the
    others with ``more`` (default: two spaces more than ``indent``); a word longer than a
    line is left whole."""
    return textwrap.wrap(text, width, initial_indent=indent,
                         subsequent_indent=indent + "  " if more is None else more,
                         break_on_hyphens=False, break_long_words=False)


def wrapped(text: str, indent: str = "") -> str:
    """:func:`wrap`'s lines as text, each newline-terminated."""
    return "".join(f"{line}\n" for line in wrap(text, indent))
