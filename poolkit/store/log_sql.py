"""The judgment log in the SQL both backends run: appending events, reading the standing
grades, and the judging screen's passages shown, session claims and terms (see
``store.queries``). Readers see people's events unless asked for one machine judge's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from poolkit.errors import OverlapFull
from poolkit.store.records import (
    EVENT_COLUMNS,
    GOLD,
    GRADING_KINDS,
    MACHINE,
    PERSON,
    Event,
    event_row,
    now,
)
from poolkit.store.sql_base import SqlBase

#: The event kinds that settle a pair for its assessor (what holding a slot is for).
SETTLING_KINDS = ("grade", "cant_judge")


class LogSql(SqlBase):
    """The append-only judgment log and what judging sessions keep beside it."""

    def claim_slot(self, assessor: str, qid: str, docid: str) -> bool:
        raise NotImplementedError  # AssignSql

    # -- the judgment log -----------------------------------------------------------------
    def _insert_event(self) -> str:
        return (f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) "
                f"VALUES ({self._marks(len(EVENT_COLUMNS))})")

    def record_event(self, event: Event) -> int:
        """Append one event; durable when this returns. Returns its id.

        A person's grade or can't-judge on a pair of the assignment plan first takes the
        person's slot of it in the same transaction (``AssignSql.claim_slot``): a pair that
        has its overlap without her raises ``OverlapFull`` and records nothing."""
        row = event_row(event, self.grade_scale)
        with self.transaction() as c:
            self._take_slot(event)
            return int(c.execute(self._insert_event() + " RETURNING id", row).fetchone()[0])

    def record_event_once(self, event: Event) -> int:
        """``record_event`` for a retry: when an event equal to ``event`` in every column is
        already logged (the earlier attempt committed but its answer was lost with the
        connection), its id is returned and nothing is added. So a write retried after a
        failure it cannot see the outcome of is in the log exactly once."""
        row = event_row(event, self.grade_scale)
        machine = event.assessor if event.origin == MACHINE else None
        with self.transaction() as c:
            for e in self.events(qid=event.qid, assessor=event.assessor, kinds=[event.kind],
                                 machine=machine):
                if e.docid == event.docid and event_row(e, self.grade_scale) == row:
                    return int(e.id)  # type: ignore[arg-type]
            self._take_slot(event)
            return int(c.execute(self._insert_event() + " RETURNING id", row).fetchone()[0])

    def _take_slot(self, event: Event) -> None:
        """Inside the write transaction: a person's grade or can't-judge on a planned pair
        takes her slot of it, or raises ``OverlapFull`` (nothing recorded)."""
        if event.origin == PERSON and event.kind in SETTLING_KINDS and not \
                self.claim_slot(event.assessor, event.qid, event.docid):
            raise OverlapFull(f"{self.path}: query {event.qid!r} doc {event.docid!r} "
                              f"already has its assessors; {event.assessor} gets other work")

    def record_events(self, events: Iterable[Event]) -> int:
        """Append many events in one transaction (imports); returns how many."""
        rows = [event_row(e, self.grade_scale) for e in events]
        with self.transaction() as c:
            c.executemany(self._insert_event(), rows)
        return len(rows)

    def events(self, qid: str | None = None, assessor: str | None = None,
               kinds: Iterable[str] | None = None, machine: str | None = None) -> list[Event]:
        """Logged events in id order: people's, or machine judge ``machine``'s."""
        origin, args = self._origin(machine)
        where, values = self._and(("qid =", qid), ("assessor =", assessor))
        sql = f"SELECT id, {', '.join(EVENT_COLUMNS)} FROM events WHERE 1=1{origin}{where}"
        args += values
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
            allowed = self.pooled_pairs(max_pool_version)
        out: dict[tuple[str, str], dict[str, Event]] = {}
        for (q, d, a), stack in stacks.items():
            if stack and (allowed is None or (q, d) in allowed):
                out.setdefault((q, d), {})[a] = stack[-1]
        return out

    def assessors(self) -> list[str]:
        """The people who have events in the log (machine judges: ``machine_judges``)."""
        return [r[0] for r in self.conn.execute(
            f"SELECT DISTINCT assessor FROM events WHERE origin = '{PERSON}' ORDER BY assessor")]

    def has_events_as(self, assessor: str, origin: str) -> bool:
        """Whether ``assessor`` has any event of ``origin`` (``person`` or ``machine``): a
        name is a person's or a machine judge's, never both (``Collection.assessor``)."""
        return self.conn.execute(
            f"SELECT 1 FROM events WHERE assessor = {self.mark} AND origin = {self.mark} "
            "LIMIT 1", (assessor, origin)).fetchone() is not None

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
        where, values = self._and(("assessor =", assessor), ("assessor !=", not_assessor))
        return iter(self.conn.execute(sql + where + " ORDER BY id", args + values))

    def latest_skips(self, assessor: str) -> dict[tuple[str, str], int]:
        """(qid, docid) -> id of the assessor's latest skip of it (people skip; machines
        do not)."""
        return {(q, d): i for i, q, d in self.conn.execute(
            f"SELECT id, qid, docid FROM events WHERE assessor = {self.mark} AND kind = 'skip' "
            f"AND origin = '{PERSON}' ORDER BY id", (assessor,))}

    def timings(self, kind: str, assessor: str | None = None, limit: int | None = None,
                live: bool = False) -> list[tuple[str, str, str | None, str | None]]:
        """``(qid, assessor, shown_at, judged_at)`` of people's events of ``kind``, oldest
        first; with ``limit``, only the last ``limit`` of them (of ``assessor`` when given);
        with ``live``, only those no undo names (as ``live_marks``)."""
        p = self.mark
        sql = f"SELECT qid, assessor, shown_at, judged_at FROM events WHERE kind = {p}"
        sql += f" AND origin = '{PERSON}'"
        if live:
            sql += (" AND (id, qid, docid, assessor) NOT IN (SELECT ref, qid, docid, assessor "
                    "FROM events WHERE kind = 'undo' AND ref IS NOT NULL)")
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
        in the order they were first named; answers on gold pairs (``gold``) are no label
        and name none."""
        origin, args = self._origin(machine)
        return self.conn.execute(  # type: ignore[no-any-return]
            f"SELECT qid, docid FROM events WHERE kind != '{GOLD}'{origin} GROUP BY qid, docid "
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
