"""Read-side helpers over the judgment log for judging and its reports.

``Store.current_grades`` replays the whole log; the judging UI needs one assessor's view
(standing grades, skips, pace) fast on stores with many events, and ``poolkit status``
needs per-query and per-assessor counts. Both live here so ``store.py`` stays the schema's
single writer.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from poolkit.reports import Report
from poolkit.store.contract import StoreBackend
from poolkit.store.records import GRADING_KINDS, Event

# Kinds an assessor's own grade can come from (adjudications are a separate layer).
VOTE_KINDS = ("grade", "import")


class Mark(NamedTuple):
    """A grading event as far as standing grades need it (cheap to build by the 100,000)."""

    id: int
    kind: str
    grade: int | None


def assessor_stacks(store: StoreBackend, assessor: str, kinds: Iterable[str] = GRADING_KINDS,
                    ) -> dict[tuple[str, str], list[Mark]]:
    """One assessor's live grading events per (qid, docid), oldest first (non-empty only)."""
    stacks: dict[tuple[str, str], list[Mark]] = {}
    for event_id, kind, grade, qid, docid, _ in store.live_marks(kinds, assessor=assessor):
        stacks.setdefault((qid, docid), []).append(Mark(event_id, kind, grade))
    return stacks


def standing_votes(store: StoreBackend, kinds: Iterable[str] = VOTE_KINDS,
                   max_pool_version: int | None = None, machine: str | None = None,
                   ) -> dict[tuple[str, str], dict[str, Mark]]:
    """Every assessor's standing grade per pair: ``{(qid, docid): {assessor: Mark}}``.

    Same answer as ``Store.current_grades`` (a property test holds them equal) without
    replaying the log in Python; with ``max_pool_version`` only pairs pooled in that version
    or earlier. People's grades, or with ``machine`` that machine judge's.
    """
    allowed = None if max_pool_version is None else store.pooled_pairs(max_pool_version)
    out: dict[tuple[str, str], dict[str, Mark]] = {}
    for event_id, kind, grade, qid, docid, assessor in store.live_marks(kinds,
                                                                        machine=machine):
        if allowed is None or (qid, docid) in allowed:
            out.setdefault((qid, docid), {})[assessor] = Mark(event_id, kind, grade)  # last wins
    return out


def judged_by_others(store: StoreBackend, assessor: str, kinds: Iterable[str] = VOTE_KINDS,
                     ) -> set[tuple[str, str]]:
    """Pairs on which someone other than ``assessor`` holds a standing grade."""
    return {(q, d) for _, _, _, q, d, _ in store.live_marks(kinds, not_assessor=assessor)}


def disputed(store: StoreBackend, kinds: Iterable[str] = VOTE_KINDS,
             ) -> dict[tuple[str, str], dict[str, int]]:
    """Pairs where two or more assessors' standing grades differ: ``{pair: {assessor: grade}}``
    (live rows in id order: the last one per assessor is the standing grade)."""
    grades: dict[tuple[str, str], dict[str, int]] = {}
    for _, _, grade, qid, docid, assessor in store.live_marks(kinds):
        if grade is not None:
            grades.setdefault((qid, docid), {})[assessor] = grade
    return {pair: by for pair, by in grades.items()
            if len(by) >= 2 and len(set(by.values())) > 1}


def check_pool_version(store: StoreBackend, version: int) -> int:
    """``version`` if the store has it, else a StoreError listing the versions it has
    (``Store.resolve_pool_version``, kept under its old name)."""
    return store.resolve_pool_version(version)


def skips(store: StoreBackend, assessor: str) -> dict[tuple[str, str], int]:
    """(qid, docid) -> id of the assessor's latest skip of it."""
    return store.latest_skips(assessor)


def recent_seconds(store: StoreBackend, assessor: str, kind: str, limit: int) -> list[float]:
    """Seconds taken (judged_at - shown_at) by the assessor's last ``limit`` events of a kind,
    oldest first."""
    out = [_seconds(shown, judged)
           for _, _, shown, judged in store.timings(kind, assessor, limit)]
    return [s for s in out if s is not None]


def seconds_taken(event: Event) -> float | None:
    """judged_at - shown_at in seconds, or None when either is missing or unreadable."""
    return _seconds(event.shown_at, event.judged_at)


def _seconds(shown_at: str | None, judged_at: str | None) -> float | None:
    if not shown_at or not judged_at:
        return None
    try:
        delta = datetime.fromisoformat(judged_at) - datetime.fromisoformat(shown_at)
    except ValueError:
        return None
    seconds = delta.total_seconds()
    return seconds if seconds >= 0 else None


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


