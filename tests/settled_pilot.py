"""Drive a Textual app in a test by waiting for its state, not for Textual's idle polls.

Textual's ``Pilot.press`` waits twice per key until the process *looks* idle
(``textual._wait.wait_for_idle``: 20 ms sleeps until the CPU clock stops advancing), and
``Pilot.pause`` once more: at least 40 ms asleep per key, however quickly the app handled it.
That sleep was half the wall time of the judging screen's tests. ``drive(app)`` is
``app.run_test()`` with a pilot whose ``press`` and ``pause`` return once the app has done
everything a key asked of it (``settle``):

- every message pump of the app (the app, each screen, each widget) has handled all it was
  sent: a callback sent to each has run (as in Textual's own ``Pilot._wait_for_screen``),
  and, while those ran, no pump handled any other message (``run_test``'s public
  ``message_hook`` counts them). A handler that awaits the store thread holds its pump, so a
  grade is committed when ``press`` returns, as with Textual's pilot;
- each screen on view (the current one and any showing through under it) has done its due
  layout, scroll and repaint (what its update timer would do on the next tick, and what
  ``Pilot.pause`` does too), and the callbacks waiting for that (``call_after_refresh``);
- no animation is running.

Only ``LIMIT`` is a time: it stops a run that never settles, with a message. Textual has
no public "has the app handled everything" check, so this reads a few private attributes
(the screen's refresh flags, the app's registry of widgets); a Textual release that renames
them fails these tests loudly, it cannot make them pass wrongly.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from textual import events
from textual.app import App
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.message import Message
from textual.message_pump import MessagePump
from textual.pilot import Pilot
from textual.screen import Screen

#: Seconds after which an app that never settles fails the test (a hung run, not a timing).
LIMIT = 60.0


def key_event(key: str) -> events.Key:
    """The event Textual's pilot sends for ``key`` ("2", "slash", "?", "ctrl+s", ...)."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char: str | None = unicodedata.lookup(
            _get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


def _back(pending: set[MessagePump], done: asyncio.Event, pump: MessagePump) -> None:
    """The barrier's callback: ``pump`` has come back to its queue."""
    pending.discard(pump)
    if not pending:
        done.set()


class Messages:
    """``run_test``'s message hook: counts the messages the app's pumps handle, the
    barrier's own callbacks apart."""

    def __init__(self) -> None:
        self.handled = 0

    def __call__(self, message: Message) -> None:
        if not (isinstance(message, events.Callback) and isinstance(message.callback, partial)
                and message.callback.func is _back):
            self.handled += 1


def _pumps(app: App[Any]) -> list[MessagePump]:
    return [p for p in (app, *app._registry) if not (p._closing or p._closed)]


def _frames_due(app: App[Any]) -> list[Screen[Any]]:
    """The screens on view with an update due: layout, scrolling or after-refresh callbacks
    waiting for their update timer, or for the current screen a repaint too (a screen
    showing through under it asks that screen to repaint, and marks itself for a repaint
    again each time: only what changes its state is waited for)."""
    if app._batch_count:
        return []
    try:
        screen, under = app.screen, app._background_screens
    except Exception:  # no screen: the app is closing
        return []

    def due(s: Screen[Any], repaint: bool) -> bool:
        return bool(s._layout_required or s._scroll_required or s._recompose_required
                    or s._callbacks or (repaint and (s._repaint_required or s._dirty_widgets)))

    return [s for s in (screen, *under) if s.is_current and due(s, repaint=s is screen)]


async def _until(app: App[Any], waits: list[Any], what: str, deadline: float) -> None:
    """Wait until one of ``waits`` is done (a pump's task ends when it closes) or the app
    has failed; only the waits made here are cancelled."""
    loop = asyncio.get_running_loop()
    mine = [asyncio.ensure_future(w) for w in (*waits, app._exception_event.wait())
            if not isinstance(w, asyncio.Task)]
    theirs = [w for w in waits if isinstance(w, asyncio.Task)]
    done, _ = await asyncio.wait(mine + theirs, timeout=max(0.0, deadline - loop.time()),
                                 return_when=asyncio.FIRST_COMPLETED)
    for task in mine:
        task.cancel()
    assert done, f"the app never settled: {what}"


async def _barrier(app: App[Any], deadline: float) -> None:
    """Send each live pump a callback and wait until all have run: every pump has finished
    what it had in hand and in its queue when this was called."""
    pending: set[MessagePump] = set()
    done = asyncio.Event()
    for pump in _pumps(app):
        if pump.call_later(_back, pending, done, pump):
            pending.add(pump)
    while pending and not app._exception_event.is_set():
        # a pump that closes before its turn never runs the callback: wait no more for it
        pending.intersection_update(_pumps(app))
        if not pending:
            return
        done.clear()
        await _until(app, [done.wait(), *(p._task for p in pending if p._task)],
                     f"{len(pending)} pump(s) still working, e.g. {next(iter(pending))!r}",
                     deadline)


async def settle(app: App[Any], messages: Messages) -> None:
    """Return once ``app`` has handled everything it was sent (see the module docstring)."""
    deadline = asyncio.get_running_loop().time() + LIMIT
    while not app._exception_event.is_set():
        assert asyncio.get_running_loop().time() < deadline, (
            f"the app never settled: still handling messages or drawing {_frames_due(app)}")
        handled = messages.handled
        await _barrier(app, deadline)
        if messages.handled != handled or any(p._message_queue.qsize() for p in _pumps(app)):
            continue  # still handling: draw once it is all handled, as the timer would
        if due := _frames_due(app):
            for screen in due:
                screen._on_timer_update()  # the update its timer would do next
        elif not app.animator._complete_event.is_set():
            await _until(app, [app.animator.wait_until_complete()], "an animation", deadline)
        else:
            return


class SettledPilot(Pilot[Any]):
    """``Pilot`` whose ``press`` and ``pause`` wait for ``settle``, not for an idle CPU."""

    def __init__(self, app: App[Any], messages: Messages) -> None:
        super().__init__(app)
        self.messages = messages

    async def settle(self) -> None:
        await settle(self.app, self.messages)

    async def press(self, *keys: str) -> None:
        """Each key as Textual's pilot sends it; the next once the app has settled."""
        for key in keys:
            event = key_event(key)
            event.set_sender(self.app)
            self.app.post_message(event)
            await self.settle()

    async def pause(self, delay: float | None = None) -> None:
        if delay is not None:
            await asyncio.sleep(delay)  # a time the test itself asks for
        await self.settle()


@asynccontextmanager
async def drive(app: App[Any], **run_test: Any) -> AsyncIterator[SettledPilot]:
    """``app.run_test(**run_test)`` with a ``SettledPilot``, entered once the app has
    settled."""
    messages = Messages()
    async with app.run_test(message_hook=messages, **run_test):
        pilot = SettledPilot(app, messages)
        await pilot.settle()
        yield pilot
