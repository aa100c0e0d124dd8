"""The lead's dashboard: ``poolkit status CONFIG --watch`` on a terminal.

One screen that fits the terminal: the team block (a row per assessor) at the top, redrawn
every ``seconds`` by a timer; the per-query table (460 rows on DL19) only on demand (``p``),
in a scrolling pane below it. The screen draws text it is given: ``draw(width)`` returns
(team block, per-query table) as of now, so the figures stay the status report's
(``poolkit.app.status_board``) and this module knows nothing of the store.
"""

from __future__ import annotations

from collections.abc import Callable

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

    def __init__(self, draw: Draw, seconds: float) -> None:
        super().__init__()
        self.draw = draw
        self.seconds = seconds
        self.timer: Timer | None = None
        self.ticks = 0
        self.drawn_width = 0

    def compose(self) -> ComposeResult:
        yield VerticalScroll(Static(id="team-text"), id="team")
        yield ScrollableContainer(Static(id="query-rows"), id="queries")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "poolkit status --watch"
        self.timer = self.set_interval(self.seconds, self.tick, name="dashboard refresh")
        self.tick()

    def tick(self) -> None:
        """Read the report again and redraw (the timer's callback, and ``r``)."""
        self.drawn_width = self.size.width
        team, queries = self.draw(max(self.size.width - 2, 40))
        self.query_one("#team-text", Static).update(Text(team, no_wrap=True))
        self.query_one("#query-rows", Static).update(Text(queries, no_wrap=True))
        self.ticks += 1

    def on_resize(self) -> None:
        """A new width lays the table out again (a new height needs nothing: it scrolls)."""
        if self.ticks and self.size.width != self.drawn_width:
            self.tick()

    def action_toggle_queries(self) -> None:
        self.query_one("#queries").toggle_class("shown")
        self.query_one("#team").toggle_class("half")

    def action_refresh_now(self) -> None:
        self.tick()
