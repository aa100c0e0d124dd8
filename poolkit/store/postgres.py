"""The judging store on PostgreSQL: one store contract, a second backend.

``store: postgresql://USER@HOST:PORT/DBNAME`` in a config selects it (psycopg 3, the
``postgres`` extra). The contract's methods are ``store.queries.StoreQueries``, SQL written
once for both engines with psycopg's ``%s`` parameters; the schema is PostgreSQL's own
(``store.schema_postgres``); nothing is translated from SQLite. So a method added to the
store works on both backends, and the same contract tests run against both.

What differs, and why:

- **Writers queue as on SQLite.** Every write transaction first locks one table
  (``write_lock``, which only poolkit's roles may lock: see ``store.pg_access``), so writes
  are serialised exactly like SQLite's ``BEGIN IMMEDIATE``: an import that checks "already
  recorded?" and then inserts decides inside one lock, under any concurrency. Creating or
  upgrading the schema, and ``store init``'s grants, run under the same lock. Readers never
  wait (MVCC).
- **Insertion order is a column, text sorts by code point** (``store.schema_postgres``).
- **Who judged what is enforced.** Row-level security on every table an assessor writes: she
  writes only under her own name, only ``ASSESSOR_KINDS`` events, only as a person (a
  machine judge's events are an admin's to record), and settles a pair of the assignment
  plan only in a slot of her own; members of ``poolkit_admin`` (and the owner) may write any
  (imports, adjudication). Nobody but the owner may update or delete an event, or choose an
  event's id (the server assigns it). Gold's grades, file and order are the lead's to read.
  ``poolkit store init`` sets this up and prints the grants for each assessor role
  (``store.pg_access``).
- **Passwords never live in the config**: a location with a password in any form is refused
  (``store.locations``); libpq reads ``PGPASSWORD`` or ``~/.pgpass``. Messages name the store
  by ``locations.redact`` of its URL.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from poolkit.errors import NoStoreError, StoreError, StoreUnavailable
from poolkit.store import pg_access
from poolkit.store.handle import identifier
from poolkit.store.locations import LocationError, check_url, database_location, redact
from poolkit.store.pg_access import ADMIN_ROLE, ASSESSOR_KINDS, ASSESSOR_ROLE
from poolkit.store.queries import StoreQueries
from poolkit.store.records import now
from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION, migration_sql, statements


class PgCursor:
    """The part of ``sqlite3.Cursor`` the store uses, over a psycopg cursor."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return self._cursor.fetchall() if self._cursor.description else []

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())

    @property
    def rowcount(self) -> int:
        """Rows the statement changed (an UPDATE's or DELETE's), as ``sqlite3.Cursor``'s."""
        return int(self._cursor.rowcount)

    @property
    def lastrowid(self) -> None:
        raise StoreError("lastrowid is not portable: use INSERT ... RETURNING id")


class PgConnection:
    """The part of ``sqlite3.Connection`` the store uses, speaking PostgreSQL.

    A connection the server dropped (a restart, ``pg_terminate_backend``, a network cut) is
    opened again (``reopen``) on its next use, once per use: a transaction that was open on
    it failed with the error that broke it (its caller decides whether to try again, as the
    judging screen does with an unsaved grade); a read outside any transaction is simply run
    again on the new connection. Nothing here sleeps: the caller backs off between tries.
    """

    def __init__(self, reopen: Callable[[], Any], label: str) -> None:
        self._reopen = reopen
        self._raw = reopen()
        self._closed = False
        self.label = label

    @property
    def raw(self) -> Any:
        """The psycopg connection, opened again first when the server dropped it."""
        if self._raw.closed and not self._closed:
            self._raw = self._reopen()
        return self._raw

    def execute(self, sql: str, args: Sequence[Any] = ()) -> PgCursor:
        import psycopg
        from psycopg import pq

        raw = self.raw
        idle = raw.info.transaction_status == pq.TransactionStatus.IDLE
        with translate_errors(self.label):
            try:
                return PgCursor(raw.execute(sql, tuple(args)))
            except psycopg.OperationalError:
                # A read outside a transaction on a connection that just turned out dead:
                # nothing was changed, so it is run once more on a new connection.
                if not (idle and raw.closed and _READ.match(sql)) or self._closed:
                    raise
            return PgCursor(self.raw.execute(sql, tuple(args)))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> PgCursor:
        rows = [tuple(r) for r in rows]
        cursor = self.raw.cursor()
        if rows:
            with translate_errors(self.label):
                cursor.executemany(sql, rows)
        return PgCursor(cursor)

    def close(self) -> None:
        self._closed = True
        self._raw.close()


