"""The report document and its four formats: same numbers, same identity lines, readable."""

from __future__ import annotations

import csv
import io
import json

import pytest

from poolkit import __version__
from poolkit.app.score import ScoreRequest, resolve_measures, score_run, score_runs
from poolkit.io import Qrels, Run
from poolkit.reports import REPORTS
from poolkit.score import render
from poolkit.score.document import Settings
from poolkit.score.report import ScoreReport

GRADES = {
    "q_faw": {"m1": 3, "m2": 2, "m3": 1},
    "q_broad": {"m1": 3, "m2": 3, "m3": 2, "m4": 2, "m5": 1, "m6": 1, "s1": 2, "s2": 1},
    "q_dupe": {"d1": 3, "d2": 2, "d3": 1},
    "q_none": {"zz": 0},
}
RANKINGS = {
    "q_faw": ["m2", "x3", "m1", "p1", "d2", "m3", "s1", "x1", "p3", "d5"],
    "q_broad": ["m1", "s1", "m2", "m3", "x1", "m4", "m5", "m6", "s2", "d1"],
    "q_dupe": ["d1", "d1", "x3", "d2", "x1"],
    "q_extra": ["a"],
}
EPOCH = "1767225600"  # 2026-01-01T00:00:00Z


@pytest.fixture(autouse=True)
def _fixed_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


def make_doc(ks: list[int] = [5], measures: tuple[str, ...] = (), conditions: tuple = (),
             **settings: object) -> ScoreReport:
    """The score verb's report of one run in memory against labels in memory."""
    qrels = Qrels.from_mapping(GRADES, name="labels.qrels")
    run = Run.from_mapping(RANKINGS, name="sys.run")
    return score_runs(ScoreRequest(qrels, [run], measures=measures, cutoffs=ks, corpus_size=24,
                                   stages=(10, 5), fail_on=conditions,
                                   **settings))  # type: ignore[arg-type]


def test_formats_registry() -> None:
    """Every registered format renders the same document: the means of each measure, with
    their intervals, read back from CSV and Markdown equal the JSON's."""
    import csv
    import io

    assert REPORTS["score"] is ScoreReport
    assert ScoreReport.formats == ("table", "json", "csv", "markdown")
    doc = make_doc()
    run = json.loads(doc.render("json"))["runs"][0]
    means = {name: m["mean"] for name, m in run["measures"].items()}
    assert list(means) == ["P@5", "R@5", "Hit@5", "RR@5", "AP@5", "nDCG@5"]
    rows = list(csv.DictReader(io.StringIO(doc.render("csv"))))
    overall = {r["measure"]: r for r in rows if r["query"] == "all" and r["measure"] in means}
    assert {m: float(r["value"]) for m, r in overall.items()} == pytest.approx(means)
    assert {r["run"] for r in rows} == {"sys.run"} and rows[0]["k"] == "5"
    assert overall["Hit@5"]["ci_method"] == "wilson" and overall["P@5"]["ci_method"] == \
        "bootstrap"
    for name, r in overall.items():
        ci = run["measures"][name]["ci"]
        assert (float(r["ci_low"]), float(r["ci_high"])) == pytest.approx((ci["low"], ci["high"]))
    md = doc.render("markdown")
    table = md[md.index("| measure | mean |"):].split("\n\n")[0].splitlines()
    assert table[1] == "|:---|---:|---:|:---|"
    cells = {line.split(" | ")[0].strip("| "): line.split(" | ")[1] for line in table[2:]}
    assert cells == {name: f"{mean:.3f}" for name, mean in means.items()}
    text = doc.render("table")
    for name, mean in means.items():
        assert any(line.split()[:2] == [name, f"{mean:.3f}"] for line in text.splitlines())


def test_json_document_schema() -> None:
    doc = json.loads(make_doc().render("json"))
    assert doc["poolkit_version"] == __version__
    assert doc["date"] == "2026-01-01T00:00:00Z"
    assert doc["settings"]["k"] == [5]
    assert doc["settings"]["intervals"] == {"level": 0.95, "hit": "wilson", "other": "bootstrap",
                                            "resamples": 1000, "seed": 1979}
    assert doc["qrels"]["name"] == "labels.qrels" and len(doc["qrels"]["sha256"]) == 64
    assert doc["qrels"]["queries"] == 4 and doc["qrels"]["judgments"] == 15
    (run,) = doc["runs"]
    assert run["name"] == "sys.run" and len(run["sha256"]) == 64
    assert run["queries"] == {"in_run": 4, "shared": 3, "scored": 3, "excluded": ["q_none"],
                              "missing": [], "unknown": ["q_extra"]}
    assert list(run["measures"]) == ["P@5", "R@5", "Hit@5", "RR@5", "AP@5", "nDCG@5"]
    for name, m in run["measures"].items():
        assert set(m) >= {"mean", "per_query", "ci"}
        assert set(m["per_query"]) == {"q_faw", "q_broad", "q_dupe"}
        assert set(m["ci"]) >= {"low", "high", "method"}
        assert m["ci"]["method"] == ("wilson" if name.startswith("Hit") else "bootstrap")
    assert run["measures"]["R@5"]["per_query"]["q_broad"] == 0.5
    audit = run["audit"]
    assert audit["k"] == [5] and audit["summary"]["excluded"] == ["q_none"]
    assert audit["queries"]["q_dupe"]["at"]["5"]["positional_hits"] == 3
    assert audit["queries"]["q_broad"]["labels"] == pytest.approx(8 / 24)
    assert run["stages"]["per_query"]["q_broad"] == {"fetch": 1.0, "keep": 0.5, "loss": 0.5}
    assert run["truth"] is None and doc["truth"] is None
    assert doc["fail_on"] == {"conditions": [], "failed": []}


