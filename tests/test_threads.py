"""``ordered_map`` and ``ordered_imap``: a loop's results, order and first error, on threads."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.threads import (
    DEFAULT_MAX_JOBS,
    default_jobs,
    ordered_imap,
    ordered_map,
    usable_cpus,
)


@settings(max_examples=60, deadline=None)
@given(items=st.lists(st.integers(-5, 5), max_size=12), jobs=st.integers(1, 6),
       ahead=st.none() | st.integers(1, 4))
def test_results_and_the_first_error_are_the_loops(items: list[int], jobs: int,
                                                   ahead: int | None) -> None:
    def fn(x: int) -> int:
        if x < -3:
            raise ValueError(f"bad {x}")
        return x * x

    def loop() -> tuple[str, object]:
        out = []
        try:
            for x in items:
                out.append(fn(x))
        except ValueError as exc:
            return "error", str(exc)
        return "ok", out

    calls: list[int] = []
    try:
        got: tuple[str, object] = "ok", ordered_map(fn, items, jobs, lambda: calls.append(1))
    except ValueError as exc:
        got = "error", str(exc)
    assert got == loop()
    if got[0] == "ok":
        assert len(calls) == len(items)
    lazily: list[int] = []
    try:
        for value in ordered_imap(fn, iter(items), jobs, ahead):
            lazily.append(value)
        got = "ok", lazily
    except ValueError as exc:
        got = "error", str(exc)
    assert got == loop()


@pytest.mark.parametrize("jobs, ahead", [(1, None), (2, 1), (2, 3), (4, 2)])
def test_items_are_drawn_on_the_callers_thread_at_most_ahead_of_the_results(
        jobs: int, ahead: int | None) -> None:
    """A generator reading a file is read in order on the caller's thread, and no more than
    ``ahead`` items (blocks of it) are held beyond the result last taken."""
    drawn: list[int] = []
    caller = threading.get_ident()

    def source():  # type: ignore[no-untyped-def]
        for i in range(20):
            assert threading.get_ident() == caller
            drawn.append(i)
            yield i

    taken = 0
    for value in ordered_imap(lambda x: -x, source(), jobs, ahead):
        assert value == -taken
        if ahead is not None:  # this item, and at most ahead - 1 more, drawn and not taken
            assert len(drawn) - taken <= ahead
        taken += 1
    assert (taken, drawn) == (20, list(range(20)))


def test_closing_early_starts_nothing_more() -> None:
    """The caller stops after the first result (a block that is not plain): the source is
    not read further, and items drawn but not yet started are never started."""
    drawn: list[int] = []
    started: list[int] = []
    busy = threading.Barrier(3, timeout=10)  # items 1 and 2 hold both workers, and the test
    release = threading.Event()

    def source():  # type: ignore[no-untyped-def]
        for i in range(1000):
            drawn.append(i)
            yield i

    def fn(x: int) -> int:
        started.append(x)
        if x in (1, 2):
            busy.wait()
            assert release.wait(10)
        return x

    before = set(threading.enumerate())
    results = ordered_imap(fn, source(), 2, ahead=4)
    assert next(results) == 0
    busy.wait()  # both workers are inside items 1 and 2; item 3 waits in the queue
    results.close()
    release.set()
    for worker in set(threading.enumerate()) - before:
        worker.join(10)
    assert drawn == [0, 1, 2, 3] and sorted(started) == [0, 1, 2]


def test_a_later_item_failing_first_does_not_hide_an_earlier_error() -> None:
    """Item 0 fails only after item 1 has failed: the error raised is item 0's."""
    first_failed = threading.Event()

    def fn(x: int) -> int:
        if x == 1:
            first_failed.set()
            raise ValueError("second")
        assert first_failed.wait(10)
        raise ValueError("first")

    with pytest.raises(ValueError, match="first"):
        ordered_map(fn, [0, 1], 2)


def test_items_not_started_are_not_started_after_an_error() -> None:
    started: list[int] = []
    release = threading.Event()

    def fn(x: int) -> int:
        started.append(x)
        if x == 0:
            raise ValueError("stop")
        assert release.wait(10)
        return x

    with pytest.raises(ValueError):
        try:
            ordered_map(fn, list(range(50)), 2)
        finally:
            release.set()
    assert len(started) < 50


def test_work_runs_on_several_threads_when_asked() -> None:
    both = threading.Barrier(2, timeout=10)  # each item waits for the other: needs 2 threads

    def fn(x: int) -> int:
        both.wait()
        return x

    assert ordered_map(fn, [1, 2], 2) == [1, 2]


def test_default_jobs() -> None:
    assert default_jobs(1) == 1
    assert default_jobs(0) == 1
    assert default_jobs(100) == min(usable_cpus(), DEFAULT_MAX_JOBS)
    assert 1 <= usable_cpus()


def test_an_interrupt_does_not_wait_for_the_items_in_progress() -> None:
    """Ctrl-C while a long item runs: ``ordered_map`` raises at once (the loop would too),
    it does not join the worker still busy (a 10M-line run takes seconds)."""
    release, finished = threading.Event(), threading.Event()

    def fn(x: int) -> int:
        if x == 1:
            release.wait(60)
            finished.set()
        return x

    def interrupt() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ordered_map(fn, [0, 1], 2, interrupt)
    assert not finished.is_set()  # item 1 was still running when the interrupt came through
    release.set()
