"""The can't-judge dialog: why this assessor cannot grade the passage, chosen from a short
list (its key or Enter) or typed. The reason is the ``cant_judge`` event's note.

A module of its own, beside ``dialogs``, so the judging screen's other dialogs are untouched.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

#: The reasons offered, in order (keys 1, 2, 3...); the last option lets one be typed.
REASONS = ("not my language", "broken text", "unclear topic")
OTHER = "something else (type it)"
TITLE = "Can't judge this passage: why? (1-3 or Enter picks, Escape cancels)"


class CantJudgeScreen(ModalScreen[str | None]):
    """Dismisses with the chosen or typed reason, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "cancel"),
                *(Binding(str(i), f"choose({i - 1})", show=False)
                  for i in range(1, len(REASONS) + 1))]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog prompt-box"):
            yield Static(TITLE, classes="dialog-title")
            yield OptionList(*(Option(f"{i}  {r}", id=str(i - 1))
                               for i, r in enumerate(REASONS, 1)),
                             Option(OTHER, id="other"), id="cant-list")
            yield Input(placeholder="the reason, then Enter", id="cant-input")

    def on_mount(self) -> None:
        self.query_one("#cant-input", Input).display = False
        self.query_one(OptionList).focus()

    def action_choose(self, index: int) -> None:
        if not self.query_one("#cant-input", Input).display:
            self.dismiss(REASONS[index])

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        if message.option.id == "other":
            box = self.query_one("#cant-input", Input)
            box.display = True
            box.focus()
            return
        self.dismiss(REASONS[int(message.option.id or 0)])

    def on_input_submitted(self, message: Input.Submitted) -> None:
        if message.value.strip():
            self.dismiss(message.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
