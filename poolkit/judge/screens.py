"""The judging screen and its dialogs (note, jump to query, guidelines).

Every grading key runs one action: build the event, write it to the store in a worker thread
(the UI keeps drawing; keys typed meanwhile wait their turn in order), then show the next
passage. A failed write shows an error and keeps the passage on screen: nothing is lost
silently and nothing advances unsaved.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Mapping
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from poolkit.config import JudgeConfig
from poolkit.errors import PoolkitError
from poolkit.judge.session import JudgingSession
from poolkit.judge.widgets import (
    all_done_text,
    binding_key,
    clip,
    disagreement_text,
    grade_bar,
    key_bar,
    key_label,
    passage_head,
    passage_text,
    progress_text,
    query_text,
    title_text,
)
from poolkit.store.store import Event, QueryRecord

# config action -> screen action
ACTIONS: Mapping[str, str] = {
    **{f"grade_{g}": f"grade({g})" for g in range(4)},
    "undo": "undo", "skip": "skip", "note": "note", "back": "back", "jump": "jump",
    "guidelines": "guidelines", "quit": "quit",
}


QUERY_LINES = 6  # the query block's max-height in judge.tcss


class Fitted(Static):
    """Text made for the widget's width and made again whenever that changes (key hints
    that wrap between hints, never inside one; a query cut with a note that it was)."""

    def __init__(self, make: Callable[[int | None], Text], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._make = make

    def show(self, make: Callable[[int | None], Text]) -> None:
        self._make = make
        self.update(make(self.content_size.width or None))

    def on_resize(self) -> None:
        self.update(self._make(self.content_size.width or None))
        # The update lands inside the layout pass that resized us, which does not run again
        # for a height that changed with the new text: ask for one more.
        self.call_after_refresh(self.refresh, layout=True)


class JudgeScreen(Screen[None]):
    def __init__(self, session: JudgingSession, judge: JudgeConfig,
                 show_names: bool = False) -> None:
        super().__init__()
        self.session, self.judge, self.show_names = session, judge, show_names
        # Priority bindings run as the app receives the key, before focus routing: a key is
        # acted on (and its event committed) in arrival order, and no widget can swallow it.
        # They apply only while this screen is on top (dialogs have their own keys).
        for action, key in judge.keys.items():
            self._bindings.bind(binding_key(key), ACTIONS[action], description=action,
                                show=False, priority=True)
        self.painted = 0            # passages drawn (benchmarks wait on this)
        self.painted_at = 0.0       # perf_counter() when the last one was drawn
        self._shown: object = None

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Fitted(lambda width: Text(), id="query")
        yield Static(id="head")
        with VerticalScroll(id="passage-box"):
            yield Static(id="passage")
        yield Static(id="dispute")
        yield Fitted(lambda width: Text(), id="grades")
        yield Static(id="progress")
        yield Fitted(lambda width: key_bar(self.judge.keys, width), id="keys")

    def on_mount(self) -> None:
        self.query_one("#dispute").display = self.session.mode == "adjudicate"
        self.refresh_view()
        self.query_one("#passage-box").focus()

    # -- drawing --------------------------------------------------------------------------
    def refresh_view(self) -> None:
        s, grades = self.session, self.judge.grades
        item = s.current
        query = s.query(item.qid) if item else None
        self.query_one("#title", Static).update(title_text(s))
        help_key = key_label(self.judge.keys["guidelines"])
        more = f"… the whole query is with the guidelines ({help_key})"
        shown = query_text(query) if query else Text()
        self.query_one("#query", Fitted).show(
            lambda width: clip(shown, width, QUERY_LINES, more))
        sources = s.sources(item) if item and not self.judge.blind else ()
        self.query_one("#head", Static).update(passage_head(s, item, grades, sources))
        passage = self.query_one("#passage", Static)
        if item is not None and query is not None:
            title, body = s.text(item)
            passage.update(passage_text(query.text, title, body))
        else:
            passage.update(all_done_text(self.judge.keys))
        if item != self._shown:
            self.query_one("#passage-box", VerticalScroll).scroll_home(animate=False)
            self._shown = item
        if s.mode == "adjudicate":
            dispute = self.query_one("#dispute", Static)
            if item is not None:
                notes = [(e.assessor, e.note or "") for e in s.notes.get(item.pair, ())]
                dispute.update(disagreement_text(s.votes.get(item.pair, {}), grades,
                                                 self.show_names, notes))
            else:
                dispute.update("")
        current = s.grade_of(item) if item else None
        self.query_one("#grades", Fitted).show(
            lambda width: grade_bar(self.judge.keys, grades, current, width))
        self.query_one("#progress", Static).update(progress_text(s.progress()))
        self.call_after_refresh(self._painted)

    def _painted(self) -> None:
        self._scroll_hint()
        self.painted += 1
        self.painted_at = time.perf_counter()

    def _scroll_hint(self) -> None:
        """Name the scrolling keys on the passage's border when there is more to read."""
        box = self.query_one("#passage-box", VerticalScroll)
        box.border_subtitle = "↑↓ PgUp PgDn scroll" if box.max_scroll_y > 0 else ""

    def on_resize(self) -> None:
        self.call_after_refresh(self._scroll_hint)

    # -- writing --------------------------------------------------------------------------
    async def _commit(self, event: Event | None, nothing: str) -> None:
        if event is None:
            self.notify(nothing, severity="warning", timeout=2)
            return
        try:
            event_id = await asyncio.to_thread(self.session.store.record_event, event)
        except (PoolkitError, sqlite3.Error) as exc:
            self.notify(f"not saved, try again: {exc}", severity="error", timeout=8)
            return
        self.session.apply(event, event_id)
        self.refresh_view()

    async def action_grade(self, grade: int) -> None:
        await self._commit(self.session.grade_event(grade), "nothing to grade here")

    async def action_skip(self) -> None:
        await self._commit(self.session.skip_event(), "nothing to skip")

    async def action_undo(self) -> None:
        await self._commit(self.session.undo_event(), "nothing to undo")

    def action_note(self) -> None:
        if self.session.current is None:
            self.notify("no passage to note", severity="warning", timeout=2)
            return

        async def save(text: str | None) -> None:
            if text and text.strip():
                await self._commit(self.session.note_event(text), "empty note not saved")

        self.app.push_screen(NoteScreen(), save)

    def action_back(self) -> None:
        if self.session.back():
            self.refresh_view()
        else:
            self.notify("no earlier passage in this session", severity="warning", timeout=2)

    def action_jump(self) -> None:
        def go(qid: str | None) -> None:
            if qid is not None:
                self.session.jump(qid)
                self.refresh_view()

        self.app.push_screen(JumpScreen(self.session), go)

    def action_guidelines(self) -> None:
        item = self.session.current
        self.app.push_screen(GuidelinesScreen(
            self.judge, self.session.query(item.qid) if item else None))

    def action_quit(self) -> None:
        self.app.exit()


class NoteScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box", classes="dialog"):
            yield Static("Note on this passage (Enter saves, Escape cancels)",
                         classes="dialog-title")
            yield Input(placeholder="why this grade, what was unclear...", id="note-input")

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class JumpScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, session: JudgingSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        s = self.session
        counts = {q: f"{s.done_count[q]}/{len(s.items[q])}" for q in s.query_ids}
        qid_w = max(map(len, counts), default=0)
        count_w = max(map(len, counts.values()), default=0)
        options = []
        for qid, count in counts.items():
            text = s.query(qid).text.replace("\n", " ")
            options.append(Option(Text(f"{qid:<{qid_w}}  {count:>{count_w}}  {text}"), id=qid))
        with Vertical(id="jump-box", classes="dialog"):
            yield Static("Jump to query (Enter goes, Escape cancels)", classes="dialog-title")
            yield OptionList(*options, id="jump-list")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.session.current is not None:
            options.highlighted = self.session.query_ids.index(self.session.current.qid)
        options.focus()

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        self.dismiss(message.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _key_note(key: str, grade: int) -> str:
    return "" if key == str(grade) else f"  (key {key_label(key)})"


class GuidelinesScreen(ModalScreen[None]):
    """The config's guidelines and grade scale, after the current query in full (the main
    screen may have had to cut a long description or narrative)."""

    def __init__(self, judge: JudgeConfig, query: QueryRecord | None = None) -> None:
        super().__init__()
        self.judge, self.query_record = judge, query
        for key in {"escape", binding_key(judge.keys["guidelines"]),
                    binding_key(judge.keys["quit"])}:
            self._bindings.bind(key, "close", description="close", show=False)

    def compose(self) -> ComposeResult:
        scale = "\n".join(f"  {g} = {meaning}" + _key_note(self.judge.keys[f"grade_{g}"], g)
                          for g, meaning in sorted(self.judge.grades.items()))
        text = self.judge.guidelines.strip() or "No guidelines in the config (judge.guidelines)."
        close = key_label(self.judge.keys["guidelines"])
        q = self.query_record
        about = "" if q is None else "\n".join(
            [f"Query {q.qid}: {q.text}", *(x for x in (q.description, q.narrative) if x)]) + "\n\n"
        with Vertical(id="guidelines-box", classes="dialog"):
            yield Static(f"Guidelines ({close} or Escape closes)", classes="dialog-title")
            with VerticalScroll(id="guidelines-scroll"):
                yield Static(f"{about}{text}\n\nGrade scale:\n{scale}", id="guidelines-text",
                             markup=False)

    def on_mount(self) -> None:
        self.query_one("#guidelines-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
