"""The measures, by hand: the seeds' worked numbers and small cases for every rule.

Seed 000 (../shared/seeds/000_*.txt) and seed 002 print these figures; every one must come
out of poolkit at the precision the seed prints.
"""

from __future__ import annotations

import pytest

from poolkit.errors import PoolkitError
from poolkit.io import Qrels, Run
from poolkit.score import MEASURES, Measure, QueryFacts, evaluate, parse_measure
from poolkit.score.measures import TREC_FAMILIES


def m(text: str) -> Measure:
    return parse_measure(text)


def r3(x: float) -> str:
    return f"{x:.3f}"


# --------------------------------------------------------------------------------------------
# Seed 002: worked nDCG and MAP examples.

NDCG_RANKING = ["a", "b", "c", "d", "e", "f"]
NDCG_GRADES = {"a": 3, "b": 2, "c": 3, "d": 0, "e": 1, "f": 2}
NDCG_GRADES_MORE = {**NDCG_GRADES, "u1": 3, "u2": 2}  # two relevant ids never retrieved


@pytest.mark.parametrize("grades, idcg, ndcg", [
    (NDCG_GRADES, "7.141", "0.961"),
    (NDCG_GRADES_MORE, "8.740", "0.785"),  # same list, IDCG counts the unretrieved ids
])
def test_seed002_ndcg_worked_example(grades: dict, idcg: str, ndcg: str) -> None:
    facts = QueryFacts(NDCG_RANKING, grades)
    assert r3(facts.dcg(6)) == "6.861"
    assert r3(facts.idcg(6)) == idcg
    assert r3(m("nDCG@6").compute(NDCG_RANKING, grades)) == ndcg


def ranked_with_relevant_at(ranks: list[int], depth: int, tag: str) -> tuple[list[str], dict]:
    ranking = [f"{tag}{i}" for i in range(1, depth + 1)]
    return ranking, {f"{tag}{i}": 1 for i in ranks}


def test_seed002_map_worked_example() -> None:
    r1, g1 = ranked_with_relevant_at([1, 3, 6, 9, 10], 10, "a")
    r2, g2 = ranked_with_relevant_at([2, 5, 7], 10, "b")
    assert r3(m("AP@10").compute(r1, g1)) == "0.622"
    assert r3(m("AP@10").compute(r2, g2)) == "0.443"
    ev = evaluate(Qrels.from_mapping({"q1": g1, "q2": g2}),
                  Run.from_mapping({"q1": r1, "q2": r2}), [m("AP@10")])
    assert r3(ev.means["AP@10"]) == "0.533"


# --------------------------------------------------------------------------------------------
# Seed 000: four queries at K = 5.

SEED000 = {
    "q_faw": ({"m1": 3, "m2": 2, "m3": 1},
              ["m2", "x3", "m1", "p1", "d2", "m3", "s1", "x1", "p3", "d5"],
              {"m1", "m2", "m3"}),
    "q_store": ({"s1": 3, "s2": 2, "s3": 1},
                ["d2", "s2", "x4", "s1", "p2", "s3", "m4", "d1", "p5", "x2"],
                {"s1", "s2", "s3"}),
    "q_milk": ({"d1": 3, "d2": 2, "d3": 1},
               ["d1", "s2", "x1", "d2", "x3", "d3", "m1", "p4", "s4", "x2"],
               {"d1", "d2", "d3"}),
    "q_broad": ({"m1": 3, "m2": 3, "m3": 2, "m4": 2, "m5": 1, "m6": 1, "s1": 2, "s2": 1},
                ["m1", "s1", "m2", "m3", "x1", "m4", "m5", "m6", "s2", "d1"],
                {"m1", "m2", "m3", "m4", "m5", "m6", "s1", "s2", "s3", "x1", "x2", "s4"}),
}
# query -> P@5, R@5, R@5cap, MRR, nDCG@5, as the seed prints them
SEED000_TABLE = {
    "q_faw": ("0.400", "0.667", "0.667", "1.000", "0.735"),
    "q_store": ("0.400", "0.667", "0.667", "0.500", "0.536"),
    "q_milk": ("0.400", "0.667", "0.667", "1.000", "0.811"),
    "q_broad": ("0.800", "0.500", "0.800", "1.000", "0.880"),
}
SEED000_MEASURES = [m("P@5"), m("R@5"), m("Rcap@5"), m("RR"), m("nDCG@5")]


