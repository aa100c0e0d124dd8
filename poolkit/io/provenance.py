"""Pool provenance: which runs brought which document into a pool, at which rank, as of which
pool version. One immutable value, built from run files or read from a judging store.

``PoolProvenance.from_runs(runs, depth)`` is the pool that pooling the runs at ``depth`` (or a
depth per run) makes: a run brings in the documents of its top ``depth`` positions, at the
position's rank (a document a run repeats keeps its first rank; the repeat still uses up a
slot, as trec_eval's cut-offs count positions). ``PoolProvenance.from_store(store, version)``
is a store's pool as of ``version``: its pooled documents in judging order, and every
system's rank for them recorded by then.

Pooling, sampling, the judging orders (through ``pool.provenance.query_pools``), ``compare``,
``reusability`` and the collection read this value instead of deriving it again. It lives in
``io`` (below the store and the stages) because both ``pool`` and ``analysis`` use it and
neither may import the other; it reads a store through the two methods it needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from poolkit.io.run import Run

Pair = tuple[str, str]  # (qid, docid)

#: The source of the passages ``poolkit pool --find`` adds: the text classifier, not a run.
#: A system name starts with a letter or digit, so no run can be called this; ``compare``,
#: ``reusability`` and the pool report show it as a source of its own.
CLASSIFIER = "@classifier"


@dataclass(frozen=True)
class PooledBy:
    """One run's reason for pooling a document: it ranked it ``rank`` (with ``score``), as
    recorded in pool ``version`` (1 for a pool built from run files)."""

    system: str
    rank: int
    score: float | None = None
    version: int = 1


@dataclass(frozen=True)
class Found:
    """Why ``pool --find`` pooled a passage: the classifier ranked it ``rank`` among the
    passages outside the pool with ``score``, in its ``round``-th find (pool ``version``)."""

    round: int
    rank: int
    score: float | None
    version: int


class PoolRows(Protocol):
    """What :meth:`PoolProvenance.from_store` reads of a judging store."""

    def pool(self, qid: str | None = None, max_version: int | None = None) -> Sequence[Any]: ...

    def sources(self, qid: str | None = None) -> Mapping[Pair, Sequence[Any]]: ...


def top_docs(run: Run, qid: str, depth: int) -> list[tuple[str, int, float | None]]:
    """(docid, rank, score) of a run's top ``depth`` for one query; a repeat keeps its first
    rank. Ranks are positions in the run's ranking (1-based), so ``depth`` counts positions,
    as trec_eval's cut-offs do: a repeated id uses up a slot."""
    docs = run.rankings.get(qid, [])[:depth]
    scores = run.scores.get(qid)
    out, seen = [], set()
    for i, d in enumerate(docs):
        if d not in seen:
            seen.add(d)
            out.append((d, i + 1, float(scores[i]) if scores else None))
    return out


