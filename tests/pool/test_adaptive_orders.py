"""Judging-order strategies on hand-built pools where the right next passage is known."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.pool.learners import rrf_keys
from poolkit.pool.mm_ns import MaxMeanNonStationary
from poolkit.pool.mtf import MoveToFront
from poolkit.pool.order import ORDER_STRATEGIES, Priority, order_strategy
from poolkit.pool.provenance import pool_from_ranks


def nxt(strategy, pool, judged=(), exclude=()):
    """The strategy's pick after ``judged`` [(doc, grade), ...], ``exclude`` not pending."""
    grades = dict(judged)
    pending = [d for d in pool.docs if d not in grades and d not in set(exclude)]
    return strategy.next(pool, grades, pending)


# Run A ranks a1 a2 a3, run B ranks b1 b2 b3, run C ranks c1 c2; "s" is shared by A and B.
POOL = pool_from_ranks("q", {
    "A": {"a1": 1, "a2": 2, "a3": 3},
    "B": {"b1": 1, "b2": 2, "b3": 3},
    "C": {"c1": 1, "c2": 2},
})


def test_mtf_starts_with_the_first_run_and_stays_after_a_relevant_hit():
    mtf = MoveToFront()
    assert nxt(mtf, POOL, []) == "a1"
    assert nxt(mtf, POOL, [("a1", 2)]) == "a2"
    assert nxt(mtf, POOL, [("a1", 2), ("a2", 1)]) == "a3"


def test_mtf_demotes_a_run_after_a_miss_and_moves_on():
    mtf = MoveToFront()
    judged = [("a1", 0)]
    assert nxt(mtf, POOL, judged) == "b1"
    priority, front = mtf.priorities(POOL, dict(judged))
    assert priority == {"A": -1.0, "B": 0.0, "C": 0.0} and front == "B"
    judged += [("b1", 0)]
    assert nxt(mtf, POOL, judged) == "c1"           # B demoted too: C is the only one at 0
    judged += [("c1", 0)]                      # all at -1: back to A, in run order
    assert nxt(mtf, POOL, judged) == "a2"


def test_mtf_moves_a_relevant_run_to_the_front_over_demoted_ones():
    mtf = MoveToFront()
    judged = [("a1", 0), ("b1", 3), ("b2", 3)]
    assert nxt(mtf, POOL, judged) == "b3"  # B keeps the front while it finds relevant ones
    judged += [("b3", 0), ("c1", 0), ("c2", 0)]
    # A -1, B -1, C -1 and C exhausted: A is first in run order.
    assert nxt(mtf, POOL, judged) == "a2"


def test_mtf_passes_over_documents_judged_through_another_run():
    pool = pool_from_ranks("q", {"A": {"s": 1, "a2": 2}, "B": {"b1": 1, "s": 2}})
    mtf = MoveToFront()
    assert nxt(mtf, pool, []) == "s"
    # s was relevant (A stays in front) and B will skip it when it gets there.
    assert nxt(mtf, pool, [("s", 1), ("a2", 0)]) == "b1"
    assert nxt(mtf, pool, [("s", 1), ("a2", 0), ("b1", 1)]) is None


def test_mtf_gives_a_second_assessor_the_next_passage_of_the_front_run():
    mtf = MoveToFront()
    assert nxt(mtf, POOL, [], exclude={"a1"}) == "a2"
    # An excluded run-front falls through to the next run when the front run has no more.
    assert nxt(mtf, POOL, [("a1", 1), ("a2", 1)], exclude={"a3"}) == "b1"


def test_mm_ns_posterior_update_counts_every_run_that_pooled_a_document():
    pool = pool_from_ranks("q", {"A": {"s": 1, "a2": 2}, "B": {"s": 1, "b2": 2},
                                      "C": {"c1": 1}})
    mm = MaxMeanNonStationary(discount=1.0)
    post = mm.posteriors(pool, dict([("s", 2)]))
    assert post == {"A": (2.0, 1.0), "B": (2.0, 1.0), "C": (1.0, 1.0)}
    post = mm.posteriors(pool, dict([("s", 2), ("a2", 0)]))
    assert post["A"] == (2.0, 2.0) and post["B"] == (2.0, 1.0)


def test_mm_ns_discounts_older_evidence():
    pool = pool_from_ranks("q", {"A": {"a1": 1, "a2": 2, "a3": 3}})
    mm = MaxMeanNonStationary(discount=0.5)
    alpha, beta = mm.posteriors(pool, dict([("a1", 1), ("a2", 0)]))["A"]
    assert alpha == pytest.approx(1 + 0.5) and beta == pytest.approx(1 + 1.0)


