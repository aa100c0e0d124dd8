"""The audit beside the figures, and the --fail-on conditions built on it."""

from __future__ import annotations

import pytest

from poolkit.errors import PoolkitError
from poolkit.io import Qrels, Run
from poolkit.score import evaluate
from poolkit.score.audit import (
    FAIL_ON,
    Audit,
    audit_measures,
    audit_run,
    check_fail_on,
    parse_fail_on,
    repeats_of,
    truth_table,
)

# Seed 000's audit() calls: judged grades and top-5 rankings, corpus of 24 chunks.
GRADES = {
    "q_faw": {"m1": 3, "m2": 2, "m3": 1},
    "q_store": {"s1": 3, "s2": 2, "s3": 1},
    "q_milk": {"d1": 3, "d2": 2, "d3": 1},
    "q_broad": {"m1": 3, "m2": 3, "m3": 2, "m4": 2, "m5": 1, "m6": 1, "s1": 2, "s2": 1},
    "q_dupe": {"d1": 3, "d2": 2, "d3": 1},
}
TOP5 = {
    "q_faw": ["m2", "x3", "m1", "p1", "d2"],
    "q_store": ["d2", "s2", "x4", "s1", "p2"],
    "q_milk": ["d1", "s2", "x1", "d2", "x3"],
    "q_broad": ["m1", "s1", "m2", "m3", "x1"],
    "q_dupe": ["d1", "d1", "x3", "d2", "x1"],
}


def run_audit(grades: dict, rankings: dict, ks: list[int], *, level: int = 1,
              depth: int | None = None, corpus_size: int | None = 24) -> Audit:
    qrels, run = Qrels.from_mapping(grades), Run.from_mapping(rankings)
    ev = evaluate(qrels, run, audit_measures(ks), level=level, depth=depth)
    return audit_run(qrels, run, ev, ks, level=level, depth=depth, corpus_size=corpus_size)


@pytest.fixture(scope="module")
def seed_audit() -> Audit:
    return run_audit(GRADES, TOP5, [5])


def line(audit: Audit, qid: str, k: int = 5) -> str:
    """Seed 000's audit line, rebuilt from the audit's numbers at the seed's precision."""
    q = audit.queries[qid]
    a = q.at[k]
    return (f"{qid} |Rel|={q.rel} k={k} labels={q.labels:.1%} ceiling={a.ceiling:.3f} "
            f"R@k={a.recall:.3f} ({a.share:.0%} of ceiling)")


@pytest.mark.parametrize("qid, expected", [
    ("q_faw", "q_faw |Rel|=3 k=5 labels=12.5% ceiling=1.000 R@k=0.667 (67% of ceiling)"),
    ("q_store", "q_store |Rel|=3 k=5 labels=12.5% ceiling=1.000 R@k=0.667 (67% of ceiling)"),
    ("q_milk", "q_milk |Rel|=3 k=5 labels=12.5% ceiling=1.000 R@k=0.667 (67% of ceiling)"),
    ("q_broad", "q_broad |Rel|=8 k=5 labels=33.3% ceiling=0.625 R@k=0.500 (80% of ceiling)"),
    ("q_dupe", "q_dupe |Rel|=3 k=5 labels=12.5% ceiling=1.000 R@k=0.667 (67% of ceiling)"),
])
def test_seed000_audit_lines(seed_audit: Audit, qid: str, expected: str) -> None:
    assert line(seed_audit, qid) == expected


def test_seed000_precision_cap_warning(seed_audit: Audit) -> None:
    for qid in ("q_faw", "q_store", "q_milk", "q_dupe"):
        assert "|Rel|=3 < k=5: Precision@k can never exceed 0.60" in \
            seed_audit.queries[qid].at[5].warnings
    assert not any("Precision" in w for w in seed_audit.queries["q_broad"].all_warnings)
    broad = seed_audit.queries["q_broad"].at[5].warnings
    assert "|Rel|=8 > k=5: R@k can never exceed 0.625" in broad


