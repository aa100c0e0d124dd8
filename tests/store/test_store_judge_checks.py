"""Schema 13: ``check-judge``'s checks and canaries, recorded whole on both backends and read
back as planted; the latest check of a version is its verdict; a refused row records nothing;
a schema-12 store gains the tables and keeps its content hash; a copy carries them."""

from __future__ import annotations

import pytest

from poolkit.store.backends import open_store
from poolkit.store.canary_sql import Canary, JudgeCheck
from poolkit.store.copy import content_hash

SUMMARY = {k: {"planted": 2, "graded": 2, "failed": 0, "fooled": 0, "rate": 0.0}
           for k in ("terms", "instruction", "both")}


@pytest.fixture
def store(store_location):
    with open_store(store_location) as s:
        yield s


def canary(kind: str, grade: int | None, body: str = "b") -> Canary:
    return Canary(kind, "q1", "d1", f"h-{kind}-{body}", "t", body, grade,
                  "3" if grade is not None else "I think", "m")


def test_checks_are_numbered_read_back_and_the_latest_is_the_verdict(store):
    assert store.judge_checks() == [] and store.latest_judge_check("llm", "v1") is None
    made = [canary("terms", 3, "zeta"), canary("instruction", None), canary("both", 0)]
    first = JudgeCheck("llm", "v1", 7, 2, 0.1, 1, False, SUMMARY)
    assert store.record_judge_check(first, made) == 1
    assert store.record_judge_check(JudgeCheck("llm", "v1", 8, 2, 0.5, 1, True, SUMMARY),
                                    []) == 2
    assert store.record_judge_check(JudgeCheck("other", "v1", 8, 2, 0.5, 1, False, SUMMARY),
                                    []) == 3
    got = store.judge_checks("llm")
    assert [(c.id, c.seed, c.trusted) for c in got] == [(1, 7, False), (2, 8, True)]
    assert got[0].summary == SUMMARY and got[0].made_at
    assert store.latest_judge_check("llm", "v1").id == 2
    assert store.latest_judge_check("other", "v1").trusted is False
    assert store.canaries(1) == made  # planted order, the unreadable answer's grade None
    assert store.events() == []  # a canary is never an event


def test_a_refused_canary_records_nothing(store):
    with pytest.raises(Exception, match="(?i)check|constraint"):
        store.record_judge_check(JudgeCheck("llm", "v1", 7, 2, 0.1, 1, True, SUMMARY),
                                 [canary("terms", 1), canary("shouting", 1)])
    assert store.judge_checks() == []


def test_a_schema_12_store_gains_the_tables_and_keeps_its_hash(tmp_path, monkeypatch):
    import poolkit.store.store as sqlite_store
    from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION

    path = tmp_path / "v12.sqlite"
    with monkeypatch.context() as at_12:
        at_12.setattr(sqlite_store, "MIGRATIONS", MIGRATIONS[:12])
        at_12.setattr(sqlite_store, "SCHEMA_VERSION", 12)
        with sqlite_store.Store(path) as old:
            old.conn.execute("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at) "
                             "VALUES ('q1', 'd1', 'alice', 'grade', 2, 't')")
            assert "judge_checks" not in old.tables()
            before = content_hash(old)
    with open_store(path) as new:
        assert new.schema_version == SCHEMA_VERSION >= 13
        assert {"judge_checks", "canaries"} <= set(new.tables())
        assert content_hash(new) == before


def test_a_store_with_checks_copies_to_sqlite_identically(store, tmp_path):
    from poolkit.store.copy import copy_store

    made = [canary("terms", 3), canary("both", None)]
    store.record_judge_check(JudgeCheck("llm", "v1", 7, 1, 0.1, 1, False, SUMMARY), made)
    with open_store(tmp_path / "copy.sqlite") as copy:
        report = copy_store(store, copy)
        assert report.to_dict()["identical"] and report.counts["canaries"] == 2
        assert copy.canaries(1) == made and copy.judge_checks() == store.judge_checks()
