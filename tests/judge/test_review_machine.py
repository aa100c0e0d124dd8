"""``poolkit judge --review-machine JUDGE[@VERSION]`` (issue 24): the pairs where a machine
judge and an assessor disagree most, walked after the fact and adjudicated as a person's
``adjudicate`` events, on both backends; and the normal judging screen, which never shows a
machine's grade. The screen is driven with Textual's Pilot; tests wait for states, never
for a time."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from judging_screen_helpers import TickClock, pooled_store, screen_text, sync, until
from textual.widgets import Static

from poolkit.config import JudgeConfig
from poolkit.errors import PoolkitError
from poolkit.judge.app import JudgeApp
from poolkit.judge.review import machine_review
from poolkit.judge.session import JudgingSession
from poolkit.machine_choice import chosen_machines
from poolkit.policies import Labels
from poolkit.store import Event

SIZE = (110, 32)
#: (qid, docid) -> (alice's grade, the machine's grade under v1, its confidence or None)
PLAN = {("q0", "d000"): (0, 3, 0.6), ("q0", "d001"): (1, 1, 0.7),
        ("q0", "d002"): (2, 0, None), ("q1", "d000"): (3, 0, 0.9),
        ("q1", "d001"): (0, 2, 0.8), ("q1", "d002"): (1, 3, 0.5)}
#: largest difference first, then the judge's confidence (none last), then pool order
ORDER = [("q1", "d000"), ("q0", "d000"), ("q1", "d001"), ("q1", "d002"), ("q0", "d002")]


def machine(qid: str, docid: str, grade: int, version: str = "v1",
            confidence: float | None = None, judge: str = "llm") -> Event:
    note = None
    if confidence is not None:
        rest = (1 - confidence) / 3
        note = json.dumps({"distribution": {str(g): confidence if g == grade else rest
                                            for g in range(4)}})
    return Event(qid, docid, judge, "grade", grade=grade, origin="machine",
                 judge_version=version, note=note)


def person(qid: str, docid: str, grade: int, who: str = "alice") -> Event:
    return Event(qid, docid, who, "grade", grade=grade, shown_at="2026-01-05T09:00:00+00:00")


def graded(store) -> None:
    """alice's grades (d000 of q0 regraded: 2 then 0), an old version v0 of judge llm, then
    v1 (its latest) on the plan's pairs and on q0/d003, which alice has not graded."""
    store.record_event(person("q0", "d000", 2))
    store.record_events([person(q, d, mine) for (q, d), (mine, _, _) in PLAN.items()])
    store.record_event(person("q1", "d003", 2))
    store.record_event(machine("q1", "d003", 0, "v0"))
    store.record_events([machine(q, d, theirs, confidence=c)
                         for (q, d), (_, theirs, c) in PLAN.items()])
    store.record_event(machine("q0", "d003", 3))


@pytest.fixture
def store(store_location):
    with pooled_store(store_location, queries=2, docs=4) as store:
        graded(store)
        yield store


def test_the_walk_is_largest_difference_then_confidence_then_pool_order(store):
    review = machine_review(store, "alice", "llm@v1", "here")
    assert (review.judge, review.version) == ("llm", "v1")
    assert [(d.qid, d.docid) for d in review.pairs] == ORDER
    first = review.pairs[1]  # q0/d000: alice's standing grade is her regrade, 0
    assert (first.mine, first.machine, first.confidence, first.difference) == (0, 3, 0.6, 3)
    old = machine_review(store, "alice", "llm@v0", "here")
    assert [(d.qid, d.docid, d.mine, d.machine) for d in old.pairs] == [("q1", "d003", 2, 0)]


def test_unknown_judge_version_and_an_assessor_without_grades_are_one_line(store):
    with pytest.raises(PoolkitError, match=r"^here: --review-machine: unknown machine judge "
                                           r"'lm'; valid: llm \(did you mean 'llm'\?\)$"):
        machine_review(store, "alice", "lm", "here")
    with pytest.raises(PoolkitError, match=r"^here: --review-machine: unknown version of "
                                           r"machine judge 'llm' 'v9'; "):
        machine_review(store, "alice", "llm@v9", "here")
    with pytest.raises(PoolkitError, match=r"^here: --review-machine: 'carol' has no grades "
                                           r"to review against llm@v1 "):
        machine_review(store, "carol", "llm@v1", "here")
    # no config defines llm, and it has two versions: a bare name is refused
    with pytest.raises(PoolkitError, match=r"^here: --review-machine: machine judge 'llm' has "
                                           r"2 versions; name one: llm@v1 \(7 grades\), "
                                           r"llm@v0 \(1 grade\)$"):
        machine_review(store, "alice", "llm", "here")


