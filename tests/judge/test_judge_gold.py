"""Gold checks in the judging session (issue 28): the gold set's pairs are mixed into each
query's walk at the set's rate, deterministically by seed and assessor, look exactly like
any other passage on screen, and their answers are ``gold`` events that no reader of labels
sees."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from judge_helpers import sync
from test_judge_app import SIZE, make_app, text_of

from poolkit.judge.gold_mix import mix_gold
from poolkit.judge.session import JudgingSession
from poolkit.store.gold_sql import GoldSet
from poolkit.store.judging import status_report


def add_gold(store, rate=0.5, seed=0, per_query=3, pooled=0):
    """Gold pairs: per query, ``per_query`` unpooled sample docs (and ``pooled`` pooled ones),
    graded 2; returns their pairs."""
    pool = store.pool()
    docs = {}
    for qid in dict.fromkeys(m.qid for m in pool):
        mine = {m.docid for m in pool if m.qid == qid}
        others = sorted(d for d in {m.docid for m in pool} if d not in mine)
        docs[qid] = others[:per_query] + sorted(mine)[:pooled]
    rows = []
    for qid, ds in docs.items():
        for d in ds:
            member = next(m for m in pool if m.docid == d)
            title, body = store.text(member.text_hash)
            rows.append((qid, d, 2, title, body))
    store.replace_gold(GoldSet("gold.qrels", "0" * 64, rate, seed), rows)
    return {(q, d) for q, d, *_ in rows}


def walk(session: JudgingSession, grade: int = 1) -> list[tuple[str, str]]:
    seen = []
    while session.current is not None:
        seen.append(session.current.pair)
        session.grade(grade)
    return seen


def test_gold_is_mixed_in_each_gold_pair_once_and_answers_are_gold_events(sample_store, clock):
    before = status_report(sample_store).to_dict()
    gold = add_gold(sample_store, rate=0.5)
    seen = walk(JudgingSession(sample_store, "alice", clock=clock))
    pooled = {(m.qid, m.docid) for m in sample_store.pool()}
    assert set(seen) == pooled | (gold & set(seen)) and len(seen) == len(set(seen))
    assert gold & set(seen), "at rate 0.5 some gold passages are shown"
    kinds = {(e.qid, e.docid): e.kind for e in sample_store.events()}
    assert all(kinds[p] == "gold" for p in gold & set(seen))
    assert all(kinds[p] == "grade" for p in pooled)
    # never labels: standing grades, status's judged counts and labelled pairs leave them out
    assert set(sample_store.current_grades()) == pooled
    assert set(sample_store.labelled_pairs_in_order()) == pooled
    after = status_report(sample_store).to_dict()
    assert after["judged"] == len(pooled) and before["judged"] == 0
    assert after["assessors"]["alice"]["judged"] == len(pooled)


def test_the_places_are_the_seeds_and_the_assessors(sample_store, clock):
    add_gold(sample_store, rate=0.3, seed=4)

    def order(name):
        s = JudgingSession(sample_store, name, clock=clock)
        return [it.pair for items in s.items.values() for it in items]

    assert order("alice") == order("alice")
    assert order("alice") != order("bob")


def test_a_pooled_gold_pair_is_served_as_gold_only(sample_store, clock):
    gold = add_gold(sample_store, rate=1.0, per_query=0, pooled=2)
    seen = walk(JudgingSession(sample_store, "alice", clock=clock))
    assert gold <= set(seen) and len(seen) == len(set(seen))
    assert not gold & set(sample_store.current_grades())


def test_undo_takes_back_a_gold_answer_too(sample_store, clock):
    add_gold(sample_store, rate=1.0)
    s = JudgingSession(sample_store, "alice", clock=clock)
    first = s.current
    assert first.pair in s.gold  # rate 1: a gold passage before the first of the pool
    s.grade(3)
    s.undo()
    assert s.current == first and not list(sample_store.live_marks(["gold"]))


@given(st.lists(st.integers(), max_size=30), st.lists(st.integers(), max_size=8),
       st.floats(0.01, 1.0), st.integers(0, 9), st.text(max_size=5))
@settings(max_examples=60, deadline=None)
def test_mixing_keeps_the_walk_in_order_and_adds_each_gold_item_at_most_once(
        walk_, gold, rate, seed, name):
    gold = [("g", i) for i in dict.fromkeys(gold)]
    mixed = mix_gold(walk_, gold, rate, seed, name, "q")
    assert [m for m in mixed if m not in gold] == walk_
    assert len([m for m in mixed if m in gold]) == len(set(mixed) & set(gold)) <= len(gold)
    assert mixed == mix_gold(walk_, gold, rate, seed, name, "q")  # deterministic
    longer = mix_gold([*walk_, "tail"], gold, rate, seed, name, "q")  # a grown pool keeps
    assert longer[:len(mixed)] == mixed                                # the places drawn


HEAD = re.compile(r"^Passage \d+ of (\d+) · doc \S+$")


def shape(text: str) -> str:
    """What a passage's header or progress line says with its numbers and doc id left out."""
    return re.sub(r"doc \S+", "doc D", re.sub(r"\d+", "N", text))


@sync
async def test_a_gold_passage_on_screen_looks_exactly_like_any_other(sample_store, clock):
    add_gold(sample_store, rate=0.5)
    app = make_app(sample_store, clock)
    heads: dict[bool, set[str]] = {True: set(), False: set()}
    footers: dict[bool, set[str]] = {True: set(), False: set()}
    async with app.run_test(size=SIZE) as pilot:
        query = app.session.current.qid
        while app.session.current is not None and app.session.current.qid == query:
            item = app.session.current
            gold = item.pair in app.session.gold
            head = text_of(app, "#head")
            assert HEAD.match(head), head
            total = int(HEAD.match(head).group(1))
            assert total == len(app.session.items[query])  # gold counts in "of n"
            heads[gold].add(shape(head))
            footers[gold].add("\n".join(shape(text_of(app, f"#{w}"))
                                        for w in ("title", "grades", "progress", "keys")))
            await pilot.press("1")
    assert heads[True] and heads[False], "the first query shows both kinds"
    # whatever a gold passage shows, some passage of the pool showed as well
    assert heads[True] == heads[False]
    assert footers[True] <= footers[False]


def test_a_query_already_finished_gets_no_gold_passage(sample_store, clock):
    s = JudgingSession(sample_store, "alice", clock=clock)
    first = s.current.qid
    while s.current is not None and s.current.qid == first:
        s.grade(2)
    add_gold(sample_store, rate=1.0)
    s = JudgingSession(sample_store, "alice", clock=clock)
    assert not [it for it in s.items[first] if it.pair in s.gold]
    assert all(any(it.pair in s.gold for it in items)
               for qid, items in s.items.items() if qid != first)
