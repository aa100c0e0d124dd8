"""The cross-encoder's calibration: ordinal thresholds fitted to people's grades by
quadratic-weighted kappa (``analysis.thresholds.fit_thresholds``)."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from poolkit.analysis.stats import cohen_kappa
from poolkit.analysis.thresholds import fit_thresholds
from poolkit.judges.cross_encoder import grade_of

grades_lists = st.lists(st.integers(0, 3), min_size=2, max_size=60)


def graded(scores, thresholds):
    return [grade_of(s, thresholds) for s in scores]


@settings(max_examples=150, deadline=None)
@given(grades_lists, st.data())
def test_scores_separated_by_grade_give_kappa_one_and_the_grades_back(grades, data):
    assume(len(set(grades)) > 1)
    offset = data.draw(st.floats(-100, 100))
    spread = data.draw(st.floats(0.01, 10))
    # every grade's scores lie in its own band, bands in grade order, any order of items
    noise = data.draw(st.lists(st.floats(0, 0.9), min_size=len(grades),
                               max_size=len(grades)))
    scores = [offset + spread * (g + n) for g, n in zip(grades, noise)]
    thresholds, kappa = fit_thresholds(scores, grades)
    assert kappa == pytest.approx(1.0)
    assert graded(scores, thresholds) == grades


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5), st.integers(0, 3)), min_size=1, max_size=80))
def test_thresholds_ascend_and_their_kappa_is_the_one_reported(items):
    scores = [s for s, _ in items]
    grades = [g for _, g in items]
    thresholds, kappa = fit_thresholds(scores, grades)
    assert len(thresholds) == 3
    assert thresholds[0] < thresholds[1] < thresholds[2]
    again = cohen_kappa(grades, graded(scores, thresholds), weights="quadratic")
    if len(set(grades)) == 1:
        assert math.isnan(kappa)
    else:
        assert kappa == pytest.approx(again, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5), st.integers(0, 3)), min_size=2, max_size=12),
       st.lists(st.floats(-6, 6), min_size=3, max_size=3))
def test_no_other_ascending_thresholds_do_better_on_small_sets(items, other):
    """Few items: every cut is a candidate, so the fit is the best of any thresholds."""
    scores = [s for s, _ in items]
    grades = [g for _, g in items]
    assume(len(set(grades)) > 1)
    _, kappa = fit_thresholds(scores, grades)
    rival = cohen_kappa(grades, graded(scores, sorted(other)), weights="quadratic")
    assert math.isnan(rival) or kappa >= rival - 1e-9


def test_one_threshold_per_grade_boundary_on_a_known_case():
    scores = [0.1, 0.2, 0.35, 0.4, 0.8, 0.9]
    grades = [0, 0, 1, 1, 3, 3]
    thresholds, kappa = fit_thresholds(scores, grades)
    assert kappa == 1.0
    assert thresholds[0] == pytest.approx(0.275) and thresholds[2] == pytest.approx(0.6)
    assert graded(scores, thresholds) == grades  # grade 2, which nobody gave, stays empty


def test_mismatched_inputs_are_refused():
    with pytest.raises(ValueError):
        fit_thresholds([0.1, 0.2], [1])
    with pytest.raises(ValueError):
        fit_thresholds([], [])