@pytest.fixture(scope="module")
def seed000():
    qrels = Qrels.from_mapping({q: g for q, (g, _, _) in SEED000.items()})
    run = Run.from_mapping({q: r for q, (_, r, _) in SEED000.items()})
    return evaluate(qrels, run, SEED000_MEASURES + [m("R@10")])


@pytest.mark.parametrize("qid", list(SEED000_TABLE))
def test_seed000_per_query_table(seed000, qid: str) -> None:
    got = tuple(r3(seed000.per_query[meas.name][qid]) for meas in SEED000_MEASURES)
    assert got == SEED000_TABLE[qid]


def test_seed000_means(seed000) -> None:
    means = {name: r3(v) for name, v in seed000.means.items()}
    assert means["R@5"] == "0.625"
    assert means["Rcap@5"] == "0.700"
    assert means["P@5"] == "0.500"
    assert means["nDCG@5"] == "0.741"


def test_seed000_label_coverage_recall_against_truth() -> None:
    got = {q: (r3(m("R@5").compute(r, g)), r3(m("R@5").compute(r, dict.fromkeys(true, 1))))
           for q, (g, r, true) in SEED000.items()}
    assert got == {"q_faw": ("0.667", "0.667"), "q_store": ("0.667", "0.667"),
                   "q_milk": ("0.667", "0.667"), "q_broad": ("0.500", "0.417")}


def test_seed000_stage1_vs_stage2(seed000) -> None:
    for qid, lost in (("q_faw", "0.333"), ("q_store", "0.333"), ("q_milk", "0.333"),
                      ("q_broad", "0.500")):
        r10, r5 = seed000.per_query["R@10"][qid], seed000.per_query["R@5"][qid]
        assert (r3(r10), r3(r10 - r5)) == ("1.000", lost)


def test_seed000_reordered_block() -> None:
    grades, ranking, _ = SEED000["q_milk"]
    buried = [ranking[1], ranking[2], ranking[3], ranking[0], ranking[4]]
    for text, now, was in (("P@5", "0.400", "0.400"), ("R@5", "0.667", "0.667"),
                           ("RR", "0.333", "1.000"), ("nDCG@5", "0.481", "0.811")):
        assert r3(m(text).compute(buried, grades)) == now, text
        assert r3(m(text).compute(ranking, grades)) == was, text


def test_seed000_q_dupe_counts_the_first_occurrence_only() -> None:
    grades = {"d1": 3, "d2": 2, "d3": 1}
    ranking = ["d1", "d1", "x3", "d2", "x1"]
    assert r3(m("R@5").compute(ranking, grades)) == "0.667"  # not 1.000
    assert r3(m("P@5").compute(ranking, grades)) == "0.400"
    assert r3(m("Hit@5").compute(ranking, grades)) == "1.000"


# --------------------------------------------------------------------------------------------
# Seed 002: the ten-query sample at K = 5 (a fixture built to fit every fact it states).

SAMPLE_QRELS = {
    "q01": {"d01": 1, "d02": 2},
    "q02": {"d11": 2},
    "q03": {"d21": 1, "d22": 1},
    "q04": {"d31": 1, "d32": 2, "d33": 1, "d34": 3},
    "q05": {"d41": 3},
    "q06": {"d51": 2, "d52": 1},
    "q07": {"d61": 3, "d62": 1},
    "q08": {"d71": 0, "d72": 0},
    "q09": {f"d8{i}": 1 for i in range(1, 7)},
    "q10": {"d05": 2, "d91": 1},
}
SAMPLE_RUN = {
    "q01": ["d02", "n1", "d01", "n2", "n3"],
    "q02": ["n1", "n2", "d11", "n3", "n4"],
    "q03": ["n1", "n2", "n3", "n4", "n5", "d21", "n6", "n7", "n8", "n9"],
    "q04": ["d31", "n1", "d32", "d33", "n2", "n3", "d34"],
    "q05": ["d41", "n1", "n2", "n3", "n4"],
    "q06": ["n1", "n2", "n3", "n4", "n5"],
    "q07": ["d61", "d62", "n1", "n2", "n3"],
    "q08": ["d71", "n1", "n2", "n3", "n4"],
    "q09": ["n1", "d81", "n2", "d82", "n3", "d83"],
    "q10": ["d05", "d05", "d91", "n1", "n2"],
}


