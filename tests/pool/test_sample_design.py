"""The stratified sample design: strata by best rank, SRS within each, recorded probabilities."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.pool.sample import SampleDesign, Stratum, pool_ranks

DESIGN = SampleDesign.from_lists(100, [[1, 10, 1.0], [11, 30, 0.5], [31, 100, 0.1]], seed=13)


def test_strata_follow_the_best_rank_any_run_gave() -> None:
    ranks = pool_ranks({"a": ["x", "y", "z"], "b": ["z"] + [f"f{i}" for i in range(40)]}, 100)
    assert ranks["z"] == [3, 1]
    # w is ranked 12 by one run and 4 by another: the best rank (4) places it.
    pairs = {p.docid: p for p in DESIGN.draw("q1", {**ranks, "w": [12, 4]})}
    assert pairs["z"].stratum == "1-10" and pairs["w"].stratum == "1-10"
    assert all(p.qid == "q1" for p in pairs.values())
    assert pairs["f15"].stratum == "11-30"   # rank 17 in b
    assert pairs["f35"].stratum == "31-100"  # rank 37 in b
    # 1-10 is judged in full: probability 1 and every pair drawn.
    assert all(p.sampled and p.inclusion == 1.0 for p in pairs.values()
               if p.stratum == "1-10")


def test_each_stratum_draws_round_rate_times_size_and_records_n_over_n() -> None:
    ranks = {f"d{i}": [i] for i in range(1, 101)}
    pairs = DESIGN.draw("q", ranks)
    by = {s: [p for p in pairs if p.stratum == s] for s in ("1-10", "11-30", "31-100")}
    assert [len(v) for v in by.values()] == [10, 20, 70]
    assert [sum(p.sampled for p in v) for v in by.values()] == [10, 10, 7]
    assert {p.inclusion for p in by["11-30"]} == {0.5}
    assert all(p.inclusion == pytest.approx(0.1) for p in by["31-100"])


def test_a_stratum_with_any_pooled_doc_judges_at_least_one() -> None:
    pairs = DESIGN.draw("q", {"only": [50]})
    assert pairs[0].sampled and pairs[0].inclusion == 1.0


def test_the_draw_is_seeded_and_independent_of_arrival_order() -> None:
    ranks = {f"d{i}": [i] for i in range(1, 101)}
    backwards = dict(reversed(list(ranks.items())))
    drawn = {p.docid for p in DESIGN.draw("q", ranks) if p.sampled}
    assert drawn == {p.docid for p in DESIGN.draw("q", backwards) if p.sampled}
    other = SampleDesign(100, DESIGN.strata, seed=14)
    assert drawn != {p.docid for p in other.draw("q", ranks) if p.sampled}
    assert drawn != {p.docid for p in DESIGN.draw("q2", ranks) if p.sampled}


@pytest.mark.parametrize("strata, message", [
    ([[1, 10, 1.0], [12, 100, 0.1]], "should start at 11"),
    ([[1, 10, 1.0], [11, 50, 0.1]], "end at rank 50, not at the depth 100"),
    ([[1, 100, 0.0]], "rate 0.0"),
    ([[1, 100, 1.5]], "rate 1.5"),
    ([[1, 100]], "a stratum is \\[first, last, rate\\]"),
    ([["1", 100, 0.5]], "ranks must be integers"),
    ([], "at least one"),
])
def test_bad_strata_are_one_clear_error(strata, message) -> None:
    with pytest.raises(PoolkitError, match=message):
        SampleDesign.from_lists(100, strata)


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.integers(1, 100), min_size=1, max_size=40),
       rate=st.floats(0.01, 1.0), seed=st.integers(0, 99))
def test_every_pooled_doc_is_recorded_once_with_its_design_probability(sizes, rate,
                                                                        seed) -> None:
    design = SampleDesign(100, (Stratum(1, 100, rate),), seed)
    ranks = {f"d{i}": [r] for i, r in enumerate(sizes)}
    pairs = design.draw("q", ranks)
    assert sorted(p.docid for p in pairs) == sorted(ranks)
    drawn = sum(p.sampled for p in pairs)
    assert drawn >= 1
    assert all(p.inclusion == pytest.approx(drawn / len(pairs)) for p in pairs)


def test_unjudged_pooled_pairs_become_minus_one_and_labels_stay() -> None:
    from poolkit.pool.sample import with_unjudged

    grades = {"q1": {"b": 2, "a": 0}}
    out = with_unjudged(grades, [("q1", "a"), ("q1", "c"), ("q2", "x")])
    assert out == {"q1": {"a": 0, "b": 2, "c": -1}, "q2": {"x": -1}}
    assert list(out["q1"]) == ["a", "b", "c"]
    assert grades == {"q1": {"b": 2, "a": 0}}
