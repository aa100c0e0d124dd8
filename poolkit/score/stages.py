"""Stage-1 (fetch) vs stage-2 (keep) recall, per query: where the relevant ids were lost.

A two-stage retriever fetches ``fetch_k`` candidates and keeps ``keep_k`` of them (a
reranker, or just a cutoff). Recall at each depth, and the loss between them, says which
stage failed: a high R@fetch with a low R@keep means the documents were found and then
dropped, which no change to the first-stage retriever can fix.

Either two runs (the fetch list and the keep list, as a reranking system writes them) or one
run read at two depths. The depths are checked by the score verb (``app.score.parse_stages``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from poolkit.io import Qrels, Run
from poolkit.score.evaluate import evaluate
from poolkit.score.measures import parse_measure


@dataclass
class StageReport:
    fetch_run: Run
    keep_run: Run
    fetch_k: int
    keep_k: int
    per_query: dict[str, dict[str, float]]  # qid -> {"fetch", "keep", "loss"}

    @property
    def mean(self) -> dict[str, float]:
        n = len(self.per_query)
        return {key: (sum(r[key] for r in self.per_query.values()) / n if n else 0.0)
                for key in ("fetch", "keep", "loss")}

    def to_dict(self) -> dict[str, Any]:
        return {
            "fetch": {"name": self.fetch_run.name, "sha256": self.fetch_run.sha256,
                      "k": self.fetch_k},
            "keep": {"name": self.keep_run.name, "sha256": self.keep_run.sha256,
                     "k": self.keep_k},
            "per_query": self.per_query,
            "mean": self.mean,
        }


def compare_stages(qrels: Qrels, fetch_run: Run, keep_run: Run, fetch_k: int, keep_k: int, *,
                   level: int = 1, depth: int | None = None) -> StageReport:
    """R@fetch_k of ``fetch_run``, R@keep_k of ``keep_run`` and the loss, per scored query."""
    fetch_m, keep_m = parse_measure(f"R@{fetch_k}"), parse_measure(f"R@{keep_k}")
    fetched = evaluate(qrels, fetch_run, [fetch_m], level=level, depth=depth)
    kept = evaluate(qrels, keep_run, [keep_m], level=level, depth=depth)
    rows: dict[str, dict[str, float]] = {}
    for qid in fetched.scored:
        f = fetched.per_query[fetch_m.name].get(qid, 0.0)
        k = kept.per_query[keep_m.name].get(qid, 0.0)
        rows[qid] = {"fetch": f, "keep": k, "loss": f - k}
    return StageReport(fetch_run, keep_run, fetch_k, keep_k, rows)