def test_json_compact_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = make_doc()
    assert "\n  " in doc.render("json")
    monkeypatch.setattr(render, "JSON_INDENT_LIMIT", 3)
    text = doc.render("json")
    assert text.count("\n") == 1 and json.loads(text) == doc.to_dict()


def test_runs_written_ahead_are_spliced_into_the_compact_json(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's JSON written on the thread that scored it is the very text ``json.dumps``
    writes for it in place: the report is the same bytes, prepared or not."""
    qrels = Qrels.from_mapping(GRADES, name="labels.qrels")
    shown, ks = resolve_measures(["AP", "P@5"], [5])
    st = Settings(ks=ks)
    results = [score_run(qrels, Run.from_mapping(RANKINGS, name=f"r{i}.run"), shown, st,
                         stages=(10, 5)) for i in range(3)]
    monkeypatch.setattr(render, "JSON_INDENT_LIMIT", 4)  # one run alone passes it
    ScoreReport.prepare_run(results[0], "json")
    ScoreReport.prepare_run(results[2], "json")
    ScoreReport.prepare_run(results[1], "table")
    doc = ScoreReport.build(st, qrels, results)
    runs = doc["runs"]
    assert [r.compact_json is not None for r in runs] == [True, False, True]
    assert runs[1] is results[1].document()  # built once, on the scoring thread
    text = doc.render("json")
    assert text == json.dumps(doc.to_dict(), separators=(",", ":")) + "\n"
    assert runs[0] == json.loads(runs[0].compact_json or "")


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_every_format_states_identity(fmt: str) -> None:
    doc = make_doc()
    text = doc.render(fmt)
    for needle in ("K=5", "labels.qrels", doc["qrels"]["sha256"][:12], "sys.run",
                   doc["runs"][0]["sha256"][:12], "3 scored", "1 excluded",
                   "2026-01-01T00:00:00Z", f"poolkit {__version__}", "4 queries"):
        assert needle in text, needle


def test_csv_states_identity_on_every_row() -> None:
    doc = make_doc()
    rows = list(csv.DictReader(io.StringIO(doc.render("csv", per_query=True))))
    assert list(rows[0]) == render.CSV_COLUMNS
    for row in rows:
        assert row["run"] == "sys.run" and row["run_sha256"] == doc["runs"][0]["sha256"]
        assert row["qrels"] == "labels.qrels" and row["qrels_sha256"] == doc["qrels"]["sha256"]
        assert (row["k"], row["scored_queries"], row["date"], row["poolkit_version"]) == \
            ("5", "3", "2026-01-01T00:00:00Z", __version__)
    by = {(r["query"], r["measure"]): r for r in rows}
    assert by[("all", "R@5")]["ci_method"] == "bootstrap"
    assert by[("all", "Hit@5")]["ci_method"] == "wilson"
    assert float(by[("q_broad", "R@5")]["value"]) == 0.5
    assert by[("q_dupe", "audit.positional_hits@5")]["value"] == "3"
    assert by[("all", "audit.excluded")]["value"] == "1"
    assert float(by[("q_broad", "stage.loss")]["value"]) == 0.5
    means_only = list(csv.DictReader(io.StringIO(doc.render("csv"))))
    assert {r["query"] for r in means_only if not r["measure"].startswith("stage.")} == {"all"}


def test_table_is_aligned_and_fits_100_columns() -> None:
    doc = make_doc(ks=[5, 10],
                   measures=("P", "R@K", "Hit@K", "RR@K", "AP@K", "nDCG@K", "CP@K", "Rcap"),
                   conditions=("repeats",))
    text = doc.render("table", per_query=True)
    assert max(len(line) for line in text.splitlines()) <= 100
    lines = text.splitlines()
    header = next(i for i, s in enumerate(lines) if s.startswith("  measure"))
    p5 = lines[header + 1]
    assert p5.split()[0] == "P@5"
    assert lines[header].index("mean") + len("mean") == p5.index(p5.split()[1]) + 5
    assert "fail-on repeats: FAILED" in text
    assert "  ! repeats held for run 'sys.run' on 1 query: q_dupe" in text


def test_table_audit_lists_flagged_queries_unless_per_query(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    doc = make_doc()
    text = doc.render("table", verbose=True)
    assert "per query" not in text
    assert "! |Rel|=3 < k=5: Precision@k can never exceed 0.60" in text
    monkeypatch.setattr(render, "AUDIT_ROWS_UNLISTED", 1)
    text = doc.render("table", verbose=True)
    assert "... 2 more flagged queries (--per-query lists every query)" in text
    assert "  per query" in doc.render("table", per_query=True)


def test_grid_wraps_columns_and_repeats_the_first() -> None:
    headers = ["query", *(f"col{i:02d}" for i in range(30))]
    rows: list = [["q1", *("0.500" for _ in range(30))], "  ! a note"]
    lines = render._grid(headers, rows, width=60)
    assert max(len(s) for s in lines) <= 60
    assert sum(1 for s in lines if s.startswith("  query")) > 1
    assert sum(1 for s in lines if s == "    ! a note") > 1


def test_markdown_tables_escape_pipes() -> None:
    text = make_doc().render("markdown", per_query=True)
    assert "| query | \\|Rel\\| |" in text
    assert "\\|Rel\\|=3 < k=5: Precision@k can never exceed 0.60" in text
    assert "|:---|---:|---:|:---|" in text  # measure, mean, interval, method
