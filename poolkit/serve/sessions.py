"""The live sessions of one server: one per assessor and screen, at most ``limit`` in all.

A session is a browser tab's screen process. The registry decides who may open one: the
same assessor opening the same screen again takes over (the old tab's screen closes
first, so its claim on the store is released before the new one claims; the old tab is
told why), and past ``limit`` a new one is refused. Every way a session ends (the tab
closed, taken over, the server stopping) goes through ``ScreenProcess.stop``: nothing the
screen acknowledged is lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from poolkit.serve.bridge import ScreenProcess

#: why a tab's session ended, as the tab says it
TAKEN_OVER = ("this session was closed: {name} opened the screen in another tab or browser "
              "(one live session per assessor)")
STOPPING = "this session was closed: the server is stopping"


class Full(Exception):
    """Every session the server allows is open."""


@dataclass(eq=False)
class Session:
    """A tab's screen: ``end(reason)`` tells the tab why it closed and closes it."""

    user: str
    screen: str  # "judge" or "status"
    process: ScreenProcess
    end: Callable[[str], Awaitable[None]]
    closing: asyncio.Event = field(default_factory=asyncio.Event)

    async def close(self, reason: str | None) -> int:
        """Stop the screen (waiting for it), then tell the tab ``reason`` if any."""
        self.closing.set()
        status = await self.process.stop()
        if reason is not None:
            await self.end(reason)
        return status


class Registry:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.live: dict[tuple[str, str], Session] = {}
        self.stopping = False
        self._lock = asyncio.Lock()  # one opening or closing decision at a time
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}  # one per assessor and screen

    def full_for(self, user: str, screen: str) -> bool:
        """Whether a new tab of ``user`` would be refused (its own session is taken over)."""
        return (user, screen) not in self.live and len(self.live) >= self.limit

    async def open(self, session: Session) -> None:
        """Register ``session`` and start its process, after closing the one it takes over;
        ``Full`` when the server has no room (or a newer tab took over before it started).
        The registry's lock is held for the bookkeeping only; closing the old screen and
        starting the new one hold the assessor's own lock, so others' tabs never wait."""
        key = (session.user, session.screen)
        async with self._lock:
            if self.stopping:
                raise Full(STOPPING)
            old = self.live.pop(key, None)
            if old is None and len(self.live) >= self.limit:
                raise Full(f"the server already runs its {self.limit} sessions (--max-sessions)"
                           f"; try again when someone closes theirs")
            self.live[key] = session
            mine = self._locks.setdefault(key, asyncio.Lock())
        async with mine:
            if old is not None:
                await old.close(TAKEN_OVER.format(name=session.user))
            if session.closing.is_set():
                raise Full(TAKEN_OVER.format(name=session.user))
            await session.process.start()
            if session.closing.is_set():  # closed while it started: its closer missed it
                await session.process.stop()

    async def close(self, session: Session, reason: str | None = None) -> None:
        """End ``session`` (a closed tab: no reason to tell) unless already ended."""
        async with self._lock:
            if self.live.get((session.user, session.screen)) is session:
                del self.live[(session.user, session.screen)]
        if not session.closing.is_set():
            await session.close(reason)

    async def close_all(self) -> None:
        """The server stops: every screen closes as ``q`` would, all at once."""
        async with self._lock:
            self.stopping = True
            sessions = list(self.live.values())
            self.live.clear()
        await asyncio.gather(*(s.close(STOPPING) for s in sessions if not s.closing.is_set()))
