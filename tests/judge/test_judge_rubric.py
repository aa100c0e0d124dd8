"""The rubric on the judging screen: each grade's key, label and meaning, in the grade bar's
place; open on an assessor's first session, closed on her later ones, toggled by a key."""

from __future__ import annotations

import pytest
from judge_helpers import GUIDELINES, TickClock, narrative_store, sync
from rich.text import Text
from textual.widgets import Static

from poolkit.config import DEFAULT_KEYS, JudgeConfig
from poolkit.judge.app import JudgeApp
from poolkit.judge.session import JudgingSession
from poolkit.judge.texts import grade_meanings, rubric_text
from poolkit.judge.widgets import GradeBar, PassageView, RubricPane
from poolkit.store import Event

RUBRIC = [
    "Rubric · i hides it · ? shows the guidelines whole",
    "Grade each passage for how well it answers the question, as a smallholder farmer would "
    "need it:",
    " 0  not relevant",
    " 1  related: on topic, but would not answer the question alone",
    " 2  highly relevant: answers a substantial part of it",
    " 3  perfectly relevant: answers the question directly and completely"]


def make_app(store, judge: JudgeConfig | None = None) -> JudgeApp:
    return JudgeApp(JudgingSession(store, "alice", clock=TickClock()),
                    judge or JudgeConfig(guidelines=GUIDELINES, topic_card=False))


def shown(app: JudgeApp) -> tuple[bool, bool]:
    """(the rubric, the grade bar) on screen."""
    screen = app.judge_screen
    return screen.query_one(RubricPane).display, screen.query_one(GradeBar).display


def message(app: JudgeApp) -> str:
    content = app.judge_screen.query_one("#message", Static).content
    return content.plain if isinstance(content, Text) else str(content)


@sync
async def test_a_first_session_opens_with_the_rubric_and_its_key_toggles_it(tiny_store):
    app = make_app(tiny_store)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        rubric = app.judge_screen.query_one(RubricPane)
        assert shown(app) == (True, False)
        assert rubric.fit(None).plain.splitlines() == RUBRIC
        await pilot.press("i")
        assert shown(app) == (False, True) and message(app) == "rubric hidden (i shows it)"
        await pilot.press("i")
        assert shown(app) == (True, False) and message(app) == "rubric shown (i hides it)"


@sync
async def test_grading_works_with_the_rubric_open_and_it_marks_the_standing_grade(tiny_store):
    app = make_app(tiny_store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        assert [(e.docid, e.grade) for e in tiny_store.events()] == [("d1", 2)]
        rubric = app.judge_screen.query_one(RubricPane)
        assert app.session.current.docid == "d2" and rubric.current is None
        await pilot.press("b")  # back to d1: its grade is marked, as on the grade bar
        assert rubric.current == 2 and app.judge_screen.query_one(GradeBar).current == 2
        assert shown(app) == (True, False)


@sync
async def test_a_later_session_starts_with_the_rubric_closed(tiny_store):
    tiny_store.record_event(Event("q1", "d1", "alice", "grade", grade=1))
    app = make_app(tiny_store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert shown(app) == (False, True)
        await pilot.press("i")
        assert shown(app) == (True, False)
    bob = JudgeApp(JudgingSession(tiny_store, "bob", clock=TickClock()),
                   JudgeConfig(guidelines=GUIDELINES, topic_card=False))
    async with bob.run_test(size=(80, 24)) as pilot:  # alice's grades are not bob's
        await pilot.pause()
        assert shown(bob) == (True, False)


@sync
async def test_its_key_can_be_remapped(tiny_store):
    app = make_app(tiny_store, JudgeConfig(guidelines=GUIDELINES, topic_card=False,
                                           keys={**DEFAULT_KEYS, "rubric": "x"}))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        rubric = app.judge_screen.query_one(RubricPane)
        assert rubric.fit(None).plain.startswith("Rubric · x hides it")
        await pilot.press("x")
        assert shown(app) == (False, True) and message(app) == "rubric hidden (x shows it)"


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 45)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_with_the_rubric_open_the_screen_still_fits(tmp_path, size):
    """A long narrative on top: the topic gives up the rows the rubric takes, the passage
    keeps a box worth reading, and the key bar is on screen."""

    @sync
    async def run() -> None:
        with narrative_store(tmp_path / "n.sqlite") as store:
            app = make_app(store)
            async with app.run_test(size=size) as pilot:
                await pilot.pause()
                screen = app.judge_screen
                assert screen.query_one("#rubric").region.height == len(RUBRIC) + (
                    size[0] < 100)  # (its opening wraps at 80 columns)
                assert screen.query_one(PassageView).scrollable_content_region.height >= 5
                assert screen.query_one("#keys").region.bottom == size[1]

    run()


def test_a_grade_s_meaning_is_a_guidelines_line_with_its_grade_and_label():
    grades = {0: "not relevant", 1: "relevant"}
    meanings, rest = grade_meanings(grades, "Steps:\n1. Read the query first.\n"
                                            "- 1 = relevant: answers it\n0 not relevant\n")
    assert meanings == {1: "answers it", 0: ""}
    assert rest == "Steps:\n1. Read the query first."  # a numbered list stays guidelines
    text = rubric_text(DEFAULT_KEYS, grades, "", width=40).plain
    assert text.splitlines() == ["Rubric · i hides it · ? shows the guidelines whole",
                                 " 0  not relevant", " 1  relevant"]
    long = "\n".join(f"line {i} of a long guidelines file" for i in range(10))
    assert rubric_text(DEFAULT_KEYS, grades, long, width=40).plain.splitlines()[1:4] == [
        "line 0 of a long guidelines file", "line 1 of a long guidelines file",
        "… the rest under ?"]
