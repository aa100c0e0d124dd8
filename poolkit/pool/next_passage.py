"""The judging session's "next passage" decision under a learning order, a budget or a
stopping rule (``pool.order``, ``pool.budget``, ``pool.stop_recall`` in the config).

Every decision is made from the store's current state, so several assessors (in several
processes) judging one query feed one learner:

- the learner's history is every assessor's standing grade on the query's pooled passages,
  in the order those grades were given (a pair judged by several assessors: its latest grade);
- a query is closed, for everyone, once its judged passages reach the budget or the stopping
  rule fires; ``closed`` says why;
- under an adaptive strategy, the passage offered is the strategy's next one, leaving out the
  passages other assessors have on screen (shown within ``claim_minutes``) and the ones this
  assessor skipped (they come back through the session's skip rule). With ``double`` the
  passages others judged and this assessor has not come first (double judging), then the
  strategy's;
- a static strategy keeps the session's own walk; only the budget and the stopping rule apply.

Nothing here reaches the screen: blind judging stays blind (no run, rank or learner state).
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from poolkit.pool.budget import Budget
from poolkit.pool.remaining import StopRule, estimate_remaining, relevant_found
from poolkit.pool.strategy import Judged, as_grades
from poolkit.pool.view import QueryPool
from poolkit.store.contract import StoreBackend
from poolkit.store.judging import VOTE_KINDS, standing_votes


def history(store: StoreBackend, qid: str, pool: QueryPool) -> list[Judged]:
    """Every assessor's standing grades on the query's pooled passages, oldest first."""
    pooled = set(pool.docs)
    latest: dict[str, tuple[int, int]] = {}  # doc -> (event id, grade), the latest standing
    for (q, docid), marks in standing_votes(store, VOTE_KINDS).items():
        if q == qid and docid in pooled:
            mark = max(marks.values(), key=lambda m: m.id)
            if mark.grade is not None:
                latest[docid] = (mark.id, mark.grade)
    return [Judged(d, g) for d, (_, g) in sorted(latest.items(), key=lambda kv: kv[1][0])]


@dataclass
class NextPassage:
    store: StoreBackend
    pools: dict[str, QueryPool]
    strategy: Any
    budget: Budget | None = None
    stop: StopRule | None = None
    level: int = 1
    double: bool = False
    claim_minutes: float = 30.0

    @property
    def adaptive(self) -> bool:
        return bool(getattr(self.strategy, "adaptive", False))

    @property
    def active(self) -> bool:
        """Whether the session needs this at all (a learner, a budget or a stopping rule)."""
        return self.adaptive or self.budget is not None or self.stop is not None

    def closed(self, qid: str) -> str | None:
        """Why no more passages of ``qid`` are offered, or None while it is open."""
        pool = self.pools.get(qid)
        if pool is None:
            return None
        judged = history(self.store, qid, pool)
        if self.budget is not None and len(judged) >= self.budget.count(len(pool.docs)):
            return (f"budget spent ({len(judged)}/{self.budget.count(len(pool.docs))} "
                    f"judged)")
        if self.stop is not None and len(judged) < len(pool.docs) and self.stop.fires(
                pool, judged, self.level):
            return (f"stopping rule: estimated pool recall >= {self.stop.target:g} with "
                    f"probability >= {self.stop.confidence:g} ({len(judged)} judged)")
        return None

    def pick(self, qid: str, assessor: str, mine: Set[str], skipped: Set[str]) -> str | None:
        """The passage to offer ``assessor`` next in ``qid`` (adaptive strategies), recorded as
        on their screen; None when the query is closed or nothing is left for them."""
        pool = self.pools.get(qid)
        if pool is None or self.closed(qid):
            return None
        judged = history(self.store, qid, pool)
        doc = None
        if self.double:
            doc = next((j.docid for j in judged if j.docid not in mine | skipped), None)
            exclude: set[str] = set(skipped)
        else:
            since = (datetime.now(timezone.utc) - timedelta(minutes=self.claim_minutes))
            exclude = (self.store.shown_to_others(
                assessor, qid, since.isoformat(timespec="microseconds")) | skipped)
        if doc is None:
            done = {j.docid for j in judged} | exclude
            pending = [d for d in pool.docs if d not in done]
            doc = self.strategy.next(pool, as_grades(judged), pending)
        if doc is not None:
            self.store.mark_shown(assessor, qid, doc)
        return doc

    def query_status(self, qid: str) -> dict[str, Any]:
        """What ``poolkit status`` shows for a query: judged / budget, relevant found, the
        estimate of relevant passages still unjudged (95% interval), and why it is closed."""
        pool = self.pools[qid]
        judged = history(self.store, qid, pool)
        return {"judged": len(judged), "pooled": len(pool.docs),
                "budget": self.budget.count(len(pool.docs)) if self.budget else None,
                "relevant_found": relevant_found(judged, self.level),
                "remaining_estimate": estimate_remaining(pool, judged, self.level).to_dict(),
                "closed": self.closed(qid)}
