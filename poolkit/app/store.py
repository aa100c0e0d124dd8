"""``store init`` and ``store copy``: set up a judging store, or copy one to another backend.

A store is named by a config (its ``store:``), a SQLite file, a ``postgresql://`` URL or a
libpq ``host=H ...`` string (:func:`location`). ``init_store`` creates (or migrates) the
schema and, on PostgreSQL, the roles and grants, and says what a lead runs next;
``copy_store`` copies every row into an empty store of any backend and proves the copy by
row counts and a content hash (``store.copy``).

Light at import: the command line's parser takes ``StoreCopyReport.formats`` from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poolkit import interrupt
from poolkit.reports import Report, register_report


def location(arg: str) -> str | Path:
    """A store location as a user names it: a config's ``store:``, a URL or a file."""
    from poolkit.config import load_config
    from poolkit.errors import StoreError
    from poolkit.store.backends import scheme_of
    from poolkit.store.locations import LocationError, database_location, redact

    if scheme_of(arg) != "sqlite":
        try:
            return database_location(arg) or arg
        except LocationError as exc:
            raise StoreError(f"{redact(arg)}: {exc.reason}") from None
    path = Path(arg)
    if path.suffix.lower() in (".yaml", ".yml"):
        return load_config(path).store
    from poolkit.io.links import resolve_output

    resolve_output(path)  # a store file is written: never through another user's /tmp link
    return path


@dataclass(frozen=True)
class StoreInit:
    """What ``store init`` did: the store and its schema version; on PostgreSQL, the grants
    made and the statements a lead runs next (one login role per assessor)."""

    store: str
    schema_version: int
    granted: list[str] = field(default_factory=list)
    next_sql: str | None = None  # None: a SQLite file (it knows no users)

    def render_table(self) -> str:
        lines = [f"store {self.store}: schema version {self.schema_version}"]
        if self.next_sql is not None:
            lines += self.granted
            lines.append("next, as this role, one per assessor (the role name is the "
                         "assessor name):")
            lines.append(self.next_sql)
        return "\n".join(lines) + "\n"


def init_store(target: str) -> StoreInit:
    """Create (or migrate) the store ``target`` names; on PostgreSQL, as the team lead, also
    the groups poolkit_admin and poolkit_assessor and the judgment log's row-level security."""
    from poolkit.store.backends import open_store
    from poolkit.store.locations import database_name
    from poolkit.store.postgres import PgStore, grant_roles, init_sql

    with open_store(location(target), create=True) as store:
        if not isinstance(store, PgStore):
            return StoreInit(str(store.path), store.schema_version)
        granted = grant_roles(store)  # a role that may not grant gets only the error
        return StoreInit(str(store.path), store.schema_version, list(granted),
                         init_sql(database_name(store.url)))


@register_report
@dataclass(frozen=True)
class StoreCopyReport(Report):
    """``poolkit store copy``: rows copied per table and the content hash both stores have."""

    kind = "store-copy"

    command: str
    source: str
    destination: str
    counts: dict[str, int]
    hash: str
    identical: bool

    def render_table(self) -> str:
        width = max(map(len, self.counts))
        lines = [f"copied {self.source} -> {self.destination}"]
        lines += [f"  {table.ljust(width)}  {n:>9,}" for table, n in self.counts.items()]
        lines.append(f"content sha256 {self.hash} (source and copy identical)")
        return "\n".join(lines) + "\n"


def copy_store(source_arg: str, destination_arg: str) -> StoreCopyReport:
    """Copy every row of the store ``source_arg`` names into the empty (or new) one
    ``destination_arg`` names; a new SQLite file appears only once the copy is verified."""
    from poolkit.errors import StoreError
    from poolkit.store.backends import open_store
    from poolkit.store.copy import copy_store as copy_rows
    from poolkit.store.copy import copy_to_new_file
    from poolkit.store.locations import redact

    src, dst = location(source_arg), location(destination_arg)
    if str(src) == str(dst):
        raise StoreError(f"{redact(dst)}: source and destination are the same store")
    with open_store(src, create=False, read_only=True,
                    missing_hint="nothing to copy") as source:
        if isinstance(dst, Path):  # built beside, linked into place once verified
            copied = copy_to_new_file(source, dst)
            label: Any = dst
        else:
            with open_store(dst, create=True) as destination:
                copied = copy_rows(source, destination)
                label = destination.path
    interrupt.done("the copy made and verified")
    return StoreCopyReport(command="store copy", source=str(source.path),
                           destination=str(label), **copied.to_dict())
