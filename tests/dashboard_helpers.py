"""A judged team on the sample, with known times, for the dashboard's tests (tests/app,
tests/judge, tests/cli): alice lenient and slowing, bob harsh with one long pause, carol a
few grades. Every time is fixed and ``NOW`` is the clock the tests inject."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from pool_helpers import two_run_config

from poolkit.cli import main
from poolkit.store import Event
from poolkit.store.backends import open_store
from poolkit.store.records import stamp

#: the injected clock: noon on the second judging day (UTC)
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
DAY1 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
DAY2 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def team_config(directory: Path, store: str | Path) -> Path:
    """The sample's two-run config (40 pooled pairs), pooled into ``store``."""
    config = two_run_config(directory, store, judge="{min_display: 0, topic_card: false}")
    assert main(["pool", str(config), "--quiet"]) == 0
    return config


def grade(store: object, pair: tuple[str, str], who: str, value: int, shown: datetime,
          seconds: float) -> None:
    """``who`` grades ``pair`` ``value`` after ``seconds`` on screen from ``shown``."""
    store.record_event(Event(*pair, who, "grade", grade=value,  # type: ignore[attr-defined]
                             shown_at=stamp(shown),
                             judged_at=stamp(shown + timedelta(seconds=seconds))))


def judge_team(store_location: str | Path) -> list[tuple[str, str]]:
    """alice and bob grade the first 24 pairs (12 on each day), carol 3 of them; returns the
    pool's pairs in order.

    alice: grade 3 (2 on every fourth), 10 + i seconds on the i-th pair (slowing), last grade
    at 09:23:33 on day 2. bob: 0 (1 on every third), 20 s each but 400 s on his last pair
    (100 s away). carol: 2, 1, 0, 30 s each, on day 1.
    """
    with open_store(store_location) as s:
        pairs = sorted((m.qid, m.docid) for m in s.pool())
        for i, pair in enumerate(pairs[:24]):
            start = (DAY1 if i < 12 else DAY2) + timedelta(minutes=i)
            grade(s, pair, "alice", 2 if i % 4 == 0 else 3, start, 10 + i)
            grade(s, pair, "bob", 1 if i % 3 == 0 else 0, start, 400 if i == 23 else 20)
        for i, pair in enumerate(pairs[:3]):
            grade(s, pair, "carol", 2 - i, DAY1 + timedelta(hours=1, minutes=i), 30)
    return pairs
