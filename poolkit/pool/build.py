"""Merge systems' runs into a versioned judging pool.

Per query, the pool is the union of each run's top ``depths[name]`` documents. Every
(system, rank, score) that brought a document in is recorded as its provenance; the text
each document had when pooled goes into the store content-addressed. A second call with a
deeper N or another run makes a new pool version holding only documents not pooled before
(and the new provenance of old ones); a call that brings nothing new makes no version.
Nothing judged is touched: judgments live in their own append-only log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from poolkit.errors import PoolkitError
from poolkit.io.run import Run
from poolkit.pool.order import Shuffle
from poolkit.store.contract import StoreBackend
from poolkit.store.store import NewMember, QueryRecord

Provenance = tuple[str, str, str, int, float | None]  # qid, docid, system, rank, score


@dataclass(frozen=True)
class PoolPlan:
    """What pooling the runs would add, before anything is written."""

    members: list[NewMember]
    sources: list[Provenance]


def top_docs(run: Run, qid: str, depth: int) -> list[tuple[str, int, float | None]]:
    """(docid, rank, score) of a run's top ``depth`` for one query; a repeat keeps its first rank.

    Ranks are positions in the run's ranking (1-based), so ``depth`` counts positions, as
    trec_eval's cut-offs do: a repeated id uses up a slot.
    """
    docs = run.rankings.get(qid, [])[:depth]
    scores = run.scores.get(qid)
    out, seen = [], set()
    for i, d in enumerate(docs):
        if d not in seen:
            seen.add(d)
            out.append((d, i + 1, float(scores[i]) if scores else None))
    return out


def plan_pool(runs: Mapping[str, Run], depths: Mapping[str, int],
              docs: Mapping[str, tuple[str, str]], order: object = Shuffle(13),
              query_ids: Iterable[str] | None = None) -> PoolPlan:
    """The members (with judging-order keys) and provenance rows for these runs at these depths."""
    missing = [n for n in runs if n not in depths]
    if missing:
        raise PoolkitError(f"no pool depth given for system(s) {', '.join(missing)}")
    qids: list[str] = list(query_ids) if query_ids is not None else []
    if query_ids is None:
        for run in runs.values():
            qids.extend(q for q in run.rankings if q not in qids)
    members: list[NewMember] = []
    sources: list[Provenance] = []
    for qid in qids:
        ranks: dict[str, list[int]] = {}
        for name, run in runs.items():
            for docid, rank, score in top_docs(run, qid, depths[name]):
                if docid not in docs:
                    raise PoolkitError(f"run {name!r} ranks doc {docid!r} for query {qid!r}, "
                                       f"which is not in the corpus (validate runs first)")
                ranks.setdefault(docid, []).append(rank)
                sources.append((qid, docid, name, rank, score))
        if not ranks:
            continue
        keys = order.keys(qid, list(ranks), ranks)  # type: ignore[attr-defined]
        for docid in ranks:
            title, body = docs[docid]
            members.append(NewMember(qid, docid, title, body, float(keys[docid])))
    return PoolPlan(members, sources)


def pool_runs(store: StoreBackend, runs: Mapping[str, Run], depths: Mapping[str, int],
              docs: Mapping[str, tuple[str, str]], order: object = Shuffle(13),
              note: str | None = None, queries: Iterable[QueryRecord] | None = None,
              ) -> int | None:
    """Pool the runs into the store; the new pool version, or None if nothing was new.

    ``docs`` maps doc id -> (title, body). ``queries``, when given, are stored (their text
    is what an assessor sees) and fix the query order; otherwise every query the runs rank is
    pooled. Runs must already be validated against the corpus.
    """
    qlist = list(queries) if queries is not None else None
    if qlist is not None:
        store.upsert_queries(qlist)
    plan = plan_pool(runs, depths, docs, order,
                     [q.qid for q in qlist] if qlist is not None else None)
    used = {name: int(depths[name]) for name in runs}
    return store.add_pool_version(used, getattr(order, "name", str(order)), plan.members,
                                  plan.sources, note=note)
