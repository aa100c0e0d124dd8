"""The judging store in one SQLite file (WAL mode): the embedded backend.

It holds queries, the text each pooled document had (content-addressed), systems and their
run hashes, versioned pools with provenance, and the append-only judgment log. The contract's
methods are ``store.queries.StoreQueries`` (the SQL both backends run); what is SQLite's own
is here: opening and checking the file, write transactions, migrations, whole tables.

Concurrency: several processes may open the same file. Every write is one ``BEGIN
IMMEDIATE`` transaction (so writers queue instead of failing half-way), readers never block
writers (WAL), and a busy store is waited on for up to ``busy_timeout`` seconds. A grade is
durable once ``record_event`` returns: a process killed afterwards loses nothing.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from poolkit.errors import NoStoreError, StoreError, StoreUnavailable
from poolkit.store.failures import OPENED, describe
from poolkit.store.handle import identifier
from poolkit.store.queries import StoreQueries
from poolkit.store.records import now
from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION, migration_sql, statements


def _check_path(path: Path, read_only: bool) -> None:
    """A store is a regular file (``/dev/null`` or a folder is refused before SQLite sees
    it); a writing handle needs its file and folder writable, said before anything starts."""
    if path.exists() and not path.is_file():
        kind = "a directory" if path.is_dir() else "not a regular file"
        raise StoreError(f"{path}: is {kind}, not a store file")
    if read_only:
        return
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{path}: cannot create the store's folder {folder}: "
                         f"{exc.strerror or exc}") from None
    if not os.access(folder, os.W_OK):
        raise StoreError(f"{path}: the store's folder {folder} is read-only: cannot write "
                         f"(read-only commands such as status and export still work)")
    if path.exists() and not os.access(path, os.W_OK):
        raise StoreError(f"{path}: the store file is read-only: cannot write (read-only "
                         f"commands such as status and export still work)")


def check_new_store(path: str | Path) -> None:
    """Raise the StoreError that making a store at ``path`` would raise for its file or
    folder, without making it (a command that creates its store only when it commits asks
    first, and a failure in between leaves no empty store behind)."""
    _check_path(Path(path), read_only=False)


def _inspect(path: Path, conn: sqlite3.Connection) -> int:
    """The store's schema version (0: an empty database, to be created), reading only.

    Refuses an SQLite file holding anything but a poolkit store, a ``meta`` without a valid
    schema version, a version newer than this poolkit, and a store missing tables its
    version has: each would otherwise be "upgraded" into a mix of two things.
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    tables.discard("sqlite_sequence")
    if not tables:
        return 0
    if "meta" not in tables:
        shown = ", ".join(sorted(tables)[:3]) + (", ..." if len(tables) > 3 else "")
        raise StoreError(f"{path}: an SQLite database but not a poolkit store (no poolkit "
                         f"'meta' table; it has {shown}); left unchanged")
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    except sqlite3.OperationalError:  # a 'meta' table of some other shape
        row = None
    value = str(row[0]) if row is not None else None
    if value is None or not value.isdigit() or not 1 <= int(value) <= 10**6:
        raise StoreError(f"{path}: not a poolkit store, or a damaged one: its 'meta' table "
                         f"has no valid schema_version ({value!r}); left unchanged")
    version = int(value)
    if version > SCHEMA_VERSION:
        raise StoreError(f"{path}: schema version {version} is newer than this "
                         f"poolkit understands ({SCHEMA_VERSION}); upgrade poolkit")
    missing = sorted(expected_tables(version) - tables)
    if missing:
        raise StoreError(f"{path}: damaged store: schema version {version} but table(s) "
                         f"{', '.join(missing)} missing; left unchanged")
    return version