def test_seed000_q_dupe_positional_vs_distinct(seed_audit: Audit) -> None:
    q = seed_audit.queries["q_dupe"]
    assert (q.at[5].positional_hits, q.at[5].distinct_hits) == (3, 2)
    assert (q.repeats, q.repeated_ids) == (1, ["d1"])
    assert "positional count 3 hits vs distinct 2 at k=5: a repeated id would count a hit twice" \
        in q.at[5].warnings
    assert q.warnings == ["repeated ids in the ranking: d1 (1 repeated slot; only the first "
                          "occurrence scores)"]
    faw = seed_audit.queries["q_faw"]
    assert (faw.at[5].positional_hits, faw.at[5].distinct_hits, faw.repeats) == (2, 2, 0)


def test_judged_at_k_comes_from_the_evaluation(seed_audit: Audit) -> None:
    assert seed_audit.queries["q_faw"].at[5].judged == pytest.approx(2 / 5)
    assert seed_audit.queries["q_dupe"].at[5].judged == pytest.approx(3 / 5)  # d1 twice, d2


def test_summary(seed_audit: Audit) -> None:
    s = seed_audit.summary()
    assert s["scored"] == 5 and s["excluded"] == [] and s["missing"] == []
    at = s["at"]["5"]
    assert at["rel_lt_k"] == ["q_faw", "q_store", "q_milk", "q_dupe"]
    assert at["rel_gt_k"] == ["q_broad"]
    assert at["positional_hits"] == 2 + 2 + 2 + 4 + 3 and at["distinct_hits"] == 12
    assert at["mean_ceiling"] == pytest.approx((4 + 0.625) / 5)
    assert s["repeats"] == {"queries": ["q_dupe"], "slots": 1}
    assert (s["labels"]["min"], s["labels"]["max"]) == pytest.approx((3 / 24, 8 / 24))
    d = seed_audit.to_dict()
    assert d["k"] == [5] and d["queries"]["q_broad"]["at"]["5"]["share_of_ceiling"] == 0.8


def test_excluded_missing_unknown_and_no_results() -> None:
    grades = {"a": {"x": 1}, "b": {"y": 0}, "c": {"z": 2}}
    audit = run_audit(grades, {"a": ["x"], "zz": ["x"]}, [5], corpus_size=None)
    assert list(audit.queries) == ["a", "c"]
    assert (audit.excluded, audit.missing, audit.unknown) == (["b"], ["c"], ["zz"])
    assert audit.queries["c"].warnings == ["no results: scores 0 on every measure"]
    assert audit.queries["a"].labels is None and audit.summary()["labels"] is None


def test_level_and_depth() -> None:
    grades = {"q": {"a": 2, "b": 1, "c": 1}}
    ranking = {"q": ["a", "b", "a", "c"]}
    strict = run_audit(grades, ranking, [2], level=2)
    assert strict.queries["q"].rel == 1 and strict.queries["q"].judged == 3
    cut = run_audit(grades, ranking, [2], depth=2)
    assert cut.queries["q"].repeats == 0 and cut.queries["q"].results == 2
    full = run_audit(grades, ranking, [4])
    assert full.queries["q"].repeats == 1
    at4 = full.queries["q"].at[4]
    assert (at4.positional_hits, at4.distinct_hits) == (4, 3)


def test_repeats_of() -> None:
    assert repeats_of(["a", "b"]) == (0, [])
    assert repeats_of(["a", "b", "a", "c", "b", "a"]) == (3, ["a", "b"])


