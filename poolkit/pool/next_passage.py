"""The judging session's "next passage" decision under a learning order, a budget or a
stopping rule (``pool.order``, ``pool.budget``, ``pool.stop`` / ``pool.stop_recall`` in the
config).

Every decision is made from the store's current state, so several assessors (in several
processes) judging one query feed one learner:

- the learner's history is every assessor's standing grade on the query's pooled passages,
  in the order those grades were given (a pair judged by several assessors: its latest grade);
- a query is closed, for everyone, once its judged passages reach the budget or the stopping
  rule fires; ``closed`` says why. The rule is ``remaining.StopRule`` (``stop_recall``, the
  model rule) or one of ``stopping.STOP_RULES`` (``stop: NAME``): its ``fires`` on the
  query's grades in the order given, the very code ``simulate --stop`` replays, from
  ``stopping.MIN_JUDGED`` judgments on and never once the pool is all judged, as there;
  ``promise`` is what the rule promises (the screen's status line says it);
- under an adaptive strategy, the passage offered is the strategy's next one, leaving out the
  passages other assessors have on screen (shown within ``claim_minutes``) and the ones this
  assessor skipped (they come back through the session's skip rule). With ``double`` the
  passages others judged and this assessor has not come first (double judging), then the
  strategy's;
- a static strategy keeps the session's own walk; only the budget and the stopping rule apply.

Blind judging stays blind: of all this, only ``closed``'s reason reaches the screen (a
budget count, or the recall the stopping rule is confident of), never a run, rank or
learner state. Each decision reads the query's own grades (``history``), never the whole log.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from poolkit.pool.budget import Budget
from poolkit.pool.cal_live import Background, BackgroundCal
from poolkit.pool.learners import Judged, as_grades
from poolkit.pool.remaining import StopRule, estimate_remaining, relevant_found
from poolkit.pool.stop_live import BackgroundStop
from poolkit.pool.stopping import MIN_JUDGED, ModelRule, StoppingRule, TargetRule
from poolkit.pool.view import QueryPool
from poolkit.store.contract import StoreBackend
from poolkit.store.judging import VOTE_KINDS
from poolkit.store.records import stamp


def history(store: StoreBackend, qid: str, pool: QueryPool) -> list[Judged]:
    """Every assessor's standing grades on the query's pooled passages, oldest first.

    Reads the query's live events only (``live_marks(qid=...)``), so a decision costs the
    same on a log of a hundred events or of a million. They come in id order, so the last
    one of a passage is its latest standing grade (the standing grade of whoever gave it).
    """
    pooled = set(pool.docs)
    latest: dict[str, tuple[int, int | None]] = {}  # doc -> (event id, grade), the latest
    for event_id, _, grade, _, docid, _ in store.live_marks(VOTE_KINDS, qid=qid):
        if docid in pooled:
            latest[docid] = (event_id, grade)
    return [Judged(d, g) for d, (_, g) in sorted(latest.items(), key=lambda kv: kv[1][0])
            if g is not None]


@dataclass
class NextPassage:
    store: StoreBackend
    pools: dict[str, QueryPool]
    strategy: Any
    budget: Budget | None = None
    stop: StopRule | StoppingRule | None = None
    level: int = 1
    double: bool = False
    claim_minutes: float = 30.0
    #: gives a query's pool its texts, for a rule that reads them (``quant``'s classifier);
    #: applied once per query, when the rule is first asked
    texts: Callable[[QueryPool], QueryPool] | None = None
    # qid -> ((pool size, the grades it was decided on), why closed or None)
    _closed: dict[str, tuple[tuple[int, tuple[Judged, ...]], str | None]] = field(
        default_factory=dict, init=False, repr=False)
    _texts: dict[str, QueryPool] = field(default_factory=dict, init=False, repr=False)
    #: the rule's check off the keystroke path (``check_in_background``), or None
    background: BackgroundStop | None = field(default=None, init=False, repr=False)
    _own_worker: Background | None = field(default=None, init=False, repr=False)

    def check_in_background(self) -> None:
        """Run a rule that fits a classifier (``quant``, ``quant-sample``) off the keystroke
        path (``stop_live``), on ``cal``'s worker when the order is ``cal``; the judging
        app asks for it, ``status`` and the tests keep the check in line."""
        if not (isinstance(self.stop, StoppingRule) and self.stop.reads_text):
            return
        worker: Background
        if isinstance(self.strategy, BackgroundCal):
            worker = self.strategy
        else:
            worker = self._own_worker = Background()
            worker.label = f"stop {self.stop.name}"
        self.background = BackgroundStop(self.stop, self.level, worker)

    @property
    def adaptive(self) -> bool:
        return bool(getattr(self.strategy, "adaptive", False))

    @property
    def stop_rule(self) -> StoppingRule | None:
        """The stopping rule as ``stopping.STOP_RULES`` names it (``stop_recall``'s model rule
        as ``ModelRule``), for its name and promise; None without one."""
        if isinstance(self.stop, StopRule):
            return ModelRule(self.stop.target, self.stop.confidence)
        return self.stop

    @property
    def promise(self) -> str | None:
        """``stop: NAME — what it promises`` (the screen's status line), None without a rule."""
        rule = self.stop_rule
        return None if rule is None else f"stop: {rule.name} — {rule.promise()}"

    @property
    def fallback(self) -> str | None:
        """Why the strategy runs in a slower way than meant (``cal``'s fits on a thread when
        their process could not start), or None."""
        own = self._own_worker.fallback if self._own_worker is not None else None
        return getattr(self.strategy, "fallback", None) or own

    def close(self) -> None:
        """End what the strategy runs beside the session (``cal``'s fitting process); the
        judging app calls it as it exits."""
        close = getattr(self.strategy, "close", None)
        if close is not None:
            close()
        if self._own_worker is not None:
            self._own_worker.close()

    @property
    def active(self) -> bool:
        """Whether the session needs this at all (a learner, a budget or a stopping rule)."""
        return self.adaptive or self.budget is not None or self.stop is not None

    def closed(self, qid: str, judged: list[Judged] | None = None) -> str | None:
        """Why no more passages of ``qid`` are offered ("budget 12/12 spent", "estimated
        pool recall 0.92 ≥ target 0.9 ..."), or None while it is open. ``judged``: the
        query's ``history`` when the caller has just read it."""
        pool = self.pools.get(qid)
        if pool is None:
            return None
        if judged is None:
            judged = history(self.store, qid, pool)
        key = (len(pool.docs), tuple(judged))
        known = self._closed.get(qid)
        if known is not None and known[0] == key and self.background is None:
            return known[1]  # the same grades, the same answer (the model fit is the cost)
        why = self._why_closed(pool, judged)
        self._closed[qid] = (key, why)
        return why

    def _why_closed(self, pool: QueryPool, judged: list[Judged]) -> str | None:
        allowed = self.allowed(pool.qid)
        if allowed is not None:
            if len(judged) >= allowed:
                return f"budget {len(judged)}/{allowed} spent"
        if self.stop is not None and len(judged) < len(pool.docs):
            count = f"{len(judged)}/{len(pool.docs)} judged"
            if isinstance(self.stop, StoppingRule):
                if self.background is not None:
                    return self._asked(pool, judged)
                if len(judged) >= MIN_JUDGED and self.stop.fires(self._read(pool), judged,
                                                                  self.level):
                    return f"stop: {self.stop.name} says it may stop ({count})"
                return None
            recall = self.stop.recall(pool, judged, self.level)
            if recall is not None:
                return (f"estimated pool recall {recall:.2f} ≥ target {self.stop.target:g} "
                        f"(with probability ≥ {self.stop.confidence:g}; {count})")
        return None

    def _asked(self, pool: QueryPool, judged: list[Judged]) -> str | None:
        """The background check's answer: closed at the judgment the rule fired on, or
        None (open) while it has not, with the check of these grades queued."""
        assert self.background is not None and isinstance(self.stop, StoppingRule)
        at = self.background.fired_at(pool.qid, judged)
        if at is not None:
            return f"stop: {self.stop.name} says it may stop ({at}/{len(pool.docs)} judged)"
        if len(judged) >= MIN_JUDGED:
            self.background.ask(self._read(pool), judged)
        return None

    def allowed(self, qid: str) -> int | None:
        """The judgments ``qid``'s budget allows (None: no budget, or not in the pools)."""
        pool = self.pools.get(qid)
        return None if self.budget is None or pool is None else self.budget.count(len(pool.docs))

    def _read(self, pool: QueryPool) -> QueryPool:
        """The pool as the stopping rule reads it (with its texts when the rule reads them)."""
        if self.texts is None or not getattr(self.stop, "reads_text", False):
            return pool
        if pool.qid not in self._texts:
            self._texts[pool.qid] = self.texts(pool)
        return self._texts[pool.qid]

    @property
    def from_start(self) -> bool:
        """Whether the session's walk takes a query's first pending passage in stored order
        rather than the one after the passage last shown: the target rule counts the
        order's judged prefix, and its sample passages lie anywhere in it."""
        return isinstance(self.stop, TargetRule)

    def sample_due(self, qid: str, assessor: str, exclude: Set[str],
                   allowed: Set[str] | None = None) -> str | None:
        """The target rule's sample passage to offer ``assessor`` next in ``qid`` (the
        sample is judged before the order), recorded as on their screen; None once the
        sample is complete, under another rule, or when every passage due is on another
        assessor's screen or in ``exclude`` (this assessor's skipped, deferred or
        can't-judge ones: those stay due, so the sample, and the rule, waits for them)."""
        pool = self.pools.get(qid)
        if not isinstance(self.stop, TargetRule) or pool is None:
            return None
        wanted = self.stop.due(pool, history(self.store, qid, pool), self.level)
        if not wanted:
            return None
        since = datetime.now(timezone.utc) - timedelta(minutes=self.claim_minutes)
        others = self.store.shown_to_others(assessor, qid, stamp(since))
        doc = next((d for d in wanted if d not in exclude and d not in others
                    and (allowed is None or d in allowed)), None)
        if doc is not None:
            self.store.mark_shown(assessor, qid, doc)
        return doc

    def sample_note(self, qid: str) -> str | None:
        """``target sample: 12 judged`` while ``qid``'s target sample is being judged (no
        grade, count of relevant or place in the draw: the screen stays blind), else None."""
        pool = self.pools.get(qid)
        if not isinstance(self.stop, TargetRule) or pool is None:
            return None
        drawn, complete = self.stop.sample(pool, history(self.store, qid, pool), self.level)
        return None if complete else f"target sample: {len(drawn)} judged"

    def pick(self, qid: str, assessor: str, mine: Set[str], skipped: Set[str],
             allowed: Set[str] | None = None) -> str | None:
        """The passage to offer ``assessor`` next in ``qid`` (adaptive strategies), recorded as
        on their screen; None when the query is closed or nothing is left for them. One read
        of the query's grades serves the closure check and the strategy. ``allowed``: the
        docs she may be offered (her assignment), None: all."""
        pool = self.pools.get(qid)
        if pool is None:
            return None
        judged = history(self.store, qid, pool)
        if self.closed(qid, judged):
            return None
        doc = None
        if self.double:
            doc = next((j.docid for j in judged if j.docid not in mine | skipped), None)
            exclude: set[str] = set(skipped)
        else:
            since = (datetime.now(timezone.utc) - timedelta(minutes=self.claim_minutes))
            exclude = self.store.shown_to_others(assessor, qid, stamp(since)) | skipped
        if doc is None:
            done = {j.docid for j in judged} | exclude
            pending = [d for d in pool.docs if d not in done
                       and (allowed is None or d in allowed)]
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
                "budget": self.allowed(qid),
                "relevant_found": relevant_found(judged, self.level),
                "remaining_estimate": estimate_remaining(pool, judged, self.level).to_dict(),
                "closed": self.closed(qid, judged)}
