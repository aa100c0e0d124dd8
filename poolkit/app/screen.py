"""Whether a screen is drawn for a browser (Textual's web driver, ``poolkit serve``), and
how a command says something there that it would print on a terminal."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from poolkit.errors import PoolkitError, tell

#: what ``poolkit serve`` (and textual-serve) set in a session's environment
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def web_driver() -> bool:
    """Whether this process draws for a browser: its input arrives framed (a key is a
    packet, not a byte a pipe could carry), so it needs no terminal."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def show_message(title: str, text: str) -> None:
    """``text`` on a screen of its own until the user closes it (a browser has no stderr)."""
    from poolkit.judge.message import MessageApp

    MessageApp(title, text).run()


def say(title: str, text: str) -> None:
    """``text`` on stderr, and in the screen too under the web driver."""
    tell(f"{title}: {text}")
    if web_driver():
        show_message(title, text)


@contextmanager
def errors_in_screen(title: str) -> Iterator[None]:
    """A PoolkitError raised inside is drawn in the browser too under the web driver (which
    has no stderr: the tab would show its splash forever), then raised as always."""
    try:
        yield
    except PoolkitError as exc:
        if web_driver():
            show_message(title, str(exc))
        raise
