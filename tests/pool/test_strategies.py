"""The pooling and judging-order seams: registries as the only constructors, declared
parameters, and the hooks an adaptive order or a sampled pool plugs into."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import pytest

from poolkit.errors import PoolkitError
from poolkit.io.run import Run
from poolkit.io.sample import SampledPair
from poolkit.pool.build import plan_pool
from poolkit.pool.order import (
    ORDER_STRATEGIES,
    ByDocId,
    OrderStrategy,
    Priority,
    Shuffle,
    order_strategy,
)
from poolkit.pool.pooling import POOLING_STRATEGIES, Depth, PoolingStrategy, pooling_strategy
from poolkit.pool.view import Candidate, Hit, QueryPool

DOCS = {d: (d.upper(), f"text of {d}") for d in "abcdef"}
A = Run({"q": ["a", "b", "c"]}, name="A", scores={"q": [3.0, 2.0, 1.0]})
B = Run({"q": ["d", "a", "e"]}, name="B", scores={"q": [9.0, 8.0, 7.0]})


def test_the_registry_is_the_only_constructor():
    assert set(ORDER_STRATEGIES) == {"shuffle", "docid", "priority", "mtf", "mm-ns", "judge",
                                     "cal"}
    assert order_strategy("shuffle") == Shuffle(13)
    assert order_strategy("shuffle", {"seed": 5, "rrf_k": 9}) == Shuffle(5)
    assert order_strategy("priority", {"rrf_k": 10}) == Priority(10)
    assert order_strategy("docid", {"seed": 1}) == ByDocId()
    assert order_strategy("priority", {"rrf_k": 7}) == Priority(7)
    with pytest.raises(PoolkitError, match="unknown judging order strategy 'rrf'; valid: "
                                           "cal, docid, judge, mm-ns, mtf, priority, "
                                           "shuffle"):
        order_strategy("rrf")
    with pytest.raises(PoolkitError, match="pool.rrf_k must be at least 1, found 0"):
        order_strategy("priority", {"rrf_k": 0})
    with pytest.raises(PoolkitError, match="pool.seed must be int, found True"):
        order_strategy("shuffle", {"seed": True})
    assert [c.name for c in ORDER_STRATEGIES.values()] == list(ORDER_STRATEGIES)
    assert not Priority.blind and Shuffle.blind
    adaptive = [n for n, c in ORDER_STRATEGIES.items() if c.adaptive]
    assert adaptive == ["mtf", "mm-ns", "judge", "cal"]


def test_depth_pooling_is_the_union_of_top_n_with_every_hit():
    assert set(POOLING_STRATEGIES) == {"depth", "sample"} and pooling_strategy("depth") == Depth()
    chosen = Depth().select("q", {"A": A, "B": B}, {"A": 2, "B": 2})
    assert [(c.docid, c.hits) for c in chosen] == [
        ("a", (Hit("A", 1, 3.0), Hit("B", 2, 8.0))), ("b", (Hit("A", 2, 2.0),)),
        ("d", (Hit("B", 1, 9.0),))]
    assert all(c.inclusion == 1.0 and c.stratum is None and c.sampled for c in chosen)
    with pytest.raises(PoolkitError, match="unknown pooling strategy 'bandit'; valid: depth"):
        pooling_strategy("bandit")


@dataclass(frozen=True)
class EveryOther(PoolingStrategy):
    """A toy sample: the merged pool by best rank, every other document in stratum 'odd'."""

    name: ClassVar[str] = "every-other"
    summary: ClassVar[str] = "test"

    def select(self, qid: str, runs: Mapping[str, Run],
               depths: Mapping[str, int]) -> list[Candidate]:
        merged = sorted(Depth().select(qid, runs, depths), key=lambda c: min(c.ranks))
        return [Candidate(c.docid, c.hits, SampledPair(qid, c.docid, "odd" if i % 2 else "even",
                                                       0.5, i % 2 == 0))
                for i, c in enumerate(merged)]


def test_a_pooling_strategy_plugs_into_plan_pool_with_its_design():
    plan = plan_pool({"A": A, "B": B}, {"A": 3, "B": 3}, DOCS, ByDocId(), ["q"], EveryOther())
    # Only the drawn documents are judged (members); the design keeps every candidate.
    assert sorted(m.docid for m in plan.members) == ["a", "b", "e"]
    design = {c.docid: (c.stratum, c.inclusion, c.sampled) for c in plan.candidates["q"]}
    assert design["a"] == ("even", 0.5, True) and design["d"] == ("odd", 0.5, False)
    assert len(design) == 5
    # provenance is every hit of a judged document, in run then rank order
    assert plan.sources == [("q", "a", "A", 1, 3.0), ("q", "b", "A", 2, 2.0),
                            ("q", "a", "B", 2, 8.0), ("q", "e", "B", 3, 7.0)]


POOL = QueryPool("q", ("a", "b", "c", "d", "e"), {
    "a": (Hit("A", 1), Hit("B", 2)), "b": (Hit("A", 2),), "c": (Hit("A", 3),),
    "d": (Hit("B", 1),), "e": (Hit("B", 3),)})


def test_query_pool_view():
    assert POOL.ranks("a") == [1, 2] and POOL.systems() == ["A", "B"]
    assert POOL.run_lists() == {"A": ["a", "b", "c"], "B": ["d", "a", "e"]}
    assert Priority(60).keys(POOL)["a"] == pytest.approx(-(1 / 61 + 1 / 62))


def test_a_static_strategy_follows_the_stored_order():
    assert Shuffle(1).next(POOL, {}, ["c", "a"]) == "c"
    assert Shuffle(1).next(POOL, {}, []) is None


@dataclass(frozen=True)
class StayOnHits(OrderStrategy):
    """A toy adaptive order: keep to the run whose document was last judged relevant."""

    name: ClassVar[str] = "stay"
    summary: ClassVar[str] = "test"
    adaptive: ClassVar[bool] = True

    def keys(self, pool: QueryPool) -> dict[str, float]:
        return {d: float(i) for i, d in enumerate(pool.docs)}

    def next(self, pool: QueryPool, grades: Mapping[str, int],
             pending: Sequence[str]) -> str | None:
        lists = pool.run_lists()
        for docid, grade in reversed(list(grades.items())):
            if grade >= 1:
                for hit in pool.hits[docid]:
                    nxt = [d for d in lists[hit.system] if d in pending]
                    if nxt:
                        return nxt[0]
        return pending[0] if pending else None


def test_an_adaptive_strategy_sees_provenance_and_grades():
    pending = ["b", "c", "d", "e"]
    assert StayOnHits().next(POOL, {"a": 0}, pending) == "b"
    assert StayOnHits().next(POOL, {"a": 0, "d": 2}, ["b", "c", "e"]) == "e"
