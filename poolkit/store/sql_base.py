"""The base of the SQL both store backends run: the parameter mark, the one filter on who
made an event, the schema version and whole-table reads (see ``store.queries``)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from poolkit.io.scale import DEFAULT_SCALE, GradeScale
from poolkit.store.handle import Handle, identifier
from poolkit.store.records import GOLD, GRADING_KINDS, MACHINE, PERSON


class SqlBase(Handle):
    """What the shared SQL needs of a backend: its ``mark`` and its ``transaction``."""

    #: how this backend's driver spells one query parameter
    mark = "?"
    read_only: bool

    def transaction(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def pooled_pairs(self, max_version: int | None = None) -> set[tuple[str, str]]:
        """(qid, docid) of every pair pooled in ``max_version`` or earlier (``PoolSql``)."""
        raise NotImplementedError

    def _marks(self, n: int) -> str:
        return ", ".join([self.mark] * n)

    def _and(self, *terms: tuple[str, Any]) -> tuple[str, list[Any]]:
        """A read's optional filters: `` AND <column op> ?`` for each (``"qid ="``, value)
        whose value is not None, and those values in order."""
        given = [(test, value) for test, value in terms if value is not None]
        return "".join(f" AND {test} {self.mark}" for test, _ in given), [v for _, v in given]

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

    # -- the grade scale: ``meta.grades`` (io.scale); none recorded is the 0-3 scale ------
    def recorded_scale(self) -> GradeScale | None:
        """The scale the store recorded, or None (a store that never had another than the
        default 0-3, which every store before scales had)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='grades'").fetchone()
        return GradeScale.from_json(row[0]) if row else None

    @property
    def grade_scale(self) -> GradeScale:
        """The scale grades written to this store must be on (read once per handle)."""
        if getattr(self, "_scale", None) is None:
            self._scale = self.recorded_scale() or DEFAULT_SCALE
        return self._scale

    def record_scale(self, scale: GradeScale) -> None:
        """Record ``scale`` as the store's (``poolkit.collection`` first checks that no
        grade already given contradicts it)."""
        with self.transaction():
            self._upsert_meta("grades", scale.to_json())
        self._scale = scale

    def top_grade_given(self) -> int | None:
        """The highest grade of any grading event, a person's or a machine's, or of an answer
        on a gold pair (None: none)."""
        kinds = ", ".join(f"'{k}'" for k in (*GRADING_KINDS, GOLD))
        row = self.conn.execute(f"SELECT MAX(grade) FROM events WHERE kind IN ({kinds})"
                                ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def _upsert_meta(self, key: str, value: str) -> None:
        p = self.mark
        self.conn.execute(f"INSERT INTO meta (key, value) VALUES ({p}, {p}) "
                          "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    # -- whole tables: what `poolkit store copy` moves between backends ---------------------
    def count_rows(self, table: str) -> int:
        return int(self.conn.execute(
            f"SELECT COUNT(*) FROM {identifier(table)}").fetchone()[0])

    def table_rows(self, table: str, columns: list[str]) -> list[tuple[Any, ...]]:
        """Every row of ``table`` (those ``columns``) in insertion order."""
        cols = ", ".join(map(identifier, columns))
        return [tuple(r) for r in self.conn.execute(
            f"SELECT {cols} FROM {identifier(table)} ORDER BY rowid")]
