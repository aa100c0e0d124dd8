"""``order: cal`` on the judging screen: the same classifier, trained off the keystroke path.

``ContinuousActiveLearning.next`` trains when a grade crosses one of BMI's batch boundaries
(1, 2, ..., B + ceil(B / 10)), and a fit is tens of milliseconds to a second (tokenising a
query's pool the first time, then Newton's method on the grades). Replayed, that is fine; on
the screen it would be a keystroke that waits. ``BackgroundCal`` wraps the strategy for the
judging session:

- ``next`` never trains. When the grades so far (cut at the last batch boundary) are not
  the set the query's model was last asked for, it queues that training set for a worker
  thread and answers at once with the newest model it has for the query (an older batch's),
  or, before any, with the order ``cal`` follows before its first model (``judge``'s with a
  machine judge, else the runs' fused order). ``next`` is called after the grade is
  committed, so the retrain follows the commit.
- One daemon worker trains (``trainer``: by default the strategy's own fit and scores) in
  queue order, skipping a job a newer training set of its query has replaced; it touches
  no store connection (the texts are read on the session's thread, ``texts``, once per
  query), so SQLite's one-thread connections and PostgreSQL's are left alone.

What differs from the replay: the live order uses the newest model *ready*, so a fast
assessor may see a passage or two chosen by the previous batch's model; the replay
(``simulate``) waits for every model. ``wait()`` (tests, the benchmark) blocks until the
queue is empty.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from poolkit.params import Param
from poolkit.pool.guided import ContinuousActiveLearning, batch_boundary
from poolkit.pool.order_base import OrderStrategy
from poolkit.pool.view import QueryPool

#: (the query's pool with its texts, the grades to train on) -> log-odds per passage, or
#: None while the grades hold a single class
Trainer = Callable[[QueryPool, Mapping[str, int]], Mapping[str, float] | None]

_Job = tuple[QueryPool, tuple[tuple[str, int], ...]]


class BackgroundCal(OrderStrategy):
    """A ``cal`` strategy whose ``next`` never waits for a fit (see the module docstring)."""

    name: ClassVar[str] = ContinuousActiveLearning.name
    summary: ClassVar[str] = ContinuousActiveLearning.summary
    params: ClassVar[tuple[Param, ...]] = ContinuousActiveLearning.params
    blind: ClassVar[bool] = True
    adaptive: ClassVar[bool] = True

    def __init__(self, strategy: ContinuousActiveLearning,
                 texts: Callable[[QueryPool], QueryPool] = lambda pool: pool,
                 trainer: Trainer | None = None) -> None:
        self.strategy = strategy
        self._texts = texts
        self.trainer: Trainer = trainer or self._fit
        self._pools: dict[str, QueryPool] = {}
        self._asked: dict[str, tuple[tuple[str, int], ...]] = {}
        self._ready: dict[str, Mapping[str, float]] = {}
        self._jobs: queue.Queue[_Job] = queue.Queue()
        self._worker: threading.Thread | None = None
        self.error: BaseException | None = None  # the last fit that failed (order falls back)
        self.trained = 0                         # models made

    def _fit(self, pool: QueryPool, grades: Mapping[str, int]) -> Mapping[str, float] | None:
        scores = self.strategy.scores(pool, grades)
        return None if scores is None else dict(zip(sorted(pool.docs), scores.tolist()))

    def keys(self, pool: QueryPool) -> dict[str, float]:
        return self.strategy.keys(pool)

    def next(self, pool: QueryPool, grades: Mapping[str, int],
             pending: Sequence[str]) -> str | None:
        if not pending:
            return None
        if pool.qid not in self._pools:
            self._pools[pool.qid] = self._texts(pool)
        pool = self._pools[pool.qid]
        trained = tuple(list(grades.items())[:batch_boundary(len(grades))])
        if trained and self._asked.get(pool.qid) != trained:
            self._asked[pool.qid] = trained
            self._submit((pool, trained))
        scores = self._ready.get(pool.qid)
        if scores is None:
            keys = self.strategy.keys(pool)  # cal's order before a model: judge's or fused
            return min(pending, key=lambda d: keys[d])
        return max(pending, key=lambda d: scores.get(d, float("-inf")))

    def _submit(self, job: _Job) -> None:
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="cal-trainer",
                                            daemon=True)
            self._worker.start()
        self._jobs.put(job)

    def _work(self) -> None:
        while True:
            pool, trained = self._jobs.get()
            try:
                if self._asked.get(pool.qid) == trained:  # not replaced by a newer set
                    scores = self.trainer(pool, dict(trained))
                    if scores is not None:
                        self._ready[pool.qid] = scores
                        self.trained += 1
            except Exception as exc:  # noqa: BLE001 - a failed fit must not end the session
                self.error = exc
            finally:
                self._jobs.task_done()

    def wait(self) -> None:
        """Block until every queued training set is trained (tests and the benchmark)."""
        self._jobs.join()
