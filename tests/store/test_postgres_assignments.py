"""PostgreSQL's row-level security over assignments (issue 28): an assessor reads only her
own slots and the open ones, takes an open slot only for herself, and cannot move or add a
slot with her own SQL; a full pair is refused her inside poolkit's write transaction."""

from __future__ import annotations

import pytest
from test_postgres_security import sql_as, store_as, team  # noqa: F401  (the fixture)

from poolkit.errors import OverlapFull
from poolkit.store import Event
from poolkit.store.assign_sql import AssignmentPlan

psycopg = pytest.importorskip("psycopg")


@pytest.fixture
def planned(team, monkeypatch):  # noqa: F811
    alice, bob = team["alice"], team["bob"]
    slots = {("q1", "d1"): [alice, bob], ("q1", "d2"): [alice, None],
             ("q1", "d3"): [bob, "zoe"]}
    with store_as(team, "lead", monkeypatch) as lead:
        lead.replace_assignment(AssignmentPlan(2, "pair", 0, (alice, bob, "zoe")),
                                lambda current, settled: slots)
    return team


def test_an_assessor_reads_only_her_slots_and_open_ones(planned, monkeypatch):
    alice = planned["alice"]
    with sql_as(planned, "alice") as conn:
        seen = conn.execute("SELECT qid, docid, assessor FROM assignments ORDER BY docid, "
                            "slot").fetchall()
        assert seen == [("q1", "d1", alice), ("q1", "d2", alice), ("q1", "d2", None)]
        # the plan's pairs name nobody: everyone sees them all
        assert conn.execute("SELECT count(*) FROM assigned_pairs").fetchone()[0] == 3
    with store_as(planned, "alice", monkeypatch) as store:
        assert store.assignment_slots(alice) == {("q1", "d1"): [alice],
                                                 ("q1", "d2"): [alice, None]}


def test_a_full_pair_is_refused_and_an_open_slot_is_taken_for_herself_only(planned,
                                                                        monkeypatch):
    alice, bob = planned["alice"], planned["bob"]
    with store_as(planned, "alice", monkeypatch) as store:
        with pytest.raises(OverlapFull):
            store.record_event(Event("q1", "d3", alice, "grade", grade=2))
        store.record_event(Event("q1", "d1", alice, "cant_judge", note="broken text"))
    with store_as(planned, "bob", monkeypatch) as store:
        store.record_event(Event("q1", "d2", bob, "grade", grade=1))  # the open slot
    with sql_as(planned, "alice") as conn:
        for sql in ("UPDATE assignments SET assessor = %s WHERE docid = 'd3'",
                    "UPDATE assignments SET assessor = %s WHERE assessor IS NULL"):
            assert conn.execute(sql, (alice,)).rowcount == 0  # nothing she may touch
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO assignments VALUES ('q1', 'd3', 2, %s, 1)", (alice,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM assignments")
    with sql_as(planned, "lead") as conn:
        rows = conn.execute("SELECT docid, assessor FROM assignments ORDER BY docid, slot")
        assert rows.fetchall() == [("d1", alice), ("d1", bob), ("d2", alice), ("d2", bob),
                                   ("d3", bob), ("d3", "zoe")]
        kinds = conn.execute("SELECT assessor, kind FROM events ORDER BY id").fetchall()
        assert kinds == [(alice, "cant_judge"), (bob, "grade")]
