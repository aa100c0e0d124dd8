"""Gold checks in the SQL both backends run (``gold_sets`` and ``gold_pairs``, schema 11; see
``store.schema``).

A gold set is a ``poolkit gold``: pairs whose grade is known (the lead's, or agreed
adjudications), mixed into every assessor's judging at the set's rate. Recording a set
replaces the current one's pairs in one transaction; every set stays in ``gold_sets``.
The passages' texts go to ``texts`` first, since a gold pair need not be pooled.

Nothing an assessor may read says more than which pairs are gold (``store.pg_access``): the
file's name and sha256 are the lead's, and rows are inserted in (qid, docid) order, never
the file's, so no serial, row order or statement count follows the file (a file sorted by
grade, or its order and hash, would give the grades away).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from poolkit.store.records import now, text_hash
from poolkit.store.sql_base import SqlBase


@dataclass(frozen=True)
class GoldSet:
    """One ``poolkit gold``: the file, its sha256, the mixing rate and seed (file and sha256
    None as an assessor on PostgreSQL reads it: they are the lead's)."""

    path: str | None
    sha256: str | None
    rate: float
    seed: int
    gset: int | None = None
    made_at: str | None = None


@dataclass(frozen=True)
class GoldPair:
    """A pair of the gold set: its known grade and the text shown for it."""

    qid: str
    docid: str
    grade: int
    text_hash: str


class GoldSql(SqlBase):
    def gold_set(self) -> GoldSet | None:
        """The current (newest) gold set, or None when nobody ran ``poolkit gold``."""
        source = "path, sha256" if self.reads_gold_source() else "NULL, NULL"
        row = self.conn.execute(f"SELECT gset, made_at, {source}, rate, seed FROM gold_sets "
                                "ORDER BY gset DESC LIMIT 1").fetchone()
        if row is None:
            return None
        gset, made_at, path, sha256, rate, seed = row
        return GoldSet(path, sha256, float(rate), int(seed), int(gset), made_at)

    def reads_gold_source(self) -> bool:
        """Whether this handle may read a gold set's file and sha256 (on SQLite, whoever
        reads the file; ``PgStore`` asks the server)."""
        return True

    def gold_queue(self) -> dict[tuple[str, str], str]:
        """(qid, docid) -> text hash of the current gold set's pairs: what judging reads. Not
        their grades: on PostgreSQL an assessor may read these columns only."""
        return {(q, d): h for q, d, h in self.conn.execute(
            "SELECT qid, docid, text_hash FROM gold_pairs ORDER BY qid, docid")}

    def gold_pairs(self) -> list[GoldPair]:
        """The current gold set's pairs with their grades, by query and doc (the lead's: on
        PostgreSQL an assessor may not read the grades, a StoreError)."""
        return [GoldPair(q, d, int(g), h) for q, d, g, h in self.conn.execute(
            "SELECT qid, docid, grade, text_hash FROM gold_pairs ORDER BY qid, docid")]

    def replace_gold(self, gold: GoldSet,
                     pairs: Iterable[tuple[str, str, int, str, str]]) -> int:
        """Record ``gold`` as the current set, its pairs ``(qid, docid, grade, title, body)``
        replacing the last set's; returns the set's number. Inserted in (qid, docid) order,
        whatever the file's (see the module's docstring)."""
        p = self.mark
        rows = sorted(pairs, key=lambda r: (r[0], r[1]))
        with self.transaction() as c:
            c.executemany(f"INSERT INTO texts (hash, title, body) VALUES ({self._marks(3)}) "
                          "ON CONFLICT (hash) DO NOTHING",
                          [(text_hash(t, b), t, b) for *_, t, b in rows])
            number = int(c.execute("SELECT COALESCE(MAX(gset), 0) FROM gold_sets")
                         .fetchone()[0]) + 1
            c.execute(f"INSERT INTO gold_sets (gset, made_at, path, sha256, rate, seed) VALUES "
                      f"({self._marks(6)})",
                      (number, now(), gold.path, gold.sha256, gold.rate, gold.seed))
            c.execute("DELETE FROM gold_pairs")
            c.executemany(f"INSERT INTO gold_pairs (qid, docid, grade, text_hash, gset) VALUES "
                          f"({p}, {p}, {p}, {p}, {p})",
                          [(q, d, g, text_hash(t, b), number) for q, d, g, t, b in rows])
        return number
