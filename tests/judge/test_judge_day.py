"""The screen after 200 passages (issue 28): each behaviour a judging day showed, reproduced
with Textual's Pilot at 120x40 before it was fixed.

Budgeted progress, what undo undid, a resumed query, a query skipped all round, regrading
from review, the review list's first lines, the position under a learning order, a search
hint that outlived its search, and the note-kept header of an ungraded passage.
"""

from __future__ import annotations

from judge_helpers import sync
from textual.widgets import Static

from poolkit.config import JudgeConfig
from poolkit.judge.app import JudgeApp
from poolkit.judge.session import JudgingSession
from poolkit.pool.budget import Budget
from poolkit.pool.next_passage import NextPassage
from poolkit.pool.order import order_strategy
from poolkit.pool.provenance import pool_from_ranks
from poolkit.store import NewMember, QueryRecord, Store

SIZE = (120, 40)
QUIET = JudgeConfig(topic_card=False)


def day_store(path, queries: int = 3, docs: int = 20) -> tuple[Store, dict]:
    """``queries`` queries of ``docs`` passages each from one run, and their pools."""
    store = Store(path)
    store.upsert_queries([QueryRecord(f"q{q}", f"heat transfer {q}") for q in range(queries)])
    order = {f"q{q}": [f"q{q}d{d:02d}" for d in range(docs)] for q in range(queries)}
    members = [NewMember(q, d, "", f"Passage {d} on heated plates.\nMore about {d}.", float(i))
               for q, ds in order.items() for i, d in enumerate(ds)]
    sources = [(q, d, "runA", i + 1, None) for q, ds in order.items() for i, d in enumerate(ds)]
    store.add_pool_version({"runA": docs}, "priority", members, sources)
    pools = {q: pool_from_ranks(q, {"runA": {d: i + 1 for i, d in enumerate(ds)}},
                                docs=tuple(ds)) for q, ds in order.items()}
    return store, pools


def text_of(app: JudgeApp, widget_id: str) -> str:
    return str(app.judge_screen.query_one(widget_id, Static).content)


@sync
async def test_the_footer_counts_the_budget_not_the_pool(tmp_path, clock):
    """``budget: 5`` over 225 queries said ``overall 5/7794 · ~1h32m left``: the pool's
    passages, most of which nobody will be shown."""
    store, pools = day_store(tmp_path / "j.sqlite")
    with store:
        chooser = NextPassage(store, pools, order_strategy("priority"), budget=Budget.parse(5))
        session = JudgingSession(store, "alice", clock=clock, chooser=chooser)
        app = JudgeApp(session, QUIET)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(5):
                await pilot.press("1")
                await pilot.pause()
            footer = text_of(app, "#progress")
            # 3 queries x budget 5 = 15; the clock ticks 7 s between showing and grading
            assert "this query 0/5" in footer and "overall 5/15 (33%)" in footer, footer
            assert "7s/judgment · ~1m left" in footer, footer       # 10 x 7 s


def dialog_title(app: JudgeApp) -> str:
    return str(app.screen.query_one(".dialog-title", Static).content)


@sync
async def test_undo_says_what_it_undid(tmp_path, clock):
    """``u`` said only ``undone``: which passage, and which grade went?"""
    store, _ = day_store(tmp_path / "j.sqlite")
    with store:
        app = JudgeApp(JudgingSession(store, "alice", clock=clock), QUIET)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("2")
            await pilot.press("0")
            await pilot.press("u")
            await pilot.pause()
            assert text_of(app, "#message") == "undone: doc q0d01, grade 0"
            await pilot.press("u")
            await pilot.pause()
            assert text_of(app, "#message") == "undone: doc q0d00, grade 2"


@sync
async def test_a_half_judged_query_is_announced_as_resumed(tmp_path, clock):
    """Reopening on a query judged half-way showed the card ``New query``."""
    store, _ = day_store(tmp_path / "j.sqlite")
    with store:
        earlier = JudgingSession(store, "alice", clock=clock)
        for g in (1, 0, 2):
            earlier.grade(g)
        app = JudgeApp(JudgingSession(store, "alice", clock=clock), JudgeConfig())
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            title = dialog_title(app)
            assert title.startswith("Resumed query q0 (1 of 3) · 3 of 20 judged"), title
            await pilot.press("space")
            for _ in range(17):
                await pilot.press("1")
            await pilot.pause()
            assert app.session.current is not None and app.session.current.qid == "q1"
            assert dialog_title(app).startswith("New query q1 (2 of 3)")
