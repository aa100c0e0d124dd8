"""The judging store (SQLite, WAL, append-only judgment log). See ``store.Store``."""

from poolkit.store.store import (
    GRADING_KINDS,
    Event,
    NewMember,
    PoolMember,
    QueryRecord,
    Source,
    Store,
    now,
    text_hash,
)

__all__ = ["GRADING_KINDS", "Event", "NewMember", "PoolMember", "QueryRecord", "Source",
           "Store", "now", "text_hash"]
