"""The judging screen says why a query closed (its budget is spent, or its stopping rule
fired) and moves on; the reason is all it shows of the learner (blind judging stays blind).

Every test drives the real app with Textual's Pilot and reads what the screen shows.
"""

from __future__ import annotations

import re

from judge_helpers import sync
from textual.widgets import Static

from poolkit.config import JudgeConfig
from poolkit.judge.app import JudgeApp
from poolkit.judge.dialogs import TopicScreen
from poolkit.judge.session import JudgingSession
from poolkit.pool.budget import Budget
from poolkit.pool.next_passage import NextPassage
from poolkit.pool.order import order_strategy
from poolkit.pool.provenance import pool_from_ranks
from poolkit.pool.remaining import StopRule
from poolkit.store import Event, NewMember, QueryRecord, Store

SIZE = (100, 30)
QUIET = JudgeConfig(topic_card=False)
LEAKS = ("runA", "runB", "runC", "rank", "mm-ns", "priority", "posterior", "alpha", "bandit")

# q1: two runs of ten (the stored order alternates them, best ranks first); q2: one run.
Q1_RUNS = {"runA": [f"a{i}" for i in range(1, 11)], "runB": [f"b{i}" for i in range(1, 11)]}
Q1_ORDER = [d for pair in zip(Q1_RUNS["runA"], Q1_RUNS["runB"], strict=True) for d in pair]
Q2_RUNS = {"runC": ["c1", "c2", "c3"]}


def build(path) -> tuple[Store, dict]:
    store = Store(path)
    store.upsert_queries([QueryRecord("q1", "wind tunnel heat transfer"),
                          QueryRecord("q2", "boundary layer suction")])
    members, sources = [], []
    pools = {}
    for qid, runs, order in (("q1", Q1_RUNS, Q1_ORDER), ("q2", Q2_RUNS, Q2_RUNS["runC"])):
        members += [NewMember(qid, d, "", f"passage {d} on the topic", float(i))
                    for i, d in enumerate(order)]
        sources += [(qid, d, run, i + 1, None) for run, ds in runs.items()
                    for i, d in enumerate(ds)]
        pools[qid] = pool_from_ranks(qid, {run: {d: i + 1 for i, d in enumerate(ds)}
                                           for run, ds in runs.items()}, docs=tuple(order))
    store.add_pool_version({"runA": 10, "runB": 10, "runC": 3}, "priority", members, sources)
    return store, pools


def screen_text(app: JudgeApp) -> str:
    return "\n".join(str(w.content) for w in app.judge_screen.query(Static))


def judging(store: Store, pools: dict, order: str, clock, judge: JudgeConfig = QUIET,
            **limits) -> tuple[JudgingSession, JudgeApp]:
    """alice's session and app under ``order`` with ``limits`` (budget=, stop=)."""
    chooser = NextPassage(store, pools, order_strategy(order), **limits)
    session = JudgingSession(store, "alice", clock=clock, chooser=chooser)
    return session, JudgeApp(session, judge)


def closure_line(app: JudgeApp) -> Static:
    return app.judge_screen.query_one("#closure", Static)


@sync
async def test_a_spent_budget_is_said_on_screen_and_the_walk_moves_on(tmp_path, clock):
    store, pools = build(tmp_path / "j.sqlite")
    with store:
        session, app = judging(store, pools, "mm-ns", clock, budget=Budget.parse(2))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert not closure_line(app).display          # nothing closed yet
            assert session.current is not None and session.current.qid == "q1"
            await pilot.press("1")
            await pilot.pause()
            assert not closure_line(app).display
            await pilot.press("0")                        # the second of q1's two
            await pilot.pause()
            line = closure_line(app)
            assert line.display
            assert str(line.content) == "query q1 closed: budget 2/2 spent"
            assert session.current is not None and session.current.qid == "q2"
            assert "query q2" in screen_text(app)         # the title says where it went
            for leak in LEAKS:
                assert leak not in screen_text(app)
            await pilot.press("1")                        # the notice stays until the next
            await pilot.pause()
            assert str(closure_line(app).content) == "query q1 closed: budget 2/2 spent"
            await pilot.press("1")                        # q2's budget: 2 of its 3
            await pilot.pause()
            assert str(closure_line(app).content) == "query q2 closed: budget 2/2 spent"
            assert session.current is None
            assert "Nothing left to show: 2 queries closed" in screen_text(app)


@sync
async def test_a_fired_stopping_rule_is_said_with_the_estimated_recall(tmp_path, clock):
    store, pools = build(tmp_path / "j.sqlite")
    with store:
        # alice judged q1's first eight in stored order: the top three of each run relevant
        relevant = {"a1", "b1", "a2", "b2", "a3", "b3"}
        store.record_events([Event("q1", d, "alice", "grade", grade=int(d in relevant))
                             for d in Q1_ORDER[:8]])
        session, app = judging(store, pools, "priority", clock,
                               stop=StopRule(target=0.7, confidence=0.6))
        assert session.chooser is not None
        assert session.chooser.closed("q1") is None       # not sure enough yet
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert session.current is not None and session.current.docid == "a5"
            assert not closure_line(app).display
            await pilot.press("0")                        # one more miss: the rule fires
            await pilot.pause()
            said = str(closure_line(app).content)
            found = re.fullmatch(r"query q1 closed: estimated pool recall (0\.\d\d) ≥ target "
                                 r"0\.7 \(with probability ≥ 0\.6; 9/20 judged\)", said)
            assert found, said
            assert 0.7 <= float(found.group(1)) <= 1.0
            assert session.current is not None and session.current.qid == "q2"
            for leak in LEAKS:
                assert leak not in screen_text(app)


@sync
async def test_a_query_closed_by_others_is_said_when_the_session_opens(tmp_path, clock):
    store, pools = build(tmp_path / "j.sqlite")
    with store:
        store.record_events([Event("q1", d, "bob", "grade", grade=0) for d in ("a1", "b1")])
        session, app = judging(store, pools, "mtf", clock, budget=Budget.parse(2))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert str(closure_line(app).content) == "query q1 closed: budget 2/2 spent"
            assert session.current is not None and session.current.qid == "q2"


@sync
async def test_the_topic_card_of_the_next_query_says_why_the_last_one_closed(tmp_path, clock):
    store, pools = build(tmp_path / "j.sqlite")
    with store:
        session, app = judging(store, pools, "mm-ns", clock, JudgeConfig(topic_card=True),
                               budget=Budget.parse(1))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, TopicScreen)    # q1's card, nothing closed yet
            assert app.screen.notice == ""
            await pilot.press("space")                    # dismiss the card
            await pilot.pause()
            await pilot.press("1")
            await pilot.pause()
            card = app.screen
            assert isinstance(card, TopicScreen) and card.query_record.qid == "q2"
            text = "\n".join(str(w.content) for w in card.query(Static))
            assert "query q1 closed: budget 1/1 spent" in text


def test_the_reason_is_decided_once_per_set_of_grades(tmp_path):
    """The closure check runs before every passage: with the grades unchanged it answers
    from memory, and a new grade is seen (the store stays the truth)."""
    store, pools = build(tmp_path / "j.sqlite")
    with store:
        chooser = NextPassage(store, pools, order_strategy("mm-ns"), budget=Budget.parse(1))
        assert chooser.closed("q1") is None
        assert chooser.closed("q1") is None
        store.record_event(Event("q1", "a1", "bob", "grade", grade=1))
        assert chooser.closed("q1") == "budget 1/1 spent"
