"""``poolkit check-judge``'s record in the SQL both backends run (``judge_checks`` and
``canaries``, schema 13; see ``store.schema``).

A check and every canary it planted are written in one transaction, after the last answer:
a check stopped half-way (a server gone down, Ctrl-C) leaves nothing behind. Canaries are
never events: no reader of labels, exports, estimates or agreement sees them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from poolkit.store.records import now
from poolkit.store.sql_base import SqlBase


@dataclass(frozen=True)
class Canary:
    """One planted passage and what the judge said of it (``grade`` None: no grade read)."""

    kind: str          # terms | instruction | both
    qid: str
    docid: str         # the passage it was made from
    text_hash: str     # of the canary's title and body, as sent
    title: str
    body: str
    grade: int | None
    answer: str
    model: str


@dataclass(frozen=True)
class JudgeCheck:
    """One ``check-judge`` of a judge version: how it was made and its verdict; ``summary``
    is the canaries' section of the report (kind -> planted, fooled, failed, rate)."""

    judge: str
    version: str
    seed: int
    per_kind: int
    max_fooled: float
    level: int
    trusted: bool
    summary: dict[str, Any]
    id: int | None = None
    made_at: str | None = None


_COLUMNS = "id, judge, version, made_at, seed, per_kind, max_fooled, level, trusted, summary"


class CanarySql(SqlBase):
    def record_judge_check(self, check: JudgeCheck, canaries: Sequence[Canary]) -> int:
        """Record ``check`` and its ``canaries`` in one transaction; returns its number."""
        with self.transaction() as c:
            number = int(c.execute("SELECT COALESCE(MAX(id), 0) FROM judge_checks")
                         .fetchone()[0]) + 1
            c.execute(f"INSERT INTO judge_checks ({_COLUMNS}) VALUES ({self._marks(10)})",
                      (number, check.judge, check.version, check.made_at or now(), check.seed,
                       check.per_kind, check.max_fooled, check.level, int(check.trusted),
                       json.dumps(check.summary, sort_keys=True)))
            c.executemany(
                "INSERT INTO canaries (check_id, kind, qid, docid, text_hash, title, body, "
                f"grade, answer, model) VALUES ({self._marks(10)})",
                [(number, k.kind, k.qid, k.docid, k.text_hash, k.title, k.body, k.grade,
                  k.answer, k.model) for k in canaries])
        return number

    def judge_checks(self, judge: str | None = None) -> list[JudgeCheck]:
        """Every check (of ``judge``), oldest first."""
        where, params = self._and(("judge =", judge))
        rows = self.conn.execute(f"SELECT {_COLUMNS} FROM judge_checks WHERE 1 = 1{where} "
                                 "ORDER BY id", params).fetchall()
        return [JudgeCheck(judge=j, version=v, seed=int(s), per_kind=int(n),
                           max_fooled=float(m), level=int(lv), trusted=bool(t),
                           summary=json.loads(doc), id=int(i), made_at=at)
                for i, j, v, at, s, n, m, lv, t, doc in rows]

    def latest_judge_check(self, judge: str, version: str) -> JudgeCheck | None:
        """The newest check of ``judge`` at ``version``: its verdict is the version's."""
        checks = [c for c in self.judge_checks(judge) if c.version == version]
        return checks[-1] if checks else None

    def canaries(self, check: int) -> list[Canary]:
        """The canaries check number ``check`` planted, in the order they were planted."""
        rows = self.conn.execute(
            "SELECT kind, qid, docid, text_hash, title, body, grade, answer, model FROM "
            f"canaries WHERE check_id = {self.mark} ORDER BY rowid", (check,)).fetchall()
        return [Canary(k, q, d, h, t, b, None if g is None else int(g), a, m)
                for k, q, d, h, t, b, g, a, m in rows]
