"""``poolkit simulate --find B,B``: finding beyond the pool, replayed with full qrels.

The whole pool is judged first (the qrels grade it; a passage they lack is grade 0). Each
budget b then spends m_q = round(b x n_q) more judgments on a query whose pool holds n_q, two
ways: the classifier finds them (``pool --find``) in rounds of ``batch`` passages per query,
retrained on every grade so far after each round; or every run's pool is deepened by as many
(``deepen``: depth k+1, k+2, ... of every run). The classifier's sequence does not depend on
the budget (a round's passages are ranked), so every budget is read off one replay.

JSON (the report's ``find`` key)::

    {"batch", "rounds", "pool", "outside_relevant",
     "budgets": {"b": {"judged",
                       "classifier": {"relevant_found", "per_judgment", "share_of_outside"},
                       "deepen": {"judged", "relevant_found", "per_judgment",
                                  "share_of_outside", "depth"}}}}

``outside_relevant``: relevant passages (grade >= level) of the corpus the classifier scans
that the pool lacks (what finding can reach); ``share_of_outside``: the share of them found.
``deepen.judged`` is below ``judged`` only where the runs ran out of passages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.pool.deepen import deepen
from poolkit.pool.find import CorpusFinder
from poolkit.pool.simulate import budget_count

DEFAULT_BATCH = 5


def _rate(found: int, judged: int) -> float:
    return round(found / judged, 4) if judged else 0.0


def replay_find(finder: CorpusFinder, pools: Mapping[str, Sequence[str]], qrels: Qrels,
                runs: Mapping[str, Run], budgets: Sequence[tuple[str, float]], *,
                level: int = 1, batch: int = DEFAULT_BATCH) -> dict[str, Any]:
    """The find replay's report (see the module docstring)."""
    def truth(q: str, d: str) -> int:
        return qrels.grades.get(q, {}).get(d, 0)

    grades = {q: {d: truth(q, d) for d in docs} for q, docs in pools.items()}
    most = {q: budget_count(max(f for _, f in budgets), len(docs)) for q, docs in pools.items()}
    found: dict[str, list[int]] = {q: [] for q in pools}
    rounds = 0
    while True:
        want = {q: min(batch, most[q] - len(found[q])) for q in pools}
        if not any(v > 0 for v in want.values()):
            break
        ranked = finder.find(grades, pools, want, level)
        if not any(ranked.values()):
            break
        rounds += 1
        for q, hits in ranked.items():
            for d, _ in hits:
                grades[q][d] = truth(q, d)
                found[q].append(grades[q][d])
    pooled = {q: set(docs) for q, docs in pools.items()}
    outside = sum(1 for q in pools for d, g in qrels.grades.get(q, {}).items()
                  if g >= level and d in finder.row and d not in pooled[q])
    doc: dict[str, Any] = {"batch": batch, "rounds": rounds,
                           "pool": sum(len(d) for d in pools.values()),
                           "outside_relevant": outside, "budgets": {}}
    for key, fraction in budgets:
        m = {q: budget_count(fraction, len(docs)) for q, docs in pools.items()}
        judged = sum(m.values())
        hit = sum(sum(1 for g in found[q][:m[q]] if g >= level) for q in pools)
        deep = {q: deepen(runs, q, pooled[q], m[q]) for q in pools}
        deep_judged = sum(len(d) for d, _ in deep.values())
        deep_hit = sum(1 for q, (docs, _) in deep.items() for d in docs if truth(q, d) >= level)
        doc["budgets"][key] = {
            "judged": judged,
            "classifier": {"relevant_found": hit, "per_judgment": _rate(hit, judged),
                           "share_of_outside": _rate(hit, outside)},
            "deepen": {"judged": deep_judged, "relevant_found": deep_hit,
                       "per_judgment": _rate(deep_hit, deep_judged),
                       "share_of_outside": _rate(deep_hit, outside),
                       "depth": max((r for _, r in deep.values()), default=0)}}
    return doc
