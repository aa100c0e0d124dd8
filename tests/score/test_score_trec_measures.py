"""`poolkit score -m NAME` takes every measure `poolkit trec-eval` prints (one registry), and
its values are trec-eval's: per query and the figure, on DL19."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_data import shared_path

from poolkit.cli import main
from poolkit.io.formats import read_labels_as, read_run_as
from poolkit.score.evaluate import evaluate
from poolkit.score.measures import MEASURES, TREC_FAMILIES, parse_measures
from poolkit.score.trec_eval import Options, select_measures, trec_eval

# score's spelling (trec_eval's printed names) -> the -m trec-eval takes for it
NAMES = {
    "gm_map": "gm_map", "gm_bpref": "gm_bpref", "iprec_at_recall_0.50": "iprec_at_recall.0.5",
    "iprec_at_recall_0.00": "iprec_at_recall.0", "Rprec_mult_2.00": "Rprec_mult.2",
    "Rprec_mult_0.20": "Rprec_mult.0.2", "utility": "utility", "11pt_avg": "11pt_avg",
    "binG": "binG", "G": "G", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg",
    "relative_P_5": "relative_P.5", "relative_P_100": "relative_P.100", "dcg": "dcg",
    "ideal_dcg": "ideal_dcg", "yaap": "yaap", "set_P": "set_P",
    "set_relative_P": "set_relative_P", "set_map": "set_map", "set_F": "set_F",
    "set_F_0.5": "set_F.0.5", "unj_10": "unj.10", "unj_1000": "unj.1000",
}


def test_every_trec_eval_measure_is_a_family_of_the_one_registry() -> None:
    for name, tf in TREC_FAMILIES.items():
        family = MEASURES[name]
        assert family.trec_family is tf and family.formula.startswith(name)
    assert MEASURES["gm_map"].aggregate == MEASURES["gm_bpref"].aggregate == "geometric"


@pytest.mark.shared
@pytest.mark.parametrize("run", ["bm25", "tasb"])
@pytest.mark.parametrize("level", [1, 2])
def test_score_s_values_are_trec_eval_s_on_dl19(run: str, level: int) -> None:
    """Every query's value and the figure (a mean, gm_map's geometric mean) to trec_eval's
    four decimals; at -l 2 only over the queries score keeps (those with a relevant id)."""
    base = shared_path("collections", "dl19-passage-pool")
    qrels = read_labels_as(base / "qrels.full.txt")
    ranked, _ = read_run_as(base / "runs" / f"{run}.run")
    measures = parse_measures(list(NAMES))
    ev = evaluate(qrels, ranked, measures, level=level)
    kept = qrels.__class__({q: qrels.grades[q] for q in ev.scored})
    printed: dict[tuple[str, str], str] = {}
    for asked in NAMES.values():  # one at a time: trec_eval takes one parameter set a name
        text = trec_eval(kept, ranked, select_measures([asked]), Options(level=level),
                         per_query=True)
        for line in text.splitlines():
            name, qid, value = line.split("\t")
            printed[name.strip(), qid] = value.strip()
    for measure, spelled in zip(measures, NAMES):
        for qid in ev.scored:
            if (spelled, qid) in printed:  # gm_map and gm_bpref print their figure only
                assert f"{ev.per_query[measure.name][qid]:6.4f}".strip() == \
                    printed[spelled, qid], (spelled, qid)
        assert f"{ev.mean(measure):6.4f}".strip() == printed[spelled, "all"], spelled


def test_score_takes_the_names_and_lists_them(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 1\n")
    run.write_text("1 Q0 b 1 2.0 t\n1 Q0 a 2 1.0 t\n2 Q0 c 1 1.0 t\n")
    code = main(["score", str(qrels), str(run), "--format", "json", "-m",
                 "gm_map,iprec_at_recall_0.50,set_F,Rprec_mult_2.00,utility"])
    out, err = capsys.readouterr()
    assert code == 0, err
    for name in ("gm_map", "iprec_at_recall(x=0.5)", "set_F", "Rprec_mult(x=2)", "utility"):
        assert f'"{name}"' in out
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    listing = capsys.readouterr().out
    for name in (*TREC_FAMILIES, "gm_map", "gm_bpref"):
        assert f"  {name} " in listing, name


@pytest.mark.parametrize(("measure", "message"), [
    ("relstring", "relstring is a string per query, not a number: poolkit trec-eval -q -m "
                  "relstring prints it"),
    ("iprec_at_recall", "iprec_at_recall needs x=, e.g. iprec_at_recall(x=0.5)"),
    ("relative_P(x=0.5)@5", "relative_P takes no x= (only iprec_at_recall and Rprec_mult do)"),
    ("set_F(p=0.5)", "set_F takes no p="),
])
def test_a_trec_eval_measure_score_cannot_read_is_one_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, measure: str, message: str) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 1.0 t\n")
    code = main(["score", str(qrels), str(run), "-m", measure])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err
    assert qrels.read_text() == "1 0 a 1\n" and run.read_text() == "1 Q0 a 1 1.0 t\n"
