"""The judging store: one SQLite file (WAL mode), the single source of truth.

It holds queries, the text each pooled document had (content-addressed), systems and their
run hashes, versioned pools with provenance, and the append-only judgment log.

Concurrency: several processes may open the same file. Every write is one ``BEGIN
IMMEDIATE`` transaction (so writers queue instead of failing half-way), readers never block
writers (WAL), and a busy store is waited on for up to ``busy_timeout`` seconds. A grade is
durable once ``record_event`` returns: a process killed afterwards loses nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from poolkit.errors import NoStoreError, StoreError, StoreUnavailable
from poolkit.io.corpus import QueryRecord
from poolkit.io.sample import SampledPair
from poolkit.io.validate import GRADE_SCALE
from poolkit.store.failures import OPENED, describe
from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION, migration_sql, statements

GRADING_KINDS = ("grade", "adjudicate", "import")


def now() -> str:
    """UTC timestamp with microseconds, ISO 8601 (sorts as text)."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def text_hash(title: str, body: str) -> str:
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
    """One row of the judgment log."""

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


def _system_record(row: tuple[Any, ...]) -> dict[str, Any]:
    """A system's (kind, grp, settings, run_sha256, run_path) row as the API's dict."""
    kind, group, settings, run_sha256, run_path = row
    return {"kind": kind, "group": group, "settings": json.loads(settings),
            "run_sha256": run_sha256, "run_path": run_path}


_EVENT_COLUMNS = ("qid", "docid", "assessor", "kind", "grade", "shown_at", "judged_at",
                  "text_hash", "pool_version", "position", "note", "ref", "source")
_INSERT_EVENT = (f"INSERT INTO events ({', '.join(_EVENT_COLUMNS)}) "
                 f"VALUES ({', '.join('?' * len(_EVENT_COLUMNS))})")


