"""The judging screen's wording as pure functions: footer and grade bar packing, durations,
progress, the header and the adjudication line."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text

from poolkit.config import DEFAULT_GRADES, DEFAULT_KEYS
from poolkit.judge.session import JudgingProgress
from poolkit.judge.texts import (
    clip,
    closure_text,
    disagreement_text,
    duration,
    grade_bar,
    key_bar,
    progress_fit,
    progress_text,
    topic_text,
)
from poolkit.store import QueryRecord


def test_default_footer_is_one_line_at_80_columns_and_whole_at_160():
    # The terminal's width less the bar's one-cell padding each side; at 80 columns help
    # lists the keys the bar had no room for.
    footer = key_bar(DEFAULT_KEYS, width=78).plain
    assert footer == "0-3 grade  ← → move  u undo  s skip  n note  c can't  d later  ? keys  q quit"
    assert key_bar(DEFAULT_KEYS, width=158).plain == (
        "0-3 grade  ← → move  u undo  s skip  n note  c can't  d later  b back  r review  "
        "j jump  / search  t terms  e topic  i rubric  ? help  q quit")


def test_footer_wraps_between_bindings_never_inside_one():
    lines = key_bar(DEFAULT_KEYS, width=30).plain.split("\n")
    assert all(len(line) <= 30 for line in lines)
    assert "q quit" in lines[-1] and "? help" in "\n".join(lines)
    assert [part for line in lines for part in line.split("  ")] == [
        "0-3 grade", "← → move", "u undo", "s skip", "n note", "c can't", "d later", "b back",
        "r review", "j jump",
        "/ search", "t terms", "e topic", "i rubric", "? help", "q quit"]


def test_remapped_grade_keys_are_each_listed():
    keys = {**DEFAULT_KEYS, "grade_0": "a", "grade_1": "w", "grade_2": "e", "grade_3": "r"}
    assert key_bar(keys).plain.startswith("a w e r grade  ← → move  u undo")
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
    busy = JudgingProgress(1, 3, 1, 5, 7.0, 28.0)
    assert progress_text(busy).plain == (
        "this query 1/3 · overall 1/5 (20%) · 7s/judgment · ~28s left")
    quick = JudgingProgress(1, 3, 4, 5, 0.2, 0.2)
    assert progress_text(quick).plain.endswith("· <1s/judgment · <1s left")
    done = JudgingProgress(0, 0, 5, 5, 7.0, 0.0)
    assert progress_text(done).plain == "overall 5/5 (100%) · 7s/judgment"


def test_progress_drops_detail_to_fit_the_least_missed_first():
    busy = JudgingProgress(5, 60, 5, 180, 7.0, 1225.0)
    fitted = [progress_fit(busy, width).plain for width in (80, 50, 40, 10)]
    assert fitted == ["this query 5/60 · overall 5/180 (3%) · 7s/judgment · ~20m left",
                      "this query 5/60 · overall 5/180 · ~20m left",
                      "query 5/60 · all 5/180 · ~20m left",
                      "query 5/60 · all 5/180 · ~20m left"]  # the tersest, when none fits


@given(st.integers(0, 500), st.integers(0, 500), st.integers(0, 10_000),
       st.one_of(st.none(), st.floats(0, 600)), st.integers(0, 120))
def test_fitted_progress_is_the_most_detailed_that_fits_and_keeps_the_counts(
        query_done, more, done, pace, width):
    progress = JudgingProgress(query_done, query_done + more, done, done + more, pace,
                               None if pace is None else pace * more)
    fitted = progress_fit(progress, width).plain
    forms = [progress_text(progress, terse).plain for terse in range(4)]
    assert fitted == next((f for f in forms if len(f) <= width), forms[-1])
    assert f"{done}/{done + more}" in fitted
    assert f"{query_done}/{query_done + more}" in fitted or not query_done + more


def test_disagreement_separates_who_from_the_grade():
    text = disagreement_text({"bob": 0, "alice": 3}, DEFAULT_GRADES, show_names=False).plain
    assert text == ("Assessors disagree: assessor 1: 3 (perfectly relevant) · "
                    "assessor 2: 0 (not relevant)")
    named = disagreement_text({"bob": 0, "alice": 3}, DEFAULT_GRADES, show_names=True).plain
    assert named.endswith("alice: 3 (perfectly relevant) · bob: 0 (not relevant)")


def test_topic_shows_description_and_narrative_whole_or_folded():
    q = QueryRecord("q1", "maize pests", "How to control pests.\nAny crop stage.",
                    "Chemical-only advice is 1.")
    text = topic_text(q, fold=False, expand_key="e")
    assert text.plain == ("maize pests\nHow to control pests.\nAny crop stage.\n"
                          "narrative: Chemical-only advice is 1.")
    folded = topic_text(q, fold=True, expand_key="e")
    assert folded.plain == ("maize pests\nHow to control pests.\n"
                            "narrative: Chemical-only advice is 1.\n(e: whole topic)")
    assert topic_text(QueryRecord("q2", "only text"), fold=True, expand_key="e").plain \
        == "only text"


def test_adjudication_notes_say_whose_grade_they_explain():
    votes = {"bob": 0, "alice": 3}
    notes = [("bob", "off topic"), ("carol", "see guideline 2")]
    blind = disagreement_text(votes, DEFAULT_GRADES, False, notes).plain.split("\n")
    assert blind[1:] == ["note by assessor 2 (grade 0): off topic",
                         "note by someone without a grade here: see guideline 2"]
    named = disagreement_text(votes, DEFAULT_GRADES, True, notes).plain.split("\n")
    assert named[1:] == ["note by bob (grade 0): off topic",
                         "note by carol (no grade here): see guideline 2"]


def test_clip_keeps_what_fits_and_says_where_the_rest_is():
    text = Text("one two three four five six seven eight nine ten")
    assert clip(text, 20, 4, "more").plain == text.plain  # 3 lines at 20 columns
    clipped = clip(text, 10, 3, "(more)").plain.split("\n")
    assert clipped == ["one two", "three four", "(more)"]
    assert clip(text, None, 1, "more") is text


def test_closures_say_query_and_reason_and_count_what_does_not_fit():
    assert closure_text([("q1", "budget 12/12 spent")]) == "query q1 closed: budget 12/12 spent"
    two = [("q1", "budget 2/2 spent"), ("q2", "budget 3/3 spent")]
    assert closure_text(two).splitlines() == ["query q1 closed: budget 2/2 spent",
                                              "query q2 closed: budget 3/3 spent"]
    many = [(f"q{i}", "budget 1/1 spent") for i in range(1, 41)]
    assert closure_text(many).splitlines() == [
        "query q1 closed: budget 1/1 spent", "query q2 closed: budget 1/1 spent",
        "… and 38 more queries closed (poolkit status says why)"]
