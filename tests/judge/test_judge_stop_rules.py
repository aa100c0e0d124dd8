"""``pool.stop: NAME`` on the judging screen (issue 26): the status line states the rule and
its promise, and a query the rule says may stop closes with the rule named and the session
moves on. The rule is ``stopping.STOP_RULES``' own, the code ``simulate --stop`` replays:
the live closure comes where the replay stops, on the same grades."""

from __future__ import annotations

import json

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


@pytest.mark.parametrize("rule", ["model", "knee", "quant", "quant-sample"])
def test_every_live_rule_states_its_promise(rule, tmp_path):
    config = configured(tmp_path, tmp_path / "s.sqlite", f"{{stop: {rule}}}")
    with Collection.open(config) as collection:
        chooser = collection.next_passage()
        assert chooser.stop_rule is not None and chooser.stop_rule.name == rule
        assert chooser.promise == f"stop: {rule} — {chooser.stop_rule.promise()}"