_READ = re.compile(r"\s*(SELECT|WITH)\b", re.IGNORECASE)


@contextmanager
def translate_errors(label: str) -> Iterator[None]:
    """psycopg's errors as one-line StoreErrors naming the store (never its password)."""
    import psycopg

    try:
        yield
    except psycopg.errors.InsufficientPrivilege as exc:
        raise StoreError(f"{label}: not allowed: {_first_line(exc)}") from None
    except psycopg.errors.ReadOnlySqlTransaction:
        raise StoreError(f"{label}: opened read-only, cannot write") from None
    except psycopg.OperationalError as exc:
        # The server is gone, refuses connections or timed out: the same work may succeed
        # later (the judging screen keeps an unsaved grade and tries again).
        raise StoreUnavailable(f"{label}: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    """The server's own words (after FATAL:/ERROR:), else the message's first line."""
    text = str(exc).strip()
    match = re.search(r"(?:FATAL|ERROR):\s*(.+)", text)
    if match:
        return match.group(1).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def connect(url: str, *, read_only: bool = False) -> Any:
    """A psycopg connection (autocommit: each read sees the latest commits)."""
    try:
        import psycopg
    except ImportError:
        raise StoreError(f"{redact(url)}: a PostgreSQL store needs psycopg: "
                         f"pip install 'poolkit[postgres]'") from None
    # (libpq's PGOPTIONS, e.g. the role `poolkit serve` sets, kept beside read-only's own)
    options = (" ".join(filter(None, (os.environ.get("PGOPTIONS"),
                                      "-c default_transaction_read_only=on")))
               if read_only else None)
    with translate_errors(redact(url)):
        try:
            return psycopg.connect(url, autocommit=True, options=options,
                                   application_name="poolkit", connect_timeout=10)
        except psycopg.errors.InvalidCatalogName:
            raise StoreError(f"{redact(url)}: no such database; create it first "
                             f"(createdb) and run `poolkit store init`") from None
        except psycopg.ProgrammingError as exc:
            if exc.sqlstate:  # the server's error (translate_errors words it)
                raise
            # libpq refused the connection string itself (a keyword this libpq lacks)
            raise StoreError(f"{redact(url)}: {_first_line(exc)}") from None


class PgStore(StoreQueries):
    """A judging store in a PostgreSQL database (see the module docstring)."""

    dialect = "postgresql"
    mark = "%s"  # psycopg's parameter

    def __init__(self, url: str, busy_timeout: float = 60.0, *, create: bool = True,
                 read_only: bool = False, missing_hint: str = "") -> None:
        try:
            url = database_location(url) or check_url(url)
        except LocationError as exc:
            raise StoreError(f"{redact(url)}: {exc.reason}") from None
        self.url = url
        self.path = redact(url)  # type: ignore[assignment]  # a label, as in every message
        self.busy_timeout = busy_timeout
        self.read_only = False
        self.conn = PgConnection(self._raw_connection, redact(url))  # the store's SQL too
        self._check_access()
        if (read_only or not create) and not self._has_schema():
            self.close()
            raise NoStoreError(self.path, missing_hint)  # type: ignore[arg-type]
        self._migrate(self._schema_version_now())
        if read_only:
            self.pg.raw.execute("SET default_transaction_read_only = on")
            self.read_only = True

    # -- plumbing -------------------------------------------------------------------------
    def __enter__(self) -> PgStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def pg(self) -> PgConnection:
        """This thread's connection (one per thread, as ``Store.conn``)."""
        return self.conn  # type: ignore[no-any-return]

    def _raw_connection(self) -> Any:
        """A psycopg connection with this handle's session settings (on opening, for each
        further thread, and again after the server dropped one)."""
        raw = connect(self.url)
        with translate_errors(str(self.path)):
            raw.execute(f"SET lock_timeout = '{int(self.busy_timeout * 1000)}ms'")
            if self.read_only:
                raw.execute("SET default_transaction_read_only = on")
        return raw

    def _thread_connection(self) -> PgConnection:
        return PgConnection(self._raw_connection, str(self.path))

    def _has_schema(self) -> bool:
        row = self.pg.raw.execute("SELECT to_regclass('meta')").fetchone()
        return row is not None and row[0] is not None

    def _check_access(self) -> None:
        """One line, not a traceback, for a role the store was never granted to."""
        if self._has_schema() and not pg_access.may_read(self.pg.raw):
            role = self.current_role()
            self.close()
            raise pg_access.no_access(str(self.path), role)

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """One write transaction, serialised with every other poolkit writer."""
        if self.read_only:
            raise StoreError(f"{self.path}: opened read-only, cannot write")
        with self._locked():
            yield self.pg

    @contextmanager
    def _locked(self) -> Iterator[None]:
        import psycopg

        with translate_errors(str(self.path)), self.pg.raw.transaction():
            try:
                pg_access.take_write_lock(self.pg.raw)
            except psycopg.errors.LockNotAvailable:
                raise StoreUnavailable(f"{self.path}: cannot write: another process has held the "
                                 f"store for over {self.busy_timeout:g}s") from None
            yield

    def _schema_version_now(self) -> int:
        if not self._has_schema():
            return 0
        row = self.pg.raw.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0]) if row else 0

    def _migrate(self, current: int) -> None:
        """Bring the schema up to date; a current store is only read (no lock, no wait).

        Only the store's owner upgrades one (anyone else is told the lead must run
        ``store init``); on an empty database, whoever may create tables there creates it.
        The lock table comes first, so that two processes creating one store at once queue
        on it: the loser's CREATE fails once the winner commits, and it starts over, finding
        the store made.
        """
        import psycopg

        if current == SCHEMA_VERSION:
            return
        if current and current < SCHEMA_VERSION and not pg_access.owns_store(self.pg.raw):
            raise pg_access.needs_upgrade(str(self.path), current, SCHEMA_VERSION)
        for attempt in range(3):
            creating = False
            try:
                with translate_errors(str(self.path)), self.pg.raw.transaction():
                    if not pg_access.lock_exists(self.pg.raw):
                        creating = True
                        self._create(pg_access.create_lock_table, current)
                        creating = False
                    pg_access.take_write_lock(self.pg.raw)
                    self._migrate_locked()
                return
            except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable):
                if not creating:
                    raise
                if attempt == 2:
                    raise StoreError(f"{self.path}: another process kept creating the "
                                     f"store's schema at the same time; try again") from None

    def _create(self, make: Any, current: int) -> None:
        import psycopg

        role = self.current_role()  # (asked first: a refused CREATE aborts the transaction)
        try:
            make(self.pg.raw)
        except psycopg.errors.InsufficientPrivilege as exc:
            if current:
                raise pg_access.needs_upgrade(str(self.path), current, SCHEMA_VERSION) from None
            raise pg_access.may_not_create(str(self.path), role, _first_line(exc)) from None

    def _migrate_locked(self) -> None:
        """The migration itself, under the write lock (the version is read again there)."""
        current = self._schema_version_now()
        if current > SCHEMA_VERSION:
            raise StoreError(f"{self.path}: schema version {current} is newer than this "
                             f"poolkit understands ({SCHEMA_VERSION}); upgrade poolkit")
        if current == SCHEMA_VERSION:
            return

        def steps(raw: Any) -> None:
            for step in MIGRATIONS[current:]:
                for statement in statements(migration_sql(step, self.dialect)):
                    raw.execute(statement)

        self._create(steps, current)
        self._upsert_meta("schema_version", str(SCHEMA_VERSION))
        if current == 0:
            self._upsert_meta("created_at", now())
            self._upsert_meta("backend", self.dialect)
        tables = self.tables()
        pg_access.protect_tables(self.pg.raw, tables)
        if pg_access.groups_exist(self.pg.raw):  # new tables and columns reach the groups
            pg_access.apply_grants(self.pg.raw, tables,
                                   {t: self.columns(t) for t in tables})

    # -- what differs from SQLite ---------------------------------------------------------
    def current_role(self) -> str:
        """The database role this store is opened as: the default assessor name."""
        return str(self.pg.raw.execute("SELECT current_user").fetchone()[0])

    def may_write_as(self, assessor: str, kind: str = "grade") -> bool:
        """Whether row-level security lets this role record ``kind`` events as ``assessor``:
        the owner and admins any, an assessor her own name and ``ASSESSOR_KINDS``."""
        raw = self.pg.raw
        if pg_access.is_admin(raw) or pg_access.owns_store(raw):
            return True
        return assessor == self.current_role() and kind in ASSESSOR_KINDS

    def reads_gold_source(self) -> bool:
        return pg_access.may_read_column(self.pg.raw, "gold_sets", "sha256")

    def tables(self) -> list[str]:
        rows = self.pg.raw.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            "current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name").fetchall()
        return [r[0] for r in rows]

    def columns(self, table: str) -> list[str]:
        rows = self.pg.raw.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND table_name = %s ORDER BY ordinal_position",
            (table,)).fetchall()
        return [r[0] for r in rows if r[0] != "rowid"]

    def insert_rows(self, table: str, columns: list[str],
                    rows: Iterable[tuple[Any, ...]]) -> None:
        """Insert rows as given, ids included (the owner's copy: ids are otherwise the
        server's, GENERATED ALWAYS); call inside ``transaction()``."""
        cols = ", ".join(map(identifier, columns))
        self.conn.executemany(f"INSERT INTO {identifier(table)} ({cols}) OVERRIDING SYSTEM "
                              f"VALUE VALUES ({self._marks(len(columns))})", list(rows))

    def after_copy(self) -> None:
        """Identity columns continue after the highest copied id."""
        raw = self.pg.raw
        for table in self.tables():
            for (column,) in raw.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                    "current_schema() AND table_name = %s AND is_identity = 'YES'",
                    (table,)).fetchall():
                raw.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                    f"COALESCE((SELECT MAX({column}) FROM {table}), 0) + 1, false)")


