from __future__ import annotations

import sqlite3

import pytest

from poolkit.errors import StoreError
from poolkit.io.qrels import Qrels
from poolkit.store import Event, NewMember, Store
from poolkit.store.backends import open_store
from poolkit.store.imports import import_labels
from poolkit.store.schema import SCHEMA_VERSION


@pytest.fixture
def store(store_location):
    """A new store on each backend: these tests are the store contract."""
    with open_store(store_location) as s:
        yield s


def members(qid, *docids):
    return [NewMember(qid, d, "", f"text of {d}", float(i)) for i, d in enumerate(docids)]


def test_new_store_is_versioned(store):
    assert store.schema_version == SCHEMA_VERSION


def test_new_sqlite_store_is_wal(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_store_from_a_newer_poolkit_is_refused(tmp_path):
    path = tmp_path / "s.sqlite"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="schema version 999 is newer"):
        Store(path)


def test_pool_versions_add_only_new_docs(store):
    v1 = store.add_pool_version({"bm25": 2}, "shuffle", members("q1", "a", "b"),
                                [("q1", "a", "bm25", 1, 2.0), ("q1", "b", "bm25", 2, 1.0)])
    assert v1 == 1
    # Same docs again: nothing new, no version.
    assert store.add_pool_version({"bm25": 2}, "shuffle", members("q1", "a", "b"),
                                  [("q1", "a", "bm25", 1, 2.0)]) is None
    v2 = store.add_pool_version({"bm25": 3}, "shuffle", members("q1", "a", "b", "c"),
                                [("q1", "c", "bm25", 3, 0.5), ("q1", "a", "dense", 4, 0.1)])
    assert v2 == 2
    pool = store.pool("q1")
    assert [(m.docid, m.version) for m in pool] == [("a", 1), ("b", 1), ("c", 2)]
    assert [m.docid for m in store.pool(max_version=1)] == ["a", "b"]
    src = store.sources("q1")
    assert {s.system for s in src[("q1", "a")]} == {"bm25", "dense"}
    title, body = store.text(pool[0].text_hash)
    assert body == "text of a"


def test_undo_is_an_event_and_pops_the_grade(store):
    g1 = store.record_event(Event("q1", "a", "alice", "grade", grade=2))
    g2 = store.record_event(Event("q1", "a", "alice", "grade", grade=3))
    assert store.current_grades()[("q1", "a")]["alice"].grade == 3
    store.record_event(Event("q1", "a", "alice", "undo", ref=g2))
    assert store.current_grades()[("q1", "a")]["alice"].grade == 2
    store.record_event(Event("q1", "a", "alice", "undo", ref=g1))
    assert ("q1", "a") not in store.current_grades()
    assert [e.kind for e in store.events()] == ["grade", "grade", "undo", "undo"]


def test_grading_event_without_grade_is_refused(store):
    with pytest.raises(StoreError):
        store.record_event(Event("q1", "a", "alice", "grade"))


def test_import_is_idempotent_and_appends_changes(store):
    q = Qrels.from_mapping({"q1": {"a": 1, "b": 0}}, name="x.qrels")
    assert import_labels(store, q, "nist") == 2
    assert import_labels(store, q, "nist") == 0
    q2 = Qrels.from_mapping({"q1": {"a": 2, "b": 0}}, name="x.qrels")
    assert import_labels(store, q2, "nist") == 1
    assert store.current_grades()[("q1", "a")]["nist"].grade == 2
    assert len(store.events()) == 3


def test_two_handles_see_each_others_writes(store_location):
    a, b = open_store(store_location), open_store(store_location)
    a.record_event(Event("q1", "a", "alice", "grade", grade=1))
    b.record_event(Event("q1", "a", "bob", "grade", grade=2))
    assert set(a.current_grades()[("q1", "a")]) == {"alice", "bob"}
    a.close()
    b.close()


def test_a_directory_is_not_a_store(tmp_path):
    with pytest.raises(StoreError, match="is a directory, not a store file"):
        Store(tmp_path)


def test_opening_an_older_store_applies_only_the_missing_migrations(tmp_path, monkeypatch):
    import poolkit.store.store as store_module

    path = tmp_path / "s.sqlite"
    with Store(path) as s:
        s.record_event(Event("q1", "a", "alice", "grade", grade=2))
    from poolkit.store.schema import Dialects

    sql = "ALTER TABLE events ADD COLUMN extra TEXT; CREATE INDEX events_extra ON events (extra)"
    step = Dialects(sqlite=sql, postgresql=sql)
    monkeypatch.setattr(store_module, "MIGRATIONS", [*store_module.MIGRATIONS, step])
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with Store(path) as s:
        assert s.schema_version == SCHEMA_VERSION + 1
        columns = [r[1] for r in s.conn.execute("PRAGMA table_info(events)")]
        assert "extra" in columns
        assert [e.grade for e in s.events()] == [2]  # the data came along
    with Store(path) as s:  # and a store already at the new version is left alone
        assert s.schema_version == SCHEMA_VERSION + 1


def test_a_stored_time_reads_back_as_the_moment_it_was_made():
    """``moment_of`` is ``stamp`` read back, the one reader of the store's times (the team
    figures and the dashboard once each parsed them, one taking a naive time as UTC and
    the other as local time)."""
    from datetime import datetime, timedelta, timezone

    from poolkit.store import moment_of, stamp

    made = datetime(2026, 1, 5, 9, 30, tzinfo=timezone(timedelta(hours=2)))
    assert moment_of(stamp(made)) == made
    assert moment_of("2026-01-05T07:30:00") == made  # naive: UTC, as stamp takes it
    assert moment_of(None) is None and moment_of("") is None and moment_of("noon") is None
