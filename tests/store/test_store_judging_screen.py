"""The judging screen itself on both backends, for many heartbeats (issue 22 items A, B and
15): the store contract holds for the app, not only for ``JudgingSession``.

The heartbeat runs every few milliseconds (``heartbeat_every``), and the tests wait for
states (heartbeats counted, grades saved, retries tried), never for a time. Under such a
heartbeat the keys are typed (``type_key``), not pressed: ``pilot.press`` waits for the app
to fall idle, which it never does, so each press would wait out Textual's one-second limit
twice and the test would wait on that instead of on the state it checks.
"""

from __future__ import annotations

import io
import random
import sqlite3
from collections import Counter

import pytest
import store_backends
from judging_screen_helpers import (
    TickClock,
    drop_connections,
    pooled_store,
    server_down,
    sync,
    until,
)
from rich.text import Text
from textual import events
from textual.widgets import Input, Static

from poolkit.app.status import watch
from poolkit.config import JudgeConfig
from poolkit.judge.app import JudgeApp
from poolkit.judge.dialogs import PromptScreen
from poolkit.judge.session import JudgingSession
from poolkit.store import Store
from poolkit.store.backends import open_store
from poolkit.store.claims import claim, release

SIZE = (100, 30)
GRADE_KEYS = 80


def message(app: JudgeApp) -> str:
    content = app.judge_screen.query_one("#message", Static).content
    return content.plain if isinstance(content, Text) else str(content)


def recorded(screen) -> list[str]:
    """Every message the screen says from now on (the line shows only the last one, and a
    heartbeat's may come right after a grade's)."""
    said: list[str] = []
    say = screen.say

    def record(text: str, severity: str = "information") -> None:
        said.append(text)
        say(text, severity)

    screen.say = record
    return said


def type_key(app: JudgeApp, key: str) -> None:
    """A key as the terminal sends it (no waiting for the app to be idle: with a heartbeat
    every millisecond it never is). The caller waits for the state the key leads to."""
    character = {"enter": "\r"}.get(key, key)
    app._driver.send_message(events.Key(key, character))  # type: ignore[union-attr]


def prompt_open(app: JudgeApp) -> bool:
    """A prompt dialog is on screen with its input focused: typed letters go there."""
    inputs = app.screen.query(Input) if isinstance(app.screen, PromptScreen) else []
    return bool(inputs) and app.focused is inputs[0]


def judge_app(store, heartbeat_every: float) -> tuple[JudgeApp, object]:
    mine = claim(store, "alice")
    session = JudgingSession(store, "alice", clock=TickClock())
    return JudgeApp(session, JudgeConfig(topic_card=False), claim=mine,
                    heartbeat_every=heartbeat_every), mine


@sync
async def test_many_grades_under_constant_heartbeats_are_each_kept_once(store_location):
    store = pooled_store(store_location, queries=2, docs=50)
    walk = [(m.qid, m.docid) for m in store.pool()]
    rng = random.Random(22)
    grades = [rng.randint(0, 3) for _ in range(GRADE_KEYS)]
    app, mine = judge_app(store, heartbeat_every=0.005)
    async with app.run_test(size=SIZE):
        await until(lambda: app.heartbeats >= 3, "three heartbeats before the first key")
        first = app.heartbeats
        for i, grade in enumerate(grades):  # typed ahead: keys wait their turn in order
            type_key(app, str(grade))
            if i in (10, 60):  # a highlight word (key t) on each query, as a write too
                await until(lambda: app.session.progress().done == i + 1, "the grades so far")
                type_key(app, "t")
                await until(lambda: prompt_open(app), "the highlight prompt")
                for key in [*"traps", "enter"]:
                    type_key(app, key)
                await until(lambda: app.session.terms(app.session.current.qid),
                            "the word saved")
                beats = app.heartbeats
                await until(lambda: app.heartbeats > beats, "a heartbeat between grades")
        await until(lambda: app.session.progress().done == GRADE_KEYS, "every grade saved")
        assert app.heartbeats >= first + 2  # (at least the two waited for between grades)
        beats = app.heartbeats
        await until(lambda: app.heartbeats > beats + 3, "heartbeats after the last grade")
        assert app.heartbeat_failures == 0
        assert not message(app).startswith(("not saved", "heartbeat"))
    release(store, mine)
    kept = store.events(kinds=["grade"])
    assert [(e.qid, e.docid, e.grade) for e in kept] == \
        [(*pair, g) for pair, g in zip(walk, grades)]
    assert max(Counter((e.qid, e.docid) for e in kept).values()) == 1
    assert store.assessor_terms("alice", "q0") == ["traps"]
    assert store.assessor_terms("alice", "q1") == ["traps"]
    store.close()


