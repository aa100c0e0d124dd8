"""The retriever contract: one hit type, one ``search`` signature, one ranking rule.

Every retriever (BM25, dense, a reranker, an external run) answers
``search(queries, k) -> {qid: [ScoredDoc, ...]}`` with hits best first. The ranking rule is the
one trec_eval applies when it reads the run file back: score descending, ties broken by doc
id descending. Scores are rounded to the run file's six decimals *before* ranking, so the
ranking held in memory is exactly the ranking anyone reading the written file gets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from poolkit.io.common import sha256_hex
from poolkit.io.corpus import QueryRecord
from poolkit.io.run import Run, run_text

SCORE_DECIMALS = 6  # what poolkit.io.run.run_text writes


@dataclass(frozen=True, slots=True)
class ScoredDoc:
    """One retrieved document; its rank is its position in the list it sits in (1-based)."""

    docid: str
    score: float


Results = dict[str, list[ScoredDoc]]


@runtime_checkable
class Retriever(Protocol):
    """What every system in a pool is: a name, its settings, and ``search``."""

    name: str

    def search(self, queries: Sequence[QueryRecord], k: int) -> Results:
        """The top ``k`` hits per query (fewer when fewer documents match), best first."""
        ...

    def settings(self) -> dict[str, object]:
        """Everything that determines the output (written beside the run file)."""
        ...


def top_k(scores: np.ndarray, k: int, id_rank: np.ndarray, ids: Sequence[str],
          among: np.ndarray | None = None) -> list[ScoredDoc]:
    """The best ``k`` of a dense score vector, ranked by (rounded score desc, doc id desc).

    ``id_rank`` is ``io.corpus.descending_id_order(ids)``. With ``among`` (document indices) only
    those are ranked, whatever the sign of their scores: a lexical retriever passes the
    documents that match a query term, so non-matches are left out rather than ranked at
    random, and a match is never dropped for a negative score.
    """
    n = scores.shape[0]
    if n == 0 or k <= 0:
        return []
    if among is not None:
        pool = np.asarray(among, dtype=np.int64)
        sub = scores[pool]
    else:
        pool, sub = None, scores
    m = sub.shape[0]
    if k < m:
        part = np.argpartition(-sub, k - 1)[:k]
        # Everything that could tie with the k-th best after rounding is a candidate.
        threshold = sub[part].min() - 10.0 ** -SCORE_DECIMALS
        cand = np.flatnonzero(sub >= threshold)
    else:
        cand = np.arange(m)
    rounded = np.round(sub[cand].astype(np.float64), SCORE_DECIMALS)
    if pool is not None:
        cand = pool[cand]
    order = np.lexsort((id_rank[cand], -rounded))[:k]
    return [ScoredDoc(ids[i], float(s))
            for i, s in zip(cand[order].tolist(), rounded[order].tolist())]


def rank_hits(hits: Sequence[ScoredDoc], k: int | None = None) -> list[ScoredDoc]:
    """Hits re-sorted by the ranking rule (scores rounded first), cut to ``k``."""
    rounded = [ScoredDoc(h.docid, round(float(h.score), SCORE_DECIMALS)) for h in hits]
    # Two sorts: doc id descending, then (stable) score descending.
    rounded.sort(key=lambda h: h.docid, reverse=True)
    rounded.sort(key=lambda h: h.score, reverse=True)
    return rounded if k is None else rounded[:k]


def results_to_run(results: Mapping[str, Sequence[ScoredDoc]], name: str) -> Run:
    """A ``Run`` holding the results (its sha256 is that of the run file it writes)."""
    return results_to_run_text(results, name)[0]


def results_to_run_text(results: Mapping[str, Sequence[ScoredDoc]], name: str) -> tuple[Run, str]:
    """The ``Run`` and the text of its run file (made once: hashed, then written)."""
    rankings = {q: [h.docid for h in hits] for q, hits in results.items()}
    scores = {q: [h.score for h in hits] for q, hits in results.items()}
    text = run_text(rankings, scores, name)
    return (Run(rankings, name=name, sha256=sha256_hex(text.encode()), tag=name,
                scores=scores), text)


def run_to_results(run: Run, k: int | None = None) -> Results:
    """A run's rankings as hits (the run's own order; repeats dropped after the first)."""
    out: Results = {}
    for qid, docs in run.rankings.items():
        scores = run.scores.get(qid)
        seen: set[str] = set()
        hits = []
        for i, d in enumerate(docs):
            if d in seen:
                continue
            seen.add(d)
            hits.append(ScoredDoc(d, float(scores[i]) if scores else float(len(docs) - i)))
            if k is not None and len(hits) >= k:
                break
        out[qid] = hits
    return out
