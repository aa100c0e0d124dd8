"""The fast standing-grade queries (and one query's, what a learning order reads per
decision) agree with Store.current_grades on any log (property)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolkit.pool.learners import Judged
from poolkit.pool.next_passage import history
from poolkit.pool.provenance import pool_from_ranks
from poolkit.store import Event, NewMember, Store
from poolkit.store.judging import (
    assessor_stacks,
    disputed,
    judged_by_others,
    standing_votes,
)

PAIRS = [("q1", "a"), ("q1", "b"), ("q2", "a")]
ASSESSORS = ["alice", "bob"]
KINDS = ["grade", "import", "adjudicate"]

steps = st.lists(st.tuples(st.sampled_from(PAIRS), st.sampled_from(ASSESSORS),
                           st.sampled_from([*KINDS, "undo", "undo", "skip"]),
                           st.integers(0, 3), st.integers(0, 30)), max_size=30)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(steps)
def test_standing_votes_equal_current_grades(tmp_path_factory, log):
    path = tmp_path_factory.mktemp("log") / "s.sqlite"
    with Store(path) as store:
        store.add_pool_version({"x": 1}, "shuffle", [NewMember("q1", "a", "", "t", 0.0)], [])
        ids: list[int] = []
        for (qid, docid), who, kind, grade, pick in log:
            if kind == "undo":
                # Undo names some earlier event (any kind, any pair: the rule must cope).
                ref = ids[pick % len(ids)] if ids else None
                ids.append(store.record_event(Event(qid, docid, who, "undo", ref=ref)))
            else:
                ids.append(store.record_event(Event(qid, docid, who, kind, grade=grade)))
        for kinds in (("grade", "import"), ("adjudicate",), tuple(KINDS)):
            for version in (None, 1):
                expected = {pair: {a: (e.id, e.grade) for a, e in by.items()}
                            for pair, by in store.current_grades(version, kinds).items()}
                got = {pair: {a: (m.id, m.grade) for a, m in by.items()}
                       for pair, by in standing_votes(store, kinds, version).items()}
                assert got == expected
            for qid in ("q1", "q2"):  # one query's marks: the same rows, through the index
                assert list(store.live_marks(kinds, qid=qid)) == [
                    row for row in store.live_marks(kinds) if row[3] == qid]
        votes = store.current_grades(kinds=("grade", "import"))
        for qid in ("q1", "q2"):  # what a learner sees: each passage's latest standing grade
            pool = pool_from_ranks(qid, {"x": {"a": 1, "b": 2}})
            latest = {d: max(by.values(), key=lambda e: e.id) for (q, d), by in votes.items()
                      if q == qid}
            assert history(store, qid, pool) == [
                Judged(d, e.grade) for d, e in sorted(latest.items(), key=lambda kv: kv[1].id)
                if e.grade is not None]
        split = {pair: {a: e.grade for a, e in by.items()} for pair, by in votes.items()
                 if len(by) >= 2 and len({e.grade for e in by.values()}) > 1}
        assert disputed(store) == split
        for who in ASSESSORS:
            assert judged_by_others(store, who) == {p for p, by in votes.items()
                                                    if set(by) - {who}}
            stacks = assessor_stacks(store, who, KINDS)
            tops = {pair: s[-1].id for pair, s in stacks.items()}
            assert tops == {pair: by[who].id for pair, by in store.current_grades().items()
                            if who in by}


def test_pool_rows_keep_the_store_judging_order(tiny_store):
    tiny_store.add_pool_version({"b": 1}, "shuffle", [
        NewMember("q1", "late", "", "x", -5.0), NewMember("zz", "a", "", "y", 0.0),
        NewMember("q2", "early", "", "z", -1.0)], [])
    for version in (None, 1, 2):
        expected = [(m.qid, m.docid, m.version, m.text_hash)
                    for m in tiny_store.pool(max_version=version)]
        assert tiny_store.pool_rows(version) == expected
    assert [r[1] for r in tiny_store.pool_rows()] == ["d1", "d2", "d3", "late", "d4", "d5",
                                                    "early", "a"]