def dispute(app: JudgeApp) -> str:
    return text_of_line(app, "#dispute")


def text_of_line(app: JudgeApp, selector: str) -> str:
    line = app.judge_screen.query_one(selector, Static)
    return "" if line.text is None else line.text.plain  # type: ignore[attr-defined]


@sync
async def test_the_review_screen_walks_the_disagreements_and_records_adjudications(store):
    before = store.events(kinds=["grade"])
    machines_before = store.events(kinds=["grade"], machine="llm")
    review = machine_review(store, "alice", "llm@v1", "here")
    session = JudgingSession(store, "alice", mode="review", review=review, clock=TickClock())
    app = JudgeApp(session, JudgeConfig(topic_card=False))
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: "judge llm said" in dispute(app), "the review line")
        assert session.current.pair == ORDER[0]
        assert "judge llm said 0, you said 3" in dispute(app)
        assert "confidence 0.90" in dispute(app) and "version v1" in dispute(app)
        assert "review machine llm@v1" in screen_text(app)
        await pilot.press("2")
        await until(lambda: session.current is not None and session.current.pair == ORDER[1],
                    "the next disagreement")
        assert "judge llm said 3, you said 0" in dispute(app)
        await pilot.press("s")  # skipped: it comes back after the others
        await until(lambda: session.current.pair == ORDER[2], "past the skip")
        for key in "103":
            await pilot.press(key)
        await until(lambda: session.current is not None and session.current.pair == ORDER[1],
                    "the skipped one again")
        await pilot.press("3")
        await until(lambda: session.current is None, "every disagreement reviewed")
        await pilot.press("q")
    rulings = store.events(kinds=["adjudicate"])
    assert [(e.qid, e.docid, e.grade) for e in rulings] == [
        (*ORDER[0], 2), (*ORDER[2], 1), (*ORDER[3], 0), (*ORDER[4], 3), (*ORDER[1], 3)]
    standing = {(e.qid, e.docid): e for e in before}
    for e in rulings:
        doc = json.loads(e.note)["review_machine"]
        mine, theirs, confidence = PLAN[(e.qid, e.docid)]
        assert (e.assessor, e.origin, e.judge_version) == ("alice", "person", None)
        assert doc == {"judge": "llm", "version": "v1", "machine_grade": theirs,
                       "confidence": confidence, "earlier_grade": mine,
                       "earlier_event": e.ref}
        assert standing[(e.qid, e.docid)].id == e.ref or (e.qid, e.docid) == ORDER[1]
    # nothing overwritten: every grade, a person's or the machine's, is still as it was
    assert store.events(kinds=["grade"]) == before
    assert store.events(kinds=["grade"], machine="llm") == machines_before
    # a person's grade: it decides its pair in people's labels, no machine named
    labels = Labels.from_store(store, "latest")
    assert labels.grades["q1"]["d000"] == 2 and labels.grades["q0"]["d000"] == 3
    assert labels.grades["q0"]["d001"] == 1  # not reviewed: alice's grade as it was
    assert "d003" not in labels.grades["q0"]  # the machine's alone: not a label
    assert labels.adjudicators == {"q0": ["alice"], "q1": ["alice"]}
    named = Labels.as_of(store, policy="latest",
                          machines=chosen_machines(store, ["llm@v1"], "here"))
    assert named.grades["q1"]["d000"] == 2  # the judge named: her adjudication still decides
    assert named.machine == {"q0": {"d003": ("llm", "v1")}}  # it fills only what no one graded
    # reopening: every disagreement is reviewed, the walk has nothing left
    again = JudgingSession(store, "alice", mode="review",
                           review=machine_review(store, "alice", "llm@v1", "here"))
    assert again.current is None and again.progress().done == len(ORDER)


