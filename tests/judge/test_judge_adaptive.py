"""Judging under a learning order, a budget and a stopping rule (judge/adaptive.py).

Two assessors on one query under mm-ns are given different passages, and the learner picks
from both assessors' grades; budgets close a query for everyone; blind stays blind.
"""

from __future__ import annotations

from judge_helpers import sync

from poolkit.config import JudgeConfig
from poolkit.judge.app import JudgeApp
from poolkit.judge.session import JudgingSession
from poolkit.pool.budget import Budget
from poolkit.pool.learners import Judged
from poolkit.pool.mm_ns import MaxMeanNonStationary
from poolkit.pool.next_passage import NextPassage, history
from poolkit.pool.order import order_strategy
from poolkit.pool.provenance import pool_from_ranks
from poolkit.store import NewMember, QueryRecord, Store

SIZE = (80, 24)
RUNS = {"runA": ["a1", "a2", "a3"], "runB": ["b1", "b2"]}


def two_run_store(path) -> Store:
    store = Store(path)
    store.upsert_queries([QueryRecord("q1", "wind tunnel heat transfer")])
    docs = [d for ds in RUNS.values() for d in ds]
    members = [NewMember("q1", d, "", f"passage {d} about heat", float(i))
               for i, d in enumerate(docs)]
    sources = [("q1", d, run, i + 1, None) for run, ds in RUNS.items() for i, d in enumerate(ds)]
    store.add_pool_version({"runA": 3, "runB": 2}, "mm-ns", members, sources)
    return store


POOLS = {"q1": pool_from_ranks("q1", {run: {d: i + 1 for i, d in enumerate(docs)}
                                       for run, docs in RUNS.items()},
                              docs=("a1", "a2", "a3", "b1", "b2"))}


def chooser(store: Store, **kwargs) -> NextPassage:
    return NextPassage(store, POOLS, kwargs.pop("strategy", order_strategy("mm-ns")), **kwargs)


@sync
async def test_two_assessors_get_different_passages_and_feed_one_learner(tmp_path, clock):
    path = tmp_path / "j.sqlite"
    with two_run_store(path) as s_alice, Store(path) as s_bob:
        alice = JudgingSession(s_alice, "alice", clock=clock, chooser=chooser(s_alice))
        bob = JudgingSession(s_bob, "bob", clock=clock, chooser=chooser(s_bob))
        assert alice.current is not None and bob.current is not None
        assert (alice.current.docid, bob.current.docid) == ("a1", "a2")
        app_bob = JudgeApp(bob, JudgeConfig(topic_card=False))
        async with app_bob.run_test(size=SIZE) as pilot:
            await pilot.press("0")           # bob: a2 is not relevant
            await pilot.pause()
            # runA's posterior is now Beta(1, 2): bob moves to runB's best passage
            assert bob.current is not None and bob.current.docid == "b1"
        app_alice = JudgeApp(alice, JudgeConfig(topic_card=False))
        async with app_alice.run_test(size=SIZE) as pilot:
            await pilot.press("0")           # alice: a1 is not relevant either
            await pilot.pause()
            # the learner saw both misses (runA at Beta(1, 3)) and b1 is on bob's screen
            assert alice.current is not None and alice.current.docid == "b2"
        seen = history(s_alice, "q1", POOLS["q1"])
        assert seen == [Judged("a2", 0), Judged("a1", 0)]
        post = MaxMeanNonStationary().posteriors(POOLS["q1"], dict(seen))
        assert post["runA"][1] > post["runB"][1]
        by = {(e.assessor, e.docid) for e in s_alice.events(kinds=["grade"])}
        assert by == {("bob", "a2"), ("alice", "a1")}


@sync
async def test_blind_screen_shows_no_run_rank_or_learner_state(tmp_path, clock):
    with two_run_store(tmp_path / "j.sqlite") as store:
        session = JudgingSession(store, "alice", clock=clock, chooser=chooser(store))
        app = JudgeApp(session)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            from textual.widgets import Static

            text = " ".join(str(w.content) for w in app.judge_screen.query(Static))
            for leak in ("runA", "runB", "rank", "mm-ns", "posterior", "alpha"):
                assert leak not in text


def test_double_judging_gives_the_other_assessors_passages(tmp_path, clock):
    path = tmp_path / "j.sqlite"
    with two_run_store(path) as store:
        alice = JudgingSession(store, "alice", clock=clock, chooser=chooser(store))
        alice.grade(2)                                # a1
        bob = JudgingSession(store, "bob", clock=clock, chooser=chooser(store, double=True))
        assert bob.current is not None and bob.current.docid == "a1"
        single = JudgingSession(store, "carol", clock=clock, chooser=chooser(store))
        assert single.current is not None and single.current.docid not in {"a1"}


def test_budget_closes_a_query_for_every_assessor(tmp_path, clock):
    with two_run_store(tmp_path / "j.sqlite") as store:
        budget = Budget.parse(2)
        alice = JudgingSession(store, "alice", clock=clock,
                               chooser=chooser(store, budget=budget))
        alice.grade(1)
        assert alice.current is not None
        alice.grade(1)
        assert alice.current is None
        bob_chooser = chooser(store, budget=budget)
        bob = JudgingSession(store, "bob", clock=clock, chooser=bob_chooser)
        assert bob.current is None
        assert bob_chooser.closed("q1") == "budget 2/2 spent"


def test_static_order_without_budget_keeps_the_session_walk(tmp_path, clock):
    with two_run_store(tmp_path / "j.sqlite") as store:
        plain = chooser(store, strategy=order_strategy("shuffle"))
        assert not plain.active
        session = JudgingSession(store, "alice", clock=clock, chooser=plain)
        assert session.chooser is None and session.current is not None
        assert session.current.docid == "a1"   # the store's order


def test_budget_parse_counts_and_fractions():
    assert Budget.parse(30).count(100) == 30 and Budget.parse(30).count(10) == 10
    assert Budget.parse(0.25).count(10) == 3 and Budget.parse(1.0).count(7) == 7
    import pytest

    for bad in (0, -1, 1.5, 0.0, "x", True):
        with pytest.raises(ValueError):
            Budget.parse(bad)
