"""Copy a judging store to another backend (SQLite <-> PostgreSQL), losslessly, and prove it.

Every data table is copied row for row in insertion order (so queries keep their order and
events their ids), into a destination that holds no data yet. Both stores are then read back
into a content hash — per table, its rows in a canonical order, values as JSON (floats in their
shortest round-trip form) — and the copy stands only if the hashes agree. ``meta`` (schema
version, creation time, backend) describes a store, not its data, and is not copied.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from poolkit.errors import StoreError
from poolkit.store.contract import StoreBackend

#: Tables in an order that respects their foreign keys; tables a later schema adds follow.
FIRST = ("texts", "queries", "systems", "pool_versions", "pool_members", "pool_sources",
         "pool_version_systems", "events")
#: ``meta`` describes a store; PostgreSQL's ``write_lock`` holds no rows, only its lock.
NOT_DATA = {"meta", "write_lock"}


@dataclass
class CopyReport:
    counts: dict[str, int] = field(default_factory=dict)
    source_hash: str = ""
    copy_hash: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"counts": self.counts, "hash": self.source_hash,
                "identical": self.source_hash == self.copy_hash}


def data_tables(store: StoreBackend) -> list[str]:
    tables = [t for t in store.tables() if t not in NOT_DATA]
    return [t for t in FIRST if t in tables] + sorted(t for t in tables if t not in FIRST)


def content_hash(store: StoreBackend) -> tuple[str, dict[str, int]]:
    """(sha256 of every data table's rows, rows per table)."""
    digest = hashlib.sha256()
    counts: dict[str, int] = {}
    for table in sorted(data_tables(store)):
        columns = sorted(store.columns(table))
        rows = sorted(json.dumps(list(r), ensure_ascii=False)
                      for r in store.table_rows(table, columns))
        counts[table] = len(rows)
        digest.update(json.dumps([table, columns]).encode())
        for row in rows:
            digest.update(row.encode() + b"\n")
    return digest.hexdigest(), counts


def copy_store(source: StoreBackend, destination: StoreBackend) -> CopyReport:
    """Copy every data row of ``source`` into the empty ``destination``; check by hash."""
    if source.schema_version != destination.schema_version:
        raise StoreError(f"{destination.path}: schema version {destination.schema_version}, "
                         f"the source has {source.schema_version}")
    missing = [t for t in data_tables(source) if t not in destination.tables()]
    if missing:
        raise StoreError(f"{destination.path}: has no table {', '.join(missing)}")
    with destination.transaction():  # empty, decided under the lock the copy is made in
        filled = [t for t in data_tables(destination) if destination.count_rows(t)]
        if filled:
            raise StoreError(f"{destination.path}: is not empty ({', '.join(filled)} hold "
                             f"rows); copy into a new store")
        for table in data_tables(source):
            columns = source.columns(table)
            destination.insert_rows(table, columns, source.table_rows(table, columns))
    destination.after_copy()
    report = CopyReport()
    report.source_hash, report.counts = content_hash(source)
    report.copy_hash, copied = content_hash(destination)
    if report.copy_hash != report.source_hash or copied != report.counts:
        raise StoreError(f"{destination.path}: the copy differs from the source "
                         f"(hash {report.copy_hash[:12]} vs {report.source_hash[:12]})")
    return report