@pytest.fixture(scope="module")
def sample():
    measures = [m("R@5"), m("Rcap@5"), m("P@5"), m("Hit@5"), m("Hit@10"), m("AP@5")]
    return evaluate(Qrels.from_mapping(SAMPLE_QRELS), Run.from_mapping(SAMPLE_RUN), measures)


def test_seed002_sample_excludes_the_query_without_relevant_ids(sample) -> None:
    assert sample.excluded == ["q08"]
    assert len(sample.scored) == 9
    assert "q08" not in sample.per_query["R@5"]


def test_seed002_sample_means(sample) -> None:
    assert r3(sample.means["R@5"]) == "0.676"
    assert r3(sample.means["Hit@5"]) == "0.778"
    assert r3(sample.means["Hit@10"]) == "0.889"


def test_seed002_sample_queries(sample) -> None:
    pq = sample.per_query
    assert pq["AP@5"]["q07"] == 1.0
    assert r3(pq["AP@5"]["q02"]) == "0.333"
    assert r3(pq["R@5"]["q04"]) == "0.750"
    assert (r3(pq["R@5"]["q09"]), r3(pq["Rcap@5"]["q09"])) == ("0.333", "0.400")
    assert pq["R@5"]["q06"] == 0.0
    assert pq["Hit@5"]["q03"] == 0.0 and pq["Hit@10"]["q03"] == 1.0
    full = [q for q in sample.scored if pq["R@5"][q] == 1.0]
    assert full == ["q01", "q02", "q05", "q07", "q10"]


def test_seed002_q10_repeat_scores_as_non_relevant_slot(sample) -> None:
    assert sample.per_query["P@5"]["q10"] == pytest.approx(0.4)  # not 0.6


# --------------------------------------------------------------------------------------------
# Every family, small cases by hand.

G = {"a": 3, "b": 0, "c": 1, "d": 2, "j": -1}


@pytest.mark.parametrize(
    "text, ranking, expected",
    [
        ("P@3", ["a", "b", "c"], 2 / 3),
        ("P@10", ["a", "c"], 2 / 10),  # divides by K, not by what came back
        ("R@2", ["a", "b", "c"], 1 / 3),
        ("R", ["x", "a", "y", "c", "d"], 1.0),
        ("Rcap@2", ["a", "c"], 1.0),
        ("Rcap@5", ["a", "x"], 1 / 3),
        ("Hit@1", ["b", "a"], 0.0),
        ("Hit@2", ["b", "a"], 1.0),
        ("RR@1", ["b", "a"], 0.0),
        ("RR@2", ["b", "a"], 0.5),
        ("RR", ["x", "y", "z", "c"], 0.25),
        ("AP", ["a", "x", "c"], (1 + 2 / 3) / 3),
        ("AP@2", ["a", "x", "c"], 1 / 3),
        ("CP@3", ["a", "x", "c"], (1 + 2 / 3) / 2),
        ("CP@3", ["x", "y", "z", "a"], 0.0),
        ("Rprec", ["a", "x", "c", "d"], 2 / 3),
        ("Judged@4", ["a", "x", "b", "j"], 2 / 4),  # -1 is "in the pool, not judged"
        ("Judged@10", ["a", "x"], 1 / 2),  # share of what came back (ir_measures)
        ("P(rel=2)@3", ["a", "c", "d"], 2 / 3),
        ("R(rel=3)@1", ["a"], 1.0),
        ("AP(judged_only=true)", ["x", "a", "y", "c"], (1 + 1) / 3),
        ("RR(judged_only=true)", ["x", "y", "b", "c"], 0.5),
        ("P(judged_only=true)@2", ["x", "a", "y", "c"], 1.0),
    ],
)
def test_family_by_hand(text: str, ranking: list[str], expected: float) -> None:
    assert m(text).compute(ranking, G) == pytest.approx(expected)


