"""Judging-order strategies: in which order an assessor sees a query's pooled documents.

The order is a choice separate from what is pooled. ``ORDER_STRATEGIES`` is the registry
(name -> class) and the only constructor (``order_strategy``); CLI choices, config
validation and error messages read it. Adding a strategy is one class here (or in its own
module, registered here) declaring its ``name``, ``summary``, ``params`` (config keys under
``pool:``, with types, defaults and bounds) and ``keys``.

A strategy sees a query's pool with provenance (``view.QueryPool``: which run brought which
document at which rank). Two hooks:

- ``keys(pool)``: an order key per document, given when the document is pooled and stored
  with it; the store sorts by it (``Store.pool``). Static strategies need only this.
- ``next(pool, grades, pending)``: the passage to judge next, given the grades so far
  (``{docid: grade}``, every assessor's standing grade) and the pending documents in stored
  order. The default takes the first pending one, i.e. the stored order. An ADAPTIVE
  strategy (``adaptive = True``: move-to-front, bandits) overrides it to learn from the
  grades; the judging session asks it for every passage.

- ``shuffle`` (default): seeded random order, blind to which system found what.
- ``docid``: by doc id, TREC style; blind too.
- ``priority``: reciprocal-rank fusion over the contributing systems, so a limited budget
  judges the likeliest-relevant first (not blind: order leaks system agreement).
- ``mtf``: Move-to-Front (``pool/mtf.py``), adaptive.
- ``mm-ns``: multi-armed-bandit pooling, MM-NS (``pool/mm_ns.py``), adaptive.
- ``judge``: a machine judge's grade first, ties by RRF (``pool/guided.py``).
- ``cal``: continuous active learning over the passages' text (``pool/guided.py``), adaptive.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from poolkit.errors import PoolkitError, one_of
from poolkit.params import DEFAULT_SEED, Param, ParamError, build_kwargs
from poolkit.pool.guided import ContinuousActiveLearning, JudgeGradeOrder
from poolkit.pool.learners import RRF_K, rrf_keys
from poolkit.pool.mm_ns import MaxMeanNonStationary
from poolkit.pool.mtf import MoveToFront
from poolkit.pool.order_base import OrderStrategy
from poolkit.pool.view import QueryPool

__all__ = ["ORDER_STRATEGIES", "OrderStrategy", "ByDocId", "Priority", "Shuffle",
           "MoveToFront", "MaxMeanNonStationary", "JudgeGradeOrder", "ContinuousActiveLearning",
           "order_strategy"]


@dataclass(frozen=True)
class Shuffle(OrderStrategy):
    seed: int = DEFAULT_SEED
    name: ClassVar[str] = "shuffle"
    summary: ClassVar[str] = "seeded random order, blind to which system found what"
    params: ClassVar[tuple[Param, ...]] = (
        Param("seed", (int,), DEFAULT_SEED, "seed of the shuffle"),)

    def keys(self, pool: QueryPool) -> dict[str, float]:
        # A hash per (seed, qid, doc) rather than random.shuffle: a doc keeps its place when
        # the pool grows, and the order does not depend on the order docs arrived in.
        def h(doc: str) -> float:
            digest = hashlib.sha256(f"{self.seed}\0{pool.qid}\0{doc}".encode()).digest()
            return int.from_bytes(digest[:8], "big") / 2**64

        return {d: h(d) for d in pool.docs}


@dataclass(frozen=True)
class ByDocId(OrderStrategy):
    name: ClassVar[str] = "docid"
    summary: ClassVar[str] = "by doc id, TREC style; blind"

    def keys(self, pool: QueryPool) -> dict[str, float]:
        return {d: float(i) for i, d in enumerate(sorted(pool.docs))}


@dataclass(frozen=True)
class Priority(OrderStrategy):
    """Reciprocal-rank fusion: key = -sum over systems of 1 / (k + rank)."""

    rrf_k: int = RRF_K.default
    name: ClassVar[str] = "priority"
    summary: ClassVar[str] = "reciprocal-rank fusion over the runs (not blind)"
    params: ClassVar[tuple[Param, ...]] = (RRF_K,)
    blind: ClassVar[bool] = False

    def keys(self, pool: QueryPool) -> dict[str, float]:
        return rrf_keys(pool, self.rrf_k)


#: name -> strategy class: the one registry of judging orders
ORDER_STRATEGIES: dict[str, type[OrderStrategy]] = {
    cls.name: cls for cls in (Shuffle, ByDocId, Priority, MoveToFront, MaxMeanNonStationary,
                              JudgeGradeOrder, ContinuousActiveLearning)}


def order_strategy(name: str, settings: Mapping[str, Any] | None = None,
                   where: str = "pool") -> OrderStrategy:
    """The strategy ``name`` built from ``settings`` (the ``pool:`` section's values; each
    strategy reads only the keys it declares)."""
    if name not in ORDER_STRATEGIES:
        raise PoolkitError(one_of(name, ORDER_STRATEGIES, "judging order strategy"))
    cls = ORDER_STRATEGIES[name]
    try:
        return cls(**build_kwargs(cls.params, settings or {}, where))
    except ParamError as exc:
        raise PoolkitError(str(exc)) from None

