"""Per-query pools with provenance (``view.QueryPool``, what a judging-order strategy sees)
from the one pool-provenance value (``io.provenance.PoolProvenance``): rebuilt from run files
as ``poolkit pool`` would pool them, or a store's (``Collection.query_pools``)."""

from __future__ import annotations

from collections.abc import Mapping

from poolkit.io.provenance import PoolProvenance
from poolkit.io.run import Run
from poolkit.pool.view import Hit, QueryPool


def query_pools(provenance: PoolProvenance, by_id: bool = False) -> dict[str, QueryPool]:
    """Per query, the pool as a judging-order strategy sees it: documents in the value's order
    (``by_id``: sorted by id), each with the runs and ranks that brought it."""
    out = {}
    for qid in provenance.docs:
        hits = {d: tuple(Hit(h.system, h.rank, h.score) for h in hs)
                for d, hs in provenance.query(qid).items()}
        out[qid] = QueryPool(qid, tuple(sorted(hits)) if by_id else tuple(hits), hits)
    return out


def pools_from_runs(runs: Mapping[str, Run], depth: int) -> dict[str, QueryPool]:
    """The pool that pooling ``runs`` at ``depth`` makes, per query, with each run's rank
    and score as provenance (a repeated document keeps its first rank); documents by id."""
    return query_pools(PoolProvenance.from_runs(runs, depth), by_id=True)


def pool_from_ranks(qid: str, ranks_by_run: Mapping[str, Mapping[str, int]],
                    docs: tuple[str, ...] | None = None) -> QueryPool:
    """A query's pool from ``{run: {doc: rank}}`` (documents by id unless ``docs`` orders
    them): how tests and scripts build one by hand."""
    hits: dict[str, list[Hit]] = {}
    for run, ranks in ranks_by_run.items():
        for doc, rank in ranks.items():
            hits.setdefault(doc, []).append(Hit(run, rank))
    return QueryPool(qid, docs if docs is not None else tuple(sorted(hits)),
                     {d: tuple(h) for d, h in hits.items()})
