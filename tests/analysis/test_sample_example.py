"""The README's worked example on the bundled sample: a second assessor (bob,
``sample_corpus/assessor_b.yaml``) and an automatic judge (``sample_corpus/llm_judge.qrels``)
over the depth-10 pool of bm25, dense and rerank; ``agreement`` on the files, and the whole
loop (pool BM25 alone, judge, expand with dense and rerank, ``compare``, ``reusability``).
"""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from shared_data import REPO, SAMPLE

from poolkit.app.agreement import AgreementRequest, label_agreement
from poolkit.app.compare import CompareRequest, compare_labels
from poolkit.app.reusability import ReusabilityRequest, pool_reusability
from poolkit.cli import main
from poolkit.io import read_labels
from poolkit.reports import Report

sk = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")

BOB = SAMPLE / "assessor_b.yaml"
LLM = SAMPLE / "llm_judge.qrels"
SEED = SAMPLE / "golden.yaml"


def pairs(path: Path) -> dict[tuple[str, str], int]:
    return {(q, d): g for q, docs in read_labels(path).grades.items() for d, g in docs.items()}


def as_json(report: Report) -> dict:
    return json.loads(report.render("json"))


def test_sample_label_files_grade_the_same_pool_of_the_sample():
    bob, llm = pairs(BOB), pairs(LLM)
    assert bob.keys() == llm.keys() and len(bob) == 56
    assert set(bob.values()) == set(llm.values()) == {0, 1, 2, 3}
    queries = {json.loads(line)["id"] for line in (SAMPLE / "queries.jsonl").open()}
    docs = {json.loads(line)["id"] for line in (SAMPLE / "corpus.jsonl").open()}
    assert {q for q, _ in bob} == queries and {d for _, d in bob} <= docs
    # bob grades every truly relevant chunk relevant (q_broad's m2 is in nobody's top 10)
    truth = pairs(SAMPLE / "truth.qrels")
    assert truth.keys() - bob.keys() == {("q_broad", "m2")}
    assert all(bob[p] >= 1 for p in truth if p in bob)


def test_agreement_on_the_sample_files_matches_sklearn_and_krippendorff():
    doc = as_json(label_agreement(AgreementRequest(
        qrels=[f"seed={SEED}", f"bob={BOB}", f"llm={LLM}"], reference="bob")))
    grades = {"seed": pairs(SEED), "bob": pairs(BOB), "llm": pairs(LLM)}
    for p in doc["pairs"]:
        a, b = grades[p["a"]], grades[p["b"]]
        shared = sorted(a.keys() & b.keys())
        assert p["shared"] == len(shared)
        ga, gb = [a[x] for x in shared], [b[x] for x in shared]
        for w, skw in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
            assert p["kappa"][w] == pytest.approx(
                sk.cohen_kappa_score(ga, gb, labels=[0, 1, 2, 3], weights=skw), abs=1e-12)
    by = {(p["a"], p["b"]): p for p in doc["pairs"]}
    assert by[("seed", "bob")]["shared"] == 16  # golden's 17 pairs minus q_broad's unpooled m2
    assert by[("seed", "bob")]["notes"]  # golden holds no grade 0: binary kappa says nothing
    assert doc["flag"]["noisy"] == ["llm"]
    assert doc["flag"]["against_reference"]["seed"] >= 0.6
    # ... but 16 shared pairs leave its interval straddling 0.6: too few to tell.
    assert doc["flag"]["verdicts"] == {"seed": "undecided", "llm": "too noisy"}
    units = sorted(set().union(*grades.values()))
    data = [[g.get(u, float("nan")) for u in units] for g in grades.values()]
    assert doc["alpha"]["value"] == pytest.approx(krippendorff.alpha(
        reliability_data=data, value_domain=[0, 1, 2, 3], level_of_measurement="ordinal"))


@pytest.mark.slow
def test_the_loop_on_the_sample(tmp_path):
    """Pool BM25 alone, judge (bob's grades imported), expand with dense and rerank: the
    systems the first pool left out were underestimated by it and move up."""
    (tmp_path / "configs").mkdir()
    shutil.copy(REPO / "configs" / "sample.yaml", tmp_path / "configs" / "sample.yaml")
    (tmp_path / "sample_corpus").mkdir()
    for name in ("corpus.jsonl", "queries.jsonl"):
        shutil.copy(SAMPLE / name, tmp_path / "sample_corpus" / name)
    cfg = str(tmp_path / "configs" / "sample.yaml")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["pool", cfg, "--system", "bm25"]) == 0
        assert main(["import", cfg, str(BOB), "--as", "bob"]) == 0
        assert main(["pool", cfg]) == 0
    compare = as_json(compare_labels(CompareRequest([cfg])))
    assert compare["after"]["judged"] == compare["after"]["pooled"] == 53  # bob graded it all
    runs = {r["name"]: r for r in compare["runs"]}
    for name in ("dense", "rerank"):
        r = runs[name]
        assert r["pooled"] == {"before": False, "after": True}
        assert r["unjudged"]["10"]["before"] > 0 and r["unjudged"]["10"]["after"] == 0
        assert r["contribution"]["new_relevant"] >= 1
    for m in ("nDCG@10", "AP"):
        rank = runs["bm25"]["measures"][m]["rank"]
        assert (rank["before"], rank["after"]) == (1, 3), m  # the pool was built around it
        assert compare["ranking"][m]["kendall_tau"] < 0
    reuse = as_json(pool_reusability(ReusabilityRequest([cfg], groups=["neural=dense,rerank"])))
    assert set(reuse["leave_one_group_out"]["groups"]) == {"bm25", "neural"}
    assert reuse["single_run"]["relevant_pooled"] == compare["after"]["relevant"]