def test_bpref_by_hand() -> None:
    # R = 2 relevant (r1, r2), N = 3 judged non-relevant; unjudged u and -1 j are skipped.
    grades = {"r1": 1, "r2": 2, "n1": 0, "n2": 0, "n3": 0, "j": -1}
    ranking = ["u", "n1", "r1", "j", "n2", "r2"]
    # r1: 1 non-rel above -> 1 - 1/min(3,2); r2: 2 above -> 1 - 2/2
    assert m("bpref").compute(ranking, grades) == pytest.approx((0.5 + 0.0) / 2)
    assert m("bpref").compute(["r1", "n1", "r2"], {"r1": 1, "r2": 1}) == 1.0


def test_ndcg_gain_switch_and_level() -> None:
    grades = {"a": 3, "b": 1}
    linear = m("nDCG@2").compute(["b", "a"], grades)
    exp = m("nDCG(gain=exp)@2").compute(["b", "a"], grades)
    assert linear == pytest.approx((1 + 3 / 1.5849625) / (3 + 1 / 1.5849625), rel=1e-6)
    assert exp == pytest.approx((1 + 7 / 1.5849625) / (7 + 1 / 1.5849625), rel=1e-6)
    # graded: the evaluation level does not change it; 0/1 labels make both gains agree
    assert m("nDCG@2").compute(["b", "a"], grades, level=3) == linear
    assert m("nDCG(gain=exp)@5").compute(["x", "a"], {"a": 1}) == \
        m("nDCG@5").compute(["x", "a"], {"a": 1})


def test_ndcg_negative_grades_gain_nothing() -> None:
    assert m("nDCG@3").compute(["j", "a"], {"j": -1, "a": 2}) == pytest.approx(1 / 1.5849625)


def test_repeats_hold_their_slot_in_every_family() -> None:
    grades = {"a": 1, "b": 1}
    ranking = ["a", "a", "b"]
    assert m("P@2").compute(ranking, grades) == 0.5
    assert m("AP").compute(ranking, grades) == pytest.approx((1 + 2 / 3) / 2)
    assert m("nDCG@3").compute(ranking, grades) == pytest.approx(
        (1 + 1 / 2) / (1 + 1 / 1.5849625))
    assert m("Judged@2").compute(ranking, grades) == 1.0


def test_level_and_empty_inputs() -> None:
    assert m("P@5").compute(["a"], {"a": 1}, level=2) == 0.0
    for meas in ("P@5", "R@5", "RR", "AP", "nDCG@5", "bpref", "Rprec", "Judged@5", "CP@5"):
        assert m(meas).compute([], {"a": 1}) == 0.0, meas
        assert m(meas).compute(["a"], {}) == 0.0, meas


# --------------------------------------------------------------------------------------------
# evaluate(): which queries count, depth, level.


def test_evaluate_sorts_queries_into_scored_excluded_missing_unknown() -> None:
    qrels = Qrels.from_mapping({"q1": {"a": 1}, "q2": {"b": 0}, "q3": {"c": 2}})
    run = Run.from_mapping({"q1": ["a"], "q2": ["b"], "zz": ["a"]})
    ev = evaluate(qrels, run, [m("P@1"), m("R@1")])
    assert ev.scored == ["q1", "q3"]
    assert ev.excluded == ["q2"]
    assert ev.missing == ["q3"]
    assert ev.unknown == ["zz"]
    assert ev.per_query["P@1"] == {"q1": 1.0, "q3": 0.0}
    assert ev.means["P@1"] == 0.5
    assert ev.num_rel == {"q1": 1, "q3": 1}


