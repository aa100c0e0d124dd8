"""Work on several inputs at once, on threads: ``poolkit score`` over N runs.

Reading a run as columns and scoring it is nearly all NumPy, which lets go of the GIL in
its loops, so two threads score two runs in about the time of one. Threads rather than
processes: the qrels and what is built from them (the join keys) are shared as they are,
nothing is pickled, and the process's peak memory is about ``jobs`` runs' rows at once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
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


def ordered_map(fn: Callable[[T], R], items: Sequence[T], jobs: int,
                done: Callable[[], None] = lambda: None) -> list[R]:
    """``[fn(x) for x in items]`` on up to ``jobs`` threads, ``done()`` called (on this
    thread) as each result is taken in order. As in the loop, the first item in order whose
    ``fn`` raises re-raises it, and items not yet started are then not started.

    The workers are daemon threads: on Ctrl-C (or an error) the process exits at once rather
    than waiting for the items in progress (a 10M-line run takes seconds), as the loop would."""
    if jobs <= 1 or len(items) <= 1:
        out = []
        for item in items:
            out.append(fn(item))
            done()
        return out
    outcomes: list[tuple[bool, Any]] = [(False, None)] * len(items)
    ready = [threading.Event() for _ in items]
    taken = iter(range(len(items)))
    take = threading.Lock()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            with take:
                i = next(taken, None)
            if i is None:
                return
            try:
                outcomes[i] = True, fn(items[i])
            except BaseException as exc:  # handed to the caller's thread, which raises it
                outcomes[i] = False, exc
            ready[i].set()

    for n in range(min(jobs, len(items))):
        threading.Thread(target=work, name=f"poolkit-{n}", daemon=True).start()
    results = []
    try:
        for i in range(len(items)):
            ready[i].wait()
            ok, value = outcomes[i]
            if not ok:
                raise value
            results.append(value)
            outcomes[i] = True, None  # the caller holds it now
            done()
    finally:
        stop.set()
    return results


#: held while a cache shared by the threads is filled, so it is filled once
cache_lock = threading.Lock()
