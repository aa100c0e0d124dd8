"""Store backends by location: the one place that maps a config's ``store:`` to a class.

A location with a URI scheme (``postgresql://...``) selects the backend registered under
that scheme; a plain path is the embedded SQLite store. Adding a backend is one module
implementing ``store.contract.StoreBackend`` and one entry in ``BACKENDS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from poolkit.errors import StoreError, one_of
from poolkit.store.contract import StoreBackend
from poolkit.store.locations import is_conninfo, redact


def _sqlite(location: str | Path, *, create: bool, read_only: bool,
            missing_hint: str) -> StoreBackend:
    from poolkit.store.store import Store

    return Store(location, create=create, read_only=read_only, missing_hint=missing_hint)


def _postgresql(location: str | Path, *, create: bool, read_only: bool,
                missing_hint: str) -> StoreBackend:
    from poolkit.store.postgres import PgStore

    return PgStore(str(location), create=create, read_only=read_only,
                   missing_hint=missing_hint)


Opener = Callable[..., StoreBackend]

#: scheme -> opener(location, *, create, read_only, missing_hint)
BACKENDS: dict[str, Opener] = {"sqlite": _sqlite, "postgresql": _postgresql,
                               "postgres": _postgresql}

_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*)://", re.IGNORECASE)


def scheme_of(location: str | Path) -> str:
    """The backend a location names: its URI scheme, ``postgresql`` for a libpq key=value
    string, or ``sqlite`` for a file path."""
    if isinstance(location, Path):
        return "sqlite"
    if is_conninfo(location):
        return "postgresql"
    match = _SCHEME.match(location)
    return match.group(1).lower() if match else "sqlite"


def open_store(location: str | Path, *, create: bool = True, read_only: bool = False,
               missing_hint: str = "") -> StoreBackend:
    """Open the store at ``location`` with the backend its scheme names."""
    scheme = scheme_of(location)
    if scheme not in BACKENDS:
        raise StoreError(f"{redact(location)}: " + one_of(scheme, BACKENDS, "store backend"))
    return BACKENDS[scheme](location, create=create, read_only=read_only,
                            missing_hint=missing_hint)
