"""`poolkit judge` as a real process in a pseudo-terminal: SIGKILL loses no committed grade,
and two judging processes on one store both keep every grade."""

from __future__ import annotations

import fcntl
import os
import signal
import sqlite3
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, build_store, write_config

from poolkit.judge.session import JudgingSession
from poolkit.store import Store

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")]

TIMEOUT = 60.0  # generous: the machine may be busy; nothing here measures time


class Terminal:
    """``poolkit judge`` running in its own 80x24 pty; output is drained continuously."""

    def __init__(self, config: Path, assessor: str) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
        env.pop("TEXTUAL", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "poolkit", "judge", str(config), "--assessor", assessor],
            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
            close_fds=True)
        os.close(slave)
        self.master = master
        self.output = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output.extend(chunk)

    def wait_for_screen(self, marker: bytes = b"Passage") -> None:
        wait_until(lambda: marker in self.output or self.proc.poll() is not None,
                   f"the judging screen ({marker!r})")
        assert self.proc.poll() is None, bytes(self.output[-2000:]).decode(errors="replace")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=TIMEOUT)
        os.close(self.master)


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def grades_of(store_path: Path, assessor: str) -> list[tuple[str, str, int]]:
    conn = sqlite3.connect(store_path, timeout=30)
    try:
        rows = conn.execute("SELECT qid, docid, grade FROM events WHERE assessor=? AND "
                            "kind='grade' ORDER BY id", (assessor,)).fetchall()
    finally:
        conn.close()
    return [(q, d, g) for q, d, g in rows]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    build_store(tmp_path / "judge.sqlite", TINY_QUERIES, TINY_DOCS, TINY_POOLS).close()
    # Keys typed back to back: the double-tap guard (tested with a fake clock) and the topic
    # card that takes a key (tested with Pilot) are off here.
    return write_config(tmp_path / "cfg", tmp_path / "judge.sqlite",
                        judge="judge:\n  min_display: 0\n  topic_card: false\n")


def test_sigkill_loses_no_committed_grade(config, tmp_path):
    store_path = tmp_path / "judge.sqlite"
    term = Terminal(config, "alice")
    try:
        term.wait_for_screen()
        seen: list[tuple[str, str, int]] = []
        for n, key in enumerate("320", start=1):
            term.type(key)
            wait_until(lambda n=n: len(grades_of(store_path, "alice")) == n, f"grade {n}")
            seen = grades_of(store_path, "alice")
        term.type("1")            # the grade being typed when the kill lands
        term.proc.send_signal(signal.SIGKILL)
        term.proc.wait(timeout=TIMEOUT)
        assert term.proc.returncode == -signal.SIGKILL
    finally:
        term.close()
    after = grades_of(store_path, "alice")
    assert after[:3] == seen == [("q1", "d1", 3), ("q1", "d2", 2), ("q1", "d3", 0)]
    assert len(after) in (3, 4)  # at most the last keystroke may be missing
    with Store(store_path) as store:
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        event = store.events(assessor="alice")[0]
        assert event.shown_at and event.judged_at and event.text_hash and event.position == 1
        resumed = JudgingSession(store, "alice")
        assert resumed.current is not None
        assert resumed.current.pair == (("q2", "d4") if len(after) == 3 else ("q2", "d5"))


def test_two_assessors_judge_one_store_at_once(config, tmp_path):
    store_path = tmp_path / "judge.sqlite"
    alice, bob = Terminal(config, "alice"), Terminal(config, "bob")
    try:
        alice.wait_for_screen()
        bob.wait_for_screen()
        for a_key, b_key in zip("32101", "01232"):  # interleaved, no waiting in between
            alice.type(a_key)
            bob.type(b_key)
        wait_until(lambda: len(grades_of(store_path, "alice")) == 5
                   and len(grades_of(store_path, "bob")) == 5, "both assessors' grades")
        alice.type("q")
        bob.type("q")
        assert alice.proc.wait(timeout=TIMEOUT) == 0
        assert bob.proc.wait(timeout=TIMEOUT) == 0
    finally:
        alice.close()
        bob.close()
    order = [(q, d) for q, ds in TINY_POOLS.items() for d in ds]
    assert grades_of(store_path, "alice") == [(*p, int(k)) for p, k in zip(order, "32101")]
    assert grades_of(store_path, "bob") == [(*p, int(k)) for p, k in zip(order, "01232")]
    with Store(store_path) as store:
        assert {a: len(v) for a, v in _by_assessor(store).items()} == {"alice": 5, "bob": 5}


def _by_assessor(store: Store) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for pair, by in store.current_grades().items():
        for assessor in by:
            out.setdefault(assessor, []).append(pair)
    return out