@dataclass(frozen=True)
class PoolProvenance:
    """A pool with its provenance, as of one version.

    ``docs[qid]``: the query's pooled documents, in judging order (a store's) or in the order
    the runs first brought them (run files). ``hits[(qid, docid)]``: every run that brought
    the pair in, best rank first for a store, run by run for run files. ``added[(qid,
    docid)]``: the pool version that first pooled the pair.
    """

    docs: Mapping[str, tuple[str, ...]]
    hits: Mapping[Pair, tuple[PooledBy, ...]]
    added: Mapping[Pair, int] = field(default_factory=dict)
    version: int = 1

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_runs(cls, runs: Mapping[str, Run], depth: int | Mapping[str, int],
                  queries: Iterable[str] | None = None) -> PoolProvenance:
        """The pool that pooling ``runs`` (name -> run) at ``depth`` makes (an int, or a depth
        per run name), over ``queries`` (default: every query a run ranks, in first-seen
        order). A query none of the runs ranks within its depth has no pool."""
        depths = depth if isinstance(depth, Mapping) else {n: depth for n in runs}
        if queries is None:
            queries = dict.fromkeys(q for run in runs.values() for q in run.rankings)
        docs: dict[str, tuple[str, ...]] = {}
        hits: dict[Pair, list[PooledBy]] = {}
        for qid in queries:
            order: dict[str, None] = {}
            for name, run in runs.items():
                for docid, rank, score in top_docs(run, qid, depths[name]):
                    order.setdefault(docid, None)
                    hits.setdefault((qid, docid), []).append(PooledBy(name, rank, score))
            if order:
                docs[qid] = tuple(order)
        frozen = {p: tuple(h) for p, h in hits.items()}
        return cls(docs, frozen, dict.fromkeys(frozen, 1), 1)

    @classmethod
    def from_store(cls, store: PoolRows, version: int) -> PoolProvenance:
        """The store's pool as of pool ``version`` (a version the store has)."""
        return cls.from_rows(store.pool(max_version=version), store.sources(), version)

    @classmethod
    def from_rows(cls, members: Iterable[Any], sources: Mapping[Pair, Sequence[Any]],
                  version: int) -> PoolProvenance:
        """From a store's rows: ``members`` (``qid``, ``docid``, ``version``; judging order)
        and ``sources`` (pair -> ``system``, ``rank``, ``score``, ``version``), as of
        ``version``: the sources recorded later are left out."""
        docs: dict[str, list[str]] = {}
        added: dict[Pair, int] = {}
        for m in members:
            if m.version <= version:
                docs.setdefault(m.qid, []).append(m.docid)
                added[(m.qid, m.docid)] = m.version
        hits: dict[Pair, tuple[PooledBy, ...]] = {}
        for pair, rows in sources.items():
            kept = tuple(PooledBy(s.system, s.rank, s.score, s.version) for s in rows
                         if s.version <= version)
            if kept:
                hits[pair] = kept
        return cls({q: tuple(ds) for q, ds in docs.items()}, hits, added, version)

    # -- reading ------------------------------------------------------------------------------
    def as_of(self, version: int) -> PoolProvenance:
        """The pool as an earlier ``version`` knew it."""
        added = {p: v for p, v in self.added.items() if v <= version}
        docs = {q: kept for q, ds in self.docs.items()
                if (kept := tuple(d for d in ds if (q, d) in added))}
        hits = {p: known for p, hs in self.hits.items()
                if (known := tuple(h for h in hs if h.version <= version))}
        return PoolProvenance(docs, hits, added, version)

    def pairs(self) -> list[Pair]:
        """Every pooled (qid, docid), query by query in pool order."""
        return [(q, d) for q, ds in self.docs.items() for d in ds]

    def new_since(self, version: int) -> set[Pair]:
        """The pairs first pooled after ``version``."""
        return {p for p, v in self.added.items() if v > version}

    def systems(self) -> set[str]:
        """Every run that brought something in."""
        return {h.system for hs in self.hits.values() for h in hs}

    def systems_by_pair(self) -> dict[Pair, set[str]]:
        """Pair -> the runs that brought it in (pairs some run brought in)."""
        return {p: {h.system for h in hs} for p, hs in self.hits.items()}

    def pairs_by_system(self) -> dict[str, set[Pair]]:
        """Run -> the pairs it brought in."""
        out: dict[str, set[Pair]] = {}
        for p, hs in self.hits.items():
            for h in hs:
                out.setdefault(h.system, set()).add(p)
        return out

    def found(self) -> dict[Pair, Found]:
        """The pairs the classifier found beyond the runs (``pool --find``), with the round:
        its finds numbered in version order."""
        rows = {p: h for p, hs in self.hits.items() for h in hs if h.system == CLASSIFIER}
        rounds = {v: i for i, v in enumerate(sorted({h.version for h in rows.values()}), 1)}
        return {p: Found(rounds[h.version], h.rank, h.score, h.version) for p, h in rows.items()}

    def query(self, qid: str) -> dict[str, tuple[PooledBy, ...]]:
        """One query's pooled documents (pool order) -> the runs that brought each in."""
        return {d: self.hits.get((qid, d), ()) for d in self.docs.get(qid, ())}

    def ranks(self, qid: str) -> dict[str, list[int]]:
        """One query's pooled documents -> the ranks the runs gave them."""
        return {d: [h.rank for h in hs] for d, hs in self.query(qid).items()}
