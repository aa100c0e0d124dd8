"""compare: hand-computed before/after, unjudged counts, condensed variants, contributions."""

from __future__ import annotations

import math

import pytest

from poolkit.analysis.compare import (
    compare,
    expand_measures,
    label_contributions,
    store_contributions,
)
from poolkit.analysis.compare_table import short_name
from poolkit.errors import StoreError
from poolkit.io import Qrels, Run
from poolkit.io.provenance import PoolProvenance
from poolkit.policies import Labels
from poolkit.score.measures import parse_measures
from poolkit.store import Event, NewMember, Store

BEFORE = {"q1": {"a": 1, "b": 0}}
AFTER = {"q1": {"a": 1, "b": 0, "c": 2}}
RUNS = {"r1": ["a", "c", "b"], "r2": ["c", "a", "x"], "r3": ["b", "x", "y"]}


def labels(grades, name):
    return Labels.of_qrels(Qrels.from_mapping(grades, name=name), {"kind": "file", "path": name})


@pytest.fixture
def doc():
    runs = {n: Run.from_mapping({"q1": r}, name=n) for n, r in RUNS.items()}
    before, after = labels(BEFORE, "before"), labels(AFTER, "after")
    contrib = label_contributions(before.qrels, after.qrels, runs, 2, 1,
                                  pooled_before={"r3"}, pooled_after={"r1", "r3"})
    return compare(before, after, runs, parse_measures(["P@2", "AP"]), contributions=contrib)


def run(doc, name):
    return next(r for r in doc["runs"] if r["name"] == name)


def test_measures_expand_to_condensed_and_bpref():
    names = [m.name for m in expand_measures(parse_measures(["nDCG@10", "AP", "bpref"]))]
    assert names == ["nDCG@10", "AP", "bpref", "nDCG(judged_only=true)@10",
                     "AP(judged_only=true)"]
    assert [m.name for m in expand_measures(parse_measures(["P@5"]), condensed=False)] == [
        "P@5", "bpref"]
    assert short_name("nDCG(judged_only=true)@10") == "nDCG'@10"
    assert short_name("P(rel=2,judged_only=true)@5") == "P(rel=2)'@5"
    assert short_name("AP(judged_only=true)") == "AP'"


def test_before_and_after_values(doc):
    r1, r2, r3 = (run(doc, n)["measures"] for n in ("r1", "r2", "r3"))
    # before: c unjudged. r1 = [a, c, b]: P@2 = 1/2, AP = 1; r2 = [c, a, x]: P@2 = 1/2, AP = 1/2
    assert (r1["P@2"]["before"], r1["AP"]["before"]) == (0.5, 1.0)
    assert (r2["P@2"]["before"], r2["AP"]["before"]) == (0.5, 0.5)
    # condensed before: r2 -> [a] so AP' = 1, P'@2 = 1/2
    assert r2["AP(judged_only=true)"]["before"] == 1.0
    assert r2["P(judged_only=true)@2"]["before"] == 0.5
    # after: c is relevant (grade 2); |Rel| = 2
    assert (r1["P@2"]["after"], r1["AP"]["after"]) == (1.0, 1.0)
    assert (r2["AP"]["after"], r2["AP"]["change"]) == (1.0, 0.5)
    assert r2["AP"]["per_query"]["q1"] == {"before": 0.5, "after": 1.0, "change": 0.5}
    assert r3["AP"]["after"] == 0.0
    assert r1["bpref"]["before"] == 1.0


def test_unjudged_counts_beside_every_run(doc):
    assert run(doc, "r1")["unjudged"]["2"]["before"] == 1   # c
    assert run(doc, "r1")["unjudged"]["2"]["after"] == 0
    assert run(doc, "r3")["unjudged"]["2"]["after"] == 1    # x, never judged
    assert run(doc, "r3")["judged"]["2"] == {"before": 0.5, "after": 0.5}
    assert any("unjudged in its top 2: 1 before, 0 after" in f for f in run(doc, "r2")["flags"])


def test_ranks_and_kendall_tau(doc):
    ap = doc["ranking"]["AP"]
    # before 1, .5, 0; after 1, 1, 0: tau-b = 2 / sqrt(3 * 2)
    assert ap["kendall_tau"] == pytest.approx(2 / math.sqrt(6))
    assert run(doc, "r2")["measures"]["AP"]["rank"] == {"before": 2, "after": 1, "change": 1}
    assert ap["after"] == ["r1", "r2", "r3"]


