"""The judging screen and its small dialogs (note, guidelines); the pickers are in
``dialogs``.

Every grading key runs one action: build the event, write it to the store in a worker thread
(the UI keeps drawing; keys typed meanwhile wait their turn in order), then show the next
passage. A failed write shows an error and keeps the passage on screen: nothing is lost
silently and nothing advances unsaved.

A write the store cannot take *just now* (``StoreUnavailable``: the PostgreSQL server
restarting or unreachable, another SQLite writer holding the store past the wait) is kept:
the screen says so, tries it again after a growing pause (``RETRY_AFTER``), and shows the
next passage only once it is saved. Meanwhile keys that would write or move are refused with
that message (none is queued behind a write that may never come), and quitting needs a second
press, after which the app lists the event as unsaved. A retry is recorded with
``record_event_once``: a first try that did commit before the connection broke is not
recorded twice.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from typing import Any, ClassVar

from rich.console import Console
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from poolkit.config import JudgeConfig
from poolkit.errors import PoolkitError, StoreError, StoreUnavailable
from poolkit.judge.dialogs import JumpScreen, PromptScreen, ReviewScreen, TopicScreen
from poolkit.judge.session import Item, JudgingSession, TooSoon
from poolkit.judge.widgets import (
    all_done_text,
    clip,
    closure_text,
    disagreement_text,
    grade_bar,
    key_bar,
    key_label,
    passage_head,
    passage_plain,
    passage_text,
    progress_text,
    search_hits,
    title_text,
    topic_text,
)
from poolkit.keymap import KEY_ACTIONS
from poolkit.store.store import Event, QueryRecord

# Rows the rest of the screen needs (title, head, a passage worth reading, grades, status,
# keys); the topic gets what a terminal has beyond them, at least TOPIC_MIN.
RESERVED_ROWS = 16
TOPIC_MIN = 3
#: Seconds before each further try of a write the store could not take (the last repeats).
RETRY_AFTER = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)


class Fitted(Static):
    """Text made for the widget's width and made again whenever that changes (key hints
    that wrap between hints, never inside one; a topic fitted to the rows it may use)."""

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


def wrapped_lines(text: Text, width: int) -> int:
    return len(text.wrap(Console(width=max(width, 1)), max(width, 1)))


class JudgeScreen(Screen[None]):
    # One binding per row of the action table, under its id: the app's keymap (the config's
    # judge.keys) moves them. Priority bindings run as the app receives the key, before focus
    # routing: a key is acted on (and its event committed) in arrival order, and no widget
    # can swallow it. They apply only while this screen is on top (dialogs have their own).
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(a.key, a.action, a.name, show=False, priority=True, id=a.name)
          for a in KEY_ACTIONS),
        Binding("escape", "end_search", show=False)]

    def __init__(self, session: JudgingSession, judge: JudgeConfig,
                 show_names: bool = False) -> None:
        super().__init__()
        self.session, self.judge, self.show_names = session, judge, show_names
        self.painted = 0            # passages drawn (benchmarks wait on this)
        self.painted_at = 0.0       # perf_counter() when the last one was drawn
        self._shown: Item | None = None
        self._topic_for: str | None = None   # the query whose topic card was last shown
        self.topic_expanded = False
        self.search: str | None = None
        self.hits: list[tuple[int, int]] = []
        self.hit = 0
        self._terms: dict[str, list[str]] = {}
        self.retry_after: tuple[float, ...] = RETRY_AFTER
        #: The write waiting for the store (event, message once saved), and its tries so far.
        self.unsaved: tuple[Event, str] | None = None
        self.tries = 0
        self._quit_armed = False
        self.unreadable: str | None = None  # why the passage on screen could not be read

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Fitted(lambda width: Text(), id="query")
        yield Static(id="head")
        yield Static(id="note")
        with VerticalScroll(id="passage-box"):
            yield Static(id="passage")
        yield Static(id="dispute")
        yield Static(id="closure")
        yield Fitted(lambda width: Text(), id="grades")
        with Horizontal(id="status-row"):
            yield Static(id="progress")
            yield Static(id="message")
        yield Fitted(lambda width: key_bar(self.judge.keys, width), id="keys")

    def on_mount(self) -> None:
        self.query_one("#dispute").display = self.session.mode == "adjudicate"
        self.query_one("#closure").display = False
        box = self.query_one("#passage-box", VerticalScroll)
        self.watch(box, "scroll_y", lambda _old, _new: self._border(), init=False)
        self.refresh_view()
        box.focus()

    # -- drawing --------------------------------------------------------------------------
    def added_terms(self, qid: str) -> list[str]:
        if qid not in self._terms:
            from poolkit.store.terms import added_terms

            self._terms[qid] = added_terms(self.session.store, self.session.assessor, qid)
        return self._terms[qid]

    def _readable(self) -> bool:
        """Read what the passage on screen needs from the store (its text, sources, the
        assessor's terms; cached afterwards). When the store cannot be read, the passage is
        replaced by why, and grading it is refused until it could be shown."""
        s, item = self.session, self.session.current
        try:
            if item is not None:
                s.text(item)
                self.added_terms(item.qid)
                if not self.judge.blind:
                    s.sources(item)
        except StoreError as exc:
            self.unreadable = str(exc)
            self.query_one("#passage", Static).update(Text(
                f"This passage could not be read from the store: {exc}\n\nAny key that "
                f"moves tries again; grading waits until the passage is shown.", style="red"))
            self.say(f"cannot read the store: {exc}", "error")
            return False
        self.unreadable = None
        return True

    def refresh_view(self) -> None:
        if not self._readable():
            return
        s, grades = self.session, self.judge.grades
        item = s.current
        query = s.query(item.qid) if item else None
        if item != self._shown:
            self.search, self.hits, self.hit = None, [], 0
        self.query_one("#title", Static).update(title_text(s))
        self.query_one("#query", Fitted).show(lambda width: self._topic(query, width))
        sources = s.sources(item) if item and not self.judge.blind else ()
        self.query_one("#head", Static).update(passage_head(s, item, grades, sources))
        self._show_note(item)
        self._draw_passage()
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
        self.query_one("#message", Static).update("")
        notice = self._show_closures()
        self.call_after_refresh(self._painted)
        if item is not None and item.qid != self._topic_for:
            self._topic_for = item.qid
            self.topic_expanded = False
            if self.judge.topic_card and query is not None:
                n = s.query_ids.index(item.qid) + 1
                self.app.push_screen(TopicScreen(query, f"{n} of {len(s.query_ids)}", notice))

    def _show_closures(self) -> str:
        """Say which queries just closed and why (their budget is spent or their stopping
        rule fired), on a line of its own that stays until the next closure; returns what
        was just said ("" when nothing closed since the last passage)."""
        closures = self.session.take_closures()
        if not closures:
            return ""
        line = self.query_one("#closure", Static)
        notice = closure_text(closures)
        line.update(Text(notice))
        line.display = True
        return notice

    def _topic(self, query: QueryRecord | None, width: int | None) -> Text:
        """The topic in the rows this terminal can spare: whole when it fits; otherwise the
        description and narrative fold to a line each, unless the assessor unfolded them."""
        if query is None:
            return Text()
        expand = key_label(self.judge.keys["topic"])
        whole = topic_text(query, fold=False, expand_key=expand)
        if width is None:
            return whole
        budget = max(TOPIC_MIN, self.app.size.height - RESERVED_ROWS)
        if wrapped_lines(whole, width) <= budget:
            return whole
        if self.topic_expanded:
            help_key = key_label(self.judge.keys["guidelines"])
            return clip(whole, width, budget,
                        f"… the rest is with the guidelines ({help_key}); {expand} folds")
        return topic_text(query, fold=True, expand_key=expand, width=width)

    def _show_note(self, item: Item | None) -> None:
        """This assessor's latest note on the passage, on a line of its own."""
        line = self.query_one("#note", Static)
        mine = [e for e in self.session.notes.get(item.pair, ())
                if e.assessor == self.session.assessor] if item else []
        line.display = bool(mine) and self.session.mode != "adjudicate"
        if mine:
            line.update(Text.assemble(("note: ", "bold cyan"), mine[-1].note or "",
                                      (f"  ({key_label(self.judge.keys['note'])} edits)",
                                       "dim")))

    def _draw_passage(self) -> None:
        s = self.session
        item = s.current
        passage = self.query_one("#passage", Static)
        if item is None:
            passage.update(all_done_text(self.judge.keys))
            return
        query = s.query(item.qid)
        title, body = s.text(item)
        passage.update(passage_text(query.text, title, body, query.description,
                                    self.added_terms(item.qid), self.hits,
                                    self.hit if self.hits else None))

    def _painted(self) -> None:
        self._border()
        self.painted += 1
        self.painted_at = time.perf_counter()

    def _border(self) -> None:
        """The passage border says where the reader is (lines shown of all, or the search
        hit) and, only when there is more than fits, how to scroll."""
        box = self.query_one("#passage-box", VerticalScroll)
        total = self.query_one("#passage", Static).size.height
        parts = []
        if self.search is not None:
            parts.append(f"'{self.search}': " + (
                f"hit {self.hit + 1} of {len(self.hits)}" if self.hits else "no hits"))
        if box.max_scroll_y > 0:
            top = round(box.scroll_y) + 1
            bottom = min(total, round(box.scroll_y) + box.scrollable_content_region.height)
            parts.append(f"lines {top}-{bottom} of {total}")
            parts.append("↑↓ PgUp PgDn")
        box.border_subtitle = " · ".join(parts)

    def on_resize(self) -> None:
        self.call_after_refresh(self._border)

    # -- messages -------------------------------------------------------------------------
    def say(self, text: str, severity: str = "information") -> None:
        """A one-line message beside the progress line: unlike a toast it never covers the
        grade line, and the next message replaces it."""
        style = {"information": "green", "warning": "yellow", "error": "bold red"}[severity]
        self.query_one("#message", Static).update(Text(text, style=style, no_wrap=True,
                                                       overflow="ellipsis"))

    # -- writing --------------------------------------------------------------------------
    def _write(self, event: Event, retry: bool = False) -> int:
        """On the store thread: refuse when another session took this assessor over, then
        record (durable on return; ``retry``: unless the earlier try was recorded)."""
        store = self.session.store
        claim = getattr(self.app, "claim", None)
        if claim is not None:
            from poolkit.store.claims import current_claim, holds

            if not holds(store, claim):
                taker = current_claim(store, claim.assessor)
                raise PoolkitError("another session took over "
                                   + (taker.where() if taker else "this assessor")
                                   + "; quit here")
        return store.record_event_once(event) if retry else store.record_event(event)

    async def _in_store_thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        run = getattr(self.app, "in_store_thread", None)
        return await (run(fn, *args) if run is not None else asyncio.to_thread(fn, *args))

    def waiting(self) -> bool:
        """True (and said) while a write waits for the store: keys that write or move are
        refused until it is saved, so the unsaved grade stays on screen."""
        if self.unsaved is None:
            return False
        event, _ = self.unsaved
        self.say(f"waiting: the {event.kind} of {event.docid} is not saved yet (tried "
                 f"{self.tries}x, trying again); keys wait until it is saved", "warning")
        return True

    async def _commit(self, event: Event | None, nothing: str, done: str = "") -> bool:
        if event is None:
            self.say(nothing, "warning")
            return False
        return await self._save(event, done)

    async def _save(self, event: Event, done: str, retry: bool = False) -> bool:
        try:
            event_id = await self._in_store_thread(self._write, event, retry)
        except StoreUnavailable as exc:
            self.unsaved = (event, done)
            delay = self.retry_after[min(self.tries, len(self.retry_after) - 1)]
            self.tries += 1
            armed = (f" ({key_label(self.judge.keys['quit'])} again quits without it)"
                     if self._quit_armed else "")
            self.say(f"not saved yet, trying again in {delay:g} s{armed}: {exc}", "error")
            self.set_timer(delay, self._retry)
            return False
        except (PoolkitError, sqlite3.Error) as exc:
            self.unsaved, self.tries = None, 0
            self.say(f"not saved: {exc}", "error")
            return False
        self.unsaved, self.tries, self._quit_armed = None, 0, False
        try:
            self.session.apply(event, event_id)
        except StoreError as exc:  # saved; what comes next could not be read
            self.refresh_view()
            self.say(f"saved; the next passage could not be read: {exc}", "error")
            return True
        self.refresh_view()
        if self.unreadable is None and (done or retry):
            self.say(done or "saved")
        return True

    async def _retry(self) -> None:
        if self.unsaved is not None:
            event, done = self.unsaved
            await self._save(event, done, retry=True)

    async def action_grade(self, grade: int) -> None:
        if self.waiting():
            return
        if self.unreadable is not None:  # the key only tries to show the passage: it was
            self.refresh_view()           # not read, so it is not graded by this key
            if self.unreadable is None:
                self.say("the passage could be read again: grade it now", "warning")
            return
        try:
            event = self.session.grade_event(grade)
        except TooSoon as why:
            self.say(f"too quick: key dropped ({why.seconds_on_screen * 1000:.0f} ms < "
                     f"{why.minimum * 1000:.0f} ms on screen)", "warning")
            return
        done = "" if event is None else (
            f"{event.docid} -> {grade} {self.judge.grades.get(grade, '')}".rstrip())
        await self._commit(event, "nothing to grade here", done)

    async def action_skip(self) -> None:
        if self.waiting():
            return
        item = self.session.current
        if await self._commit(self.session.skip_event(), "nothing to skip"):
            again = item is not None and self.session.current == item
            self.say("skipped: the last one left in this query ("
                     f"{key_label(self.judge.keys['next'])} moves on)" if again else "skipped")

    async def action_undo(self) -> None:
        if self.waiting():
            return
        await self._commit(self.session.undo_event(), "nothing to undo", "undone")

    async def action_note(self) -> None:
        if self.search is not None:  # while searching, the note key is "next hit"
            self.action_hit(1)
            return
        if self.waiting():
            return
        item = self.session.current
        if item is None:
            self.say("no passage to note", "warning")
            return
        mine = [e for e in self.session.notes.get(item.pair, ())
                if e.assessor == self.session.assessor]

        async def save(text: str | None) -> None:
            if text is not None and text.strip() and (not mine or text != mine[-1].note):
                await self._commit(self.session.note_event(text), "empty note not saved",
                                   "note saved")

        self.app.push_screen(NoteScreen(mine[-1].note or "" if mine else ""), save)

    # -- moving ---------------------------------------------------------------------------
    def action_back(self) -> None:
        if self.waiting():
            return
        if self.session.back():
            self.refresh_view()
            self.say("back")
        else:
            self.say("nothing earlier to go back to", "warning")

    def action_move(self, offset: int) -> None:
        if self.waiting():
            return
        if self.session.move(offset):
            self.refresh_view()
        else:
            self.say("first passage" if offset < 0 else "last passage", "warning")

    def action_jump(self) -> None:
        if self.waiting():
            return

        def go(qid: str | None) -> None:
            if qid is not None:
                try:
                    self.session.jump(qid)
                except StoreError as exc:
                    self.say(f"cannot read the store: {exc}", "error")
                    return
                self.refresh_view()

        self.app.push_screen(JumpScreen(self.session), go)

    def action_review(self) -> None:
        if self.waiting():
            return
        item = self.session.current or next(reversed(self.session.history), None)
        if item is None:
            self.say("no query to review", "warning")
            return

        def open_(picked: Item | None) -> None:
            if picked is not None:
                self.session.show(picked)
                self.refresh_view()

        self.app.push_screen(ReviewScreen(self.session, item.qid, self.judge.grades), open_)

    # -- reading --------------------------------------------------------------------------
    def action_topic(self) -> None:
        self.topic_expanded = not self.topic_expanded
        item = self.session.current
        query = self.session.query(item.qid) if item else None
        self.query_one("#query", Fitted).show(lambda width: self._topic(query, width))

    def action_search(self) -> None:
        if self.session.current is None:
            self.say("no passage to search", "warning")
            return

        def find(needle: str | None) -> None:
            item = self.session.current
            if needle is None or not needle.strip() or item is None:
                return
            self.search = needle.strip()
            self.hits = search_hits(passage_plain(*self.session.text(item)), self.search)
            self.hit = 0
            self._draw_passage()
            self._scroll_to_hit()
            nav = f"{key_label(self.judge.keys['note'])}/" \
                  f"{key_label(self.judge.keys['previous_hit'])}"
            self.say(f"{len(self.hits)} hit(s): {nav} next/previous, Escape ends"
                     if self.hits else f"no '{self.search}' in this passage",
                     "information" if self.hits else "warning")

        self.app.push_screen(PromptScreen("Search this passage (Enter finds, Escape cancels)",
                                          "words", self.search or ""), find)

    def action_hit(self, step: int) -> None:
        if not self.hits:
            self.say("no search hits (/ searches)", "warning")
            return
        self.hit = (self.hit + step) % len(self.hits)
        self._draw_passage()
        self._scroll_to_hit()

    def action_end_search(self) -> None:
        if self.search is not None:
            self.search, self.hits, self.hit = None, [], 0
            self._draw_passage()
            self.call_after_refresh(self._border)

    def _scroll_to_hit(self) -> None:
        """Scroll so the current hit's line is in view (a third of the way down)."""
        if not self.hits:
            self.call_after_refresh(self._border)
            return
        box = self.query_one("#passage-box", VerticalScroll)
        passage = self.query_one("#passage", Static)
        width = passage.content_size.width or box.scrollable_content_region.width
        item = self.session.current
        if item is None or not width:
            return
        plain = passage_plain(*self.session.text(item))
        line = line_of_offset(plain, self.hits[self.hit][0], width)
        box.scroll_to(y=max(0, line - box.scrollable_content_region.height // 3),
                      animate=False)
        self.call_after_refresh(self._border)

    def action_terms(self) -> None:
        item = self.session.current
        if item is None:
            self.say("no query to add terms to", "warning")
            return
        terms = self.added_terms(item.qid)

        async def toggle(words: str | None) -> None:
            if not words or not words.strip():
                return
            from poolkit.store.terms import added_terms, toggle_term

            store, assessor = self.session.store, self.session.assessor

            def write() -> tuple[bool, list[str]]:
                return (toggle_term(store, assessor, item.qid, words),
                        added_terms(store, assessor, item.qid))
            try:
                added, self._terms[item.qid] = await self._in_store_thread(write)
            except StoreError as exc:
                self.say(f"highlight not changed: {exc}", "error")
                return
            self._draw_passage()
            word = " ".join(words.lower().split())
            self.say(f"highlighting '{word}'" if added else f"no longer highlighting '{word}'")

        now = ", ".join(terms) if terms else "none yet"
        self.app.push_screen(PromptScreen(
            f"Highlight a word for this query (again removes it). Yours: {now}",
            "word or phrase"), toggle)

    def action_guidelines(self) -> None:
        item = self.session.current
        self.app.push_screen(GuidelinesScreen(
            self.judge, self.session.query(item.qid) if item else None))

    def action_quit(self) -> None:
        if self.unsaved is not None and not self._quit_armed:
            event, _ = self.unsaved
            self._quit_armed = True
            quit_key = key_label(self.judge.keys["quit"])
            self.say(f"the {event.kind} of {event.docid} is not saved yet: {quit_key} again "
                     f"quits without it", "error")
            return
        if self.unsaved is not None:
            unsaved = getattr(self.app, "unsaved", None)
            if unsaved is not None:
                unsaved.append(self.unsaved[0])
        self.app.exit()


def line_of_offset(plain: str, offset: int, width: int) -> int:
    """The wrapped line (0-based) of ``plain`` at ``width`` that holds character ``offset``
    (Rich's wrapping: words whole, paragraphs on new lines)."""
    lines = Text(plain).wrap(Console(width=width), width)
    at = 0
    for n, line in enumerate(lines):
        found = plain.find(line.plain, at) if line.plain else at
        if found < 0:
            continue
        end = found + len(line.plain)
        if offset < end or (offset == end and n == len(lines) - 1):
            return n
        at = end
    return max(0, len(lines) - 1)


class NoteScreen(ModalScreen[str | None]):
    """Write a note, or edit the last one (a saved edit is a new note event: the log keeps
    both)."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, value: str = "") -> None:
        super().__init__()
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box", classes="dialog"):
            yield Static("Note on this passage (Enter saves, Escape cancels)",
                         classes="dialog-title")
            yield Input(value=self.value, placeholder="why this grade, what was unclear...",
                        id="note-input", select_on_focus=False)

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _key_note(key: str, grade: int) -> str:
    return "" if key == str(grade) else f"  (key {key_label(key)})"


class GuidelinesScreen(ModalScreen[None]):
    """The config's guidelines and grade scale, after the current query in full (the main
    screen may have had to cut a long description or narrative)."""

    # The guidelines and quit keys close it, wherever the keymap put them.
    BINDINGS = [Binding("escape", "close", "close", show=False),
                *(Binding(a.key, "close", "close", show=False, id=a.name)
                  for a in KEY_ACTIONS if a.name in ("guidelines", "quit"))]

    def __init__(self, judge: JudgeConfig, query: QueryRecord | None = None) -> None:
        super().__init__()
        self.judge, self.query_record = judge, query

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
