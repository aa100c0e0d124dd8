"""One assessor's judging session: what to show next and which events record what they did.

Kept apart from the widgets so every rule is testable without a terminal. The app builds an
event (``grade_event`` ...), writes it to the store off the UI thread, then calls ``apply``
with the new event id; only then does the next passage show. ``commit`` does both in one call
for scripts and tests.

Rules
- Walk order is the pool's judging order (``Store.pool``: query order, then version, then
  the order key the pooling strategy assigned). Only pairs pooled up to the session's pool
  version are shown; a session opened without a version takes in a newer one at the next
  change of query.
- Pending = this assessor holds no standing grade on the pair (``adjudicate`` mode: nobody
  holds a standing adjudication; ``review`` mode: this assessor holds none). What comes
  after a grade, a regrade or a skip is decided in one place, ``next_item``: after a first
  grade or a skip, the next pending passage of the same query, then that query's skipped
  passages (earliest skip first), then the following queries; after a regrade, the passage
  that follows in judging order. Reopening the app starts at the first pending passage, so
  a session resumes where it left.
- A grade key within ``min_display`` seconds of a passage appearing is refused (TooSoon):
  a double tap must not grade a passage nobody read.
- ``position`` on every event is the passage's 1-based place in its query's judging order
  (what the screen shows as "passage i of n"); ``pool_version`` is the version that pooled it.
- Undo appends an ``undo`` event naming the assessor's latest standing grade of this mode's
  kind (repeat to go further back) and shows that passage again. History is never rewritten.
- Back re-shows the previously shown passage, back into earlier sessions; ``move`` steps
  through the judging order without grading; grading a shown passage again is a regrade.
  A passage opened from the review list (``show(item, return_to=...)``) returns, once graded,
  to the passage the assessor was on; ``next_unjudged`` goes to the next pending passage.
- A note is recorded at once as a ``note`` event, and also carried on the grade that follows.
- With an assignment plan (``poolkit assign``) the judge mode serves the pairs this assessor
  holds a slot of and those with an open slot; a pair filled by others meanwhile is refused
  by the store (``OverlapFull``) and leaves the walk: she gets other work.
- Can't judge (``cant_judge_event``) is its own event, with its reason as the note: the pair
  is done for this assessor, is never a label, and goes to the adjudication list.
- Gold checks (``poolkit gold``; judge mode): the gold set's pairs of a query are mixed
  into its walk at the set's rate, at places drawn by the set's seed, the assessor and the
  query (``judge.gold_mix``), as items like any other: the header's "passage i of n" and the
  progress count them, nothing marks them. A grade on one is a ``gold`` event (never a
  label); undo, back and regrade work on it as on any grade. A pooled pair of the gold set
  is served only as gold (its grade is known already). Under a learning order a gold
  passage comes once the query has as many passages done as its place in the walk. A query
  with nothing left to judge when the walk is built gets no gold passage: coming back to a
  finished query for one passage would give it away.
- Judge later (``later``) defers the passage to the end of the session: it comes back after
  every other pending passage, skipped ones included. Nothing is recorded.
- A query whose passages left were each skipped twice (once all were skipped, each came back
  and was skipped again) is deferred the same way, all its passages left at once, instead of
  cycling them for ever; ``next_query`` defers the query on screen at will. A skip of a
  deferred passage sends it to the end of the deferred ones.
- With a ``chooser`` (a learning ``pool.order``, ``pool.budget`` or ``pool.stop_recall``), a
  query whose budget is spent or whose stopping rule fired offers nothing more, and under a
  learning order the next unskipped passage of a query is the strategy's pick from every
  assessor's grades (``poolkit.pool.next_passage``). A query found closed is remembered
  with the reason (``closed``), once, and handed to the screen (``take_closures``) so it can
  say why the walk moved on.
- ``review`` mode (``judge.review``) walks the pairs where a machine judge version and this
  assessor disagree, in the review's order across queries (largest difference first), not
  the pool's; its grades are ``adjudicate`` events naming the earlier grade (``ref``) and
  the judge version (``note``). No other mode reads a machine's grade.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import NamedTuple, Protocol

from poolkit.errors import OverlapFull, PoolkitError, StoreError, one_of
from poolkit.judge.gold_mix import mix_gold
from poolkit.judge.review import MachineReview
from poolkit.store.claims import Claim, current_claim, holds, renew
from poolkit.store.contract import StoreBackend
from poolkit.store.judging import (
    VOTE_KINDS,
    Mark,
    assessor_stacks,
    disputed,
    judged_by_others,
    recent_seconds,
    seconds_taken,
    skips,
)
from poolkit.store.records import GOLD, Event, QueryRecord, Source, stamp
from poolkit.store.terms import added_terms, toggle_term

MODES = ("judge", "agreement", "adjudicate", "review")
#: judging orders whose positions say nothing of the runs' ranks (any other order's position
#: is a fused rank, and a learning order's picks are the learner's: ``ranked_order``)
POSITION_BLIND_ORDERS = ("shuffle", "docid")
PACE_WINDOW = 50  # judgments the time-to-finish estimate looks back over (their median)
PACE_MIN = 5      # judgments before a time left is estimated at all

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class Item(NamedTuple):
    qid: str
    docid: str
    text_hash: str
    version: int
    position: int  # 1-based place in the query's judging order

    @property
    def pair(self) -> tuple[str, str]:
        return (self.qid, self.docid)


@dataclass(frozen=True)
class JudgingProgress:
    """Where the assessor is: this query's passages done and in all, the session's, the
    pace (median seconds per judgment) with the time left it suggests, and the stopping
    rule with its promise (``stop: quant — no guarantee, heuristic``; None without one)."""

    query_done: int
    query_total: int
    done: int
    total: int
    seconds_per_judgment: float | None
    seconds_left: float | None
    stop: str | None = None


class PassageChooser(Protocol):
    """The next-passage decision under a learning order, a budget or a stopping rule
    (``pool.next_passage.NextPassage``, built by ``Collection.next_passage``)."""

    @property
    def active(self) -> bool: ...
    @property
    def adaptive(self) -> bool: ...
    def closed(self, qid: str) -> str | None: ...
    def allowed(self, qid: str) -> int | None: ...
    def pick(self, qid: str, assessor: str, mine: Set[str], skipped: Set[str],
             allowed: Set[str] | None = None) -> str | None: ...
    @property
    def fallback(self) -> str | None: ...
    @property
    def promise(self) -> str | None: ...
    def sample_due(self, qid: str, assessor: str, exclude: Set[str],
                   allowed: Set[str] | None = None) -> str | None: ...
    def sample_note(self, qid: str) -> str | None: ...
    @property
    def from_start(self) -> bool: ...
    def close(self) -> None: ...


class TooSoon(PoolkitError):
    """A grade key came before the passage had been on screen for the minimum display time
    (a double tap, or a key meant for the passage before): the key is dropped, not queued."""

    def __init__(self, seconds_on_screen: float, minimum: float) -> None:
        super().__init__(f"key ignored: the passage was on screen {seconds_on_screen:.2f} s, "
                         f"under the {minimum:g} s minimum")
        self.seconds_on_screen, self.minimum = seconds_on_screen, minimum


class JudgingSession:
    def __init__(self, store: StoreBackend, assessor: str, mode: str = "judge",
                 start_qid: str | None = None, pool_version: int | None = None,
                 clock: Clock | None = None, chooser: PassageChooser | None = None,
                 min_display: float = 0.0, only: Iterable[str] | None = None,
                 review: MachineReview | None = None) -> None:
        if mode not in MODES:
            raise PoolkitError(one_of(mode, MODES, "judging mode"))
        if (mode == "review") != (review is not None):
            raise PoolkitError("a machine review is the review mode's, and only its")
        from poolkit.io.validate import check_assessor  # the one rule and message of names

        self.store, self.assessor, self.mode = store, check_assessor(assessor), mode
        # Learning order, budget and stopping rule (judge mode only): see pool/next_passage.py.
        self.chooser = chooser if chooser is not None and chooser.active and mode == "judge" \
            else None
        self.clock: Clock = clock or utc_now
        self.min_display = min_display
        self.review = review
        self.kind = "adjudicate" if mode in ("adjudicate", "review") else "grade"
        # Without an explicit version the session follows the latest one: a pool expanded
        # by another process shows up at the next change of query.
        self.follows_latest = pool_version is None
        self.pool_version = store.resolve_pool_version(pool_version)
        self.queries: dict[str, QueryRecord] = store.queries()
        self._texts: dict[str, tuple[str, str]] = {}
        self._sources: dict[tuple[str, str], list[Source]] | None = None

        #: the gold set's pairs (judge mode), served as gold checks (``judge.gold_mix``)
        self.gold_set = store.gold_set() if mode == "judge" else None
        self.gold: dict[tuple[str, str], str] = {} if self.gold_set is None else \
            store.gold_queue()
        kinds = ("adjudicate",) if self.kind == "adjudicate" else (*VOTE_KINDS, GOLD)
        self.stacks: dict[tuple[str, str], list[Mark]] = assessor_stacks(store, assessor, kinds)
        self.skips: dict[tuple[str, str], int] = skips(store, assessor)
        self.notes: dict[tuple[str, str], list[Event]] = {}
        for e in store.events(kinds=["note"],
                              assessor=None if mode == "adjudicate" else assessor):
            self.notes.setdefault((e.qid, e.docid), []).append(e)
        self.durations: list[float] = recent_seconds(store, assessor, self.kind, PACE_WINDOW)
        #: this assessor has graded nothing in the store yet (the screen opens with the
        #: rubric on her first session)
        self.first_session = not store.timings("grade", assessor, 1)

        # What this mode shows, and what counts as done beyond the assessor's own stacks.
        # (Pairs outside the pool version drop out below, where items are built.)
        self.votes: dict[tuple[str, str], dict[str, int]] = {}
        self.settled_elsewhere: set[tuple[str, str]] = set()
        self._wanted: set[tuple[str, str]] | None = None
        #: the queries served (``--sample``: a sample-queries draw); None: every query
        self.only: set[str] | None = None if only is None else set(only)
        if mode == "agreement":
            self._wanted = judged_by_others(store, assessor)
        elif mode == "adjudicate":
            self.votes = disputed(store)
            for e in store.events(kinds=["cant_judge"]):  # the reason shows as a note
                self.votes.setdefault((e.qid, e.docid), {})
                self.notes.setdefault((e.qid, e.docid), []).append(
                    replace(e, note=f"can't judge: {e.note}"))
            self._wanted = set(self.votes)
            self.settled_elsewhere = judged_by_others(store, assessor, ("adjudicate",))
        elif review is not None:
            self._wanted = {(d.qid, d.docid) for d in review.pairs}
        elif store.assignment_plan() is not None:  # judge mode under an assignment plan
            held = store.assignment_slots(assessor)
            self._wanted = {p for p, h in held.items() if assessor in h} | store.open_slots()
        #: pairs this assessor can't judge (done for her, never labels), and those she
        #: deferred to the end of the session, in the order deferred
        self.cant: set[tuple[str, str]] = {
            (q, d) for *_, q, d, _ in store.live_marks(["cant_judge"], assessor=assessor)} \
            if mode == "judge" else set()
        self.deferred: dict[tuple[str, str], None] = {}
        #: per query, the skip that left only skipped passages (the second round's start)
        self._rounds: dict[str, int] = {}
        # Queries found closed (budget spent, stopping rule fired) -> why, and the ones the
        # screen has not been told about yet, in the order they were found.
        self.closed: dict[str, str] = {}
        self._untold: list[str] = []
        self._terms: dict[str, list[str]] = {}  # the assessor's highlight terms, by query
        self._load_items()
        self._undo_log: list[tuple[int, tuple[str, str]]] | None = None  # built on first undo

        # Passages shown, least recent first, each once (an ordered set): back walks it. It
        # starts with what this assessor graded or skipped before, in the order they last did.
        self.history: dict[Item, None] = {}
        last_touch = {pair: stack[-1].id for pair, stack in self.stacks.items()}
        for pair, event_id in self.skips.items():
            last_touch[pair] = max(event_id, last_touch.get(pair, 0))
        for pair in sorted(last_touch, key=last_touch.__getitem__):
            if pair in self._index:
                self.history[self._index[pair]] = None
        self.current: Item | None = None
        self.shown_at: str | None = None
        self._shown_moment: datetime | None = None
        self.pending_note: str | None = None
        #: (the pair opened from the review list, the passage to return to once it is graded)
        self._return: tuple[tuple[str, str], Item] | None = None
        if start_qid is not None and start_qid not in self.items:
            if start_qid in self.pooled_queries:
                raise PoolkitError(f"query {start_qid!r} has no passages to show in "
                                   f"{mode} mode")
            raise PoolkitError(one_of(start_qid, self.pooled_queries, "query"))
        if start_qid is not None:
            self.jump(start_qid)
        else:
            self._show(self._next_pending(None))

    def _load_items(self) -> None:
        """Build the walk (items per query in judging order) for ``self.pool_version``."""
        self.items: dict[str, list[Item]] = {}
        self.done_count: dict[str, int] = {}
        self._cap: dict[str, int] | None = None  # built when progress is first asked
        self._index: dict[tuple[str, str], Item] = {}
        positions: dict[str, int] = {}
        done = self.stacks.keys() | self.settled_elsewhere | self.cant
        wanted = self._wanted
        for qid, docid, version_, text_hash in self.store.pool_rows(self.pool_version):
            position = positions[qid] = positions.get(qid, 0) + 1
            pair = (qid, docid)
            if pair in self.gold:
                continue  # a known grade: served as gold only (_mix_gold)
            if (wanted is None or pair in wanted) and (self.only is None or qid in self.only):
                item = self._index[pair] = Item(qid, docid, text_hash, version_, position)
                if qid in self.items:
                    self.items[qid].append(item)
                    self.done_count[qid] += pair in done
                else:
                    self.items[qid] = [item]
                    self.done_count[qid] = int(pair in done)
        self.pooled_queries = list(positions)
        order = next((v["order_strategy"] for v in self.store.pool_versions()
                      if v["version"] == self.pool_version), None)
        #: whether a passage's place in its query's order would leak ranks (the screen then
        #: shows how many are judged, not the place)
        self.ranked_order = (self.chooser is not None and self.chooser.adaptive) or \
            order not in POSITION_BLIND_ORDERS
        self._mix_gold(done)
        self.query_ids = list(self.items)
        self._walk = [item for items in self.items.values() for item in items]
        if self.review is not None:  # the review's order, across queries
            rank = {(d.qid, d.docid): i for i, d in enumerate(self.review.pairs)}
            self._walk.sort(key=lambda item: rank[item.pair])
        self._place = {item.pair: i for i, item in enumerate(self._walk)}

    def _mix_gold(self, done: Set[tuple[str, str]]) -> None:
        """Put the gold set's pairs into their queries' walks (``judge.gold_mix``)."""
        if self.gold_set is None:
            return
        by_query: dict[str, list[tuple[str, str]]] = {}
        for qid, docid in sorted(self.gold):  # (a query with nothing left to judge gets
            if qid in self.items and self.done_count[qid] < len(self.items[qid]):  # none)
                by_query.setdefault(qid, []).append((qid, docid))
        for qid, pairs in by_query.items():
            walk = self.items[qid]
            gold = [Item(q, d, self.gold[(q, d)], self.pool_version, 0) for q, d in pairs]
            mixed = mix_gold(walk, gold, self.gold_set.rate, self.gold_set.seed, self.assessor,
                             qid)
            for i, item in enumerate(mixed):  # a gold item takes its follower's position
                if item.position == 0:
                    follower = next((m for m in mixed[i:] if m.position), walk[-1])
                    mixed[i] = item = item._replace(position=follower.position)
                    self._index[item.pair] = item
                    self.done_count[qid] += item.pair in done
            self.items[qid] = mixed

    def refresh_pool(self) -> bool:
        """Take in a pool version another process added since (when following the latest);
        True when the walk changed. Cheap when nothing changed: one indexed query."""
        if not self.follows_latest:
            return False
        latest = self.store.latest_pool_version()
        if latest is None or latest == self.pool_version:
            return False
        self.pool_version = latest
        self.queries = self.store.queries()
        self._sources = None
        self._load_items()
        self._undo_log = None
        return True

    # -- state ----------------------------------------------------------------------------
    def is_done(self, item: Item) -> bool:
        return (bool(self.stacks.get(item.pair)) or item.pair in self.settled_elsewhere
                or item.pair in self.cant)

    def grade_of(self, item: Item) -> int | None:
        """This assessor's standing grade on the item (adjudicate mode: their adjudication)."""
        stack = self.stacks.get(item.pair)
        return stack[-1].grade if stack else None

    def is_skipped(self, item: Item) -> bool:
        return item.pair in self.skips and not self.is_done(item)

    def text(self, item: Item) -> tuple[str, str]:
        """(title, body) exactly as pooled (by the text hash the events record)."""
        if item.text_hash not in self._texts:
            self._texts[item.text_hash] = self.store.text(item.text_hash)
        return self._texts[item.text_hash]

    def query(self, qid: str) -> QueryRecord:
        return self.queries.get(qid) or QueryRecord(qid, qid)

    def sources(self, item: Item) -> list[Source]:
        """Which systems pooled the item at which rank (only shown when not blind)."""
        if self._sources is None:
            self._sources = self.store.sources()
        return self._sources.get(item.pair, [])

    def _caps(self) -> dict[str, int]:
        """Per query, the passages progress counts: its walk, or what its budget allows when
        that is fewer. Kept until the walk is built again (it is asked at every keystroke)."""
        if self._cap is None:
            self._cap = {qid: len(items) for qid, items in self.items.items()}
            if self.chooser is not None:
                for qid, n in self._cap.items():
                    allowed = self.chooser.allowed(qid)
                    self._cap[qid] = n if allowed is None else min(n, allowed)
        return self._cap

    def span(self, qid: str) -> tuple[int, int]:
        """(done, total) of the query as progress counts it: under a budget the total is
        what the budget allows, and a query found closed counts only what was done."""
        done = self.done_count.get(qid, 0)
        total = done if qid in self.closed else self._caps().get(qid, 0)
        return min(done, total), total

    def progress(self) -> JudgingProgress:
        item = self.current
        q_done, q_total = self.span(item.qid) if item else (0, 0)
        spans = [self.span(qid) for qid in self._caps()]
        done, total = sum(d for d, _ in spans), sum(t for _, t in spans)
        recent = self.durations[-PACE_WINDOW:]
        pace = statistics.median(recent) if recent else None
        # A time left from one or two judgments swings wildly: wait for a few.
        left = (pace * (total - done) if pace is not None and len(recent) >= PACE_MIN
                else None)
        return JudgingProgress(q_done, q_total, done, total, pace, left, self._stop_line(item))

    def _stop_line(self, item: Item | None) -> str | None:
        """The stopping rule's promise, and where the query's target sample is."""
        if self.chooser is None or self.chooser.promise is None:
            return None
        note = self.chooser.sample_note(item.qid) if item is not None else None
        return self.chooser.promise if note is None else f"{self.chooser.promise} · {note}"

    # -- events ---------------------------------------------------------------------------
    def _event(self, kind: str, item: Item, now: datetime | None = None,
               **fields: object) -> Event:
        return Event(qid=item.qid, docid=item.docid, assessor=self.assessor, kind=kind,
                     shown_at=self.shown_at, judged_at=stamp(now or self.clock()),
                     text_hash=item.text_hash, pool_version=item.version,
                     position=item.position, **fields)  # type: ignore[arg-type]

    def grade_event(self, grade: int) -> Event | None:
        """The grade for the passage on screen; None when there is none. Raises TooSoon when
        the passage has been shown for less than ``min_display`` seconds (by the session's
        clock, so the rule is testable without waiting)."""
        if self.current is None:
            return None
        now = self.clock()
        if self.min_display > 0 and self._shown_moment is not None:
            on_screen = (now - self._shown_moment).total_seconds()
            if on_screen < self.min_display:
                raise TooSoon(on_screen, self.min_display)
        if self.review is not None:
            earlier = self.review.of(self.current.pair)
            return self._event(self.kind, self.current, now, grade=grade,
                               note=self.review.note(self.current.pair, self.pending_note),
                               ref=earlier.mine_event if earlier else None)
        kind = GOLD if self.current.pair in self.gold and self.mode == "judge" else self.kind
        return self._event(kind, self.current, now, grade=grade, note=self.pending_note)

    def skip_event(self) -> Event | None:
        if self.current is None:
            return None
        return self._event("skip", self.current)

    def cant_judge_event(self, reason: str) -> Event | None:
        """This assessor can't judge the passage on screen (``reason``: not my language,
        broken text, unclear topic...): its own event kind, never a grade."""
        if self.current is None or not reason.strip():
            return None
        return self._event("cant_judge", self.current, note=reason.strip())

    def later(self) -> bool:
        """Defer the passage on screen to the end of the session (again: to the end once
        more) and show what comes next; False when there is nothing to defer."""
        item = self.current
        if item is None or self.is_done(item):
            return False
        self.deferred.pop(item.pair, None)
        self.deferred[item.pair] = None
        self._show(self._next_pending(item.qid, item))
        return True

    def _skipped_round(self, qid: str, event_id: int) -> bool:
        """True once skip ``event_id`` completes the second round of skips of the query's
        passages left: all were skipped, each came back and was skipped again."""
        left = [it for it in self.items[qid] if not self.is_done(it)
                and it.pair not in self.deferred]
        if any(it.pair not in self.skips for it in left):
            return False
        start = self._rounds.setdefault(qid, event_id)
        return all(self.skips[it.pair] > start for it in left)

    def defer_query(self, qid: str) -> int:
        """Defer the query's passages left to the end of the session (in judging order);
        how many were deferred. Nothing is recorded."""
        left = [it.pair for it in self.items.get(qid, ()) if not self.is_done(it)]
        for pair in left:
            self.deferred.pop(pair, None)
            self.deferred[pair] = None
        self._rounds.pop(qid, None)
        return len(left)

    def next_query(self) -> int:
        """Leave the query on screen for the next one with work: its passages left are
        deferred to the end of the session; how many were (0: nothing to leave)."""
        item = self.current
        if item is None:
            return 0
        n = self.defer_query(item.qid)
        self._show(self._next_pending(item.qid, item))
        return n

    def drop_full(self, event: Event) -> None:
        """The store refused ``event``: its pair got its overlap from others meanwhile.
        The pair leaves this session's walk and the next passage shows (other work)."""
        if self._wanted is not None:
            self._wanted.discard((event.qid, event.docid))
        self.deferred.pop((event.qid, event.docid), None)
        item = self._index.get((event.qid, event.docid))
        self._load_items()
        self._undo_log = None
        self._show(self._next_pending(item.qid if item else None))

    def note_event(self, text: str) -> Event | None:
        text = text.strip()
        if self.current is None or not text:
            return None
        return self._event("note", self.current, note=text)

    @property
    def undo_log(self) -> list[tuple[int, tuple[str, str]]]:
        """(event id, pair) of the assessor's live grades of this mode's kind on pairs this
        session shows, oldest first: what undo takes back, last first."""
        if self._undo_log is None:
            self._undo_log = sorted(
                (m.id, pair) for pair, stack in self.stacks.items() if pair in self._index
                for m in stack if m.kind in (self.kind, GOLD))
        return self._undo_log

    def undo_event(self) -> Event | None:
        """An undo of the latest standing grade of this session's kind, or None."""
        log = self.undo_log
        while log and not self._live(*log[-1]):
            log.pop()
        if not log:
            return None
        target_id, pair = log[-1]
        item = self._index[pair]
        return Event(qid=item.qid, docid=item.docid, assessor=self.assessor, kind="undo",
                     judged_at=stamp(self.clock()),
                     text_hash=item.text_hash, pool_version=item.version,
                     position=item.position, ref=target_id)

    def undone_mark(self, event: Event) -> Mark | None:
        """The standing grade an undo event (``undo_event``) takes back."""
        return next((m for m in self.stacks.get((event.qid, event.docid), ())
                     if m.id == event.ref), None)

    def _live(self, event_id: int, pair: tuple[str, str]) -> bool:
        return any(m.id == event_id for m in self.stacks.get(pair, ()))

    def apply(self, event: Event, event_id: int) -> None:
        """Take a just-recorded event into the session's state and show what comes next."""
        pair = (event.qid, event.docid)
        item = self._index.get(pair)
        if event.kind in (self.kind, GOLD):
            was_done = item is not None and self.is_done(item)
            self.stacks.setdefault(pair, []).append(Mark(event_id, event.kind, event.grade))
            if item is not None and self._undo_log is not None:
                self._undo_log.append((event_id, pair))
            taken = seconds_taken(event)
            if taken is not None:
                self.durations = [*self.durations[1 - PACE_WINDOW:], taken]
            if item is not None and not was_done:
                self.done_count[item.qid] += 1
            self.pending_note = None
            if item is not None:
                back = self._return[1] if self._return and self._return[0] == pair else None
                self._show(back or self.next_item(item, "regrade" if was_done else "grade"))
        elif event.kind == "cant_judge":
            if item is not None and not self.is_done(item):
                self.done_count[item.qid] += 1
            self.cant.add(pair)
            self.deferred.pop(pair, None)
            if item is not None:
                self._show(self.next_item(item, "grade"))
        elif event.kind == "skip":
            self.skips[pair] = event_id
            if item is not None:
                if pair in self.deferred:  # to the end of the deferred ones
                    del self.deferred[pair]
                    self.deferred[pair] = None
                elif self._skipped_round(item.qid, event_id):
                    self.defer_query(item.qid)
                self._show(self.next_item(item, "skip"))
        elif event.kind == "note":
            self.notes.setdefault(pair, []).append(event)
            self.pending_note = (f"{self.pending_note}; {event.note}" if self.pending_note
                                 else event.note)
        elif event.kind == "undo":
            was_done = item is not None and self.is_done(item)
            self.stacks[pair] = [m for m in self.stacks.get(pair, []) if m.id != event.ref]
            if not self.stacks[pair]:
                del self.stacks[pair]
            if self._undo_log is not None:
                self._undo_log = [u for u in self._undo_log if u[0] != event.ref]
            if item is not None:
                if was_done and not self.is_done(item):
                    self.done_count[item.qid] -= 1
                self._show(item)
        else:  # pragma: no cover - the session builds only the kinds above
            raise StoreError(f"unexpected event kind {event.kind!r}")

    def record(self, event: Event, claim: Claim | None = None, retry: bool = False) -> int:
        """Write ``event`` to the store (durable on return) without applying it: the app
        runs this on its store thread, then ``apply`` on the UI thread. Refused when
        ``claim``, this session's hold on the assessor, was taken over by another session.
        ``retry``: a try again of a write that failed, recorded unless the earlier try was
        (it may have committed before the connection broke)."""
        if claim is not None and not holds(self.store, claim):
            taker = current_claim(self.store, claim.assessor)
            raise PoolkitError("another session took over "
                               + (taker.where() if taker else "this assessor")
                               + "; quit here")
        return self.store.record_event_once(event) if retry else self.store.record_event(event)

    def commit(self, event: Event | None) -> int | None:
        """Record ``event`` (durable on return) and apply it; None when there was nothing."""
        if event is None:
            return None
        try:
            event_id = self.record(event)
        except OverlapFull:
            self.drop_full(event)
            return None
        self.apply(event, event_id)
        return event_id

    def grade(self, grade: int) -> int | None:
        return self.commit(self.grade_event(grade))

    def skip(self) -> int | None:
        return self.commit(self.skip_event())

    def note(self, text: str) -> int | None:
        return self.commit(self.note_event(text))

    def cant_judge(self, reason: str) -> int | None:
        return self.commit(self.cant_judge_event(reason))

    def undo(self) -> int | None:
        return self.commit(self.undo_event())

    # -- the claim on the assessor, and the assessor's highlight terms ---------------------
    def renew_claim(self, claim: Claim, now: datetime | None = None) -> bool:
        """The heartbeat of this session's hold on the assessor; False when another session
        took it over."""
        return renew(self.store, claim, now)

    def terms(self, qid: str) -> list[str]:
        """The words this assessor added to the query's highlighting, in the order added
        (read from the store once per query, then kept)."""
        if qid not in self._terms:
            self._terms[qid] = added_terms(self.store, self.assessor, qid)
        return self._terms[qid]

    def toggle_term(self, qid: str, words: str) -> bool:
        """Add ``words`` to the query's highlight terms, or remove them when they are there;
        True when added. Durable on return; the terms kept for the query are read again."""
        added = toggle_term(self.store, self.assessor, qid, words)
        self._terms[qid] = added_terms(self.store, self.assessor, qid)
        return added

    def close_thread(self) -> None:
        """Close the calling thread's store connection (the app's store thread, as it
        ends; the session's own stays open)."""
        self.store.close_thread()

    # -- navigation -----------------------------------------------------------------------
    def next_item(self, after: Item, how: str) -> Item | None:
        """What to show once ``after`` was graded (``how`` = "grade"), regraded ("regrade":
        it had a grade already) or skipped ("skip"). The one place that decides what comes
        next:

        - after a regrade, the passage that follows it in judging order (an assessor who went
          back walks forward again, seeing existing grades), or at the end of its query what
          a grade would show;
        - otherwise the first pending passage after it in its query (wrapping to the
          query's start), then that query's skipped passages, earliest skip first, and only
          then the following queries (wrapping round), each the same way.

        On a change of query a pool version added meanwhile is taken in first.
        """
        nxt = self._decide(after, how)
        if (nxt is None or nxt.qid != after.qid) and self.refresh_pool():
            after = self._index.get(after.pair, after)
            nxt = self._decide(after, how)
        return nxt

    def _decide(self, after: Item, how: str) -> Item | None:
        if self.review is not None:
            return self._next_in_walk(after, how)
        if how == "regrade":
            place = self._place.get(after.pair)
            if place is not None and place + 1 < len(self._walk):
                following = self._walk[place + 1]
                if following.qid == after.qid:
                    return following
        return self._next_pending(after.qid, after)

    def _next_in_walk(self, after: Item | None, how: str = "grade") -> Item | None:
        """Review mode's next passage: after a regrade the one following in the walk;
        otherwise the first pending unskipped one after ``after`` (wrapping), then the
        earliest skipped one."""
        start = self._place[after.pair] + 1 if after is not None else 0
        if how == "regrade" and start < len(self._walk):
            return self._walk[start]
        ahead = self._walk[start:] + self._walk[:start]
        found = next((it for it in ahead if it.pair not in self.skips and not self.is_done(it)),
                     None)
        if found is not None:
            return found
        waiting = [it for it in ahead if it.pair in self.skips and not self.is_done(it)]
        return min(waiting, key=lambda it: self.skips[it.pair]) if waiting else None

    def back(self) -> bool:
        """Show the passage shown before the current one; False when there is none. Each
        passage is remembered once, where it was last shown, so going back never walks
        forward again (an undo that re-shows a passage moves it, it does not copy it). The
        history reaches into earlier sessions: what this assessor graded or skipped."""
        if self.current is not None:
            if len(self.history) < 2:
                return False
            self.history.popitem()
        elif not self.history:
            return False
        self._show(next(reversed(self.history)), remember=False)
        return True

    def move(self, offset: int) -> bool:
        """Show the passage ``offset`` places away in judging order (across queries) without
        grading anything; False at either end. With nothing on screen, -1 shows the last."""
        if self.current is None:
            if offset >= 0 or not self._walk:
                return False
            self._show(self._walk[-1])
            return True
        place = self._place[self.current.pair] + offset
        if not 0 <= place < len(self._walk):
            return False
        self._show(self._walk[place])
        return True

    def show(self, item: Item, return_to: Item | None = None) -> None:
        """Show a passage of this session (a review list picked it); once it is graded the
        walk returns to ``return_to`` (the passage the assessor was on)."""
        if item.pair not in self._index:
            raise PoolkitError(f"{item.qid}/{item.docid} is not in this session's pool")
        self._show(self._index[item.pair])
        if return_to is not None and return_to.pair != item.pair:
            self._return = (item.pair, return_to)

    def next_unjudged(self) -> bool:
        """Show the next passage still to judge after the one on screen (as a first grade
        would); False when there is none."""
        nxt = self._next_pending(self.current.qid if self.current else None, self.current)
        if nxt is None or nxt == self.current:
            return False
        self._show(nxt)
        return True

    def jump(self, qid: str) -> None:
        """Go to a query: its first pending passage, or its first passage when all are done."""
        self.refresh_pool()
        if qid not in self.items:
            raise PoolkitError(one_of(qid, self.items, "query"))
        nxt = self._pending_in(qid, skipped=False) or self._pending_in(qid, skipped=True)
        self._show(nxt or self.items[qid][0])

    def _show(self, item: Item | None, remember: bool = True) -> None:
        self._return = None
        if item is not None and item != self.current:
            self.pending_note = None
        self.current = item
        self._shown_moment = self.clock() if item is not None else None
        self.shown_at = stamp(self._shown_moment) if self._shown_moment is not None else None
        if item is not None and remember:
            self.history.pop(item, None)
            self.history[item] = None

    def _pending_in(self, qid: str, skipped: bool, after: Item | None = None) -> Item | None:
        """The query's first pending passage (``skipped``: its earliest-skipped one instead);
        given ``after``, the first unskipped one after it, wrapping to the query's start."""
        if self.done_count[qid] >= len(self.items[qid]):
            return None
        if self.chooser is not None:
            why = self.chooser.closed(qid)
            if why:
                if self.closed.get(qid) != why:
                    self.closed[qid] = why
                    self._untold.append(qid)
                return None
            if not skipped:
                sampled = self._sample_due(qid)
                if sampled is not None:
                    return sampled
            if self.chooser.from_start:
                after = None
            if self.chooser.adaptive and not skipped:
                gold = self._gold_due(qid)
                if gold is not None:
                    return gold
                # (from the query's own passages: the assessor's whole history is 100,000s)
                mine = {it.docid for it in self.items[qid] if it.pair in self.stacks}
                mine_skipped = {it.docid for it in self.items[qid]
                                if it.pair in self.skips or it.pair in self.deferred}
                allowed = None if self._wanted is None and not self.gold else \
                    {it.docid for it in self.items[qid] if it.pair not in self.gold}
                doc = self.chooser.pick(qid, self.assessor, mine, mine_skipped, allowed)
                return self._index.get((qid, doc)) if doc is not None else None
        items = self.items[qid]
        if not skipped:
            if after is not None and after.qid == qid and after.pair in self._place:
                cut = self._place[after.pair] - self._place[items[0].pair] + 1
                items = items[cut:] + items[:cut]
            return next((it for it in items if it.pair not in self.skips
                         and it.pair not in self.deferred and not self.is_done(it)), None)
        waiting = [it for it in items if it.pair in self.skips and it.pair not in self.deferred
                   and not self.is_done(it)]
        return min(waiting, key=lambda it: self.skips[it.pair]) if waiting else None

    def _sample_due(self, qid: str) -> Item | None:
        """The target rule's sample passage due in ``qid`` (served before the order; it
        looks like any other passage), or None."""
        assert self.chooser is not None
        items = self.items[qid]
        exclude = {it.docid for it in items if self.is_done(it) or it.pair in self.skips
                   or it.pair in self.deferred}
        allowed = {it.docid for it in items if it.pair not in self.gold}
        doc = self.chooser.sample_due(qid, self.assessor, exclude, allowed)
        return self._index.get((qid, doc)) if doc is not None else None

    def _gold_due(self, qid: str) -> Item | None:
        """Under a learning order: the query's first gold passage not done, skipped or
        deferred whose place in the walk the query's passages done have reached."""
        for place, item in enumerate(self.items[qid]):
            if place > self.done_count[qid]:
                return None
            if item.pair in self.gold and not self.is_done(item) and \
                    item.pair not in self.skips and item.pair not in self.deferred:
                return item
        return None

    def take_closures(self) -> list[tuple[str, str]]:
        """(qid, why) of the queries found closed since the last call, oldest first."""
        told = [(q, self.closed[q]) for q in dict.fromkeys(self._untold)]
        self._untold.clear()
        return told

    def _next_pending(self, qid: str | None, after: Item | None = None) -> Item | None:
        """Pending work from ``qid`` onwards (wrapping): per query, unskipped passages first,
        then its skipped ones, so a skip comes back before the next query starts."""
        if not self.query_ids:
            return None
        if self.review is not None:
            return self._next_in_walk(after)
        start = self.query_ids.index(qid) if qid in self.items else 0
        for q in self.query_ids[start:] + self.query_ids[:start]:
            found = (self._pending_in(q, skipped=False, after=after)
                     or self._pending_in(q, skipped=True))
            if found:
                return found
        return next((self._index[p] for p in self.deferred
                     if p in self._index and not self.is_done(self._index[p])), None)