def test_mm_ns_pulls_the_arm_with_the_highest_posterior_mean():
    mm = MaxMeanNonStationary()
    assert nxt(mm, POOL, []) == "a1"                    # all at 1/2: first run
    assert nxt(mm, POOL, [("a1", 1)]) == "a2"     # A at 2/3 beats 1/2
    assert nxt(mm, POOL, [("a1", 0)]) == "b1"     # A at 1/3: B (first of the 1/2s)
    judged = [("a1", 0), ("b1", 0), ("c1", 1)]
    assert nxt(mm, POOL, judged) == "c2"
    judged += [("c2", 1)]                         # C exhausted; A and B tie at 1/3
    assert nxt(mm, POOL, judged) == "a2"


def test_mm_ns_gives_a_second_assessor_a_different_passage():
    mm = MaxMeanNonStationary()
    first = nxt(mm, POOL, [])
    second = nxt(mm, POOL, [], exclude={first})
    assert first == "a1" and second == "a2"


@pytest.mark.parametrize("name", list(ORDER_STRATEGIES))
def test_every_strategy_judges_the_whole_pool_once(name):
    strategy = order_strategy(name)
    judged: list[tuple[str, int]] = []
    while (doc := nxt(strategy, POOL, judged)) is not None:
        judged.append((doc, len(judged) % 2))
    assert sorted(d for d, _ in judged) == sorted(POOL.docs)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_next_is_always_pooled_unjudged_and_not_excluded(data):
    runs = data.draw(st.dictionaries(
        st.sampled_from("ABCD"),
        st.lists(st.sampled_from([f"d{i}" for i in range(12)]), min_size=1, max_size=8,
                 unique=True), min_size=1))
    pool = pool_from_ranks("q", {r: {d: i + 1 for i, d in enumerate(docs)}
                                      for r, docs in runs.items()})
    name = data.draw(st.sampled_from(list(ORDER_STRATEGIES)))
    strategy = order_strategy(name)
    order = data.draw(st.permutations(list(pool.docs)))
    k = data.draw(st.integers(0, len(order)))
    judged = [(d, data.draw(st.integers(0, 3))) for d in order[:k]]
    exclude = set(data.draw(st.lists(st.sampled_from(list(pool.docs)), max_size=3)))
    doc = nxt(strategy, pool, judged, exclude)
    left = set(pool.docs) - set(order[:k]) - exclude
    if left:
        assert doc in left
    else:
        assert doc is None


def test_parameters_are_pool_keys_with_the_papers_defaults():
    assert order_strategy("mm-ns", {"mm_ns_discount": 1}) == MaxMeanNonStationary(discount=1.0)
    assert order_strategy("mtf") == MoveToFront(level=1, step=1.0)
    mm = MaxMeanNonStationary()
    assert (mm.prior_relevant, mm.prior_nonrelevant) == (1.0, 1.0)
    assert MoveToFront.adaptive and MaxMeanNonStationary.adaptive
    assert not MoveToFront.blind and not MaxMeanNonStationary.blind
    with pytest.raises(PoolkitError, match="pool.mm_ns_discount must be at most 1"):
        order_strategy("mm-ns", {"mm_ns_discount": 1.5})
    with pytest.raises(PoolkitError, match="unknown judging order strategy 'mmns'"):
        order_strategy("mmns")


# k decides the fused order: a1, b1, c1 each top one run; y is 4th in two. RRF with k = 60
# puts y first (2/64 > 1/61), with k = 1 last (2/5 < 1/2).
FUSED = pool_from_ranks("q", {
    "A": {"a1": 1, "a2": 2, "a3": 3},
    "B": {"b1": 1, "b2": 2, "b3": 3, "y": 4},
    "C": {"c1": 1, "c2": 2, "c3": 3, "y": 4},
})


def stored_first(strategy, pool):
    """The passage first in the order ``poolkit pool`` stores (keys, then doc id)."""
    keys = strategy.keys(pool)
    return min(pool.docs, key=lambda d: (keys[d], d))


@pytest.mark.parametrize("name", ["mtf", "mm-ns"])
def test_the_learners_store_the_fused_order_with_the_configs_rrf_k(name):
    """mtf and mm-ns store their pool in priority's RRF order, the order seen before any
    grade (where a mode walks the stored order, and simulate's pending list); ``rrf_k`` under
    ``pool:`` sets its k for them as for priority. Their own picks come from the run lists,
    which k does not touch."""
    default, k1 = order_strategy(name, {}), order_strategy(name, {"rrf_k": 1})
    assert default.keys(FUSED) == rrf_keys(FUSED, 60) == Priority().keys(FUSED)  # unchanged
    assert k1.keys(FUSED) == Priority(1).keys(FUSED)
    assert (stored_first(default, FUSED), stored_first(k1, FUSED)) == ("y", "a1")
    assert nxt(default, FUSED) == nxt(k1, FUSED) == "a1"
    with pytest.raises(PoolkitError, match="pool.rrf_k must be at least 1, found 0"):
        order_strategy(name, {"rrf_k": 0})
