"""A screen that says one thing: what kept a served session from opening.

In a terminal, an error before the judging screen opens is one line on stderr. Under
Textual's web driver (``poolkit serve``) stderr reaches no one: the browser would show its
splash forever. So the error is drawn in the browser instead, until the tab is closed or
``q`` pressed.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Header, Static


class MessageApp(App[None]):
    """``text`` in the middle of the screen; ``q`` ends the session."""

    CSS = """
    Screen { align: center middle; }
    #message { width: 80%; height: auto; border: heavy $error; padding: 1 2; }
    """
    BINDINGS = [Binding("q", "quit", "close")]
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.heading, self.text = title, text

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text(self.text), id="message")
        yield Footer()

    def on_mount(self) -> None:
        self.title = self.heading
