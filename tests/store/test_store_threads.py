"""Issue 22 item A: one store handle used by two threads (the judging screen's grade writes
and its claim heartbeat), on both backends. A seeded plan decides each thread's work (grades,
undos / heartbeats, highlight terms) and, at random, has a thread that just opened a write
transaction hold it until the other thread has started its next write: so writes are forced
to overlap inside each other's transactions whatever the scheduler does, and to end in
either order. Afterwards every
acknowledged event is in the log exactly once, as written. (On one shared connection the
overlap nests, commits or rolls back the other thread's transaction: grades acknowledged
and lost, PostgreSQL's OutOfOrderTransactionNesting.)"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections import Counter
from contextlib import contextmanager

import pytest
import store_backends
from judging_screen_helpers import drop_connections, pooled_store

from poolkit.errors import StoreError, StoreUnavailable
from poolkit.store import Event
from poolkit.store.claims import claim, renew
from poolkit.store.terms import toggle_term

HUNG = 30.0  # seconds a hold waits for the other thread at most (only a hung run gets there)


def _entering(thread: threading.Thread) -> bool:
    """Whether ``thread`` is inside the store's own ``transaction()`` (waiting for the write
    lock, or about to be let in): read off its stack, a state, not a time."""
    frame = sys._current_frames().get(thread.ident or -1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "transaction" and code.co_filename.endswith(
                ("store/store.py", "store/postgres.py")):
            return True
        frame = frame.f_back
    return False


class Overlap:
    """Where each thread is. A thread that just opened a write transaction may hold it until
    the other thread's next write is inside a transaction too (one shared connection lets it
    in) or waits to enter one (a connection of its own queues it behind the lock)."""

    def __init__(self) -> None:
        self.threads: dict[str, threading.Thread] = {}
        self.inside: dict[str, bool] = {}
        self.finished: set[str] = set()
        self.lock = threading.Lock()

    def other(self) -> str:
        me = threading.current_thread().name
        return next(n for n in self.threads if n != me)

    def set_inside(self, value: bool) -> None:
        with self.lock:
            self.inside[threading.current_thread().name] = value

    def finish(self) -> None:
        with self.lock:
            self.finished.add(threading.current_thread().name)

    def _wait(self, ready) -> None:
        deadline = time.monotonic() + HUNG  # (only a hung run gets there)
        while not ready() and time.monotonic() < deadline:
            time.sleep(0.0005)

    def hold(self) -> None:
        other = self.other()
        self._wait(lambda: other in self.finished or self.inside.get(other)
                   or _entering(self.threads[other]))

    def let_other_leave_first(self) -> None:
        other = self.other()
        if self.inside.get(other):
            self._wait(lambda: not self.inside.get(other))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_grades_and_heartbeats_on_one_handle_keep_every_acknowledged_grade(store_location,
                                                                           seed):
    rng = random.Random(seed)
    store = pooled_store(store_location, queries=2, docs=40)
    mine = claim(store, "alice")
    pairs = [(m.qid, m.docid) for m in store.pool()]
    overlap = Overlap()
    holds = {"grades": [rng.random() < 0.5 for _ in range(800)],
             "heartbeat": [rng.random() < 0.5 for _ in range(400)]}
    real = store.transaction

    @contextmanager
    def transaction():
        name = threading.current_thread().name
        with real() as c:
            overlap.set_inside(True)
            try:
                if holds[name].pop():
                    overlap.hold()
                yield c
                # (the grade thread, at random, waits for a heartbeat inside its transaction
                # to leave first: transactions then end in either order)
                if name == "grades" and holds[name].pop():
                    overlap.let_other_leave_first()
            finally:
                overlap.set_inside(False)

    store.transaction = transaction  # type: ignore[method-assign]
    acknowledged: list[tuple[int, Event]] = []
    beats: list[bool] = []
    failures: list[BaseException] = []

    def grades() -> None:
        try:
            for i, (qid, docid) in enumerate(pairs):
                event = Event(qid, docid, "alice", "grade", grade=rng_g.randint(0, 3),
                              judged_at=f"2026-01-05T09:00:{i:02d}.000000+00:00")
                acknowledged.append((store.record_event(event), event))
                if rng_g.random() < 0.2:  # take it back, as the undo key does
                    undo = Event(qid, docid, "alice", "undo", ref=acknowledged[-1][0],
                                 judged_at=f"2026-01-05T09:01:{i:02d}.000000+00:00")
                    acknowledged.append((store.record_event(undo), undo))
        except BaseException as exc:  # (reported below, with the other thread's)
            failures.append(exc)
        finally:
            overlap.finish()

    def heartbeat() -> None:
        try:
            for i in range(60):
                if rng_h.random() < 0.2:
                    toggle_term(store, "alice", "q0", f"term{i % 3}")
                else:
                    beats.append(renew(store, mine))
        except BaseException as exc:
            failures.append(exc)
        finally:
            overlap.finish()

    rng_g, rng_h = random.Random(rng.random()), random.Random(rng.random())
    threads = [threading.Thread(target=grades, name="grades"),
               threading.Thread(target=heartbeat, name="heartbeat")]
    overlap.threads = {t.name: t for t in threads}
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    store.transaction = real  # type: ignore[method-assign]
    assert not failures, failures
    assert beats and all(beats), "a heartbeat found the claim not ours"
    logged = {e.id: e for e in store.events()}
    assert len(logged) == len(store.events())
    for event_id, sent in acknowledged:
        assert event_id in logged, f"acknowledged {sent.kind} {sent.docid} is not in the log"
        kept = logged[event_id]
        assert (kept.qid, kept.docid, kept.kind, kept.grade, kept.ref, kept.judged_at) == \
            (sent.qid, sent.docid, sent.kind, sent.grade, sent.ref, sent.judged_at)
    sent_keys = Counter((e.kind, e.judged_at) for _, e in acknowledged)
    kept_keys = Counter((e.kind, e.judged_at) for e in logged.values())
    assert kept_keys == sent_keys  # exactly once each, and nothing else
    store.close()


def test_each_thread_has_its_own_connection_and_close_closes_every_one(store_location):
    store = pooled_store(store_location, queries=1, docs=3)
    seen: dict[str, object] = {"main": store.conn}

    def use(name: str) -> None:
        seen[name] = store.conn
        assert store.conn is seen[name]  # the same one for the thread's every use
        assert store.latest_pool_version() == 1

    for name in ("a", "b"):
        t = threading.Thread(target=use, args=(name,))
        t.start()
        t.join()
    assert len({id(c) for c in seen.values()}) == 3
    done = threading.Thread(target=store.close_thread)  # a thread that had none: nothing
    done.start()
    done.join()
    store.close()
    raised: list[BaseException] = []

    def late() -> None:
        try:
            store.conn
        except StoreError as exc:
            raised.append(exc)

    t = threading.Thread(target=late)  # a thread after close opens nothing
    t.start()
    t.join()
    assert [str(e) for e in raised] == [f"{store.path}: the store was closed"]


def test_postgresql_a_cut_connection_is_opened_again_on_its_next_use():
    with store_backends.fresh_database() as url:
        store = pooled_store(url, queries=1, docs=3)
        assert drop_connections(url) == 1
        assert store.latest_pool_version() == 1  # a read is simply run again
        assert store.grade_scale.top == 3  # read once per handle (else the write reads first)
        drop_connections(url)
        event = Event("q0", "d000", "alice", "grade", grade=2)
        with pytest.raises(StoreUnavailable) as cut:  # a write says so, once...
            store.record_event(event)
        assert str(cut.value).startswith(f"{store.path}: ") and "\n" not in str(cut.value)
        event_id = store.record_event_once(event)  # ...and goes through when tried again
        assert store.record_event_once(event) == event_id  # (never twice)
        assert [e.id for e in store.events()] == [event_id]
        store.close()
