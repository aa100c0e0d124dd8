"""Work on several inputs at once, on threads: the blocks of a run file, the chunks of a
run's queries, the runs ``poolkit score`` reads ahead while it scores one.

Reading a run as columns is nearly all NumPy, which lets go of the GIL in its loops, so two
threads parse two blocks in about the time of one. Scoring is mostly Python under the GIL,
so ``score`` scores one run at a time and reads the next ones meanwhile. Threads rather
than processes: the qrels and what is built from them (the join keys) are shared as they
are, nothing is pickled, and the process's peak memory is about ``jobs`` runs' rows.
"""

from __future__ import annotations

import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: the default never runs more at once than this, however many CPUs: each one holds an
#: input's data (a 10M-line run is some 300 MB); ``--jobs`` asks for more
DEFAULT_MAX_JOBS = 4


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def default_jobs(tasks: int) -> int:
    return max(1, min(tasks, usable_cpus(), DEFAULT_MAX_JOBS))


def part_jobs() -> int:
    """Threads for the independent parts of one input (a run file's blocks, a run's chunks
    of queries): every CPU, up to ``DEFAULT_MAX_JOBS``. Inputs handled at once (``score
    --jobs``) share the same CPUs."""
    return default_jobs(DEFAULT_MAX_JOBS)


def ordered_map(fn: Callable[[T], R], items: Sequence[T], jobs: int,
                done: Callable[[], None] = lambda: None) -> list[R]:
    """``[fn(x) for x in items]`` on up to ``jobs`` threads, ``done()`` called (on this
    thread) as each result is taken in order; errors as :func:`ordered_imap`'s."""
    out = []
    for value in ordered_imap(fn, items, jobs if len(items) > 1 else 1):
        out.append(value)
        done()
    return out


def ordered_imap(fn: Callable[[T], R], items: Iterable[T], jobs: int,
                 ahead: int | None = None) -> Generator[R, None, None]:
    """``map(fn, items)`` with ``fn`` run on up to ``jobs`` threads, the results in order.

    Items are drawn from ``items`` on the caller's thread (so a generator reading a file
    reads it in order there), at most ``ahead`` of them beyond the result last taken (None:
    no limit), which bounds the memory of large results in flight. As in the loop, the first
    item in order whose ``fn`` raises re-raises it, and once it has (or the caller stops
    early: closing the iterator) items not yet started are never started.

    The workers are daemon threads: on Ctrl-C (or an error) the process exits at once rather
    than waiting for the items in progress (a 10M-line run takes seconds), as the loop would."""
    if jobs <= 1:
        yield from map(fn, items)
        return
    todo: queue.SimpleQueue[_Slot | None] = queue.SimpleQueue()
    stop = threading.Event()

    def work() -> None:
        while (slot := todo.get()) is not None and not stop.is_set():
            slot.run(fn)

    pending: deque[_Slot] = deque()
    source = iter(items)
    workers = 0
    try:
        while True:
            while ahead is None or len(pending) < ahead:
                item = next(source, _END)
                if item is _END:
                    break
                pending.append(_Slot(item))
                todo.put(pending[-1])
                if workers < jobs:
                    threading.Thread(target=work, name=f"poolkit-{workers}", daemon=True).start()
                    workers += 1
            if not pending:
                return
            yield pending.popleft().result()
    finally:
        stop.set()
        for _ in range(workers):
            todo.put(None)


_END: Any = object()


class _Slot:
    """One item's way through a worker: its result or exception, and when it is there."""

    __slots__ = ("item", "ready", "ok", "value")

    def __init__(self, item: Any) -> None:
        self.item = item
        self.ready = threading.Event()
        self.ok = False
        self.value: Any = None

    def run(self, fn: Callable[[Any], Any]) -> None:
        try:
            self.value, self.ok = fn(self.item), True
        except BaseException as exc:  # handed to the caller's thread, which raises it
            self.value = exc
        self.item = None
        self.ready.set()

    def result(self) -> Any:
        self.ready.wait()
        value, self.value = self.value, None  # the caller holds it now
        if not self.ok:
            raise value
        return value


#: held while a cache shared by the threads is filled, so it is filled once
cache_lock = threading.Lock()