def test_contributions_from_label_files(doc):
    assert run(doc, "r1")["contribution"] == {"new_docs": 1, "only_it": 0, "new_judged": 1,
                                              "new_relevant": 1}
    assert run(doc, "r3")["contribution"]["new_docs"] == 0
    assert run(doc, "r1")["pooled"] == {"before": False, "after": True}
    assert run(doc, "r2")["pooled"] == {"before": False, "after": False}
    assert any("not in the 'before' pool (Judged@2 0.500)" in f for f in run(doc, "r1")["flags"])
    assert doc["contribution"]["total"] == {"new_docs": 1, "new_judged": 1, "new_relevant": 1}


def test_unknown_pooled_is_null_not_guessed():
    runs = {"r1": Run.from_mapping({"q1": ["a"]}, name="r1")}
    d = compare(labels(BEFORE, "b"), labels(AFTER, "a"), runs, parse_measures(["P@1"]),
                contributions=label_contributions(Qrels.from_mapping(BEFORE),
                                                  Qrels.from_mapping(AFTER), runs, 1, 1))
    assert d["runs"][0]["pooled"] == {"before": None, "after": None}
    assert not any("pool" in f for f in d["runs"][0]["flags"])


# --- the store form ---------------------------------------------------------------------------

def member(q, d, i=0):
    return NewMember(q, d, "", f"text {d}", float(i))


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.add_pool_version({"bm25": 2}, "shuffle", [member("q1", "a"), member("q1", "b")],
                           [("q1", "a", "bm25", 1, 2.0), ("q1", "b", "bm25", 2, 1.0)])
        s.add_pool_version({"bm25": 3, "dense": 2}, "shuffle",
                           [member("q1", "c"), member("q1", "d")],
                           [("q1", "c", "bm25", 3, 0.5), ("q1", "c", "dense", 1, 0.9),
                            ("q1", "d", "dense", 2, 0.8), ("q1", "a", "dense", 3, 0.1)])
        for d, g in (("a", 2), ("b", 0), ("c", 1)):
            s.record_event(Event("q1", d, "alice", "grade", grade=g))
        s.record_event(Event("q1", "c", "bob", "grade", grade=3))
        s.record_event(Event("q1", "z", "alice", "import", grade=3))  # never pooled
        yield s


def test_store_labels_as_of_a_version(store):
    v1 = Labels.as_of(store, 1)
    assert v1.qrels.grades == {"q1": {"a": 2, "b": 0}}
    assert v1.pooled == {("q1", "a"), ("q1", "b")}
    v2 = Labels.as_of(store, 2, policy="max")
    assert v2.qrels.grades["q1"] == {"a": 2, "b": 0, "c": 3}
    assert Labels.as_of(store, 2, assessors=["alice"]).qrels.grades["q1"]["c"] == 1
    with pytest.raises(StoreError, match="unknown assessor 'alise'.*did you mean 'alice'"):
        Labels.as_of(store, 2, assessors=["alise"])


def test_store_contributions(store):
    c = store_contributions(PoolProvenance.from_store(store, 2), 1,
                            Labels.as_of(store, 2, policy="latest").qrels, level=1)
    assert c["systems"]["bm25"] == {"new_docs": 1, "only_it": 0, "new_judged": 1,
                                    "new_relevant": 1}
    assert c["systems"]["dense"] == {"new_docs": 2, "only_it": 1, "new_judged": 1,
                                     "new_relevant": 1}
    assert c["pooled_before"] == {"bm25"}
    assert c["pooled_after"] == {"bm25", "dense"}
    assert c["total"] == {"new_docs": 2, "new_judged": 1, "new_relevant": 1}


def test_ranking_order_shows_ties():
    from poolkit.analysis.compare import ranking_order

    assert ranking_order(["a", "b", "c"], [0.5, 0.7, 0.5]) == "b > a = c"
    assert ranking_order(["a"], [0.1]) == "a"


def test_contribution_basis_names_one_version_plainly(store):
    c = store_contributions(PoolProvenance.from_store(store, 2), 1,
                            Labels.as_of(store, 2, policy="latest").qrels, level=1)
    assert c["basis"] == "pool provenance: documents first pooled in version 2"
