"""The lead's dashboard: ``poolkit status CONFIG --watch`` on a terminal.

One screen that fits the terminal: the team block (a row per assessor) at the top, redrawn
every ``seconds`` by a timer; the per-query table (460 rows on DL19) only on demand (``p``),
in a scrolling pane below it. The screen draws text it is given: ``draw(width)`` returns
(team block, per-query table) as of now, so the figures stay the status report's
(``poolkit.app.status_board``) and this module knows nothing of the store.

``draw`` runs on one reader thread of the app's (a status read takes most of a second on
DL19): the screen and its keys stay live while the store is read. ``close`` runs on that
thread when the app ends (the thread's own store connection).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer, VerticalScroll
from textual.timer import Timer
from textual.widgets import Footer, Static

Draw = Callable[[int], tuple[str, str]]


class DashboardApp(App[None]):
    """The team block, refreshed on a timer; per-query rows toggled by ``p``."""

    CSS = """
    #team { height: auto; max-height: 100%; padding: 0 1; }
    #queries { height: 1fr; display: none; border-top: solid $accent; padding: 0 1; }
    #queries.shown { display: block; }
    #team.half { max-height: 50%; }
    #query-rows { width: auto; }
    """
    BINDINGS = [Binding("p", "toggle_queries", "per-query rows"),
                Binding("r", "refresh_now", "refresh now"),
                Binding("q", "quit", "quit")]

    def __init__(self, draw: Draw, seconds: float,
                 close: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.draw, self.seconds, self.close = draw, seconds, close
        self.timer: Timer | None = None
        self.ticks = 0
        self.drawn_width = 0
        self._reader: ThreadPoolExecutor | None = None
        self._reading = False

    def compose(self) -> ComposeResult:
        yield VerticalScroll(Static(id="team-text"), id="team")
        yield ScrollableContainer(Static(id="query-rows"), id="queries")
        yield Footer()

    async def on_mount(self) -> None:
        self.title = "poolkit status --watch"
        self.timer = self.set_interval(self.seconds, self.tick, name="dashboard refresh")
        await self.tick()

    def on_unmount(self) -> None:
        if self._reader is not None:
            if self.close is not None:
                self._reader.submit(self.close).result()
            self._reader.shutdown(wait=True)
            self._reader = None

    async def tick(self) -> None:
        """Read the report again and redraw (the timer's callback, and ``r``); a tick that
        comes while the last one still reads is dropped, not queued."""
        if self._reading:
            return
        self._reading = True
        try:
            self.drawn_width = self.size.width
            if self._reader is None:
                self._reader = ThreadPoolExecutor(1, thread_name_prefix="poolkit-dashboard")
            team, queries = await asyncio.get_running_loop().run_in_executor(
                self._reader, self.draw, max(self.size.width - 2, 40))
        finally:
            self._reading = False
        self.query_one("#team-text", Static).update(Text(team, no_wrap=True))
        self.query_one("#query-rows", Static).update(Text(queries, no_wrap=True))
        self.ticks += 1

    async def on_resize(self) -> None:
        """A new width lays the table out again (a new height needs nothing: it scrolls)."""
        if self.ticks and self.size.width != self.drawn_width:
            await self.tick()

    def action_toggle_queries(self) -> None:
        self.query_one("#queries").toggle_class("shown")
        self.query_one("#team").toggle_class("half")

    async def action_refresh_now(self) -> None:
        await self.tick()
