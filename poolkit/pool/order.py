"""Judging-order strategies: in which order an assessor sees a query's pooled documents.

The order is a choice separate from what is pooled. Each strategy is a small value object
that gives every (query, doc) an order key; the store sorts by it.

- ``shuffle`` (default): seeded random order, blind to which system found what.
- ``docid``: by doc id, TREC style; blind too.
- ``priority``: reciprocal-rank fusion over the contributing systems, so a limited budget
  judges the likeliest-relevant first (not blind: order leaks system agreement).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from poolkit.errors import PoolkitError, one_of


@dataclass(frozen=True)
class Shuffle:
    seed: int = 13
    name = "shuffle"

    def keys(self, qid: str, docs: Sequence[str],
             ranks: Mapping[str, Sequence[int]]) -> dict[str, float]:
        # A hash per (seed, qid, doc) rather than random.shuffle: a doc keeps its place when
        # the pool grows, and the order does not depend on the order docs arrived in.
        def h(doc: str) -> float:
            digest = hashlib.sha256(f"{self.seed}\0{qid}\0{doc}".encode()).digest()
            return int.from_bytes(digest[:8], "big") / 2**64

        return {d: h(d) for d in docs}


@dataclass(frozen=True)
class ByDocId:
    name = "docid"

    def keys(self, qid: str, docs: Sequence[str],
             ranks: Mapping[str, Sequence[int]]) -> dict[str, float]:
        return {d: float(i) for i, d in enumerate(sorted(docs))}


@dataclass(frozen=True)
class Priority:
    """Reciprocal-rank fusion: key = -sum over systems of 1 / (k + rank)."""

    k: int = 60
    name = "priority"

    def keys(self, qid: str, docs: Sequence[str],
             ranks: Mapping[str, Sequence[int]]) -> dict[str, float]:
        return {d: -sum(1.0 / (self.k + r) for r in ranks.get(d, ())) for d in docs}


ORDER_STRATEGIES = {"shuffle": Shuffle, "docid": ByDocId, "priority": Priority}


def make_order(name: str, seed: int = 13, rrf_k: int = 60) -> Shuffle | ByDocId | Priority:
    if name == "shuffle":
        return Shuffle(seed)
    if name == "docid":
        return ByDocId()
    if name == "priority":
        return Priority(rrf_k)
    raise PoolkitError(one_of(name, ORDER_STRATEGIES, "judging order strategy"))
