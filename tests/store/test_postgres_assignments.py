"""PostgreSQL's row-level security over assignments (issue 28): an assessor reads only her
own slots and the open ones, takes an open slot only for herself, and cannot move or add a
slot with her own SQL; a full pair is refused her inside poolkit's write transaction, and
(issue 43) her own SQL cannot grade or can't-judge a pair of the plan outside her slots."""

from __future__ import annotations

import pytest
from judging_screen_helpers import TickClock, sync
from test_postgres_security import EVENT, dump, sql_as, store_as, team  # noqa: F401 (team)

from poolkit.config import JudgeConfig
from poolkit.errors import OverlapFull
from poolkit.judge.app import JudgeApp
from poolkit.judge.session import JudgingSession
from poolkit.store import Event, NewMember, QueryRecord
from poolkit.store.assign_sql import AssignmentPlan
from poolkit.store.gold_sql import GoldSet

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


def _grade(conn, who: str, docid: str, kind: str = "grade") -> None:
    conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', %s, %s, %s, %s, 't')",
                 (docid, who, kind, 1 if kind == "grade" else None))


@pytest.mark.parametrize("kind", ["grade", "cant_judge"])
def test_her_own_sql_cannot_settle_a_pair_assigned_to_others(planned, kind):
    """The plan is the server's rule: a grade or can't-judge on a planned pair needs a slot
    in her name (d3 is bob's and zoe's); the store is as it was after the refusal."""
    alice = planned["alice"]
    before = dump(planned["url"])
    with sql_as(planned, "alice") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            _grade(conn, alice, "d3", kind)
    assert dump(planned["url"]) == before


def test_her_own_slots_an_open_one_she_takes_and_unplanned_pairs_behave_as_before(planned):
    alice, bob = planned["alice"], planned["bob"]
    with sql_as(planned, "alice") as conn:
        _grade(conn, alice, "d1")  # her slot
        _grade(conn, alice, "d2", "cant_judge")  # her slot (beside an open one)
        _grade(conn, alice, "d9")  # in no plan: anyone's
        for kind in ("skip", "note"):  # no label: as before, on any pair
            _grade(conn, alice, "d3", kind)
    with sql_as(planned, "bob") as conn:  # d2's open slot: taken first, as poolkit does
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            _grade(conn, bob, "d2")
        with conn.transaction():
            assert conn.execute("UPDATE assignments SET assessor = %s WHERE docid = 'd2' AND "
                                "assessor IS NULL", (bob,)).rowcount == 1
            _grade(conn, bob, "d2")
    with sql_as(planned, "lead") as conn:  # a lead settles any pair, under any name
        _grade(conn, planned["lead"], "d3")
        _grade(conn, alice, "d3")
        rows = conn.execute("SELECT assessor, docid, kind FROM events ORDER BY id").fetchall()
    assert rows == [(alice, "d1", "grade"), (alice, "d2", "cant_judge"), (alice, "d9", "grade"),
                    (alice, "d3", "skip"), (alice, "d3", "note"), (bob, "d2", "grade"),
                    (planned["lead"], "d3", "grade"), (alice, "d3", "grade")]


@pytest.fixture
def judging(team, monkeypatch):  # noqa: F811
    """Four pooled passages of q1 planned one person each (d1, d3 alice's, d2 bob's, d4 open)
    and an unpooled gold passage, mixed into every walk (rate 1)."""
    alice, bob = team["alice"], team["bob"]
    with store_as(team, "lead", monkeypatch) as lead:
        lead.upsert_queries([QueryRecord("q1", "armyworm traps")])
        docs = ["d1", "d2", "d3", "d4"]
        lead.add_pool_version({"s": 4}, "docid",
                              [NewMember("q1", d, "", f"passage {d}", float(i))
                               for i, d in enumerate(docs)],
                              [("q1", d, "s", i + 1, 1.0) for i, d in enumerate(docs)])
        slots = {("q1", "d1"): [alice], ("q1", "d2"): [bob], ("q1", "d3"): [alice],
                 ("q1", "d4"): [None]}
        lead.replace_assignment(AssignmentPlan(1, "pair", 0, (alice, bob)),
                                lambda current, settled: slots)
        lead.replace_gold(GoldSet("gold.qrels", "0" * 64, 1.0, 0),
                          [("q1", "g1", 2, "", "a gold passage")])
    return team


def test_each_assessor_s_role_judges_her_assignment_and_gold_through_the_session(
        judging, monkeypatch):
    alice, bob = judging["alice"], judging["bob"]
    seen = {}
    for who in ("alice", "bob"):
        with store_as(judging, who, monkeypatch) as store:
            session = JudgingSession(store, judging[who], clock=TickClock())
            seen[who] = []
            while session.current is not None:
                seen[who].append(session.current.docid)
                assert session.grade(1) is not None
    assert sorted(seen["alice"]) == ["d1", "d3", "d4", "g1"]  # d4: the open slot, taken
    assert sorted(seen["bob"]) == ["d2", "g1"]
    with sql_as(judging, "lead") as conn:
        rows = conn.execute("SELECT assessor, docid, kind FROM events ORDER BY docid, "
                            "assessor").fetchall()
        holders = conn.execute("SELECT docid, assessor FROM assignments ORDER BY docid")
        assert holders.fetchall() == [("d1", alice), ("d2", bob), ("d3", alice), ("d4", alice)]
    assert rows == [(alice, "d1", "grade"), (bob, "d2", "grade"), (alice, "d3", "grade"),
                    (alice, "d4", "grade"), (alice, "g1", "gold"), (bob, "g1", "gold")]


@sync
async def test_the_judging_screen_grades_an_assessor_s_assigned_pairs_as_her_role(
        judging, monkeypatch):
    bob = judging["bob"]
    with store_as(judging, "bob", monkeypatch) as store:
        app = JudgeApp(JudgingSession(store, bob, clock=TickClock()),
                       JudgeConfig(topic_card=False), heartbeat_every=3600)
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(3):  # d2, the open d4 and the gold passage, in the walk's order
                assert app.session.current is not None
                await pilot.press("2")
            assert app.session.current is None
        mine = [(e.docid, e.kind, e.grade) for e in store.events() if e.assessor == bob]
    assert sorted(mine) == [("d2", "grade", 2), ("d4", "grade", 2), ("g1", "gold", 2)]
