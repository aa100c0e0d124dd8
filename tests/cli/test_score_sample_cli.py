"""``poolkit score --sample``: estimated measures from a sampled pool, R_est in the audit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from poolkit.cli import main
from poolkit.errors import InputError
from poolkit.io.sample import read_sample

# q1's pool: a, b (stratum top, all judged); c, d, e, f (deep: c and d judged, e is -1, f only
# in the sample file). The same numbers as the hand-computed example in test_inferred.py.
QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq1 0 d 0\nq1 0 e -1\n"
SAMPLE = ("# qid docid stratum inclusion_probability\n"
          "q1 a top 1\nq1 b top 1\nq1 c deep 0.5\nq1 d deep 0.5\nq1 e deep 0.5\n"
          "q1 f deep 0.5\n")
RUN = "q1 Q0 a 1 4 r\nq1 Q0 e 2 3 r\nq1 Q0 c 3 2 r\nq1 Q0 b 4 1 r\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str, str]:
    paths = []
    for name, text in (("labels.qrels", QRELS), ("pool.sample", SAMPLE), ("r.run", RUN)):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    return paths[0], paths[1], paths[2]


def test_sample_weights_the_estimators_and_the_audit_shows_r_est(files, capsys) -> None:
    qrels, sample, run = files
    code = main(["score", qrels, run, "--sample", sample, "-m", "xinfAP,statAP,infNDCG@3",
                 "-m", "infAP,RBP(p=0.5),RBP_resid(p=0.5)", "-k", "3", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    (r,) = doc["runs"]
    means = {name: m["mean"] for name, m in r["measures"].items()}
    assert means["statAP"] == pytest.approx((1 + 2 * 2 / 3) / 3)
    assert means["xinfAP"] == pytest.approx(0.888887, abs=1e-6)
    assert r["measures"]["statAP"]["ci"]["method"] == "bootstrap"
    # infAP reads the qrels alone: a, c relevant judged; c at rank 3 with a, e above
    # (2 pooled, 1 judged, 1 relevant): (1 + 1/3 + 2/3 * (1+eps)/(1+2eps)) / 2
    assert means["infAP"] == pytest.approx((1 + 1 / 3 + 2 / 3) / 2, abs=1e-4)
    assert means["RBP(p=0.5)"] == pytest.approx(0.5 + 0.125 * 0.5)
    est = r["audit"]["queries"]["q1"]["rel_est"]
    assert (est["value"], est["low"], est["high"], est["pooled"]) == (3.0, 2.0, 4.0, 6)


def test_table_prints_r_est_beside_rel(files, capsys) -> None:
    qrels, sample, run = files
    assert main(["score", qrels, run, "--sample", sample, "-k", "3", "--per-query"]) == 0
    assert "2 (R_est 3.0 [2.0, 4.0])" in capsys.readouterr().out


def test_unjudged_grades_alone_make_r_est_appear(files, capsys) -> None:
    qrels, _, run = files
    assert main(["score", qrels, run, "-k", "3", "--format", "json"]) == 0
    est = json.loads(capsys.readouterr().out)["runs"][0]["audit"]["queries"]["q1"]["rel_est"]
    # One uniform stratum from the qrels: 2 relevant of 4 judged, 5 pooled.
    assert est["value"] == pytest.approx(2.5) and est["pooled"] == 5


def test_fully_judged_labels_have_no_r_est(tmp_path: Path, capsys) -> None:
    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 2 r\n")
    assert main(["score", str(tmp_path / "q"), str(tmp_path / "r"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["audit"]["queries"]["q1"][
        "rel_est"] is None


@pytest.mark.parametrize("text, message", [
    ("q1 a top\n", ":1: expected 4 or 5 columns"),
    ("q1 a top x\n", ":1: inclusion probability 'x' is not a number"),
    ("# c\nq1 a top 0\n", ":2: inclusion probability 0 is outside"),
    ("q1 a top 1\nq1 a top 1\n", ":2: pair \\(q1, a\\) is listed twice"),
    ("# only a comment\n", "no sample lines"),
    ("q1 a top 1 1\nq1 b top 1\n", ":2: expected 5 columns"),
    ("q1 a top 1 first\n", ":1: drawn 'first' is not 0 \\(not drawn\\) or a place"),
])
def test_bad_sample_file_is_one_line_naming_file_and_line(files, tmp_path: Path, capsys,
                                                          text: str, message: str) -> None:
    qrels, _, run = files
    bad = tmp_path / "bad.sample"
    bad.write_text(text)
    with pytest.raises(InputError, match=message):
        read_sample(bad)
    before = {p: Path(p).read_bytes() for p in (qrels, run, bad)}
    assert main(["score", qrels, run, "--sample", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.sample" in err[0]
    assert {p: Path(p).read_bytes() for p in before} == before

