"""The judging screen's wording as pure functions: footer and grade bar packing, durations,
progress, the header and the adjudication line."""

from __future__ import annotations

from rich.text import Text

from poolkit.config import DEFAULT_GRADES, DEFAULT_KEYS
from poolkit.judge.session import Progress
from poolkit.judge.widgets import (
    clip,
    disagreement_text,
    duration,
    grade_bar,
    key_bar,
    progress_text,
    query_text,
)
from poolkit.store import QueryRecord


def test_default_footer_fits_one_line_at_80_columns():
    # 80 columns less the bar's one-cell padding each side.
    footer = key_bar(DEFAULT_KEYS, width=78).plain
    assert footer == ("0-3 grade  u undo  s skip  n note  b back  j jump  ? guidelines  q quit")
    assert "\n" not in footer


def test_footer_wraps_between_bindings_never_inside_one():
    lines = key_bar(DEFAULT_KEYS, width=30).plain.split("\n")
    assert all(len(line) <= 30 for line in lines)
    assert "q quit" in lines[-1] and "? guidelines" in "\n".join(lines)
    assert [part for line in lines for part in line.split("  ")] == [
        "0-3 grade", "u undo", "s skip", "n note", "b back", "j jump", "? guidelines", "q quit"]


def test_remapped_grade_keys_are_each_listed():
    keys = {**DEFAULT_KEYS, "grade_0": "a", "grade_1": "w", "grade_2": "e", "grade_3": "r"}
    assert key_bar(keys).plain.startswith("a w e r grade  u undo")
    swapped = {**DEFAULT_KEYS, "grade_0": "3", "grade_3": "0"}
    assert key_bar(swapped).plain.startswith("3 1 2 0 grade")


def test_grade_bar_wraps_between_grades():
    grades = {**DEFAULT_GRADES, 2: "highly relevant: answers most of the question"}
    lines = grade_bar(DEFAULT_KEYS, grades, None, width=50).plain.split("\n")
    assert all(len(line) <= 50 for line in lines)
    assert lines[1].startswith(" 2  highly relevant")
    assert grade_bar(DEFAULT_KEYS, DEFAULT_GRADES, None, width=78).plain.count("\n") == 0


def test_durations_read_sensibly():
    assert [duration(s) for s in (0.2, 0.6, 7, 59.4, 61, 3599, 3600, 5400)] == [
        "<1s", "1s", "7s", "59s", "1m", "1h00m", "1h00m", "1h30m"]


def test_progress_drops_the_estimate_when_nothing_is_left():
    busy = Progress(1, 3, 1, 5, 7.0, 28.0)
    assert progress_text(busy).plain == (
        "this query 1/3 · overall 1/5 (20%) · 7s/judgment · ~28s left")
    quick = Progress(1, 3, 4, 5, 0.2, 0.2)
    assert progress_text(quick).plain.endswith("· <1s/judgment · <1s left")
    done = Progress(0, 0, 5, 5, 7.0, 0.0)
    assert progress_text(done).plain == "overall 5/5 (100%) · 7s/judgment"


def test_disagreement_separates_who_from_the_grade():
    text = disagreement_text({"bob": 0, "alice": 3}, DEFAULT_GRADES, show_names=False).plain
    assert text == ("Assessors disagree: assessor 1: 3 (perfectly relevant) · "
                    "assessor 2: 0 (not relevant)")
    named = disagreement_text({"bob": 0, "alice": 3}, DEFAULT_GRADES, show_names=True).plain
    assert named.endswith("alice: 3 (perfectly relevant) · bob: 0 (not relevant)")


def test_query_shows_description_and_narrative():
    q = QueryRecord("q1", "maize pests", "How to control pests.", "Chemical-only advice is 1.")
    text = query_text(q)
    assert text.plain == "maize pests\nHow to control pests.\nChemical-only advice is 1."
    assert query_text(QueryRecord("q2", "only text")).plain == "only text"


def test_clip_keeps_what_fits_and_says_where_the_rest_is():
    text = Text("one two three four five six seven eight nine ten")
    assert clip(text, 20, 4, "more").plain == text.plain  # 3 lines at 20 columns
    clipped = clip(text, 10, 3, "(more)").plain.split("\n")
    assert clipped == ["one two", "three four", "(more)"]
    assert clip(text, None, 1, "more") is text
