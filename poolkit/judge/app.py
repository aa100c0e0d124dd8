"""The Textual app behind ``poolkit judge``: one judging screen over a ``JudgingSession``."""

from __future__ import annotations

import asyncio

from textual.app import App

from poolkit.config import JudgeConfig
from poolkit.judge.screens import JudgeScreen
from poolkit.judge.session import JudgingSession
from poolkit.keymap import DEFAULT_KEYS, key_names
from poolkit.store.claims import HEARTBEAT_EVERY, Claim, renew


class JudgeApp(App[None]):
    CSS_PATH = "judge.tcss"
    TITLE = "poolkit judge"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, session: JudgingSession, judge: JudgeConfig | None = None,
                 show_names: bool = False, claim: Claim | None = None) -> None:
        super().__init__()
        self.session = session
        self.judge = judge or JudgeConfig()
        self.show_names = show_names
        self.claim = claim  # this session's hold on the assessor (renewed while open)
        # The config's remaps, by binding id (every row of the action table has one).
        self.set_keymap({name: ",".join(key_names(keys))
                         for name, keys in self.judge.keys.items()
                         if keys != DEFAULT_KEYS.get(name)})

    def on_mount(self) -> None:
        if self.claim is not None:
            self.set_interval(HEARTBEAT_EVERY, self._heartbeat)

    async def _heartbeat(self) -> None:
        claim = self.claim
        if claim is None:
            return
        if not await asyncio.to_thread(renew, self.session.store, claim):
            self.judge_screen.say("another session took over this assessor: grades here "
                                  "are refused", "error")

    def get_default_screen(self) -> JudgeScreen:
        return JudgeScreen(self.session, self.judge, self.show_names)

    @property
    def judge_screen(self) -> JudgeScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, JudgeScreen)
        return screen
