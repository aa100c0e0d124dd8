"""The store's collection and pools in the SQL both backends run: queries, texts, systems,
pool versions with their members, sources and sample design (see ``store.queries``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from poolkit.errors import StoreError
from poolkit.io.sample import SampledPair
from poolkit.store.records import (
    NewMember,
    PoolMember,
    QueryRecord,
    Source,
    now,
    system_record,
    text_hash,
)
from poolkit.store.sql_base import SqlBase


class PoolSql(SqlBase):
    """Queries, texts, systems and versioned pools with provenance (idempotent pooling)."""

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

    def pool_sample(self, max_version: int | None = None) -> list[SampledPair]:
        """A sampled pool's design, every pooled pair (drawn or not), by query then doc id;
        empty for a pool that is not a sample."""
        sql = "SELECT qid, docid, stratum, inclusion, sampled FROM pool_sample"
        args: tuple[Any, ...] = ()
        if max_version is not None:
            sql, args = sql + f" WHERE version <= {self.mark}", (max_version,)
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
        return self._pool_query(cols, None, max_version).fetchall()  # type: ignore[no-any-return]

    def _pool_query(self, columns: str, qid: str | None, max_version: int | None) -> Any:
        where, args = self._and(("m.qid =", qid), ("m.version <=", max_version))
        # The one judging order: queries in store order, then version, order key, doc id.
        return self.conn.execute(
            f"SELECT {columns} FROM pool_members m LEFT JOIN queries q ON q.qid = m.qid "
            f"WHERE 1=1{where} "
            "ORDER BY COALESCE(q.rowid, 1e18), m.qid, m.version, m.order_key, m.docid", args)

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
