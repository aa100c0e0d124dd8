"""``pool.stop: NAME`` on the judging screen (issue 26): the status line states the rule and
its promise, and a query the rule says may stop closes with the rule named and the session
moves on. The rule is ``stopping.STOP_RULES``' own, the code ``simulate --stop`` replays:
the live closure comes where the replay stops, on the same grades."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_helpers import write_config
from judging_screen_helpers import TickClock, pooled_store, screen_text, sync, until

from poolkit.cli import main
from poolkit.collection import Collection
from poolkit.config import JudgeConfig
from poolkit.judge.app import JudgeApp
from poolkit.judge.session import JudgingSession
from poolkit.pool.learners import Judged
from poolkit.pool.next_passage import NextPassage
from poolkit.pool.order import order_strategy
from poolkit.pool.remaining import StopRule
from poolkit.pool.stopping import MIN_JUDGED, KneeRule, QuantRule, SampledQuantRule
from poolkit.pool.view import Hit, QueryPool

SIZE = (120, 30)
DOCS = 14
#: q0's grades in the stored order: four relevant, then misses; knee fires at the 10th
#: (slope 1 before the knee, 1/6 after it: the ratio reaches 6)
KEYS = "3333" + "0" * 6


def configured(tmp_path, location, pool: str):
    with pooled_store(location, queries=2, docs=DOCS):
        pass
    return write_config(tmp_path / "cfg", location, f"pool: {pool}\n")


@sync
async def test_the_status_line_states_the_rule_and_a_fired_rule_moves_on(store_location,
                                                                         tmp_path):
    config = configured(tmp_path, store_location, "{order: docid, stop: knee}")
    with Collection.open(config, write=True) as collection:
        chooser = collection.next_passage()
        session = JudgingSession(collection.store, "alice", clock=TickClock(),
                                 chooser=chooser)
        app = JudgeApp(session, JudgeConfig(topic_card=False))
        async with app.run_test(size=SIZE) as pilot:
            assert "stop: knee — no guarantee, heuristic" in screen_text(app)
            for i, key in enumerate(KEYS):
                current = session.current
                assert current is not None and current.qid == "q0", i  # open until the 10th
                await pilot.press(key)
                await until(lambda c=current: session.current != c, "the next passage")
            said = screen_text(app)
            assert "query q0 closed: stop: knee says it may stop (10/14 judged)" in said
            assert session.current is not None and session.current.qid == "q1"
            assert "stop: knee — no guarantee, heuristic" in said
    # the replay's rule on the same grades stops at the same judgment
    seq = [Judged(f"d{d:03d}", int(k)) for d, k in enumerate(KEYS + "0" * 4)]
    assert KneeRule().stop(chooser.pools["q0"], seq, 1).judged == len(KEYS)


def test_status_json_states_the_rule_and_its_promise(store_location, tmp_path, capsys):
    config = configured(tmp_path, store_location, "{stop: quant-sample, stop_recall: 0.8}")
    assert main(["status", str(config), "--format", "json"]) == 0
    rule = json.loads(capsys.readouterr().out)["stop_rule"]
    assert rule == {"rule": "quant-sample", "target": 0.8, "confidence": 0.9,
                    "promise": SampledQuantRule().promise()}


def test_without_stop_the_stop_recall_rule_is_the_model_rule(tmp_path):
    from poolkit.pool.section import stop_rule_of

    config = configured(tmp_path, tmp_path / "s.sqlite", "{stop_recall: 0.8}")
    with Collection.open(config) as collection:
        assert stop_rule_of(collection.config) == StopRule(0.8, 0.9)
        assert collection.next_passage().promise == (
            "stop: model — estimated pool recall >= 0.8 with model probability >= 0.9 (the "
            "model's estimate, not a guarantee)")


def pool_of(n: int) -> QueryPool:
    docs = tuple(f"d{i:02d}" for i in range(n))
    return QueryPool("q", docs, {d: (Hit("r", i + 1),) for i, d in enumerate(docs)})


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=MIN_JUDGED + 1, max_size=24),
       st.sampled_from([KneeRule(), QuantRule()]))
def test_the_live_rule_closes_where_the_replay_stops(grades, rule):
    """Walking the grades one by one, the session's check closes the query at the judgment
    where ``simulate --stop``'s replay of the same rule stops (never, if it never does)."""
    pool = pool_of(len(grades))
    seq = [Judged(d, g) for d, g in zip(pool.docs, grades)]
    chooser = NextPassage(None, {"q": pool}, order_strategy("docid"),  # type: ignore[arg-type]
                          stop=rule)
    closed_at = next((k for k in range(len(seq)) if chooser.closed("q", seq[:k])),
                     len(seq))
    assert closed_at == rule.stop(pool, seq, 1).judged
    if closed_at < len(seq):
        assert chooser.closed("q", seq[:closed_at]) == (
            f"stop: {rule.name} says it may stop ({closed_at}/{len(seq)} judged)")


