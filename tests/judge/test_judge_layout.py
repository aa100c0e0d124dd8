"""Pilot tests of the judging screen's layout (issue 28, "the screen after 200 passages"):
each reproduces what an assessor saw at 80x24, 120x40 or 160x45 before it was fixed."""

from __future__ import annotations

import pytest
from judge_helpers import TickClock, sync
from judging_screen_helpers import pooled_store
from rich.text import Text
from textual.widgets import Static

from poolkit.config import JudgeConfig
from poolkit.judge.app import JudgeApp
from poolkit.judge.session import JudgingSession
from poolkit.judge.widgets import PassageView

SIZES = [(80, 24), (120, 40), (160, 45)]


def text_of(app: JudgeApp, selector: str) -> str:
    content = app.judge_screen.query_one(selector, Static).content
    return content.plain if isinstance(content, Text) else str(content)


def make_app(store, judge: JudgeConfig | None = None) -> JudgeApp:
    """The app on a first session, the rubric closed (its layout: test_judge_rubric.py)."""
    return JudgeApp(JudgingSession(store, "alice", clock=TickClock()),
                    judge or JudgeConfig(topic_card=False), rubric=False)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("keys", [["n"], ["slash"], ["t"], ["j"]],
                         ids=["note", "search", "terms", "jump"])
def test_a_dialog_leaves_the_passage_readable(tiny_store, size, keys):
    @sync
    async def run() -> None:
        app = make_app(tiny_store)
        async with app.run_test(size=size) as pilot:
            await pilot.press("right")  # d2: a passage longer than the box
            await pilot.press(*keys)
            await pilot.pause()
            dialog = app.screen.query_one(".dialog")
            box = app.judge_screen.query_one(PassageView)
            assert app.screen is not app.judge_screen
            assert dialog.region.y >= box.region.bottom, (dialog.region, box.region)
            assert box.scrollable_content_region.height >= 3  # lines of text, not a sliver
            # not dimmed: the screen under a docked dialog shows through as it is
            assert app.screen.styles.background.a == 0
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is app.judge_screen
            assert app.judge_screen.styles.padding.bottom == 0  # the room is given back

    run()


@sync
async def test_at_80x24_the_footer_is_one_line_and_the_message_whole(tmp_path):
    # 3 queries x 60 passages: the progress line is long (the report: `925 -> 0 not`)
    with pooled_store(tmp_path / "p.sqlite") as store:
        app = make_app(store)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("0", "1", "2", "3", "0")  # time left is estimated by now
            await pilot.pause()
            screen = app.judge_screen
            assert screen.query_one("#keys").region.height == 1
            assert screen.query_one("#status-row").region.height == 1
            message = text_of(app, "#message")
            assert message == "d004 -> 0 not relevant"
            assert len(message) <= screen.query_one("#message").content_size.width
            progress = text_of(app, "#progress")
            assert "5/60" in progress and "5/180" in progress and "left" in progress
            assert len(progress) <= screen.query_one("#progress").content_size.width
            assert "? keys" in text_of(app, "#keys")  # help lists every key
            await pilot.press("question_mark")
            help_text = str(app.screen.query_one("#guidelines-text", Static).content)
            lines = {" ".join(line.split()) for line in help_text.splitlines()}
            assert {"u undo", "b back", "←, h previous", "r review", "t terms", "e topic",
                    "q quit"} <= lines


@sync
async def test_a_wide_screen_puts_the_topic_beside_the_passage(tiny_store):
    # At 160x45 the text wrapped at about 100 columns under the topic, half the screen empty.
    app = make_app(tiny_store)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("right")
        await pilot.pause()
        topic = app.judge_screen.query_one("#query").region
        box = app.judge_screen.query_one(PassageView).region
        text = app.judge_screen.query_one("#passage").region
        assert topic.right <= box.x and topic.y <= box.y < topic.bottom  # beside it
        assert topic.width + box.width >= 158 and text.width > 100  # the width is used
        assert "fall armyworm" in text_of(app, "#query")


@sync
async def test_below_the_breakpoint_the_topic_stays_above_and_the_passage_takes_the_width(
        tiny_store):
    app = make_app(tiny_store)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("right")
        await pilot.pause()
        topic = app.judge_screen.query_one("#query").region
        box = app.judge_screen.query_one(PassageView).region
        assert topic.bottom <= box.y and box.width == 120
        assert app.judge_screen.query_one("#passage").region.width == 120 - 4  # border, padding


@sync
async def test_a_long_passage_says_how_much_is_unseen(tiny_store):
    app = make_app(tiny_store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("right")  # d2: 24 lines in a box of 15
        await pilot.pause()
        box = app.judge_screen.query_one(PassageView)
        assert "▼ 9 more lines" in box.border_subtitle
        await pilot.press("end")
        await pilot.pause()
        assert "more" not in box.border_subtitle and "lines 10-24 of 24" in box.border_subtitle


@sync
async def test_require_read_scrolls_on_until_the_end_was_shown(tiny_store):
    app = make_app(tiny_store, JudgeConfig(topic_card=False, require_read=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")  # d1 fits: graded at once
        assert [(e.docid, e.grade) for e in tiny_store.events()] == [("d1", 3)]
        box = app.judge_screen.query_one(PassageView)
        await pilot.press("2")  # d2 is longer than its box: the key scrolls, nothing recorded
        await pilot.pause()
        assert len(tiny_store.events()) == 1 and box.scroll_y > 0
        assert text_of(app, "#message").startswith("require_read: the end is shown")
        await pilot.press("2")
        assert [(e.docid, e.grade) for e in tiny_store.events()] == [("d1", 3), ("d2", 2)]


@sync
async def test_require_read_counts_the_end_seen_by_scrolling_and_is_off_by_default(tiny_store):
    app = make_app(tiny_store, JudgeConfig(topic_card=False, require_read=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("right", "end", "home")  # seen, then back to the top
        await pilot.pause()
        await pilot.press("1")
        assert [(e.docid, e.grade) for e in tiny_store.events()] == [("d2", 1)]
    app = make_app(tiny_store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("right", "0")
        assert [(e.docid, e.grade) for e in tiny_store.events()][-1] == ("d2", 0)


@pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])
def test_the_key_bar_shows_cant_judge_and_later(tiny_store, size):
    @sync
    async def run() -> None:
        app = make_app(tiny_store)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            keys = text_of(app, "#keys")
            assert "c can't" in keys and "d later" in keys and "\n" not in keys

    run()
