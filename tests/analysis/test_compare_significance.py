"""``poolkit compare``: paired tests under each label set, and what the later labels did to the
earlier significant differences (survived, lost, reversed, gained)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from poolkit.app.compare import CompareRequest, compare_labels
from poolkit.cli import main
from poolkit.score import significance as sig
from poolkit.score.measures import parse_measures

# Under the earlier labels a's and c's first hit is relevant and b's is not; the later labels
# say the opposite. On P@1 (and bpref) a - b is +1 on every query before and -1 after: with
# no spread the t-test's p is 0, so both differences are significant, in opposite directions.
BEFORE = "".join(f"q{i} 0 good{i} 1\nq{i} 0 bad{i} 0\n" for i in range(1, 4))
AFTER = "".join(f"q{i} 0 good{i} 0\nq{i} 0 bad{i} 1\n" for i in range(1, 4))
RUNS = {"a": "good", "b": "bad", "c": "good"}


def compare_json(tmp_path: Path, test: str | None = None) -> tuple[dict[str, Any], str]:
    (tmp_path / "before.qrels").write_text(BEFORE)
    (tmp_path / "after.qrels").write_text(AFTER)
    paths = []
    for name, doc in RUNS.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"q{i} Q0 {doc}{i} 1 1.0 {name}\n" for i in range(1, 4)))
        paths.append(str(path))
    report = compare_labels(CompareRequest(
        paths, parse_measures(["P@1"]), before_qrels=str(tmp_path / "before.qrels"),
        after_qrels=str(tmp_path / "after.qrels"), condensed=False,
        tests=sig.TestOptions() if test is None else sig.TestOptions(test=test)))
    return json.loads(report.render("json")), report.render("table", verbose=True)


def test_reversed_differences(tmp_path: Path) -> None:
    doc, table = compare_json(tmp_path, "t")
    before = {(t["a"], t["b"]): t for t in doc["tests"]["before"]["P@1"]}
    after = {(t["a"], t["b"]): t for t in doc["tests"]["after"]["P@1"]}
    assert before[("a", "b")]["diff"] == 1.0 and after[("a", "b")]["diff"] == -1.0
    assert before[("a", "b")]["n"] == 3
    assert before[("a", "c")]["p"]["t"] == 1.0 and not before[("a", "c")]["significant"]
    fates = doc["significance"]["P@1"]
    assert [(e["a"], e["b"]) for e in fates["reversed"]] == [("a", "b"), ("b", "c")]
    assert fates["survived"] == fates["lost"] == fates["gained"] == []
    assert fates["reversed"][0] == {"a": "a", "b": "b", "before": {"diff": 1.0, "p": 0.0},
                                    "after": {"diff": -1.0, "p": 0.0}}
    assert doc["test_settings"]["after"]["family"] == 6      # 3 pairs x (P@1, bpref)
    jsonschema = pytest.importorskip("jsonschema")
    from poolkit.schemas import load_schema

    jsonschema.validate(doc, load_schema("compare"), cls=jsonschema.Draft202012Validator)
    assert "  reversed on P@1: a vs b: +1.000 (p_holm <0.001) -> -1.000 (p_holm <0.001)" in table
    block = table[table.index("Significant differences"):].splitlines()
    row = next(line for line in block if line.startswith("  P@1 "))
    assert row.split() == ["P@1", "2", "2", "0", "0", "2", "0"]


def test_fates_agree_with_the_tests_they_summarise(tmp_path: Path) -> None:
    """With the default randomization test, 3 queries cannot reach p < 0.05 (exact p 0.25):
    nothing is significant, so nothing survives, is lost, reverses or is gained."""
    doc, table = compare_json(tmp_path)
    for side in ("before", "after"):
        for t in doc["tests"][side]["P@1"]:
            assert t["p"]["randomization"] in (0.25, 1.0) and not t["significant"]
    assert all(not v for fates in doc["significance"].values() for v in fates.values())
    assert "0 of 3 differences significant on P@1" in table


def test_one_run_compare_has_no_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "b.qrels").write_text(BEFORE)
    (tmp_path / "a.qrels").write_text(AFTER)
    (tmp_path / "x.run").write_text("q1 Q0 good1 1 1.0 x\n")
    assert main(["compare", "--before-qrels", str(tmp_path / "b.qrels"), "--after-qrels",
                 str(tmp_path / "a.qrels"), str(tmp_path / "x.run"), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tests"] == {} and doc["test_settings"] is None and doc["significance"] == {}


def test_shift_names_are_the_report_columns() -> None:
    assert sig.SHIFTS == ("survived", "lost", "reversed", "gained")
