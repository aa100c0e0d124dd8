"""The judgment log's rules live in the schema, so they hold for any writer of an SQLite file
(another tool, a script), not only for poolkit's own checks: a grade on the scale, a known kind
(PostgreSQL: tests/store/test_postgres_security.py, as the assessor roles)."""

from __future__ import annotations

import sqlite3

import pytest

from poolkit.store import Event, Store
from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION, migration_sql, statements

INSERT = ("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at) "
          "VALUES ('q0', 'd4', 'alice', ?, ?, 't')")


# The schema holds grades to the widest scale, 0-9 (schema 9); a store's own scale is held where
# events are written (tests/store/test_store_scale.py).
@pytest.mark.parametrize("kind, grade", [("grade", 99), ("grade", -1), ("grade", None),
                                         ("import", 10), ("adjudicate", None), ("skip", 17),
                                         ("vote", 1)])
def test_a_file_refuses_an_event_off_the_scale_or_of_an_unknown_kind(tmp_path, kind, grade):
    path = tmp_path / "s.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
            conn.execute(INSERT, (kind, grade))
        conn.execute(INSERT, ("grade", 3))
        with pytest.raises(sqlite3.IntegrityError, match="events_grade_on_scale"):
            conn.execute("UPDATE events SET grade = 99")
        for ok_kind, ok_grade in (("skip", None), ("note", None), ("import", 0)):
            conn.execute(INSERT, (ok_kind, ok_grade))
        assert conn.execute("SELECT kind, grade FROM events ORDER BY id").fetchall() == [
            ("grade", 3), ("skip", None), ("note", None), ("import", 0)]


def test_a_store_of_schema_5_keeps_its_rows_and_gains_the_rule(tmp_path):
    path = tmp_path / "v5.sqlite"
    conn = sqlite3.connect(path)
    for step in MIGRATIONS[:5]:
        for statement in statements(migration_sql(step, "sqlite")):
            conn.execute(statement)
    conn.execute("INSERT INTO meta VALUES ('schema_version', '5')")
    conn.execute(INSERT, ("grade", 99))  # written before the rule: kept, not re-checked
    conn.commit()
    conn.close()
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert [e.grade for e in store.events()] == [99]
        assert store.record_event(Event("q0", "d4", "bob", "grade", grade=2)) == 2
        with pytest.raises(sqlite3.IntegrityError, match="events_grade_on_scale"):
            store.conn.execute(INSERT, ("grade", 99))


def test_a_trigger_s_body_is_one_statement():
    sql = ("CREATE TABLE t (a INTEGER);\nCREATE TRIGGER x BEFORE INSERT ON t BEGIN "
           "SELECT RAISE(ABORT, 'no; never'); END;\n  ;\nCREATE INDEX i ON t (a)")
    assert list(statements(sql)) == [
        "CREATE TABLE t (a INTEGER)",
        "CREATE TRIGGER x BEFORE INSERT ON t BEGIN SELECT RAISE(ABORT, 'no; never'); END",
        "CREATE INDEX i ON t (a)"]