def test_evaluate_level_changes_what_is_scored() -> None:
    qrels = Qrels.from_mapping({"q1": {"a": 1, "b": 2}, "q2": {"c": 1}})
    run = Run.from_mapping({"q1": ["a", "b"], "q2": ["c"]})
    ev = evaluate(qrels, run, [m("P@1"), m("nDCG@1")], level=2)
    assert ev.scored == ["q1"] and ev.excluded == ["q2"]
    assert ev.per_query["P@1"]["q1"] == 0.0


def test_evaluate_depth_cuts_first() -> None:
    qrels = Qrels.from_mapping({"q1": {"c": 1}})
    run = Run.from_mapping({"q1": ["a", "b", "c"]})
    assert evaluate(qrels, run, [m("R")]).means["R"] == 1.0
    assert evaluate(qrels, run, [m("R")], depth=2).means["R"] == 0.0
    with pytest.raises(PoolkitError, match="depth must be a positive integer"):
        evaluate(qrels, run, [m("R")], depth=0)


def test_evaluate_with_no_scored_queries_means_zero() -> None:
    ev = evaluate(Qrels.from_mapping({"q": {"a": 0}}), Run.from_mapping({"q": ["a"]}),
                  [m("P@5")])
    assert ev.means == {"P@5": 0.0} and ev.scored == [] and ev.excluded == ["q"]


def test_evaluate_drops_duplicate_measures_and_offers_values() -> None:
    qrels = Qrels.from_mapping({"q1": {"a": 1}, "q2": {"b": 1}})
    run = Run.from_mapping({"q1": ["a"], "q2": ["x", "b"]})
    ev = evaluate(qrels, run, [m("RR"), m("MRR"), m("recip_rank")])
    assert [x.name for x in ev.measures] == ["RR"]
    assert ev.values("RR") == [1.0, 0.5] and ev.mean(m("RR")) == 0.75


# --------------------------------------------------------------------------------------------
# Names: canonical spelling, parsing back, errors.

CANONICAL = ["P@5", "R@100", "R", "Hit@5", "RR@10", "RR", "AP@100", "AP", "nDCG@10", "nDCG",
             "nDCG(gain=exp)@10", "Rprec", "bpref", "Judged@10", "CP@5", "Rcap@5",
             "P(rel=2)@5", "AP(judged_only=true)", "R(rel=2,judged_only=true)@10"]


@pytest.mark.parametrize("name", CANONICAL)
def test_canonical_names_parse_back(name: str) -> None:
    meas = parse_measure(name)
    assert meas.name == name
    assert parse_measure(meas.name) == meas
    assert meas.binary == (meas.family not in ("nDCG", "Judged"))


@pytest.mark.parametrize("text, name", [
    ("p@5", "P@5"), ("ndcg@10", "nDCG@10"), ("MRR@10", "RR@10"), ("MAP", "AP"),
    ("Success@5", "Hit@5"), ("P_5", "P@5"), ("recall_100", "R@100"), ("map", "AP"),
    ("map_cut_10", "AP@10"), ("ndcg_cut_10", "nDCG@10"), ("recip_rank", "RR"),
    ("success_1", "Hit@1"), (" nDCG( gain = 'exp' ) @ 10 ", "nDCG(gain=exp)@10"),
    ("AP(judged_only=True)", "AP(judged_only=true)"), ("AP(judged_only=false)", "AP"),
])
def test_aliases(text: str, name: str) -> None:
    assert parse_measure(text).name == name


