"""The stopping rules: QBCB's counts, the knee method on a plain knee, and the target rule
keeping its promise over many draws of its sample, even under an adversarial order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.pool.learners import Judged
from poolkit.pool.provenance import pool_from_ranks
from poolkit.pool.stopping import KneeRule, TargetRule, _binomial_tail, parse_stops, qbcb


def test_qbcb_is_the_smallest_count_within_the_error():
    assert qbcb(0.9, 0.95, 28) is None            # 0.9 ** 28 = 0.052 > 0.05
    assert qbcb(0.9, 0.95, 29) == 29              # 0.9 ** 29 = 0.047
    j = qbcb(0.5, 0.95, 10)
    assert j is not None and _binomial_tail(10, 0.5, j) <= 0.05 < _binomial_tail(10, 0.5, j - 1)
    assert TargetRule(0.9, 0.95).sample_size() == 29


def test_knee_fires_after_a_plain_knee_and_not_before():
    pool = pool_from_ranks("q", {"a": {f"d{i}": i + 1 for i in range(60)}})
    seq = [Judged(f"d{i}", 1 if i < 20 else 0) for i in range(60)]
    rule = KneeRule(0.9)
    assert not rule.fires(pool, seq[:20], 1)      # all relevant so far: no knee
    stop = rule.stop(pool, seq, 1)
    assert 20 < stop.judged < 60 and stop.relevant_found == 20


def test_target_rule_keeps_its_promise_under_an_adversarial_order():
    """100 passages, 40 relevant, the order putting the last 8 relevant at the very end:
    stopping with recall < 0.9 must happen in at most 5% of the sample's draws (qids)."""
    rule, short, trials = TargetRule(0.9, 0.95), 0, 200
    for t in range(trials):
        pool = pool_from_ranks(f"q{t}", {"a": {f"d{i}": i + 1 for i in range(100)}})
        grades = [1 if i < 32 or i >= 92 else 0 for i in range(100)]
        seq = [Judged(f"d{i}", g) for i, g in enumerate(grades)]
        short += rule.stop(pool, seq, 1).relevant_found < 0.9 * 40
    assert short / trials <= 0.05


def test_unknown_rule_is_named():
    assert parse_stops("model, knee") == ["model", "knee"]
    with pytest.raises(PoolkitError, match="unknown stopping rule 'elbow'"):
        parse_stops("model,elbow")


def _text_pool():
    from dataclasses import replace

    docs = [f"d{i:02d}" for i in range(30)]
    pool = pool_from_ranks("q", {"r": {d: i + 1 for i, d in enumerate(docs)}}, docs=tuple(docs))
    texts = {d: ("armyworm maize whorl larvae" if i < 10 else "weevil grain store bag")
             for i, d in enumerate(docs)}
    return replace(pool, query="armyworm in maize", texts=texts), docs


def test_sampled_quant_waits_for_its_sample_and_stops_after_the_relevant_run():
    from poolkit.pool.stopping import SampledQuantRule, target_sample

    pool, docs = _text_pool()
    seq = [Judged(d, 2 if i < 10 else 0) for i, d in enumerate(docs)]
    rule = SampledQuantRule()
    stop = rule.stop(pool, seq, 1)
    assert stop.relevant_found == 10 and stop.judged < len(docs)  # the zeros end it early
    sample = set(target_sample(pool, rule.sample_size))
    veto = {d for d in sample if docs.index(d) < 10}
    assert all(docs.index(d) < stop.judged for d in veto)  # every sampled relevant met
    assert rule.promise().startswith("no guarantee, heuristic")
    assert not rule.fires(pool, seq[:5], 1) or sample <= {j.docid for j in seq[:5]}


def _reference_target_stop(rule, pool, seq, level):
    """The target rule's replay as it was written before ``fires`` (the sample judged
    aside, then the order walked until it has met ``need`` of the sample's relevant)."""
    from poolkit.pool.learners import is_relevant
    from poolkit.pool.stopping import qbcb, target_order

    grade = {j.docid: j.grade for j in seq}
    sample, found = [], 0
    for d in target_order(pool):
        sample.append(d)
        found += is_relevant(grade.get(d, 0), level)
        if found == rule.sample_size():
            break
    positives = {d for d in sample if is_relevant(grade.get(d, 0), level)}
    everything = (len(seq), sum(is_relevant(j.grade, level) for j in seq))
    if len(positives) < rule.sample_size():
        return everything
    need, met = qbcb(rule.target, rule.confidence, rule.sample_size()), 0
    for k, j in enumerate(seq, 1):
        met += j.docid in positives
        if met >= need:
            judged = set(sample) | {x.docid for x in seq[:k]}
            return len(judged), sum(is_relevant(grade[d], level) for d in judged)
    return everything


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=30), st.randoms(use_true_random=False),
       st.sampled_from([(0.5, 0.7), (0.6, 0.8), (0.7, 0.9)]))
def test_target_replay_walks_fires_and_stops_where_it_always_did(grades, rnd, setting):
    """``stop`` is now ``fires`` walked over the sample then the order: it stops where the
    replay's own walk (judge the sample aside, count the order's meetings) stopped."""
    docs = [f"d{i:02d}" for i in range(len(grades))]
    pool = pool_from_ranks("q", {"r": {d: i + 1 for i, d in enumerate(docs)}}, docs=tuple(docs))
    order = docs[:]
    rnd.shuffle(order)
    seq = [Judged(d, grades[int(d[1:])]) for d in order]
    rule = TargetRule(*setting)
    assert tuple(rule.stop(pool, seq, 1)) == _reference_target_stop(rule, pool, seq, 1)


def test_target_fires_only_once_its_sample_is_complete():
    from poolkit.pool.stopping import target_order

    docs = [f"d{i:02d}" for i in range(20)]
    pool = pool_from_ranks("q", {"r": {d: i + 1 for i, d in enumerate(docs)}}, docs=tuple(docs))
    rule = TargetRule(0.5, 0.7)                       # r = 2, need 2
    everything = [Judged(d, 1) for d in docs]          # all relevant, judged in stored order
    drawn = target_order(pool)
    assert rule.due(pool, [], 1) == drawn
    assert not rule.fires(pool, [Judged(drawn[0], 1)], 1)   # the sample holds 1 of 2
    first_two = [Judged(d, 1) for d in drawn[:2]]
    assert rule.due(pool, first_two, 1) == []
    met = max(docs.index(d) for d in drawn[:2]) + 1    # the order's prefix holding both
    assert rule.fires(pool, first_two + everything[:met], 1)
    gap = max(i for i in range(met) if docs[i] not in drawn[:2])  # one left unjudged
    assert not rule.fires(pool, first_two + [j for j in everything[:gap]
                                             if j.docid not in drawn[:2]], 1)
