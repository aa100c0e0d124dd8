"""`poolkit export`: qrels and golden.yaml from the store, policies, unresolved pairs,
identical scores from both formats, and the sample golden.yaml's round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_helpers import (
    SAMPLE,
    TINY_DOCS,
    TINY_POOLS,
    TINY_QUERIES,
    TickClock,
    build_store,
    sample_collection,
    write_config,
)

from poolkit.cli import main
from poolkit.io import read_golden, read_qrels
from poolkit.io.golden import read_golden_full
from poolkit.judge.session import JudgingSession
from poolkit.store import Event, QueryRecord, Store


@pytest.fixture
def tiny(tmp_path):
    """A config over a tiny store that alice and bob judged; they disagree on q1 d2."""
    store_path = tmp_path / "tiny.sqlite"
    with build_store(store_path, TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        alice = JudgingSession(store, "alice", clock=TickClock())
        for g in (3, 2, 0, 1, 0):
            alice.grade(g)
        store.record_event(Event("q1", "d1", "bob", "grade", grade=3))
        store.record_event(Event("q1", "d2", "bob", "grade", grade=0))
    return write_config(tmp_path / "cfg", store_path)


def test_qrels_to_stdout_and_unresolved_on_stderr(tiny, tmp_path, capsys):
    side = tmp_path / "unresolved.json"
    assert main(["export", str(tiny), "--format", "qrels", "--unresolved", str(side)]) == 0
    out, err = capsys.readouterr()
    assert out == "q1 0 d1 3\nq1 0 d3 0\nq2 0 d4 1\nq2 0 d5 0\n"
    assert "1 pair(s) unresolved under policy 'adjudicated'" in err
    assert "  q1 d2: alice=2 bob=0 (assessors disagree and no adjudication was recorded)" in err
    assert json.loads(side.read_text()) == {"policy": "adjudicated", "unresolved": [
        {"query": "q1", "doc": "d2", "grades": {"alice": 2, "bob": 0},
         "reason": "assessors disagree and no adjudication was recorded"}]}


@pytest.mark.parametrize("policy, d2", [("latest", 0), ("max", 2)])
def test_policies_decide_the_disputed_pair(tiny, tmp_path, policy, d2):
    from poolkit.app.export import ExportRequest, export

    out = tmp_path / "x.qrels"
    exported = export(ExportRequest(tiny, "qrels", policy, output=str(out)))
    assert read_qrels(out).grades["q1"] == {"d1": 3, "d2": d2, "d3": 0}
    assert exported.summary() == [f"poolkit export: 5 labels under policy {policy!r}, "
                                  "0 unresolved"]


def test_majority_tie_is_listed_not_guessed(tiny):
    from poolkit.app.export import ExportRequest, export

    exported = export(ExportRequest(tiny, "qrels", "majority"))
    assert "d2" not in exported.text
    assert "  q1 d2: alice=2 bob=0 (tie between grades 0, 2)" in exported.summary()


def test_assessor_filter(tiny, capsys):
    assert main(["export", str(tiny), "--format", "qrels", "--assessor", "bob"]) == 0
    assert capsys.readouterr().out == "q1 0 d1 3\nq1 0 d2 0\n"
    assert main(["export", str(tiny), "--format", "qrels", "--assessor", "alice", "bob",
                 "--policy", "max"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5
    assert main(["export", str(tiny), "--format", "qrels", "--assessor", "alcie"]) == 2
    assert "unknown assessor 'alcie'; valid: alice, bob (did you mean 'alice'?)" in (
        capsys.readouterr().err)


def test_golden_carries_provenance(tiny, tmp_path, capsys):
    from poolkit.app.export import ExportRequest, export

    out = tmp_path / "golden.yaml"
    export(ExportRequest(tiny, "golden", "latest", output=str(out)))
    qrels, texts, prov = read_golden_full(out)
    assert qrels.grades == {"q1": {"d1": 3, "d2": 0, "d3": 0}, "q2": {"d4": 1, "d5": 0}}
    assert texts["q1"] == TINY_QUERIES[0].text
    p = prov["q1"]
    assert (p["pool_version"], p["pool_depth"], p["systems"], p["assessors"], p["policy"]) == (
        1, {"sysA": 3}, ["sysA"], ["alice", "bob"], "latest")
    assert (p["judged"], p["pooled"]) == (3, 3)
    assert p["date"] and p["poolkit_version"]
    assert prov["q2"]["assessors"] == ["alice"]
    assert out.read_text().startswith("# poolkit export from tiny.sqlite: policy latest")
    # The same document goes to stdout without -o.
    main(["export", str(tiny), "--format", "golden", "--policy", "latest"])
    assert "grades:" in capsys.readouterr().out


def test_golden_header_and_provenance_count_unresolved_pairs(tiny, tmp_path, capsys):
    out = tmp_path / "golden.yaml"
    assert main(["export", str(tiny), "--format", "golden", "-o", str(out)]) == 0
    _, _, prov = read_golden_full(out)
    assert prov["q1"]["unresolved"] == 1 and "unresolved" not in prov["q2"]
    assert "policy adjudicated, 4 labels, 1 unresolved pair left out" in out.read_text()
    capsys.readouterr()


def test_unwritable_output_is_one_line_naming_the_file(tiny, tmp_path, capsys):
    missing = tmp_path / "no" / "such"
    for args in (["--format", "qrels", "-o", str(missing / "x.qrels")],
                 ["--format", "golden", "-o", str(missing / "x.yaml")],
                 ["--format", "qrels", "--unresolved", str(missing / "u.json")]):
        assert main(["export", str(tiny), *args]) == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert err.startswith(f"poolkit export: error: {missing}/") and "cannot write" in err
        assert "Traceback" not in err


def test_unknown_pool_version_and_missing_store(tiny, tmp_path, capsys):
    assert main(["export", str(tiny), "--format", "qrels", "--pool-version", "4"]) == 2
    assert "no pool version 4; the store has 1" in capsys.readouterr().err
    bare = write_config(tmp_path / "bare", tmp_path / "none.sqlite")
    assert main(["export", str(bare), "--format", "qrels"]) == 2
    assert "no judging store yet" in capsys.readouterr().err
    assert not (tmp_path / "none.sqlite").exists()


def score_json(qrels: Path, run: Path, capsys) -> dict:
    assert main(["score", str(qrels), str(run), "--format", "json", "--per-query",
                 "-k", "1,3,5,10", "-m", "bpref", "-m", "Rprec", "-m", "nDCG(gain=exp)@5"]) == 0
    doc = json.loads(capsys.readouterr().out)
    return {"runs": doc["runs"], "judgments": doc["qrels"]["judgments"],
            "queries": doc["qrels"]["queries"]}


def test_exported_qrels_and_golden_score_identically(tmp_path, capsys):
    store_path = tmp_path / "judgments.sqlite"
    with build_store(store_path, *sample_collection()) as store:
        session = JudgingSession(store, "alice", clock=TickClock())
        n = 0
        while session.current is not None:
            session.grade([3, 0, 1, 2, 0, 0, 1][n % 7])
            n += 1
    config = write_config(tmp_path / "cfg", store_path)
    qrels, golden = tmp_path / "out.qrels", tmp_path / "out.yaml"
    assert main(["export", str(config), "--format", "qrels", "-o", str(qrels)]) == 0
    assert main(["export", str(config), "--format", "golden", "-o", str(golden)]) == 0
    capsys.readouterr()
    assert read_qrels(qrels).grades == read_golden(golden).grades
    run = SAMPLE / "seed.run"
    from_qrels = score_json(qrels, run, capsys)
    from_golden = score_json(golden, run, capsys)
    assert from_qrels == from_golden
    assert from_qrels["judgments"] == n == 24


def test_sample_golden_round_trips_through_import_and_export(tmp_path, capsys):
    store_path = tmp_path / "judgments.sqlite"
    config = tmp_path / "sample.yaml"
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                      f"store: {store_path}\nsystems:\n  seed: {{kind: run, path: "
                      f"{SAMPLE / 'seed.run'}}}\n")
    assert main(["import", str(config), str(SAMPLE / "golden.yaml"), "--as", "golden"]) == 0
    out = tmp_path / "golden.yaml"
    assert main(["export", str(config), "--format", "golden", "-o", str(out)]) == 0
    capsys.readouterr()
    original, texts, _ = read_golden_full(SAMPLE / "golden.yaml")
    again, texts_again, prov = read_golden_full(out)
    assert again.grades == original.grades
    assert list(again.grades) == list(original.grades)  # query order kept
    assert [list(d) for d in again.grades.values()] == [list(d) for d in
                                                        original.grades.values()]
    assert texts_again == texts
    assert all(p["assessors"] == ["golden"] and p["pool_version"] is None
               for p in prov.values())
    # Importing the export again changes nothing.
    with Store(store_path) as store:
        before = len(store.events())
    assert main(["import", str(config), str(out), "--as", "golden"]) == 0
    with Store(store_path) as store:
        assert len(store.events()) == before


def test_nothing_judged_yet_says_so_exits_non_zero_and_writes_nothing(tmp_path, capsys):
    build_store(tmp_path / "s.sqlite", TINY_QUERIES, TINY_DOCS, TINY_POOLS).close()
    config = write_config(tmp_path / "cfg", tmp_path / "s.sqlite")
    target = tmp_path / "labels.qrels"
    target.write_text("q0 0 d0 1\n")
    assert main(["export", str(config), "--format", "qrels", "-o", str(target)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "no labels to export yet" in err and len(err.splitlines()) == 1
    assert target.read_text() == "q0 0 d0 1\n"


def test_doc_ids_are_sorted_within_each_query_whatever_the_judging_order(tmp_path):
    from poolkit.app.export import ExportRequest, export

    pools = {"q1": ["d9", "d10", "d2", "d1"]}
    docs = {d: ("", f"text {d}") for d in pools["q1"]}
    store_path = tmp_path / "s.sqlite"
    with build_store(store_path, [QueryRecord("q1", "a query")], docs, pools) as store:
        for doc, grade in zip(pools["q1"], (1, 0, 2, 3)):
            store.record_event(Event("q1", doc, "alice", "grade", grade=grade))
    cfg = write_config(tmp_path / "cfg", store_path)
    out = export(ExportRequest(cfg, "qrels", "latest")).text
    assert [line.split()[2] for line in out.splitlines()] == ["d1", "d10", "d2", "d9"]


def test_export_formats_come_from_one_registry(tiny, capsys, monkeypatch):
    from poolkit.exports import EXPORT_FORMATS, ExportFormat

    assert list(EXPORT_FORMATS) == ["qrels", "golden"]
    tsv = ExportFormat("tsv", "query, doc, grade; tab separated", lambda data: "".join(
        f"{q}\t{d}\t{g}\n" for q, docs in data.grades.items() for d, g in docs.items()))
    monkeypatch.setitem(EXPORT_FORMATS, "tsv", tsv)
    assert main(["export", str(tiny), "--format", "tsv", "--policy", "max"]) == 0
    assert capsys.readouterr().out.splitlines()[:3] == ["q1\td1\t3", "q1\td2\t2", "q1\td3\t0"]
    with pytest.raises(SystemExit):
        main(["export", str(tiny), "--format", "csv"])
    assert "invalid choice: 'csv' (choose from 'qrels', 'golden', 'tsv')" in capsys.readouterr().err
