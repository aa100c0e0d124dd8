"""Merge systems' runs into a versioned judging pool.

Per query, a pooling strategy (``pooling.POOLING_STRATEGIES``; default: the union of each
run's top ``depths[name]`` documents) selects the documents and a judging-order strategy
(``order.ORDER_STRATEGIES``) keys them. Every
(system, rank, score) that brought a document in is recorded as its provenance; the text
each document had when pooled goes into the store content-addressed. A second call with a
deeper N or another run makes a new pool version holding only documents not pooled before
(and the new provenance of old ones); a call that brings nothing new makes no version.
Nothing judged is touched: judgments live in their own append-only log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from poolkit.errors import PoolkitError
from poolkit.io.run import Run
from poolkit.io.sample import SampledPair
from poolkit.pool.order import OrderStrategy, Shuffle
from poolkit.pool.pooling import Depth, PoolingStrategy
from poolkit.pool.view import Candidate, QueryPool
from poolkit.store.contract import StoreBackend
from poolkit.store.records import NewMember, QueryRecord

Provenance = tuple[str, str, str, int, float | None]  # qid, docid, system, rank, score


@dataclass(frozen=True)
class PoolPlan:
    """What pooling the runs would add, before anything is written."""

    members: list[NewMember]
    sources: list[Provenance]
    #: per query, what the pooling strategy selected (hits, stratum, inclusion probability)
    candidates: dict[str, list[Candidate]] = field(default_factory=dict)


def plan_pool(runs: Mapping[str, Run], depths: Mapping[str, int],
              docs: Mapping[str, tuple[str, str]], order: OrderStrategy = Shuffle(),
              query_ids: Iterable[str] | None = None,
              pooling: PoolingStrategy = Depth()) -> PoolPlan:
    """The members (with judging-order keys) and provenance rows for these runs at these
    depths: ``pooling`` selects each query's candidates, ``order`` keys them."""
    missing = [n for n in runs if n not in depths]
    if missing:
        raise PoolkitError(f"no pool depth given for system(s) {', '.join(missing)}")
    qids: list[str] = list(query_ids) if query_ids is not None else []
    if query_ids is None:
        for run in runs.values():
            qids.extend(q for q in run.rankings if q not in qids)
    members: list[NewMember] = []
    sources: list[Provenance] = []
    candidates: dict[str, list[Candidate]] = {}
    for qid in qids:
        chosen = pooling.select(qid, runs, depths)
        for c in chosen:
            if c.docid not in docs:
                raise PoolkitError(f"run {c.hits[0].system!r} ranks doc {c.docid!r} for query "
                                   f"{qid!r}, which is not in the corpus (validate runs first)")
        order_of_run = {name: i for i, name in enumerate(runs)}  # provenance: run, then rank
        # Provenance of what is judged: a sampled pool's undrawn pairs are in its design
        # records (pool_sample), not in the pool every report and analysis reads.
        sources.extend(sorted(((qid, c.docid, h.system, h.rank, h.score)
                               for c in chosen if c.sampled for h in c.hits),
                              key=lambda s: (order_of_run[s[2]], s[3])))
        if not chosen:
            continue
        candidates[qid] = chosen
        judged = [c for c in chosen if c.sampled]  # a sampled pool judges only its draw
        keys = order.keys(QueryPool.of(qid, judged))
        for c in judged:
            title, body = docs[c.docid]
            members.append(NewMember(qid, c.docid, title, body, float(keys[c.docid])))
    return PoolPlan(members, sources, candidates)


def design_records(plan: PoolPlan) -> list[SampledPair]:
    """A sampled pool's design as store rows: every candidate's record, drawn or not (none
    for a depth-k pool, whose candidates carry no design)."""
    return [c.design for chosen in plan.candidates.values() for c in chosen
            if c.design is not None]


def pool_runs(store: StoreBackend, runs: Mapping[str, Run], depths: Mapping[str, int],
              docs: Mapping[str, tuple[str, str]], order: OrderStrategy = Shuffle(),
              note: str | None = None, queries: Iterable[QueryRecord] | None = None,
              pooling: PoolingStrategy = Depth()) -> int | None:
    """Pool the runs into the store; the new pool version, or None if nothing was new.

    ``docs`` maps doc id -> (title, body). ``queries``, when given, are stored (their text
    is what an assessor sees) and fix the query order; otherwise every query the runs rank is
    pooled. Runs must already be validated against the corpus.
    """
    qlist = list(queries) if queries is not None else None
    if qlist is not None:
        store.upsert_queries(qlist)
    plan = plan_pool(runs, depths, docs, order,
                     [q.qid for q in qlist] if qlist is not None else None, pooling)
    used = {name: int(depths[name]) for name in runs}
    return store.add_pool_version(used, order.name, plan.members,
                                  plan.sources, note=note, design=design_records(plan))
