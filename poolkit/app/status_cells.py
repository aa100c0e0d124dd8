"""The cells of each assessor's figures, as the lead's dashboard (``status_board``) and
``status``'s table (``assessor_block``) draw them from the status report's document
(``StatusReport.to_dict``: the JSON's ``assessors.NAME.*``): one cell function per figure,
so the two never word a figure differently. Below both: ``status`` imports this module, and
the dashboard imports ``status``.

Every column is one entry of ``COLUMNS`` (a header, its alignment, the cell of one
assessor's figures): a new figure is one more entry. A figure the report does not have yet
(``gold`` before any gold check) is ``–``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from poolkit.tables import table

NONE = "–"
#: the pace trend's arrows: more seconds per grade, fewer, about the same
ARROWS = {"slower": "↑", "faster": "↓", "steady": "→"}


def duration(seconds: float | None) -> str:
    """``45s``, ``12m``, ``3h05m``, ``2d04h``: short enough for a column."""
    if seconds is None:
        return NONE
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def kappa_cell(agreement: Mapping[str, Any] | None) -> str:
    """``0.62 (40)``: kappa and how many pairs it stands on; ``–`` without a kappa."""
    if not agreement or agreement.get("kappa") is None:
        return NONE
    return f"{agreement['kappa']:.2f} ({agreement['n']})"


def _assigned(c: Mapping[str, Any]) -> str:
    return NONE if c.get("assigned") is None else f"{c['assigned_judged']}/{c['assigned']}"


def _pace(c: Mapping[str, Any]) -> str:
    return NONE if c.get("pace_median_s") is None else f"{c['pace_median_s']:.1f}"


def _trend(c: Mapping[str, Any]) -> str:
    t = c.get("pace_trend")
    return NONE if not t else f"{ARROWS[t['direction']]} {t['last_s']:.1f}"


def _shares(c: Mapping[str, Any]) -> str:
    share = c.get("grade_share")
    return NONE if not share else "/".join(f"{round(v * 100)}" for v in share.values())


Cell = Callable[[Mapping[str, Any]], str]
#: the dashboard's columns, in order: (header, 'l' or 'r', cell)
COLUMNS: list[tuple[str, str, Cell]] = [
    ("today", "r", lambda c: str(c.get("judged_today", 0))),
    ("judged", "r", lambda c: str(c["judged"])),
    ("assigned", "r", _assigned),
    ("med s", "r", _pace),
    ("trend", "r", _trend),
    ("active", "r", lambda c: duration(c.get("active_s"))),
    ("away", "r", lambda c: duration(c.get("away_s"))),
    ("peers κ", "r", lambda c: kappa_cell(c.get("peers"))),
    ("gold κ", "r", lambda c: kappa_cell(c.get("gold"))),
    ("grades %", "r", _shares),
    ("last", "r", lambda c: duration(c.get("since_last_s"))),  # see _as_of
    ("flags", "l", lambda c: ",".join(c.get("flags") or ())),
]


#: the status table's per-assessor block (``assessor_block``; not the watch, not the JSON):
#: the figures a lead reads first, each drawn by its dashboard column, and can't-judge events
#: (``_CANT``), which the board leaves to the JSON
BLOCK = ("judged", "assigned", "can't", "med s", "active", "peers κ", "gold κ", "flags")
_CANT: tuple[str, str, Cell] = ("can't", "r", lambda c: str(c.get("cant_judge", 0)))


def assessor_block(doc: Mapping[str, Any]) -> list[str]:
    """A row per assessor of ``BLOCK``'s columns, from the status report's document (the
    same cells as the board's: nothing is computed again)."""
    columns = {h: (a, cell) for h, a, cell in (*COLUMNS, _CANT)}
    rows = [(name, *(columns[h][1](c) for h in BLOCK)) for name, c in doc["assessors"].items()]
    return table(("assessor", *BLOCK), rows, align="l" + "".join(columns[h][0] for h in BLOCK))