@pytest.mark.parametrize("rule", ["model", "knee", "target", "quant", "quant-sample"])
def test_every_live_rule_states_its_promise(rule, tmp_path):
    config = configured(tmp_path, tmp_path / "s.sqlite", f"{{stop: {rule}}}")
    with Collection.open(config) as collection:
        chooser = collection.next_passage()
        assert chooser.stop_rule is not None and chooser.stop_rule.name == rule
        assert chooser.promise == f"stop: {rule} — {chooser.stop_rule.promise()}"


def _relevant(docid: str) -> bool:
    """q0's truth in the target pilot: the first ten passages relevant (the sample of
    seven holds five of them; the order has met them all again at its 12th judgment)."""
    return int(docid[1:]) < 10


@sync
async def test_target_serves_its_sample_first_blind_and_closes_where_the_replay_stops(
        store_location, tmp_path):
    """``stop: target`` at recall 0.5 (r = 5 sampled relevant, all 5 to be met again): the
    session serves the seeded random sample first, then the stored (docid) order; the query
    closes at the judgment where ``simulate --stop target``'s replay of the same grades
    stops, and the screen shows only how many sample passages are judged."""
    from poolkit.pool.stopping import TargetRule, target_order

    config = configured(tmp_path, store_location, "{order: docid, stop: target, "
                                                  "stop_recall: 0.5}")
    with Collection.open(config, write=True) as collection:
        chooser = collection.next_passage()
        pool = chooser.pools["q0"]
        rule = TargetRule(0.5)
        assert rule.sample_size() == 5
        truth = [Judged(d, int(_relevant(d))) for d in pool.docs]
        drawn, _ = rule.sample(pool, truth, 1)
        session = JudgingSession(collection.store, "alice", clock=TickClock(),
                                 chooser=chooser)
        app = JudgeApp(session, JudgeConfig(topic_card=False))
        shown, notes = [], []
        async with app.run_test(size=SIZE) as pilot:
            while session.current is not None and session.current.qid == "q0":
                current = session.current
                shown.append(current.docid)
                said = screen_text(app)
                notes.append(re.findall(r"target sample: \d+ judged", said))
                assert not re.search(r"target sample[^\n]*(relevant|/)", said)  # no grades
                await pilot.press("1" if _relevant(current.docid) else "0")
                await until(lambda c=current: session.current != c, "the next passage")
            closed = screen_text(app)
    assert shown[:len(drawn)] == drawn                       # the sample first, as drawn
    assert drawn == target_order(pool)[:len(drawn)]
    rest = [d for d in pool.docs if d not in drawn]
    assert shown[len(drawn):] == rest[:len(shown) - len(drawn)]  # then the stored order
    stop = rule.stop(pool, truth, 1)                         # the replay, the same grades
    assert len(shown) == stop.judged < len(pool.docs)
    assert f"query q0 closed: stop: target says it may stop ({stop.judged}/14 judged)" in closed
    assert notes[:len(drawn)] == [[f"target sample: {i} judged"] for i in range(len(drawn))]
    assert all(n == [] for n in notes[len(drawn):])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=MIN_JUDGED + 1, max_size=24),
       st.sampled_from([0.5, 0.6]))
def test_the_live_target_rule_closes_where_the_replay_stops(grades, recall):
    """The session's sequence (the sample as ``due`` serves it, then the stored order): the
    check closes the query at the judgment where the replay of the same grades stops."""
    from poolkit.pool.stopping import TargetRule

    pool = pool_of(len(grades))
    truth = {d: g for d, g in zip(pool.docs, grades)}
    rule = TargetRule(recall)
    chooser = NextPassage(None, {"q": pool}, order_strategy("docid"),  # type: ignore[arg-type]
                          stop=rule)
    live: list[Judged] = []
    while len(live) < len(pool.docs) and not chooser.closed("q", live):
        due = rule.due(pool, live, 1)
        done = {j.docid for j in live}
        doc = due[0] if due else next(d for d in pool.docs if d not in done)
        live.append(Judged(doc, truth[doc]))
    replay = rule.stop(pool, [Judged(d, truth[d]) for d in pool.docs], 1)
    assert len(live) == replay.judged


def _in_line(rule, pool, judged, level):
    """The check on the worker thread (the fitting process is tested on its own below)."""
    return rule.fires(pool, judged, level)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=MIN_JUDGED + 1, max_size=20))