@sync
async def test_sqlite_a_writer_holding_the_store_past_the_wait_is_said_and_retried(tmp_path):
    path = tmp_path / "store.sqlite"
    pooled_store(path).close()
    store = Store(path, busy_timeout=0.05)
    app, mine = judge_app(store, heartbeat_every=0.01)
    holder = sqlite3.connect(path, isolation_level=None)
    async with app.run_test(size=SIZE):
        screen = app.judge_screen
        screen.retry_after = (0.01,)
        said = recorded(screen)
        type_key(app, "2")
        await until(lambda: app.session.current.docid == "d001", "the first grade saved")
        holder.execute("BEGIN IMMEDIATE")  # another writer holds the store...
        await until(lambda: app.heartbeat_failures >= 2, "two heartbeats refused")
        assert message(app).startswith("heartbeat not renewed (tried again in 0.01 s): ")
        type_key(app, "3")
        await until(lambda: screen.tries >= 2, "the grade tried twice")
        assert app.session.current.docid == "d001"  # ...the grade stays on screen
        tried = screen.tries
        type_key(app, "1")  # refused, and said: nothing queued behind an unsaved grade
        await until(lambda: any(text.startswith("waiting: ") for text in said),
                    "the key refused")
        assert any(text.startswith(f"waiting: the grade of d001 is not saved yet (tried "
                                   f"{n}x, trying again); keys wait until it is saved")
                   for text in said for n in range(tried, screen.tries + 1))
        holder.execute("COMMIT")  # ...and lets go
        await until(lambda: screen.unsaved is None, "the grade saved")
        assert app.session.current.docid == "d002"
        assert "d001 -> 3 perfectly relevant" in said
        beats = app.heartbeats
        await until(lambda: app.heartbeats > beats, "a heartbeat renewed again")
    holder.close()
    release(store, mine)
    assert [(e.docid, e.grade) for e in store.events()] == [("d000", 2), ("d001", 3)]
    store.close()


@sync
async def test_postgresql_a_server_outage_keeps_the_grade_on_screen_until_it_is_saved():
    with store_backends.fresh_database() as url:
        store = pooled_store(url)
        app, mine = judge_app(store, heartbeat_every=0.01)
        async with app.run_test(size=SIZE):
            screen = app.judge_screen
            screen.retry_after = (0.01,)
            said = recorded(screen)
            type_key(app, "2")
            await until(lambda: app.session.current.docid == "d001", "the first grade saved")
            server_down(url, True)  # every connection cut, new ones refused
            type_key(app, "3")
            await until(lambda: screen.tries >= 3 and app.heartbeat_failures >= 1,
                        "the grade and a heartbeat tried while the server is down")
            assert app.session.current.docid == "d001"
            refused = [text for text in said if text.startswith(
                "not saved yet, trying again in 0.01 s: ")]
            assert len(refused) >= 3
            assert refused[-1].endswith("is not currently accepting connections")
            server_down(url, False)  # the server is back
            await until(lambda: screen.unsaved is None, "the grade saved after the outage")
            assert app.session.current.docid == "d002"
            type_key(app, "1")
            await until(lambda: app.session.current.docid == "d003", "a grade after it")
            beats = app.heartbeats
            await until(lambda: app.heartbeats > beats, "a heartbeat renewed again")
        release(store, mine)
        assert [(e.docid, e.grade) for e in store.events()] == \
            [("d000", 2), ("d001", 3), ("d002", 1)]
        store.close()


