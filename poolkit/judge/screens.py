"""The judging screen: it keeps the session and sets the state of its widgets (``widgets``),
which draw themselves; the dialogs over it are in ``dialogs``.

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

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Vertical
from textual.screen import Screen

from poolkit.config import JudgeConfig
from poolkit.errors import OverlapFull, PoolkitError, StoreError, StoreUnavailable
from poolkit.judge.cant_judge import CantJudgeScreen
from poolkit.judge.dialogs import (
    GuidelinesScreen,
    JumpScreen,
    PromptScreen,
    ReviewScreen,
    TopicScreen,
    note_prompt,
)
from poolkit.judge.session import Item, JudgingSession, TooSoon
from poolkit.judge.texts import (
    closure_text,
    deferred_query_text,
    disagreement_text,
    key_label,
    passage_head,
    review_text,
    title_text,
    undone_text,
)
from poolkit.judge.widgets import (
    GradeBar,
    KeyBar,
    Line,
    Passage,
    PassageView,
    RubricPane,
    StatusRow,
    TopicPane,
)
from poolkit.keymap import KEY_ACTIONS
from poolkit.store.records import Event

#: Seconds before each further try of a write the store could not take (the last repeats).
RETRY_AFTER = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)


class JudgeScreen(Screen[None]):
    # One binding per row of the action table, under its id: the app's keymap (the config's
    # judge.keys) moves them. Priority bindings run as the app receives the key, before focus
    # routing: a key is acted on (and its event committed) in arrival order, and no widget
    # can swallow it. They apply only while this screen is on top (dialogs have their own).
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(a.key, a.action, a.name, show=False, priority=True, id=a.name)
          for a in KEY_ACTIONS),
        Binding("escape", "end_search", show=False)]
    #: From this width on, the topic goes beside the passage (judge.tcss, ``.-wide``): below
    #: it, above it. At 160 columns the text wrapped at 100 under the topic, half the
    #: screen empty.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (140, "-wide")]

    def __init__(self, session: JudgingSession, judge: JudgeConfig,
                 show_names: bool = False, rubric: bool | None = None) -> None:
        """``rubric``: open the rubric panel (None: on the assessor's first session)."""
        super().__init__()
        self.session, self.judge, self.show_names = session, judge, show_names
        self.rubric_open = session.first_session if rubric is None else rubric
        self.painted = 0            # passages drawn (benchmarks wait on this)
        self.painted_at = 0.0       # perf_counter() when the last one was drawn
        self._topic_for: str | None = None   # the query whose topic card was last shown
        self.retry_after: tuple[float, ...] = RETRY_AFTER
        #: The write waiting for the store (event, message once saved), and its tries so far.
        self.unsaved: tuple[Event, str] | None = None
        self.tries = 0
        self._quit_armed = False

    def compose(self) -> ComposeResult:
        keys = self.judge.keys
        yield Line(id="title")
        with Container(id="body"):  # the topic above the passage, or beside it when wide
            yield TopicPane(keys, id="query")
            with Vertical(id="reading"):
                yield Line(id="head")
                yield Line(id="note")
                yield PassageView(keys, id="passage-box")
                yield Line(id="dispute")
                yield Line(id="closure")
        rubric = RubricPane(keys, self.judge.grades, self.judge.guidelines, id="rubric")
        grade_bar = GradeBar(keys, self.judge.grades, id="grades")
        rubric.display, grade_bar.display = self.rubric_open, not self.rubric_open
        yield rubric
        yield grade_bar
        yield StatusRow(id="status-row")
        yield KeyBar(keys, id="keys")

    @property
    def passage_view(self) -> PassageView:
        return self.query_one(PassageView)

    @property
    def unreadable(self) -> str | None:
        """Why the passage on screen could not be read from the store (None: it was)."""
        return self.passage_view.unreadable

    def on_mount(self) -> None:
        self.query_one("#dispute").display = self.session.mode in ("adjudicate", "review")
        self.query_one("#closure").display = False
        self.refresh_view()
        self.passage_view.focus()

    # -- drawing --------------------------------------------------------------------------
    def _readable(self) -> bool:
        """Read what the passage on screen needs from the store (its text, sources, the
        assessor's terms; kept by the session afterwards). When the store cannot be read,
        the passage is replaced by why, and grading it is refused until it could be shown."""
        s, item = self.session, self.session.current
        try:
            if item is not None:
                s.text(item)
                s.terms(item.qid)
                if not self.judge.blind:
                    s.sources(item)
        except StoreError as exc:
            self.passage_view.unreadable = str(exc)
            self.say(f"cannot read the store: {exc}", "error")
            return False
        self.passage_view.unreadable = None
        return True

    def refresh_view(self) -> None:
        """Set every widget's state from the session (the passage on screen and its query)."""
        if not self._readable():
            return
        s, grades = self.session, self.judge.grades
        item = s.current
        query = s.query(item.qid) if item else None
        new_query = item is not None and item.qid != self._topic_for
        self.query_one("#title", Line).text = title_text(s)
        topic = self.query_one(TopicPane)
        if new_query:
            topic.expanded = False
        topic.topic = query
        sources = s.sources(item) if item and not self.judge.blind else ()
        self.query_one("#head", Line).text = passage_head(s, item, grades, sources)
        self.query_one("#note", Line).text = self._note(item)
        self.passage_view.passage = self._passage(item)
        if s.mode == "adjudicate":  # (the line is there in these modes only)
            self.query_one("#dispute", Line).text = self._dispute(item)
        elif s.review is not None:
            self.query_one("#dispute", Line).text = (review_text(s.review, item.pair)
                                                     if item else Text())
        self.query_one(GradeBar).current = self.query_one(RubricPane).current = (
            s.grade_of(item) if item else None)
        status = self.query_one(StatusRow)
        status.progress = s.progress()
        status.message = Text()
        notice = self._show_closures()
        self.call_after_refresh(self._painted)
        if item is not None and new_query:
            self._topic_for = item.qid
            if self.judge.topic_card and query is not None:
                n = s.query_ids.index(item.qid) + 1
                self.app.push_screen(TopicScreen(
                    query, f"{n} of {len(s.query_ids)}", notice, s.span(item.qid),
                    self.judge.topic_guidelines.get(item.qid, "")))

    def _passage(self, item: Item | None) -> Passage | None:
        if item is None:
            return None
        query = self.session.query(item.qid)
        title, body = self.session.text(item)
        return Passage(item.qid, item.docid, query.text, title, body, query.description,
                       tuple(self.session.terms(item.qid)), self.judge.highlight == "stem")

    def _show_closures(self) -> str:
        """Say which queries just closed and why (their budget is spent or their stopping
        rule fired), on a line of its own that stays until the next closure; returns what
        was just said ("" when nothing closed since the last passage)."""
        closures = self.session.take_closures()
        if not closures:
            return ""
        notice = closure_text(closures)
        self.query_one("#closure", Line).text = Text(notice)
        return notice

    def _dispute(self, item: Item | None) -> Text:
        """The grades (and notes) the assessors disagree with on the passage."""
        if item is None:
            return Text()
        s = self.session
        notes = [(e.assessor, e.note or "") for e in s.notes.get(item.pair, ())]
        return disagreement_text(s.votes.get(item.pair, {}), self.judge.grades,
                                 self.show_names, notes)

    def _mine(self, item: Item) -> list[Event]:
        """This assessor's notes on the passage, oldest first."""
        return [e for e in self.session.notes.get(item.pair, ())
                if e.assessor == self.session.assessor]

    def _note(self, item: Item | None) -> Text | None:
        """This assessor's latest note on the passage, for a line of its own (None: no
        note; in adjudication the dispute line has the notes)."""
        mine = self._mine(item) if item else []
        if not mine or self.session.mode == "adjudicate":
            return None
        return Text.assemble(("note: ", "bold cyan"), mine[-1].note or "",
                             (f"  ({key_label(self.judge.keys['note'])} edits)", "dim"))

    def _painted(self) -> None:
        self.passage_view.show_position()
        self.painted += 1
        self.painted_at = time.perf_counter()

    def make_room(self, rows: int) -> None:
        """Keep the passage clear of a dialog docked over the bottom ``rows`` rows (0: none):
        what lies below the passage (grade, progress and key bars) may be covered, the
        passage box shrinks for the rest (``dialogs.DockedDialog``)."""
        below = self.size.height - self.styles.padding.bottom - self.passage_view.region.bottom
        self.styles.padding = (0, 0, max(0, rows - below), 0)

    # -- messages -------------------------------------------------------------------------
    def say(self, text: str, severity: str = "information") -> None:
        """A one-line message beside the progress line (``StatusRow``)."""
        self.query_one(StatusRow).say(text, severity)

    # -- writing --------------------------------------------------------------------------
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
            event_id = await self._in_store_thread(self.session.record, event,
                                                   getattr(self.app, "claim", None), retry)
        except StoreUnavailable as exc:
            self.unsaved = (event, done)
            delay = self.retry_after[min(self.tries, len(self.retry_after) - 1)]
            self.tries += 1
            armed = (f" ({key_label(self.judge.keys['quit'])} again quits without it)"
                     if self._quit_armed else "")
            self.say(f"not saved yet, trying again in {delay:g} s{armed}: {exc}", "error")
            self.set_timer(delay, self._retry)
            return False
        except OverlapFull:
            self.unsaved, self.tries = None, 0
            self.session.drop_full(event)
            self.refresh_view()
            self.say(f"{event.docid} has all its assessors already: here is other work",
                     "warning")
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the scale's grade keys grade (every digit is bound; a key off the scale is
        left to any other binding of it, or does nothing)."""
        return not (action == "grade" and parameters and parameters[0] not in self.judge.grades)

    async def action_grade(self, grade: int) -> None:
        if self.waiting():
            return
        if self.unreadable is not None:  # the key only tries to show the passage: it was
            self.refresh_view()           # not read, so it is not graded by this key
            if self.unreadable is None:
                self.say("the passage could be read again: grade it now", "warning")
            return
        view = self.passage_view
        if self.judge.require_read and view.passage is not None and not await self._end_seen():
            below = view.read_on()  # the grade waits until the end has been on screen
            key = key_label(self.judge.keys[f"grade_{grade}"])
            self.say(f"require_read: {below} more line(s) to read; {key} scrolls on" if below
                     else f"require_read: the end is shown; {key} grades", "warning")
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

    async def _end_seen(self) -> bool:
        """Whether the passage's last line has been on screen (``judge.require_read``),
        judged after the layout of the passage shown now: a key typed as it appears is not
        judged by the size of the one before."""
        view = self.passage_view
        if not view.end_seen:
            laid_out = asyncio.Event()
            view.call_after_refresh(laid_out.set)
            await laid_out.wait()
            view.show_position()
        return view.end_seen

    async def action_skip(self) -> None:
        if self.waiting():
            return
        item = self.session.current
        if await self._commit(self.session.skip_event(), "nothing to skip"):
            deferred = item is not None and item.pair in self.session.deferred
            again = item is not None and self.session.current == item
            if deferred and item is not None:
                left = sum(not self.session.is_done(it) for it in self.session.items[item.qid])
                self.say(deferred_query_text(item.qid, left, True, self._key("next_query")))
            else:
                self.say("skipped: the last one left in this query ("
                         f"{self._key('next')} moves on)" if again else "skipped")

    def _key(self, action: str) -> str:
        return key_label(self.judge.keys[action])

    def action_next_query(self) -> None:
        """``]``: leave this query for the next; its passages left come back at the end."""
        if self.waiting():
            return
        item = self.session.current
        left = self.session.next_query()
        if item is None or not left:
            self.say("no passages left here to move on from", "warning")
            return
        self.refresh_view()
        self.say(deferred_query_text(item.qid, left, False, self._key("next_query")))

    async def action_cant_judge(self) -> None:
        """``c``: choose why this passage can't be judged; recorded as its own event."""
        if self.waiting():
            return
        item = self.session.current
        if item is None:
            self.say("no passage here", "warning")
            return

        async def save(reason: str | None) -> None:
            if reason:
                await self._commit(self.session.cant_judge_event(reason), "nothing here",
                                   f"{item.docid}: can't judge ({reason}), for adjudication")

        self.app.push_screen(CantJudgeScreen(), save)

    def action_later(self) -> None:
        """``d``: judge this passage later, at the end of the session."""
        if self.waiting():
            return
        item = self.session.current
        if self.session.later():
            self.refresh_view()
            self.say(f"{item.docid if item else ''} deferred: it comes back at the end")
        else:
            self.say("nothing to defer here", "warning")

    async def action_undo(self) -> None:
        if self.waiting():
            return
        event = self.session.undo_event()
        mark = self.session.undone_mark(event) if event is not None else None
        await self._commit(event, "nothing to undo",
                           undone_text(event.docid, mark.grade if mark else None) if event else "")

    async def action_note(self) -> None:
        if self.passage_view.search is not None:  # while searching, n is "next hit"
            self.action_hit(1)
            return
        if self.waiting():
            return
        item = self.session.current
        if item is None:
            self.say("no passage to note", "warning")
            return
        mine = self._mine(item)

        async def save(text: str | None) -> None:
            if text is not None and text.strip() and (not mine or text != mine[-1].note):
                await self._commit(self.session.note_event(text), "empty note not saved",
                                   "note saved")

        self.app.push_screen(note_prompt(mine[-1].note or "" if mine else ""), save)

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

    def action_next_unjudged(self) -> None:
        """``g``: the next passage still to judge (after reading or regrading others)."""
        if self.waiting():
            return
        if self.session.next_unjudged():
            self.refresh_view()
        else:
            self.say("no other passage left to judge", "warning")

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
                self.session.show(picked, return_to=self.session.current)
                self.refresh_view()

        self.app.push_screen(ReviewScreen(self.session, item.qid, self.judge.grades), open_)

    # -- reading --------------------------------------------------------------------------
    def action_topic(self) -> None:
        topic = self.query_one(TopicPane)
        topic.expanded = not topic.expanded

    def action_rubric(self) -> None:
        """``i``: open or close the rubric panel, in the grade bar's place (the topic gets
        the rows it leaves)."""
        rubric = self.query_one(RubricPane)
        rubric.display = self.rubric_open = not rubric.display
        self.query_one(GradeBar).display = not rubric.display
        self.query_one(TopicPane).redraw()
        key = self._key("rubric")
        self.say(f"rubric shown ({key} hides it)" if rubric.display
                 else f"rubric hidden ({key} shows it)")

    def action_search(self) -> None:
        if self.session.current is None:
            self.say("no passage to search", "warning")
            return
        view = self.passage_view

        def find(needle: str | None) -> None:
            if needle is None or not needle.strip() or self.session.current is None:
                return
            view.search = needle.strip()
            nav = f"{key_label(self.judge.keys['note'])}/" \
                  f"{key_label(self.judge.keys['previous_hit'])}"
            self.say(f"{len(view.hits)} hit(s): {nav} next/previous, Escape ends"
                     if view.hits else f"no '{view.search}' in this passage",
                     "information" if view.hits else "warning")

        self.app.push_screen(PromptScreen("Search this passage (Enter finds, Escape cancels)",
                                          "words", view.search or ""), find)

    def action_hit(self, step: int) -> None:
        view = self.passage_view
        if not view.hits:
            self.say("no search hits (/ searches)", "warning")
            return
        view.hit = (view.hit + step) % len(view.hits)

    def action_end_search(self) -> None:
        view = self.passage_view
        if view.search is not None:
            view.search = None
            self.say("search ended")  # (its n/N hint goes: n is the note key again)

    def action_terms(self) -> None:
        item = self.session.current
        if item is None:
            self.say("no query to add terms to", "warning")
            return
        terms = self.session.terms(item.qid)

        async def toggle(words: str | None) -> None:
            if not words or not words.strip():
                return
            try:
                added = await self._in_store_thread(self.session.toggle_term, item.qid, words)
            except StoreError as exc:
                self.say(f"highlight not changed: {exc}", "error")
                return
            current = self.session.current
            if current is not None:
                self.passage_view.passage = self._passage(current)
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

