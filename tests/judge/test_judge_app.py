"""Pilot tests: drive the judging app with keystrokes and check what the store holds."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import timedelta

from judge_helpers import (
    POOL_SIZE,
    TINY_QUERIES,
    TickClock,
    narrative_store,
    sync,
)
from rich.text import Text
from textual import events
from textual.widgets import Input, OptionList, Static

from poolkit.config import DEFAULT_KEYS, JudgeConfig
from poolkit.judge.app import JudgeApp
from poolkit.judge.dialogs import (
    NOTE_TITLE,
    GuidelinesScreen,
    JumpScreen,
    PromptScreen,
    ReviewScreen,
    TopicScreen,
)
from poolkit.judge.screens import JudgeScreen
from poolkit.judge.session import JudgingSession
from poolkit.judge.texts import TERM_HIGHLIGHT
from poolkit.judge.widgets import PassageView
from poolkit.store import Event, NewMember, Store
from poolkit.store.judging import seconds_taken

SIZE = (80, 24)


def text_of(app: JudgeApp, widget_id: str) -> str:
    content = app.judge_screen.query_one(widget_id, Static).content
    return content.plain if isinstance(content, Text) else str(content)


def screen_text(app: JudgeApp) -> str:
    return "\n".join(text_of(app, f"#{w}") for w in
                     ("title", "query", "head", "passage", "dispute", "grades", "progress",
                      "keys"))


def is_note_dialog(screen: object) -> bool:
    return isinstance(screen, PromptScreen) and screen.title_text == NOTE_TITLE


def make_app(store: Store, clock, assessor: str = "alice", judge: JudgeConfig | None = None,
             **kwargs) -> JudgeApp:
    show_names = kwargs.pop("show_names", False)
    # The topic card and the rubric, open on a first session (each tested on its own), would
    # take the first key of every test and rows of its screen.
    return JudgeApp(JudgingSession(store, assessor, clock=clock, **kwargs),
                    judge or JudgeConfig(topic_card=False), show_names=show_names,
                    rubric=False)


@sync
async def test_judge_a_whole_sample_query_with_keystrokes(sample_store, clock):
    app = make_app(sample_store, clock)
    first_query = sample_store.pool()[0].qid
    expected = [m for m in sample_store.pool() if m.qid == first_query]
    assert len(expected) == POOL_SIZE
    async with app.run_test(size=SIZE) as pilot:
        assert "Passage 1 of 6" in text_of(app, "#head")
        assert sample_store.queries()[first_query].text in text_of(app, "#query")
        keys = ["3", "2", "1", "0", "2", "1"]
        for n, key in enumerate(keys, start=1):
            await pilot.press(key)
            # Committed before the next passage is on screen.
            assert len(sample_store.events(kinds=["grade"])) == n
            assert f"this query {n}/6" in text_of(app, "#progress") or n == 6
        # The query is done: the next query's first passage is showing.
        assert app.session.current.qid != first_query
        assert "Passage 1 of 6" in text_of(app, "#head")
        assert "overall 6/24" in text_of(app, "#progress")
    events = sample_store.events()
    assert [(e.qid, e.docid, e.grade) for e in events] == [
        (m.qid, m.docid, int(k)) for m, k in zip(expected, keys)]
    for pos, (e, m) in enumerate(zip(events, expected), start=1):
        assert (e.assessor, e.kind, e.position, e.pool_version) == ("alice", "grade", pos, 1)
        assert e.text_hash == m.text_hash
        assert seconds_taken(e) == 7.0  # TickClock: shown, then graded one tick later
        assert e.note is None
    labels = {d: g["alice"].grade for (q, d), g in sample_store.current_grades().items()}
    assert labels == {m.docid: int(k) for m, k in zip(expected, keys)}


@sync
async def test_undo_key_appends_an_undo_event(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2", "3", "u")
        assert app.session.current.docid == "d2"
        assert "your grade" not in text_of(app, "#head")
        await pilot.press("u")
        assert app.session.current.docid == "d1"
        await pilot.press("u")  # nothing left: a warning, no event
    kinds = [(e.kind, e.docid, e.ref) for e in tiny_store.events()]
    assert kinds == [("grade", "d1", None), ("grade", "d2", None), ("undo", "d2", 2),
                     ("undo", "d1", 1)]
    assert tiny_store.current_grades() == {}


@sync
async def test_reopening_resumes_at_first_unjudged(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "1", "q")
    again = make_app(tiny_store, clock)
    async with again.run_test(size=SIZE):
        assert again.session.current.docid == "d3"
        assert "Passage 3 of 3" in text_of(again, "#head")
        assert "this query 2/3" in text_of(again, "#progress")


@sync
async def test_skip_records_an_event_and_the_passage_returns_at_the_end_of_its_query(
        tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        assert app.session.current.docid == "d2"
        assert text_of(app, "#message") == "skipped"
        await pilot.press("1", "1")
        # Back before the next query starts.
        assert app.session.current.docid == "d1"
        assert "skipped earlier" in text_of(app, "#head")
        await pilot.press("2")
        assert app.session.current.qid == "q2"
    events = tiny_store.events()
    assert events[0].kind == "skip" and events[0].docid == "d1"
    assert [e.docid for e in events if e.kind == "grade"] == ["d2", "d3", "d1"]


@sync
async def test_note_is_saved_and_carried_on_the_grade(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        assert is_note_dialog(app.screen)
        await pilot.press(*"unclear date", "enter")
        assert isinstance(app.screen, JudgeScreen)
        assert "1 note" in text_of(app, "#head")
        await pilot.press("n", "x", "escape")  # cancelled: nothing recorded
        await pilot.press("2")
    note, grade = tiny_store.events()
    assert (note.kind, note.note, note.docid) == ("note", "unclear date", "d1")
    assert note.shown_at is not None and note.text_hash == grade.text_hash
    assert (grade.kind, grade.grade, grade.note) == ("grade", 2, "unclear date")


@sync
async def test_jump_to_another_query(sample_store, clock):
    app = make_app(sample_store, clock)
    qids = list(app.session.items)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j")
        assert isinstance(app.screen, JumpScreen)
        await pilot.press("down", "down", "enter")
        assert app.session.current.qid == qids[2]
        await pilot.press("3")
        await pilot.press("j", "escape")  # cancelled: stays put
        assert app.session.current.qid == qids[2]
    [event] = sample_store.events()
    assert (event.qid, event.grade, event.position) == (qids[2], 3, 1)


@sync
async def test_back_regrades_the_previous_passage(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "b")
        assert app.session.current.docid == "d1"
        assert "your grade: 1 (related)" in text_of(app, "#head")
        await pilot.press("3")
        assert app.session.current.docid == "d2"
    assert [e.grade for e in tiny_store.events()] == [1, 3]
    assert tiny_store.current_grades()[("q1", "d1")]["alice"].grade == 3


@sync
async def test_remapped_keys_from_config(tiny_store, clock):
    keys = {**DEFAULT_KEYS, "grade_0": "a", "grade_1": "w", "grade_2": "e", "grade_3": "r",
            "undo": "z", "skip": "x"}
    app = make_app(tiny_store, clock, judge=JudgeConfig(keys=keys, topic_card=False))
    async with app.run_test(size=SIZE) as pilot:
        footer = text_of(app, "#keys")
        assert footer.startswith("a w e r grade") and "z undo" in footer and "x skip" in footer
        assert " a  not relevant" in text_of(app, "#grades")
        await pilot.press("0", "1", "u", "s")  # the old keys do nothing now
        assert tiny_store.events() == []
        await pilot.press("r", "a", "z", "x")
    assert [(e.kind, e.grade) for e in tiny_store.events()] == [
        ("grade", 3), ("grade", 0), ("undo", None), ("skip", None)]


@sync
async def test_keys_written_as_characters_work(tiny_store, clock):
    # A config naturally says "?" or "/" where Textual's key names are question_mark, slash.
    keys = {**DEFAULT_KEYS, "guidelines": "?", "note": "/", "skip": " ", "search": "f"}
    app = make_app(tiny_store, clock, judge=JudgeConfig(keys=keys, topic_card=False))
    async with app.run_test(size=SIZE) as pilot:
        assert "? keys" in text_of(app, "#keys") and "/ note" in text_of(app, "#keys")
        assert "space skip" in text_of(app, "#keys")
        await pilot.press("question_mark")
        assert isinstance(app.screen, GuidelinesScreen)
        await pilot.press("question_mark")
        await pilot.press("slash")
        assert is_note_dialog(app.screen)
        await pilot.press("escape", "space")
    assert [e.kind for e in tiny_store.events()] == ["skip"]


@sync
async def test_footer_lists_every_binding_where_there_is_room(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert text_of(app, "#keys") == ("0-3 grade  ← → move  u undo  s skip  n note  c can't  "
                                         "d later  b back  r review  j jump  / search  t terms  "
                                         "e topic  i rubric  ? help  q quit")
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:  # one line: help lists the rest
        await pilot.pause()
        assert text_of(app, "#keys") == ("0-3 grade  ← → move  u undo  s skip  n note  c can't  "
                                         "d later  ? keys  q quit")
        assert app.judge_screen.query_one("#keys").size.height == 1


@sync
async def test_footer_wraps_between_bindings_on_a_very_narrow_terminal(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=(40, 24)):
        lines = text_of(app, "#keys").split("\n")
        assert len(lines) > 1 and all(len(line) <= 38 for line in lines)
        assert "q quit" in lines[-1]


@sync
async def test_a_wrapped_footer_is_wholly_on_screen(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=(50, 16)) as pilot:
        await pilot.pause()
        keys = app.judge_screen.query_one("#keys")
        assert keys.size.height == 4 and keys.region.bottom == 16


@sync
async def test_jump_dialog_lines_up_its_columns(sample_store, clock):
    app = make_app(sample_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j")
        options = app.screen.query_one("#jump-list").options
        prompts = [str(o.prompt) for o in options]
        starts = {p.index(app.session.query(o.id).text[:20]) for p, o in zip(prompts, options)}
        assert len(starts) == 1, prompts


@sync
async def test_wide_terminal_puts_the_topic_beside_the_passage(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.pause()
        topic = app.judge_screen.query_one("#query").outer_size.width
        assert app.judge_screen.query_one("#passage").size.width == 200 - topic - 4


@sync
async def test_a_long_narrative_folds_at_80x24_and_unfolds_with_a_key(tmp_path, clock):
    with narrative_store(tmp_path / "n.sqlite") as store:
        app = make_app(store, clock)
        async with app.run_test(size=SIZE) as pilot:
            shown = text_of(app, "#query").split("\n")
            assert shown[0] == TINY_QUERIES[0].text
            assert shown[1] == TINY_QUERIES[0].description
            assert shown[2].startswith("narrative: Point 1:") and len(shown) == 4
            assert shown[3] == "(e: whole topic)"
            await pilot.press("e")
            shown = text_of(app, "#query").split("\n")
            assert len(shown) == 8  # the rows 24 can spare (24 - RESERVED_ROWS)
            assert shown[-1] == "… the rest is with the guidelines (?); e folds"
            assert "Passage 1 of 3" in text_of(app, "#head")  # the passage keeps its place
            await pilot.press("e")
            assert len(text_of(app, "#query").split("\n")) == 4
            await pilot.press("question_mark")
            whole = str(app.screen.query_one("#guidelines-text", Static).content)
            assert "Point 11: passages about stored-grain insects are related." in whole
            assert whole.startswith(f"Query q1: {TINY_QUERIES[0].text}")


@sync
async def test_a_tall_terminal_shows_the_whole_topic(tmp_path, clock):
    with narrative_store(tmp_path / "n.sqlite") as store:
        app = make_app(store, clock)
        async with app.run_test(size=(160, 45)):
            shown = text_of(app, "#query")
            assert "Point 11: passages about stored-grain insects are related." in shown
            assert "whole topic" not in shown


@sync
async def test_guidelines_open_over_the_passage_and_block_grading(tiny_store, clock):
    judge = JudgeConfig(guidelines="Grade for a smallholder farmer.", topic_card=False)
    app = make_app(tiny_store, clock, judge=judge)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, GuidelinesScreen)
        shown = app.screen.query_one("#guidelines-text", Static).content
        assert "smallholder farmer" in str(shown) and "3 = perfectly relevant" in str(shown)
        await pilot.press("2")
        assert tiny_store.events() == []
        await pilot.press("question_mark")
        assert isinstance(app.screen, JudgeScreen)


@sync
async def test_blind_by_default_and_sources_only_when_not_blind(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE):
        assert "sysA" not in screen_text(app)
    seeing = make_app(tiny_store, clock, judge=JudgeConfig(blind=False, topic_card=False))
    async with seeing.run_test(size=SIZE):
        assert "pooled by sysA #1" in text_of(seeing, "#head")


@sync
async def test_long_passage_scrolls_at_80x24(tiny_store, clock):
    app = make_app(tiny_store, clock, start_qid="q1")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1")  # d2 is the long one
        box = app.judge_screen.query_one("#passage-box")
        assert box.max_scroll_y > 0
        await pilot.pause()
        # Where the reader is, and the keys that scroll.
        assert box.border_subtitle == "lines 1-15 of 24 · ▼ 9 more lines · ↑↓ PgUp PgDn"
        await pilot.press("pagedown")
        assert box.scroll_y > 0
        await pilot.pause()
        assert box.border_subtitle == "lines 10-24 of 24 · ↑↓ PgUp PgDn"
        await pilot.press("2")  # next passage starts at the top
        assert box.scroll_y == 0
        await pilot.pause()
        assert not box.border_subtitle  # short: nothing to scroll


@sync
async def test_a_failed_write_keeps_the_passage(tiny_store, clock, monkeypatch):
    app = make_app(tiny_store, clock)
    real = tiny_store.record_event
    calls = []

    def flaky(event: Event) -> int:
        calls.append(event)
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return real(event)

    monkeypatch.setattr(tiny_store, "record_event", flaky)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        assert app.session.current.docid == "d1" and tiny_store.events() == []
        await pilot.press("2")
        assert app.session.current.docid == "d2"
    assert [e.grade for e in tiny_store.events()] == [2]


@sync
async def test_adjudication_view_shows_both_grades_and_records_the_ruling(tiny_store, clock):
    tiny_store.record_event(Event("q1", "d2", "alice", "grade", grade=3))
    tiny_store.record_event(Event("q1", "d2", "bob", "grade", grade=0))
    tiny_store.record_event(Event("q1", "d2", "bob", "note", note="only termites"))
    app = make_app(tiny_store, clock, assessor="carol", mode="adjudicate")
    async with app.run_test(size=SIZE) as pilot:
        dispute = text_of(app, "#dispute")
        assert "assessor 1: 3 (perfectly relevant) · assessor 2: 0 (not relevant)" in dispute
        assert "alice" not in screen_text(app) and "bob" not in screen_text(app)
        assert "note by assessor 2 (grade 0): only termites" in dispute
        await pilot.press("1")
        assert app.session.current is None
        assert "every passage is done" in text_of(app, "#head")
        what_now = text_of(app, "#passage")
        assert "j to pick a query" in what_now and "q to quit" in what_now
        assert "left" not in text_of(app, "#progress")
    last = tiny_store.events()[-1]
    assert (last.kind, last.assessor, last.grade) == ("adjudicate", "carol", 1)


@sync
async def test_adjudication_with_names(tiny_store, clock):
    tiny_store.record_event(Event("q1", "d2", "alice", "grade", grade=3))
    tiny_store.record_event(Event("q1", "d2", "bob", "grade", grade=0))
    app = make_app(tiny_store, clock, assessor="carol", mode="adjudicate", show_names=True)
    async with app.run_test(size=SIZE):
        assert "alice: 3 (perfectly relevant) · bob: 0 (not relevant)" in text_of(app, "#dispute")


@sync
async def test_the_screen_keeps_running_while_a_write_waits(tiny_store, clock, monkeypatch):
    """A slow store (another process holding the write lock) does not freeze the UI, and the
    next passage still waits for the commit."""
    entered, gate = threading.Event(), threading.Event()
    real = tiny_store.record_event

    def slow(event: Event) -> int:
        entered.set()
        gate.wait(timeout=60)  # released by the test below
        return real(event)

    monkeypatch.setattr(tiny_store, "record_event", slow)
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE):
        screen = app.judge_screen
        painted = screen.painted
        app._driver.send_message(events.Key("2", "2"))
        while not entered.is_set():  # the write has started and is stuck...
            await asyncio.sleep(0.01)
        ticked = asyncio.Event()
        screen.set_timer(0.01, ticked.set)  # the screen's own message loop still runs
        await asyncio.wait_for(ticked.wait(), timeout=60)
        assert app.session.current.docid == "d1" and tiny_store.events() == []
        gate.set()
        while screen.painted == painted or app.session.current.docid == "d1":
            await asyncio.sleep(0.01)
        assert app.session.current.docid == "d2"
    assert [e.grade for e in tiny_store.events()] == [2]


@sync
async def test_item_1_regrade_after_going_back_moves_on_in_order(six_store, clock):
    # Grade three, back twice, regrade: the next grade lands on passage 3 (not on 4, which
    # nobody has read).
    app = make_app(six_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "1", "1", "b", "b")
        assert "Passage 2 of 6" in text_of(app, "#head")
        assert "your grade: 1" in text_of(app, "#head")
        await pilot.press("2")
        assert "Passage 3 of 6" in text_of(app, "#head")
        assert "your grade: 1" in text_of(app, "#head")  # its existing grade is shown
        await pilot.press("0")
        assert "Passage 4 of 6" in text_of(app, "#head")
    graded = [(e.position, e.grade) for e in six_store.events(kinds=["grade"])]
    assert graded == [(1, 1), (2, 1), (3, 1), (2, 2), (3, 0)]


@sync
async def test_arrows_and_h_l_move_without_grading(six_store, clock):
    app = make_app(six_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "l")
        assert "Passage 3 of 6" in text_of(app, "#head")
        await pilot.press("h")
        assert "Passage 2 of 6" in text_of(app, "#head")
        await pilot.press("left", "left")
        assert "Passage 1 of 6" in text_of(app, "#head")
        assert text_of(app, "#message") == "first passage"
    assert six_store.events() == []


@sync
async def test_a_burst_of_four_grade_keys_records_one_grade(six_store):
    clock = TickClock(step=0)  # time stands still unless the test moves it
    session = JudgingSession(six_store, "alice", clock=clock, min_display=0.25)
    app = JudgeApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")  # the topic card goes; the key grades nothing
        assert six_store.events() == []
        clock.now += timedelta(seconds=2)  # passage 1 has been read
        await pilot.press("0", "0", "0", "0")
        assert "Passage 2 of 6" in text_of(app, "#head")
        assert text_of(app, "#message").startswith("too quick: key dropped")
        clock.now += timedelta(seconds=0.3)
        await pilot.press("2")  # a key after the window counts
        assert "Passage 3 of 6" in text_of(app, "#head")
    assert [(e.position, e.grade) for e in six_store.events()] == [(1, 0), (2, 2)]


@sync
async def test_a_restart_can_go_back_and_regrade_the_first_passage(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "2", "q")
    again = make_app(tiny_store, clock)
    async with again.run_test(size=SIZE) as pilot:
        assert "Passage 3 of 3" in text_of(again, "#head")
        await pilot.press("b", "b")
        assert "Passage 1 of 3" in text_of(again, "#head")
        assert "your grade: 3" in text_of(again, "#head")
        await pilot.press("1")
        assert "Passage 2 of 3" in text_of(again, "#head")
        assert text_of(again, "#message") == "d1 -> 1 related"
    assert tiny_store.current_grades()[("q1", "d1")]["alice"].grade == 1


@sync
async def test_undo_skip_and_back_confirm_in_one_line(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        assert text_of(app, "#message") == "d1 -> 2 highly relevant"
        await pilot.press("u")
        assert text_of(app, "#message") == "undone: doc d1, grade 2"
        await pilot.press("s")
        assert text_of(app, "#message") == "skipped"
        await pilot.press("b")
        assert text_of(app, "#message") == "back"
        # The message shares the progress line: the grade line stays uncovered.
        message = app.judge_screen.query_one("#message")
        grades = app.judge_screen.query_one("#grades")
        assert message.region.y != grades.region.y
        assert not app._notifications


@sync
async def test_topic_card_on_start_and_on_each_new_query_any_key_dismisses(tiny_store, clock):
    app = make_app(tiny_store, clock, judge=JudgeConfig())
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, TopicScreen)
        card = str(app.screen.query_one("#topic-text", Static).content)
        assert card.startswith(TINY_QUERIES[0].text) and "Description" in card
        await pilot.press("2")  # dismisses; grades nothing
        assert isinstance(app.screen, JudgeScreen) and tiny_store.events() == []
        await pilot.press("1", "1", "1")
        # q2 starts: its card comes up before its first passage can be graded.
        assert isinstance(app.screen, TopicScreen)
        assert "New query q2 (2 of 2)" in str(app.screen.query_one(".dialog-title",
                                                                  Static).content)
        await pilot.press("3")
        assert isinstance(app.screen, JudgeScreen)
        assert [e.grade for e in tiny_store.events()] == [1, 1, 1]
        await pilot.press("left", "right")  # moving back into q1 and out again: no card
        assert isinstance(app.screen, JudgeScreen)


@sync
async def test_review_list_filters_by_grade_and_opens_a_passage_to_regrade(six_store, clock):
    app = make_app(six_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2", "0", "2", "s")
        await pilot.press("r")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        rows = [str(review.query_one(OptionList).get_option_at_index(i).prompt)
                for i in range(review.query_one(OptionList).option_count)]
        assert rows == ["1  d1  2 highly relevant  Controlling fall armyworm",
                        "2  d2  0 not relevant     Termites in maize fields",
                        "3  d3  2 highly relevant  Stem borers",
                        "4  d4  skipped            Drying maize",
                        "5  d5  –                  Weevils in store",
                        "6  d6  –                  Termites in maize fields"]
        await pilot.press("2")  # only grade 2
        assert review.query_one(OptionList).option_count == 2
        assert "2 of 6 passages (grade 2)" in str(review.query_one("#review-title",
                                                                   Static).content)
        await pilot.press("minus")
        assert review.query_one(OptionList).option_count == 3
        await pilot.press("a", "home", "enter")  # all, first row: open passage 1
        assert isinstance(app.screen, JudgeScreen)
        assert "Passage 1 of 6" in text_of(app, "#head")
        await pilot.press("3")  # a regrade from the list: back where she was (passage 5)
        assert "Passage 5 of 6" in text_of(app, "#head")
    assert six_store.current_grades()[("q1", "d1")]["alice"].grade == 3


@sync
async def test_after_a_restart_the_review_list_still_reaches_the_first_passage(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "1", "1", "1", "1", "q")  # everything, then quit
    again = make_app(tiny_store, clock)
    async with again.run_test(size=SIZE) as pilot:
        assert again.session.current is None
        await pilot.press("r")
        assert isinstance(again.screen, ReviewScreen) and again.screen.qid == "q2"
        await pilot.press("escape", "j")
        await pilot.press(*"q1", "enter")  # the jump list, filtered to q1
        await pilot.press("r", "home", "enter")
        assert "Passage 1 of 3" in text_of(again, "#head")
        await pilot.press("0")
    assert tiny_store.current_grades()[("q1", "d1")]["alice"].grade == 0


@sync
async def test_jump_list_filters_by_id_or_text(sample_store, clock):
    app = make_app(sample_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j")
        jump = app.screen
        options = jump.query_one("#jump-list", OptionList)
        total = options.option_count
        assert total == len(app.session.query_ids)
        target = app.session.query_ids[-1]
        word = app.session.query(target).text.split()[-1].strip("?").lower()
        await pilot.press(*word)
        assert 1 <= options.option_count < total
        assert all(word in str(options.get_option_at_index(i).prompt).lower()
                   for i in range(options.option_count))
        await pilot.press(*("x" * 5))
        assert options.option_count == 0
        await pilot.press("enter")  # nothing to pick: stays open
        assert app.screen is jump
        await pilot.press(*["backspace"] * 5, "enter")
        assert isinstance(app.screen, JudgeScreen)
        assert app.session.current.qid == str(
            app.session.query_ids[[i for i, q in enumerate(app.session.query_ids)
                                   if word in app.session.query(q).text.lower()][0]])


@sync
async def test_search_highlights_hits_and_n_moves_between_them(tiny_store, clock):
    app = make_app(tiny_store, clock, start_qid="q1")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right")  # d2: "termite" in many paragraphs
        await pilot.press("slash", *"termite", "enter")
        view = app.judge_screen.query_one(PassageView)  # the passage and its search
        assert len(view.hits) == 16 and view.hit == 0
        await pilot.pause()
        box = app.judge_screen.query_one("#passage-box")
        assert box.border_subtitle.startswith("'termite': hit 1 of 16 · lines 1-")
        assert "16 hit(s)" in text_of(app, "#message")
        await pilot.press("N")  # back from the first is the last
        await pilot.pause()
        assert view.hit == 15 and box.scroll_y > 0
        assert box.border_subtitle.startswith("'termite': hit 16 of 16")
        await pilot.press("n")  # while searching, n is "next hit", not a note
        assert view.hit == 0 and isinstance(app.screen, JudgeScreen)
        await pilot.press("escape")
        assert view.search is None
        await pilot.press("n")
        assert is_note_dialog(app.screen)


@sync
async def test_added_terms_are_highlighted_and_remembered_per_assessor_and_query(tiny_store,
                                                                                 clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t", *"egg masses", "enter")
        assert text_of(app, "#message") == "highlighting 'egg masses'"
        passage = app.judge_screen.query_one("#passage", Static).content
        marked = [passage.plain[s.start:s.end] for s in passage.spans
                  if str(s.style) == TERM_HIGHLIGHT]
        assert marked == ["egg masses", "Egg masses"] or marked == ["egg masses"] * 2
    again = make_app(tiny_store, clock)
    async with again.run_test(size=SIZE) as pilot:
        assert again.session.terms("q1") == ["egg masses"]
        assert make_app(tiny_store, clock, assessor="bob").session  # others: their own
        await pilot.press("t", *"Egg  Masses", "enter")  # the same term: removed
        assert text_of(again, "#message") == "no longer highlighting 'egg masses'"
        assert again.session.terms("q1") == []


@sync
async def test_a_note_is_shown_on_its_passage_and_can_be_edited(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", *"date?", "enter")
        assert text_of(app, "#note") == "note: date?  (n edits)"
        await pilot.press("n")
        assert app.screen.query_one(Input).value == "date?"
        await pilot.press("backspace", *" unclear", "enter")
        assert text_of(app, "#note") == "note: date unclear  (n edits)"
        await pilot.press("2", "left")
        assert text_of(app, "#note") == "note: date unclear  (n edits)"
    notes = [e.note for e in tiny_store.events(kinds=["note"])]
    assert notes == ["date?", "date unclear"]


@sync
async def test_a_session_taken_over_elsewhere_refuses_further_grades(tiny_store, clock):
    from poolkit.store.claims import claim

    mine = claim(tiny_store, "alice")
    app = JudgeApp(JudgingSession(tiny_store, "alice", clock=clock),
                   JudgeConfig(topic_card=False), claim=mine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1")
        claim(tiny_store, "alice", host="laptop", pid=4242, take_over=True)
        await pilot.press("2")
        assert text_of(app, "#message").startswith("not saved: another session took over "
                                                   "laptop pid 4242")
        assert "Passage 2 of 3" in text_of(app, "#head")
    assert [e.grade for e in tiny_store.events()] == [1]


@sync
async def test_the_scroll_hint_is_gone_when_the_passage_fits(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.judge_screen.query_one("#passage-box").border_subtitle == ""


@sync
async def test_an_open_session_sees_a_new_pool_version_at_the_next_query(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1")
        tiny_store.add_pool_version({"sysB": 5}, "shuffle",
                                    [NewMember("q1", "d9", "Late", "armyworm traps", 9.0)], [])
        await pilot.press("1", "1")
        assert app.session.current.docid == "d9"
        assert "Passage 4 of 4" in text_of(app, "#head")
