"""The conformal stopping rule: one threshold per collection, set on queries judged whole,
and its promise (a share of the queries at the target with a stated probability over the
draw) held on synthetic collections whose relevant passages are known."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.pool.learners import Judged
from poolkit.pool.provenance import pool_from_ranks
from poolkit.pool.stopping import (
    MIN_JUDGED,
    ConformalRule,
    dryness,
    judgments_to_target,
    stopping_rule,
)


def _query(qid: str, grades: list[int]):
    docs = [f"{qid}-d{i:02d}" for i in range(len(grades))]
    pool = pool_from_ranks(qid, {"r": {d: i + 1 for i, d in enumerate(docs)}}, docs=tuple(docs))
    return pool, [Judged(d, g) for d, g in zip(docs, grades)]


def test_dryness_is_the_share_of_what_was_left_at_the_last_find_found_empty():
    _, seq = _query("q", [1, 0, 0, 1, 0, 0, 0, 0])
    dry = dryness(seq, 1)
    assert dry[:2] == [0.0, 0.0]                        # nothing judged; a find
    assert dry[3] == pytest.approx(2 / 7)               # 7 left after the find, 2 empty
    assert dry[4] == 0.0                                # a find resets it
    assert dry[8] == pytest.approx(4 / 4)               # all 4 left after it were empty
    assert dryness(_query("q", [0, 0])[1], 1) == [0.0, 0.5, 1.0]  # none yet: since the start


def test_judgments_to_target():
    _, seq = _query("q", [1, 0, 1, 0, 0, 1, 0, 0, 0, 0])
    assert judgments_to_target(seq, 0.9, 1) == 6        # 3 of 3: 0.9 x 3 = 2.7 asks all
    assert judgments_to_target(seq, 0.5, 1) == 3
    assert judgments_to_target(_query("q", [0, 0, 0])[1], 0.9, 1) == 0  # nothing to find


def test_calibration_size_follows_the_confidence_and_the_share():
    assert ConformalRule(0.9, 0.9).calibration_size() == 22     # 0.9^22 = 0.098 <= 0.1
    assert 0.9 ** 21 > 0.1
    assert ConformalRule(0.9, 0.5, share=0.5).calibration_size() == 1
    whole = ConformalRule(0.9, 1.0)                              # certainty: judge it all
    queries = {f"q{i}": _query(f"q{i}", [1, 0, 0, 0, 0, 0, 0]) for i in range(3)}
    assert all(s.judged == 7 for s in whole.stop_all(queries, 1).values())
    assert "over every query judged whole" in whole.promise()


def test_edge_queries_none_relevant_all_relevant_tiny_pools():
    """A query with nothing relevant never needs a threshold; one whose every passage is
    relevant never goes dry; a pool smaller than MIN_JUDGED is judged whole."""
    rule = ConformalRule(0.9, 0.9)
    none, every, tiny = (_query("n", [0] * 12)[1], _query("a", [1] * 12)[1],
                         _query("t", [0, 1, 0])[1])
    assert rule.demand(none, 1) == -math.inf
    assert rule.demand(every, 1) == 0.0
    assert rule.stop_at(every, 1, 0.0).judged == 12              # never dry: judged whole
    assert rule.stop_at(none, 1, 0.0) == (MIN_JUDGED, 0)         # stops at its first check
    assert rule.stop_at(tiny, 1, -math.inf) == (3, 1)            # too small to check
    # fewer queries than calibration queries: every one is judged whole
    queries = {q: _query(q, g) for q, g in (("n", [0] * 12), ("a", [1] * 12), ("t", [0, 1, 0]))}
    stops = rule.stop_all(queries, 1)
    assert {q: s.judged for q, s in stops.items()} == {"n": 12, "a": 12, "t": 3}
    assert rule.details(queries, 1, draws=3)["draws"]["share_reaching_target"]["min"] == 1.0


def _collection(rnd: random.Random, size: int):
    """A synthetic collection: each query a pool of 1-30 passages, 0 to all relevant, in an
    order that puts relevant passages early with a strength of its own (so how far a query
    must go varies), the relevant set known."""
    queries = {}
    for i in range(size):
        n = rnd.randint(1, 30)
        relevant = rnd.randint(0, n)
        skill = rnd.random() * 4
        keys = [(rnd.random() + (skill * rnd.random() if k < relevant else 0.0), k)
                for k in range(n)]
        grades = [1 if k < relevant else 0 for _, k in sorted(keys, reverse=True)]
        queries[f"q{i:03d}"] = _query(f"q{i:03d}", grades)
    return queries


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32), st.integers(40, 120))
def test_the_promise_holds_over_draws(seed, size):
    """Over 300 draws of the calibration queries (seeds), the share of draws in which fewer
    than 90% of the queries reach recall 0.9 is at most 1 - confidence = 0.1, and a query
    outside the draw falls short at most 1 / (m + 1) of the time. Tolerance: three binomial
    standard errors over the draws (0.052 and 0.036)."""
    queries = _collection(random.Random(seed), size)
    rule = ConformalRule(0.9, 0.9)
    m = rule.calibration_size()
    draws, short, outside = 300, 0, []
    for seed in range(draws):
        drawn = ConformalRule(0.9, 0.9, seed=seed)
        stops = drawn.stop_all(queries, 1)
        calibration = set(drawn.calibration(list(queries)))
        reach = {q: stops[q].relevant_found >= 0.9 * sum(j.grade for j in seq)
                 for q, (_, seq) in queries.items()}
        assert all(reach[q] and stops[q].judged == len(queries[q][1]) for q in calibration)
        short += sum(reach.values()) < 0.9 * len(queries)
        outside.append(1 - sum(reach[q] for q in reach if q not in calibration)
                       / (len(queries) - m))
    assert short / draws <= 0.1 + 3 * math.sqrt(0.1 * 0.9 / draws)
    assert sum(outside) / draws <= 1 / (m + 1) + 3 * math.sqrt(0.1 * 0.9 / draws / 2)


def test_the_bound_is_near_tight_where_every_query_can_fall_short():
    """Queries whose last relevant passage comes at a different depth each: every one can
    fall short, and how often more than t do matches C(Q - t, m) / C(Q, m) (the bound the
    promise rests on) within three standard errors."""
    size, n = 60, 70
    queries = {f"q{i:02d}": _query(f"q{i:02d}", [1] + [0] * (i + 2) + [1] + [0] * (n - i - 4))
               for i in range(size)}
    rule = ConformalRule(0.9, 0.9)
    m, t, draws = rule.calibration_size(), 7, 400
    short = 0
    for seed in range(draws):
        stops = ConformalRule(0.9, 0.9, seed=seed).stop_all(queries, 1)
        short += sum(s.relevant_found < 2 for s in stops.values()) >= t
    bound = math.comb(size - t, m) / math.comb(size, m)
    assert abs(short / draws - bound) <= 3 * math.sqrt(bound * (1 - bound) / draws) + 0.01


def test_a_queries_stop_reads_only_its_own_grades_and_the_threshold():
    queries = _collection(random.Random(3), 50)
    rule = ConformalRule(0.9, 0.9)
    limit = rule.threshold(queries, 1)
    calibration = set(rule.calibration(list(queries)))
    stops = rule.stop_all(queries, 1)
    for q, (_, seq) in queries.items():
        if q not in calibration:
            assert stops[q] == rule.stop_at(seq, 1, limit)
            # it falls short exactly when its own demand exceeds the threshold
            assert (stops[q].judged < judgments_to_target(seq, 0.9, 1)) == \
                (rule.demand(seq, 1) > limit)


def test_the_promise_names_what_it_is_and_a_session_cannot_use_it():
    rule = stopping_rule("conformal", 0.9, 0.9)
    assert isinstance(rule, ConformalRule) and not rule.live
    assert "not a promise about any one query" in rule.promise()
    assert "22 queries judged whole" in rule.promise()
    pool, seq = _query("q", [1, 0, 0, 0, 0, 0])
    with pytest.raises(PoolkitError, match="simulate --stop conformal"):
        rule.fires(pool, seq, 1)
