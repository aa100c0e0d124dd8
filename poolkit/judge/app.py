"""The Textual app behind ``poolkit judge``: one judging screen over a ``JudgingSession``."""

from __future__ import annotations

from textual.app import App

from poolkit.config import JudgeConfig
from poolkit.judge.screens import JudgeScreen
from poolkit.judge.session import JudgingSession


class JudgeApp(App[None]):
    CSS_PATH = "judge.tcss"
    TITLE = "poolkit judge"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, session: JudgingSession, judge: JudgeConfig | None = None,
                 show_names: bool = False) -> None:
        super().__init__()
        self.session = session
        self.judge = judge or JudgeConfig()
        self.show_names = show_names

    def get_default_screen(self) -> JudgeScreen:
        return JudgeScreen(self.session, self.judge, self.show_names)

    @property
    def judge_screen(self) -> JudgeScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, JudgeScreen)
        return screen
