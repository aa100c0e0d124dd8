"""The judging screen on a binary and a 0-4 collection (Pilot): the config's ``grades:``
gives the grade keys, the key bar's range and the grade bar's labels; a digit off the scale
grades nothing."""

from __future__ import annotations

from judge_helpers import TickClock, sync, write_config
from rich.text import Text
from textual.widgets import Static

from poolkit.config import load_config
from poolkit.judge.app import JudgeApp
from poolkit.judge.dialogs import ReviewScreen
from poolkit.judge.session import JudgingSession

SIZE = (100, 30)
BINARY = "grades: {0: not relevant, 1: relevant}\n"
FIVE = "grades: {0: none, 1: weak, 2: fair, 3: good, 4: perfect}\n"


def text_of(app: JudgeApp, widget_id: str) -> str:
    content = app.judge_screen.query_one(widget_id, Static).content
    return content.plain if isinstance(content, Text) else str(content)


def app_for(tmp_path, store, grades: str) -> JudgeApp:
    config = load_config(write_config(tmp_path / "c", store.path,
                                      grades + "judge: {topic_card: false}\n"))
    store.record_scale(config.grades)
    return JudgeApp(JudgingSession(store, "alice", clock=TickClock()), config.judge)


@sync
async def test_a_0_to_4_collection_grades_4_and_shows_its_scale(tiny_store, tmp_path):
    app = app_for(tmp_path, tiny_store, FIVE)
    async with app.run_test(size=SIZE) as pilot:
        assert "0-4 grade" in text_of(app, "#keys")
        bar = text_of(app, "#grades")
        assert all(label in bar for label in ("none", "weak", "fair", "good", "perfect"))
        await pilot.press("4", "0", "5", "9")  # 5 and 9 are off the scale: nothing
        assert [(e.docid, e.grade) for e in tiny_store.events(kinds=["grade"])] == [
            ("d1", 4), ("d2", 0)]
        assert app.session.current.docid == "d3"
        await pilot.press("r")
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("4")  # the review filter takes the scale's grades
        assert app.screen.only == 4
        await pilot.press("7")
        assert app.screen.only == 4


@sync
async def test_a_binary_collection_takes_0_and_1_only(tiny_store, tmp_path):
    app = app_for(tmp_path, tiny_store, BINARY)
    async with app.run_test(size=SIZE) as pilot:
        assert "0-1 grade" in text_of(app, "#keys")
        assert "relevant" in text_of(app, "#grades")
        assert "2" not in text_of(app, "#grades").replace("d2", "")
        await pilot.press("2", "3")
        assert tiny_store.events(kinds=["grade"]) == []
        assert app.session.current.docid == "d1"
        await pilot.press("1")
    assert [(e.docid, e.grade) for e in tiny_store.events(kinds=["grade"])] == [("d1", 1)]


@sync
async def test_a_binary_collection_may_give_a_digit_to_another_action(tiny_store, tmp_path):
    """A digit the scale does not use is free for a remap (here: undo on 2)."""
    config = load_config(write_config(tmp_path / "c", tiny_store.path, BINARY
                                      + "judge: {topic_card: false, keys: {undo: '2'}}\n"))
    tiny_store.record_scale(config.grades)
    app = JudgeApp(JudgingSession(tiny_store, "alice", clock=TickClock()), config.judge)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "2")
    assert [e.kind for e in tiny_store.events()] == ["grade", "undo"]