@lru_cache(maxsize=None)
def expected_tables(version: int) -> frozenset[str]:
    """The tables a store of schema ``version`` has (built in memory from the migrations)."""
    conn = sqlite3.connect(":memory:")
    try:
        for step in MIGRATIONS[:version]:
            for statement in statements(migration_sql(step, "sqlite")):
                conn.execute(statement)
        return frozenset(r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")) - {"sqlite_sequence"}
    finally:
        conn.close()


# The store's SQL is the portable subset both backends run (store.postgres translates the


class Store(StoreQueries):
    """A handle on one judging-store file. Cheap to open.

    One connection per thread (``store.handle``); the thread that opened the handle uses
    the connection that checked the file.

    ``read_only=True`` (what the reporting commands use) never writes and never waits for a
    writer: it works on a store whose file or folder is read-only, and beside a writer
    holding a long transaction. A store of an older schema is upgraded on opening, which
    needs write access once.

    Opening refuses, changing nothing: a path that is not a regular file, an SQLite database
    that is not a poolkit store (tables but no poolkit ``meta``), a store whose ``meta`` or
    tables are damaged, and one written by a newer poolkit. Every SQLite failure reaches the
    user as one :class:`StoreError` naming the file (see ``poolkit.store.failures``).
    """

    def __init__(self, path: str | Path, busy_timeout: float = 60.0, *, create: bool = True,
                 read_only: bool = False, missing_hint: str = "") -> None:
        """Open (``create``: or make) the store at ``path``.

        ``create=False`` refuses a missing file with the one "no judging store yet" error
        (``missing_hint`` says which command makes one) instead of creating an empty store.
        """
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self.read_only = read_only
        if not self.path.exists() and (read_only or not create):
            raise NoStoreError(self.path, missing_hint)
        _check_path(self.path, read_only)
        OPENED[:] = [self.path]
        try:
            self.conn = self._connect()
        except sqlite3.Error as exc:
            raise describe(self.path, exc) from None
        try:
            current = _inspect(self.path, self.conn)  # before anything could change the file
            if not read_only:
                self._enable_wal()
            self.conn.execute("PRAGMA synchronous=NORMAL")  # WAL+NORMAL survives a kill
            self.conn.execute("PRAGMA foreign_keys=ON")
            self._migrate(current)
        except sqlite3.Error as exc:
            self.conn.close()
            raise describe(self.path, exc) from None
        except BaseException:
            self.conn.close()
            raise

    # -- plumbing -------------------------------------------------------------------------

    def _thread_connection(self) -> Any:
        """A connection for a thread other than the opening one (the file was checked and
        migrated by then: only the per-connection settings are made)."""
        try:
            conn = self._connect()
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            raise describe(self.path, exc) from None
        return conn

    def _connect(self) -> sqlite3.Connection:
        def connect(target: str | Path, uri: bool = False) -> sqlite3.Connection:
            return sqlite3.connect(target, timeout=self.busy_timeout, isolation_level=None,
                                   check_same_thread=False, uri=uri)

        if not self.read_only:
            return connect(self.path)
        url = "file:" + quote(str(self.path.absolute()))
        conn = connect(url + "?mode=ro", uri=True)
        try:
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if getattr(exc, "sqlite_errorname", "") != "SQLITE_CANTOPEN":
                raise
        # A WAL store in a read-only folder: SQLite cannot make its shared-memory file, so
        # it can only be read as immutable (nothing can write there anyway). Immutable reads
        # ignore a write-ahead log, so one holding commits not yet copied into the file
        # (a writer killed there) must be refused, not silently skipped.
        wal = Path(f"{self.path}-wal")
        if wal.is_file() and wal.stat().st_size > 0:
            raise StoreError(f"{self.path}: its write-ahead log {wal.name} holds changes not "
                             f"yet in the store, and the folder is read-only; open the store "
                             f"once with write access to fold them in")
        return connect(url + "?mode=ro&immutable=1", uri=True)

    def _enable_wal(self) -> None:
        """Switch to WAL, waiting out other processes opening the same new file.

        Switching the journal mode needs a lock SQLite does not wait for (its busy handler is
        not called), so two assessors opening a fresh store at the same instant would see
        "database is locked"; retry until ``busy_timeout`` like every other write.
        """
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                self.conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
        exc = exc_info[1] if len(exc_info) > 1 else None
        if isinstance(exc, sqlite3.Error) and not isinstance(
                exc, (sqlite3.IntegrityError, sqlite3.ProgrammingError)):
            # A read in the block failed on the file (damaged pages are found when read).
            raise describe(self.path, exc) from None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; taken immediately so concurrent writers queue, not fail.

        A ``transaction()`` inside another joins it: a read-then-write decision (an import
        adding only what is not standing yet) is then made under the same lock as the write.
        """
        if self._depth:
            self._depth += 1
            try:
                yield self.conn
            finally:
                self._depth -= 1
            return
        if self.read_only:
            raise StoreError(f"{self.path}: opened read-only, cannot write")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorname", "") == "SQLITE_BUSY":
                raise StoreUnavailable(f"{self.path}: cannot write ({exc}): another process "
                                       f"has held the store for over {self.busy_timeout:g}s"
                                       ) from None
            raise describe(self.path, exc) from None
        self._depth = 1
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except (sqlite3.IntegrityError, sqlite3.ProgrammingError):
            self._rollback()  # poolkit's own mistake, not the file's: keep SQLite's error
            raise
        except sqlite3.Error as exc:
            self._rollback()
            raise describe(self.path, exc) from None
        except BaseException:
            self._rollback()
            raise
        finally:
            self._depth = 0

    def _rollback(self) -> None:
        try:
            self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # SQLite already rolled back (a full disk at COMMIT does)

    def _migrate(self, current: int) -> None:
        if current == SCHEMA_VERSION:
            return
        if self.read_only and current == 0:
            raise StoreError(f"{self.path}: an empty store (nothing pooled or imported yet)")
        if self.read_only:
            # Upgrade through a writing handle, once; a read-only file cannot be upgraded.
            try:
                Store(self.path, self.busy_timeout).close()
            except StoreError as exc:
                raise StoreError(f"{self.path}: store schema version {current} needs upgrading "
                                 f"to {SCHEMA_VERSION} before it can be read, and that failed: "
                                 f"{exc}") from None
            _inspect(self.path, self.conn)
            return
        with self.transaction() as c:
            current = _inspect(self.path, c)  # again: another process may have done it
            for step in MIGRATIONS[current:]:
                for statement in statements(migration_sql(step, "sqlite")):
                    c.execute(statement)
            if current < SCHEMA_VERSION:
                self._upsert_meta("schema_version", str(SCHEMA_VERSION))
                if current == 0:
                    self._upsert_meta("created_at", now())

    # -- who writes ----------------------------------------------------------------------
    def current_role(self) -> str | None:
        """The login this store knows the writer by: None for a file (it knows no users)."""
        return None

    def may_write_as(self, assessor: str, kind: str = "grade") -> bool:
        """Whether ``kind`` events may be recorded under ``assessor``: any, in a file."""
        return True

    # -- whole tables: what `poolkit store copy` moves between backends ---------------------
    def tables(self) -> list[str]:
        """The store's tables (its own, not the database engine's)."""
        return [r[0] for r in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]

    def columns(self, table: str) -> list[str]:
        return [r[1] for r in self.conn.execute(f"PRAGMA table_info({identifier(table)})")]

    def insert_rows(self, table: str, columns: list[str],
                    rows: Iterable[tuple[Any, ...]]) -> None:
        """Insert rows as given (ids included); call inside ``transaction()``."""
        cols = ", ".join(map(identifier, columns))
        self.conn.executemany(f"INSERT INTO {identifier(table)} ({cols}) VALUES "
                              f"({self._marks(len(columns))})", list(rows))

    def after_copy(self) -> None:
        """Nothing to do on SQLite: AUTOINCREMENT continues after the highest id."""


__all__ = ["Store", "check_new_store", "expected_tables"]
