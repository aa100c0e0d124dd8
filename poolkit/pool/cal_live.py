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
- One daemon worker thread takes the jobs in queue order, skipping a job a newer training
  set of its query has replaced, and hands each to ``trainer``. It touches no store
  connection (the texts are read on the session's thread, ``texts``, once per query), so
  SQLite's one-thread connections and PostgreSQL's are left alone.
- The default trainer fits in a separate *process* (one worker of a
  ``ProcessPoolExecutor``, started with ``spawn`` the first time a model is wanted): a fit
  on the worker thread held the GIL for its Newton steps and tokenising, and the screen's
  p95 keystroke under ``cal`` was 59 ms against ``priority``'s 31 ms in the same run. The
  thread sends the query's pool (with its texts) and the grades and waits on the future,
  which holds no GIL; the child keeps its own copy of the strategy, so each query's TF-IDF
  features are built there once. The process is started as the session asks for its first
  passage (the worker thread starts it and waits until it answers: ``started``), so its
  start-up (an interpreter and NumPy, about 0.3 s of CPU) overlaps the reading of that
  passage, not the keystrokes after it. If the process cannot start or dies, the fits go on
  on the worker thread (the old way) and ``fallback`` says why, logged once.
- ``close()`` (the judging app calls it as it exits, through ``NextPassage.close``) drops
  the queued jobs, ends the worker thread and shuts the process down: no child outlives
  the session.

The worker thread and the fitting process are ``Background``'s; ``BackgroundCal`` is that
with ``cal``'s order on top, and ``stop_live.BackgroundStop`` queues a stopping rule's
check on the same ``Background`` (``cal``'s under ``order: cal``, its own otherwise,
whose process starts at the first check).

What differs from the replay: the live order uses the newest model *ready*, so a fast
assessor may see a passage or two chosen by the previous batch's model; the replay
(``simulate``) waits for every model. ``wait()`` (tests, the benchmark) blocks until the
queue is empty.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import sys
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, ClassVar, TypeVar

from poolkit.params import Param
from poolkit.pool.guided import ContinuousActiveLearning, batch_boundary
from poolkit.pool.order_base import OrderStrategy
from poolkit.pool.view import QueryPool

#: (the query's pool with its texts, the grades to train on) -> log-odds per passage, or
#: None while the grades hold a single class
Trainer = Callable[[QueryPool, Mapping[str, int]], Mapping[str, float] | None]

#: (the strategy, or None) -> the executor a fit runs on; the default starts one spawned
#: process
Fitters = Callable[[ContinuousActiveLearning | None], Executor]

T = TypeVar("T")

LOG = logging.getLogger(__name__)

#: what starting a process raises where it cannot (no fork/exec, descriptors, limits)
_CANNOT_START = (OSError, ValueError, RuntimeError)


def scores_by_doc(strategy: ContinuousActiveLearning, pool: QueryPool,
                  grades: Mapping[str, int]) -> dict[str, float] | None:
    """The strategy's log-odds per passage after ``grades`` (None before two classes)."""
    scores = strategy.scores(pool, grades)
    return None if scores is None else dict(zip(sorted(pool.docs), scores.tolist()))


_CHILD: ContinuousActiveLearning | None = None  # the fitting process's copy of the strategy
_RULES: dict[Hashable, Any] = {}  # the fitting process's copy of each stopping rule asked


def _child_start(strategy: ContinuousActiveLearning | None) -> None:
    """In the fitting process: keep the strategy, write nothing to the judging screen's
    terminal (a NumPy warning would land in the middle of the UI), and yield the CPU to
    the screen (a fit is background work)."""
    global _CHILD
    _CHILD = strategy
    os.nice(10)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)


def _child_ready() -> bool:
    return True


def _child_fit(pool: QueryPool, grades: Mapping[str, int]) -> dict[str, float] | None:
    assert _CHILD is not None
    return scores_by_doc(_CHILD, pool, grades)