@sync
async def test_the_judging_screen_never_shows_or_reads_a_machines_grade(store_location):
    """With judge llm's grades on every pair, the judging screen shows none of them: it
    asks the store for no machine event at all, and nothing on screen names the judge."""
    with pooled_store(store_location, queries=2, docs=4) as store:
        store.record_events([machine(q, f"d00{d}", 3, confidence=0.9)
                             for q in ("q0", "q1") for d in range(4)])
        asked: list[object] = []
        events, live_marks = store.events, store.live_marks

        def spy(real):
            def call(*args, **kwargs):
                asked.append(kwargs.get("machine"))
                return real(*args, **kwargs)
            return call

        store.events, store.live_marks = spy(events), spy(live_marks)  # type: ignore[method-assign]
        session = JudgingSession(store, "bob", clock=TickClock())
        app = JudgeApp(session, JudgeConfig(topic_card=False))
        async with app.run_test(size=SIZE) as pilot:
            for key in "0120":
                shown = session.current
                assert "llm" not in screen_text(app) and "machine" not in screen_text(app)
                assert session.grade_of(shown) is None  # the judge's 3 is not bob's grade
                await pilot.press(key)
                await until(lambda s=shown: session.current != s, "the next passage")
            assert not app.judge_screen.query_one("#dispute").display
            await pilot.press("q")
        assert asked and all(m is None for m in asked)
        assert [e.grade for e in store.events(kinds=["grade"])] == [0, 1, 2, 0]


def test_no_disagreement_is_a_message_and_the_ui_does_not_open(tmp_path, capsys):
    from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, build_store, write_config

    from poolkit.cli import main

    path = tmp_path / "tiny.sqlite"
    with build_store(path, TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        store.record_events([person("q1", "d1", 2), machine("q1", "d1", 2, confidence=0.9)])
    config = write_config(tmp_path / "cfg", path)
    before = path.read_bytes()
    assert main(["judge", str(config), "--assessor", "alice", "--review-machine", "llm"]) == 0
    out, err = capsys.readouterr()
    assert err == ("poolkit judge: nothing to review: alice and machine judge llm@v1 agree on "
                   "every pair both graded\n") and out == ""
    assert path.read_bytes() == before


@pytest.mark.parametrize(("args", "line"), [
    (["--assessor", "alice", "--review-machine", "gpt"],
     "--review-machine: unknown machine judge 'gpt'; valid: llm"),
    (["--assessor", "alice", "--review-machine", "llm@v7"],
     "--review-machine: unknown version of machine judge 'llm' 'v7'; valid: v1"),
    (["--assessor", "carol", "--review-machine", "llm"],
     "--review-machine: 'carol' has no grades to review against llm@v1 (judge first, or "
     "give another --assessor)"),
])
def test_bad_review_requests_are_one_line_exit_2_and_nothing_written(tmp_path, capsys, args,
                                                                      line):
    from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, build_store, write_config

    from poolkit.cli import main

    path = tmp_path / "tiny.sqlite"
    with build_store(path, TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        store.record_events([person("q1", "d1", 0), machine("q1", "d1", 3)])
    config = write_config(tmp_path / "cfg", path)
    files = {p: p.read_bytes() for p in [path, *config.parent.iterdir()]}
    assert main(["judge", str(config), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("poolkit judge: error: ")
    assert err.rstrip("\n").endswith(line), err
    assert {p: p.read_bytes() for p in files} == files


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3),
                          st.none() | st.floats(0.05, 1.0)), min_size=1, max_size=8))
def test_the_walk_holds_exactly_the_disagreements_sorted(tmp_path_factory, plan):
    """Law: the walk is the pairs both graded with different grades, each once, ordered by
    (-difference, -confidence with none last, pool order)."""
    path = tmp_path_factory.mktemp("law") / "s.sqlite"
    with pooled_store(path, queries=1, docs=len(plan)) as store:
        pairs = [("q0", f"d{i:03d}") for i in range(len(plan))]
        store.record_events([person(q, d, mine) for (q, d), (mine, _, _) in zip(pairs, plan)])
        store.record_events([machine(q, d, theirs, confidence=c)
                             for (q, d), (_, theirs, c) in zip(pairs, plan)])
        if all(mine == theirs for mine, theirs, _ in plan):
            assert machine_review(store, "alice", "llm", "here").pairs == []
            return
        walk = machine_review(store, "alice", "llm", "here").pairs
    want = sorted((i for i, (mine, theirs, _) in enumerate(plan) if mine != theirs),
                  key=lambda i: (-abs(plan[i][0] - plan[i][1]),
                                 -(plan[i][2] if plan[i][2] is not None else -1), i))
    assert [d.docid for d in walk] == [pairs[i][1] for i in want]

