"""The stopping rules: QBCB's counts, the knee method on a plain knee, and the target rule
keeping its promise over many draws of its sample, even under an adversarial order."""

from __future__ import annotations

import pytest

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
