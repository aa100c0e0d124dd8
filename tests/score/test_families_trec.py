"""trec_eval's measures that only ``poolkit trec-eval`` prints: the laws that tie them to each
other and to poolkit's families, on random rankings (the byte-for-byte agreement with trec_eval
itself is tests/trec_eval)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolkit.score import families_trec as ft
from poolkit.score.measures import TREC_FAMILIES, Measure

DOCS = [f"d{i}" for i in range(12)]


@st.composite
def queries(draw: st.DrawFn) -> tuple[list[str], dict[str, int], int]:
    grades = {d: g for d in DOCS if (g := draw(st.integers(-2, 3))) > -2}  # -2: not in qrels
    ranking = draw(st.lists(st.sampled_from(DOCS), max_size=10, unique=True))
    return ranking, grades, draw(st.integers(1, 2))


@given(queries())
def test_the_laws_between_the_measures(case: tuple[list[str], dict[str, int], int]) -> None:
    ranking, grades, level = case
    q = ft.TrecQuery(ranking, grades, level)
    r = q.num_rel
    for k in (1, 3, 5, 10):
        # relative precision is poolkit's Rcap: hits over the most that could be hits
        assert ft.relative_precision(q, k) == pytest.approx(
            Measure("Rcap", k).compute(ranking, grades, level))
        unjudged = sum(1 for d in ranking[:k] if grades.get(d, -1) < 0) / k
        assert ft.unjudged(q, k) == unjudged
    set_p, set_r = ft.set_precision(q), (q.num_rel_ret / r if r else 0.0)
    assert ft.set_map(q) == pytest.approx(set_p * set_r)
    if q.num_rel_ret:  # F1 is the harmonic mean of set precision and recall
        assert ft.set_f(q, (1.0,)) == pytest.approx(2 * set_p * set_r / (set_p + set_r))
    if q.num_ret:
        points = [ft.iprec_at_recall(q, x) for x in TREC_FAMILIES["11pt_avg"].defaults]
        assert ft.eleven_point_average(q, TREC_FAMILIES["11pt_avg"].defaults) == \
            pytest.approx(sum(points) / 11)
        assert points == sorted(points, reverse=True)  # interpolated: never rises
    assert ft.rprec_mult(q, 1.0) == pytest.approx(
        Measure("Rprec").compute(ranking, grades, level))
    assert ft.utility(q, (1.0, -1.0, 0.0, 0.0)) == 2 * q.num_rel_ret - q.num_ret
    for value in (ft.g_measure(q), ft.ndcg_rel(q), ft.bin_g(q)):
        assert 0.0 <= value <= 1.0 + 1e-12
    assert ft.dcg(q) == pytest.approx(Measure("nDCG").compute(ranking, grades) * ft.ideal_dcg(q))
    assert len(ft.relstring(q, (10.0,))) == min(10, len(ranking))


@given(queries())
def test_a_perfect_ranking_scores_one(case: tuple[list[str], dict[str, int], int]) -> None:
    _, grades, level = case
    ideal = sorted((d for d, g in grades.items() if g > 0), key=lambda d: -grades[d])
    q = ft.TrecQuery(ideal, grades, level)
    if q.num_rel:
        for value in (ft.ndcg_rel(q), ft.r_ndcg(q), ft.set_relative_precision(q),
                      ft.iprec_at_recall(q, 1.0)):
            assert value == pytest.approx(1.0)


def test_a_geometric_term_is_floored() -> None:
    assert ft.geometric_term(0.0) == math.log(0.00001)
    assert ft.geometric_term(0.5) == math.log(0.5)


def test_every_measure_says_its_formula_and_parameters() -> None:
    for family in TREC_FAMILIES.values():
        head = family.formula.split(" = ")[0]
        assert head in (family.name, f"{family.name}_k", f"{family.name}_x"), family.name
        assert (family.params in ("none", "gains")) == (not family.defaults), family.name
        if family.defaults or family.params == "gains":  # how trec_eval takes its parameters
            assert f"-m {family.name}." in family.formula, family.name
