from __future__ import annotations

import json

import pytest

from poolkit.errors import StoreError
from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.pool.build import pool_runs
from poolkit.pool.report import pool_report, render_table
from poolkit.store import Event, QueryRecord, Store
from poolkit.store.imports import import_labels

DOCS = {d: ("", f"text {d}") for d in "abcdefgh"}
A = Run.from_mapping({"q1": ["a", "b", "c"], "q2": ["e", "f"]}, name="A")
B = Run.from_mapping({"q1": ["b", "d", "a"], "q2": ["f", "g"]}, name="B")
C = Run.from_mapping({"q1": ["h", "b"]}, name="C")


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.upsert_queries([QueryRecord("q1", "one"), QueryRecord("q2", "two")])
        pool_runs(s, {"A": A, "B": B}, {"A": 2, "B": 2}, DOCS)          # v1
        pool_runs(s, {"A": A, "B": B, "C": C}, {"A": 2, "B": 2, "C": 2}, DOCS)  # v2: C joins
        yield s


def test_counts_per_query_and_overall(store):
    import_labels(store, Qrels.from_mapping({"q1": {"a": 1, "x": 0}}), "nist")
    store.record_event(Event("q1", "b", "alice", "grade", grade=2))
    store.record_event(Event("q1", "a", "alice", "grade", grade=3))
    r = pool_report(store)
    q1, q2 = r["queries"]["q1"], r["queries"]["q2"]
    # q1: A brings a, b; B brings b, d; C brings h, b.
    assert (q1["size"], q1["new"], q1["by_version"]) == (4, 1, {"1": 3, "2": 1})
    assert q1["by_system"] == {"A": 2, "B": 2, "C": 2}
    assert q1["only"] == {"A": 1, "B": 1, "C": 1}
    assert q1["overlap"] == {"A": {"B": 1, "C": 1}, "B": {"A": 1, "C": 1},
                             "C": {"A": 1, "B": 1}}
    assert (q1["judged"], q1["judged_by"]) == (2, {"nist": 1, "alice": 2})
    assert q1["text"] == "one"
    # q2: A brings e, f; B brings f, g; C ranks nothing.
    assert (q2["size"], q2["by_system"], q2["only"]) == (3, {"A": 2, "B": 2, "C": 0},
                                                        {"A": 1, "B": 1, "C": 0})
    o = r["overall"]
    assert (o["queries"], o["size"], o["new"], o["judged"]) == (2, 7, 1, 2)
    assert o["by_system"] == {"A": 4, "B": 4, "C": 2} and o["only"] == {"A": 2, "B": 2, "C": 1}
    assert o["overlap"]["A"]["B"] == 2 and o["judged_by"] == {"nist": 1, "alice": 2}
    assert r["systems"]["C"]["depth"] == 2 and r["systems"]["C"]["first_version"] == 2
    assert [v["added"] for v in r["versions"]] == [6, 1]
    assert r.version == 2 and r.to_dict()["queries"] is r.queries  # a typed report
    json.dumps(r.to_dict())  # JSON-ready


def test_report_as_of_an_earlier_version(store):
    r = pool_report(store, version=1)
    assert r["version"] == 1 and list(r["systems"]) == ["A", "B"]
    assert r["queries"]["q1"]["size"] == 3 and r["queries"]["q1"]["by_system"] == {"A": 2, "B": 2}
    with pytest.raises(StoreError, match="no pool version 3; the store has 1, 2"):
        pool_report(store, version=3)


def test_table_shows_the_counts(store):
    text = render_table(pool_report(store))
    lines = text.splitlines()
    assert lines[0].startswith("pool version 2 of 2  |  2 queries, 7 pooled documents, "
                               "0 already judged")
    header = next(line for line in lines if line.startswith("query"))
    assert header.split() == ["query", "size", "new", "judged", "A", "B", "C"]
    assert next(line for line in lines if line.startswith("q1")).split() == \
        ["q1", "4", "1", "0", "2", "(1)", "2", "(1)", "2", "(1)"]
    assert next(line for line in lines if line.startswith("all")).split() == \
        ["all", "7", "1", "0", "4", "(2)", "4", "(2)", "2", "(1)"]
    # Pairwise overlap per query and overall (share of the smaller contribution).
    at = lines.index(next(line for line in lines if line.startswith("pairwise overlap")))
    assert lines[at + 1].split() == ["query", "A&B", "A&C", "B&C"]
    assert lines[at + 2].split() == ["q1", "1", "1", "1"]
    assert lines[at + 3].split() == ["q2", "1", "0", "0"]
    assert lines[at + 5].split() == ["all", "2", "(50%)", "1", "(50%)", "1", "(50%)"]


def test_table_with_many_systems_shows_overall_overlap_only(tmp_path):
    runs = {n: Run.from_mapping({"q1": ["a", n]}, name=n) for n in "vwxyz"}
    docs = {d: ("", d) for d in "avwxyz"}
    with Store(tmp_path / "s.sqlite") as s:
        pool_runs(s, runs, dict.fromkeys(runs, 2), docs)
        text = render_table(pool_report(s))
    assert "pairwise overlap, all queries (per query: --format json)" in text
    lines = text.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("pairwise overlap")))
    assert lines[at + 1].split() == ["w", "x", "y", "z"]
    assert lines[at + 2].split() == ["v", *["1", "(50%)"] * 4]


def test_empty_store_reports_an_empty_pool(tmp_path):
    with Store(tmp_path / "e.sqlite") as s:
        r = pool_report(s)
    assert r["queries"] == {} and r["version"] is None
    assert render_table(r).startswith("pool: empty")


def test_an_old_version_reports_the_runs_it_was_built_from(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.register_system("A", "bm25", {"k1": 0.9}, "a" * 64, "runs/A.run")
        pool_runs(s, {"A": A}, {"A": 1}, DOCS)  # v1
        s.register_system("A", "bm25", {"k1": 2.0}, "b" * 64, "runs/A.run")
        pool_runs(s, {"A": A}, {"A": 2}, DOCS)  # v2
        old, new = pool_report(s, version=1), pool_report(s)
    assert old["systems"]["A"]["run_sha256"] == "a" * 64
    assert old["systems"]["A"]["runs"] == {"1": "a" * 64}
    assert new["systems"]["A"]["run_sha256"] == "b" * 64
    assert new["systems"]["A"]["runs"] == {"1": "a" * 64, "2": "b" * 64}
    assert "A's run changed between versions: v1 aaaaaaaaaaaa, v2 bbbbbbbbbbbb" in \
        render_table(new)
    assert "changed between versions" not in render_table(old)
