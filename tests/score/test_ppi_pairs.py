"""The pair design's estimator: exact when everything is drawn or the machine is right, its
AP numerator unbiased over every draw, its interval covering in simulation."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.score.measures import QueryFacts, parse_measure
from poolkit.score.ppi_pairs import (
    Draw,
    QueryPool,
    allocate,
    ap,
    check_measure,
    combine,
    draw,
    estimate_query,
)

MEASURES = ("nDCG@10", "nDCG@3", "nDCG", "AP")


def _truth_value(text: str, truth: dict[str, int], ranking: list[str], level: int) -> float:
    return parse_measure(text).from_facts(QueryFacts(ranking, truth), level)


def _query(rng: np.random.Generator, size: int = 40, noise: float = 0.5
           ) -> tuple[dict[str, int], dict[str, int], dict[str, list[str]]]:
    docs = [f"d{i}" for i in range(size)]
    truth = {d: int(rng.integers(0, 4)) for d in docs}
    machine = {d: (g if rng.random() > noise else int(rng.integers(0, 4)))
               for d, g in truth.items()}
    runs = {name: list(rng.permutation(docs + [f"x{i}" for i in range(5)]))[:30]
            for name in ("a", "b")}
    return truth, machine, runs


def test_allocation_spends_the_budget_with_two_per_stratum() -> None:
    assert allocate([100, 10, 1], 20) == [16, 3, 1]
    assert sum(allocate([50, 30, 20, 5], 33)) == 33
    assert allocate([3, 4], 10) == [3, 4]
    assert min(allocate([200, 3, 2], 10)) == 2
    # a rate of 4 samples a stratum 4 times as densely; a full stratum gives the rest back
    assert allocate([100, 20], 36, [1.0, 4.0]) == [20, 16]
    assert allocate([100, 5], 36, [1.0, 4.0]) == [31, 5]


@pytest.mark.parametrize("text", MEASURES)
def test_everything_drawn_gives_the_truth(text: str) -> None:
    rng = np.random.default_rng(1)
    truth, machine, runs = _query(rng)
    pool = QueryPool.of(truth, machine, runs)
    d = draw(pool, pool.size, 3, rng)
    for name, ranking in runs.items():
        est = estimate_query(parse_measure(text), pool, name, d, 2)
        assert est.value == pytest.approx(_truth_value(text, truth, ranking, 2), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), budget=st.integers(1, 40), text=st.sampled_from(MEASURES),
       level=st.integers(1, 3))
def test_a_machine_equal_to_the_truth_gives_the_truth_whatever_is_drawn(
        seed: int, budget: int, text: str, level: int) -> None:
    rng = np.random.default_rng(seed)
    truth, _, runs = _query(rng)
    pool = QueryPool.of(truth, truth, runs)
    d = draw(pool, budget, 4, rng)
    for name, ranking in runs.items():
        est = estimate_query(parse_measure(text), pool, name, d, level)
        value = _truth_value(text, truth, ranking, level)
        assert np.allclose(est.value, value, atol=1e-12)
        assert np.allclose(est.replicates[d.weights > 0], value, atol=1e-12)


def test_the_ap_numerator_is_unbiased_over_every_draw() -> None:
    """Enumerate every stratified draw of a small query: the mean of the estimated numerator
    S^ (estimate x R^) is S exactly, SRSWOR's joint inclusion corrected."""
    truth = {"a": 2, "b": 0, "c": 3, "d": 2, "e": 0, "f": 1}
    machine = {"a": 2, "b": 2, "c": 2, "d": 0, "e": 0, "f": 0}
    ranking = ["c", "b", "a", "f", "d"]
    pool = QueryPool.of(truth, machine, {"r": ranking})
    strata = [np.flatnonzero(pool.machine == g) for g in (0, 2)]
    rows = []
    for s0 in combinations(strata[0], 2):
        for s2 in combinations(strata[1], 2):
            w = np.zeros(pool.size)
            w[list(s0)] = 3 / 2
            w[list(s2)] = 3 / 2
            rows.append(w)
    d = Draw(pool.machine, ((0, 3, 2), (2, 3, 2)), np.array(rows))
    est = ap(pool, "r", 2, d)
    den = (d.weights * (pool.truth >= 2)).sum(axis=1)
    s = _truth_value("AP", truth, ranking, 2) * 3  # R = 3
    assert float(np.mean(est.value * den)) == pytest.approx(s, abs=1e-12)


@pytest.mark.parametrize("text", ["nDCG@10", "AP"])
def test_the_interval_covers_in_simulation(text: str) -> None:
    """30 queries of a noisy machine, 200 draws of 15 pairs per query: the mean's 95%
    interval covers the truth's mean at least 90% of the time, and the bias is small."""
    rng = np.random.default_rng(7)
    queries = [_query(rng, size=60, noise=0.6) for _ in range(30)]
    pools = [QueryPool.of(t, m, r) for t, m, r in queries]
    truth = np.mean([_truth_value(text, t, r["a"], 2) for t, _, r in queries])
    parts = []
    for pool in pools:
        d = draw(pool, 15, 200, rng)
        parts.append((estimate_query(parse_measure(text), pool, "a", d, 2), d))
    iv = combine(parts)
    covered = np.mean((iv.low <= truth) & (truth <= iv.high))
    assert covered >= 0.9
    assert abs(float(iv.estimate.mean()) - truth) < 0.01


def test_only_ndcg_and_ap_have_a_pair_estimator() -> None:
    with pytest.raises(PoolkitError, match="nDCG@K .* and AP only"):
        check_measure(parse_measure("P@10"))
