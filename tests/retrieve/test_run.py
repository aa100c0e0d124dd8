from __future__ import annotations

from poolkit.io.run import Run
from poolkit.retrieve.run import ExternalRun, validate_run
from poolkit.store.records import QueryRecord

RUN = """\
q1 Q0 a 1 9.0 vendor
q1 Q0 ghost 2 8.0 vendor
q1 Q0 b 3 7.0 vendor
q1 Q0 a 4 6.0 vendor
q1 Q0 c 5 5.0 vendor
q9 Q0 a 1 3.0 vendor
q9 Q0 b 2 2.0 vendor
q2 Q0 phantom 1 1.0 vendor
"""


def test_unknown_ids_are_reported_and_dropped(tmp_path):
    path = tmp_path / "vendor.run"
    path.write_text(RUN)
    ext = ExternalRun("vendor", path, {"a", "b", "c"}, ["q1", "q2", "q3"])
    check = ext.check
    assert ext.run.rankings == {"q1": ["a", "b", "c"], "q2": []}
    assert ext.run.scores["q1"] == [9.0, 7.0, 5.0]
    assert (check.rows, check.kept, check.unknown_docs, check.distinct_unknown_docs) == (8, 3, 2, 2)
    assert check.unknown_doc_ids == ["ghost", "phantom"]
    assert (check.unknown_queries, check.unknown_query_rows, check.repeats) == (["q9"], 2, 1)
    assert check.queries_without_results == ["q2", "q3"]
    assert check.messages("vendor") == [
        "vendor: 1 query id(s) not in the queries file (q9): 2 rows dropped",
        "vendor: 2 rows name 2 doc id(s) not in the corpus (ghost, phantom): dropped",
        "vendor: 1 repeated doc id(s) within a query: only the first is kept",
        "vendor: no results for 2 of the queries (q2, q3)",
    ]
    hits = ext.search([QueryRecord("q1", "x"), QueryRecord("q3", "y")], 2)
    assert [h.docid for h in hits["q1"]] == ["a", "b"] and hits["q3"] == []
    assert ext.settings()["validation"]["unknown_doc_rows"] == 2
    assert ext.settings()["source_sha256"] == ext.source.sha256


def test_a_clean_run_passes_unchanged():
    run = Run.from_mapping({"q1": ["a", "b"]}, name="r")
    clean, check = validate_run(run, {"a", "b"}, ["q1"])
    assert clean.rankings == run.rankings and check.clean and check.messages("r") == []


def test_rank_order_option(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("q1 Q0 a 2 9.0 t\nq1 Q0 b 1 1.0 t\n")
    assert ExternalRun("r", path, {"a", "b"}, ["q1"]).run.rankings["q1"] == ["a", "b"]
    assert ExternalRun("r", path, {"a", "b"}, ["q1"], order="rank").run.rankings["q1"] == \
        ["b", "a"]
