"""The lead's dashboard (``poolkit status CONFIG --watch``): the status report's per-assessor
figures as one table that fits the terminal, redrawn on a timer.

On a terminal it is a Textual screen (``poolkit.judge.dashboard``: per-query rows on a key);
piped, each frame is the same table as text, cut to the terminal's size (``COLUMNS`` and
``LINES``, else 80x24). Both draw what ``status`` computed (``StatusReport.to_dict``): the
figures are the JSON's ``assessors.NAME.*``; nothing is computed twice.

Its columns are ``status_cells.COLUMNS`` (one cell function per figure, which ``status``'s
table uses too).
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from poolkit.app.status_cells import COLUMNS
from poolkit.errors import StoreUnavailable
from poolkit.io.paths import shown_path
from poolkit.store.records import moment_of
from poolkit.tables import table

if TYPE_CHECKING:
    from poolkit.collection import Collection

#: the rules behind the figures, said under the table
LEGEND = ("today: grades since midnight; trend: median s of the last 20 grades against the 20 "
          "before (↑ slower, ↓ faster by over 20%); away: time on screen past 5 min per grade; "
          "lenient/harsh: share of the top grade over 2x / under half the others' (20+ "
          "grades each); fast: median under 1 s")


def _as_of(c: Mapping[str, Any], now: datetime | None) -> Mapping[str, Any]:
    """An assessor's figures with the seconds from her last grade to ``now`` (the report
    keeps the time of it, so that it does not change from call to call)."""
    at = c.get("last_grade_at")
    if at is None or now is None:
        return c
    then = moment_of(at)
    if then is None:
        return c
    if now.tzinfo is None:  # a naive clock is local time
        now = now.astimezone()
    return {**c, "since_last_s": max(0.0, (now - then).total_seconds())}


def team_table(doc: Mapping[str, Any], width: int, now: datetime | None = None) -> list[str]:
    """One row per assessor, every column of ``COLUMNS``, as of ``now``; columns past
    ``width`` wrap into a second block (the assessor column repeated), so nothing is cut."""
    head = ("assessor", *(h for h, _, _ in COLUMNS))
    align = "l" + "".join(a for _, a, _ in COLUMNS)
    rows = [(name, *(cell(_as_of(c, now)) for _, _, cell in COLUMNS))
            for name, c in doc["assessors"].items()]
    return table(head, rows, align=align, width=width)


def title(doc: Mapping[str, Any]) -> str:
    """Judged of pooled, the pool version, the assignment plan if any, and the store (last:
    a long path wraps without splitting the figures)."""
    plan = doc.get("assignment")
    return (f"judged {doc['judged']}/{doc['pooled']} · pool v{doc['pool_version']} · "
            f"{len(doc['queries'])} queries"
            + (f" · plan {plan['plan']}: overlap {plan['overlap']} by {plan['unit']}"
               if plan else "") + f" · store {shown_path(doc['store'])}")


def board_lines(doc: Mapping[str, Any], width: int, height: int | None = None,
                now: datetime | None = None) -> list[str]:
    """The dashboard as text as of ``now``: title, the team table, the rules it applies; cut
    to ``height`` lines (what is cut is said on the last one)."""
    lines = [*textwrap.wrap(title(doc), width, break_on_hyphens=False), "",
             *(team_table(doc, width, now) if doc["assessors"] else ["nobody has judged yet"]),
             "", *textwrap.wrap(LEGEND, width)]
    if height is not None and len(lines) > height:
        cut = len(lines) - height + 1
        lines = [*lines[:height - 1],
                 f"… {cut} more line(s): poolkit status --format json has every figure"[:width]]
    return lines


def board_draw(collection: Collection, pool_version: int | None,
               clock: Callable[[], datetime]) -> Callable[[int], tuple[str, str]]:
    """What the Textual dashboard calls on each tick: (the team block, the per-query table),
    as of ``clock()``."""
    from poolkit.app.status import render_table, status

    def draw(width: int) -> tuple[str, str]:
        now = clock()
        try:
            report = status(collection, pool_version, now)
        except StoreUnavailable as exc:  # a server restarting: say so, read at the next tick
            return f"store unreachable: {exc} (trying again)", ""
        doc = report.to_dict()
        stamp = f"as of {now.strftime('%H:%M:%S')}"
        # (the title says the store; the team's figures are the board's own)
        per_query = render_table(doc, report.top, team=False).split("\n", 1)[1]
        return "\n".join([stamp, *board_lines(doc, width, now=now)]), per_query

    return draw


def live(collection: Collection, pool_version: int | None, seconds: float, fmt: str,
         clock: Callable[[], datetime] = datetime.now, terminal: bool | None = None,
         size: Callable[[], tuple[int, int]] | None = None, **frames: Any) -> None:
    """``status --watch``: on a terminal (and with the ``judge`` extra) the Textual
    dashboard; else a frame every ``seconds``: the board cut to the terminal's size, or, with
    ``--format json``, the whole report. ``frames`` go to ``watch`` (``refreshes``,
    ``sleep``, ``out``: a test's)."""
    import shutil

    from poolkit.app.status import status, watch

    if terminal is None:  # (a browser's screen, under the web driver, is one too)
        from poolkit.app.screen import web_driver

        terminal = sys.stdout.isatty() or web_driver()
    if terminal and fmt == "table":
        try:
            from poolkit.judge.dashboard import DashboardApp
        except ImportError:  # no Textual: the text frames below
            pass
        else:
            DashboardApp(board_draw(collection, pool_version, clock), seconds,
                         close=collection.store.close_thread).run()
            return

    def measure() -> tuple[int, int]:
        if size is not None:
            return size()
        got = shutil.get_terminal_size()
        return got.columns, got.lines

    def frame() -> str:
        now = clock()
        report = status(collection, pool_version, now)
        if fmt != "table":
            return report.render(fmt)
        width, height = measure()
        return "\n".join(board_lines(report.to_dict(), width, height - 1, now)) + "\n"

    watch(frame, seconds, clock=clock, **frames)
