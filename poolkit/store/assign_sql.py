"""Assignments with controlled overlap in the SQL both backends run (``assignment_plans`` and
``assignments``, schema 9; see ``store.schema``).

A pair of the current plan has exactly ``overlap`` slots, each open or held by one assessor.
Taking a slot is one UPDATE of an open slot, inside the write transaction that records the
grade (``claim_slot``, called by ``LogSql.record_event``): the schema's UNIQUE (pair,
assessor) and the fixed number of slots mean a pair never gets more than ``overlap``
distinct assessors, however many judge at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from poolkit.store.log_sql import SETTLING_KINDS, LogSql
from poolkit.store.records import now

#: (qid, docid) -> the holder of each slot, in slot order (None: an open slot)
Slots = dict[tuple[str, str], list[str | None]]


@dataclass(frozen=True)
class AssignmentPlan:
    """One ``poolkit assign``: its overlap, unit (``query`` or ``pair``), seed, assessors."""

    overlap: int
    unit: str
    seed: int
    assessors: tuple[str, ...]
    plan: int | None = None
    made_at: str | None = None


class AssignSql(LogSql):
    def assignment_plan(self) -> AssignmentPlan | None:
        """The current (newest) plan, or None when nobody ever ran ``assign``."""
        row = self.conn.execute("SELECT plan, made_at, overlap, unit, seed, assessors FROM "
                                "assignment_plans ORDER BY plan DESC LIMIT 1").fetchone()
        if row is None:
            return None
        plan, made_at, overlap, unit, seed, assessors = row
        return AssignmentPlan(int(overlap), unit, int(seed), tuple(json.loads(assessors)),
                              int(plan), made_at)

    def assignment_slots(self, assessor: str | None = None) -> Slots:
        """The current plan's slots (those ``assessor`` holds, with the open ones of those
        pairs, when given). Under PostgreSQL's row-level security an assessor sees only her
        own slots and open ones, whatever she asks."""
        sql = "SELECT qid, docid, slot, assessor FROM assignments"
        args: list[str] = []
        if assessor is not None:
            sql += (f" WHERE (qid, docid) IN (SELECT qid, docid FROM assignments WHERE "
                    f"assessor = {self.mark})")
            args.append(assessor)
        out: Slots = {}
        for qid, docid, _, holder in self.conn.execute(sql + " ORDER BY qid, docid, slot",
                                                        args):
            out.setdefault((qid, docid), []).append(holder)
        return out

    def assigned_pairs(self) -> list[tuple[str, str]]:
        """The current plan's pairs (readable by everyone: they name nobody)."""
        return [(q, d) for q, d in self.conn.execute(
            "SELECT qid, docid FROM assigned_pairs ORDER BY qid, docid")]

    def open_slots(self) -> set[tuple[str, str]]:
        """Pairs of the plan with an open slot: work for anyone not holding one of them."""
        return {(q, d) for q, d in self.conn.execute(
            "SELECT DISTINCT qid, docid FROM assignments WHERE assessor IS NULL")}

    def replace_assignment(self, plan: AssignmentPlan,
                           make: Callable[[Slots, dict[tuple[str, str], list[str]]], Slots],
                           ) -> tuple[int, Slots]:
        """Record ``plan`` as the current one, its slots ``make(current_slots, settled)``
        where ``settled`` is who has settled each pair (a standing grade or a can't-judge,
        oldest first), both read inside the write transaction: nobody's grade falls between
        the reading and the writing. Returns the plan's number and its slots."""
        with self.transaction() as c:
            settled = self.settled_pairs()
            slots = make(self.assignment_slots(), settled)
            number = int(c.execute("SELECT COALESCE(MAX(plan), 0) FROM assignment_plans")
                         .fetchone()[0]) + 1
            c.execute(f"INSERT INTO assignment_plans (plan, made_at, overlap, unit, seed, "
                      f"assessors) VALUES ({self._marks(6)})",
                      (number, now(), plan.overlap, plan.unit, plan.seed,
                       json.dumps(list(plan.assessors))))
            c.execute("DELETE FROM assignments")
            c.execute("DELETE FROM assigned_pairs")
            c.executemany(f"INSERT INTO assigned_pairs (qid, docid, plan) VALUES "
                          f"({self._marks(3)})", [(q, d, number) for q, d in slots])
            c.executemany(f"INSERT INTO assignments (qid, docid, slot, assessor, plan) VALUES "
                          f"({self._marks(5)})",
                          [(q, d, i, who, number) for (q, d), holders in slots.items()
                           for i, who in enumerate(holders)])
        return number, slots

    def settled_pairs(self) -> dict[tuple[str, str], list[str]]:
        """(qid, docid) -> the people with a live grade or can't-judge on it, by first id."""
        out: dict[tuple[str, str], list[str]] = {}
        for _, _, _, qid, docid, assessor in self.live_marks(SETTLING_KINDS):
            holders = out.setdefault((qid, docid), [])
            if assessor not in holders:
                holders.append(assessor)
        return out

    def claim_slot(self, assessor: str, qid: str, docid: str) -> bool:
        """Whether ``assessor`` may settle the pair: it is in no plan, she holds a slot of it,
        or she takes its first open slot now. False: the pair has its overlap without her.
        Call inside the write transaction (``record_event`` does)."""
        p = self.mark
        with self.transaction() as c:
            if c.execute(f"SELECT 1 FROM assigned_pairs WHERE qid = {p} AND docid = {p}",
                         (qid, docid)).fetchone() is None:
                return True
            if c.execute(f"SELECT 1 FROM assignments WHERE qid = {p} AND docid = {p} AND "
                         f"assessor = {p}", (qid, docid, assessor)).fetchone() is not None:
                return True
            taken = c.execute(
                f"UPDATE assignments SET assessor = {p} WHERE qid = {p} AND docid = {p} AND "
                f"slot = (SELECT MIN(slot) FROM assignments WHERE qid = {p} AND docid = {p} "
                f"AND assessor IS NULL)", (assessor, qid, docid, qid, docid)).rowcount
            return bool(taken == 1)
