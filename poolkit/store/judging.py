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
from typing import Any, NamedTuple

from poolkit.errors import StoreError
from poolkit.store.store import GRADING_KINDS, Event, Store

# Kinds an assessor's own grade can come from (adjudications are a separate layer).
VOTE_KINDS = ("grade", "import")


class Mark(NamedTuple):
    """A grading event as far as standing grades need it (cheap to build by the 100,000)."""

    id: int
    kind: str
    grade: int | None


# Live grading events: those no undo names. An undo pops the event its ``ref`` names from
# that (pair, assessor) stack wherever it sits, and stacks are in id order, so "live" is
# exactly "not named by an undo of the same pair and assessor", and the standing grade is the
# live event with the highest id: the rule of ``Store.current_grades``, done inside SQLite.
_LIVE = ("kind IN ({kinds}) AND (id, qid, docid, assessor) NOT IN "
         "(SELECT ref, qid, docid, assessor FROM events WHERE kind = 'undo' AND ref IS NOT NULL)")


def _live(kinds: Iterable[str]) -> tuple[str, list[str]]:
    kinds = list(kinds)
    return _LIVE.format(kinds=", ".join("?" * len(kinds))), kinds


def assessor_stacks(store: Store, assessor: str, kinds: Iterable[str] = GRADING_KINDS,
                    ) -> dict[tuple[str, str], list[Mark]]:
    """One assessor's live grading events per (qid, docid), oldest first (non-empty only)."""
    live, args = _live(kinds)
    stacks: dict[tuple[str, str], list[Mark]] = {}
    for event_id, kind, grade, qid, docid in store.conn.execute(
            f"SELECT id, kind, grade, qid, docid FROM events WHERE assessor = ? AND {live} "
            f"ORDER BY id", (assessor, *args)):
        stacks.setdefault((qid, docid), []).append(Mark(event_id, kind, grade))
    return stacks


def standing_votes(store: Store, kinds: Iterable[str] = VOTE_KINDS,
                   max_pool_version: int | None = None,
                   ) -> dict[tuple[str, str], dict[str, Mark]]:
    """Every assessor's standing grade per pair: ``{(qid, docid): {assessor: Mark}}``.

    Same answer as ``Store.current_grades`` (a property test holds them equal) without
    replaying the log in Python; with ``max_pool_version`` only pairs pooled in that version
    or earlier.
    """
    live, args = _live(kinds)
    allowed = None
    if max_pool_version is not None:
        allowed = set(store.conn.execute("SELECT qid, docid FROM pool_members WHERE version <= ?",
                                         (max_pool_version,)).fetchall())
    out: dict[tuple[str, str], dict[str, Mark]] = {}
    for event_id, kind, grade, qid, docid, assessor in store.conn.execute(
            f"SELECT id, kind, grade, qid, docid, assessor FROM events WHERE {live} ORDER BY id",
            args):
        if allowed is None or (qid, docid) in allowed:
            out.setdefault((qid, docid), {})[assessor] = Mark(event_id, kind, grade)  # last wins
    return out


def judged_by_others(store: Store, assessor: str, kinds: Iterable[str] = VOTE_KINDS,
                     ) -> set[tuple[str, str]]:
    """Pairs on which someone other than ``assessor`` holds a standing grade."""
    live, args = _live(kinds)
    return set(store.conn.execute(
        f"SELECT DISTINCT qid, docid FROM events WHERE assessor != ? AND {live}",
        (assessor, *args)).fetchall())


def disputed(store: Store, kinds: Iterable[str] = VOTE_KINDS,
             ) -> dict[tuple[str, str], dict[str, int]]:
    """Pairs where two or more assessors' standing grades differ: ``{pair: {assessor: grade}}``
    (live rows in id order: the last one per assessor is the standing grade)."""
    live, args = _live(kinds)
    grades: dict[tuple[str, str], dict[str, int]] = {}
    for qid, docid, assessor, grade in store.conn.execute(
            f"SELECT qid, docid, assessor, grade FROM events WHERE {live} ORDER BY id", args):
        grades.setdefault((qid, docid), {})[assessor] = grade
    return {pair: by for pair, by in grades.items()
            if len(by) >= 2 and len(set(by.values())) > 1}


def check_pool_version(store: Store, version: int) -> int:
    """``version`` if the store has it, else a StoreError listing the versions it has."""
    known = [v["version"] for v in store.pool_versions()]
    if version not in known:
        have = ", ".join(map(str, known)) or "none (run `poolkit pool` first)"
        raise StoreError(f"{store.path}: no pool version {version}; the store has {have}")
    return version


def skips(store: Store, assessor: str) -> dict[tuple[str, str], int]:
    """(qid, docid) -> id of the assessor's latest skip of it."""
    return {(q, d): i for i, q, d in store.conn.execute(
        "SELECT id, qid, docid FROM events WHERE assessor = ? AND kind = 'skip' ORDER BY id",
        (assessor,))}


def recent_seconds(store: Store, assessor: str, kind: str, limit: int) -> list[float]:
    """Seconds taken (judged_at - shown_at) by the assessor's last ``limit`` events of a kind,
    oldest first."""
    rows = store.conn.execute(
        "SELECT shown_at, judged_at FROM events WHERE assessor = ? AND kind = ? "
        "ORDER BY id DESC LIMIT ?", (assessor, kind, limit)).fetchall()
    out = [_seconds(shown, judged) for shown, judged in reversed(rows)]
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
    standing = standing_votes(store, VOTE_KINDS)
    timing: dict[tuple[str, str], list[float]] = {}
    for qid, assessor, shown, judged in store.conn.execute(
            "SELECT qid, assessor, shown_at, judged_at FROM events WHERE kind = 'grade'"):
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
        cell["median_seconds"] = _median(timing.get(("", assessor), []))
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
