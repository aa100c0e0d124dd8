"""SQLite's failures said as a user can act on them, with the store's path.

SQLite words every failure from its own point of view ("attempt to write a readonly
database", "disk I/O error"); these messages say what happened to the user's file instead.
``describe`` is keyed by SQLite's error name (a registry, not a chain of ifs).
"""

from __future__ import annotations

from pathlib import Path

from poolkit.errors import (
    StoreError,
    StoreUnavailable,
    files_exhausted,
    out_of_memory,
    too_many_open_files,
)

_READ_ONLY = ("read-only: cannot write to it (check the file's and its folder's permissions, "
              "or the mount); read-only commands such as status and export still work")
_FULL = "the disk is full: nothing was written (free some space and run the command again)"
_DAMAGED = ("is damaged (SQLite: {detail}); restore it from a backup, or recover it with "
            "`sqlite3 STORE .recover`")
MESSAGES = {
    "SQLITE_READONLY": _READ_ONLY,
    "SQLITE_FULL": _FULL,
    "SQLITE_IOERR": "cannot be read or written (disk I/O error: a full disk or failing device?)",
    "SQLITE_CORRUPT": _DAMAGED,
    "SQLITE_NOTADB": "is not a poolkit store (not an SQLite database at all)",
    "SQLITE_CANTOPEN": "cannot be opened (does its folder exist and allow access?)",
    "SQLITE_BUSY": "is busy: another process has held it longer than the wait allowed",
    "SQLITE_PERM": _READ_ONLY,
}

# SQLite's failures for want of memory, and what could not be done
OUT_OF_MEMORY = {"SQLITE_NOMEM": "cannot be used", "SQLITE_IOERR_NOMEM": "cannot be used",
                 "SQLITE_IOERR_SHMMAP": "cannot map its -shm file into memory"}


#: The store path opened last in this process (one element): a failure SQLite raises while
#: rows are read outside a Store method is attributed to it (poolkit.cli).
OPENED: list[Path] = []


def describe(path: str | Path, exc: BaseException) -> StoreError:
    """A one-line StoreError naming ``path`` for a failure SQLite raised on it."""
    name = getattr(exc, "sqlite_errorname", None) or ""
    # An extended code (SQLITE_IOERR_WRITE) says what its primary code (SQLITE_IOERR) says.
    message = MESSAGES.get(name) or MESSAGES.get("_".join(name.split("_")[:2]))
    if name == "SQLITE_CANTOPEN" and files_exhausted():  # SQLite does not say EMFILE
        message = "cannot be opened: " + too_many_open_files()
    elif name in OUT_OF_MEMORY:  # under `ulimit -v`, mapping the -shm file fails first
        message = f"{OUT_OF_MEMORY[name]}: {out_of_memory()}"
    if message is None:
        detail = str(exc)
        if "malformed" in detail:
            message = _DAMAGED
        elif "readonly" in detail or "read-only" in detail:
            message = _READ_ONLY
        elif "disk is full" in detail:
            message = _FULL
        else:
            message = f"cannot be used (SQLite: {detail})"
    kind = StoreUnavailable if name.startswith("SQLITE_BUSY") else StoreError
    return kind(f"{path}: store {message.format(detail=exc)}")