def test_truth_table_q_broad() -> None:
    truth = {q: {d: 1 for d in g} for q, g in GRADES.items() if q != "q_dupe"}
    truth["q_broad"] = {d: 1 for d in
                        ["m1", "m2", "m3", "m4", "m5", "m6", "s1", "s2", "s3", "s4", "x1", "x2"]}
    rankings = {q: TOP5[q] for q in truth}
    qrels, true_q, run = (Qrels.from_mapping({q: GRADES[q] for q in truth}),
                          Qrels.from_mapping(truth), Run.from_mapping(rankings))
    ev = evaluate(qrels, run, audit_measures([5]))
    tev = evaluate(true_q, run, audit_measures([5]))
    rows = truth_table(qrels, true_q, ev, tev, [5]).rows
    assert (rows["q_broad"]["judged"], rows["q_broad"]["true"]) == (8, 12)
    rec = rows["q_broad"]["recall"]["5"]
    assert (f"{rec['judged']:.3f}", f"{rec['true']:.3f}") == ("0.500", "0.417")
    assert rows["q_faw"]["recall"]["5"] == {"judged": pytest.approx(2 / 3),
                                            "true": pytest.approx(2 / 3)}


# --- --fail-on ----------------------------------------------------------------------------------

def test_fail_on_names() -> None:
    assert list(FAIL_ON) == ["rel-lt-k", "repeats", "coverage", "unjudged", "no-results",
                             "excluded", "unknown"]
    conds = parse_fail_on(["rel-lt-k,repeats", "coverage<0.2", "unjudged>10%", " no-results "])
    assert [c.text for c in conds] == ["rel-lt-k", "repeats", "coverage<0.2", "unjudged>0.1",
                                       "no-results"]


@pytest.mark.parametrize("text, message", [
    ("repeat", "--fail-on: unknown condition 'repeat'; valid: coverage<X, excluded, no-results, "
               "rel-lt-k, repeats, unjudged>X, unknown (did you mean 'repeats'?)"),
    ("coverage", "--fail-on: condition 'coverage' needs a threshold, written coverage<X "
                 "(got 'coverage')"),
    ("coverage>0.2", "--fail-on: condition 'coverage' needs a threshold, written coverage<X "
                     "(got 'coverage>0.2')"),
    ("unjudged>lots", "--fail-on: threshold 'lots' of 'unjudged' is not a number"),
    ("unjudged>1.5", "--fail-on: threshold '1.5' of 'unjudged' must be a fraction between 0 "
                     "and 1"),
    ("repeats>0", "--fail-on: condition 'repeats' takes no threshold (got 'repeats>0')"),
])
def test_fail_on_errors(text: str, message: str) -> None:
    with pytest.raises(PoolkitError) as err:
        parse_fail_on([text])
    assert str(err.value) == message


def test_check_fail_on(seed_audit: Audit) -> None:
    def held(cond: str, audit: Audit = seed_audit) -> list[list[str]]:
        return [f.queries for f in check_fail_on(parse_fail_on([cond]), [("seed", audit)])]

    assert held("rel-lt-k") == [["q_faw", "q_store", "q_milk", "q_dupe"]]
    assert held("repeats") == [["q_dupe"]]
    assert held("coverage<0.2") == [["q_faw", "q_store", "q_milk", "q_dupe"]]
    assert held("coverage<0.1") == []
    assert held("unjudged>0.5") == [["q_faw", "q_store", "q_milk"]]  # 3 of 5 unjudged
    assert held("unjudged>0.6") == []
    assert held("no-results") == [] and held("excluded") == [] and held("unknown") == []
    other = run_audit({"a": {"x": 1}, "b": {"y": 0}, "c": {"z": 1}}, {"a": ["x"], "zz": ["x"]}, [1])
    assert held("no-results", other) == [["c"]]
    assert held("unjudged>0.5", other) == []  # c has no results, hence no unjudged ids
    assert held("excluded", other) == [["b"]]
    assert held("unknown", other) == [["zz"]]
    failure = check_fail_on(parse_fail_on(["repeats"]), [("seed.run", seed_audit)])[0]
    assert failure.message == "repeats held for run 'seed.run' on 1 query: q_dupe"


def test_coverage_needs_a_corpus_size() -> None:
    audit = run_audit({"a": {"x": 1}}, {"a": ["x"]}, [1], corpus_size=None)
    with pytest.raises(PoolkitError, match="needs the corpus size"):
        check_fail_on(parse_fail_on(["coverage<0.5"]), [("r", audit)])
