"""``poolkit serve`` in a real headless Chromium: log in, grade, take over, close a tab right
after a key, stop the server with tabs open. What the screen shows is read from the
websocket's frames; what was graded, from the store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from browser import Server, Tab, browser, wait_until
from serve_helpers import PASSWORDS, served_config

pytestmark = pytest.mark.slow

#: keys typed back to back: no minimum display time, no topic card taking the first key
QUICK = "judge:\n  min_display: 0\n  topic_card: false\n"
#: the tiny pool's first passages, in judging order (tests/judge_helpers.py)
TITLES = ["Controlling fall armyworm", "Termites in maize fields", "Stem borers"]


def grades(store: Path, assessor: str) -> list[tuple[str, str, int]]:
    conn = sqlite3.connect(store, timeout=30)
    try:
        return conn.execute("SELECT qid, docid, grade FROM events WHERE assessor=? AND "
                            "kind='grade' ORDER BY id", (assessor,)).fetchall()
    finally:
        conn.close()


def claims(store: Path) -> list[tuple[str]]:
    conn = sqlite3.connect(store, timeout=30)
    try:
        return conn.execute("SELECT assessor FROM session_claims").fetchall()
    finally:
        conn.close()


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return served_config(tmp_path, QUICK)


def test_log_in_and_grade_two_passages(config: Path, tmp_path: Path):
    server = Server(config)
    try:
        with browser() as chromium:
            tab = Tab(chromium.new_context(), server.url)
            tab.login("alice", PASSWORDS["alice"])
            tab.wait_for(TITLES[0])
            mark = tab.mark()
            tab.press("3")
            tab.wait_for(TITLES[1], mark)  # (shown once the grade is in the store)
            mark = tab.mark()
            tab.press("1")
            tab.wait_for(TITLES[2], mark)
            assert "alice" in tab.screen
    finally:
        assert server.stop() == 0
    store = tmp_path / "tiny.sqlite"
    assert grades(store, "alice") == [("q1", "d1", 3), ("q1", "d2", 1)]
    assert claims(store) == []


def test_a_second_tab_takes_over_and_the_first_says_why(config: Path, tmp_path: Path):
    server = Server(config)
    try:
        with browser() as chromium:
            context = chromium.new_context()
            first = Tab(context, server.url)
            first.login("alice", PASSWORDS["alice"])
            first.wait_for(TITLES[0])
            second = Tab(context, server.url)  # (the same login: the cookie is shared)
            second.page.goto(f"{server.url}/")
            assert "another tab" in first.ended()
            second.wait_for(TITLES[0])
            second.press("2")
            second.wait_for(TITLES[1])
    finally:
        assert server.stop() == 0
    store = tmp_path / "tiny.sqlite"
    assert grades(store, "alice") == [("q1", "d1", 2)]
    assert claims(store) == []


def test_a_tab_closed_after_a_key_and_a_stopped_server_lose_nothing(config: Path,
                                                                    tmp_path: Path):
    """alice closes her tab right after a key (the key travels before the close on the
    same socket: it is in the store); bob's tab is open when the server gets SIGTERM, a key
    just typed: every grade his screen acknowledged is in the store (the one on its way may
    be), and no claim is left behind."""
    server = Server(config)
    try:
        with browser() as chromium:
            alice = Tab(chromium.new_context(), server.url)
            alice.login("alice", PASSWORDS["alice"])
            bob = Tab(chromium.new_context(), server.url)
            bob.login("bob", PASSWORDS["bob"])
            alice.wait_for(TITLES[0])
            bob.wait_for(TITLES[0])
            alice.press("3")
            alice.page.close()  # right after the key: her screen closes, its claim goes
            store = tmp_path / "tiny.sqlite"
            wait_until(lambda: ("alice",) not in claims(store), "alice's claim released",
                       lambda: bob.page.wait_for_timeout(50))
            assert grades(store, "alice") == [("q1", "d1", 3)]
            mark = bob.mark()
            bob.press("0")
            bob.wait_for(TITLES[1], mark)
            mark = bob.mark()
            bob.press("1")
            bob.wait_for(TITLES[2], mark)
            bob.press("2")  # on its way as the server stops
            assert server.stop() == 0
            assert "server is stopping" in bob.ended()
    finally:
        server.stop()
    store = tmp_path / "tiny.sqlite"
    assert grades(store, "alice") == [("q1", "d1", 3)]
    acknowledged = [("q1", "d1", 0), ("q1", "d2", 1)]
    assert grades(store, "bob") in (acknowledged, [*acknowledged, ("q1", "d3", 2)])
    assert claims(store) == []
