"""A binary and a 0-4 collection through the CLI: ``grades:`` at the top of the config sets
the scale that import, golden.yaml, status, export and agreement follow; a grade off it, or
a config whose scale contradicts the store's grades, is one line naming file:line and the
scale, exit 2, the store unchanged."""

from __future__ import annotations

import hashlib
import json
import math

import jsonschema
import pytest

from poolkit.cli import main
from poolkit.io.scale import GradeScale
from poolkit.schemas import load_schema
from poolkit.store.backends import open_store

SAMPLE_CORPUS = '{"id": "d1", "text": "a"}\n{"id": "d2", "text": "b"}\n{"id": "d3", "text": "c"}\n'
BINARY = "grades: {0: not relevant, 1: relevant}\n"
FIVE = "grades: {0: none, 1: weak, 2: fair, 3: good, 4: perfect}\n"


def collection(tmp_path, grades: str, name: str = "c.yaml"):
    (tmp_path / "corpus.jsonl").write_text(SAMPLE_CORPUS)
    (tmp_path / "queries.jsonl").write_text('{"id": "q1", "text": "x"}\n'
                                            '{"id": "q2", "text": "y"}\n')
    (tmp_path / "sys.run").write_text("q1 Q0 d1 1 3.0 sys\nq1 Q0 d2 2 2.0 sys\n"
                                      "q2 Q0 d3 1 1.0 sys\n")
    config = tmp_path / name
    config.write_text("name: c\n" + grades + "corpus: corpus.jsonl\nqueries: queries.jsonl\n"
                      "store: j.sqlite\nsystems:\n  sys: {kind: run, path: sys.run}\n")
    return config


def valid(doc: dict, kind: str) -> dict:
    """``doc``, checked against the report's shipped JSON Schema."""
    jsonschema.validate(doc, load_schema(kind), cls=jsonschema.Draft202012Validator)
    return doc


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused(argv, capsys, store, message: str) -> None:
    """One stderr line saying ``message``, exit 2, the store's bytes as they were."""
    before = digest(store) if store.exists() else None
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err, err
    assert (digest(store) if store.exists() else None) == before


