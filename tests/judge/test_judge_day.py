"""The screen after 200 passages (issue 28): each behaviour a judging day showed, reproduced
with Textual's Pilot at 120x40 before it was fixed.

Budgeted progress, what undo undid, a resumed query, a query skipped all round, regrading
from review, the review list's first lines, the position under a learning order, a search
hint that outlived its search, and the note-kept header of an ungraded passage.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
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


def judging(store: Store, clock, judge: JudgeConfig = QUIET,
            **kwargs) -> tuple[JudgingSession, JudgeApp]:
    """alice's session on ``store`` (``kwargs``: the session's, as ``chooser=``) and its app."""
    session = JudgingSession(store, "alice", clock=clock, **kwargs)
    return session, JudgeApp(session, judge)


def text_of(app: JudgeApp, widget_id: str) -> str:
    return str(app.judge_screen.query_one(widget_id, Static).content)


@sync
async def test_the_footer_counts_the_budget_not_the_pool(tmp_path, clock):
    """``budget: 5`` over 225 queries said ``overall 5/7794 · ~1h32m left``: the pool's
    passages, most of which nobody will be shown."""
    store, pools = day_store(tmp_path / "j.sqlite")
    with store:
        chooser = NextPassage(store, pools, order_strategy("priority"), budget=Budget.parse(5))
        session, app = judging(store, clock, chooser=chooser)
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
        _, app = judging(store, clock)
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
        _, app = judging(store, clock, JudgeConfig())
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


@sync
async def test_a_query_skipped_all_round_is_deferred_not_cycled(tmp_path, clock):
    """Skipping every passage left in a query showed them again and again, for ever."""
    store, _ = day_store(tmp_path / "j.sqlite", queries=2, docs=3)
    with store:
        session, app = judging(store, clock)
        async with app.run_test(size=SIZE) as pilot:
            shown = []
            for _ in range(6):
                assert session.current is not None
                shown.append(session.current.docid)
                await pilot.press("s")
                await pilot.pause()
            # each of the three came back once; after the second round the query waits
            assert shown == ["q0d00", "q0d01", "q0d02", "q0d00", "q0d01", "q0d02"]
            assert session.current is not None and session.current.qid == "q1"
            said = text_of(app, "#message")
            assert said.startswith("query q0 deferred: its 3 passages left were each skipped "
                                   "twice; they come back at the end of the session"), said
            for _ in range(3):                 # q1 judged: q0's passages come back
                await pilot.press("1")
            await pilot.pause()
            assert session.current is not None and session.current.docid == "q0d00"


@sync
async def test_a_key_moves_on_to_the_next_query(tmp_path, clock):
    store, _ = day_store(tmp_path / "j.sqlite", queries=2, docs=3)
    with store:
        session, app = judging(store, clock)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("1")
            await pilot.press("right_square_bracket")
            await pilot.pause()
            assert session.current is not None and session.current.docid == "q1d00"
            assert text_of(app, "#message").startswith("query q0 deferred: its 2 passages "
                                                       "left come back at the end")
            assert not store.events(kinds=["skip"])       # nothing recorded: a walk choice


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from("gs"), min_size=1, max_size=40), st.integers(1, 4))
def test_skips_never_hold_the_walk_in_one_query(actions, docs):
    """Law: while another query has work, a query is left after at most two skips of each of
    its passages left in a row (a full round, then another), whatever came before."""
    import tempfile
    from pathlib import Path

    from judge_helpers import TickClock

    with tempfile.TemporaryDirectory() as tmp:
        store, _ = day_store(Path(tmp) / "j.sqlite", queries=2, docs=docs)
        with store:
            session = JudgingSession(store, "alice", clock=TickClock())
            run, last = 0, None
            for action in [*actions, *"s" * (4 * docs)]:
                item = session.current
                if item is None:
                    break
                others = any(not session.is_done(it) and it.pair not in session.deferred
                             for q, its in session.items.items() if q != item.qid
                             for it in its)
                run = run + 1 if item.qid == last and action == "s" and others else 0
                last = item.qid
                assert run <= 2 * docs, (run, item)
                session.grade(1) if action == "g" else session.skip()


@sync
async def test_regrading_from_review_returns_to_the_passage_you_were_on(tmp_path, clock):
    """A regrade opened from the review list went on to the passage after the regraded one,
    far from where the assessor was; ``g`` goes to the next unjudged passage."""
    store, _ = day_store(tmp_path / "j.sqlite")
    with store:
        session, app = judging(store, clock)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(4):
                await pilot.press("1")
            assert session.current is not None and session.current.docid == "q0d04"
            await pilot.press("r", "home", "down", "enter")    # passage 2 of the list
            await pilot.pause()
            assert session.current is not None and session.current.docid == "q0d01"
            await pilot.press("3")
            await pilot.pause()
            assert session.current is not None and session.current.docid == "q0d04"
            assert store.current_grades()[("q0", "q0d01")]["alice"].grade == 3
            await pilot.press("left", "left", "left")          # q0d01, judged
            await pilot.press("g")
            await pilot.pause()
            assert session.current is not None and session.current.docid == "q0d04"


@sync
async def test_the_review_list_shows_each_passages_first_line(tmp_path, clock):
    """The list named each passage by its id and grade only: which one was q0d07?"""
    from textual.widgets import OptionList

    store, _ = day_store(tmp_path / "j.sqlite", queries=1, docs=3)
    with store:
        _, app = judging(store, clock)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("2", "r")
            await pilot.pause()
            options = app.screen.query_one(OptionList)
            rows = [str(options.get_option_at_index(i).prompt)
                    for i in range(options.option_count)]
            assert rows == ["1  q0d00  2 highly relevant  Passage q0d00 on heated plates.",
                            "2  q0d01  –                  Passage q0d01 on heated plates.",
                            "3  q0d02  –                  Passage q0d02 on heated plates."]


def test_a_long_first_line_is_cut_to_one_row(tmp_path, clock):
    from poolkit.judge.dialogs import FIRST_LINE, first_line, review_rows

    assert first_line("", "\n  " + "word " * 40) == ("word " * 12).rstrip()[:FIRST_LINE - 1] + "…"
    assert first_line("Title", "body") == "Title"
    store, _ = day_store(tmp_path / "j.sqlite", queries=1, docs=2)
    with store:
        session = JudgingSession(store, "alice", clock=clock)
        rows = review_rows(session, "q0", {0: "not", 1: "yes"}, width=20)
        assert [row.plain for _, row in rows] == ["1  q0d00  –  Passag…", "2  q0d01  –  Passag…"]


@sync
async def test_under_a_ranked_order_the_header_counts_judged_not_the_position(tmp_path, clock):
    """Under priority, mtf and mm-ns ``Passage 14 of 40`` was the fused rank: the order
    leaked through the position. Shuffle and docid orders keep the position."""
    store, pools = day_store(tmp_path / "j.sqlite", queries=1, docs=20)
    with store:
        for chooser in (None, NextPassage(store, pools, order_strategy("mm-ns"))):
            session, app = judging(store, clock, chooser=chooser)
            async with app.run_test(size=SIZE) as pilot:
                await pilot.press("0", "0", "0")
                await pilot.pause()
                head = text_of(app, "#head")
                done = len(store.current_grades())
                assert head.startswith(f"{done} of 20 judged · doc "), head
                assert "Passage" not in head


def is_prompt(app: JudgeApp) -> bool:
    from poolkit.judge.dialogs import PromptScreen

    return isinstance(app.screen, PromptScreen)


@sync
async def test_an_ended_search_takes_its_hint_with_it(tmp_path, clock):
    """After Escape ended a search, ``n/N next/previous`` stayed on screen while ``n``
    opened the note dialog."""
    store, _ = day_store(tmp_path / "j.sqlite", queries=1, docs=3)
    with store:
        _, app = judging(store, clock)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("slash", *"heated", "enter")
            await pilot.pause()
            assert "next/previous" in text_of(app, "#message")
            await pilot.press("escape")
            await pilot.pause()
            assert "next/previous" not in text_of(app, "#message")
            assert text_of(app, "#message") == "search ended"
            await pilot.press("n")
            await pilot.pause()
            assert is_prompt(app)                          # n is the note key again


@sync
async def test_an_ungraded_passage_does_not_say_note_kept_for_this_grade(tmp_path, clock):
    store, _ = day_store(tmp_path / "j.sqlite", queries=1, docs=3)
    with store:
        session, app = judging(store, clock)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("n", *"unclear", "enter")
            await pilot.pause()
            assert session.pending_note == "unclear"
            assert "note kept for this grade" not in text_of(app, "#head")
            await pilot.press("2")                         # the note goes with the grade
            await pilot.pause()
            grade = store.events(kinds=["grade"])[-1]
            assert grade.note == "unclear"


def lit(app: JudgeApp, style: str) -> list[str]:
    passage = app.judge_screen.query_one("#passage", Static).content
    return [passage.plain[s.start:s.end] for s in passage.spans if str(s.style) == style]


@sync
async def test_stem_highlighting_marks_inflections(tmp_path, clock):
    """Whole-word highlighting left ``heated`` dark under the query ``heat transfer``;
    ``judge: highlight: stem`` lights heated / heat / heating, exact stays the default."""
    from poolkit.judge.texts import HIGHLIGHT

    store = Store(tmp_path / "j.sqlite")
    with store:
        store.upsert_queries([QueryRecord("q1", "heat transfer in heated plates")])
        body = "Heating the plate: heat flows; heated plates transferred heats. Heathen."
        store.add_pool_version({"a": 1}, "docid", [NewMember("q1", "d1", "", body, 0.0)],
                               [("q1", "d1", "a", 1, None)])
        for mode, expected in (("exact", ["heat", "heated", "plates"]),
                               ("stem", ["Heating", "plate", "heat", "heated", "plates",
                                         "transferred", "heats"])):
            app = JudgeApp(JudgingSession(store, "alice", clock=clock),
                           JudgeConfig(topic_card=False, highlight=mode))
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                assert lit(app, HIGHLIGHT) == expected, mode
        assert JudgeConfig().highlight == "exact"


def test_stems_fold_inflections_and_keep_short_words():
    from poolkit.judge.highlight import stem

    for group in (("heat", "heated", "heating", "heats"), ("store", "stored", "storing"),
                  ("control", "controlled", "controlling", "controls"), ("fly", "flies"),
                  ("plate", "plates"), ("box", "boxes")):
        assert len({stem(w) for w in group}) == 1, group
    assert stem("gas") == "gas" and stem("bus") == "bus" and stem("is") == "is"
    assert stem("heathen") != stem("heat") and stem("glass") == "glass"


@pytest.mark.parametrize("value", ["stemm", "[stem]", "yes"])
def test_a_highlight_typo_is_one_line_naming_the_config_line(tmp_path, capsys, value):
    from judge_helpers import write_config

    from poolkit.cli import main

    config = write_config(tmp_path / "cfg", tmp_path / "s.sqlite",
                          f"judge:\n  highlight: {value}\n")
    before = config.read_bytes()
    assert main(["status", str(config)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "config.yaml:7: judge.highlight" in err[0], err
    assert "exact" in err[0] and "stem" in err[0]
    assert config.read_bytes() == before and not (tmp_path / "s.sqlite").exists()


WORDS = st.sampled_from(["heat", "heated", "Heating", "heats", "plate", "plates", "glass",
                         "bus", "flies", "fly", "stored", "store", "the", "a", "controlled"])


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=12), st.lists(WORDS, min_size=1, max_size=3))
def test_stem_highlighting_lights_everything_exact_does(text_words, terms):
    """Law: ``stem`` only adds to what ``exact`` lights (a word is its own inflection)."""
    from poolkit.judge.highlight import term_spans

    text = " ".join(text_words)
    assert set(term_spans(text, terms)) <= set(term_spans(text, terms, stemmed=True))


@sync
async def test_a_querys_own_guidelines_show_on_its_card_and_under_help(tmp_path, clock):
    """One global guidelines file and the narrative were all a topic could say."""
    from poolkit.judge.dialogs import GuidelinesScreen, TopicScreen

    store, _ = day_store(tmp_path / "j.sqlite", queries=2, docs=2)
    with store:
        judge = JudgeConfig(guidelines="Grade for the question asked.",
                            topic_guidelines={"q0": "Only flat plates count for q0."})
        _, app = judging(store, clock, judge)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, TopicScreen)
            card = "\n".join(str(w.content) for w in app.screen.query(Static))
            assert "Only flat plates count for q0." in card
            await pilot.press("space", "question_mark")
            await pilot.pause()
            assert isinstance(app.screen, GuidelinesScreen)
            shown = str(app.screen.query_one("#guidelines-text", Static).content)
            assert "Only flat plates count for q0." in shown
            assert "Grade for the question asked." in shown
            await pilot.press("escape", "1", "1")           # on to q1: its card has none
            await pilot.pause()
            assert isinstance(app.screen, TopicScreen)
            assert app.screen.query_record.qid == "q1"
            card = "\n".join(str(w.content) for w in app.screen.query(Static))
            assert "flat plates" not in card


def test_a_guidelines_folder_holds_one_file_per_query(tmp_path, capsys):
    from judge_helpers import write_config

    from poolkit.cli import main
    from poolkit.config import load_config

    folder = tmp_path / "cfg" / "guidelines"
    folder.mkdir(parents=True)
    (folder / "q1.md").write_text("Only flat plates count.\n")
    (folder / "guidelines.md").write_text("Grade for the question asked.\n")
    config = write_config(tmp_path / "cfg", tmp_path / "s.sqlite",
                          "judge:\n  guidelines: guidelines\n")
    judge = load_config(config).judge
    assert judge.guidelines.strip() == "Grade for the question asked."
    assert {q: t.strip() for q, t in judge.topic_guidelines.items()} == {
        "q1": "Only flat plates count."}
    # a file for a query the store does not have: one line naming the file, exit 2
    from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, build_store

    build_store(tmp_path / "s.sqlite", TINY_QUERIES, TINY_DOCS, TINY_POOLS).close()
    (folder / "q9.md").write_text("for a query nobody pooled\n")
    before = (tmp_path / "s.sqlite").read_bytes()
    assert main(["judge", str(config), "--assessor", "alice"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "q9.md: no query 'q9'" in err[0], err
    assert (tmp_path / "s.sqlite").read_bytes() == before
