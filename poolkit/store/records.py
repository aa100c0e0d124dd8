"""The store's records: what the store contract speaks in, whichever backend keeps them.

``store.contract`` and every backend import these; nothing here knows SQL. One timestamp
function (``stamp``) makes every time the store keeps, so all of them sort as text.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from poolkit.errors import StoreError
from poolkit.io.corpus import QueryRecord
from poolkit.io.scale import DEFAULT_SCALE, GradeScale

#: Kinds of event that carry a grade (``store.schema`` states the same rule in the schema).
GRADING_KINDS = ("grade", "adjudicate", "import")
#: A person's answer on a gold pair (``poolkit gold``): it carries a grade on the scale, yet
#: it is never a label, so it is not a grading kind; only the gold figures read it.
GOLD = "gold"

#: Who made an event: a person at the judging screen (or an import, a lead's), or a machine
#: judge (``poolkit.judges``), whose events no reader of people's labels sees.
PERSON, MACHINE = "person", "machine"
ORIGINS = (PERSON, MACHINE)


def stamp(moment: datetime | None = None) -> str:
    """The store's one timestamp format: UTC, ISO 8601, microseconds (sorts as text).

    ``moment`` defaults to now; a naive one is taken as UTC. Every time the store keeps
    (events, pool versions, systems, claims, terms, passages shown) is made here.
    """
    if moment is None:
        moment = datetime.now(timezone.utc)
    elif moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def now() -> str:
    """``stamp()`` of this moment."""
    return stamp()


def moment_of(text: str | None) -> datetime | None:
    """A stored time read back as an aware datetime (a naive one is UTC, as ``stamp`` takes
    it); None for a missing or unreadable one."""
    try:
        moment = datetime.fromisoformat(text or "")
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def text_hash(title: str, body: str) -> str:
    """The content address of a pooled passage's text (``texts.hash``)."""
    return hashlib.sha256(json.dumps([title, body], ensure_ascii=False).encode()).hexdigest()


@dataclass(frozen=True)
class Source:
    """One system's reason for pooling a doc: it ranked it ``rank`` with ``score``."""

    system: str
    rank: int
    score: float | None
    version: int


@dataclass(frozen=True)
class PoolMember:
    qid: str
    docid: str
    version: int
    text_hash: str
    order_key: float


@dataclass(frozen=True)
class NewMember:
    """A doc to add to a query's pool: its text and judging-order key."""

    qid: str
    docid: str
    title: str
    body: str
    order_key: float


@dataclass(frozen=True)
class Event:
    """One row of the judgment log.

    ``source`` names where an imported label came from (its file); ``origin`` says who made
    the event: ``person`` (the default) or ``machine``, a machine judge whose name is the
    ``assessor`` and whose version is ``judge_version``.
    """

    qid: str
    docid: str
    assessor: str
    kind: str
    grade: int | None = None
    shown_at: str | None = None
    judged_at: str = field(default_factory=now)
    text_hash: str | None = None
    pool_version: int | None = None
    position: int | None = None
    note: str | None = None
    ref: int | None = None
    source: str | None = None
    id: int | None = None
    origin: str = PERSON
    judge_version: str | None = None


#: The events table's columns as the store writes them (``id`` is the store's own).
EVENT_COLUMNS = ("qid", "docid", "assessor", "kind", "grade", "shown_at", "judged_at",
                 "text_hash", "pool_version", "position", "note", "ref", "source", "origin",
                 "judge_version")


def event_row(event: Event, scale: GradeScale = DEFAULT_SCALE) -> tuple[Any, ...]:
    """``event``'s values in ``EVENT_COLUMNS`` order, checked: a grading event's grade is on
    the store's ``scale``, a person's event names no judge version."""
    graded = event.kind in GRADING_KINDS or event.kind == GOLD
    if graded and event.grade is None:
        raise StoreError(f"a {event.kind!r} event needs a grade")
    if graded and event.grade not in scale.grades:
        # The store's scale (io.scale): what export writes, import and status read back.
        raise StoreError(f"a {event.kind!r} event's grade {event.grade!r} is off the scale "
                         f"{scale.span} (query {event.qid!r} doc {event.docid!r})")
    if event.origin not in ORIGINS:
        raise StoreError(f"an event's origin is {' or '.join(ORIGINS)}, not {event.origin!r}")
    if event.origin == PERSON and event.judge_version is not None:
        raise StoreError("a person's event has no judge version")
    return tuple(getattr(event, col) for col in EVENT_COLUMNS)


def system_record(row: tuple[Any, ...]) -> dict[str, Any]:
    """A system's (kind, grp, settings, run_sha256, run_path) row as the API's dict."""
    kind, group, settings, run_sha256, run_path = row
    return {"kind": kind, "group": group, "settings": json.loads(settings),
            "run_sha256": run_sha256, "run_path": run_path}


__all__ = ["EVENT_COLUMNS", "GOLD", "GRADING_KINDS", "MACHINE", "ORIGINS", "PERSON", "Event",
           "NewMember", "PoolMember", "QueryRecord", "Source", "event_row",
           "now", "stamp", "system_record", "text_hash"]
