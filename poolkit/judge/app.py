"""The Textual app behind ``poolkit judge``: one judging screen over a ``JudgingSession``.

Threads: the UI runs on the event loop's thread; everything the screen writes (grades and
the other events, the claim heartbeat, highlight terms, the take-over check) runs on one
*store thread* of its own (``in_store_thread``), one job after the other, so a heartbeat
never runs inside a grade's transaction and writes keep the order their keys came in. The
store handle gives each thread its own connection (``store.Store``: one per thread), so the
UI thread's reads and the store thread's writes never share a transaction either.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, TypeVar

from textual.app import App

from poolkit.config import JudgeConfig
from poolkit.errors import StoreError
from poolkit.judge.screens import JudgeScreen
from poolkit.judge.session import JudgingSession
from poolkit.keymap import DEFAULT_KEYS, key_names
from poolkit.store.claims import HEARTBEAT_EVERY, Claim
from poolkit.store.records import Event

T = TypeVar("T")


class JudgeApp(App[None]):
    CSS_PATH = "judge.tcss"
    TITLE = "poolkit judge"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, session: JudgingSession, judge: JudgeConfig | None = None,
                 show_names: bool = False, claim: Claim | None = None, *,
                 heartbeat_every: float = HEARTBEAT_EVERY,
                 clock: Callable[[], datetime] | None = None,
                 rubric: bool | None = None) -> None:
        """``heartbeat_every`` (seconds) and ``clock`` (the heartbeat's time) are there so
        tests can run many heartbeats in a short session; ``rubric`` opens the rubric panel
        or not (None: on the assessor's first session)."""
        super().__init__()
        self.session = session
        self.judge = judge or JudgeConfig()
        self.show_names = show_names
        self.claim = claim  # this session's hold on the assessor (renewed while open)
        self.heartbeat_every = heartbeat_every
        self.clock = clock
        self.rubric = rubric
        self.heartbeats = 0          # heartbeats renewed
        self.heartbeat_failures = 0  # heartbeats the store refused for now (tried again)
        self._beating = False
        #: Events the assessor quit without (the store could not be reached): the CLI says so.
        self.unsaved: list[Event] = []
        self._store_thread: ThreadPoolExecutor | None = None
        # The config's remaps, by binding id (every row of the action table has one).
        self.set_keymap({name: ",".join(key_names(keys))
                         for name, keys in self.judge.keys.items()
                         if keys != DEFAULT_KEYS.get(name)})

    async def in_store_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the app's one store thread (see the module docstring)."""
        if self._store_thread is None:
            self._store_thread = ThreadPoolExecutor(1, thread_name_prefix="poolkit-store")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._store_thread, functools.partial(fn, *args))

    def on_mount(self) -> None:
        if self.claim is not None:
            self.set_interval(self.heartbeat_every, self._heartbeat)

    def on_unmount(self) -> None:
        if self.session.chooser is not None:  # (order cal: its fitting process ends here)
            self.session.chooser.close()
        if self._store_thread is not None:
            # (the thread's own connection goes with it; the session's handle stays open)
            self._store_thread.submit(self.session.close_thread).result()
            self._store_thread.shutdown(wait=True)
            self._store_thread = None

    async def _heartbeat(self) -> None:
        """Renew the claim. A store that cannot be written just now (PostgreSQL restarting,
        another SQLite writer holding the lock past the wait) is said on screen and tried at
        the next beat; the session goes on (its claim expires only after CLAIM_TTL)."""
        claim = self.claim
        if claim is None or self._beating:  # (one beat at a time: a slow one is not queued)
            return
        self._beating = True
        try:
            now = self.clock() if self.clock is not None else None
            held = await self.in_store_thread(self.session.renew_claim, claim, now)
        except StoreError as exc:
            self.heartbeat_failures += 1
            self.judge_screen.say(f"heartbeat not renewed (tried again in "
                                  f"{self.heartbeat_every:g} s): {exc}", "warning")
            return
        finally:
            self._beating = False
        self.heartbeats += 1
        if not held:
            self.judge_screen.say("another session took over this assessor: grades here "
                                  "are refused", "error")

    def get_default_screen(self) -> JudgeScreen:
        return JudgeScreen(self.session, self.judge, self.show_names, self.rubric)

    @property
    def judge_screen(self) -> JudgeScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, JudgeScreen)
        return screen
