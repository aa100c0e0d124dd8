"""Intervals: Wilson for Hit@K proportions, a reproducible percentile bootstrap for the rest."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.score.intervals import (
    RESAMPLES,
    SEED,
    UNIT_FAMILIES,
    _z,
    bootstrap,
    bootstrap_means,
    intervals,
    value_range,
    wilson,
)
from poolkit.score.measures import MEASURES


def test_normal_quantile() -> None:
    assert _z(0.95) == pytest.approx(1.959963984540054, abs=1e-12)
    assert _z(0.99) == pytest.approx(2.5758293035489, abs=1e-12)


def test_wilson_seed002_seven_of_nine() -> None:
    ci = wilson(7, 9)
    assert (f"{ci.low:.3f}", f"{ci.high:.3f}") == ("0.453", "0.937")
    assert ci.method == "wilson" and ci.confidence == 0.95
    assert ci.to_dict() == {"low": ci.low, "high": ci.high, "method": "wilson", "level": 0.95}


def test_wilson_hand_computed() -> None:
    # 0 of 10: low is 0, high = z^2/(n+z^2)
    z2 = 1.959963984540054 ** 2
    ci = wilson(0, 10)
    assert ci.low == 0.0
    assert ci.high == pytest.approx(z2 / (10 + z2))
    full = wilson(10, 10)
    assert full.high == 1.0 and full.low == pytest.approx(1 - z2 / (10 + z2))


@pytest.mark.parametrize("k, n", [(0, 0), (3, 2), (-1, 4)])
def test_wilson_rejects_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson(k, n)


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_brackets_the_proportion(kn: tuple[int, int]) -> None:
    k, n = kn
    ci = wilson(k, n)
    assert 0.0 <= ci.low <= k / n + 1e-12 and k / n - 1e-12 <= ci.high <= 1.0


def test_bootstrap_is_reproducible_and_stated() -> None:
    values = [1.0, 0.5, 0.2, 0.0, 1.0, 0.75, 0.3]
    a, b = bootstrap(values), bootstrap(values)
    assert a == b
    assert (a.method, a.resamples, a.seed, a.confidence) == ("bootstrap", RESAMPLES, SEED, 0.95)
    assert a.to_dict()["resamples"] == 1000
    assert bootstrap(values, seed=SEED + 1) != a


def test_bootstrap_of_a_constant_is_that_constant() -> None:
    ci = bootstrap([0.4] * 12)
    assert ci.low == pytest.approx(0.4) and ci.high == pytest.approx(0.4)


def test_bootstrap_means_match_a_naive_resampler() -> None:
    """The count-matrix product equals averaging the drawn indices one resample at a time."""
    rng_values = np.random.default_rng(7).random((23, 3))
    got = bootstrap_means(rng_values, resamples=250, seed=11)
    rng = np.random.default_rng(11)
    rows = []
    for start in range(0, 250, 100):
        idx = rng.integers(0, 23, size=(min(100, 250 - start), 23))
        rows.append(rng_values[idx].mean(axis=1))
    assert np.allclose(got, np.vstack(rows))


@given(st.lists(st.floats(0, 1), min_size=1, max_size=40))
def test_bootstrap_stays_within_the_data(values: list[float]) -> None:
    ci = bootstrap(values, resamples=200)
    assert min(values) - 1e-9 <= ci.low <= ci.high <= max(values) + 1e-9


def test_intervals_pick_the_method_by_family_and_share_resamples() -> None:
    qids = [f"q{i}" for i in range(9)]
    hit = {q: (1.0 if i < 7 else 0.0) for i, q in enumerate(qids)}
    rec = {q: i / 8 for i, q in enumerate(qids)}
    out = intervals({"Hit@5": hit, "R@5": rec, "R@5 again": dict(rec)},
                    {"Hit@5": "Hit", "R@5": "R", "R@5 again": "R"}, qids)
    assert list(out) == ["Hit@5", "R@5", "R@5 again"]
    assert out["Hit@5"] is not None and out["Hit@5"].method == "wilson"
    assert (round(out["Hit@5"].low, 3), round(out["Hit@5"].high, 3)) == (0.453, 0.937)
    assert out["R@5"] == out["R@5 again"]  # one draw of queries moves every measure
    assert out["R@5"] is not None and out["R@5"].method == "bootstrap"
    assert out["R@5"] == bootstrap([rec[q] for q in qids])


def test_intervals_over_no_queries_are_none() -> None:
    assert intervals({"P@5": {}}, {"P@5": "P"}, []) == {"P@5": None}


def test_wide_band_for_few_queries_narrow_for_many() -> None:
    few = bootstrap([0.0, 1.0] * 5)
    many = bootstrap([0.0, 1.0] * 500)
    assert (few.high - few.low) > 3 * (many.high - many.low)
    assert math.isclose((many.low + many.high) / 2, 0.5, abs_tol=0.02)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 250), k=st.integers(0, 5), seed=st.integers(0, 3),
       jobs=st.integers(1, 3), data=st.data())
def test_bootstrapping_columns_together_is_bootstrapping_each_alone(n, k, seed, jobs,
                                                                    data) -> None:
    """The paired tests draw the resamples once for all pairs: value for value the same
    means as each pair's bootstrap alone (resamples not a multiple of the chunk too), on
    any number of threads."""
    from poolkit.score.intervals import bootstrap_means, bootstrap_means_each

    values = st.floats(-1, 1, allow_nan=False)
    columns = [np.array(data.draw(st.lists(values, min_size=n, max_size=n)))
               for _ in range(k)]
    together = bootstrap_means_each(columns, resamples=250, seed=seed, jobs=jobs)
    alone = [bootstrap_means(c, resamples=250, seed=seed)[:, 0] for c in columns]
    assert len(together) == k
    for t, a in zip(together, alone):
        assert t.tobytes() == a.tobytes()


def test_the_ranges_said_are_of_registered_families():
    """estimate says when an interval reaches beyond these (``beyond_range``); a family with
    no range said (utility can be negative, dcg above 1) is never flagged."""
    assert UNIT_FAMILIES <= set(MEASURES)
    assert value_range("nDCG") == (0.0, 1.0) and value_range("AP", difference=True) == (-1, 1)
    assert value_range("utility") is None and value_range("dcg") is None