def test_a_0_to_4_collection_imports_reports_and_exports_grade_4(tmp_path, capsys):
    config = collection(tmp_path, FIVE)
    assert main(["pool", str(config), "--quiet"]) == 0
    (tmp_path / "a.qrels").write_text("q1 0 d1 4\nq1 0 d2 0\nq2 0 d3 2\n")
    (tmp_path / "b.qrels").write_text("q1 0 d1 3\nq1 0 d2 0\nq2 0 d3 2\n")
    assert main(["import", str(config), str(tmp_path / "a.qrels"), "--as", "nist"]) == 0
    assert main(["import", str(config), str(tmp_path / "b.qrels"), "--as", "bob"]) == 0
    capsys.readouterr()
    with open_store(tmp_path / "j.sqlite", read_only=True) as store:
        assert store.recorded_scale() == GradeScale(("none", "weak", "fair", "good",
                                                      "perfect"))
    assert main(["export", str(config), "--format", "qrels", "--policy", "max"]) == 0
    assert capsys.readouterr().out == "q1 0 d1 4\nq1 0 d2 0\nq2 0 d3 2\n"
    assert main(["status", str(config), "--format", "json"]) == 0
    status = valid(json.loads(capsys.readouterr().out), "status")
    assert status["assessors"]["nist"]["grades"] == {"0": 1, "1": 0, "2": 1, "3": 0, "4": 1}
    assert main(["status", str(config), "--verbose"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert "g0  g1  g2  g3  g4  med s" in table[1]
    assert main(["agreement", str(config), "--format", "json"]) == 0
    report = valid(json.loads(capsys.readouterr().out), "agreement")
    assert report["scale"] == [0, 1, 2, 3, 4]
    (pair,) = report["pairs"]
    assert pair["confusion"]["labels"] == [0, 1, 2, 3, 4]
    assert len(pair["confusion"]["counts"]) == 5
    # 4 against 3 is one step of five grades: linear weights 1/4 apart, not 1/3
    assert pair["kappa"]["linear"] != pair["kappa"]["unweighted"]


def test_a_golden_yaml_grade_off_the_scale_names_its_line_and_the_scale(tmp_path, capsys):
    config = collection(tmp_path, FIVE)
    golden = tmp_path / "g.yaml"
    golden.write_text("- query: q1\n  grades: {d1: 4}\n- query: q2\n  grades: {d3: 5}\n")
    refused(["import", str(config), str(golden), "--as", "g"], capsys, tmp_path / "j.sqlite",
            f"{golden}:4: grade '5' for query 'q2' doc 'd3' must be an integer 0-4")
    golden.write_text("- query: q1\n  grades: {d1: 4}\n")
    assert main(["import", str(config), str(golden), "--as", "g"]) == 0


def test_a_binary_collection_refuses_grade_2_on_import(tmp_path, capsys):
    config = collection(tmp_path, BINARY)
    (tmp_path / "t.qrels").write_text("q1 0 d1 1\nq1 0 d2 2\n")
    refused(["import", str(config), str(tmp_path / "t.qrels"), "--as", "nist"], capsys,
            tmp_path / "j.sqlite", "t.qrels:2: query 'q1' doc 'd2': grade 2 is off the scale 0-1")
    (tmp_path / "t.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 -1\n")
    assert main(["import", str(config), str(tmp_path / "t.qrels"), "--as", "nist"]) == 0
    capsys.readouterr()
    assert main(["export", str(config), "--format", "golden"]) == 0
    assert "grades:\n    d1: 1\n    d2: 0\n" in capsys.readouterr().out


@pytest.mark.parametrize("first, then, message", [
    (FIVE, "", "c2.yaml: the config (no grades:) is on the scale 0-3, but the store"),
    ("", BINARY, "c2.yaml:2: config.grades is the scale 0-1, but the store"),
    (FIVE, BINARY, "holds grades given on the scale 0-4 (up to 3)")])
def test_a_store_refuses_a_config_whose_scale_contradicts_its_grades(tmp_path, capsys, first,
                                                                     then, message):
    config = collection(tmp_path, first)
    (tmp_path / "t.qrels").write_text("q1 0 d1 3\n")
    assert main(["import", str(config), str(tmp_path / "t.qrels"), "--as", "nist"]) == 0
    capsys.readouterr()
    other = collection(tmp_path, then, "c2.yaml")
    store = tmp_path / "j.sqlite"
    (tmp_path / "zero.qrels").write_text("q1 0 d2 0\n")  # on every scale
    for argv in (["status", str(other)], ["export", str(other), "--format", "qrels"],
                 ["import", str(other), str(tmp_path / "zero.qrels"), "--as", "x"]):
        refused(argv, capsys, store, message)


def test_a_store_of_0_to_3_grades_refuses_a_binary_config(tmp_path, capsys):
    (tmp_path / "t.qrels").write_text("q9 0 d1 1\n")  # kept though its query is unknown
    config = collection(tmp_path, "")
    assert main(["import", str(config), str(tmp_path / "t.qrels"), "--as", "nist",
                 "--keep-unknown"]) == 0
    capsys.readouterr()
    binary = collection(tmp_path, BINARY, "b.yaml")
    (tmp_path / "t2.qrels").write_text("q1 0 d1 1\n")
    refused(["import", str(binary), str(tmp_path / "t2.qrels"), "--as", "x"], capsys,
            tmp_path / "j.sqlite", "b.yaml:2: config.grades is the scale 0-1")


@pytest.mark.parametrize("grades, message", [
    ("grades: {0: off, 2: on}\n", "c.yaml:2: config.grades: grades 0, 2 are not a scale 0..G"),
    ("grades: {0: nothing}\n", "c.yaml:2: config.grades: grades 0 are not a scale 0..G"),
    ("grades: {0: a, 1: b, 2: c, 3: d, 4: e, 5: f, 6: g, 7: h, 8: i, 9: j, 10: k}\n",
     "G from 1 to 9"),
    ("grades: {0: nothing, 1: ''}\n", "the label of grade 1 must be text"),
    ("grades: {0: nothing, one: a}\n", "grade 'one' is not an integer"),
    (BINARY + "judge: {relevance_level: 2}\n",
     "judge.relevance_level must be 1 (a grade of the 0-1 scale), found 2"),
    (BINARY + "judge: {keys: {grade_2: x}}\n", "judge.keys: unknown action 'grade_2'"),
    (FIVE + "judge: {grades: {5: too far}}\n",
     "judge.grades: grade 5 must be one of 0, 1, 2, 3, 4 (the scale 0-4)")])
def test_a_config_whose_grades_are_not_a_scale_is_one_line(tmp_path, capsys, grades, message):
    config = collection(tmp_path, grades)
    refused(["status", str(config)], capsys, tmp_path / "j.sqlite", message)


def test_score_reads_a_grade_beyond_any_scale_as_its_gain(tmp_path, capsys):
    """score reads qrels without a config: grades are gains, as in trec_eval (a 7 is worth
    7, or 2^7-1 under --gain exp), whatever scale the labels were made on."""
    (tmp_path / "g.qrels").write_text("q1 0 m1 7\nq1 0 m2 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 m2 1 2.0 r\nq1 Q0 m1 2 1.0 r\n")
    assert main(["score", str(tmp_path / "g.qrels"), str(tmp_path / "r.run"), "--format",
                 "json", "-m", "nDCG@10", "-m", "nDCG(gain=exp)@10"]) == 0
    measures = json.loads(capsys.readouterr().out)["runs"][0]["measures"]
    linear = (1 + 7 / math.log2(3)) / (7 + 1 / math.log2(3))
    exp = (1 + 127 / math.log2(3)) / (127 + 1 / math.log2(3))
    assert measures["nDCG@10"]["mean"] == pytest.approx(linear)
    assert measures["nDCG(gain=exp)@10"]["mean"] == pytest.approx(exp)
