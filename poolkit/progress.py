"""Progress bars for long work (encoding a corpus, BM25 indexing, reranking, scoring many runs).

One line on stderr, redrawn in place: what, a bar, done/total, the rate and the time left.
Silent when stderr is not a terminal (logs, pipes, CI, tests) or after ``set_quiet(True)``
(the commands' ``--quiet``), so output that is parsed never holds one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TextIO, TypeVar

T = TypeVar("T")

_QUIET = False
REDRAW_SECONDS = 0.1  # at most ten redraws a second
BAR_WIDTH = 24


def set_quiet(quiet: bool) -> None:
    """Silence (or allow) every progress bar of this process (``--quiet``)."""
    global _QUIET
    _QUIET = quiet


@contextmanager
def quieted(quiet: bool) -> Iterator[None]:
    """Bars silenced for the block when ``quiet`` (a command's ``--quiet``), then as before: a
    command run in-process (``poolkit.cli.main``) leaves the process's bars as it found them."""
    global _QUIET
    before = _QUIET
    _QUIET = before or quiet
    try:
        yield
    finally:
        _QUIET = before


def enabled(stream: TextIO | None = None) -> bool:
    """Whether a bar would draw on ``stream`` (stderr): a terminal, and not silenced. Work
    done by a library with a bar of its own (sentence-transformers' tqdm) shows it only then.
    """
    return not _QUIET and _is_terminal(stream if stream is not None else sys.stderr)


def _clock_text(seconds: float) -> str:
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


class Progress:
    """A progress bar for ``total`` units of work; ``update(n)`` as they are done.

    ``stream`` and ``clock`` are for tests; by default stderr and a monotonic clock. The bar
    draws only when the stream is a terminal and progress is not silenced.
    """

    def __init__(self, total: int, what: str, unit: str = "items", *,
                 stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = max(int(total), 0)
        self.what = what
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.done = 0
        self.enabled = enabled(self.stream) and self.total > 0
        self.start = clock()
        self._drawn_at: float | None = None
        self._width = 0

    def line(self) -> str:
        """The bar as it reads now: ``encoding  [#####.....]  1,200/3,162 passages
        24.0/s  1:21 left``."""
        elapsed = max(self.clock() - self.start, 1e-9)
        share = self.done / self.total if self.total else 1.0
        filled = int(BAR_WIDTH * share)
        rate = self.done / elapsed
        if self.done >= self.total:
            tail = f"done in {_clock_text(elapsed)}"
        elif self.done:
            tail = f"{_clock_text((self.total - self.done) / rate)} left"
        else:
            tail = "time left unknown"
        return (f"{self.what}  [{'#' * filled}{'.' * (BAR_WIDTH - filled)}]  "
                f"{self.done:,}/{self.total:,} {self.unit}  {rate:,.1f}/s  {tail}")

    def update(self, n: int = 1) -> None:
        self.done = min(self.done + n, self.total)
        if not self.enabled:
            return
        now = self.clock()
        if self._drawn_at is None or now - self._drawn_at >= REDRAW_SECONDS \
                or self.done >= self.total:
            self._draw()
            self._drawn_at = now

    def _draw(self) -> None:
        text = self.line()
        pad = max(self._width - len(text), 0)
        self._width = len(text)
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()

    def close(self) -> None:
        """End the line (the bar stays, reading 'done in ...')."""
        if self.enabled and self._drawn_at is not None:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()
        self.enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def track(items: Iterable[T], total: int, what: str, unit: str = "items") -> Iterator[T]:
    """``items`` as they are consumed, with a progress bar over ``total`` of them."""
    with Progress(total, what, unit) as bar:
        for item in items:
            yield item
            bar.update()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
