"""The store contract's methods in the SQL both backends run, written once.

Each statement is in the common ground of SQLite and PostgreSQL (``ON CONFLICT`` rather than
``INSERT OR REPLACE``, ``RETURNING`` rather than ``lastrowid``, ``rowid`` only to order by
insertion: PostgreSQL tables have a ``rowid`` column for it) and spells a parameter with the
backend's ``mark`` (``?`` for sqlite3, ``%s`` for psycopg); nothing translates it afterwards.
What the engines do differently (opening, transactions, the schema, whole-table access) is
each backend's own: ``store.store.Store`` (SQLite) and ``store.postgres.PgStore``.

The rules every backend keeps are stated here: an append-only event log, idempotent
pooling, versioned pools with provenance. Readers of the judgment log see people's events
only, unless asked for one machine judge's (``machine=NAME``): a machine judge's grades
never mix into people's labels, agreement or status (see ``records.Event.origin``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any

from poolkit.errors import StoreError
from poolkit.store.handle import Handle, identifier
from poolkit.store.records import (
    EVENT_COLUMNS,
    GRADING_KINDS,
    MACHINE,
    PERSON,
    Event,
    NewMember,
    PoolMember,
    QueryRecord,
    SampleRecord,
    Source,
    event_row,
    now,
    system_record,
    text_hash,
)


class StoreQueries(Handle):
    """The shared half of a store backend: every contract method that is plain SQL."""

    #: how this backend's driver spells one query parameter
    mark = "?"
    read_only: bool

    def transaction(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _marks(self, n: int) -> str:
        return ", ".join([self.mark] * n)

    def _origin(self, machine: str | None) -> tuple[str, list[Any]]:
        """The condition that keeps people's events (``machine`` None) or one machine
        judge's (its name): the one filter every reader of the log goes through."""
        if machine is None:
            return f" AND origin = '{PERSON}'", []
        return f" AND origin = '{MACHINE}' AND assessor = {self.mark}", [machine]

    def check_writable(self) -> None:
        """Raise the StoreError a write would raise (read-only, locked...), writing nothing:
        ``pool`` asks before it spends minutes retrieving."""
        with self.transaction():
            pass

    @property
    def schema_version(self) -> int:
        return int(self.conn.execute(
            "SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])

    def _upsert_meta(self, key: str, value: str) -> None:
        p = self.mark
        self.conn.execute(f"INSERT INTO meta (key, value) VALUES ({p}, {p}) "
                          "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    # -- queries and texts ----------------------------------------------------------------
    def upsert_queries(self, queries: Iterable[QueryRecord]) -> None:
        with self.transaction() as c:
            c.executemany(
                f"INSERT INTO queries VALUES ({self._marks(4)}) ON CONFLICT(qid) DO UPDATE SET "
                "text=excluded.text, description=excluded.description, "
                "narrative=excluded.narrative",
                [(q.qid, q.text, q.description, q.narrative) for q in queries])

    def queries(self) -> dict[str, QueryRecord]:
        rows = self.conn.execute("SELECT qid, text, description, narrative FROM queries "
                                 "ORDER BY rowid")
        return {r[0]: QueryRecord(*r) for r in rows}

    def text(self, hash_: str) -> tuple[str, str]:
        """(title, body) of a stored text."""
        row = self.conn.execute(f"SELECT title, body FROM texts WHERE hash={self.mark}",
                                (hash_,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no text with hash {hash_[:12]}")
        return row[0], row[1]

    # -- systems --------------------------------------------------------------------------
    def register_system(self, name: str, kind: str, settings: Mapping[str, Any],
                        run_sha256: str | None = None, run_path: str | None = None,
                        group: str | None = None) -> None:
        with self.transaction() as c:
            c.execute(
                f"INSERT INTO systems VALUES ({self._marks(7)}) ON CONFLICT(name) DO UPDATE "
                "SET kind=excluded.kind, grp=excluded.grp, settings=excluded.settings, "
                "run_sha256=excluded.run_sha256, run_path=excluded.run_path",
                (name, kind, group, json.dumps(dict(settings), sort_keys=True, default=str),
                 run_sha256, run_path, now()))

    def systems(self) -> dict[str, dict[str, Any]]:
        """Each system's latest registration (see ``pool_version_systems`` for history)."""
        rows = self.conn.execute(
            "SELECT name, kind, grp, settings, run_sha256, run_path, registered_at FROM systems")
        return {r[0]: {**system_record(r[1:6]), "registered_at": r[6]} for r in rows}

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
            sql += f" WHERE version <= {self.mark}"
            args = (max_version,)
        out: dict[int, dict[str, dict[str, Any]]] = {}
        for r in self.conn.execute(sql + " ORDER BY version, rowid", args):
            out.setdefault(r[0], {})[r[1]] = {**system_record(r[2:7]), "backfilled": bool(r[7])}
        return out

    # -- pools ----------------------------------------------------------------------------
    def pool_versions(self) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT version, created_at, depths, order_strategy, note "
                                 "FROM pool_versions ORDER BY version")
        return [{"version": r[0], "created_at": r[1], "depths": json.loads(r[2]),
                 "order_strategy": r[3], "note": r[4]} for r in rows]

    def latest_pool_version(self) -> int | None:
        row = self.conn.execute("SELECT MAX(version) FROM pool_versions").fetchone()
        return row[0]  # type: ignore[no-any-return]

    def add_pool_version(self, depths: Mapping[str, int], order_strategy: str,
                         members: Iterable[NewMember],
                         sources: Iterable[tuple[str, str, str, int, float | None]],
                         note: str | None = None,
                         design: Iterable[SampleRecord] = ()) -> int | None:
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
        p = self.mark
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
            c.execute(f"INSERT INTO pool_versions VALUES ({self._marks(5)})",
                      (version, now(), json.dumps(dict(depths), sort_keys=True),
                       order_strategy, note))
            c.executemany(f"INSERT INTO texts VALUES ({self._marks(3)}) ON CONFLICT DO NOTHING",
                          [(text_hash(m.title, m.body), m.title, m.body) for m in new_members])
            c.executemany(f"INSERT INTO pool_members VALUES ({self._marks(5)})",
                          [(m.qid, m.docid, version, text_hash(m.title, m.body), m.order_key)
                           for m in new_members])
            c.executemany(f"INSERT INTO pool_sources VALUES ({self._marks(6)})",
                          [(q, d, s, r, sc, version) for q, d, s, r, sc in new_sources])
            c.executemany(f"INSERT INTO pool_sample VALUES ({self._marks(6)})",
                          [(r.qid, r.docid, version, r.stratum, r.inclusion, int(r.sampled))
                           for r in new_design])
            names = list(dict(depths))
            c.execute("INSERT INTO pool_version_systems (version, system, kind, grp, settings, "
                      f"run_sha256, run_path) SELECT {p}, name, kind, grp, settings, run_sha256, "
                      f"run_path FROM systems WHERE name IN ({self._marks(len(names))})",
                      (version, *names))
            return int(version)

    def pool_sample(self, max_version: int | None = None) -> list[SampleRecord]:
        """A sampled pool's design, every pooled pair (drawn or not), by query then doc id;
        empty for a pool that is not a sample."""
        sql = "SELECT qid, docid, stratum, inclusion, sampled FROM pool_sample"
        args: tuple[Any, ...] = ()
        if max_version is not None:
            sql, args = sql + f" WHERE version <= {self.mark}", (max_version,)
        rows = self.conn.execute(sql + " ORDER BY qid, docid", args)
        return [SampleRecord(q, d, s, p, bool(x)) for q, d, s, p, x in rows]

    def pool(self, qid: str | None = None, max_version: int | None = None) -> list[PoolMember]:
        """Pooled docs in judging order: by query (store order), then version, then order key."""
        cols = "m.qid, m.docid, m.version, m.text_hash, m.order_key"
        return [PoolMember(*r) for r in self._pool_query(cols, qid, max_version)]

    def pool_rows(self, max_version: int | None = None) -> list[tuple[str, str, int, str]]:
        """``(qid, docid, version, text_hash)`` in ``pool``'s order, as plain tuples: what the
        judging screens and exports read, cheap for 100,000s of rows."""
        cols = "m.qid, m.docid, m.version, m.text_hash"
        return self._pool_query(cols, None, max_version).fetchall()  # type: ignore[no-any-return]

    def _pool_query(self, columns: str, qid: str | None, max_version: int | None) -> Any:
        sql = (f"SELECT {columns} FROM pool_members m "
               "LEFT JOIN queries q ON q.qid = m.qid WHERE 1=1")
        args: list[Any] = []
        if qid is not None:
            sql += f" AND m.qid = {self.mark}"
            args.append(qid)
        if max_version is not None:
            sql += f" AND m.version <= {self.mark}"
            args.append(max_version)
        # The one judging order: queries in store order, then version, order key, doc id.
        sql += " ORDER BY COALESCE(q.rowid, 1e18), m.qid, m.version, m.order_key, m.docid"
        return self.conn.execute(sql, args)

    def sources(self, qid: str | None = None) -> dict[tuple[str, str], list[Source]]:
        sql = "SELECT qid, docid, system, rank, score, version FROM pool_sources"
        args: tuple[Any, ...] = ()
        if qid is not None:
            sql += f" WHERE qid = {self.mark}"
            args = (qid,)
        out: dict[tuple[str, str], list[Source]] = {}
        for q, d, s, r, sc, v in self.conn.execute(sql + " ORDER BY rank, system", args):
            out.setdefault((q, d), []).append(Source(s, r, sc, v))
        return out

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
            return int(known[-1])
        if version not in known:
            have = ", ".join(map(str, known)) or "none (run `poolkit pool` first)"
            raise StoreError(f"{self.path}: no pool version {version}; the store has {have}")
        return version

    def pooled_pairs(self, max_version: int | None = None) -> set[tuple[str, str]]:
        """(qid, docid) of every pair pooled in ``max_version`` or earlier (None: all)."""
        sql = "SELECT qid, docid FROM pool_members"
        args: tuple[Any, ...] = ()
        if max_version is not None:
            sql, args = sql + f" WHERE version <= {self.mark}", (max_version,)
        return set(self.conn.execute(sql, args).fetchall())

    # -- the judgment log -----------------------------------------------------------------
    def _insert_event(self) -> str:
        return (f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) "
                f"VALUES ({self._marks(len(EVENT_COLUMNS))})")

    def record_event(self, event: Event) -> int:
        """Append one event; durable when this returns. Returns its id."""
        row = event_row(event)
        with self.transaction() as c:
            return int(c.execute(self._insert_event() + " RETURNING id", row).fetchone()[0])

    def record_event_once(self, event: Event) -> int:
        """``record_event`` for a retry: when an event equal to ``event`` in every column is
        already logged (the earlier attempt committed but its answer was lost with the
        connection), its id is returned and nothing is added. So a write retried after a
        failure it cannot see the outcome of is in the log exactly once."""
        row = event_row(event)
        machine = event.assessor if event.origin == MACHINE else None
        with self.transaction() as c:
            for e in self.events(qid=event.qid, assessor=event.assessor, kinds=[event.kind],
                                 machine=machine):
                if e.docid == event.docid and event_row(e) == row:
                    return int(e.id)  # type: ignore[arg-type]
            return int(c.execute(self._insert_event() + " RETURNING id", row).fetchone()[0])

    def record_events(self, events: Iterable[Event]) -> int:
        """Append many events in one transaction (imports); returns how many."""
        rows = [event_row(e) for e in events]
        with self.transaction() as c:
            c.executemany(self._insert_event(), rows)
        return len(rows)

    def events(self, qid: str | None = None, assessor: str | None = None,
               kinds: Iterable[str] | None = None, machine: str | None = None) -> list[Event]:
        """Logged events in id order: people's, or machine judge ``machine``'s."""
        p = self.mark
        origin, args = self._origin(machine)
        sql = f"SELECT id, {', '.join(EVENT_COLUMNS)} FROM events WHERE 1=1{origin}"
        if qid is not None:
            sql += f" AND qid = {p}"
            args.append(qid)
        if assessor is not None:
            sql += f" AND assessor = {p}"
            args.append(assessor)
        if kinds is not None:
            kinds = list(kinds)
            sql += f" AND kind IN ({self._marks(len(kinds))})"
            args.extend(kinds)
        rows = self.conn.execute(sql + " ORDER BY id", args)
        return [Event(**dict(zip(EVENT_COLUMNS, r[1:])), id=r[0]) for r in rows]

    def current_grades(self, max_pool_version: int | None = None,
                       kinds: Iterable[str] = GRADING_KINDS, machine: str | None = None,
                       ) -> dict[tuple[str, str], dict[str, Event]]:
        """Each assessor's standing grade per (qid, docid): ``{pair: {assessor: event}}``.

        Replays the log: a grading event pushes onto that assessor's stack for the pair, an
        undo pops the event it names (``ref``). What is on top is the standing grade.
        With ``max_pool_version``, only pairs pooled in that version or earlier count
        (labels "as of" a pool version); imported labels for unpooled pairs are then left out.
        People's grades, or with ``machine`` that machine judge's.
        """
        kinds = set(kinds)
        stacks: dict[tuple[str, str, str], list[Event]] = {}
        for e in self.events(kinds=[*kinds, "undo"], machine=machine):
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

    def assessors(self) -> list[str]:
        """The people who have events in the log (machine judges: ``machine_judges``)."""
        return [r[0] for r in self.conn.execute(
            f"SELECT DISTINCT assessor FROM events WHERE origin = '{PERSON}' ORDER BY assessor")]

    def machine_judges(self) -> list[str]:
        """The machine judges that have events in the log, by name."""
        return [r[0] for r in self.conn.execute(
            f"SELECT DISTINCT assessor FROM events WHERE origin = '{MACHINE}' "
            "ORDER BY assessor")]

    # -- read side of the judgment log (what judging, labels and status need fast) ----------
    def live_marks(self, kinds: Iterable[str], assessor: str | None = None,
                   not_assessor: str | None = None, qid: str | None = None,
                   machine: str | None = None,
                   ) -> Iterator[tuple[int, str, int | None, str, str, str]]:
        """``(id, kind, grade, qid, docid, assessor)`` of live events of ``kinds`` in id order.

        Live = not named by an undo of the same pair and assessor. An undo pops the event its
        ``ref`` names from that (pair, assessor) stack wherever it sits, and stacks are in id
        order, so the standing grade is the live event with the highest id: the rule of
        ``current_grades``, done inside the database. ``assessor`` keeps one assessor's,
        ``not_assessor`` everyone else's; ``qid`` one query's (through the (qid, docid)
        index: what a judging decision reads, whatever the size of the log). People's
        events, or with ``machine`` that machine judge's.
        """
        p = self.mark
        kinds = list(kinds)
        of_query = f" AND qid = {p}" if qid is not None else ""
        origin, of_origin = self._origin(machine)
        sql = (f"SELECT id, kind, grade, qid, docid, assessor FROM events WHERE kind IN "
               f"({self._marks(len(kinds))}){of_query}{origin} AND (id, qid, docid, assessor) "
               f"NOT IN (SELECT ref, qid, docid, assessor FROM events WHERE kind = 'undo' "
               f"AND ref IS NOT NULL{of_query})")
        args: list[Any] = list(kinds)
        if qid is not None:
            args.append(qid)
        args += of_origin
        if qid is not None:
            args.append(qid)
        if assessor is not None:
            sql += f" AND assessor = {p}"
            args.append(assessor)
        if not_assessor is not None:
            sql += f" AND assessor != {p}"
            args.append(not_assessor)
        return iter(self.conn.execute(sql + " ORDER BY id", args))

    def latest_skips(self, assessor: str) -> dict[tuple[str, str], int]:
        """(qid, docid) -> id of the assessor's latest skip of it (people skip; machines
        do not)."""
        return {(q, d): i for i, q, d in self.conn.execute(
            f"SELECT id, qid, docid FROM events WHERE assessor = {self.mark} AND kind = 'skip' "
            f"AND origin = '{PERSON}' ORDER BY id", (assessor,))}

    def timings(self, kind: str, assessor: str | None = None, limit: int | None = None,
                ) -> list[tuple[str, str, str | None, str | None]]:
        """``(qid, assessor, shown_at, judged_at)`` of people's events of ``kind``, oldest
        first; with ``limit``, only the last ``limit`` of them (of ``assessor`` when given)."""
        p = self.mark
        sql = f"SELECT qid, assessor, shown_at, judged_at FROM events WHERE kind = {p}"
        sql += f" AND origin = '{PERSON}'"
        args: list[Any] = [kind]
        if assessor is not None:
            sql += f" AND assessor = {p}"
            args.append(assessor)
        if limit is None:
            return self.conn.execute(sql + " ORDER BY id", args).fetchall()  # type: ignore[no-any-return]
        rows = self.conn.execute(sql + f" ORDER BY id DESC LIMIT {p}",
                                 (*args, limit)).fetchall()
        return rows[::-1]  # type: ignore[no-any-return]

    def labelled_pairs_in_order(self, machine: str | None = None) -> list[tuple[str, str]]:
        """Every (qid, docid) any of people's events (or machine judge ``machine``'s) names,
        in the order they were first named."""
        origin, args = self._origin(machine)
        return self.conn.execute(  # type: ignore[no-any-return]
            f"SELECT qid, docid FROM events WHERE 1=1{origin} GROUP BY qid, docid "
            "ORDER BY MIN(id)", args).fetchall()

    # -- passages on screen ---------------------------------------------------------------
    def mark_shown(self, assessor: str, qid: str, docid: str, at: str | None = None) -> None:
        """Record the passage ``assessor`` now looks at (replacing the one before)."""
        with self.transaction() as c:
            c.execute(f"INSERT INTO shown_passages VALUES ({self._marks(4)}) ON CONFLICT "
                      "(assessor) DO UPDATE SET qid = excluded.qid, docid = excluded.docid, "
                      "shown_at = excluded.shown_at", (assessor, qid, docid, at or now()))

    def shown_to_others(self, assessor: str, qid: str, since: str) -> set[str]:
        """Docs of ``qid`` other assessors have on screen, shown at ``since`` or later."""
        p = self.mark
        return {d for (d,) in self.conn.execute(
            f"SELECT docid FROM shown_passages WHERE assessor != {p} AND qid = {p} AND "
            f"shown_at >= {p}", (assessor, qid, since))}

    # -- judging sessions (claims) and assessors' highlight terms --------------------------
    def session_claim(self, assessor: str) -> tuple[str, str, int, str, str] | None:
        """``(assessor, host, pid, since, heartbeat)`` of the live-session claim, if any."""
        row = self.conn.execute("SELECT assessor, host, pid, since, heartbeat FROM "
                                f"session_claims WHERE assessor = {self.mark}",
                                (assessor,)).fetchone()
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
            c.execute(f"INSERT INTO session_claims VALUES ({self._marks(5)}) "
                      "ON CONFLICT (assessor) DO UPDATE SET host = excluded.host, "
                      "pid = excluded.pid, since = excluded.since, "
                      "heartbeat = excluded.heartbeat", (assessor, host, pid, now, now))
        return None

    def renew_session_claim(self, assessor: str, host: str, pid: int, now: str) -> bool:
        """Renew the heartbeat; False when the claim is no longer (host, pid)'s."""
        p = self.mark
        with self.transaction() as c:
            return bool(c.execute(f"UPDATE session_claims SET heartbeat = {p} WHERE "
                                  f"assessor = {p} AND host = {p} AND pid = {p}",
                                  (now, assessor, host, pid)).rowcount == 1)

    def release_session_claim(self, assessor: str, host: str, pid: int) -> None:
        p = self.mark
        with self.transaction() as c:
            c.execute(f"DELETE FROM session_claims WHERE assessor = {p} AND host = {p} AND "
                      f"pid = {p}", (assessor, host, pid))

    def assessor_terms(self, assessor: str, qid: str) -> list[str]:
        """Words the assessor added to the query's highlighting, in the order added."""
        p = self.mark
        return [t for (t,) in self.conn.execute(
            f"SELECT term FROM assessor_terms WHERE assessor = {p} AND qid = {p} "
            "ORDER BY added_at, term", (assessor, qid))]

    def toggle_assessor_term(self, assessor: str, qid: str, term: str, now: str) -> bool:
        """Add the term, or remove it when it is there; True when added."""
        p = self.mark
        with self.transaction() as c:
            if c.execute(f"DELETE FROM assessor_terms WHERE assessor = {p} AND qid = {p} AND "
                         f"term = {p}", (assessor, qid, term)).rowcount:
                return False
            c.execute(f"INSERT INTO assessor_terms VALUES ({self._marks(4)})",
                      (assessor, qid, term, now))
        return True

    # -- whole tables: what `poolkit store copy` moves between backends ---------------------
    def count_rows(self, table: str) -> int:
        return int(self.conn.execute(
            f"SELECT COUNT(*) FROM {identifier(table)}").fetchone()[0])

    def table_rows(self, table: str, columns: list[str]) -> list[tuple[Any, ...]]:
        """Every row of ``table`` (those ``columns``) in insertion order."""
        cols = ", ".join(map(identifier, columns))
        return [tuple(r) for r in self.conn.execute(
            f"SELECT {cols} FROM {identifier(table)} ORDER BY rowid")]
