"""`poolkit trec-eval`'s own rules: trec_eval's conventions where they differ from `poolkit
score`, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from poolkit.cli import main
from poolkit.score.trec_eval import TREC_MEASURES, select_measures

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 0\nq3 0 d9 2\n"  # q2: judged, nothing relevant
RUN = ("q1 Q0 d2 1 3.0 first\nq1 Q0 d1 2 2.0 first\nq2 Q0 d3 1 1.0 first\n"
       "q9 Q0 d1 1 1.0 last\n")  # q3 missing, q9 unknown


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["trec-eval", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def test_a_query_without_relevant_documents_is_averaged_as_zero(
        capsys: pytest.CaptureFixture[str], files: tuple[str, str]) -> None:
    code, out, _ = run_cli(capsys, "-m", "map", "-m", "num_q", "-m", "runid", *files)
    assert code == 0
    # q1 AP 0.5, q2 (nothing relevant) 0; q3 is missing from the run and skipped (no -c)
    assert out == ("runid                 \tall\tlast\n"
                   "num_q                 \tall\t2\n"
                   "map                   \tall\t0.2500\n")
    code, out, _ = run_cli(capsys, "-c", "-m", "map", "-m", "num_q", *files)
    assert out == "num_q                 \tall\t3\nmap                   \tall\t0.1667\n"
    # poolkit score leaves q2 out of the mean and counts it; q3 scores 0 (as with -c)
    code = main(["score", *files, "-m", "AP", "--format", "json"])
    result = json.loads(capsys.readouterr().out)["runs"][0]
    assert code == 0 and result["measures"]["AP"]["mean"] == pytest.approx(0.25)
    assert result["queries"]["excluded"] == ["q2"] and result["queries"]["missing"] == ["q3"]


def test_per_query_lines_follow_query_id_byte_order(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("b 0 d 1\nB 0 d 1\n10 0 d 1\n9 0 d 1\n")
    (tmp_path / "run").write_text("".join(f"{q} Q0 d 1 1 t\n" for q in ("b", "B", "10", "9")))
    code, out, _ = run_cli(capsys, "-q", "-n", "-m", "num_ret", str(tmp_path / "qrels"),
                           str(tmp_path / "run"))
    assert code == 0 and [line.split("\t")[1] for line in out.splitlines()] == \
        ["10", "9", "B", "b"]


@pytest.mark.parametrize(("measure", "message"), [
    ("prefs_simp", "measure 'prefs_simp' is trec_eval's but poolkit does not compute it"),
    ("map_avgjg", "measure 'map_avgjg' is trec_eval's but poolkit does not"),
    ("iprec_at_recall.0.5,0.50", "-m iprec_at_recall.0.5,0.50: a cutoff is given twice"),
    ("Rprec_mult.x", "-m Rprec_mult.x: 'x' is not a number"),
    ("set_F.1,y", "-m set_F.1,y: 'y' is not a number"),
    ("G.x=3", "-m G.x=3: G takes a gain per grade, GRADE=GAIN (trec_eval would ignore 'x' "
              "and print it as G_x=3)"),
    ("ndcg.1=2,1=3", "-m ndcg.1=2,1=3: grade 1 is given twice"),
    ("ndcg.1=high", "-m ndcg.1=high: the gain 'high' of grade 1 is not a number"),
    ("Rndcg.1", "-m Rndcg.1: expected GRADE=GAIN parameters (e.g. -m Rndcg.1=0.5,2=3)"),
    ("rbp.1=3", "-m rbp.1=3: rbp takes only p="),
    ("set_recall.1=3", "poolkit computes set_recall only with its default parameters"),
    ("mapp", "unknown trec_eval measure 'mapp'"),
    ("P.0,5", "-m P.0,5: cutoffs must be positive"),
    ("P.5,5", "-m P.5,5: a cutoff is given twice"),
    ("P.x", "-m P.x: cutoff 'x' is not an integer"),
    ("ndcg.1=3 -m dcg", "-m ndcg with gains beside -m dcg: trec_eval scores dcg, ideal_dcg "
                        "and ndcg with one gain table"),
    ("rbp.0.8", "-m rbp.0.8: expected KEY=VALUE parameters (rbp takes p=, e.g. -m rbp.p=0.8)"),
    ("rbp.p=", "-m rbp.p=: expected KEY=VALUE parameters"),
    ("rbp.q=0.8", "-m rbp.q=0.8: rbp takes only p= (trec_eval would ignore 'q', use p=0.9 "
                  "and print it as rbp_q=0.8)"),
    ("rbp.p=0.8,p=0.5", "-m rbp.p=0.8,p=0.5: p is given twice"),
    ("rbp.p=abc", "-m rbp.p=abc: p 'abc' is not a number (trec_eval would read it as 0)"),
    ("rbp_resid.p=0.8x", "-m rbp_resid.p=0.8x: p '0.8x' is not a number (trec_eval would "
                         "read it as 0.8)"),
    ("rbp.p=1_0", "-m rbp.p=1_0: p '1_0' is not a number (trec_eval would read it as 1)"),
    ("rbp.p=1.5", "-m rbp.p=1.5: p must be a number strictly between 0 and 1"),
    ("rbp_resid.p=0", "-m rbp_resid.p=0: p must be a number strictly between 0 and 1"),
    ("rbp.p=nan", "-m rbp.p=nan: RBP.p must be a finite number, found nan"),
])
def test_an_unsupported_measure_is_one_line_naming_it(capsys: pytest.CaptureFixture[str],
                                                      files: tuple[str, str], measure: str,
                                                      message: str) -> None:
    asked = [arg for name in measure.split(" -m ") for arg in ("-m", name)]
    code, out, err = run_cli(capsys, *asked, *files)
    assert code == 2 and out == ""
    assert err.startswith("poolkit trec-eval: error: ") and message in err
    assert err.count("\n") == 1


def test_nicknames_stand_for_the_measures_poolkit_computes() -> None:
    official = [m.name for m, _ in select_measures([]).measures]
    assert official == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"]
    # all_trec is every measure but the three trec_eval leaves out of it
    assert [m.name for m, _ in select_measures(["all_trec"]).measures] == [
        name for name in TREC_MEASURES if name not in ("dcg", "ideal_dcg", "yaap")]
    assert select_measures(["P.10,5", "P.20"]).names() == ["P_5", "P_10"]  # first one wins


def test_what_poolkit_computes_of_trec_eval_s_table_in_its_order() -> None:
    """The measures come from the families' trec_eval names and the counts; the order is
    trec_eval's table's, which is the order lines print in."""
    assert list(TREC_MEASURES) == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP",
        "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg",
        "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
        "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "yaap",
        "rbp", "rbp_resid", "unj"]
    assert TREC_MEASURES["iprec_at_recall"].cutoffs == tuple(i / 10 for i in range(11))
    assert TREC_MEASURES["unj"].cutoffs == (5, 10, 20)
    assert TREC_MEASURES["success"].cutoffs == (1, 5, 10)
    assert TREC_MEASURES["P"].cutoffs == (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    assert TREC_MEASURES["rbp"].pair_defaults == (("p", 0.9),)


def test_a_document_listed_twice_is_refused_like_trec_eval(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n")
    code, _, err = run_cli(capsys, str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert code == 2 and "query 'q1' lists doc 'd1' twice" in err and err.count("\n") == 1


def test_no_common_query_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "run").write_text("q2 Q0 d1 1 2.0 t\n")
    code, _, err = run_cli(capsys, str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert code == 2 and "no query has both results and relevance judgments" in err


def test_other_run_formats_score_like_their_trec_twin(capsys: pytest.CaptureFixture[str],
                                                     files: tuple[str, str],
                                                     tmp_path: Path) -> None:
    qrels, trec = files
    as_json = tmp_path / "run.json"
    as_json.write_text(json.dumps({"q1": {"d2": 3.0, "d1": 2.0}, "q2": {"d3": 1.0},
                                   "q9": {"d1": 1.0}}))
    _, want, _ = run_cli(capsys, "-m", "all_trec", "-q", "-c", qrels, trec)
    code, got, err = run_cli(capsys, "-m", "all_trec", "-q", "-c", qrels, str(as_json))
    assert code == 0, err
    # the same lines but runid: a JSON run has no tag, its file name stands in
    assert got.replace("run.json", "last") == want


@pytest.mark.parametrize("p", ["0.8", "0.95", ".5", "8e-1"])
def test_rbp_takes_trec_eval_s_persistence_parameter(capsys: pytest.CaptureFixture[str],
                                                     files: tuple[str, str], p: str) -> None:
    """``-m rbp.p=X`` prints as trec_eval does, ``rbp_p=X`` as typed; the value is RBP(p)."""
    code, out, _ = run_cli(capsys, "-q", "-m", f"rbp.p={p}", "-m", f"rbp_resid.p={p}", *files)
    assert code == 0
    lines = [line.split("\t") for line in out.splitlines()]
    assert {name.rstrip() for name, _, _ in lines} == {f"rbp_p={p}", f"rbp_resid_p={p}"}
    q1 = {name.rstrip(): float(v) for name, qid, v in lines if qid == "q1"}
    # q1 ranks d2 (grade 0) then d1 (grade 1, the query's top grade): (1 - p) * p
    assert q1[f"rbp_p={p}"] == pytest.approx(round((1 - float(p)) * float(p), 4))
    assert q1[f"rbp_resid_p={p}"] == 0.0  # both judged


def test_rbp_first_parameters_win_and_nicknames_print_them(
        capsys: pytest.CaptureFixture[str], files: tuple[str, str]) -> None:
    code, out, _ = run_cli(capsys, "-m", "rbp.p=0.8", "-m", "rbp", "-m", "rbp.p=0.5", *files)
    assert code == 0 and [line.split("\t")[0].rstrip() for line in out.splitlines()] == \
        ["rbp_p=0.8"]
    code, out, _ = run_cli(capsys, "-m", "all_trec", "-m", "rbp_resid.p=0.7", *files)
    names = [line.split("\t")[0].rstrip() for line in out.splitlines()]
    assert "rbp" in names and "rbp_resid_p=0.7" in names and "rbp_resid" not in names
