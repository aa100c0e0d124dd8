"""Copy a judging store to another backend (SQLite <-> PostgreSQL), losslessly, and prove it.

Every data table is copied row for row in insertion order (so queries keep their order and
events their ids), into a destination that holds no data yet. Both stores are then read back
into a content hash — per table, its rows in a canonical order, values as JSON (floats in their
shortest round-trip form) — and the copy stands only if the hashes agree. ``meta`` (schema
version, creation time, backend) describes a store, not its data, and is not copied, but for
the grade scale the store recorded (``meta.grades``), which its grades are on.

A copy into a new SQLite file is built beside it and linked into place only once verified
(``store.new_file``), so a copy that fails or is killed never leaves a destination behind (a
re-run is not refused "already exists").
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poolkit.errors import StoreError
from poolkit.store.contract import StoreBackend

#: Tables in an order that respects their foreign keys; tables a later schema adds follow.
FIRST = ("texts", "queries", "systems", "pool_versions", "pool_members", "pool_sources",
         "pool_version_systems", "events", "assignment_plans", "gold_sets", "judge_checks")
#: ``meta`` describes a store; PostgreSQL's ``write_lock`` holds no rows, only its lock; the
#: key ``poolkit serve`` signs cookies with is each store's own (a copy makes its own).
NOT_DATA = {"meta", "write_lock", "server_secrets"}
#: Columns a later schema added, with their default: a column holding its default in every
#: row is left out of the content hash, so upgrading a store does not change its hash (a
#: store with no machine judge's events hashes as it did at schema 6, on either backend).
ADDED_WITH_DEFAULT = {"events": {"origin": "person", "judge_version": None}}
#: Tables a later schema added (schema 8: the human query sample): left out of the content
#: hash while they hold no row, for the same reason (schema 9: assignments; 11: gold; 13:
#: accounts, which a copy takes along: its people log in to the copy as before; 14: judge
#: checks).
ADDED_TABLES = {"query_draws", "query_sample", "assignment_plans", "assignments",
                "assigned_pairs", "gold_sets", "gold_pairs", "accounts", "invites",
                "judge_checks", "canaries"}


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
        values = store.table_rows(table, columns)
        if table in ADDED_TABLES and not values:
            continue
        for column, default in ADDED_WITH_DEFAULT.get(table, {}).items():
            if column in columns and all(r[columns.index(column)] == default for r in values):
                i = columns.index(column)
                columns = columns[:i] + columns[i + 1:]
                values = [r[:i] + r[i + 1:] for r in values]
        rows = sorted(json.dumps(list(r), ensure_ascii=False) for r in values)
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
        scale = source.recorded_scale()
        if scale is not None:
            destination.record_scale(scale)
    destination.after_copy()
    report = CopyReport()
    report.source_hash, report.counts = content_hash(source)
    report.copy_hash, copied = content_hash(destination)
    if report.copy_hash != report.source_hash or copied != report.counts:
        raise StoreError(f"{destination.path}: the copy differs from the source "
                         f"(hash {report.copy_hash[:12]} vs {report.source_hash[:12]})")
    return report


def copy_to_new_file(source: StoreBackend, destination: Path) -> CopyReport:
    """Copy ``source`` into a new SQLite store at ``destination``, which appears only when
    the copy is verified; refused if the file exists (before or by the end of the copy)."""
    from poolkit.store.backends import open_store
    from poolkit.store.new_file import built_beside

    if destination.exists():
        raise StoreError(f"{destination}: already exists; copy into a new file")
    with built_beside(destination, "copy into a new file") as building:
        with open_store(building, create=True) as store:
            return copy_store(source, store)
