"""Kappa, alpha and tau match the reference implementations (test-only dependencies)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.analysis.stats import (
    bootstrap_kappa,
    cohen_kappa,
    confusion_matrix,
    kendall_tau,
    krippendorff_alpha,
    ranks,
)

sklearn_metrics = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")
scipy_stats = pytest.importorskip("scipy.stats")

SK_WEIGHTS = {"unweighted": None, "linear": "linear", "quadratic": "quadratic"}


# -- Cohen's kappa -----------------------------------------------------------------------------

def test_kappa_hand_computed():
    # 10 items; p_o = 0.7; margins a: 0->5, 1->5; b: 0->4, 1->6; p_e = .2 + .3 = .5
    a = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    b = [0, 0, 0, 1, 1, 0, 1, 1, 1, 1]
    # observed agreement: 3 + 4 = 7
    assert cohen_kappa(a, b, labels=[0, 1]) == pytest.approx((0.7 - 0.5) / 0.5)


def test_unused_grade_still_counts_in_weighted_kappa():
    """A grade nobody used changes nothing unweighted but is on the fixed 0-3 scale."""
    a = [0, 1, 1, 2, 0, 2]
    b = [0, 1, 2, 2, 1, 2]
    for w, skw in SK_WEIGHTS.items():
        ours = cohen_kappa(a, b, weights=w)
        ref = sklearn_metrics.cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights=skw)
        assert ours == pytest.approx(ref, abs=1e-12)
    # the confusion matrix is 4x4 though grade 3 never occurs
    assert confusion_matrix(a, b).shape == (4, 4)


def test_kappa_undefined_when_both_constant():
    assert math.isnan(cohen_kappa([2, 2, 2], [2, 2, 2]))


def test_kappa_rejects_off_scale_labels():
    with pytest.raises(ValueError, match="label 4 is not on the scale 0, 1, 2, 3"):
        cohen_kappa([0, 4], [0, 1])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=60),
       st.sampled_from(list(SK_WEIGHTS)))
def test_kappa_matches_sklearn(pairs, weights):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    ours = cohen_kappa(a, b, weights=weights)
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = sklearn_metrics.cohen_kappa_score(a, b, labels=[0, 1, 2, 3],
                                                    weights=SK_WEIGHTS[weights])
    if math.isnan(ref):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(ref, abs=1e-9)


def test_bootstrap_kappa_is_reproducible_and_brackets_the_estimate():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 200)
    b = np.where(rng.random(200) < 0.7, a, rng.integers(0, 4, 200))
    k = cohen_kappa(a, b)
    ci1 = bootstrap_kappa(a, b)
    ci2 = bootstrap_kappa(a, b)
    assert ci1 == ci2
    assert ci1 is not None and ci1[0] < k < ci1[1]
    assert bootstrap_kappa([], []) is None


# -- Krippendorff's alpha: the package's published examples ----------------------------------

WIKI = [
    [np.nan, np.nan, np.nan, np.nan, np.nan, 3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
    [1, np.nan, 2, 1, 3, 3, 4, 3, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
    [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4],
]
KRIPP_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
]


@pytest.mark.parametrize(("data", "level", "digits", "expected"), [
    (WIKI, "nominal", 6, 0.691358),
    (WIKI, "interval", 6, 0.810845),
    (KRIPP_2011, "ordinal", 3, 0.815),
    (KRIPP_2011, "ratio", 3, 0.797),
])
def test_alpha_published_examples(data, level, digits, expected):
    assert round(krippendorff_alpha(data, level), digits) == expected
    assert krippendorff_alpha(data, level) == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement=level), abs=1e-12)


def test_alpha_domain_with_unused_value_is_unchanged():
    assert krippendorff_alpha(KRIPP_2011, "ordinal", domain=[1, 2, 3, 4, 5, 6]) == pytest.approx(
        krippendorff_alpha(KRIPP_2011, "ordinal"))


def test_alpha_perfect_and_undefined():
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]], "ordinal") == 1.0
    assert math.isnan(krippendorff_alpha([[1, np.nan], [np.nan, 2]]))  # nothing pairable
    assert math.isnan(krippendorff_alpha([[2, 2], [2, 2]]))  # no expected disagreement


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the package's own 0/0 on no variation
@settings(max_examples=100, deadline=None)
@given(st.integers(2, 5), st.integers(2, 25), st.data())
def test_alpha_matches_package(coders, units, data):
    cells = data.draw(st.lists(st.one_of(st.none(), st.integers(0, 3)),
                               min_size=coders * units, max_size=coders * units))
    m = np.array([np.nan if c is None else c for c in cells], dtype=float).reshape(coders, units)
    pairable = (np.sum(~np.isnan(m), axis=0) >= 2).any()
    values = np.unique(m[~np.isnan(m)])
    if not pairable or values.size < 2:
        return
    for level in ("nominal", "ordinal", "interval"):
        ref = krippendorff.alpha(reliability_data=m, value_domain=[0, 1, 2, 3],
                                 level_of_measurement=level)
        ours = krippendorff_alpha(m, level, domain=[0, 1, 2, 3])
        if math.isnan(ref):
            assert math.isnan(ours)
        else:
            assert ours == pytest.approx(ref, abs=1e-9)


# -- Kendall's tau -----------------------------------------------------------------------------

def test_tau_hand_computed():
    assert kendall_tau([1, 2, 3], [1, 2, 3]) == 1.0
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    # one swapped pair of three: (2 - 1) / 3
    assert kendall_tau([1, 2, 3], [2, 1, 3]) == pytest.approx(1 / 3)
    assert math.isnan(kendall_tau([1, 1], [1, 2]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=15))
def test_tau_matches_scipy_tau_b(pairs):
    x = [p[0] for p in pairs]
    y = [p[1] for p in pairs]
    ref = scipy_stats.kendalltau(x, y).statistic
    ours = kendall_tau(x, y)
    if math.isnan(ref):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(ref, abs=1e-12)


def test_ranks_are_competition_ranks():
    assert ranks([0.5, 0.7, 0.5, 0.1]) == [2, 1, 2, 4]
