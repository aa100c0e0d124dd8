"""The human query sample's designs: a draw of n, inclusion probabilities that add up to n
(each query's the chance the design gave it), the same draw for the same seed."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.pool.query_sample import (
    FLOOR,
    MachineScores,
    active_inclusion,
    draw_active,
    draw_stratified,
    draw_uniform,
    strata_sizes,
)

populations = st.integers(2, 60).flatmap(
    lambda size: st.tuples(st.just([f"q{i}" for i in range(size)]), st.integers(2, size),
                           st.integers(0, 2**31), st.lists(st.floats(0, 1), min_size=size,
                                                           max_size=size)))


@given(populations)
def test_a_draw_has_n_queries_whose_probabilities_add_up_to_n(case):
    queries, n, seed, values = case
    scores = dict(zip(queries, values))
    for drawn in (draw_uniform(queries, n, seed), draw_stratified(scores, n, seed)):
        assert len(drawn) == n == len({q.qid for q in drawn})
        assert all(0 < q.inclusion <= 1 for q in drawn)
        # per stratum the probability is n_h / N_h: the strata's sizes N_h it implies are whole
        # and add up to the population (so the probabilities add up to n over it)
        strata: dict[str, list[float]] = {}
        for q in drawn:
            strata.setdefault(q.stratum, []).append(q.inclusion)
        sizes = [len(v) / v[0] for v in strata.values()]
        assert all(abs(s - round(s)) < 1e-9 for s in sizes)
        assert sum(sizes) == pytest.approx(len(queries))
        assert [q.qid for q in drawn] == [q for q in queries if q in {d.qid for d in drawn}]
    assert draw_stratified(scores, n, seed) == draw_stratified(scores, n, seed)
    assert draw_uniform(queries, n, seed) == draw_uniform(queries, n, seed)


@given(st.lists(st.integers(1, 30), min_size=1, max_size=10), st.data())
def test_strata_sizes_are_proportional_at_least_one_and_sum_to_n(sizes, data):
    n = data.draw(st.integers(len(sizes), sum(sizes)))
    takes = strata_sizes(sizes, n)
    assert sum(takes) == n and all(1 <= t <= s for t, s in zip(takes, sizes))


def test_the_stratified_draw_spreads_over_low_and_high_scores():
    scores = {f"q{i}": i / 10 for i in range(10)}
    drawn = draw_stratified(scores, 4, seed=7)
    assert len({q.stratum for q in drawn}) == 2
    assert sum(q.qid in {"q0", "q1", "q2", "q3", "q4"} for q in drawn) == 2


@pytest.mark.parametrize("n, message", [(1, "at least 2"), (11, "only 10 queries")])
def test_an_impossible_size_is_one_line(n, message):
    with pytest.raises(PoolkitError, match=message):
        draw_uniform([f"q{i}" for i in range(10)], n, 7)


# --- the active design (issue 41) --------------------------------------------------------

def _scores(rng: random.Random, queries: int) -> MachineScores:
    return MachineScores({f"q{i}": [rng.random() * rng.random() for _ in range(4)]
                          for i in range(queries)})


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), queries=st.integers(2, 40), data=st.data())
def test_active_probabilities_sum_to_n_with_a_floor_and_exactly_n_are_drawn(
        seed: int, queries: int, data: st.DataObject) -> None:
    n = data.draw(st.integers(2, queries))
    view = _scores(random.Random(seed), queries)
    pi = active_inclusion(view, n)
    assert sum(pi.values()) == pytest.approx(n)
    assert all(0 < p <= 1 for p in pi.values())
    spread = view.spread()
    mean = sum(spread.values()) / len(spread)
    if mean > 0:  # the floor: no query below FLOOR x the mean spread's share
        small = min(pi.values())
        assert small >= min(1.0, n * FLOOR * mean / sum(max(s, FLOOR * mean)
                                                         for s in spread.values())) - 1e-12
    drawn = draw_active(view, n, seed)
    assert len(drawn) == n and len({q.qid for q in drawn}) == n
    assert all(q.inclusion == pi[q.qid] and q.stratum == "active" for q in drawn)
    assert draw_active(view, n, seed) == drawn  # the seed decides


def test_active_draws_each_query_with_its_probability() -> None:
    """4,000 draws of 3 of 8 queries: each query's share of draws is its pi within 0.03
    (binomial standard error at most 0.008)."""
    view = MachineScores({"a": [0, 1], "b": [0, 0.5], "c": [0, 0.1], "d": [0.2, 0.2],
                          "e": [0, 0.3], "f": [0, 0.9], "g": [0.4, 0.5], "h": [0, 0.05]})
    pi = active_inclusion(view, 3)
    counts = dict.fromkeys(pi, 0)
    for seed in range(4000):
        for q in draw_active(view, 3, seed):
            counts[q.qid] += 1
    for q, p in pi.items():
        assert abs(counts[q] / 4000 - p) < 0.03
    assert pi["a"] > pi["b"] > pi["c"] and pi["d"] > 0  # spread 0: the floor


def test_the_active_sampler_takes_machine_scores_only() -> None:
    with pytest.raises(TypeError, match="MachineScores"):
        active_inclusion({"q1": [0.1, 0.2], "q2": [0.3, 0.1]}, 2)  # type: ignore[arg-type]
