"""Laws every measure obeys, checked on generated rankings (hypothesis).

Small id alphabets on purpose: rankings then repeat ids, hit unjudged and -1 ids, and run
shorter than K, which is where the conventions bite.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from poolkit.io import Qrels, Run
from poolkit.score import Measure, evaluate, parse_measure

IDS = [f"d{i}" for i in range(12)]

grades_st = st.dictionaries(st.sampled_from(IDS), st.integers(-1, 3), max_size=10)
ranking_st = st.lists(st.sampled_from(IDS + ["u1", "u2"]), max_size=16)
cutoff_st = st.integers(1, 20)
level_st = st.integers(1, 3)

ALL_MEASURES = [
    "P@{k}", "R@{k}", "R", "Rcap@{k}", "Hit@{k}", "Hit", "RR@{k}", "RR", "AP@{k}", "AP",
    "nDCG@{k}", "nDCG", "nDCG(gain=exp)@{k}", "Rprec", "bpref", "Judged@{k}", "Judged",
    "CP@{k}", "CP", "P(rel=2)@{k}", "AP(judged_only=true)", "nDCG(judged_only=true)@{k}",
    "bpref(judged_only=true)", "RR(rel=3,judged_only=true)@{k}",
]


@settings(max_examples=300, deadline=None)
@given(ranking=ranking_st, grades=grades_st, k=cutoff_st, level=level_st)
def test_every_measure_is_in_unit_interval(ranking, grades, k, level) -> None:
    for text in ALL_MEASURES:
        value = parse_measure(text.format(k=k)).compute(ranking, grades, level=level)
        assert 0.0 <= value <= 1.0 + 1e-12, (text, value)


@settings(max_examples=300, deadline=None)
@given(ranking=ranking_st, grades=grades_st, k=cutoff_st, level=level_st,
       judged_only=st.booleans())
def test_recall_never_falls_as_k_grows(ranking, grades, k, level, judged_only) -> None:
    here = Measure("R", k, judged_only=judged_only).compute(ranking, grades, level)
    deeper = Measure("R", k + 1, judged_only=judged_only).compute(ranking, grades, level)
    full = Measure("R", judged_only=judged_only).compute(ranking, grades, level)
    assert here <= deeper <= full


@settings(max_examples=300, deadline=None)
@given(ranking=ranking_st, grades=grades_st, k=cutoff_st, level=level_st, data=st.data())
def test_permuting_the_top_k_leaves_p_and_r_unchanged(ranking, grades, k, level, data) -> None:
    top = data.draw(st.permutations(ranking[:k]))
    shuffled = list(top) + ranking[k:]
    for family in ("P", "R", "Rcap", "Hit"):
        meas = Measure(family, k)
        assert meas.compute(shuffled, grades, level) == meas.compute(ranking, grades, level)


@settings(max_examples=300, deadline=None)
@given(ranking=ranking_st, grades=grades_st, k=cutoff_st, gain=st.sampled_from(["linear", "exp"]),
       data=st.data())
def test_adding_a_relevant_id_at_rank_1_never_lowers_ndcg(ranking, grades, k, gain, data) -> None:
    """Binary labels: any judged-relevant id not yet in the ranking, put at rank 1."""
    binary = {d: (1 if g >= 1 else g) for d, g in grades.items()}
    unretrieved = sorted(d for d, g in binary.items() if g >= 1 and d not in ranking)
    assume(unretrieved)
    new = data.draw(st.sampled_from(unretrieved))
    meas = Measure("nDCG", k, gain=gain)
    assert meas.compute([new] + ranking, binary) >= meas.compute(ranking, binary) - 1e-12


@settings(max_examples=300, deadline=None)
@given(ranking=ranking_st, grades=grades_st, k=cutoff_st, gain=st.sampled_from(["linear", "exp"]),
       data=st.data())
def test_adding_a_top_graded_id_at_rank_1_never_lowers_graded_ndcg(
        ranking, grades, k, gain, data) -> None:
    """Graded labels: the law holds for an id graded at least as high as anything retrieved."""
    top = max((grades.get(d, 0) for d in ranking), default=0)
    candidates = sorted(d for d, g in grades.items() if g >= max(top, 1) and d not in ranking)
    assume(candidates)
    new = data.draw(st.sampled_from(candidates))
    meas = Measure("nDCG", k, gain=gain)
    assert meas.compute([new] + ranking, grades) >= meas.compute(ranking, grades) - 1e-12


def test_graded_ndcg_can_fall_when_a_lower_graded_id_is_put_first() -> None:
    """Why the graded law above needs its condition: a grade-1 id pushes a grade-3 id down."""
    grades = {"a": 3, "b": 1}
    meas = Measure("nDCG", 1)
    assert meas.compute(["b", "a"], grades) < meas.compute(["a"], grades)


@settings(max_examples=100, deadline=None)
@given(runs=st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), ranking_st, max_size=3),
       qrels=st.dictionaries(st.sampled_from(["q1", "q2", "q3", "q4"]), grades_st, min_size=1,
                             max_size=4),
       k=cutoff_st, depth=st.none() | st.integers(1, 10), level=level_st)
def test_evaluate_agrees_with_compute(runs, qrels, k, depth, level) -> None:
    measures = [parse_measure(t.format(k=k)) for t in ALL_MEASURES]
    ev = evaluate(Qrels.from_mapping(qrels), Run.from_mapping(runs), measures, level=level,
                  depth=depth)
    for qid in ev.scored:
        ranking = runs.get(qid, [])[:depth]
        for meas in measures:
            assert ev.per_query[meas.name][qid] == meas.compute(ranking, qrels[qid], level)
    assert set(ev.scored) | set(ev.excluded) == set(qrels)
    assert not set(ev.scored) & set(ev.excluded)


# --------------------------------------------------------------------------------------------
# Differential: pytrec_eval (trec_eval's C code) on generated runs without repeats.

PYTREC = {
    "P_{k}": "P@{k}", "recall_{k}": "R@{k}", "success_{k}": "Hit@{k}",
    "map_cut_{k}": "AP@{k}", "ndcg_cut_{k}": "nDCG@{k}", "map": "AP", "recip_rank": "RR",
    "Rprec": "Rprec", "bpref": "bpref", "ndcg": "nDCG",
}


@settings(max_examples=150, deadline=None)
@given(docs=st.lists(st.sampled_from(IDS + ["u1", "u2"]), unique=True, max_size=14),
       grades=grades_st, k=st.sampled_from([1, 2, 3, 5, 10, 15]), level=level_st)
def test_matches_pytrec_eval(docs, grades, k, level) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    assume(any(g >= level for g in grades.values()))
    names = {t.format(k=k): parse_measure(p.format(k=k)) for t, p in PYTREC.items()}
    families = {f"{n.rsplit('_', 1)[0]}.{k}" if n[-1].isdigit() else n for n in names}
    if not docs:
        # pytrec_eval segfaults on an empty ranking (seen with its 0.5.x wheels); trec_eval
        # itself scores a query with no results 0 on every measure (-c), and so must we.
        assert all(m.compute(docs, grades, level=level) == 0.0 for m in names.values())
        return
    evaluator = pytrec_eval.RelevanceEvaluator({"q": grades}, families, relevance_level=level)
    # distinct scores in list order, so trec_eval's sort keeps our order
    got = evaluator.evaluate({"q": {d: float(len(docs) - i) for i, d in enumerate(docs)}})
    theirs = got.get("q", {})
    for trec_name, meas in names.items():
        ours = meas.compute(docs, grades, level=level)
        if meas.family == "nDCG":
            # trec_eval's ndcg ignores the level; poolkit's is graded and level-free too.
            ours = meas.compute(docs, grades)
        expected = theirs.get(trec_name, 0.0)
        assert ours == pytest.approx(expected, abs=1e-9), (trec_name, ours, expected)
