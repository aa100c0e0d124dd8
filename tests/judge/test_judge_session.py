"""The judging session's rules, without a terminal: order, resume, skip, undo, back, notes,
modes, and what every event records."""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, TickClock, build_store

from poolkit.errors import PoolkitError, StoreError
from poolkit.judge.session import JudgingSession, TooSoon
from poolkit.store import Event, NewMember, Store
from poolkit.store.judging import seconds_taken


def shown(session: JudgingSession) -> tuple[str, str] | None:
    return session.current.pair if session.current else None


def test_walks_the_pool_in_judging_order_and_records_every_field(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    order = []
    while s.current is not None:
        order.append(shown(s))
        s.grade(len(order) % 4)
    assert order == [(q, d) for q, ds in TINY_POOLS.items() for d in ds]
    events = tiny_store.events()
    assert [e.kind for e in events] == ["grade"] * 5
    first = events[0]
    assert (first.qid, first.docid, first.assessor, first.grade) == ("q1", "d1", "alice", 1)
    assert first.position == 1 and events[2].position == 3 and events[3].position == 1
    assert first.pool_version == 1
    member = {(m.qid, m.docid): m for m in tiny_store.pool()}
    assert all(e.text_hash == member[(e.qid, e.docid)].text_hash for e in events)
    # The clock ticks 7 s per call: shown, then judged.
    assert [seconds_taken(e) for e in events] == [7.0] * 5
    assert first.shown_at < first.judged_at <= events[1].shown_at


def test_each_grade_is_in_the_store_before_the_next_passage_shows(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    for n in range(1, 4):
        s.grade(2)
        with Store(tiny_store.path) as other:  # a second connection sees it already
            assert len(other.events(kinds=["grade"])) == n


def test_resume_starts_at_first_unjudged(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    s.grade(1)
    s.grade(0)
    again = JudgingSession(tiny_store, "alice", clock=clock)
    assert shown(again) == ("q1", "d3")
    # Someone else's grades do not move alice's place; bob starts at the beginning.
    assert shown(JudgingSession(tiny_store, "bob", clock=clock)) == ("q1", "d1")


def test_progress_and_time_left_from_own_pace(tiny_store):
    s = JudgingSession(tiny_store, "alice", clock=TickClock(step=10))
    assert s.progress().seconds_left is None
    s.grade(1)
    p = s.progress()
    assert (p.query_done, p.query_total, p.done, p.total) == (1, 3, 1, 5)
    assert p.seconds_per_judgment == 10.0
    assert p.seconds_left is None  # one judgment is no pace yet


def test_time_left_waits_for_a_few_grades_and_uses_the_median_pace(six_store):
    clock = TickClock(step=10)
    s = JudgingSession(six_store, "alice", clock=clock)
    for n in range(4):
        s.grade(1)
        assert s.progress().seconds_left is None, n
    clock.step = clock.step * 30  # one long pause (a coffee break) ...
    s.grade(1)
    p = s.progress()
    # ... does not move the median: 10 s a judgment, 1 left.
    assert (p.done, p.total, p.seconds_per_judgment, p.seconds_left) == (5, 6, 10.0, 10.0)


def test_undo_is_an_event_and_shows_the_passage_again(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    g1 = s.grade(2)
    g2 = s.grade(3)
    assert shown(s) == ("q1", "d3")
    s.undo()
    assert shown(s) == ("q1", "d2") and s.grade_of(s.current) is None
    s.undo()
    assert shown(s) == ("q1", "d1")
    assert s.undo() is None  # nothing left to undo
    kinds = [(e.kind, e.ref) for e in tiny_store.events()]
    assert kinds == [("grade", None), ("grade", None), ("undo", g2), ("undo", g1)]
    assert tiny_store.current_grades() == {}
    assert s.progress().done == 0


def test_undo_of_a_regrade_restores_the_earlier_grade(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    s.grade(1)
    assert s.back()
    s.grade(3)  # regrade: a new event on top
    assert tiny_store.current_grades()[("q1", "d1")]["alice"].grade == 3
    s.undo()
    assert tiny_store.current_grades()[("q1", "d1")]["alice"].grade == 1
    assert s.grade_of(s.current) == 1 and s.progress().done == 1


def test_undo_reaches_back_across_sessions(tiny_store, clock):
    JudgingSession(tiny_store, "alice", clock=clock).grade(2)
    s = JudgingSession(tiny_store, "alice", clock=clock)
    s.undo()
    assert shown(s) == ("q1", "d1") and tiny_store.current_grades() == {}


def test_skipped_passages_come_back_at_the_end_of_their_own_query(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    s.skip()
    assert shown(s) == ("q1", "d2")
    s.skip()  # d2 too
    assert shown(s) == ("q1", "d3")
    s.grade(0)
    # q1's skips return before q2 starts, earliest skip first.
    assert shown(s) == ("q1", "d1")
    # A new session remembers the skips: q1 still has them, d1 first.
    assert shown(JudgingSession(tiny_store, "alice", clock=clock)) == ("q1", "d1")
    s.grade(2)
    assert shown(s) == ("q1", "d2")
    s.grade(2)
    assert shown(s) == ("q2", "d4")
    assert [e.kind for e in tiny_store.events()].count("skip") == 2


def test_a_skip_in_a_later_query_returns_there_not_in_the_first(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    s.grade(1)
    s.grade(1)
    s.grade(1)
    s.skip()  # d4, first of q2
    assert shown(s) == ("q2", "d5")
    s.grade(1)
    assert shown(s) == ("q2", "d4")
    s.grade(1)
    assert s.current is None


def test_skip_of_the_last_pending_passage_shows_it_again(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock, start_qid="q2")
    s.grade(1)
    s.grade(1)
    s.grade(1)
    s.grade(1)
    assert shown(s) == ("q1", "d3")
    s.skip()
    assert shown(s) == ("q1", "d3")


def test_note_is_an_event_and_rides_on_the_next_grade(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    s.note("mentions armyworm only in passing")
    s.note("check the date")
    assert shown(s) == ("q1", "d1")  # a note does not advance
    s.grade(1)
    note1, note2, grade = tiny_store.events()
    assert (note1.kind, note1.note) == ("note", "mentions armyworm only in passing")
    assert note2.note == "check the date"
    assert grade.note == "mentions armyworm only in passing; check the date"
    s.grade(2)
    assert tiny_store.events()[-1].note is None
    assert s.note("   ") is None


def test_back_shows_the_previous_passage_and_a_new_grade_is_a_regrade(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    assert not s.back()
    s.grade(1)
    s.grade(2)
    assert s.back() and shown(s) == ("q1", "d2")
    assert s.grade_of(s.current) == 2
    assert s.back() and shown(s) == ("q1", "d1")
    s.grade(0)
    assert shown(s) == ("q1", "d2")  # a regrade moves on to the passage after it
    assert s.grade_of(s.current) == 2
    assert tiny_store.current_grades()[("q1", "d1")]["alice"].grade == 0
    assert len(tiny_store.events(kinds=["grade"])) == 3


def test_regrade_after_going_back_walks_forward_in_order(six_store, clock):
    # Grade three, back twice, regrade: the next grade lands on passage 3, not on 4.
    s = JudgingSession(six_store, "alice", clock=clock)
    s.grade(1)
    s.grade(1)
    s.grade(1)
    assert s.current.position == 4
    assert s.back() and s.back() and s.current.position == 2
    s.grade(3)
    assert s.current.position == 3
    s.grade(0)
    assert s.current.position == 4
    s.grade(2)
    assert s.current.position == 5
    grades = {e.position: e.grade for e in six_store.events(kinds=["grade"])}  # last wins
    assert grades == {1: 1, 2: 3, 3: 0, 4: 2}


def test_move_steps_through_the_judging_order_without_grading(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    assert not s.move(-1)
    assert s.move(1) and shown(s) == ("q1", "d2")
    assert s.move(1) and s.move(1) and shown(s) == ("q2", "d4")  # across queries
    assert s.move(-1) and shown(s) == ("q1", "d3")
    s.grade(2)  # a first grade: on to the next pending after it, in its query first
    assert shown(s) == ("q1", "d1")
    assert tiny_store.events() and all(e.kind == "grade" for e in tiny_store.events())
    s.move(1)
    s.move(1)
    s.move(1)
    s.move(1)
    assert shown(s) == ("q2", "d5") and not s.move(1)


def test_back_reaches_into_earlier_sessions(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    s.grade(1)
    s.skip()
    s.grade(2)
    again = JudgingSession(tiny_store, "alice", clock=clock)
    assert shown(again) == ("q1", "d2")  # the skipped one, last of q1
    assert again.back() and shown(again) == ("q1", "d3")
    assert again.back() and shown(again) == ("q1", "d1")
    assert again.grade_of(again.current) == 1
    again.grade(0)  # a regrade of the first passage, after a restart
    assert shown(again) == ("q1", "d2")
    assert tiny_store.current_grades()[("q1", "d1")]["alice"].grade == 0


def test_a_grade_key_too_soon_after_a_passage_appears_is_refused(tiny_store):
    clock = TickClock(step=0)
    s = JudgingSession(tiny_store, "alice", clock=clock, min_display=0.25)
    clock.now += timedelta(seconds=1)
    s.grade(1)
    assert shown(s) == ("q1", "d2")
    with pytest.raises(TooSoon) as why:
        s.grade(1)
    assert why.value.seconds_on_screen == 0 and why.value.minimum == 0.25
    clock.now += timedelta(milliseconds=249)
    with pytest.raises(TooSoon):
        s.grade(1)
    clock.now += timedelta(milliseconds=1)
    s.grade(2)
    assert [e.docid for e in tiny_store.events()] == ["d1", "d2"]


def test_a_new_pool_version_is_taken_in_at_the_next_change_of_query(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    pinned = JudgingSession(tiny_store, "bob", clock=clock, pool_version=1)
    s.grade(1)
    tiny_store.add_pool_version({"sysB": 5}, "shuffle",
                                [NewMember("q1", "d5", "Weevils", "hermetic bags", 9.0)], [])
    assert len(s.items["q1"]) == 3  # not in the middle of a query
    s.grade(1)
    s.grade(1)
    # Leaving q1: the new version is read, and its q1 passage comes before q2.
    assert shown(s) == ("q1", "d5") and s.pool_version == 2
    assert s.current.position == 4 and s.current.version == 2
    s.grade(1)
    assert shown(s) == ("q2", "d4")
    for _ in range(3):
        pinned.grade(0)
    assert shown(pinned) == ("q2", "d4") and pinned.pool_version == 1


def test_back_visits_each_passage_once_most_recent_first(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    s.grade(1)  # d1 -> d2
    s.undo()    # d1 shown again
    s.grade(2)  # d1 -> d2
    s.grade(3)  # d2 -> d3
    assert s.back() and shown(s) == ("q1", "d2")
    assert s.back() and shown(s) == ("q1", "d1")
    assert not s.back()  # d1 was first; back never walks forward again
    assert shown(s) == ("q1", "d1")


def test_back_from_the_end_shows_the_last_passage(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock, start_qid="q2")
    for _ in range(5):
        s.grade(1)
    assert s.current is None
    assert s.back() and shown(s) == ("q1", "d3")


def test_jump_and_start_query(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock, start_qid="q2")
    assert shown(s) == ("q2", "d4")
    s.grade(3)
    s.jump("q1")
    assert shown(s) == ("q1", "d1")
    s.jump("q2")
    assert shown(s) == ("q2", "d5")
    s.grade(1)
    s.jump("q2")  # all done there: shows its first passage for review
    assert shown(s) == ("q2", "d4")
    with pytest.raises(PoolkitError, match="unknown query 'q3'; valid: q1, q2"):
        s.jump("q3")
    with pytest.raises(PoolkitError, match=r"unknown query 'q_2'.*did you mean 'q2'"):
        JudgingSession(tiny_store, "alice", start_qid="q_2")


def test_empty_store_and_blank_assessor_are_refused(tmp_path):
    with Store(tmp_path / "empty.sqlite") as store:
        with pytest.raises(StoreError, match="no pool yet"):
            JudgingSession(store, "alice")
    with pytest.raises(PoolkitError, match="assessor name"):
        JudgingSession(Store(tmp_path / "e2.sqlite"), "  ")


def test_pool_version_limits_what_is_shown(tiny_store, clock):
    tiny_store.add_pool_version({"sysB": 1}, "shuffle",
                                [NewMember("q1", "d9", "new", "a new passage", 0.0)], [])
    assert len(JudgingSession(tiny_store, "alice", clock=clock).items["q1"]) == 4
    old = JudgingSession(tiny_store, "alice", clock=clock, pool_version=1)
    assert [it.docid for it in old.items["q1"]] == ["d1", "d2", "d3"]
    new = JudgingSession(tiny_store, "alice", clock=clock)
    assert new.items["q1"][-1].version == 2  # expansions come after, in version order


def test_agreement_mode_shows_only_what_others_judged(tiny_store, clock):
    bob = JudgingSession(tiny_store, "bob", clock=clock)
    bob.grade(2)  # q1 d1
    bob.jump("q2")
    bob.grade(0)  # q2 d4
    tiny_store.record_event(Event("q1", "d3", "carol", "import", grade=1))
    s = JudgingSession(tiny_store, "alice", mode="agreement", clock=clock)
    assert {it.pair for items in s.items.values() for it in items} == {
        ("q1", "d1"), ("q1", "d3"), ("q2", "d4")}
    assert shown(s) == ("q1", "d1")
    s.grade(2)
    assert shown(s) == ("q1", "d3")
    # bob's own agreement sample: what alice and carol judged and he has not.
    b = JudgingSession(tiny_store, "bob", mode="agreement", clock=clock)
    assert shown(b) == ("q1", "d3") and b.progress().total == 2


def test_adjudicate_mode_walks_disagreements_and_records_adjudications(tiny_store, clock):
    tiny_store.record_event(Event("q1", "d1", "alice", "grade", grade=3))
    tiny_store.record_event(Event("q1", "d1", "bob", "grade", grade=1))
    tiny_store.record_event(Event("q1", "d2", "alice", "grade", grade=2))
    tiny_store.record_event(Event("q1", "d2", "bob", "grade", grade=2))  # agree: not shown
    tiny_store.record_event(Event("q2", "d5", "alice", "grade", grade=0))
    tiny_store.record_event(Event("q2", "d5", "bob", "import", grade=2))
    s = JudgingSession(tiny_store, "carol", mode="adjudicate", clock=clock)
    assert [it.pair for items in s.items.values() for it in items] == [("q1", "d1"),
                                                                        ("q2", "d5")]
    assert s.votes[("q1", "d1")] == {"alice": 3, "bob": 1}
    s.grade(2)
    last = tiny_store.events()[-1]
    assert (last.kind, last.assessor, last.grade, last.position) == ("adjudicate", "carol", 2, 1)
    assert shown(s) == ("q2", "d5")
    s.undo()
    assert tiny_store.events()[-1].kind == "undo" and shown(s) == ("q1", "d1")
    s.grade(3)
    # Adjudicated pairs stay settled for every adjudicator, not only carol.
    dave = JudgingSession(tiny_store, "dave", mode="adjudicate", clock=clock)
    assert shown(dave) == ("q2", "d5") and dave.progress().done == 1
    # Adjudication never counts as carol's own vote.
    assert ("q1", "d1") not in JudgingSession(tiny_store, "carol", clock=clock).stacks


def test_an_undone_adjudication_makes_the_pair_pending_again(tiny_store, clock):
    tiny_store.record_event(Event("q1", "d1", "alice", "grade", grade=3))
    tiny_store.record_event(Event("q1", "d1", "bob", "grade", grade=1))
    JudgingSession(tiny_store, "carol", mode="adjudicate", clock=clock).grade(2)
    again = JudgingSession(tiny_store, "carol", mode="adjudicate", clock=clock)
    assert again.current is None and again.progress().done == 1
    assert again.undo() is not None
    assert shown(again) == ("q1", "d1") and again.progress().done == 0


def test_unknown_pool_version_is_refused(tiny_store):
    with pytest.raises(StoreError, match="no pool version 3; the store has 1"):
        JudgingSession(tiny_store, "alice", pool_version=3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["g0", "g2", "skip", "back", "left", "right", "undo"]),
                max_size=25))
@example(["g0", "g0", "skip", "skip"])  # q1's last passage skipped twice: q1 is deferred
def test_what_comes_next_never_leaves_a_query_with_work_in_it(actions):
    """Laws of next_item over any sequence of keys: after a first grade or a skip the next
    passage is pending, and in the same query while that query has pending passages not
    deferred (``_skipped_round``: all it has left skipped twice); after
    a regrade it is the passage that follows in judging order (same query), if any."""
    with tempfile.TemporaryDirectory() as tmp:
        pools = {"q1": ["d1", "d2", "d3"], "q2": ["d4", "d5"]}
        with build_store(Path(tmp) / "s.sqlite", TINY_QUERIES, TINY_DOCS, pools) as store:
            s = JudgingSession(store, "alice", clock=TickClock())
            for action in actions:
                before = s.current
                was_done = before is not None and s.is_done(before)
                if action in ("g0", "g2"):
                    s.grade(int(action[1]))
                elif action == "skip":
                    s.skip()
                elif action == "back":
                    s.back()
                elif action == "undo":
                    s.undo()
                else:
                    s.move(-1 if action == "left" else 1)
                if before is None or action not in ("g0", "g2", "skip"):
                    continue
                after = s.current
                items = s.items[before.qid]
                if action != "skip" and was_done:
                    place = items.index(before)
                    if place + 1 < len(items):
                        assert after == items[place + 1]
                        continue
                # (a second round of skips over all the query has left defers the query)
                if any(not s.is_done(it) and it.pair not in s.deferred for it in items):
                    assert after is not None and after.qid == before.qid
                if after is not None:
                    assert not s.is_done(after)
