"""The store's concurrency claims, with real processes: every write is one transaction, and
several processes may open, read and write one store file at once without losing anything."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from poolkit.errors import StoreError
from poolkit.store import Event, NewMember, Store

WRITERS = 4
EVENTS_EACH = 150

# Each process opens the (possibly not yet created) store itself, so the first open, the
# migration and WAL set-up race too. Writers grade; one process pools versions meanwhile and
# one reads the log over and over, checking that what it sees never goes backwards.
WORKER = textwrap.dedent("""
    import os, sys, time
    from poolkit.store import Event, NewMember, Store

    path, role, n, WRITERS = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    open(f"{path}.ready-{role}", "w").close()
    while not os.path.exists(path + ".go"):  # start together, once every process is up
        time.sleep(0.005)
    with Store(path, busy_timeout=120) as s:
        if role.startswith("writer"):
            s.record_event(Event("q1", "d0", role, "grade", grade=0))
            # Barrier: no writer goes on until every writer has committed once, so the log
            # interleaves by construction rather than by the scheduler's whim.
            open(f"{path}.first-{role}", "w").close()
            while sum(os.path.exists(f"{path}.first-writer{w}") for w in range(WRITERS)) < WRITERS:
                time.sleep(0.005)
            for i in range(1, n):
                s.record_event(Event("q1", f"d{i}", role, "grade", grade=i % 4))
        elif role == "pooler":
            for i in range(n):
                m = NewMember("q1", f"p{i}", "", f"text {i}", float(i))
                s.add_pool_version({"sys": i + 1}, "docid", [m], [("q1", f"p{i}", "sys", 1, 1.0)])
        else:
            seen = 0
            for _ in range(n):
                now = len(s.events())
                if now < seen:
                    sys.exit(f"the log shrank from {seen} to {now}")
                seen = now
""")


def spawn(path: Path, role: str, n: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WORKER, str(path), role, str(n), str(WRITERS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_several_processes_write_and_read_one_store_at_once(tmp_path):
    path = tmp_path / "judgments.sqlite"
    procs = [spawn(path, f"writer{i}", EVENTS_EACH) for i in range(WRITERS)]
    procs += [spawn(path, "pooler", 20), spawn(path, "reader", 200)]
    roles = [*(f"writer{i}" for i in range(WRITERS)), "pooler", "reader"]
    deadline = time.monotonic() + 120
    while not all(Path(f"{path}.ready-{r}").exists() for r in roles):
        dead = [p for p in procs if p.poll() is not None]
        assert not dead, dead[0].communicate()[1]
        assert time.monotonic() < deadline
        time.sleep(0.01)
    Path(f"{path}.go").touch()
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    with Store(path) as s:
        events = s.events()
        assert len(events) == WRITERS * EVENTS_EACH
        assert len({e.id for e in events}) == len(events)
        for i in range(WRITERS):
            mine = [e.docid for e in events if e.assessor == f"writer{i}"]
            assert mine == [f"d{j}" for j in range(EVENTS_EACH)]  # each writer's order kept
        # The writers really ran at once (the barrier after each one's first grade makes
        # sure): their events interleave in the log.
        who = [e.assessor for e in events]
        assert sum(a != b for a, b in zip(who, who[1:])) > WRITERS - 1  # 3 if one by one
        assert [v["version"] for v in s.pool_versions()] == list(range(1, 21))
        assert len(s.pool()) == 20
        assert s.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_failed_write_leaves_nothing_behind(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        good = Event("q1", "a", "alice", "grade", grade=1)
        bad = Event("q1", "b", "alice", "no-such-kind", grade=1)  # the schema refuses it
        with pytest.raises(sqlite3.IntegrityError):
            s.record_events([good, bad])
        assert s.events() == []
        # A pool version whose provenance cannot be written is not half-made either.
        members = [NewMember("q1", "a", "", "x", 0.0)]
        with pytest.raises(sqlite3.IntegrityError):
            s.add_pool_version({"bm25": 1}, "docid", members, [("q1", "a", "bm25", None, 1.0)])
        assert s.pool() == [] and s.pool_versions() == [] and s.latest_pool_version() is None


def test_a_reader_sees_the_last_committed_state_while_a_write_is_open(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as writer, Store(path) as reader:
        writer.record_event(Event("q1", "a", "alice", "grade", grade=1))
        with writer.transaction() as c:
            c.execute("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at) "
                      "VALUES ('q1', 'b', 'alice', 'grade', 2, 'now')")
            # WAL: the reader is not blocked and sees only what was committed.
            assert [e.docid for e in reader.events()] == ["a"]
        assert [e.docid for e in reader.events()] == ["a", "b"]


def test_a_second_writer_waits_for_the_first_instead_of_failing(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as first, Store(path, busy_timeout=0.2) as impatient:
        with first.transaction():
            with pytest.raises(StoreError, match="s.sqlite: cannot write .*locked.* over 0.2s"):
                impatient.record_event(Event("q1", "a", "bob", "grade", grade=1))
        # The lock is gone once the first commits; nothing of the failed attempt remains.
        impatient.record_event(Event("q1", "a", "bob", "grade", grade=1))
        assert len(first.events()) == 1
