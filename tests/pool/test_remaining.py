"""The remaining-relevant estimate and the stopping rule, on simulated pools with a known
answer: relevance is drawn from a known rank-based model, the pool is judged by a strategy,
and the interval must hold the true number of unjudged relevant documents."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.pool.learners import Judged
from poolkit.pool.order import order_strategy
from poolkit.pool.provenance import pool_from_ranks
from poolkit.pool.remaining import RelevanceModel, StopRule, estimate_remaining, true_remaining
from poolkit.pool.simulate import budget_count, replay
from poolkit.pool.view import QueryPool


def simulated_query(rng: np.random.Generator, qid: str, runs: int = 5, depth: int = 20,
                    ) -> tuple[QueryPool, dict[str, int]]:
    """Runs of unequal quality ranking a shared candidate set; relevance falls with rank."""
    n_docs = 60
    base = rng.normal(-1.0, 1.0, size=n_docs)          # how relevant-looking each doc is
    relevant = rng.random(n_docs) < 1 / (1 + np.exp(-(base - 0.3)))
    ranks: dict[str, dict[str, int]] = {}
    for r in range(runs):
        skill = rng.uniform(0.3, 2.0)
        noisy = skill * (base + relevant) + rng.normal(0, 1.0, size=n_docs)
        top = np.argsort(-noisy)[:depth]
        ranks[f"run{r}"] = {f"d{i}": k + 1 for k, i in enumerate(top)}
    pool = pool_from_ranks(qid, ranks)
    grades = {d: int(relevant[int(d[1:])]) for d in pool.docs}
    return pool, grades


@pytest.mark.parametrize("name", ["mm-ns", "mtf", "priority", "shuffle"])
def test_interval_holds_the_true_count_on_simulated_pools(name):
    rng = np.random.default_rng(7)
    strategy = order_strategy(name)
    covered = total = 0
    for q in range(60):
        pool, grades = simulated_query(rng, f"q{q}")
        seq = replay(strategy, pool, grades)
        for fraction in (0.25, 0.5):
            k = budget_count(fraction, len(seq))
            est = estimate_remaining(pool, seq[:k])
            truth = true_remaining(pool, seq[:k], grades, 1)
            covered += est.low <= truth <= est.high
            total += 1
            assert est.low <= est.value <= est.high
    assert covered / total >= 0.9, f"{name}: {covered}/{total}"


def test_nothing_left_is_exactly_zero():
    pool = pool_from_ranks("q", {"A": {"a": 1, "b": 2}})
    est = estimate_remaining(pool, [Judged("a", 1), Judged("b", 0)])
    assert (est.value, est.low, est.high) == (0.0, 0.0, 0.0)


def test_estimate_is_reproducible_and_follows_the_grades():
    rng = np.random.default_rng(3)
    pool, grades = simulated_query(rng, "q")
    docs = list(pool.docs)[:20]
    all_relevant = [Judged(d, 1) for d in docs]
    none_relevant = [Judged(d, 0) for d in docs]
    a = estimate_remaining(pool, all_relevant)
    assert a == estimate_remaining(pool, all_relevant)
    b = estimate_remaining(pool, none_relevant)
    assert a.value > b.value and a.high > b.high
    left = len(pool.docs) - len(docs)
    assert 0 <= b.low <= b.high <= left and 0 <= a.low <= a.high <= left


def test_with_no_grades_the_interval_is_wide():
    pool = pool_from_ranks("q", {"A": {f"d{i}": i + 1 for i in range(30)}})
    est = estimate_remaining(pool, [])
    assert est.high - est.low >= 15 and math.isclose(est.value, 15, abs_tol=5)


def test_stop_rule_needs_min_judged_and_a_confident_recall():
    rng = np.random.default_rng(11)
    pool, grades = simulated_query(rng, "q")
    seq = replay(order_strategy("mm-ns"), pool, grades)
    rule = StopRule(target=0.9, confidence=0.9, min_judged=5)
    assert not rule.fires(pool, seq[:4])
    fired = next(k for k in range(5, len(seq) + 1) if rule.fires(pool, seq[:k]))
    found = sum(j.grade for j in seq[:fired])
    upper = RelevanceModel.fit(pool, seq[:fired]).upper(0.9)
    assert found >= 0.9 * (found + upper)
    loose = StopRule(target=0.5, confidence=0.5, min_judged=5)
    assert next(k for k in range(5, len(seq) + 1) if loose.fires(pool, seq[:k])) <= fired


def test_stop_rule_reaches_its_target_on_simulated_pools():
    rng = np.random.default_rng(5)
    rule = StopRule()
    reached = 0
    queries = 40
    for q in range(queries):
        pool, grades = simulated_query(rng, f"q{q}")
        seq = replay(order_strategy("mm-ns"), pool, grades)
        stop = next((k for k in range(rule.min_judged, len(seq)) if rule.fires(pool, seq[:k])),
                    len(seq))
        relevant = sum(grades.values())
        reached += sum(j.grade for j in seq[:stop]) >= rule.target * relevant
    assert reached / queries >= 0.9


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 16), judged=st.integers(0, 40), shuffle=st.randoms())
def test_the_estimate_and_the_stop_do_not_depend_on_the_pools_document_order(
        seed: int, judged: int, shuffle: random.Random) -> None:
    """A store's pool lists its documents in judging order, a pool rebuilt from run files
    in docid order: the same pool and grades must give the same interval and the same stop
    (the draws once paired random numbers with the unjudged documents in listed order, so
    Cranfield's stopping rule judged 7,309 in the store form and 7,293 in the file form)."""
    pool, grades = simulated_query(np.random.default_rng(seed), "q")
    docs = list(pool.docs)
    shuffle.shuffle(docs)
    other = replace(pool, docs=tuple(docs))
    seq = replay(order_strategy("priority"), pool, grades)[:judged]
    assert estimate_remaining(pool, seq) == estimate_remaining(other, seq)
    rule = StopRule(target=0.9, confidence=0.9, min_judged=5)
    assert RelevanceModel.fit(pool, seq).upper(0.9) == RelevanceModel.fit(other, seq).upper(0.9)
    assert rule.recall(pool, seq) == rule.recall(other, seq)
