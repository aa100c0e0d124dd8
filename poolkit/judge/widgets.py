"""The judging screen's widgets: each holds its state in reactive attributes and draws itself
when they change (with the wording from ``texts``); the screen only sets the state.

- ``PassageView``: the passage, scrolled, with the search over it (hits, the current hit, the
  border that says where the reader is);
- ``TopicPane``: the query's topic, fitted to the rows the terminal can spare (above the
  passage), or to its column's (beside it, on a wide screen);
- ``StatusRow``: the progress line and, beside it, the last message;
- ``GradeBar`` and ``KeyBar``: the grade scale and the keys, wrapped between entries;
- ``RubricPane``: the grade scale with each grade's meaning from the guidelines, a panel the
  assessor opens and closes (open on her first session), in the grade bar's place;
- ``Line``: a line of text (the title, the passage's head, the note, the dispute, closures).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from poolkit.judge.session import JudgingProgress
from poolkit.judge.texts import (
    all_done_text,
    clip,
    grade_bar,
    key_bar,
    key_label,
    passage_plain,
    passage_text,
    progress_fit,
    rubric_text,
    search_hits,
    topic_text,
)
from poolkit.store.records import QueryRecord

# Rows the rest of the screen needs (title, head, a passage worth reading, grades, status,
# keys); the topic gets what a terminal has beyond them, at least TOPIC_MIN.
RESERVED_ROWS = 16
TOPIC_MIN = 3

SEVERITY_STYLES = {"information": "green", "warning": "yellow", "error": "bold red"}


def wrapped_lines(text: Text, width: int) -> int:
    return len(text.wrap(Console(width=max(width, 1)), max(width, 1)))


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


class Line(Static):
    """A line (or a few) whose state is its text: ``text``, or None to hide it (the text
    shown last stays for when it is shown again)."""

    text: reactive[Text | None] = reactive(None, always_update=True, init=False)

    def watch_text(self, text: Text | None) -> None:
        if self.display != (text is not None):
            self.display = text is not None
        if text is not None:
            self.update(text)


class Fitted(Static):
    """Text made for the widget's width (``fit``) and made again whenever that changes (key
    hints that wrap between hints, never inside one; a topic fitted to the rows it may use).
    """

    def fit(self, width: int | None) -> Text:
        return Text()

    def redraw(self) -> None:
        self.update(self.fit(self.content_size.width or None))

    def on_resize(self) -> None:
        self.redraw()
        # The update lands inside the layout pass that resized us, which does not run again
        # for a height that changed with the new text: ask for one more.
        self.call_after_refresh(self.refresh, layout=True)


class KeyBar(Fitted):
    """Every action by its first key (``texts.key_bar``)."""

    def __init__(self, keys: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keys = keys

    def fit(self, width: int | None) -> Text:
        return key_bar(self.keys, width)


class GradeBar(Fitted):
    """The grade scale by key, the passage's standing grade (``current``) marked."""

    current: reactive[int | None] = reactive(None, always_update=True, init=False)

    def __init__(self, keys: Mapping[str, str], grades: Mapping[int, str],
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keys, self.grades = keys, grades

    def fit(self, width: int | None) -> Text:
        return grade_bar(self.keys, self.grades, self.current, width)

    def watch_current(self) -> None:
        self.redraw()


class RubricPane(Fitted):
    """The rubric (``texts.rubric_text``) while ``display`` is on, the passage's standing
    grade (``current``) marked."""

    current: reactive[int | None] = reactive(None, always_update=True, init=False)

    def __init__(self, keys: Mapping[str, str], grades: Mapping[int, str], guidelines: str,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keys, self.grades, self.guidelines = keys, grades, guidelines

    def fit(self, width: int | None) -> Text:
        return rubric_text(self.keys, self.grades, self.guidelines, self.current, width)

    def watch_current(self) -> None:
        self.redraw()

    def rows(self) -> int:
        """The rows it takes on this screen (none while hidden): worked out from the
        screen's width, not its own, which it has only once laid out."""
        if not self.display:
            return 0
        width = max(1, self.app.size.width - self.styles.gutter.width)
        return wrapped_lines(self.fit(width), width)


class TopicPane(Fitted):
    """The topic in the rows this terminal can spare: whole when it fits; otherwise the
    description and narrative fold to a line each, unless the assessor unfolded them
    (``expanded``)."""

    # (drawn again for the same query too: the rows the terminal spares may have changed)
    topic: reactive[QueryRecord | None] = reactive(None, always_update=True, init=False)
    expanded: reactive[bool] = reactive(False, init=False)

    def __init__(self, keys: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keys = keys

    def watch_topic(self) -> None:
        self.redraw()

    def watch_expanded(self) -> None:
        self.redraw()

    def fit(self, width: int | None) -> Text:
        query = self.topic
        if query is None:
            return Text()
        expand = key_label(self.keys["topic"])
        whole = topic_text(query, fold=False, expand_key=expand)
        if width is None:
            return whole
        budget = (self.content_size.height if self.screen.has_class("-wide")
                  else max(TOPIC_MIN, self.app.size.height - RESERVED_ROWS
                           - self.screen.query_one(RubricPane).rows()))
        if wrapped_lines(whole, width) <= budget:
            return whole
        if self.expanded:
            help_key = key_label(self.keys["guidelines"])
            return clip(whole, width, budget,
                        f"… the rest is with the guidelines ({help_key}); {expand} folds")
        return topic_text(query, fold=True, expand_key=expand, width=width)


@dataclass(frozen=True)
class Passage:
    """What the passage view shows: one passage of one query, with the words to light."""

    qid: str
    docid: str
    query: str
    title: str
    body: str
    description: str | None = None
    terms: tuple[str, ...] = ()  # the assessor's added highlight terms for the query
    stemmed: bool = False        # judge.highlight: stem (inflections light too)

    @property
    def plain(self) -> str:
        return passage_plain(self.title, self.body)

    @property
    def pair(self) -> tuple[str, str]:
        return (self.qid, self.docid)


def pair_of(passage: Passage | None) -> tuple[str, str] | None:
    return passage.pair if passage is not None else None


class PassageView(VerticalScroll):
    """The passage (``passage``; None once this mode has nothing left to show) in a scrolled
    box, or why it could not be read (``unreadable``). A search (``search``) lights its
    ``hits`` and scrolls to the current one (``hit``); another passage ends the search and
    starts at the top. The border says where the reader is (lines shown of all, or the
    search hit) and, only when there is more than fits, how much is below and how to
    scroll. ``end_seen``: the passage's last line has been on screen since it appeared."""

    passage: reactive[Passage | None] = reactive(None, always_update=True, init=False)
    unreadable: reactive[str | None] = reactive(None, init=False)
    # (a search again, or a move to the only hit, scrolls back to it: always drawn)
    search: reactive[str | None] = reactive(None, always_update=True, init=False)
    hit: reactive[int] = reactive(0, always_update=True, init=False)

    def __init__(self, keys: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keys = keys
        self.hits: list[tuple[int, int]] = []
        self.end_seen = False

    def compose(self) -> ComposeResult:
        yield Static(id="passage")

    def on_mount(self) -> None:
        self.watch(self, "scroll_y", lambda _old, _new: self.show_position(), init=False)

    def on_resize(self) -> None:
        self.call_after_refresh(self.show_position)

    def watch_passage(self, old: Passage | None, new: Passage | None) -> None:
        if pair_of(old) != pair_of(new):  # another passage: no search, from the top
            self.hits, self.end_seen = [], False
            self.set_reactive(PassageView.search, None)
            self.set_reactive(PassageView.hit, 0)
            self._draw()
            self.scroll_home(animate=False)
        else:
            self._draw()

    def watch_unreadable(self) -> None:
        self._draw()

    def watch_search(self, search: str | None) -> None:
        passage = self.passage
        self.hits = (search_hits(passage.plain, search)
                     if search is not None and passage is not None else [])
        self.set_reactive(PassageView.hit, 0)
        self._draw()
        self._scroll_to_hit()

    def watch_hit(self) -> None:
        self._draw()
        self._scroll_to_hit()

    def _draw(self) -> None:
        view = self.query_one("#passage", Static)
        p = self.passage
        if self.unreadable is not None:
            view.update(Text(
                f"This passage could not be read from the store: {self.unreadable}\n\nAny key "
                f"that moves tries again; grading waits until the passage is shown.",
                style="red"))
        elif p is None:
            view.update(all_done_text(self.keys))
        else:
            view.update(passage_text(p.query, p.title, p.body, p.description, p.terms,
                                     self.hits, self.hit if self.hits else None, p.stemmed))

    def _scroll_to_hit(self) -> None:
        """Scroll so the current hit's line is in view (a third of the way down)."""
        if not self.hits:
            self.call_after_refresh(self.show_position)
            return
        view = self.query_one("#passage", Static)
        width = view.content_size.width or self.scrollable_content_region.width
        if self.passage is None or not width:
            return
        line = line_of_offset(self.passage.plain, self.hits[self.hit][0], width)
        self.scroll_to(y=max(0, line - self.scrollable_content_region.height // 3),
                       animate=False)
        self.call_after_refresh(self.show_position)

    def show_position(self) -> None:
        """Say on the border where the reader is (see the class docstring)."""
        total = self.query_one("#passage", Static).size.height
        parts = []
        if self.search is not None:
            parts.append(f"'{self.search}': " + (
                f"hit {self.hit + 1} of {len(self.hits)}" if self.hits else "no hits"))
        below = self.unseen()
        self.end_seen = self.end_seen or below == 0
        if self.max_scroll_y > 0:
            top = round(self.scroll_y) + 1
            bottom = min(total, round(self.scroll_y) + self.scrollable_content_region.height)
            parts.append(f"lines {top}-{bottom} of {total}")
            if below:
                parts.append(f"▼ {below} more line{'s' if below > 1 else ''}")
            parts.append("↑↓ PgUp PgDn")
        self.border_subtitle = " · ".join(parts)

    def unseen(self) -> int:
        """Lines below the box's bottom edge."""
        return max(0, round(self.max_scroll_y - self.scroll_y))

    def read_on(self) -> int:
        """Scroll a page towards the end; returns the lines that will still be below."""
        y = min(self.max_scroll_y, self.scroll_y + self.scrollable_content_region.height)
        self.scroll_to(y=y, animate=False)
        return max(0, round(self.max_scroll_y - y))


class StatusRow(Horizontal):
    """The progress line (``progress``) and, beside it, the last message (``message``): unlike
    a toast it never covers the grade line, and the next message replaces it. The message
    is shown whole; the progress drops detail to leave it room (``texts.progress_fit``)."""

    progress: reactive[JudgingProgress | None] = reactive(None, init=False)
    # (Text compares text and spans, not its style: a warning said again as an error shows)
    message: reactive[Text] = reactive(Text, always_update=True, init=False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: dict[str, tuple[Text, Any]] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="progress")
        yield Static(id="message")

    def say(self, text: str, severity: str = "information") -> None:
        self.message = Text(text, style=SEVERITY_STYLES[severity], no_wrap=True,
                            overflow="ellipsis")

    def watch_progress(self) -> None:
        self._fit()

    def watch_message(self) -> None:
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        # Each of the two has a cell of padding either side; a cell apart at the least.
        room = self.size.width - len(self.message) - 5
        progress = (progress_fit(self.progress, room) if self.progress is not None
                    else Text())
        # (a keystroke sets both, and the message twice: redraw only what changed)
        for name, text in (("progress", progress), ("message", self.message)):
            if self._shown.get(name) != (text, text.style):
                self._shown[name] = (text, text.style)
                self.query_one(f"#{name}", Static).update(text)
