"""Schema 9 (issue 28): assignments with controlled overlap and the can't-judge event, on
both backends. Overlap is enforced inside the write transaction: under concurrent judging by
more assessors than the overlap, every pair ends with exactly ``overlap`` distinct people."""

from __future__ import annotations

import itertools
import random
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolkit.errors import OverlapFull
from poolkit.pool.assignment import plan_slots
from poolkit.store import Event, NewMember
from poolkit.store.assign_sql import AssignmentPlan
from poolkit.store.backends import open_store
from poolkit.store.copy import content_hash

_fresh = itertools.count()


@pytest.fixture
def store(store_location):
    with open_store(store_location) as s:
        yield s


def pooled(store, qid: str, n: int) -> list[tuple[str, str]]:
    docs = [f"d{i}" for i in range(n)]
    store.add_pool_version({"s": n}, "docid",
                           [NewMember(qid, d, "", f"t {d}", float(i)) for i, d in enumerate(docs)],
                           [(qid, d, "s", i + 1, None) for i, d in enumerate(docs)])
    return [(qid, d) for d in docs]


def assign(store, pairs, assessors, overlap, unit="pair", seed=0):
    plan = AssignmentPlan(overlap, unit, seed, tuple(assessors))
    return store.replace_assignment(
        plan, lambda current, settled: plan_slots(pairs, assessors, overlap, unit, seed,
                                                  settled))[1]


def test_a_fourth_assessor_on_a_full_pair_is_refused_and_nothing_is_recorded(store):
    pairs = pooled(store, "q1", 3)
    slots = assign(store, pairs, ["alice", "bob", "carol"], 2)
    assert all(len(h) == 2 and None not in h for h in slots.values())
    pair = pairs[0]
    outsider = next(a for a in ["alice", "bob", "carol"] if a not in slots[pair])
    before = len(store.events())
    with pytest.raises(OverlapFull, match="gets other work"):
        store.record_event(Event(*pair, outsider, "grade", grade=1))
    with pytest.raises(OverlapFull):  # a retried write is held to the same rule
        store.record_event_once(Event(*pair, outsider, "cant_judge", note="x"))
    assert len(store.events()) == before
    holder = slots[pair][0]
    store.record_event(Event(*pair, holder, "grade", grade=2))  # a holder settles it
    store.record_event(Event("q9", "dx", "dave", "grade", grade=1))  # unplanned: anyone


def test_cant_judge_is_its_own_kind_and_never_a_label(store):
    pooled(store, "q1", 1)
    store.record_event(Event("q1", "d0", "alice", "cant_judge", note="broken text"))
    assert [e.kind for e in store.events()] == ["cant_judge"]
    assert store.current_grades() == {}
    assert store.settled_pairs() == {("q1", "d0"): ["alice"]}


def test_reassigning_keeps_what_was_judged_and_replace_moves_only_bobs_open_work(store):
    pairs = pooled(store, "q1", 6)
    slots = assign(store, pairs, ["alice", "bob"], 1)
    bobs = [p for p, h in slots.items() if h == ["bob"]]
    store.record_event(Event(*bobs[0], "bob", "grade", grade=3))
    current = store.assignment_slots()
    keep = {p: ["dave" if h == "bob" else h for h in holders if h]
            for p, holders in current.items()}
    again = store.replace_assignment(
        AssignmentPlan(1, "pair", 0, ("alice", "dave")),
        lambda cur, settled: plan_slots(pairs, ["alice", "dave"], 1, "pair", 0, settled,
                                        keep))[1]
    assert again[bobs[0]] == ["bob"]  # judged: stays bob's
    assert all(again[p] == ["dave"] for p in bobs[1:])
    assert all(again[p] == ["alice"] for p, h in slots.items() if h == ["alice"])
    assert store.assignment_plan().assessors == ("alice", "dave")


def test_a_schema_8_store_gains_the_tables_keeps_its_events_and_hash(tmp_path, monkeypatch):
    import poolkit.store.store as sqlite_store
    from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION

    path = tmp_path / "v8.sqlite"
    with monkeypatch.context() as at_8:
        at_8.setattr(sqlite_store, "MIGRATIONS", MIGRATIONS[:8])
        at_8.setattr(sqlite_store, "SCHEMA_VERSION", 8)
        with sqlite_store.Store(path) as old:
            add = ("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at, ref) "
                   "VALUES ('q1', 'd1', 'alice', ?, ?, 't', ?)")
            old.conn.execute(add, ("grade", 2, None))
            old.conn.execute(add, ("undo", None, 1))
            before = content_hash(old)
            with pytest.raises(Exception, match="CHECK"):
                old.conn.execute(add, ("cant_judge", None, None))
    with open_store(path) as new:
        assert new.schema_version == SCHEMA_VERSION >= 9
        assert {"assignments", "assignment_plans", "assigned_pairs"} <= set(new.tables())
        assert content_hash(new) == before
        assert new.record_event(Event("q1", "d1", "alice", "cant_judge", note="x")) == 3
        with pytest.raises(Exception, match="FOREIGN KEY"):  # the self-reference survived
            new.record_event(Event("q1", "d1", "alice", "undo", ref=999))


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n_pairs=st.integers(1, 5), overlap=st.integers(1, 3), extra=st.integers(1, 3),
       preassigned=st.booleans(), seed=st.integers(0, 2**16))
def test_every_pair_gets_exactly_overlap_people_under_concurrent_judging(
        store, n_pairs, overlap, extra, preassigned, seed):
    qid = f"q{next(_fresh)}"
    pairs = pooled(store, qid, n_pairs)
    people = [f"p{i}" for i in range(overlap + extra)]
    # preassigned: a plan over the first `overlap` people (the rest are outsiders); else
    # every slot open, taken by whoever settles the pair first
    assign(store, pairs, people[:overlap] if preassigned else [], overlap)
    start = threading.Barrier(len(people))

    def judge(who: str) -> None:
        order = list(pairs)
        random.Random(f"{seed}{who}").shuffle(order)
        start.wait()
        try:
            for pair in order:
                try:
                    store.record_event(Event(*pair, who, "grade", grade=1))
                except OverlapFull:
                    pass
        finally:
            store.close_thread()

    threads = [threading.Thread(target=judge, args=(p,)) for p in people]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    graders: dict[tuple[str, str], set[str]] = {}
    for e in store.events(qid=qid):
        graders.setdefault((e.qid, e.docid), set()).add(e.assessor)
    assert {p: len(graders.get(p, ())) for p in pairs} == {p: overlap for p in pairs}
    assert all(sorted(h) == sorted(graders[p]) for p, h in store.assignment_slots().items()
               if p in graders)


def test_a_store_with_a_plan_copies_between_backends_with_one_hash(store, tmp_path):
    from poolkit.store.copy import copy_store

    pairs = pooled(store, "q1", 4)
    assign(store, pairs, ["alice", "bob", "carol"], 2)
    store.record_event(Event(*pairs[0], store.assignment_slots()[pairs[0]][0], "cant_judge",
                             note="unclear topic"))
    with open_store(tmp_path / "copy.sqlite") as copy:
        report = copy_store(store, copy)
        assert content_hash(copy) == content_hash(store)
        assert copy.assignment_slots() == store.assignment_slots()
        assert copy.assignment_plan() == store.assignment_plan()
    assert report is not None