def _child_fires(rule: Any, pool: QueryPool, judged: Sequence[Any], level: int) -> bool:
    """A stopping rule's ``fires`` in the fitting process, on the process's own copy of
    the rule (the first sent), so the features it caches per query are built there once."""
    return bool(_RULES.setdefault(rule, rule).fires(pool, judged, level))


def process_fitter(strategy: ContinuousActiveLearning | None) -> Executor:
    """One spawned process (never forked: the judging app runs threads) holding a copy of
    ``strategy``."""
    _tracker_started()
    return ProcessPoolExecutor(1, multiprocessing.get_context("spawn"),
                               initializer=_child_start, initargs=(strategy,))


def _tracker_started() -> None:
    """Start multiprocessing's resource tracker (every spawned process reports to it) on the
    real stderr. It hands its process ``sys.stderr.fileno()``, and inside the judging app
    ``sys.stderr`` is Textual's capture, whose fileno is -1: the start fails with "bad
    value(s) in fds_to_keep". The swap lasts the tracker's launch, once per program."""
    from multiprocessing import resource_tracker

    captured = sys.stderr
    sys.stderr = sys.__stderr__
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = captured


class Background:
    """One daemon worker thread taking tasks (``run``) in queue order, and behind it one
    spawned process (``elsewhere`` runs a function there) holding a copy of ``strategy``:
    what ``BackgroundCal``'s fits and the stopping rules' checks on the judging screen
    (``stop_live``) share. The thread touches no store connection. If the process cannot
    start or dies, ``elsewhere`` runs its fallback on the thread and ``fallback`` says why,
    logged once. ``close()`` drops the queued tasks, ends the thread and the process."""

    #: who the fallback line names
    label: str = "background checks"

    def __init__(self, strategy: ContinuousActiveLearning | None = None,
                 fitters: Fitters = process_fitter) -> None:
        self.strategy = strategy
        self._fitters = fitters
        self._fitter: Executor | None = None
        #: why the fits run on the worker thread instead of their process (None: they don't)
        self.fallback: str | None = None
        self._closed = False
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self.error: BaseException | None = None  # the last task that failed
        #: set once the fitting process answers (or the fits fell back to the thread)
        self.started = threading.Event()

    def eager(self) -> bool:
        """Whether the worker starts the process as it starts (else at first use)."""
        return False

    def run(self, task: Callable[[], None]) -> None:
        """Queue ``task`` for the worker thread (started on first use)."""
        if self._closed:
            return
        if self._worker is None:
            self._start_worker()
        self._jobs.put(task)

    def elsewhere(self, fn: Callable[..., T], *args: Any, here: Callable[[], T]) -> T:
        """``fn(*args)`` in the fitting process (started on first use); ``here()`` on the
        worker thread if that process cannot start or has died (``fallback``)."""
        fitter = self._start_fitter()
        if fitter is not None:
            try:
                return fitter.submit(fn, *args).result()
            except BrokenProcessPool as exc:  # the process died
                self._fall_back(exc)
        return here()

    def _start_fitter(self) -> Executor | None:
        """The fitting process, started and answering (on the worker thread), or None when
        the fits run on the thread (``fallback``)."""
        if self._fitter is None and self.fallback is None and not self._closed:
            try:
                self._fitter = self._fitters(self.strategy)
                self._fitter.submit(_child_ready).result()  # spawns it; waits for it
            except (BrokenProcessPool, *_CANNOT_START) as exc:
                self._fall_back(exc)
        self.started.set()
        return self._fitter

    def _fall_back(self, exc: BaseException) -> None:
        self.fallback = (f"{self.label}: the classifier's fitting process could not run "
                         f"({type(exc).__name__}: {exc}); fitting on a thread of the judging "
                         f"app instead (keystrokes may be slower)")
        LOG.warning(self.fallback)
        self._stop_fitter()

    def _start_worker(self) -> None:
        self._worker = threading.Thread(target=self._work, name="cal-trainer", daemon=True)
        self._worker.start()

    def _work(self) -> None:
        if self.eager():
            self._start_fitter()
        else:
            self.started.set()
        while True:
            task = self._jobs.get()
            if task is None:  # close(): the end
                self._jobs.task_done()
                return
            try:
                if not self._closed:
                    task()
            except Exception as exc:  # noqa: BLE001 - a failed task must not end the session
                self.error = exc
            finally:
                self._jobs.task_done()

    def wait(self) -> None:
        """Block until every queued task is done (tests and the benchmark)."""
        self._jobs.join()

    def close(self) -> None:
        """Drop the queued tasks, end the worker thread (after the task at hand) and shut
        the fitting process down."""
        self._closed = True
        if self._worker is not None:
            self._jobs.put(None)
            self._worker.join()
            self._worker = None
        self._stop_fitter()

    def _stop_fitter(self) -> None:
        if self._fitter is not None:
            self._fitter.shutdown(wait=True, cancel_futures=True)
            self._fitter = None


