"""The judging store: one contract (``store.contract``), its records (``store.records``), two
backends (SQLite ``store.store.Store``, PostgreSQL ``store.postgres.PgStore``)."""

from poolkit.store.records import (
    GRADING_KINDS,
    Event,
    NewMember,
    PoolMember,
    QueryRecord,
    Source,
    moment_of,
    now,
    stamp,
    text_hash,
)
from poolkit.store.store import Store

__all__ = ["GRADING_KINDS", "Event", "NewMember", "PoolMember", "QueryRecord", "Source",
           "Store", "moment_of", "now", "stamp", "text_hash"]
