"""status_report: judged / pooled, grade histogram, median pace and double judgments."""

from __future__ import annotations

from judge_helpers import TickClock

from poolkit.judge.session import JudgingSession
from poolkit.store import Event
from poolkit.store.judging import status_report


def test_counts_per_query_and_assessor(tiny_store):
    alice = JudgingSession(tiny_store, "alice", clock=TickClock(step=4))
    for g in (3, 0, 1):  # all of q1
        alice.grade(g)
    bob = JudgingSession(tiny_store, "bob", clock=TickClock(step=10))
    bob.grade(2)           # q1 d1: doubly judged
    bob.grade(2)
    bob.undo()             # q1 d2 undone: not judged by bob
    tiny_store.record_event(Event("q2", "d4", "nist", "import", grade=1))
    tiny_store.record_event(Event("q2", "zz", "nist", "import", grade=1))  # not pooled
    report = status_report(tiny_store)
    assert (report["pool_version"], report["pooled"], report["judged"]) == (1, 5, 4)
    assert (report["doubly_judged"], report["unpooled_labels"]) == (1, 1)
    q1 = report["queries"]["q1"]
    assert (q1["pooled"], q1["judged"], q1["doubly_judged"]) == (3, 3, 1)
    assert q1["assessors"]["alice"] == {"judged": 3, "pooled": 3, "median_seconds": 4.0,
                                        "grades": {"0": 1, "1": 1, "2": 0, "3": 1}}
    assert q1["assessors"]["bob"]["judged"] == 1
    assert q1["assessors"]["bob"]["median_seconds"] == 10.0  # undone grades still took time
    assert report["queries"]["q2"]["assessors"]["nist"]["median_seconds"] is None
    assert report["assessors"]["alice"]["pooled"] == 5
    assert list(report["assessors"]) == ["alice", "bob", "nist"]


def test_empty_store_reports_nothing_judged(tmp_path):
    from poolkit.store import Store

    with Store(tmp_path / "s.sqlite") as store:
        report = status_report(store)
    assert (report["pool_version"], report["pooled"], report["judged"]) == (None, 0, 0)