FAST_MEDIAN = 1.0  # seconds: an assessor whose median judgment takes less is flagged


@dataclass(frozen=True)
class StatusCounts(Report):
    """Judged / pooled per query and per assessor (see status_report): what ``poolkit
    status`` reports (``poolkit.app.status`` adds the judging plan's progress)."""

    store: str
    pool_version: int | None
    pooled: int
    judged: int
    doubly_judged: int
    unpooled_labels: int
    min_display: float
    assessors: dict[str, dict[str, Any]]
    queries: dict[str, dict[str, Any]]


def status_report(store: StoreBackend, pool_version: int | None = None,
                  min_display: float = 0.0, top: int | None = None) -> StatusCounts:
    """Per query and per assessor: judged / pooled, grade histogram (over 0..``top``, the
    collection's scale; None: the store's), median seconds, doubles.

    ``judged`` counts pooled pairs holding a standing grade (grade or import events, after
    undo); labels for pairs outside the pool are counted apart as ``unpooled_labels``.
    ``median_seconds`` is over the assessor's ``grade`` events (judged_at - shown_at).
    ``doubly_judged`` counts pooled pairs with standing grades from two or more assessors.
    Per assessor overall: ``fast`` when their median is under ``FAST_MEDIAN`` seconds, and
    ``under_min_display``, their grade events made less than ``min_display`` seconds after
    the passage appeared (faster than anyone reads; recorded before the guard existed, or
    with it off).
    """
    version = (store.resolve_pool_version(pool_version)
               if pool_version is not None or store.latest_pool_version() is not None else None)
    members = store.pool(max_version=version) if version is not None else []
    pooled: dict[str, set[str]] = {}
    for m in members:
        pooled.setdefault(m.qid, set()).add(m.docid)
    standing = standing_votes(store, VOTE_KINDS)
    timing: dict[tuple[str, str], list[float]] = {}
    for qid, assessor, shown, judged in store.timings("grade"):
        seconds = _seconds(shown, judged)
        if seconds is not None:
            timing.setdefault((qid, assessor), []).append(seconds)
            timing.setdefault(("", assessor), []).append(seconds)

    def blank(n_pooled: int) -> dict[str, Any]:
        return {"judged": 0, "pooled": n_pooled, "grades": Counter(), "median_seconds": None}

    queries: dict[str, dict[str, Any]] = {
        q: {"pooled": len(docs), "judged": 0, "doubly_judged": 0, "assessors": {}}
        for q, docs in pooled.items()}
    overall: dict[str, dict[str, Any]] = {}
    unpooled = 0
    for (qid, docid), by_assessor in standing.items():
        if docid not in pooled.get(qid, ()):
            unpooled += len(by_assessor)
            continue
        row = queries[qid]
        row["judged"] += 1
        if len(by_assessor) >= 2:
            row["doubly_judged"] += 1
        for assessor, mark in by_assessor.items():
            cell = row["assessors"].setdefault(assessor, blank(row["pooled"]))
            total = overall.setdefault(assessor, blank(len(members)))
            for c in (cell, total):
                c["judged"] += 1
                c["grades"][mark.grade] += 1
    for qid, row in queries.items():
        for assessor, cell in row["assessors"].items():
            cell["median_seconds"] = _median(timing.get((qid, assessor), []))
    for assessor, cell in overall.items():
        taken = timing.get(("", assessor), [])
        cell["median_seconds"] = _median(taken)
        cell["fast"] = cell["median_seconds"] is not None and cell["median_seconds"] < FAST_MEDIAN
        cell["under_min_display"] = sum(1 for x in taken if x < min_display)
    for cell in [*overall.values(), *(c for r in queries.values()
                                     for c in r["assessors"].values())]:
        cell["grades"] = _histogram(cell["grades"], store.grade_scale.top if top is None else top)
    return StatusCounts(
        store=str(store.path),
        pool_version=version,
        pooled=len(members),
        judged=sum(r["judged"] for r in queries.values()),
        doubly_judged=sum(r["doubly_judged"] for r in queries.values()),
        unpooled_labels=unpooled,
        min_display=min_display,
        assessors=dict(sorted(overall.items())),
        queries={q: {**r, "assessors": dict(sorted(r["assessors"].items()))}
                 for q, r in queries.items()},
    )


def _histogram(counts: Mapping[int | None, int], top: int = 3) -> dict[str, int]:
    """Grade histogram with the store's scale 0..``top`` always present (string keys:
    JSON-ready), others appended."""
    out = {str(g): int(counts.get(g, 0)) for g in range(top + 1)}
    for g in sorted(k for k in counts if k is not None and k > top):
        out[str(g)] = int(counts[g])
    return out
