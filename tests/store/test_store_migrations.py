"""Schema migrations: a v1 store opens, migrates to the current schema and loses nothing;
pool versions keep the systems (run hashes, settings) they were built from."""

from __future__ import annotations

import json
import sqlite3

import pytest

from poolkit.errors import StoreError
from poolkit.store import NewMember, Store
from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION

TABLES_V1 = ("queries", "texts", "systems", "pool_versions", "pool_members", "pool_sources",
             "events")


def v1_schema(path):
    """A connection to a new file holding only the schema-1 tables (MIGRATIONS[:1])."""
    conn = sqlite3.connect(path)
    for statement in MIGRATIONS[0].sqlite.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    return conn


def v1_store(path):
    """A store file exactly as poolkit with schema version 1 left it: two pool versions,
    systems registered (bm25 re-registered with a later run), a text, a query, events."""
    conn = v1_schema(path)
    conn.executescript("""
        INSERT INTO meta VALUES ('created_at', '2024-01-01');
        INSERT INTO queries VALUES ('q1', 'fall armyworm', NULL, NULL);
        INSERT INTO texts VALUES ('h1', '', 'text of a');
        INSERT INTO systems VALUES
            ('bm25', 'bm25', NULL, '{"k1": 0.9}', 'sha-bm25-latest', 'runs/bm25.run', 't1'),
            ('dense', 'dense', 'neural', '{}', 'sha-dense', 'runs/dense.run', 't1');
        INSERT INTO pool_versions VALUES
            (1, 't1', '{"bm25": 2}', 'shuffle', NULL),
            (2, 't2', '{"bm25": 3, "dense": 2}', 'shuffle', 'deeper');
        INSERT INTO pool_members VALUES ('q1', 'a', 1, 'h1', 0.5), ('q1', 'b', 2, 'h1', 0.1);
        INSERT INTO pool_sources VALUES ('q1', 'a', 'bm25', 1, 2.0, 1),
                                        ('q1', 'b', 'dense', 1, 0.7, 2);
        INSERT INTO events (qid, docid, assessor, kind, grade, judged_at)
            VALUES ('q1', 'a', 'alice', 'grade', 2, 't3');
    """)
    conn.commit()
    conn.close()


def dump(path, columns=None):
    """``(columns, rows)`` of the v1 tables: the file's columns, or those given (a later
    schema adds columns; the rows of the ones there were stay as they were)."""
    with sqlite3.connect(path) as conn:
        columns = columns or {t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")]
                              for t in TABLES_V1}
        return columns, {t: conn.execute(f"SELECT {', '.join(columns[t])} FROM {t} "
                                         f"ORDER BY rowid").fetchall() for t in TABLES_V1}


def test_a_v1_store_migrates_keeps_every_row_and_backfills(tmp_path):
    path = tmp_path / "v1.sqlite"
    v1_store(path)
    v1_columns, before = dump(path)
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION >= 2
        assert store.pool_version_systems() == {
            1: {"bm25": {"kind": "bm25", "group": None, "settings": {"k1": 0.9},
                         "run_sha256": "sha-bm25-latest", "run_path": "runs/bm25.run",
                         "backfilled": True}},
            2: {"bm25": {"kind": "bm25", "group": None, "settings": {"k1": 0.9},
                         "run_sha256": "sha-bm25-latest", "run_path": "runs/bm25.run",
                         "backfilled": True},
                "dense": {"kind": "dense", "group": "neural", "settings": {},
                          "run_sha256": "sha-dense", "run_path": "runs/dense.run",
                          "backfilled": True}}}
        assert list(store.pool_version_systems(max_version=1)) == [1]
        assert store.systems()["bm25"]["run_sha256"] == "sha-bm25-latest"
        assert store.current_grades()[("q1", "a")]["alice"].grade == 2
    assert dump(path, v1_columns)[1] == before  # every v1 row is still there, unchanged
    with sqlite3.connect(path) as conn:  # and its events are people's (schema 7)
        assert conn.execute("SELECT origin, judge_version FROM events").fetchall() == [
            ("person", None)]
    with Store(path) as store:  # opening again changes nothing
        assert store.schema_version == SCHEMA_VERSION
        assert len(store.pool_version_systems()[2]) == 2


def test_a_v1_store_without_pools_migrates_empty(tmp_path):
    path = tmp_path / "v1.sqlite"
    conn = v1_schema(path)
    conn.commit()
    conn.close()
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.pool_version_systems() == {}