@sync
async def test_postgresql_a_cut_connection_at_a_grade_is_reopened_and_the_grade_kept():
    """pg_terminate_backend on the judge's connections (a server restart, as its clients see
    it): the next grade fails once, is tried again on a new connection, kept once."""
    with store_backends.fresh_database() as url:
        store = pooled_store(url)
        app, mine = judge_app(store, heartbeat_every=0.01)
        async with app.run_test(size=SIZE):
            app.judge_screen.retry_after = (0.01,)
            for n, key in enumerate("0123"):
                drop_connections(url)
                type_key(app, key)
                await until(lambda: app.session.progress().done == n + 1, "the grade saved")
            await until(lambda: app.session.progress().done == 4, "four grades saved")
        release(store, mine)
        assert [e.grade for e in store.events()] == [0, 1, 2, 3]
        store.close()


def test_status_watch_says_an_unreachable_server_and_goes_on():
    with store_backends.fresh_database() as url:
        pooled_store(url).close()
        reader = open_store(url, read_only=True)
        out = io.StringIO()

        def between_frames(_seconds: float) -> None:
            frames = out.getvalue().count("Ctrl-C to stop")
            server_down(url, frames == 1)  # down for the second frame, back for the third

        watch(lambda: f"pool version {reader.latest_pool_version()}\n", 5.0, refreshes=3,
              sleep=between_frames, out=out)
        reader.close()
    lines = out.getvalue().splitlines()
    shown = [line for line in lines if not line.startswith("-- ")]
    assert shown[0] == "pool version 1" and shown[2] == "pool version 1", shown
    assert shown[1].startswith("store unreachable: ") and shown[1].endswith("(trying again)")
    assert len([line for line in lines if line.startswith("-- ")]) == 3  # none ended it


pytestmark = pytest.mark.slow


@sync
async def test_quitting_with_a_grade_not_saved_asks_twice_and_the_cli_names_it(tmp_path):
    from poolkit.app.judge import unsaved

    path = tmp_path / "store.sqlite"
    pooled_store(path).close()
    store = Store(path, busy_timeout=0.05)
    app, mine = judge_app(store, heartbeat_every=60.0)
    holder = sqlite3.connect(path, isolation_level=None)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.judge_screen
        screen.retry_after = (600.0,)  # (no retry comes between the two presses)
        holder.execute("BEGIN IMMEDIATE")
        await pilot.press("2")
        await until(lambda: screen.tries >= 1, "the grade tried")
        await pilot.press("q")
        assert app.is_running and app.unsaved == []
        assert message(app) == "the grade of d000 is not saved yet: q again quits without it"
        await pilot.press("q")
        await until(lambda: not app.is_running, "the app closed")
    holder.execute("ROLLBACK")
    holder.close()
    assert [(e.kind, e.docid, e.grade) for e in app.unsaved] == [("grade", "d000", 2)]
    assert unsaved(app.unsaved[0]) == "grade 2 of query q0 doc d000"
    assert store.events() == []
    release(store, mine)
    store.close()


@sync
async def test_postgresql_a_passage_that_cannot_be_read_is_never_graded_unseen():
    with store_backends.fresh_database() as url:
        store = pooled_store(url)
        app, mine = judge_app(store, heartbeat_every=60.0)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.judge_screen
            server_down(url, True)
            await pilot.press("right")  # d001's text was never read: the store is down
            assert screen.unreadable is not None
            passage = screen.query_one("#passage", Static).content
            assert str(getattr(passage, "plain", passage)).startswith(
                "This passage could not be read from the store: ")
            assert message(app).startswith("cannot read the store: ")
            await pilot.press("2")  # refused: nobody read it
            assert screen.unreadable is not None and screen.unsaved is None
            server_down(url, False)
            await pilot.press("2")  # shows it, grades nothing
            assert screen.unreadable is None
            shown = screen.query_one("#passage", Static).content
            assert "passage 1 of query 0" in str(getattr(shown, "plain", shown))
            assert message(app) == "the passage could be read again: grade it now"
            assert store.events() == []
            await pilot.press("2")
            await until(lambda: app.session.current.docid == "d002", "the grade saved")
        release(store, mine)
        assert [(e.docid, e.grade) for e in store.events()] == [("d001", 2)]
        store.close()