@pytest.mark.parametrize("text, message", [
    ("nDGC@10", "unknown measure 'nDGC'; valid: 11pt_avg, AP, CP, G, Hit, Judged, P, R, RBP, "
                "RBP_resid, RR, Rcap, Rndcg, Rprec, Rprec_mult, binG, bpref, dcg, gm_bpref, "
                "gm_map, ideal_dcg, infAP, infNDCG, iprec_at_recall, nDCG, ndcg_rel, "
                "relative_P, relstring, set_F, set_P, set_map, set_relative_P, statAP, unj, "
                "utility, xinfAP, yaap (did you mean 'nDCG'?)"),
    ("P", "P needs a cutoff, e.g. P@10"),
    ("P@0", "P: cutoff must be a positive integer, got 0"),
    ("P@x", "measure 'P@x': cutoff 'x' is not an integer"),
    ("bpref@10", "bpref takes no cutoff (got @10)"),
    ("nDCG(rel=2)@10", "nDCG is graded and takes no rel= level"),
    ("P(gain=exp)@5", "P takes no gain (only nDCG and infNDCG do)"),
    ("nDCG(gain=log)@5", "unknown gain 'log'; valid: exp, linear"),
    # the valid parameters are those the family declares (P takes no gain)
    ("P(level=2)@5", "measure 'P(level=2)@5': unknown parameter 'level'; valid: judged_only, "
                     "rel"),
    ("P(rel=two)@5", "measure 'P(rel=two)@5': rel must be an integer, got 'two'"),
    ("P(rel)@5", "measure 'P(rel)@5': parameter 'rel' must be key=value"),
    ("AP(judged_only=maybe)", "measure 'AP(judged_only=maybe)': judged_only must be true or "
                              "false, got 'maybe'"),
    ("Judged(judged_only=true)@5", "Judged takes no judged_only"),
    ("P@5@6", "measure 'P@5@6': cutoff '5@6' is not an integer"),
    ("", "cannot read measure ''"),
])
def test_bad_names_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(PoolkitError) as info:
        parse_measure(text)
    assert str(info.value).startswith(message)


def test_registry_documents_every_family() -> None:
    for family in MEASURES.values():
        assert "=" in family.formula, family.name
    assert "Not the default" in MEASURES["Rcap"].doc
    assert "trec_eval" in MEASURES["bpref"].doc


def test_a_family_declares_its_parameters_and_parsing_follows(monkeypatch) -> None:
    """A new parameter (RBP's persistence p) is a declaration, not new parsing code."""
    from poolkit.params import Param
    from poolkit.score.families import precision
    from poolkit.score.measures import JUDGED_ONLY, REL, Family

    def toy(facts, k, level, measure):  # P@k scaled by p: enough to show p reaches it
        """Toy: P@k times p."""
        return float(measure.param("p")) * precision(facts, k, level, measure)

    family = Family("Toy", toy, "optional",
                    params=(REL, Param("p", (float,), 0.8, "persistence", minimum=0.0,
                                       maximum=1.0), JUDGED_ONLY))
    monkeypatch.setitem(MEASURES, "Toy", family)
    m = parse_measure("Toy(p=0.5,rel=2)@2")
    assert m.name == "Toy(rel=2,p=0.5)@2" and parse_measure(m.name) == m
    assert m.param("p") == 0.5 and parse_measure("Toy@2").param("p") == 0.8
    assert m.compute(["a", "b"], {"a": 2, "b": 1}) == 0.25
    with pytest.raises(PoolkitError, match="Toy.p must be at most 1, found 1.5|p must be at "
                                           "most 1, found 1.5"):
        parse_measure("Toy(p=1.5)@2")
    with pytest.raises(PoolkitError, match="measure 'Toy\\(p=x\\)': p must be a number, "
                                           "got 'x'"):
        parse_measure("Toy(p=x)")
    with pytest.raises(PoolkitError, match="Toy takes no gain"):
        parse_measure("Toy(gain=exp)")


# --------------------------------------------------------------------------------------------
# One family in one place: its interval method, condensed form and trec_eval names.


def test_a_family_carries_its_interval_condensed_form_and_trec_eval_names() -> None:
    from poolkit.score.measures import trec_names

    assert {f.name for f in MEASURES.values() if f.interval == "wilson"} == {"Hit"}
    assert m("Hit@10").interval == "wilson" and m("nDCG@10").interval == "bootstrap"
    assert m("AP").condensed() == m("AP(judged_only=true)")
    assert m("AP(judged_only=true)").condensed() is None  # already the condensed list
    assert m("bpref").condensed() is None and m("Judged@10").condensed() is None
    names = trec_names()
    assert {n: f.name for n, (f, _) in names.items()} == {
        "P": "P", "recall": "R", "set_recall": "R", "success": "Hit", "recip_rank": "RR",
        "map": "AP", "map_cut": "AP", "ndcg": "nDCG", "ndcg_cut": "nDCG", "Rprec": "Rprec",
        "bpref": "bpref", "infAP": "infAP", "rbp": "RBP", "rbp_resid": "RBP_resid",
        # trec_eval's measures beyond poolkit's own: a family each, named as trec_eval names it
        **{name: name for name in TREC_FAMILIES}}


