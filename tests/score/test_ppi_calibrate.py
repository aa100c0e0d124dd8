"""The recalibrated, cross-fitted predictor: at the identity table it is score's own metric;
a machine equal to the people predicts the truth, so plain PPI is exact; over every draw of
the human queries the estimate is unbiased for any fixed lambda (all draws enumerated)."""

from __future__ import annotations

import re
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.score.measures import parse_measure
from poolkit.score.ppi import ppi_mean
from poolkit.score.ppi_calibrate import SoftMetric, calibrated, check_measure

MEASURES = ("AP", "nDCG@5", "nDCG")


def _labels(seed: int, queries: int = 6, docs: int = 12, noise: float = 0.5,
            ) -> tuple[list[str], dict[str, dict[str, int]], dict[str, dict[str, int]],
                       list[dict[str, list[str]]]]:
    """Queries with graded docs (each with a grade >= 2), a noisy machine and three runs
    (repeats and unjudged ids included)."""
    rng = np.random.default_rng(seed)
    qs = [f"q{i}" for i in range(queries)]
    truth: dict[str, dict[str, int]] = {}
    machine: dict[str, dict[str, int]] = {}
    for q in qs:
        grades = rng.choice(4, size=docs, p=[0.4, 0.2, 0.25, 0.15])
        grades[0] = 2
        truth[q] = {f"d{d}": int(g) for d, g in enumerate(grades)}
        machine[q] = {d: (g if rng.random() > noise else int(rng.integers(0, 4)))
                      for d, g in truth[q].items()}
    runs = [{q: [f"d{int(d)}" for d in rng.integers(0, docs + 4, size=10)] for q in qs}
            for _ in range(3)]
    return qs, truth, machine, runs


def _score(measure: str, runs: list[dict[str, list[str]]], grades: dict[str, dict[str, int]],
           qs: list[str]) -> np.ndarray:
    m = parse_measure(measure)
    return np.array([[m.compute(run[q], grades[q], 2) for q in qs] for run in runs])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), measure=st.sampled_from(MEASURES))
def test_the_identity_table_is_scores_metric(seed: int, measure: str) -> None:
    qs, _truth, machine, runs = _labels(seed)
    soft, _ = calibrated(parse_measure(measure), runs, machine, machine, qs, 2)
    got = soft.values(soft.identity()[None, :])[0]
    assert got == pytest.approx(_score(measure, runs, machine, qs), abs=1e-12)


def test_soft_ap_by_hand() -> None:
    """Ranking a (grade 1), b (grade 0), c (grade 1); d (grade 0) unretrieved; p = (0.2, 0.5):
    numerator 0.5/1 + 0.2/2 * (1 + 0.5) + 0.5/3 * (1 + 0.5 + 0.2), |Rel| 0.5+0.2+0.5+0.2."""
    grades = {"q": {"a": 1, "b": 0, "c": 1, "d": 0}}
    soft = SoftMetric.of(parse_measure("AP"), [{"q": ["a", "b", "c"]}], grades, ["q"], 1, 2)
    num = 0.5 + 0.2 / 2 * 1.5 + 0.5 / 3 * 1.7
    assert soft.values(np.array([[0.2, 0.5]]))[0, 0, 0] == pytest.approx(num / 1.4, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), measure=st.sampled_from(MEASURES), n=st.integers(2, 5))
def test_a_machine_equal_to_the_people_makes_plain_ppi_exact(seed: int, measure: str,
                                                             n: int) -> None:
    qs, truth, _machine, runs = _labels(seed)
    soft, cal = calibrated(parse_measure(measure), runs, truth, truth, qs, 2)
    h = _score(measure, runs, truth, qs)
    sample = np.random.default_rng(seed).choice(len(qs), n, replace=False)
    m = cal.cross_fit(soft, sample)
    assert m == pytest.approx(h, abs=1e-12)
    for r in range(len(runs)):
        est = ppi_mean(m[r], h[r, sample], m[r, sample], lam=1.0)
        assert est.estimate == pytest.approx(h[r].mean(), abs=1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), measure=st.sampled_from(MEASURES),
       lam=st.sampled_from([0.3, 1.0]))
def test_unbiased_over_every_draw_for_a_fixed_lambda(seed: int, measure: str,
                                                     lam: float) -> None:
    """Exchangeability (module docstring): the mean over all C(6, 3) draws of the estimate
    is the truth's mean, for a run and for a difference of two runs."""
    qs, truth, machine, runs = _labels(seed)
    soft, cal = calibrated(parse_measure(measure), runs, machine, truth, qs, 2)
    h = _score(measure, runs, truth, qs)
    estimates = []
    for draw in combinations(range(len(qs)), 3):
        idx = np.array(draw)
        m = cal.cross_fit(soft, idx)
        one = ppi_mean(m[0], h[0, idx], m[0, idx], lam=lam).estimate
        diff = ppi_mean(m[1] - m[2], h[1, idx] - h[2, idx], (m[1] - m[2])[idx], lam=lam)
        estimates.append((one, diff.estimate))
    mean = np.mean(estimates, axis=0)
    assert mean == pytest.approx([h[0].mean(), (h[1] - h[2]).mean()], abs=1e-12)


def test_a_pair_the_machine_did_not_grade_is_not_fitted() -> None:
    qs, truth, machine, runs = _labels(1)
    del machine["q0"]["d1"]
    soft, cal = calibrated(parse_measure("AP"), runs, machine, truth, qs, 2)
    assert cal.pairs[0].sum() == len(truth["q0"]) - 1
    assert cal.pairs[1:].sum() == sum(len(truth[q]) for q in qs[1:])


@pytest.mark.parametrize("measure", ["P@10", "nDCG(gain=exp)@10", "AP@10", "bpref"])
def test_a_measure_without_a_soft_form_is_refused(measure: str) -> None:
    expected = rf"-m {re.escape(measure)}: --calibrate recalibrates nDCG@K"
    with pytest.raises(PoolkitError, match=expected):
        check_measure(parse_measure(measure))