def test_the_background_check_closes_where_the_replay_stops(grades):
    """With the check off the keystroke path, the answer for each judgment (once it has
    come) closes the query at the judgment where the replay stops."""
    pool = pool_of(len(grades))
    seq = [Judged(d, g) for d, g in zip(pool.docs, grades)]
    rule = QuantRule()
    chooser = NextPassage(None, {"q": pool}, order_strategy("docid"),  # type: ignore[arg-type]
                          stop=rule)
    chooser.check_in_background()
    assert chooser.background is not None
    chooser.background.check = _in_line
    try:
        closed_at = len(seq)
        for k in range(len(seq)):
            chooser.closed("q", seq[:k])
            chooser.background.worker.wait()
            if chooser.closed("q", seq[:k]):
                closed_at = k
                break
    finally:
        chooser.close()
    assert closed_at == rule.stop(pool, seq, 1).judged


def test_the_fitting_process_answers_as_the_thread_would():
    """``quant-sample``'s check in the fitting process gives the rule's own answer."""
    import multiprocessing

    from poolkit.pool.cal_live import Background
    from poolkit.pool.stop_live import BackgroundStop

    docs = tuple(f"d{i:02d}" for i in range(12))
    pool = QueryPool("q", docs, {d: (Hit("r", i + 1),) for i, d in enumerate(docs)},
                     query="armyworm maize", texts={d: ("armyworm maize larvae" if i < 4
                                                        else "grain weevil") for i, d
                                                    in enumerate(docs)})
    judged = [Judged(d, 2 if i < 4 else 0) for i, d in enumerate(docs[:9])]
    worker = Background()
    stop = BackgroundStop(SampledQuantRule(0.5), 1, worker)
    try:
        stop.ask(pool, judged)
        worker.wait()
        assert worker.fallback is None and worker.error is None
        expected = SampledQuantRule(0.5).fires(pool, judged, 1)
        assert (stop.fired_at("q", judged) == len(judged)) == expected
    finally:
        worker.close()
    assert not multiprocessing.active_children()


@sync
async def test_a_held_check_does_not_hold_the_screen(store_location, tmp_path):
    """``quant``'s check held on an Event: the screen goes on judging q0 meanwhile; once it
    answers that the rule fired at the 5th judgment, the next grade closes q0, naming the
    5th, and the session moves on. No fitting process is left once the app has exited."""
    import multiprocessing
    import threading

    config = configured(tmp_path, store_location, "{order: docid, stop: quant}")
    gate, asked = threading.Event(), []

    def held(rule, pool, judged, level):
        asked.append(len(judged))
        gate.wait()
        return True

    with Collection.open(config, write=True) as collection:
        chooser = collection.next_passage()
        chooser.check_in_background()
        assert chooser.background is not None
        chooser.background.check = held
        session = JudgingSession(collection.store, "alice", clock=TickClock(),
                                 chooser=chooser)
        app = JudgeApp(session, JudgeConfig(topic_card=False))
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(MIN_JUDGED + 2):  # 7 grades: the 5th's check is held
                current = session.current
                assert current is not None and current.qid == "q0"
                await pilot.press("3")
                await until(lambda c=current: session.current != c, "the next passage")
            await until(lambda: asked == [MIN_JUDGED], "the 5th judgment's check")
            assert not gate.is_set()  # the screen went on while the check was held
            assert session.current is not None and session.current.qid == "q0"
            gate.set()
            chooser.background.worker.wait()
            current = session.current
            await pilot.press("0")
            await until(lambda: session.current != current, "the next passage")
            said = screen_text(app)
            assert "query q0 closed: stop: quant says it may stop (5/14 judged)" in said
            assert session.current is not None and session.current.qid == "q1"
    assert not multiprocessing.active_children()


def test_a_target_sample_passage_nobody_can_judge_keeps_the_query_open(store_location,
                                                                       tmp_path):
    """A sample passage marked can't-judge is never graded: the sample never completes, so
    the rule never fires and the query is judged to its end (its promise kept, at recall 1);
    the sample's next passage comes after it, then the order."""
    from poolkit.pool.stopping import TargetRule

    config = configured(tmp_path, store_location, "{order: docid, stop: target, "
                                                  "stop_recall: 0.5}")
    with Collection.open(config, write=True) as collection:
        chooser = collection.next_passage()
        pool = chooser.pools["q0"]
        drawn, _ = TargetRule(0.5).sample(pool, [Judged(d, int(_relevant(d)))
                                                for d in pool.docs], 1)
        session = JudgingSession(collection.store, "alice", clock=TickClock(),
                                 chooser=chooser)
        assert session.current is not None and session.current.docid == drawn[0]
        session.cant_judge("broken text")
        shown = []
        while session.current is not None and session.current.qid == "q0":
            shown.append(session.current.docid)
            session.grade(int(_relevant(session.current.docid)))
        assert shown[0] == drawn[1]
        assert sorted(shown) == sorted(set(pool.docs) - {drawn[0]})  # every other passage
        assert "q0" not in session.closed