@pytest.mark.parametrize("newer", [SCHEMA_VERSION + 1, 999])
def test_a_store_with_a_newer_schema_is_still_refused(tmp_path, newer):
    path = tmp_path / "s.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(newer),))
    with pytest.raises(StoreError, match=f"schema version {newer} is newer than this poolkit "
                                         f"understands \\({SCHEMA_VERSION}\\); upgrade poolkit"):
        Store(path)


def members(qid, *docids):
    return [NewMember(qid, d, "", f"text of {d}", float(i)) for i, d in enumerate(docids)]


def test_each_pool_version_keeps_the_runs_it_was_built_from(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        store.register_system("bm25", "bm25", {"k1": 0.9}, "sha-k1-0.9", "runs/bm25.run")
        store.register_system("dense", "dense", {}, "sha-dense", "runs/dense.run", "neural")
        assert store.add_pool_version({"bm25": 2}, "shuffle", members("q1", "a", "b"),
                                      [("q1", "a", "bm25", 1, 2.0)]) == 1
        store.register_system("bm25", "bm25", {"k1": 2.0}, "sha-k1-2.0", "runs/bm25.run")
        assert store.add_pool_version({"bm25": 2}, "shuffle", members("q1", "c"),
                                      [("q1", "c", "bm25", 1, 3.0)]) == 2
        # Nothing new: no version, so no record either.
        store.register_system("bm25", "bm25", {"k1": 3.0}, "sha-k1-3.0", "runs/bm25.run")
        assert store.add_pool_version({"bm25": 2}, "shuffle", members("q1", "c"), []) is None
        history = store.pool_version_systems()
        assert list(history) == [1, 2]
        assert list(history[1]) == ["bm25"]  # dense was registered but not pooled in v1
        assert history[1]["bm25"]["run_sha256"] == "sha-k1-0.9"
        assert history[1]["bm25"]["settings"] == {"k1": 0.9}
        assert history[2]["bm25"]["run_sha256"] == "sha-k1-2.0"
        assert history[2]["bm25"]["backfilled"] is False
        assert store.systems()["bm25"]["run_sha256"] == "sha-k1-3.0"  # latest registration
        assert json.loads(store.conn.execute(
            "SELECT depths FROM pool_versions WHERE version=2").fetchone()[0]) == {"bm25": 2}


def test_an_unregistered_system_is_pooled_without_a_record(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        assert store.add_pool_version({"x": 1}, "shuffle", members("q1", "a"), []) == 1
        assert store.pool_version_systems() == {}


def test_a_schema_11_gold_set_is_rewritten_in_pair_order_and_keeps_its_hash(tmp_path,
                                                                           monkeypatch):
    """Schema 12 stores gold's rows in (qid, docid) order, never the file's (with the file's
    sha256 the order gives a small set's grades away): an older store's are rewritten, and
    a new set is stored so. Nothing else changes: the content hash is the same."""
    import poolkit.store.store as sqlite_store
    from poolkit.store.copy import content_hash
    from poolkit.store.gold_sql import GoldSet

    path = tmp_path / "v11.sqlite"
    in_file_order = [("q2", "d9", 3), ("q1", "d8", 0), ("q1", "d7", 2)]
    with monkeypatch.context() as at_11:
        at_11.setattr(sqlite_store, "MIGRATIONS", MIGRATIONS[:11])
        at_11.setattr(sqlite_store, "SCHEMA_VERSION", 11)
        with sqlite_store.Store(path) as old:
            with old.transaction() as c:  # as replace_gold stored a set then
                c.execute("INSERT INTO gold_sets VALUES (1, 't', 'gold.qrels', 'f', 1, 0)")
                for qid, docid, grade in in_file_order:
                    c.execute("INSERT INTO texts VALUES (?, '', ?)", (f"h-{docid}", docid))
                    c.execute("INSERT INTO gold_pairs VALUES (?, ?, ?, ?, 1)",
                              (qid, docid, grade, f"h-{docid}"))
            before = content_hash(old)
    in_rowid_order = "SELECT qid, docid, grade FROM gold_pairs ORDER BY rowid"
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION >= 12
        assert store.conn.execute(in_rowid_order).fetchall() == sorted(in_file_order)
        assert content_hash(store) == before
        store.replace_gold(GoldSet("again.qrels", "e", 0.5, 1),
                           [("q2", "d1", 1, "", "one"), ("q1", "d2", 2, "", "two")])
        assert store.conn.execute(in_rowid_order).fetchall() == [("q1", "d2", 2),
                                                                  ("q2", "d1", 1)]
        assert store.conn.execute("SELECT body FROM texts ORDER BY rowid").fetchall()[-2:] == [
            ("two",), ("one",)]  # the new passages too
