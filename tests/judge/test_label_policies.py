"""Current labels under each policy: hand-worked cases, properties, and what is left unresolved."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.policies import POLICIES, Labels, Vote, get_policy, provenance
from poolkit.store import Event, NewMember, Store


def grade(store: Store, q: str, d: str, who: str, g: int, kind: str = "grade") -> int:
    return store.record_event(Event(q, d, who, kind, grade=g))


@pytest.fixture
def disputed(tiny_store):
    s = tiny_store
    grade(s, "q1", "d1", "alice", 3)
    grade(s, "q1", "d1", "bob", 1)            # alice 3, bob 1: disagree
    grade(s, "q1", "d2", "alice", 2)
    grade(s, "q1", "d2", "bob", 2)            # agree
    grade(s, "q1", "d3", "alice", 0)
    grade(s, "q1", "d3", "bob", 1)
    grade(s, "q1", "d3", "carol", 1)          # 0, 1, 1: majority 1
    grade(s, "q2", "d4", "alice", 1)          # single assessor
    return s


def test_latest(disputed):
    labels = Labels.from_store(disputed, "latest")
    assert labels.grades == {"q1": {"d1": 1, "d2": 2, "d3": 1}, "q2": {"d4": 1}}
    assert labels.unresolved == []
    assert labels.assessors == {"q1": ["alice", "bob", "carol"], "q2": ["alice"]}


def test_max(disputed):
    assert Labels.from_store(disputed, "max").grades == {"q1": {"d1": 3, "d2": 2, "d3": 1},
                                                      "q2": {"d4": 1}}


def test_majority_leaves_ties_unresolved(disputed):
    labels = Labels.from_store(disputed, "majority")
    assert labels.grades == {"q1": {"d2": 2, "d3": 1}, "q2": {"d4": 1}}
    [u] = labels.unresolved
    assert (u.qid, u.docid, u.grades, u.reason) == ("q1", "d1", {"alice": 3, "bob": 1},
                                                    "tie between grades 1, 3")


def test_adjudicated_needs_an_adjudication_for_disagreements(disputed):
    labels = Labels.from_store(disputed, "adjudicated")
    assert labels.grades == {"q1": {"d2": 2}, "q2": {"d4": 1}}
    assert [(u.qid, u.docid) for u in labels.unresolved] == [("q1", "d1"), ("q1", "d3")]
    adj = grade(disputed, "q1", "d1", "dave", 2, kind="adjudicate")
    grade(disputed, "q1", "d3", "dave", 0, kind="adjudicate")
    labels = Labels.from_store(disputed, "adjudicated")
    assert labels.grades == {"q1": {"d1": 2, "d2": 2, "d3": 0}, "q2": {"d4": 1}}
    assert labels.unresolved == []
    # An undone adjudication no longer decides.
    disputed.record_event(Event("q1", "d1", "dave", "undo", ref=adj))
    assert [u.docid for u in Labels.from_store(disputed, "adjudicated").unresolved] == ["d1"]
    # The ruling that remains (d3) decides under the mechanical policies too.
    assert Labels.from_store(disputed, "majority").grades["q1"] == {"d2": 2, "d3": 0}


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_an_adjudication_decides_its_pair_under_every_policy(disputed, policy):
    grade(disputed, "q1", "d1", "dave", 2, kind="adjudicate")  # alice 3, bob 1: a tie
    labels = Labels.from_store(disputed, policy)
    assert labels.grades["q1"]["d1"] == 2
    assert ("q1", "d1") not in {(u.qid, u.docid) for u in labels.unresolved}
    assert labels.adjudicators == {"q1": ["dave"]}


def test_one_default_policy_for_every_command_that_makes_labels():
    import argparse

    from poolkit.cli import compare, export, reusability
    from poolkit.policies import DEFAULT_POLICY

    root = argparse.ArgumentParser()
    sub = root.add_subparsers()
    for module in (compare, export, reusability):
        module.register(sub)
    defaults = {name: parser.get_default("policy") for name, parser in sub.choices.items()}
    assert defaults == {"compare": DEFAULT_POLICY, "export": DEFAULT_POLICY,
                        "reusability": DEFAULT_POLICY}


def test_undo_and_regrade_are_respected(tiny_store):
    grade(tiny_store, "q1", "d1", "alice", 3)
    grade(tiny_store, "q1", "d1", "alice", 1)
    tiny_store.record_event(Event("q1", "d2", "alice", "grade", grade=2))
    assert Labels.from_store(tiny_store, "latest").grades == {"q1": {"d1": 1, "d2": 2}}
    last = tiny_store.events()[-1].id
    tiny_store.record_event(Event("q1", "d2", "alice", "undo", ref=last))
    assert Labels.from_store(tiny_store, "latest").grades == {"q1": {"d1": 1}}


def test_assessor_filter_and_pool_version(disputed):
    assert Labels.from_store(disputed, "adjudicated", assessors=["bob"]).grades == {
        "q1": {"d1": 1, "d2": 2, "d3": 1}}
    disputed.add_pool_version({"sysB": 1}, "shuffle",
                              [NewMember("q2", "d9", "", "late passage", 0.0)], [])
    grade(disputed, "q2", "d9", "alice", 3)
    grade(disputed, "q2", "zz", "nist", 2, kind="import")  # labelled, never pooled
    assert Labels.from_store(disputed, "latest", pool_version=1).grades["q2"] == {"d4": 1}
    assert Labels.from_store(disputed, "latest").grades["q2"] == {"d4": 1, "d9": 3, "zz": 2}
    assert Labels.from_store(disputed, "latest", pool_version=2).grades["q2"] == {"d4": 1, "d9": 3}
    with pytest.raises(PoolkitError, match="no pool version 7; the store has 1, 2"):
        Labels.from_store(disputed, "latest", pool_version=7)


def test_order_follows_queries_then_pool_then_first_label(tiny_store):
    grade(tiny_store, "q9", "b", "nist", 1, kind="import")
    grade(tiny_store, "q9", "a", "nist", 1, kind="import")
    grade(tiny_store, "q2", "d5", "alice", 1)
    grade(tiny_store, "q1", "d3", "alice", 1)
    grade(tiny_store, "q1", "zz", "nist", 1, kind="import")
    grade(tiny_store, "q1", "d1", "alice", 1)
    grades = Labels.from_store(tiny_store, "latest").grades
    assert list(grades) == ["q1", "q2", "q9"]
    assert list(grades["q1"]) == ["d1", "d3", "zz"] and list(grades["q9"]) == ["b", "a"]


def test_unknown_policy_names_the_valid_ones(tiny_store):
    with pytest.raises(PoolkitError, match="unknown label policy 'majorty'; valid: adjudicated, "
                                           "latest, majority, max .did you mean 'majority'"):
        get_policy("majorty")


def test_provenance_per_query(disputed):
    disputed.add_pool_version({"sysA": 5, "sysB": 2}, "shuffle",
                              [NewMember("q2", "d9", "", "late", 0.0)],
                              [("q2", "d9", "sysB", 1, 0.5)])
    labels = Labels.from_store(disputed, "max")
    prov = provenance(disputed, labels, None, "2026-01-05")
    assert prov["q2"] == {"pool_version": 2, "pool_depth": {"sysA": 5, "sysB": 2},
                          "systems": ["sysA", "sysB"], "assessors": ["alice"], "policy": "max",
                          "judged": 1, "pooled": 3, "date": "2026-01-05",
                          "poolkit_version": prov["q2"]["poolkit_version"]}
    old = provenance(disputed, labels, 1, "2026-01-05")["q2"]
    assert (old["pool_version"], old["pool_depth"], old["systems"], old["pooled"]) == (
        1, {"sysA": 3}, ["sysA"], 2)


votes_st = st.lists(st.tuples(st.sampled_from("abcde"), st.integers(0, 3)), min_size=1,
                    max_size=6, unique_by=lambda t: t[0]).map(
    lambda vs: [Vote(a, g, i) for i, (a, g) in enumerate(vs)])


@given(votes_st)
def test_policies_pick_a_grade_someone_gave(votes):
    given_grades = {v.grade for v in votes}
    for policy in POLICIES.values():
        try:
            chosen = policy.decide(votes)
        except Exception as exc:  # Unresolvable only
            assert type(exc).__name__ == "Unresolvable"
            assert policy.name in ("majority", "adjudicated")
            continue
        assert chosen in given_grades
    assert POLICIES["max"].decide(votes) == max(given_grades)


@given(votes_st)
def test_unanimous_votes_resolve_the_same_under_every_policy(votes):
    same = [Vote(v.assessor, votes[0].grade, v.event_id) for v in votes]
    assert {p.decide(same) for p in POLICIES.values()} == {votes[0].grade}


def test_provenance_names_adjudicators_and_counts_what_was_left_out(disputed):
    labels = Labels.from_store(disputed, "adjudicated")
    prov = provenance(disputed, labels, None, "2026-01-05")
    assert prov["q1"]["unresolved"] == 2 and prov["q1"]["judged"] == 1
    assert "adjudicators" not in prov["q1"] and "unresolved" not in prov["q2"]
    grade(disputed, "q1", "d1", "dave", 2, kind="adjudicate")
    labels = Labels.from_store(disputed, "adjudicated")
    assert labels.adjudicators == {"q1": ["dave"]}
    prov = provenance(disputed, labels, None, "2026-01-05")["q1"]
    assert (prov["assessors"], prov["adjudicators"], prov["unresolved"]) == (
        ["alice", "bob", "carol"], ["dave"], 1)
    # The ruling decides under a mechanical policy too, and is credited there as well.
    assert Labels.from_store(disputed, "max").adjudicators == {"q1": ["dave"]}
