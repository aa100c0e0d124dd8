"""The one text-table layout every report prints (score, pool, status, compare, ...).

``table(headers, rows, align=...)``: columns two spaces apart, each left- or right-aligned
per ``align`` ('l'/'r' per column, the last letter repeating), trailing spaces stripped.
With ``width``, columns past it wrap into further blocks that repeat the first column. A row
given as a plain string is printed as is (a note inside the table).
"""

from __future__ import annotations

from collections.abc import Sequence

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
