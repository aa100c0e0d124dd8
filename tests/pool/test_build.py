from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.io.provenance import top_docs
from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.pool.build import plan_pool, pool_runs
from poolkit.pool.order import ByDocId, Priority, Shuffle, order_strategy
from poolkit.store import Event, QueryRecord, Store
from poolkit.store.imports import import_labels

DOCS = {d: (f"title {d}", f"body of {d}") for d in "abcdefghij"}
QUERIES = [QueryRecord("q1", "first query"), QueryRecord("q2", "second query")]


def run(name, rankings):
    return Run.from_mapping(rankings, name=name)


BM25 = run("bm25", {"q1": ["a", "b", "c", "d"], "q2": ["e", "f"]})
DENSE = run("dense", {"q1": ["b", "e", "a", "f"], "q2": ["f", "g", "h"]})


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        yield s


def pooled(store, qid=None):
    return {(m.qid, m.docid): m.version for m in store.pool(qid)}


def test_union_of_top_n_with_provenance_of_every_doc(store):
    v = pool_runs(store, {"bm25": BM25, "dense": DENSE}, {"bm25": 2, "dense": 3}, DOCS,
                  queries=QUERIES)
    assert v == 1
    assert sorted(d for q, d in pooled(store) if q == "q1") == ["a", "b", "e"]
    assert sorted(d for q, d in pooled(store) if q == "q2") == ["e", "f", "g", "h"]
    src = store.sources()
    prov = {k: sorted((s.system, s.rank, s.score) for s in v) for k, v in src.items()}
    assert prov[("q1", "a")] == [("bm25", 1, 4.0), ("dense", 3, 2.0)]
    assert prov[("q1", "b")] == [("bm25", 2, 3.0), ("dense", 1, 4.0)]
    assert prov[("q1", "e")] == [("dense", 2, 3.0)]
    assert prov[("q2", "f")] == [("bm25", 2, 1.0), ("dense", 1, 3.0)]
    # Every pooled doc has provenance, and every provenance row is within its system's depth.
    assert set(src) == set(pooled(store))
    assert all(s.rank <= {"bm25": 2, "dense": 3}[s.system] for v in src.values() for s in v)
    # The text an assessor will see, and the query texts, are in the store.
    m = store.pool("q1")[0]
    assert store.text(m.text_hash) == DOCS[m.docid]
    assert store.queries()["q2"].text == "second query"
    assert store.pool_versions()[0]["depths"] == {"bm25": 2, "dense": 3}


def test_deeper_pool_is_a_new_version_with_only_new_docs(store):
    pool_runs(store, {"bm25": BM25, "dense": DENSE}, {"bm25": 2, "dense": 2}, DOCS)
    before = pooled(store)
    graded = store.record_event(Event("q1", "a", "alice", "grade", grade=2))
    v2 = pool_runs(store, {"bm25": BM25, "dense": DENSE}, {"bm25": 3, "dense": 3}, DOCS)
    assert v2 == 2
    after = pooled(store)
    assert {k: v for k, v in after.items() if k in before} == before  # old docs keep version 1
    assert sorted(k for k, v in after.items() if v == 2) == [("q1", "c"), ("q2", "h")]
    # a was re-found by nobody new; dense's rank-3 'a' is new provenance in version 2.
    a = {s.system: (s.rank, s.version) for s in store.sources("q1")[("q1", "a")]}
    assert a == {"bm25": (1, 1), "dense": (3, 2)}
    # Nothing judged was touched.
    assert [e.id for e in store.events()] == [graded]
    assert store.current_grades()[("q1", "a")]["alice"].grade == 2


def test_an_added_system_brings_only_its_new_docs(store):
    pool_runs(store, {"bm25": BM25}, {"bm25": 2}, DOCS)
    v2 = pool_runs(store, {"bm25": BM25, "dense": DENSE}, {"bm25": 2, "dense": 2}, DOCS)
    assert v2 == 2
    assert sorted(k for k, v in pooled(store).items() if v == 2) == [
        ("q1", "e"), ("q2", "g")]
    assert store.pool_versions()[1]["depths"] == {"bm25": 2, "dense": 2}


