"""Dialogs over the judging screen: the topic card, the per-query review list, the
filterable jump list, the one-line prompt (note, search, terms) and the guidelines.

Each is a modal screen with its own keys: the judging screen's bindings do not reach through
it, so no grade can be recorded while one is open. The jump list and the prompts are docked
at the bottom (``DockedDialog``): a note is written, or a word searched, with the passage in
view above.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, TypeVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from poolkit.config import JudgeConfig
from poolkit.judge.session import Item, JudgingSession
from poolkit.judge.texts import key_label, key_list, topic_card_title
from poolkit.keymap import KEY_ACTIONS
from poolkit.store.records import QueryRecord


class TopicScreen(ModalScreen[None]):
    """The topic in full when a new query starts: any key dismisses it, and that key does
    nothing else (the passage under the card has not been read yet)."""

    def __init__(self, query: QueryRecord, position: str, notice: str = "",
                 done: tuple[int, int] = (0, 0), guidelines: str = "") -> None:
        super().__init__()
        self.query_record, self.position, self.notice = query, position, notice
        self.done = done  # (judged, total) of the query so far: a resumed query says so
        self.guidelines = guidelines  # the query's own (judge.topic_guidelines)

    def compose(self) -> ComposeResult:
        q = self.query_record
        body = Text()
        if self.notice:  # why the walk left the last query (closure_text)
            body.append(self.notice + "\n\n", style="bold yellow")
        body.append(q.text, style="bold")
        for label, extra in (("Description", q.description), ("Narrative", q.narrative),
                             ("Guidelines for this query", self.guidelines.strip())):
            if extra:
                body.append(f"\n\n{label}\n", style="underline")
                body.append(extra)
        with Vertical(id="topic-box", classes="dialog"):
            yield Static(topic_card_title(q.qid, self.position, *self.done),
                         classes="dialog-title")
            with VerticalScroll(id="topic-scroll"):
                yield Static(body, id="topic-text")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.dismiss(None)


Result = TypeVar("Result")


class DockedDialog(ModalScreen[Result], Generic[Result]):
    """A dialog docked at the bottom as a bar, over the grade bar and the key bar (whose keys
    do not reach through it anyway), the screen under it not dimmed: the passage stays
    readable while typing. A bar taller than what lies below the passage asks the screen
    under it to make room (``make_room(rows)``, and ``make_room(0)`` once closed), so the
    passage shrinks rather than being covered."""

    # (Textual runs every class's on_mount in the MRO: a subclass's does not call this one)
    def on_mount(self) -> None:
        self._under: Screen[object] | None = (self.app.screen_stack[-2]
                                               if len(self.app.screen_stack) > 1 else None)
        self.call_after_refresh(self._make_room)

    def _make_room(self) -> None:
        make_room = getattr(self._under, "make_room", None)
        if make_room is not None:
            make_room(self.query_one(".dialog").outer_size.height)

    def on_unmount(self) -> None:
        make_room = getattr(self._under, "make_room", None)
        if make_room is not None:
            make_room(0)


REVIEW_FILTERS: dict[str, int | None] = {"a": None, **{str(g): g for g in range(10)},
                                         "minus": -1}
"""Review-list keys: ``a`` all, a grade only that grade (those of the scale: the others do
nothing), ``-`` passages without a grade."""


FIRST_LINE = 60  # cells of a passage's first line in the review list


def first_line(title: str, body: str, width: int = FIRST_LINE) -> str:
    """The passage's first non-empty line (its title when it has one), cut to ``width``."""
    line = next((ln.strip() for ln in f"{title}\n{body}".splitlines() if ln.strip()), "")
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def review_rows(session: JudgingSession, qid: str, grades: Mapping[int, str],
                only: int | None = None, width: int | None = None) -> list[tuple[Item, Text]]:
    """One row per passage of the query in judging order with this assessor's grade and the
    passage's first line (which passage it was); ``only`` keeps one grade (-1: those
    without a grade). Given ``width``, each row is cut to it (one line a passage)."""
    marks = []
    items = session.items[qid]
    n_w = len(str(len(items)))
    doc_w = max((len(it.docid) for it in items), default=0)
    for n, item in enumerate(items, start=1):
        grade = session.grade_of(item)
        if only is not None and grade != (None if only == -1 else only):
            continue
        if grade is not None:
            mark = Text(f"{grade} {grades.get(grade, '?')}", style="bold green")
        elif session.is_skipped(item):
            mark = Text("skipped", style="yellow")
        else:
            mark = Text("–", style="dim")
        if session.notes.get(item.pair):
            mark.append("  (note)", style="cyan")
        marks.append((n, item, mark))
    mark_w = max((len(mark) for *_, mark in marks), default=0)
    rows = []
    for n, item, mark in marks:
        line = Text(f"{n:>{n_w}}  {item.docid:<{doc_w}}  ")
        line.append_text(mark)
        line.append(" " * (mark_w - len(mark) + 2))
        line.append(first_line(*session.text(item)), style="dim")
        if width:
            line.truncate(width, overflow="ellipsis")
        rows.append((item, line))
    return rows


