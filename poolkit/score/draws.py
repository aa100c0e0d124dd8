"""Random draws consumed on several threads, with results that do not depend on how many.

The bootstrap and the randomization test draw their resamples (sign vectors) from one seeded
generator, a chunk at a time, and do the heavy part (a BLAS product per chunk) on each chunk
alone. :func:`map_draws` takes the chunks from the generator one at a time, in order, under
a lock, and does the work on up to ``jobs`` threads; NumPy lets go of the GIL in the work,
so two threads take about half the time. Chunk ``i`` is always the generator's ``i``-th draw
and its work sees only that chunk, so every result is the serial loop's, for any ``jobs``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TypeVar

from poolkit.threads import ordered_map

T = TypeVar("T")
R = TypeVar("R")


def map_draws(draws: Iterable[T], work: Callable[[T], R], jobs: int = 1) -> list[R]:
    """``[work(d) for d in draws]`` with the draws taken in order (``next`` under a lock:
    the iterator is a random stream) and ``work`` on up to ``jobs`` threads."""
    if jobs <= 1:
        return [work(d) for d in draws]
    stream = iter(draws)
    lock = threading.Lock()
    taken = 0
    end = object()

    def drain(_: int) -> list[tuple[int, R]]:
        nonlocal taken
        done: list[tuple[int, R]] = []
        while True:
            with lock:
                drawn = next(stream, end)
                i = taken
                taken += 1
            if drawn is end:
                return done
            done.append((i, work(drawn)))  # type: ignore[arg-type]

    pieces = ordered_map(drain, range(jobs), jobs)
    return [r for _, r in sorted((p for piece in pieces for p in piece), key=lambda p: p[0])]
