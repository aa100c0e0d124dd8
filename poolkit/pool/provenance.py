"""Per-query pools with provenance (``view.QueryPool``) rebuilt from run files, as
``poolkit pool`` would pool them (the store form is ``Collection.query_pools``)."""

from __future__ import annotations

from collections.abc import Mapping

from poolkit.io.run import Run
from poolkit.pool.pooling import top_docs
from poolkit.pool.view import Hit, QueryPool


def pools_from_runs(runs: Mapping[str, Run], depth: int) -> dict[str, QueryPool]:
    """The pool that pooling ``runs`` at ``depth`` makes, per query, with each run's rank
    and score as provenance (a repeated document keeps its first rank); documents by id."""
    hits: dict[str, dict[str, list[Hit]]] = {}
    for name, run in runs.items():
        for qid in run.rankings:
            for docid, rank, score in top_docs(run, qid, depth):
                hits.setdefault(qid, {}).setdefault(docid, []).append(Hit(name, rank, score))
    return {q: QueryPool(q, tuple(sorted(by_doc)), {d: tuple(h) for d, h in by_doc.items()})
            for q, by_doc in hits.items()}


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
