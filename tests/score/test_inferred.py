"""The estimated measures on hand-computed examples, and their laws at sampling rate 1."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.score import parse_measure
from poolkit.score.facts import QueryFacts
from poolkit.score.inferred import (
    EPSILON,
    PoolSample,
    estimate_relevant,
    inferred_ap,
    inferred_ndcg,
    rbp,
    stat_ap,
)

# One query, two strata. A = {a, b} fully judged; B = {c, d, e, f} half judged (e, f left
# unjudged: e graded -1 in the qrels, f only listed in the sample).
GRADES = {"a": 2, "b": 0, "c": 1, "d": 0, "e": -1}
SAMPLE = PoolSample(strata={"a": "A", "b": "A", "c": "B", "d": "B", "e": "B", "f": "B"},
                    inclusion={"a": 1.0, "b": 1.0, "c": 0.5, "d": 0.5, "e": 0.5, "f": 0.5})
RANKING = ["a", "e", "c", "b"]


def test_inf_ap_by_hand_on_trec_eval_conventions() -> None:
    # a at rank 1: precision 1. c at rank 5: pooled above a, d, b (x never pooled), judged
    # above a, b, of them relevant a: 1/5 + 3/5 * (1 + eps) / (2 + 2 eps) = 0.5.
    # Three judged relevant ids (a, c, z): infAP = (1 + 0.5) / 3; AP would be (1 + 2/5) / 3.
    grades = {"a": 1, "b": 0, "c": 1, "d": -1, "z": 1}
    ranking = ["a", "x", "d", "b", "c"]
    assert inferred_ap(ranking, grades) == pytest.approx(0.5, abs=1e-12)
    assert parse_measure("infAP").compute(ranking, grades) == pytest.approx(0.5, abs=1e-12)
    assert parse_measure("AP").compute(ranking, grades) == pytest.approx(1.4 / 3)


def test_xinf_ap_by_hand_weights_each_stratum_by_its_rate() -> None:
    # R_est = 1 (A: 1 of 2 judged relevant, all judged) + 4 * 1/2 (B) = 3.
    # a, rank 1: 1, weight 1. c, rank 3 (stratum B, rate 1/2, weight 2): above it a (A:
    # pooled 1, judged 1, relevant 1) and e (B: pooled 1, judged 0):
    # 1/3 + 1/3 (1 + eps)/(1 + 2 eps) + 1/3 (0 + eps)/(0 + 2 eps).
    e_c = 1 / 3 + (1 / 3) * (1 + EPSILON) / (1 + 2 * EPSILON) + (1 / 3) * 0.5
    expected = (1 + 2 * e_c) / 3
    assert inferred_ap(RANKING, GRADES, 1, SAMPLE) == pytest.approx(expected, abs=1e-12)
    assert expected == pytest.approx(0.888887, abs=1e-6)


def test_stat_ap_by_hand_uses_horvitz_thompson_weights() -> None:
    # R_hat = 1/1 (a) + 1/0.5 (c) = 3. a: (1 + 0)/1, weight 1. c: (1 + 1)/3, weight 2.
    assert stat_ap(RANKING, GRADES, 1, SAMPLE) == pytest.approx((1 + 2 * 2 / 3) / 3)


def test_inf_ndcg_by_hand() -> None:
    # DCG@3: a (grade 2, rank 1) 2/1, c (grade 1, rank 3, rate 1/2) 2 * 1/2 -> 3.
    # Estimated counts: grade 2: 1 (A); grade 1: 4 * 1/2 = 2 (B). Ideal: 2, 1, 1.
    idcg = 2 + 1 / math.log2(3) + 1 / 2
    assert inferred_ndcg(RANKING, GRADES, 3, None, SAMPLE) == pytest.approx(3 / idcg)
    assert idcg == pytest.approx(3.130930, abs=1e-6)


def test_r_est_by_hand_with_its_interval() -> None:
    # A: 1 relevant, all judged, no variance. B: 1 of 2 judged relevant of 4 pooled: 2,
    # S^2 = 1 * 1 / (2 * 1), var = 16 * (1 - 2/4) * 0.5 / 2 = 2; 3 -/+ 1.96 * 1.414 clipped to
    # [2 judged relevant, 2 + 2 unjudged].
    est = estimate_relevant(GRADES, SAMPLE)
    assert est.value == pytest.approx(3.0)
    assert (est.low, est.high) == (2.0, 4.0)
    assert (est.judged_relevant, est.judged, est.pooled) == (2, 4, 6)
    assert not est.exact
    wide = estimate_relevant({f"d{i}": (1 if i < 20 else (0 if i < 40 else -1))
                              for i in range(400)})
    # One uniform stratum: 20 of 40 judged relevant, 400 pooled: 200, interval inside.
    assert wide.value == pytest.approx(200.0)
    se = 400 * math.sqrt((1 - 40 / 400) * (20 * 20 / (40 * 39)) / 40)
    assert wide.low == pytest.approx(200 - 1.959964 * se, abs=1e-3)
    assert wide.high == pytest.approx(200 + 1.959964 * se, abs=1e-3)


def test_r_est_stratum_with_nothing_judged_widens_the_upper_end_only() -> None:
    grades = {"a": 1, "b": 0}
    sample = PoolSample({"a": "top", "b": "top", "c": "deep", "d": "deep"},
                        {"a": 1.0, "b": 1.0, "c": 0.1, "d": 0.1})
    est = estimate_relevant(grades, sample)
    assert (est.value, est.low, est.high) == (1.0, 1.0, 3.0)


def test_rbp_and_residual_by_hand() -> None:
    # p = 0.5: weights 1/2, 1/4, 1/8, 1/16, 1/32. a (grade 1 of max 2) at 1: 1/2 * 1/2;
    # c (grade 2) at 4: 1/16. Unjudged: x at 3 (1/8), d (-1) at 5 (1/32), and the tail 1/32.
    grades = {"a": 1, "b": 0, "c": 2, "d": -1, "z": 1}
    score, resid = rbp(["a", "b", "x", "c", "d"], grades, 0.5)
    assert score == pytest.approx(0.3125)
    assert resid == pytest.approx(0.1875)
    # Fully judged: no residual at all (trec_eval adds the tail only with something unjudged).
    assert rbp(["a", "b"], grades, 0.5) == (0.25, 0.0)
    assert parse_measure("RBP(p=0.5)").compute(["a", "b", "x", "c", "d"], grades) == 0.3125
    assert parse_measure("RBP_resid(p=0.5)").compute(["x"], grades) == pytest.approx(1.0)


def test_repeated_id_scores_once_in_every_estimator() -> None:
    grades = {"a": 1, "b": 0}
    assert rbp(["a", "a"], grades, 0.5) == (0.5, 0.0)
    assert inferred_ap(["b", "a", "a"], grades) == pytest.approx(
        inferred_ap(["b", "a"], grades))
    assert stat_ap(["a", "a"], grades) == 1.0


@pytest.mark.parametrize("text, name", [
    ("RBP", "RBP(p=0.8)"), ("rbp", "RBP(p=0.9)"), ("rbp_p=0.8", "RBP(p=0.8)"),
    ("rbp_resid", "RBP_resid(p=0.9)"), ("RBP(p=0.95)@20", "RBP(p=0.95)@20"),
    ("infAP", "infAP"), ("xinfAP", "xinfAP"), ("StatAP", "statAP"),
    ("infNDCG@10", "infNDCG@10"), ("infNDCG(gain=exp)@10", "infNDCG(gain=exp)@10"),
])
def test_names_parse_and_print_back(text: str, name: str) -> None:
    assert parse_measure(text).name == name
    assert parse_measure(name).name == name


@pytest.mark.parametrize("text, message", [
    ("RBP(p=1)", "strictly between 0 and 1"), ("RBP(p=x)", "p must be a number"),
    ("AP(p=0.5)", "AP takes no p="), ("infAP@10", "takes no cutoff"),
    ("statAP(gain=exp)", "takes no gain"),
])
def test_bad_parameters_are_one_clear_error(text: str, message: str) -> None:
    with pytest.raises(PoolkitError, match=message):
        parse_measure(text)


# --- rate 1: every pooled id judged -------------------------------------------------------

IDS = [f"d{i}" for i in range(14)]


@st.composite
def fully_judged(draw: st.DrawFn) -> tuple[list[str], dict[str, int], PoolSample, int]:
    grades = draw(st.dictionaries(st.sampled_from(IDS), st.integers(0, 3), min_size=1,
                                  max_size=12))
    strata = {d: draw(st.sampled_from(["s1", "s2", "s3"])) for d in grades}
    sample = PoolSample(strata, dict.fromkeys(grades, 1.0))
    ranking = draw(st.lists(st.sampled_from(IDS + ["u1", "u2"]), max_size=18))
    return ranking, grades, sample, draw(st.integers(1, 3))


@settings(max_examples=300, deadline=None)
@given(case=fully_judged(), k=st.integers(1, 20))
def test_at_rate_one_every_estimator_is_its_measure(case, k) -> None:
    ranking, grades, sample, level = case
    facts = QueryFacts(ranking, grades, sample)
    ap = parse_measure("AP").from_facts(facts, level)
    # infAP/xinfAP keep trec_eval's smoothing eps = 1e-5 inside the precision ratio.
    assert parse_measure("infAP").from_facts(facts, level) == pytest.approx(ap, abs=1e-4)
    assert parse_measure("xinfAP").from_facts(facts, level) == pytest.approx(ap, abs=1e-4)
    assert parse_measure("statAP").from_facts(facts, level) == pytest.approx(ap, abs=1e-12)
    for gain in ("linear", "exp"):
        ndcg = parse_measure(f"nDCG(gain={gain})@{k}").from_facts(facts, level)
        inf = parse_measure(f"infNDCG(gain={gain})@{k}").from_facts(facts, level)
        assert inf == pytest.approx(ndcg, abs=1e-12)
    est = estimate_relevant(grades, sample, level)
    num_rel = sum(1 for g in grades.values() if g >= level)
    assert est.exact and est.value == est.low == est.high == num_rel
    if all(d in grades for d in ranking):
        assert rbp(ranking, grades, 0.8)[1] == 0.0


@settings(max_examples=200, deadline=None)
@given(ranking=st.lists(st.sampled_from(IDS + ["u1"]), max_size=18),
       grades=st.dictionaries(st.sampled_from(IDS), st.integers(-1, 3), max_size=12),
       p=st.floats(0.05, 0.95))
def test_rbp_plus_residual_never_exceeds_one(ranking, grades, p) -> None:
    score, resid = rbp(ranking, grades, p)
    assert 0.0 <= score <= 1.0 + 1e-12 and 0.0 <= resid <= 1.0 + 1e-12
    assert score + resid <= 1.0 + 1e-12


@settings(max_examples=200, deadline=None)
@given(grades=st.dictionaries(st.sampled_from(IDS), st.integers(-1, 3), max_size=12),
       level=st.integers(1, 3))
def test_r_est_interval_holds_the_estimate_and_what_is_certain(grades, level) -> None:
    est = estimate_relevant(grades, None, level)
    certain = sum(1 for g in grades.values() if g >= level)
    unjudged = sum(1 for g in grades.values() if g < 0)
    assert certain <= est.low <= est.high <= certain + unjudged
    if est.judged:
        assert est.low - 1e-9 <= est.value <= est.high + 1e-9