class _PerThread:
    """A handle's connections: one per thread (``local.conn``), all of them kept to close."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.lock = threading.Lock()
        self.every: list[Any] = []
        self.closed = False

    def adopt(self, conn: Any) -> None:
        self.local.conn = conn
        with self.lock:
            if not any(c is conn for c in self.every):
                self.every.append(conn)

    def forget(self) -> None:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            return
        self.local.conn = None
        with self.lock:
            self.every = [c for c in self.every if c is not conn]
        conn.close()

    def close_all(self) -> None:
        with self.lock:
            self.closed = True
            every, self.every = self.every, []
        for conn in every:
            conn.close()


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
# rest): ``?`` parameters, ON CONFLICT rather than INSERT OR REPLACE, RETURNING rather than
# lastrowid, named columns in INSERTs, and ``rowid`` only to order by insertion.
_UPSERT_META = ("INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value")


def _identifier(name: str) -> str:
    """A table or column name, checked: only letters, digits and underscores."""
    if not name.replace("_", "").isalnum():
        raise StoreError(f"not a table or column name: {name!r}")
    return name


def _event_row(event: Event) -> tuple[Any, ...]:
    if event.kind in GRADING_KINDS and event.grade is None:
        raise StoreError(f"a {event.kind!r} event needs a grade")
    if event.kind in GRADING_KINDS and event.grade not in GRADE_SCALE:
        # The one scale (poolkit.io.validate): what export writes, score and import read back.
        raise StoreError(f"a {event.kind!r} event's grade {event.grade!r} is off the scale "
                         f"{GRADE_SCALE[0]}-{GRADE_SCALE[-1]} (query {event.qid!r} doc "
                         f"{event.docid!r})")
    return tuple(getattr(event, col) for col in _EVENT_COLUMNS)


class Store:
    """A handle on one judging-store file. Cheap to open.

    One connection per thread: a connection carries one transaction at a time, so two
    threads sharing one (the judging screen's grade writes and its claim heartbeat) would
    commit, roll back or nest each other's transactions, and acknowledge grades that were
    never kept. Each thread that uses the handle therefore gets a connection of its own,
    opened on its first use (``conn``), with its own transaction nesting; ``close`` closes
    them all. The thread that opened the handle uses the connection that checked the file.

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
    def _threads(self) -> _PerThread:
        state: _PerThread | None = self.__dict__.get("_per_thread")
        if state is None:  # (made by the opening thread, before any other can see the handle)
            state = self.__dict__["_per_thread"] = _PerThread()
        return state

    @property
    def conn(self) -> Any:
        """This thread's connection (opened on the thread's first use of the handle)."""
        state = self._threads()
        conn = getattr(state.local, "conn", None)
        if conn is None:
            if state.closed:
                raise StoreError(f"{self.path}: the store was closed")
            conn = self._thread_connection()
            state.adopt(conn)
        return conn

    @conn.setter
    def conn(self, value: Any) -> None:
        self._threads().adopt(value)

    @property
    def _depth(self) -> int:
        """This thread's transaction nesting: an inner ``transaction()`` joins the outer."""
        return int(getattr(self._threads().local, "depth", 0))

    @_depth.setter
    def _depth(self, value: int) -> None:
        self._threads().local.depth = value

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

    def check_writable(self) -> None:
        """Raise the StoreError a write would raise (read-only, locked...), writing nothing:
        ``pool`` asks before it spends minutes retrieving."""
        with self.transaction():
            pass

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

    def close(self) -> None:
        """Close every thread's connection."""
        self._threads().close_all()

    def close_thread(self) -> None:
        """Close this thread's connection (a thread that is done with the handle: the
        judging screen's store thread as the screen closes); the handle stays open."""
        self._threads().forget()

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
                c.execute(_UPSERT_META, ("schema_version", str(SCHEMA_VERSION)))
                if current == 0:
                    c.execute(_UPSERT_META, ("created_at", now()))

    @property
    def schema_version(self) -> int:
        return int(self.conn.execute(
            "SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])

    # -- queries and texts ----------------------------------------------------------------
    def upsert_queries(self, queries: Iterable[QueryRecord]) -> None:
        with self.transaction() as c:
            c.executemany(
                "INSERT INTO queries VALUES (?, ?, ?, ?) ON CONFLICT(qid) DO UPDATE SET "
                "text=excluded.text, description=excluded.description, "
                "narrative=excluded.narrative",
                [(q.qid, q.text, q.description, q.narrative) for q in queries])

    def queries(self) -> dict[str, QueryRecord]:
        rows = self.conn.execute("SELECT qid, text, description, narrative FROM queries "
                                 "ORDER BY rowid")
        return {r[0]: QueryRecord(*r) for r in rows}

    def text(self, hash_: str) -> tuple[str, str]:
        """(title, body) of a stored text."""
        row = self.conn.execute("SELECT title, body FROM texts WHERE hash=?", (hash_,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no text with hash {hash_[:12]}")
        return row[0], row[1]

    # -- systems --------------------------------------------------------------------------
    def register_system(self, name: str, kind: str, settings: Mapping[str, Any],
                        run_sha256: str | None = None, run_path: str | None = None,
                        group: str | None = None) -> None:
        with self.transaction() as c:
            c.execute(
                "INSERT INTO systems VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE "
                "SET kind=excluded.kind, grp=excluded.grp, settings=excluded.settings, "
                "run_sha256=excluded.run_sha256, run_path=excluded.run_path",
                (name, kind, group, json.dumps(dict(settings), sort_keys=True, default=str),
                 run_sha256, run_path, now()))

    def systems(self) -> dict[str, dict[str, Any]]:
        """Each system's latest registration (see ``pool_version_systems`` for history)."""
        rows = self.conn.execute(
            "SELECT name, kind, grp, settings, run_sha256, run_path, registered_at FROM systems")
        return {r[0]: {**_system_record(r[1:6]), "registered_at": r[6]} for r in rows}

    def pool_version_systems(self, max_version: int | None = None,
                             ) -> dict[int, dict[str, dict[str, Any]]]:
        """``{version: {system: record}}``: the systems each pool version pooled, as they
        were when it was made (kind, group, settings, run_sha256, run_path, and
        ``backfilled``: true when copied at migration from a v1 store's latest registration).
        """
        sql = ("SELECT version, system, kind, grp, settings, run_sha256, run_path, backfilled "
               "FROM pool_version_systems")
        args: tuple[Any, ...] = ()
        if max_version is not None:
            sql += " WHERE version <= ?"
            args = (max_version,)
        out: dict[int, dict[str, dict[str, Any]]] = {}
        for r in self.conn.execute(sql + " ORDER BY version, rowid", args):
            out.setdefault(r[0], {})[r[1]] = {**_system_record(r[2:7]), "backfilled": bool(r[7])}
        return out

    # -- pools ----------------------------------------------------------------------------
    def pool_versions(self) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT version, created_at, depths, order_strategy, note "
                                 "FROM pool_versions ORDER BY version")
        return [{"version": r[0], "created_at": r[1], "depths": json.loads(r[2]),
                 "order_strategy": r[3], "note": r[4]} for r in rows]

    def latest_pool_version(self) -> int | None:
        row = self.conn.execute("SELECT MAX(version) FROM pool_versions").fetchone()
        return row[0]

    def add_pool_version(self, depths: Mapping[str, int], order_strategy: str,
                         members: Iterable[NewMember],
                         sources: Iterable[tuple[str, str, str, int, float | None]],
                         note: str | None = None,
                         design: Iterable[SampledPair] = ()) -> int | None:
        """Add docs not yet pooled, and the (qid, docid, system, rank, score) that brought them.

        All in one transaction. Members already pooled are left alone (their first version,
        text and order stay); sources already recorded for a (qid, docid, system) stay too.
        Returns the new version, or None when nothing at all was new (no version is made).
        The version also records, in the same transaction, each system in ``depths`` as
        registered now (``register_system`` first), so its provenance outlives re-pooling.
        ``design`` records a sampled pool's pairs (``pool_sample``); a pair already recorded
        keeps its first record, as a pooled member keeps its first version.
        """
        members = list(members)
        sources = list(sources)
        design = list(design)
        with self.transaction() as c:
            pooled = {(q, d) for q, d in c.execute("SELECT qid, docid FROM pool_members")}
            known = {(q, d, s) for q, d, s in c.execute(
                "SELECT qid, docid, system FROM pool_sources")}
            new_members = [m for m in members if (m.qid, m.docid) not in pooled]
            first: dict[tuple[str, str], NewMember] = {}  # one member per pair, the first given
            for m in new_members:
                first.setdefault((m.qid, m.docid), m)
            new_members = list(first.values())
            new_sources = [s for s in sources if (s[0], s[1], s[2]) not in known]
            recorded = {(q, d) for q, d in c.execute("SELECT qid, docid FROM pool_sample")}
            new_design = list({(r.qid, r.docid): r for r in reversed(design)
                               if (r.qid, r.docid) not in recorded}.values())
            if not new_members and not new_sources and not new_design:
                return None
            version = (c.execute("SELECT COALESCE(MAX(version), 0) FROM pool_versions")
                       .fetchone()[0] + 1)
            c.execute("INSERT INTO pool_versions VALUES (?, ?, ?, ?, ?)",
                      (version, now(), json.dumps(dict(depths), sort_keys=True),
                       order_strategy, note))
            c.executemany("INSERT OR IGNORE INTO texts VALUES (?, ?, ?)",
                          [(text_hash(m.title, m.body), m.title, m.body) for m in new_members])
            c.executemany("INSERT INTO pool_members VALUES (?, ?, ?, ?, ?)",
                          [(m.qid, m.docid, version, text_hash(m.title, m.body), m.order_key)
                           for m in new_members])
            c.executemany("INSERT INTO pool_sources VALUES (?, ?, ?, ?, ?, ?)",
                          [(q, d, s, r, sc, version) for q, d, s, r, sc in new_sources])
            c.executemany("INSERT INTO pool_sample VALUES (?, ?, ?, ?, ?, ?)",
                          [(r.qid, r.docid, version, r.stratum, r.inclusion, int(r.sampled))
                           for r in new_design])
            names = list(dict(depths))
            c.execute("INSERT INTO pool_version_systems (version, system, kind, grp, settings, "
                      "run_sha256, run_path) SELECT ?, name, kind, grp, settings, run_sha256, "
                      f"run_path FROM systems WHERE name IN ({', '.join('?' * len(names))})",
                      (version, *names))
            return version

    def pool_sample(self, max_version: int | None = None) -> list[SampledPair]:
        """A sampled pool's design, every pooled pair (drawn or not), by query then doc id;
        empty for a pool that is not a sample."""
        sql = "SELECT qid, docid, stratum, inclusion, sampled FROM pool_sample"
        args: tuple[Any, ...] = ()
        if max_version is not None:
            sql, args = sql + " WHERE version <= ?", (max_version,)
        rows = self.conn.execute(sql + " ORDER BY qid, docid", args)
        return [SampledPair(q, d, s, p, bool(x)) for q, d, s, p, x in rows]

    def pool(self, qid: str | None = None, max_version: int | None = None) -> list[PoolMember]:
        """Pooled docs in judging order: by query (store order), then version, then order key."""
        cols = "m.qid, m.docid, m.version, m.text_hash, m.order_key"
        return [PoolMember(*r) for r in self._pool_query(cols, qid, max_version)]

    def pool_rows(self, max_version: int | None = None) -> list[tuple[str, str, int, str]]:
        """``(qid, docid, version, text_hash)`` in ``pool``'s order, as plain tuples: what the
        judging screens and exports read, cheap for 100,000s of rows."""
        cols = "m.qid, m.docid, m.version, m.text_hash"
        return self._pool_query(cols, None, max_version).fetchall()

    def _pool_query(self, columns: str, qid: str | None,
                    max_version: int | None) -> sqlite3.Cursor:
        sql = (f"SELECT {columns} FROM pool_members m "
               "LEFT JOIN queries q ON q.qid = m.qid WHERE 1=1")
        args: list[Any] = []
        if qid is not None:
            sql += " AND m.qid = ?"
            args.append(qid)
        if max_version is not None:
            sql += " AND m.version <= ?"
            args.append(max_version)
        # The one judging order: queries in store order, then version, order key, doc id.
        sql += " ORDER BY COALESCE(q.rowid, 1e18), m.qid, m.version, m.order_key, m.docid"
        return self.conn.execute(sql, args)

    def sources(self, qid: str | None = None) -> dict[tuple[str, str], list[Source]]:
        sql = "SELECT qid, docid, system, rank, score, version FROM pool_sources"
        args: tuple[Any, ...] = ()
        if qid is not None:
            sql += " WHERE qid = ?"
            args = (qid,)
        out: dict[tuple[str, str], list[Source]] = {}
        for q, d, s, r, sc, v in self.conn.execute(sql + " ORDER BY rank, system", args):
            out.setdefault((q, d), []).append(Source(s, r, sc, v))
        return out

    # -- the judgment log -----------------------------------------------------------------
    def record_event(self, event: Event) -> int:
        """Append one event; durable when this returns. Returns its id."""
        row = _event_row(event)
        with self.transaction() as c:
            return int(c.execute(_INSERT_EVENT + " RETURNING id", row).fetchone()[0])

    def record_event_once(self, event: Event) -> int:
        """``record_event`` for a retry: when an event equal to ``event`` in every column is
        already logged (the earlier attempt committed but its answer was lost with the
        connection), its id is returned and nothing is added. So a write retried after a
        failure it cannot see the outcome of is in the log exactly once."""
        row = _event_row(event)
        with self.transaction() as c:
            for e in self.events(qid=event.qid, assessor=event.assessor, kinds=[event.kind]):
                if e.docid == event.docid and _event_row(e) == row:
                    return int(e.id)  # type: ignore[arg-type]
            return int(c.execute(_INSERT_EVENT + " RETURNING id", row).fetchone()[0])

    def record_events(self, events: Iterable[Event]) -> int:
        """Append many events in one transaction (imports); returns how many."""
        rows = [_event_row(e) for e in events]
        with self.transaction() as c:
            c.executemany(_INSERT_EVENT, rows)
        return len(rows)

    def events(self, qid: str | None = None, assessor: str | None = None,
               kinds: Iterable[str] | None = None) -> list[Event]:
        sql = f"SELECT id, {', '.join(_EVENT_COLUMNS)} FROM events WHERE 1=1"
        args: list[Any] = []
        if qid is not None:
            sql += " AND qid = ?"
            args.append(qid)
        if assessor is not None:
            sql += " AND assessor = ?"
            args.append(assessor)
        if kinds is not None:
            kinds = list(kinds)
            sql += f" AND kind IN ({', '.join('?' * len(kinds))})"
            args.extend(kinds)
        rows = self.conn.execute(sql + " ORDER BY id", args)
        return [Event(**dict(zip(_EVENT_COLUMNS, r[1:])), id=r[0]) for r in rows]

    def current_grades(self, max_pool_version: int | None = None,
                       kinds: Iterable[str] = GRADING_KINDS,
                       ) -> dict[tuple[str, str], dict[str, Event]]:
        """Each assessor's standing grade per (qid, docid): ``{pair: {assessor: event}}``.

        Replays the log: a grading event pushes onto that assessor's stack for the pair, an
        undo pops the event it names (``ref``). What is on top is the standing grade.
        With ``max_pool_version``, only pairs pooled in that version or earlier count
        (labels "as of" a pool version); imported labels for unpooled pairs are then left out.
        """
        kinds = set(kinds)
        stacks: dict[tuple[str, str, str], list[Event]] = {}
        for e in self.events(kinds=[*kinds, "undo"]):
            key = (e.qid, e.docid, e.assessor)
            stack = stacks.setdefault(key, [])
            if e.kind == "undo":
                for i in range(len(stack) - 1, -1, -1):
                    if stack[i].id == e.ref:
                        del stack[i]
                        break
            else:
                stack.append(e)
        allowed = None
        if max_pool_version is not None:
            allowed = {(m.qid, m.docid) for m in self.pool(max_version=max_pool_version)}
        out: dict[tuple[str, str], dict[str, Event]] = {}
        for (q, d, a), stack in stacks.items():
            if stack and (allowed is None or (q, d) in allowed):
                out.setdefault((q, d), {})[a] = stack[-1]
        return out

    # -- passages on screen ---------------------------------------------------------------
    def mark_shown(self, assessor: str, qid: str, docid: str, at: str | None = None) -> None:
        """Record the passage ``assessor`` now looks at (replacing the one before)."""
        with self.transaction() as c:
            c.execute("INSERT INTO shown_passages VALUES (?, ?, ?, ?) ON CONFLICT (assessor) "
                      "DO UPDATE SET qid = excluded.qid, docid = excluded.docid, "
                      "shown_at = excluded.shown_at", (assessor, qid, docid, at or now()))

    def shown_to_others(self, assessor: str, qid: str, since: str) -> set[str]:
        """Docs of ``qid`` other assessors have on screen, shown at ``since`` or later."""
        return {d for (d,) in self.conn.execute(
            "SELECT docid FROM shown_passages WHERE assessor != ? AND qid = ? AND shown_at >= ?",
            (assessor, qid, since))}

    def assessors(self) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT assessor FROM events ORDER BY assessor")]

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
        return [r[1] for r in self.conn.execute(f"PRAGMA table_info({_identifier(table)})")]

    def count_rows(self, table: str) -> int:
        return int(self.conn.execute(
            f"SELECT COUNT(*) FROM {_identifier(table)}").fetchone()[0])

    def table_rows(self, table: str, columns: list[str]) -> list[tuple[Any, ...]]:
        """Every row of ``table`` (those ``columns``) in insertion order."""
        cols = ", ".join(map(_identifier, columns))
        return [tuple(r) for r in self.conn.execute(
            f"SELECT {cols} FROM {_identifier(table)} ORDER BY rowid")]

    def insert_rows(self, table: str, columns: list[str],
                    rows: Iterable[tuple[Any, ...]]) -> None:
        """Insert rows as given (ids included); call inside ``transaction()``."""
        cols = ", ".join(map(_identifier, columns))
        marks = ", ".join("?" * len(columns))
        self.conn.executemany(f"INSERT INTO {_identifier(table)} ({cols}) VALUES ({marks})",
                              list(rows))

    def after_copy(self) -> None:
        """Nothing to do on SQLite: AUTOINCREMENT continues after the highest id."""

    # -- pool versions: the one resolver ---------------------------------------------------
    def resolve_pool_version(self, version: int | None = None) -> int:
        """``version`` checked against the store, or the latest when None: the one place a
        command's "no --pool-version means the latest" is decided. A StoreError when the
        store has no pool yet or not that version (listing the versions it has)."""
        known = [v["version"] for v in self.pool_versions()]
        if version is None:
            if not known:
                raise StoreError(f"{self.path}: the store has no pool yet; run `poolkit pool` "
                                 f"first")
            return known[-1]
        if version not in known:
            have = ", ".join(map(str, known)) or "none (run `poolkit pool` first)"
            raise StoreError(f"{self.path}: no pool version {version}; the store has {have}")
        return version

    def pooled_pairs(self, max_version: int | None = None) -> set[tuple[str, str]]:
        """(qid, docid) of every pair pooled in ``max_version`` or earlier (None: all)."""
        sql = "SELECT qid, docid FROM pool_members"
        args: tuple[Any, ...] = ()
        if max_version is not None:
            sql, args = sql + " WHERE version <= ?", (max_version,)
        return set(self.conn.execute(sql, args).fetchall())

    # -- read side of the judgment log (what judging, labels and status need fast) ----------
    def live_marks(self, kinds: Iterable[str], assessor: str | None = None,
                   not_assessor: str | None = None, qid: str | None = None,
                   ) -> Iterator[tuple[int, str, int | None, str, str, str]]:
        """``(id, kind, grade, qid, docid, assessor)`` of live events of ``kinds`` in id order.

        Live = not named by an undo of the same pair and assessor. An undo pops the event its
        ``ref`` names from that (pair, assessor) stack wherever it sits, and stacks are in id
        order, so the standing grade is the live event with the highest id: the rule of
        ``current_grades``, done inside the database. ``assessor`` keeps one assessor's,
        ``not_assessor`` everyone else's; ``qid`` one query's (through the (qid, docid)
        index: what a judging decision reads, whatever the size of the log).
        """
        kinds = list(kinds)
        of_query = " AND qid = ?" if qid is not None else ""
        sql = (f"SELECT id, kind, grade, qid, docid, assessor FROM events WHERE kind IN "
               f"({', '.join('?' * len(kinds))}){of_query} AND (id, qid, docid, assessor) "
               f"NOT IN (SELECT ref, qid, docid, assessor FROM events WHERE kind = 'undo' "
               f"AND ref IS NOT NULL{of_query})")
        args: list[Any] = list(kinds)
        if qid is not None:
            args += [qid, qid]
        if assessor is not None:
            sql += " AND assessor = ?"
            args.append(assessor)
        if not_assessor is not None:
            sql += " AND assessor != ?"
            args.append(not_assessor)
        return iter(self.conn.execute(sql + " ORDER BY id", args))

    # -- judging sessions (claims) and assessors' highlight terms --------------------------
    def session_claim(self, assessor: str) -> tuple[str, str, int, str, str] | None:
        """``(assessor, host, pid, since, heartbeat)`` of the live-session claim, if any."""
        row = self.conn.execute("SELECT assessor, host, pid, since, heartbeat FROM "
                                "session_claims WHERE assessor = ?", (assessor,)).fetchone()
        return tuple(row) if row else None  # type: ignore[return-value]

    def take_session_claim(self, assessor: str, host: str, pid: int, now: str,
                           may_replace: Callable[[tuple[str, str, int, str, str]], bool],
                           ) -> tuple[str, str, int, str, str] | None:
        """Claim ``assessor`` for (host, pid) in one transaction unless another claim stands
        that ``may_replace`` refuses to replace; returns that claim, or None when taken."""
        with self.transaction() as c:
            held = self.session_claim(assessor)
            if held is not None and held[1:3] != (host, pid) and not may_replace(held):
                return held
            c.execute("INSERT INTO session_claims VALUES (?, ?, ?, ?, ?) "
                      "ON CONFLICT (assessor) DO UPDATE SET host = excluded.host, "
                      "pid = excluded.pid, since = excluded.since, "
                      "heartbeat = excluded.heartbeat", (assessor, host, pid, now, now))
        return None

    def renew_session_claim(self, assessor: str, host: str, pid: int, now: str) -> bool:
        """Renew the heartbeat; False when the claim is no longer (host, pid)'s."""
        with self.transaction() as c:
            return c.execute("UPDATE session_claims SET heartbeat = ? WHERE assessor = ? AND "
                             "host = ? AND pid = ?", (now, assessor, host, pid)).rowcount == 1

    def release_session_claim(self, assessor: str, host: str, pid: int) -> None:
        with self.transaction() as c:
            c.execute("DELETE FROM session_claims WHERE assessor = ? AND host = ? AND pid = ?",
                      (assessor, host, pid))

    def assessor_terms(self, assessor: str, qid: str) -> list[str]:
        """Words the assessor added to the query's highlighting, in the order added."""
        return [t for (t,) in self.conn.execute(
            "SELECT term FROM assessor_terms WHERE assessor = ? AND qid = ? "
            "ORDER BY added_at, term", (assessor, qid))]

    def toggle_assessor_term(self, assessor: str, qid: str, term: str, now: str) -> bool:
        """Add the term, or remove it when it is there; True when added."""
        with self.transaction() as c:
            if c.execute("DELETE FROM assessor_terms WHERE assessor = ? AND qid = ? AND "
                         "term = ?", (assessor, qid, term)).rowcount:
                return False
            c.execute("INSERT INTO assessor_terms VALUES (?, ?, ?, ?)",
                      (assessor, qid, term, now))
        return True

    def latest_skips(self, assessor: str) -> dict[tuple[str, str], int]:
        """(qid, docid) -> id of the assessor's latest skip of it."""
        return {(q, d): i for i, q, d in self.conn.execute(
            "SELECT id, qid, docid FROM events WHERE assessor = ? AND kind = 'skip' ORDER BY id",
            (assessor,))}

    def timings(self, kind: str, assessor: str | None = None, limit: int | None = None,
                ) -> list[tuple[str, str, str | None, str | None]]:
        """``(qid, assessor, shown_at, judged_at)`` of events of ``kind``, oldest first;
        with ``limit``, only the last ``limit`` of them (of ``assessor`` when given)."""
        sql = "SELECT qid, assessor, shown_at, judged_at FROM events WHERE kind = ?"
        args: list[Any] = [kind]
        if assessor is not None:
            sql += " AND assessor = ?"
            args.append(assessor)
        if limit is None:
            return self.conn.execute(sql + " ORDER BY id", args).fetchall()
        rows = self.conn.execute(sql + " ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall()
        return rows[::-1]

    def labelled_pairs_in_order(self) -> list[tuple[str, str]]:
        """Every (qid, docid) any event names, in the order they were first named."""
        return self.conn.execute(
            "SELECT qid, docid FROM events GROUP BY qid, docid ORDER BY MIN(id)").fetchall()
