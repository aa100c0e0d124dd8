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
from datetime import datetime
from typing import Any

from poolkit.store.store import GRADING_KINDS, Event, Store

# Kinds an assessor's own grade can come from (adjudications are a separate layer).
VOTE_KINDS = ("grade", "import")


def standing_stacks(events: Iterable[Event], kinds: Iterable[str] = GRADING_KINDS,
                    ) -> dict[tuple[str, str, str], list[Event]]:
    """Replay events (in id order) into live grading stacks per (qid, docid, assessor).

    Same rule as ``Store.current_grades``: a grading event pushes, an ``undo`` pops the event
    its ``ref`` names. Lets a caller replay a subset (one assessor) without reading the log.
    """
    kinds = set(kinds)
    stacks: dict[tuple[str, str, str], list[Event]] = {}
    for e in events:
        if e.kind not in kinds and e.kind != "undo":
            continue
        stack = stacks.setdefault((e.qid, e.docid, e.assessor), [])
        if e.kind == "undo":
            for i in range(len(stack) - 1, -1, -1):
                if stack[i].id == e.ref:
                    del stack[i]
                    break
        else:
            stack.append(e)
    return stacks


def seconds_taken(event: Event) -> float | None:
    """judged_at - shown_at in seconds, or None when either is missing or unreadable."""
    if not event.shown_at or not event.judged_at:
        return None
    try:
        delta = datetime.fromisoformat(event.judged_at) - datetime.fromisoformat(event.shown_at)
    except ValueError:
        return None
    seconds = delta.total_seconds()
    return seconds if seconds >= 0 else None


def median_seconds(events: Iterable[Event]) -> float | None:
    values = [s for s in map(seconds_taken, events) if s is not None]
    return statistics.median(values) if values else None


def status_report(store: Store, pool_version: int | None = None) -> dict[str, Any]:
    """Per query and per assessor: judged / pooled, grade histogram, median seconds, doubles.

    ``judged`` counts pooled pairs holding a standing grade (grade or import events, after
    undo); labels for pairs outside the pool are counted apart as ``unpooled_labels``.
    ``median_seconds`` is over the assessor's ``grade`` events (judged_at - shown_at).
    ``doubly_judged`` counts pooled pairs with standing grades from two or more assessors.
    """
    version = pool_version if pool_version is not None else store.latest_pool_version()
    members = store.pool(max_version=version) if version is not None else []
    pooled: dict[str, set[str]] = {}
    for m in members:
        pooled.setdefault(m.qid, set()).add(m.docid)
    standing = store.current_grades(kinds=VOTE_KINDS)
    grade_events = store.events(kinds=["grade"])
    timing: dict[tuple[str, str], list[Event]] = {}
    for e in grade_events:
        timing.setdefault((e.qid, e.assessor), []).append(e)
        timing.setdefault(("", e.assessor), []).append(e)

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
        for assessor, event in by_assessor.items():
            cell = row["assessors"].setdefault(assessor, blank(row["pooled"]))
            total = overall.setdefault(assessor, blank(len(members)))
            for c in (cell, total):
                c["judged"] += 1
                c["grades"][event.grade] += 1
    for qid, row in queries.items():
        for assessor, cell in row["assessors"].items():
            cell["median_seconds"] = median_seconds(timing.get((qid, assessor), ()))
    for assessor, cell in overall.items():
        cell["median_seconds"] = median_seconds(timing.get(("", assessor), ()))
    for cell in [*overall.values(), *(c for r in queries.values()
                                     for c in r["assessors"].values())]:
        cell["grades"] = _histogram(cell["grades"])
    return {
        "store": str(store.path),
        "pool_version": version,
        "pooled": len(members),
        "judged": sum(r["judged"] for r in queries.values()),
        "doubly_judged": sum(r["doubly_judged"] for r in queries.values()),
        "unpooled_labels": unpooled,
        "assessors": dict(sorted(overall.items())),
        "queries": {q: {**r, "assessors": dict(sorted(r["assessors"].items()))}
                    for q, r in queries.items()},
    }


def _histogram(counts: Mapping[int | None, int]) -> dict[str, int]:
    """Grade histogram with 0-3 always present (string keys: JSON-ready), others appended."""
    out = {str(g): int(counts.get(g, 0)) for g in range(4)}
    for g in sorted(k for k in counts if k is not None and k not in range(4)):
        out[str(g)] = int(counts[g])
    return out