def test_re_pooling_unchanged_adds_nothing(store):
    runs, depths = {"bm25": BM25, "dense": DENSE}, {"bm25": 2, "dense": 2}
    assert pool_runs(store, runs, depths, DOCS, queries=QUERIES) == 1
    snapshot = (store.pool(), store.sources(), store.pool_versions())
    assert pool_runs(store, runs, depths, DOCS, queries=QUERIES) is None
    assert pool_runs(store, runs, {"bm25": 1, "dense": 1}, DOCS) is None  # shallower: nothing
    assert (store.pool(), store.sources(), store.pool_versions()) == snapshot


def test_a_repeated_doc_keeps_its_first_rank_and_uses_a_slot():
    r = Run({"q": ["a", "a", "b", "c"]}, name="r", scores={"q": [4.0, 3.0, 2.0, 1.0]})
    assert top_docs(r, "q", 3) == [("a", 1, 4.0), ("b", 3, 2.0)]


def test_unknown_doc_is_refused():
    with pytest.raises(PoolkitError, match="run 'r' ranks doc 'zz' for query 'q'.*not in the "
                                           "corpus"):
        plan_pool({"r": run("r", {"q": ["zz"]})}, {"r": 1}, DOCS)
    with pytest.raises(PoolkitError, match="no pool depth given for system\\(s\\) r"):
        plan_pool({"r": run("r", {"q": ["a"]})}, {}, DOCS)


def test_judging_order_strategies(store):
    runs, depths = {"bm25": BM25, "dense": DENSE}, {"bm25": 4, "dense": 4}
    by_id = plan_pool(runs, depths, DOCS, ByDocId(), ["q1"])
    assert [m.docid for m in sorted(by_id.members, key=lambda m: m.order_key)] == \
        ["a", "b", "c", "d", "e", "f"]
    prio = plan_pool(runs, depths, DOCS, Priority(60), ["q1"])
    # RRF: b (2, 1) and a (1, 3) first; then e (dense 2), c (bm25 3), then d and f (rank 4).
    assert [m.docid for m in sorted(prio.members, key=lambda m: (m.order_key, m.docid))] == \
        ["b", "a", "e", "c", "d", "f"]
    one = plan_pool(runs, depths, DOCS, Shuffle(13), ["q1"])
    two = plan_pool(runs, {"bm25": 2, "dense": 2}, DOCS, Shuffle(13), ["q1"])
    keys = {m.docid: m.order_key for m in one.members}
    assert all(keys[m.docid] == m.order_key for m in two.members)  # stable as the pool grows
    with pytest.raises(PoolkitError, match="unknown judging order strategy 'rrf'; valid: "
                                           "cal, docid, judge, mm-ns, mtf, priority, "
                                           "shuffle"):
        order_strategy("rrf")


def test_imported_labels_count_as_judged_and_survive_pooling(store):
    import_labels(store, Qrels.from_mapping({"q1": {"a": 3, "zz": 0}}), "nist")
    pool_runs(store, {"bm25": BM25}, {"bm25": 2}, DOCS)
    pool_runs(store, {"bm25": BM25}, {"bm25": 4}, DOCS)
    grades = store.current_grades()
    assert grades[("q1", "a")]["nist"].grade == 3 and ("q1", "zz") in grades


RANKING = st.lists(st.sampled_from("abcdefghij"), min_size=0, max_size=8)


@settings(max_examples=50, deadline=None)
@given(rankings=st.lists(RANKING, min_size=1, max_size=4),
       depths=st.lists(st.integers(1, 8), min_size=4, max_size=4))
def test_pool_is_the_union_of_top_n(rankings, depths):
    runs = {f"s{i}": run(f"s{i}", {"q": r}) for i, r in enumerate(rankings)}
    depth = {f"s{i}": depths[i] for i in range(len(rankings))}
    plan = plan_pool(runs, depth, DOCS, Shuffle(1))
    expected = set().union(*(set(r[:depth[f"s{i}"]]) for i, r in enumerate(rankings)))
    assert sorted(m.docid for m in plan.members) == sorted(expected)
    for q, d, s, rank, _score in plan.sources:
        assert runs[s].rankings[q].index(d) + 1 == rank <= depth[s]
    assert {(q, d) for q, d, *_ in plan.sources} == {("q", d) for d in expected}