class BackgroundCal(Background, OrderStrategy):
    """A ``cal`` strategy whose ``next`` never waits for a fit (see the module docstring)."""

    name: ClassVar[str] = ContinuousActiveLearning.name
    summary: ClassVar[str] = ContinuousActiveLearning.summary
    params: ClassVar[tuple[Param, ...]] = ContinuousActiveLearning.params
    blind: ClassVar[bool] = True
    adaptive: ClassVar[bool] = True
    label = "order cal"

    def __init__(self, strategy: ContinuousActiveLearning,
                 texts: Callable[[QueryPool], QueryPool] = lambda pool: pool,
                 trainer: Trainer | None = None, fitters: Fitters = process_fitter) -> None:
        super().__init__(strategy, fitters)
        self.strategy: ContinuousActiveLearning = strategy
        self._texts = texts
        self.trainer: Trainer = trainer or self._fit_elsewhere
        self._pools: dict[str, QueryPool] = {}
        self._asked: dict[str, tuple[tuple[str, int], ...]] = {}
        self._ready: dict[str, Mapping[str, float]] = {}
        self.trained = 0                         # models made

    def eager(self) -> bool:
        return self.trainer == self._fit_elsewhere

    def _fit(self, pool: QueryPool, grades: Mapping[str, int]) -> Mapping[str, float] | None:
        return scores_by_doc(self.strategy, pool, grades)

    def _fit_elsewhere(self, pool: QueryPool,
                       grades: Mapping[str, int]) -> Mapping[str, float] | None:
        """The fit in the fitting process; on the worker thread if it cannot run."""
        return self.elsewhere(_child_fit, pool, dict(grades),
                              here=lambda: None if self._closed else self._fit(pool, grades))

    def keys(self, pool: QueryPool) -> dict[str, float]:
        return self.strategy.keys(pool)

    def next(self, pool: QueryPool, grades: Mapping[str, int],
             pending: Sequence[str]) -> str | None:
        if self._worker is None and not self._closed:
            self._start_worker()  # the fitting process starts now, off the keystroke path
        if not pending:
            return None
        if pool.qid not in self._pools:
            self._pools[pool.qid] = self._texts(pool)
        pool = self._pools[pool.qid]
        trained = tuple(list(grades.items())[:batch_boundary(len(grades))])
        if trained and self._asked.get(pool.qid) != trained:
            self._asked[pool.qid] = trained
            self.run(lambda: self._train(pool, trained))
        scores = self._ready.get(pool.qid)
        if scores is None:
            keys = self.strategy.keys(pool)  # cal's order before a model: judge's or fused
            return min(pending, key=lambda d: keys[d])
        return max(pending, key=lambda d: scores.get(d, float("-inf")))

    def _train(self, pool: QueryPool, trained: tuple[tuple[str, int], ...]) -> None:
        if self._asked.get(pool.qid) == trained:  # not replaced by a newer training set
            scores = self.trainer(pool, dict(trained))
            if scores is not None:
                self._ready[pool.qid] = scores
                self.trained += 1
