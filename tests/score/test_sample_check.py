"""Estimates read only the labels a sample design drew, and say when the labels are not a
random sample (poolkit.score.inferred.drawn_labels, poolkit.score.sample_check)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.pool.order import Shuffle
from poolkit.pool.sample import SampleDesign, Stratum
from poolkit.pool.view import QueryPool
from poolkit.score.inferred import (
    PoolSample,
    estimate_relevant,
    inferred_ap,
    inferred_ndcg,
    stat_ap,
)
from poolkit.score.sample_check import check_sample

# Stratum A = {a, b} drawn in full; B = {c, d, e, f} drew c and d (placed 1, 2); e and f were
# never drawn.
STRATA = {"a": "A", "b": "A", "c": "B", "d": "B", "e": "B", "f": "B"}
INCLUSION = {"a": 1.0, "b": 1.0, "c": 0.5, "d": 0.5, "e": 0.5, "f": 0.5}
DRAWN = {"a": 1, "b": 2, "c": 1, "d": 2, "e": 0, "f": 0}
MARKED = PoolSample(STRATA, INCLUSION, DRAWN)
RANKING = ["e", "a", "c", "f", "b", "d"]


@pytest.mark.parametrize("estimate", [
    lambda g, s: inferred_ap(RANKING, g, 1, s),
    lambda g, s: stat_ap(RANKING, g, 1, s),
    lambda g, s: inferred_ndcg(RANKING, g, 10, None, s),
    lambda g, s: estimate_relevant(g, s).value,
])
def test_a_label_on_an_undrawn_pair_changes_no_estimate(estimate) -> None:
    drawn_only = {"a": 2, "b": 0, "c": 1, "d": 0}
    # e and f imported as relevant: before, they counted as two more judged pairs of B
    # (B "judged" in full, all relevant but d), which moved every estimate.
    imported = {**drawn_only, "e": 2, "f": 1}
    assert estimate(imported, MARKED) == estimate(drawn_only, MARKED)
    unmarked = PoolSample(STRATA, INCLUSION)
    assert estimate(imported, unmarked) != estimate(drawn_only, unmarked)


def test_the_check_counts_undrawn_labels_judged_share_and_picked_strata() -> None:
    # Everything drawn judged, two labels outside the draw.
    full = check_sample({"q": {"a": 2, "b": 0, "c": 1, "d": 0, "e": 2, "f": 1}}, {"q": MARKED})
    assert (full.drawn, full.judged, full.undrawn_labels, full.picked) == (4, 4, 2, 0)
    (line,) = full.lines()
    assert line.startswith("sample: 2 label(s) on pairs the design did not draw are left out")
    # Only d of B judged: the second of its queue without the first, a pick; 3 of 4 judged.
    picked = check_sample({"q": {"a": 2, "b": 0, "d": 0}}, {"q": MARKED})
    assert (picked.judged, picked.picked, picked.cells) == (3, 1, 2)
    assert picked.lines() == ["sample: in 1 of 2 query strata the judged drawn pairs are not "
                              "the first of the judging queue: they were picked, not drawn at "
                              "random, and the estimates may be biased"]
    # c, the first of B, is a prefix (a random subsample), but 1 of 4 judged is a small share.
    small = check_sample({"q": {"c": 1}}, {"q": MARKED})
    assert small.picked == 0 and "only 1 of 4 drawn pairs are judged (25%)" in small.lines()[0]
    prefix = check_sample({"q": {"a": 1, "c": 1}}, {"q": MARKED})
    assert prefix.picked == 0 and prefix.lines() == []
    old = check_sample({"q": {"a": 1}}, {"q": PoolSample(STRATA, INCLUSION)})
    assert old.lines()[0].startswith("sample: the design file does not mark which pairs")


@settings(max_examples=60, deadline=None)
@given(size=st.integers(2, 40), n=st.integers(1, 40), seed=st.integers(0, 10**6))
def test_a_smaller_draw_is_a_prefix_of_a_larger_one(size: int, n: int, seed: int) -> None:
    """The law the prefix check rests on, for the draw: a stratum's draw is the first n of
    one seeded random order of its pairs, so the first m of any draw are exactly the draw at
    the smaller rate, itself a simple random sample."""
    n = min(n, size)
    ranks = {f"d{i}": [1] for i in range(size)}

    def drawn(k: int) -> set[str]:
        design = SampleDesign(1, (Stratum(1, 1, k / size),), seed)
        return {p.docid for p in design.draw("q", ranks) if p.sampled}

    for m in range(1, n + 1):
        assert drawn(m) <= drawn(n) and len(drawn(m)) == m


def test_a_sampled_pool_queues_each_stratum_in_random_order() -> None:
    """The law for the judging queue: with a sampled pool's (default) shuffle order, every
    drawn pair of a stratum is equally likely at every place of the stratum's queue, whatever
    its rank, so every prefix of the queue is a random subsample. Over 2,000 seeds each of
    6 pairs (ranked 1..6 by the runs) comes first 1/6 of the time, within 4 points."""
    docs = [f"d{i}" for i in range(6)]
    first = dict.fromkeys(docs, 0)
    seeds = 2000
    for seed in range(seeds):
        keys = Shuffle(seed).keys(QueryPool("q", tuple(docs), {}))
        first[min(docs, key=lambda d: keys[d])] += 1
    assert all(abs(c / seeds - 1 / 6) < 0.04 for c in first.values()), first

