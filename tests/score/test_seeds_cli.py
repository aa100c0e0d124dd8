"""Every number seeds 000 and 002 print, from files, through ``poolkit score``.

Seed 000: sample_corpus/golden.yaml + seed.run (+ truth.qrels, corpus.jsonl) and the small
fixtures under tests/data/seed000 (q_dupe, the reordered q_milk list). Seed 002: the ten-query
sample rebuilt under tests/data/seed002 (its README says how it fits each stated fact).
The seeds' own text is in ../shared/seeds; the numbers are copied here as the spec.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from poolkit.cli import main

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_corpus"
GOLDEN = str(SAMPLE / "golden.yaml")
SEED_RUN = str(SAMPLE / "seed.run")
TRUTH = str(SAMPLE / "truth.qrels")
DATA = REPO / "tests" / "data"
DUPE_QRELS, DUPE_RUN = str(DATA / "seed000" / "q_dupe.qrels"), str(DATA / "seed000" / "q_dupe.json")
BURIED = str(DATA / "seed000" / "q_milk_buried.json")
S2_QRELS = str(DATA / "seed002" / "sample.qrels")
S2_RUN = str(DATA / "seed002" / "sample_run.json")

SEED_MEASURES = ["-m", "P@5", "-m", "R@5", "-m", "Rcap@5", "-m", "RR", "-m", "nDCG@5"]


def score(capsys: pytest.CaptureFixture[str], *args: str, code: int = 0) -> str:
    got = main(["score", *args])
    out, err = capsys.readouterr()
    assert got == code, err
    return out


def score_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    return json.loads(score(capsys, *args, "--format", "json"))


def rows(text: str, first: str) -> list[list[str]]:
    """Whitespace-split lines of ``text`` whose first token is ``first``."""
    return [line.split() for line in text.splitlines() if line.split()[:1] == [first]]


def f3(x: float | None) -> str:
    assert x is not None
    return f"{x:.3f}"


# --------------------------------------------------------------------------------------------
# Seed 000

SEED000_TABLE = {  # query: |Rel|, P@5, R@5, R@5cap, MRR, nDCG@5
    "q_faw": ("3", "0.400", "0.667", "0.667", "1.000", "0.735"),
    "q_store": ("3", "0.400", "0.667", "0.667", "0.500", "0.536"),
    "q_milk": ("3", "0.400", "0.667", "0.667", "1.000", "0.811"),
    "q_broad": ("8", "0.800", "0.500", "0.800", "1.000", "0.880"),
}


def test_seed000_metric_table_and_means(capsys: pytest.CaptureFixture[str]) -> None:
    doc = score_json(capsys, GOLDEN, SEED_RUN, "-k", "5", *SEED_MEASURES)
    (run,) = doc["runs"]
    m = run["measures"]
    assert list(m) == ["P@5", "R@5", "Rcap@5", "RR", "nDCG@5"]
    for qid, (rel, *values) in SEED000_TABLE.items():
        assert str(run["audit"]["queries"][qid]["rel"]) == rel
        assert [f3(m[name]["per_query"][qid]) for name in m] == values, qid
    means = {name: f3(m[name]["mean"]) for name in m}
    assert means == {"P@5": "0.500", "R@5": "0.625", "Rcap@5": "0.700", "RR": "0.875",
                     "nDCG@5": "0.741"}
    assert doc["settings"]["k"] == [5] and run["queries"]["scored"] == 4


def test_seed000_metric_table_as_printed(capsys: pytest.CaptureFixture[str]) -> None:
    out = score(capsys, GOLDEN, SEED_RUN, "-k", "5", *SEED_MEASURES, "--per-query")
    for qid, (_rel, *values) in SEED000_TABLE.items():
        assert [qid, *values] in rows(out, qid)
    assert ["mean", "0.500", "0.625", "0.700", "0.875", "0.741"] in rows(out, "mean")


def test_seed000_label_coverage_table(capsys: pytest.CaptureFixture[str]) -> None:
    expected = {  # judged, true, R@5 judged, R@5 true
        "q_faw": ["3", "3", "0.667", "0.667"],
        "q_store": ["3", "3", "0.667", "0.667"],
        "q_milk": ["3", "3", "0.667", "0.667"],
        "q_broad": ["8", "12", "0.500", "0.417"],
    }
    doc = score_json(capsys, GOLDEN, SEED_RUN, "-k", "5", "--truth", TRUTH)
    tt = doc["runs"][0]["truth"]["per_query"]
    for qid, (judged, true, rj, rt) in expected.items():
        row = tt[qid]
        assert [str(row["judged"]), str(row["true"]), f3(row["recall"]["5"]["judged"]),
                f3(row["recall"]["5"]["true"])] == [judged, true, rj, rt]
    assert doc["truth"]["name"] == "truth.qrels" and len(doc["truth"]["sha256"]) == 64
    out = score(capsys, GOLDEN, SEED_RUN, "-k", "5", "--truth", TRUTH)
    assert "R@5 judged" in out and "R@5 true" in out
    for qid, values in expected.items():
        assert [qid, *values] in rows(out, qid)


SEED000_STAGES = {  # R@10, R@5, lost by reranker
    "q_faw": ["1.000", "0.667", "0.333"],
    "q_store": ["1.000", "0.667", "0.333"],
    "q_milk": ["1.000", "0.667", "0.333"],
    "q_broad": ["1.000", "0.500", "0.500"],
}


def _stage_rows(doc: dict[str, Any]) -> dict[str, list[str]]:
    st = doc["runs"][0]["stages"]
    return {q: [f3(r["fetch"]), f3(r["keep"]), f3(r["loss"])] for q, r in st["per_query"].items()}


def test_seed000_stage_table_one_run_two_depths(capsys: pytest.CaptureFixture[str]) -> None:
    doc = score_json(capsys, GOLDEN, SEED_RUN, "-k", "5", "--stages", "10,5")
    assert _stage_rows(doc) == SEED000_STAGES
    st = doc["runs"][0]["stages"]
    assert (st["fetch"]["k"], st["keep"]["k"]) == (10, 5)
    out = score(capsys, GOLDEN, SEED_RUN, "-k", "5", "--stages", "10,5")
    assert "R@10 fetch" in out and "R@5 keep" in out
    for qid, values in SEED000_STAGES.items():
        assert [qid, *values] in rows(out, qid)


def test_seed000_stage_table_fetch_and_keep_runs(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    keep = tmp_path / "keep.run"
    keep.write_text("".join(line for line in Path(SEED_RUN).read_text().splitlines(True)
                            if int(line.split()[3]) <= 5))
    doc = score_json(capsys, GOLDEN, str(keep), "--fetch", SEED_RUN, "-k", "5")
    assert _stage_rows(doc) == SEED000_STAGES  # default depths: the fetch list's 10, first K
    st = doc["runs"][0]["stages"]
    assert (st["fetch"]["name"], st["keep"]["name"]) == ("seed.run", "keep.run")
    doc = score_json(capsys, GOLDEN, str(keep), "--fetch", SEED_RUN, "--stages", "10,5")
    assert _stage_rows(doc) == SEED000_STAGES


def test_seed000_reordering_block(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["-m", "P@5", "-m", "R@5", "-m", "RR", "-m", "nDCG@5"]
    buried = score_json(capsys, GOLDEN, BURIED, *args)["runs"][0]["measures"]
    was = score_json(capsys, GOLDEN, SEED_RUN, *args)["runs"][0]["measures"]
    got = {n: (f3(buried[n]["per_query"]["q_milk"]), f3(was[n]["per_query"]["q_milk"]))
           for n in buried}
    assert got == {"P@5": ("0.400", "0.400"), "R@5": ("0.667", "0.667"),
                   "RR": ("0.333", "1.000"), "nDCG@5": ("0.481", "0.811")}


AUDIT_LINES = {  # |Rel|, labels, ceiling, R@k, share of ceiling
    "q_faw": ["3", "12.5%", "1.000", "0.667", "67%"],
    "q_store": ["3", "12.5%", "1.000", "0.667", "67%"],
    "q_milk": ["3", "12.5%", "1.000", "0.667", "67%"],
    "q_broad": ["8", "33.3%", "0.625", "0.500", "80%"],
}
PRECISION_CAP = "! |Rel|=3 < k=5: Precision@k can never exceed 0.60"


@pytest.mark.parametrize("corpus", [["--corpus-size", "24"],
                                    ["--corpus", str(SAMPLE / "corpus.jsonl")]])
def test_seed000_audit_lines(capsys: pytest.CaptureFixture[str], corpus: list[str]) -> None:
    out = score(capsys, GOLDEN, SEED_RUN, "-k", "5", "--per-query", *corpus)
    lines = out.splitlines()
    for qid, values in AUDIT_LINES.items():
        audit_rows = [r for r in rows(out, qid) if len(r) == 9]  # the audit table's rows
        assert len(audit_rows) == 1 and audit_rows[0][1:6] == values, qid
        at = next(i for i, s in enumerate(lines) if s.split() == audit_rows[0])
        if qid == "q_broad":
            assert PRECISION_CAP not in lines[at + 1]
        else:
            assert lines[at + 1].strip() == PRECISION_CAP
    doc = score_json(capsys, GOLDEN, SEED_RUN, "-k", "5", *corpus)
    q = doc["runs"][0]["audit"]["queries"]
    assert f"{q['q_broad']['labels']:.1%}" == "33.3%"
    assert q["q_broad"]["at"]["5"]["share_of_ceiling"] == 0.8


def test_seed000_q_dupe_audit(capsys: pytest.CaptureFixture[str]) -> None:
    out = score(capsys, DUPE_QRELS, DUPE_RUN, "-k", "5", "--corpus-size", "24", "--verbose")
    (row,) = [r for r in rows(out, "q_dupe") if len(r) == 9]
    assert row == ["q_dupe", "3", "12.5%", "1.000", "0.667", "67%", "0.600", "3/2", "1"]
    assert "! repeated ids in the ranking: d1 (1 repeated slot; only the first occurrence " \
           "scores)" in out
    assert PRECISION_CAP in out
    assert "! positional count 3 hits vs distinct 2 at k=5: a repeated id would count a hit " \
           "twice" in out
    doc = score_json(capsys, DUPE_QRELS, DUPE_RUN, "-k", "5")
    at = doc["runs"][0]["audit"]["queries"]["q_dupe"]["at"]["5"]
    assert (at["positional_hits"], at["distinct_hits"], f3(at["recall"])) == (3, 2, "0.667")
    assert doc["runs"][0]["measures"]["P@5"]["per_query"]["q_dupe"] == 0.4


def test_seed000_fail_on_gates(capsys: pytest.CaptureFixture[str]) -> None:
    out = score(capsys, GOLDEN, SEED_RUN, "-k", "5", "--fail-on", "rel-lt-k", code=3)
    assert "fail-on rel-lt-k: FAILED" in out  # the report is printed, then the exit says no
    score(capsys, GOLDEN, SEED_RUN, "-k", "5", "--fail-on", "repeats,no-results")
    score(capsys, DUPE_QRELS, DUPE_RUN, "-k", "5", "--fail-on", "repeats", code=3)
    score(capsys, GOLDEN, SEED_RUN, "-k", "5", "--corpus-size", "24",
          "--fail-on", "coverage<0.2", code=3)
    score(capsys, GOLDEN, SEED_RUN, "-k", "5", "--corpus-size", "24",
          "--fail-on", "coverage<0.1")


# --------------------------------------------------------------------------------------------
# Seed 002: the ten-query preloaded sample

@pytest.fixture(scope="module")
def sample002() -> dict[str, Any]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):  # capsys is function-scoped
        code = main(["score", S2_QRELS, S2_RUN, "-k", "5,10", "-m", "P@5", "-m", "R@5",
                     "-m", "Rcap@5", "-m", "Hit@5", "-m", "Hit@10", "-m", "AP@5", "-m", "RR",
                     "--format", "json"])
    assert code == 0
    return json.loads(buf.getvalue())["runs"][0]


def pq(run: dict[str, Any], name: str) -> dict[str, float]:
    return run["measures"][name]["per_query"]


def test_seed002_scored_and_excluded(sample002: dict[str, Any]) -> None:
    assert sample002["queries"]["scored"] == 9
    assert sample002["queries"]["excluded"] == ["q08"]
    assert "q08" not in pq(sample002, "R@5")


def test_seed002_recall_mean(sample002: dict[str, Any]) -> None:
    assert f3(sample002["measures"]["R@5"]["mean"]) == "0.676"


def test_seed002_full_partial_miss_late(sample002: dict[str, Any]) -> None:
    r5 = pq(sample002, "R@5")
    assert sorted(q for q, v in r5.items() if v == 1.0) == ["q01", "q02", "q05", "q07", "q10"]
    ap = pq(sample002, "AP@5")
    assert f3(ap["q07"]) == "1.000" and f3(ap["q02"]) == "0.333"
    audit = sample002["audit"]["queries"]
    assert (audit["q07"]["rel"], audit["q02"]["rel"]) == (2, 1)
    # partial: q04 finds 3 of 4, q09 2 of 6 (0.333 by every relevant id, 0.400 by min(|Rel|, K))
    assert (audit["q04"]["rel"], audit["q04"]["at"]["5"]["distinct_hits"]) == (4, 3)
    assert f3(r5["q04"]) == "0.750"
    assert (audit["q09"]["rel"], audit["q09"]["at"]["5"]["distinct_hits"]) == (6, 2)
    assert (f3(r5["q09"]), f3(pq(sample002, "Rcap@5")["q09"])) == ("0.333", "0.400")
    # miss: q06's relevant ids never appear, at any depth
    assert pq(sample002, "Hit@10")["q06"] == 0.0 and pq(sample002, "RR")["q06"] == 0.0
    # late hit: q03's first relevant id at rank 6, so K = 6 would reach it
    assert pq(sample002, "Hit@5")["q03"] == 0.0 and pq(sample002, "Hit@10")["q03"] == 1.0
    assert f3(pq(sample002, "RR")["q03"]) == f3(1 / 6)


def test_seed002_repeat_scores_as_non_relevant(sample002: dict[str, Any]) -> None:
    assert pq(sample002, "P@5")["q10"] == 0.4
    q10 = sample002["audit"]["queries"]["q10"]
    assert q10["repeated_ids"] == ["d05"]
    assert (q10["at"]["5"]["positional_hits"], q10["at"]["5"]["distinct_hits"]) == (3, 2)
    assert q10["at"]["5"]["positional_hits"] / 5 == 0.6  # what counting the repeat would say


def test_seed002_hit_rates_and_wilson(sample002: dict[str, Any],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    hit5 = sample002["measures"]["Hit@5"]
    assert f3(hit5["mean"]) == "0.778" and sum(hit5["per_query"].values()) == 7
    assert (f3(hit5["ci"]["low"]), f3(hit5["ci"]["high"]), hit5["ci"]["method"]) == \
        ("0.453", "0.937", "wilson")
    assert f3(sample002["measures"]["Hit@10"]["mean"]) == "0.889"
    assert sample002["measures"]["R@5"]["ci"]["method"] == "bootstrap"
    out = score(capsys, S2_QRELS, S2_RUN, "-m", "Hit@5")
    assert ["Hit@5", "0.778", "[0.453,", "0.937]", "wilson"] in rows(out, "Hit@5")


def test_seed002_bootstrap_is_reproducible(capsys: pytest.CaptureFixture[str],
                                           sample002: dict[str, Any]) -> None:
    again = score_json(capsys, S2_QRELS, S2_RUN, "-m", "R@5")["runs"][0]["measures"]["R@5"]
    assert again["ci"] == sample002["measures"]["R@5"]["ci"]
    assert again["ci"]["resamples"] == 1000