class ReviewScreen(ModalScreen[Item | None]):
    """Every passage of one query with this assessor's grade; Enter opens one (to read it
    again or regrade it), a grade key shows only that grade, ``a`` all, ``-`` ungraded."""

    BINDINGS = [Binding("escape", "cancel", "cancel"),
                *(Binding(k, f"only({v if v is not None else 'None'})", show=False)
                  for k, v in REVIEW_FILTERS.items())]

    def __init__(self, session: JudgingSession, qid: str, grades: Mapping[int, str]) -> None:
        super().__init__()
        self.session, self.qid, self.grades = session, qid, grades
        self.only: int | None = None
        self._items: list[Item] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="review-box", classes="dialog"):
            yield Static(id="review-title", classes="dialog-title")
            yield OptionList(id="review-list")

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()
        self.call_after_refresh(self._fill)  # again once laid out: rows cut to the list

    def _fill(self) -> None:
        width = self.query_one(OptionList).scrollable_content_region.width
        rows = review_rows(self.session, self.qid, self.grades, self.only, width or None)
        self._items = [item for item, _ in rows]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(line, id=f"{i}") for i, (_, line) in enumerate(rows)])
        shown = ("all" if self.only is None else "ungraded" if self.only == -1
                 else f"grade {self.only}")
        total = len(self.session.items[self.qid])
        self.query_one("#review-title", Static).update(
            f"Query {self.qid}: {len(rows)} of {total} passages ({shown}) · Enter opens · "
            f"0-{max(self.grades)} a - filter · Escape closes")
        current = self.session.current
        if current in self._items:
            options.highlighted = self._items.index(current)
        elif rows:
            options.highlighted = 0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A grade key filters only by a grade of the scale."""
        return not (action == "only" and parameters and isinstance(parameters[0], int)
                    and parameters[0] not in self.grades and parameters[0] != -1)

    def action_only(self, grade: int | None) -> None:
        self.only = grade
        self._fill()

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        self.dismiss(self._items[int(message.option.id or 0)])

    def action_cancel(self) -> None:
        self.dismiss(None)


def jump_rows(session: JudgingSession, typed: str = "") -> list[tuple[str, Text]]:
    """(qid, row) per query whose id or text contains ``typed`` (case-insensitive): id, done
    of total, text on one line."""
    counts = {q: f"{session.done_count[q]}/{len(session.items[q])}" for q in session.query_ids}
    qid_w = max(map(len, counts), default=0)
    count_w = max(map(len, counts.values()), default=0)
    needle = typed.strip().lower()
    rows = []
    for qid, count in counts.items():
        text = session.query(qid).text.replace("\n", " ")
        if needle and needle not in qid.lower() and needle not in text.lower():
            continue
        rows.append((qid, Text(f"{qid:<{qid_w}}  {count:>{count_w}}  {text}")))
    return rows


class JumpScreen(DockedDialog[str | None]):
    """Pick a query; typing filters by id or text, arrows move, Enter goes."""

    BINDINGS = [Binding("escape", "cancel", "cancel"),
                Binding("down", "cursor(1)", show=False),
                Binding("up", "cursor(-1)", show=False)]

    def __init__(self, session: JudgingSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        with Vertical(id="jump-box", classes="dialog bar"):
            yield Static("Jump to query (type to filter, Enter goes, Escape cancels)",
                         classes="dialog-title")
            yield Input(placeholder="query id or words", id="jump-filter")
            yield OptionList(id="jump-list")

    def on_mount(self) -> None:
        self._fill("")
        current = self.session.current
        if current is not None:
            self.query_one(OptionList).highlighted = self.session.query_ids.index(current.qid)
        self.query_one(Input).focus()

    def _fill(self, typed: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(row, id=qid) for qid, row in jump_rows(self.session, typed)])
        if options.option_count:
            options.highlighted = 0

    def on_input_changed(self, message: Input.Changed) -> None:
        self._fill(message.value)

    def action_cursor(self, step: int) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            at = options.highlighted if options.highlighted is not None else -step
            options.highlighted = max(0, min(options.option_count - 1, at + step))

    def on_input_submitted(self, message: Input.Submitted) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            self.app.bell()
            return
        self.dismiss(options.get_option_at_index(options.highlighted).id)

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        self.dismiss(message.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PromptScreen(DockedDialog[str | None]):
    """One line of input (a note, search words, highlight terms): Enter returns it, Escape
    None. ``value`` is there to edit (``select``: selected, so that typing replaces it)."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, title: str, placeholder: str = "", value: str = "",
                 select: bool = True) -> None:
        super().__init__()
        self.title_text, self.placeholder, self.value = title, placeholder, value
        self.select = select

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog bar prompt-box"):
            yield Static(self.title_text, classes="dialog-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input",
                        select_on_focus=self.select)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


NOTE_TITLE = "Note on this passage (Enter saves, Escape cancels)"


def note_prompt(value: str = "") -> PromptScreen:
    """Write a note, or edit the last one (``value``; a saved edit is a new note event: the
    log keeps both)."""
    return PromptScreen(NOTE_TITLE, "why this grade, what was unclear...", value,
                        select=False)


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
        own = "" if q is None else self.judge.topic_guidelines.get(q.qid, "").strip()
        about = "" if q is None else "\n".join(
            [f"Query {q.qid}: {q.text}", *(x for x in (q.description, q.narrative) if x),
             *([f"\nGuidelines for this query:\n{own}"] if own else [])]) + "\n\n"
        with Vertical(id="guidelines-box", classes="dialog"):
            yield Static(f"Guidelines ({close} or Escape closes)", classes="dialog-title")
            with VerticalScroll(id="guidelines-scroll"):
                yield Static(f"{about}{text}\n\nGrade scale:\n{scale}\n\nKeys:\n"
                             f"{key_list(self.judge.keys)}", id="guidelines-text",
                             markup=False)

    def on_mount(self) -> None:
        self.query_one("#guidelines-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