@pytest.mark.parametrize("text, name", [
    ("rbp", "RBP(p=0.9)"), ("rbp_p=0.8", "RBP(p=0.8)"), ("rbp.p=0.5", "RBP(p=0.5)"),
    ("rbp_resid", "RBP_resid(p=0.9)"), ("rbp_resid_p=0.7", "RBP_resid(p=0.7)"),
    ("ndcg", "nDCG"), ("Rprec", "Rprec"), ("bpref", "bpref"), ("infAP", "infAP"),
    ("recall_1000", "R@1000"),
])
def test_trec_eval_names_read_with_trec_eval_s_defaults(text: str, name: str) -> None:
    assert parse_measure(text).name == name


@pytest.mark.parametrize("text, message", [
    ("set_recall", "unknown measure 'set_recall'"),  # trec-eval's alone; score spells it R
    ("map_p=0.5", "cannot read measure 'map_p=0.5'"),  # map takes no trec_eval parameter
    ("rbp_q=0.5", "cannot read measure 'rbp_q=0.5'"),
    ("rbp_p=x", "cannot read measure 'rbp_p=x'"),
    ("rbp_p=1.5", "RBP: p must be a number strictly between 0 and 1, got 1.5"),
    ("ndcg_10", "cannot read measure 'ndcg_10'"),  # ndcg has no per-cutoff name; ndcg_cut has
])
def test_trec_eval_names_score_does_not_read(text: str, message: str) -> None:
    with pytest.raises(PoolkitError) as info:
        parse_measure(text)
    assert str(info.value).startswith(message)


def test_a_new_family_s_trec_eval_name_and_interval_are_its_registry_entry(monkeypatch) -> None:
    """A family registered with a trec_eval name is read by that name and printed by
    ``poolkit trec-eval``'s machinery; its interval method reaches the intervals."""
    from poolkit.score.families import hit
    from poolkit.score.intervals import intervals
    from poolkit.score.measures import BINARY, Family, TrecName

    family = Family("Hit2", hit, "optional", params=BINARY, interval="wilson",
                    trec=(TrecName("success2", (1, 5)),))
    monkeypatch.setitem(MEASURES, "Hit2", family)
    assert parse_measure("success2_5") == Measure("Hit2", 5)
    per_query = {"Hit2@5": {"a": 1.0, "b": 0.0}, "P@5": {"a": 0.2, "b": 0.0}}
    cis = intervals(per_query, {"Hit2@5": "Hit2", "P@5": "P"}, ["a", "b"])
    assert cis["Hit2@5"].method == "wilson" and cis["P@5"].method == "bootstrap"


def test_a_new_shared_parameter_is_one_params_entry(monkeypatch) -> None:
    """PARAMS is the one mapping: a family that does not take a parameter refuses it with the
    entry's words, one that does reads it (in ``extra``) and spells it in its name."""
    from poolkit.params import Param
    from poolkit.score.families import precision
    from poolkit.score.measures import PARAMS, REL, Family

    depth = Param("depth", (int,), 1, "toy", minimum=1)
    monkeypatch.setitem(PARAMS, "depth", (depth, "takes no depth (only Toy does)"))
    monkeypatch.setitem(MEASURES, "Toy", Family("Toy", precision, "optional",
                                                params=(REL, depth), condensed=False))
    toy = parse_measure("Toy(depth=3)@5")
    assert toy.extra == (("depth", 3),) and toy.param("depth") == 3
    assert toy.name == "Toy(depth=3)@5" and parse_measure(toy.name) == toy
    with pytest.raises(PoolkitError, match="^P takes no depth \\(only Toy does\\)$"):
        parse_measure("P(depth=3)@5")
    with pytest.raises(PoolkitError, match="^P takes no depth \\(only Toy does\\)$"):
        Measure("P", 5, extra=(("depth", 3),))
