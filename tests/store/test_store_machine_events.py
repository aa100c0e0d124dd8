"""A machine judge's events (origin ``machine``, schema 7) are in the log but in no reader of
people's labels unless that judge is asked for by name, on both backends."""

from __future__ import annotations

import pytest

from poolkit.analysis.agreement import store_sources
from poolkit.errors import StoreError
from poolkit.policies import Labels
from poolkit.store import Event, NewMember
from poolkit.store.backends import open_store
from poolkit.store.copy import content_hash
from poolkit.store.judging import (
    assessor_stacks,
    disputed,
    judged_by_others,
    standing_votes,
    status_report,
)


def machine(qid: str, docid: str, grade: int, **kw) -> Event:
    return Event(qid, docid, "echo", kw.pop("kind", "grade"), grade=grade, origin="machine",
                 judge_version="echo/1", **kw)


@pytest.fixture
def store(store_location):
    """alice graded d1 2; the machine judge ``echo`` graded d1 0, d2 3 and skipped nothing."""
    with open_store(store_location) as store:
        store.add_pool_version({"s": 2}, "docid", [NewMember("q1", "d1", "", "a", 0.0),
                                                   NewMember("q1", "d2", "", "b", 1.0)],
                               [("q1", "d1", "s", 1, 1.0), ("q1", "d2", "s", 2, 0.5)])
        store.record_event(Event("q1", "d1", "alice", "grade", grade=2,
                                 shown_at="2026-01-01T00:00:00.000000+00:00"))
        store.record_events([machine("q1", "d1", 0), machine("q1", "d2", 3)])
        yield store


def test_no_reader_of_peoples_events_sees_a_machines(store):
    assert [e.assessor for e in store.events()] == ["alice"]
    assert list(store.current_grades()) == [("q1", "d1")]
    assert [row[5] for row in store.live_marks(["grade", "import"])] == ["alice"]
    assert store.assessors() == ["alice"] and store.labelled_pairs_in_order() == [("q1", "d1")]
    assert [t[1] for t in store.timings("grade")] == ["alice"]
    assert list(standing_votes(store)) == [("q1", "d1")]
    assert disputed(store) == {} and judged_by_others(store, "alice") == set()
    assert assessor_stacks(store, "echo") == {}
    report = status_report(store)
    assert (report.judged, report.doubly_judged, list(report.assessors)) == (1, 0, ["alice"])
    assert Labels.from_store(store, "latest").grades == {"q1": {"d1": 2}}
    assert [s.name for s in store_sources(store)] == ["alice"]
    assert Labels.as_of(store).qrels.grades == {"q1": {"d1": 2}}


def test_a_named_machine_judges_events_are_read_when_asked_for(store):
    assert store.machine_judges() == ["echo"]
    grades = store.current_grades(machine="echo")
    assert {p: by["echo"].grade for p, by in grades.items()} == {("q1", "d1"): 0,
                                                                 ("q1", "d2"): 3}
    assert {e.judge_version for e in store.events(machine="echo")} == {"echo/1"}
    undo = store.record_event(machine("q1", "d2", 3))
    store.record_event(Event("q1", "d2", "echo", "undo", ref=undo, origin="machine",
                             judge_version="echo/1"))
    assert {p: m.grade for p, by in standing_votes(store, machine="echo").items()
            for m in by.values()} == {("q1", "d1"): 0, ("q1", "d2"): 3}
    assert store.labelled_pairs_in_order(machine="echo") == [("q1", "d1"), ("q1", "d2")]
    assert store.events(machine="alice") == []


def test_a_persons_event_names_no_judge_version_and_origins_are_two(store):
    with pytest.raises(StoreError, match="a person's event has no judge version"):
        store.record_event(Event("q1", "d1", "alice", "grade", grade=1, judge_version="x"))
    with pytest.raises(StoreError, match="origin is person or machine"):
        store.record_event(Event("q1", "d1", "alice", "grade", grade=1, origin="robot"))


def test_a_retried_machine_event_is_logged_once(store):
    event = machine("q1", "d1", 1, judged_at="2026-01-01T00:00:00.000000+00:00")
    first = store.record_event_once(event)
    assert store.record_event_once(event) == first


def test_upgrading_a_store_keeps_its_content_hash(tmp_path, monkeypatch):
    """Schema 7's columns hold their defaults in every row of an upgraded store, and are left
    out of its hash: ``store copy`` reports the hash the store had at schema 6."""
    import poolkit.store.store as sqlite_store
    from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION

    path = tmp_path / "v6.sqlite"
    with monkeypatch.context() as at_6:
        at_6.setattr(sqlite_store, "MIGRATIONS", MIGRATIONS[:6])
        at_6.setattr(sqlite_store, "SCHEMA_VERSION", 6)
        with sqlite_store.Store(path) as old:
            old.add_pool_version({"s": 1}, "docid", [NewMember("q1", "d1", "", "a", 0.0)],
                                 [("q1", "d1", "s", 1, 1.0)])
            old.conn.execute("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at) "
                             "VALUES ('q1', 'd1', 'alice', 'grade', 2, 't')")
            assert "origin" not in old.columns("events")
            before = content_hash(old)
    with open_store(path) as new:
        assert new.schema_version == SCHEMA_VERSION and "origin" in new.columns("events")
        assert content_hash(new) == before
        new.record_event(machine("q1", "d1", 1))
        assert content_hash(new) != before
