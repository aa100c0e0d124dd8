"""Issue 28 in the judging session: ``judge --assessor NAME`` serves NAME's assignment, a
pair filled by others meanwhile gives her other work, can't-judge is its own event (done
for her, never a label, on the adjudication list) and judge-later defers to the session's
end."""

from __future__ import annotations

from judge_helpers import sync
from test_judge_app import SIZE, make_app, text_of

from poolkit.judge.cant_judge import CantJudgeScreen
from poolkit.judge.screens import JudgeScreen
from poolkit.judge.session import JudgingSession
from poolkit.pool.assignment import plan_slots
from poolkit.store.assign_sql import AssignmentPlan


def shown(session: JudgingSession) -> tuple[str, str] | None:
    return session.current.pair if session.current else None


def plan(store, slots, overlap=1, assessors=("alice", "bob")):
    store.replace_assignment(AssignmentPlan(overlap, "pair", 0, tuple(assessors)),
                             lambda current, settled: slots)


def walk(session: JudgingSession) -> list[tuple[str, str]]:
    seen = []
    while session.current is not None:
        seen.append(shown(session))
        session.grade(1)
    return seen


def test_each_assessor_is_served_her_assignment_only(tiny_store, clock):
    pairs = [(m.qid, m.docid) for m in tiny_store.pool()]
    slots = plan_slots(pairs, ["alice", "bob"], 1, "pair", 0)
    plan(tiny_store, slots)
    for who in ("alice", "bob"):
        assert walk(JudgingSession(tiny_store, who, clock=clock)) == \
            [p for p in pairs if slots[p] == [who]]
    assert walk(JudgingSession(tiny_store, "carol", clock=clock)) == []  # nothing open


def test_an_open_slot_taken_meanwhile_gives_other_work(tiny_store, clock):
    plan(tiny_store, {("q1", "d1"): [None], ("q1", "d2"): [None]}, assessors=())
    alice = JudgingSession(tiny_store, "alice", clock=clock)
    bob = JudgingSession(tiny_store, "bob", clock=clock)
    assert shown(alice) == shown(bob) == ("q1", "d1")
    assert bob.grade(2) is not None
    assert alice.grade(3) is None  # refused: the pair has its one assessor
    assert shown(alice) == ("q1", "d2")
    assert [(e.assessor, e.docid) for e in tiny_store.events()] == [("bob", "d1")]


def test_cant_judge_is_its_own_event_done_for_her_and_never_a_label(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    assert s.cant_judge("broken text") is not None
    e = tiny_store.events()[-1]
    assert (e.kind, e.docid, e.note, e.grade) == ("cant_judge", "d1", "broken text", None)
    assert shown(s) == ("q1", "d2") and tiny_store.current_grades() == {}
    assert s.progress().done == 1
    assert shown(JudgingSession(tiny_store, "alice", clock=clock)) == ("q1", "d2")
    lead = JudgingSession(tiny_store, "lead", mode="adjudicate", clock=clock)
    assert shown(lead) == ("q1", "d1")  # the adjudication list has it, with the reason
    assert [e.note for e in lead.notes[("q1", "d1")]] == ["can't judge: broken text"]


def test_judge_later_defers_to_the_end_of_the_session(tiny_store, clock):
    s = JudgingSession(tiny_store, "alice", clock=clock)
    assert s.later() and shown(s) == ("q1", "d2")
    s.skip()  # a skip comes back before the query ends; a deferred passage only at the end
    assert walk(s) == [("q1", "d3"), ("q1", "d2"), ("q2", "d4"), ("q2", "d5"), ("q1", "d1")]


# -- the keys, driven with Textual's Pilot -----------------------------------------------------

@sync
async def test_c_asks_why_and_records_cant_judge_not_a_grade(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        assert isinstance(app.screen, CantJudgeScreen)
        await pilot.press("2")  # broken text
        assert isinstance(app.screen, JudgeScreen)
        assert app.session.current.docid == "d2"
        assert text_of(app, "#message") == "d1: can't judge (broken text), for adjudication"
        await pilot.press("c", "escape")  # cancelled: nothing recorded, d2 stays
        assert app.session.current.docid == "d2"
        await pilot.press("c", "down", "down", "down", "enter", *"smudged scan", "enter")
        assert app.session.current.docid == "d3"
    events = tiny_store.events()
    assert [(e.kind, e.docid, e.note, e.grade) for e in events] == [
        ("cant_judge", "d1", "broken text", None), ("cant_judge", "d2", "smudged scan", None)]
    assert tiny_store.current_grades() == {}


@sync
async def test_d_defers_the_passage_to_the_end_of_the_session(tiny_store, clock):
    app = make_app(tiny_store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("d")
        assert app.session.current.docid == "d2"
        assert text_of(app, "#message") == "d1 deferred: it comes back at the end"
        await pilot.press("1", "1", "1", "1")  # d2, d3, then q2's d4, d5
        assert app.session.current.pair == ("q1", "d1")
        await pilot.press("3")
        assert app.session.current is None
    assert [e.docid for e in tiny_store.events()] == ["d2", "d3", "d4", "d5", "d1"]
    assert tiny_store.events()[-1].grade == 3


def test_a_learning_order_picks_inside_the_assignment(tmp_path, clock):
    from test_judge_adaptive import chooser, two_run_store

    with two_run_store(tmp_path / "s.sqlite") as store:
        slots = {("q1", d): ["alice" if d in ("a2", "b2") else "bob"]
                 for d in ("a1", "a2", "a3", "b1", "b2")}
        plan(store, slots)
        s = JudgingSession(store, "alice", clock=clock, chooser=chooser(store))
        assert sorted(walk(s)) == [("q1", "a2"), ("q1", "b2")]