def init_sql(database: str) -> str:
    """What a team lead runs once per assessor, printed by ``poolkit store init``."""
    return "\n".join([
        f"-- one login role per assessor; its name is the assessor name in {database}",
        f"CREATE ROLE alice LOGIN PASSWORD '...' IN ROLE {ASSESSOR_ROLE};",
        "-- an admin may import labels and adjudicate under any name",
        f"CREATE ROLE lead LOGIN PASSWORD '...' IN ROLE {ADMIN_ROLE};",
    ])


def grant_roles(store: PgStore) -> list[str]:
    """Create the two group roles if missing and grant them what they need (idempotent),
    under the write lock; only the store's owner may (see ``store.pg_access``)."""
    raw = store.pg.raw
    with translate_errors(str(store.path)):
        pg_access.check_may_grant(raw, str(store.path))
    with store.transaction():
        done = pg_access.create_groups(raw)
        tables = store.tables()
        pg_access.protect_tables(raw, tables)
        pg_access.apply_grants(raw, tables, {t: store.columns(t) for t in tables})
    done.append(f"granted {ASSESSOR_ROLE}: read all but others' assignments and gold answers, "
                f"gold's grades, file and order, and the accounts of poolkit serve, append "
                f"grades, undos, skips, notes and can't-judges under its own name (on a "
                f"planned pair only in its own slot), take an open assignment slot; "
                f"{ADMIN_ROLE}: also write pools, imports, adjudications and assignments "
                f"under any name, and the accounts")
    return done


__all__ = ["PgStore", "check_url", "connect", "grant_roles", "init_sql", "redact"]
