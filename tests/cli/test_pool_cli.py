"""``poolkit pool`` and ``poolkit import`` on the shipped sample config, end to end."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from poolkit.app.imports import ImportRequest, import_labels
from poolkit.app.pool import PoolRequest
from poolkit.app.pool import pool as pool_verb
from poolkit.cli import main
from poolkit.io.golden import read_golden
from poolkit.io.run import read_run

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # runs the dense model


@pytest.fixture
def sample(tmp_path):
    """configs/sample.yaml as shipped, beside a copy of the sample collection."""
    (tmp_path / "configs").mkdir()
    shutil.copy(REPO / "configs" / "sample.yaml", tmp_path / "configs" / "sample.yaml")
    (tmp_path / "sample_corpus").mkdir()
    for name in ("corpus.jsonl", "queries.jsonl", "golden.yaml"):
        shutil.copy(REPO / "sample_corpus" / name, tmp_path / "sample_corpus" / name)
    return tmp_path


def pool(capsys, *args):
    code = main(["pool", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def pooled_from_runs(root, depth):
    """Each query's pool computed from the written run files alone."""
    pools: dict[str, set[str]] = {}
    runs = root / "sample_corpus" / ".poolkit" / "runs"
    for name in ("bm25", "dense", "rerank"):
        for q, docs in read_run(runs / f"{name}.run").rankings.items():
            pools.setdefault(q, set()).update(docs[:depth])
    return pools


def events(root):
    with sqlite3.connect(root / "sample_corpus" / "judgments.sqlite") as c:
        return c.execute("SELECT * FROM events ORDER BY id").fetchall()


def test_pool_the_sample_expand_it_and_re_pool(sample, capsys):
    cfg = sample / "configs" / "sample.yaml"
    code, out, err = pool(capsys, cfg)
    assert code == 0
    assert "collection sample: 24 documents, 4 queries" in err
    assert "bm25 [bm25]" in err and "dense [dense]" in err and "rerank [rerank]" in err
    lines = out.splitlines()
    assert lines[0].startswith("pool version 1 of 1  |  4 queries,")
    firsts = [line.split()[0] for line in lines if line[:2] in ("q_", "al")]
    # The contributions table, then the pairwise overlap table: each query, then 'all'.
    assert firsts == ["q_faw", "q_store", "q_milk", "q_broad", "all"] * 2
    assert "added pool version 1:" in out
    runs = sample / "sample_corpus" / ".poolkit" / "runs"
    assert sorted(p.name for p in runs.iterdir()) == [
        "bm25.json", "bm25.run", "dense.json", "dense.run", "rerank.fetch.run", "rerank.json",
        "rerank.run"]

    # Unchanged: nothing added, and it says so.
    code, out, err = pool(capsys, cfg, "--format", "json")
    report = json.loads(out)
    assert report["added"]["version"] is None and report["version"] == 1
    assert report["added"]["new_docs"] == 0
    expected = pooled_from_runs(sample, 10)
    assert set(report["queries"]) == set(expected)
    for q, info in report["queries"].items():
        assert info["size"] == len(expected[q])
        assert set(info["by_system"]) == {"bm25", "dense", "rerank"}
        assert all(n == min(10, len(expected[q])) or n <= 10 for n in info["by_system"].values())
    code, out, _ = pool(capsys, cfg)
    assert "nothing new: the pool is unchanged at version 1" in out

    # Existing labels, then a deeper pool: a new version with only new documents.
    assert main(["import", str(cfg), str(sample / "sample_corpus" / "golden.yaml"),
                 "--as", "golden"]) == 0
    assert "17 graded pairs -> 17 new import events by 'golden'" in capsys.readouterr().out
    before = events(sample)
    code, out, _ = pool(capsys, cfg, "--depth", "15", "--format", "json", "--note", "deeper")
    report = json.loads(out)
    assert report["added"]["version"] == 2 and report["versions"][1]["note"] == "deeper"
    deeper = pooled_from_runs(sample, 15)
    assert report["overall"]["new"] == sum(len(deeper[q] - expected[q]) for q in deeper) > 0
    golden = read_golden(sample / "sample_corpus" / "golden.yaml").grades
    for q, info in report["queries"].items():
        assert info["size"] == len(deeper[q])
        assert info["by_version"]["2"] == len(deeper[q] - expected[q])
        assert info["judged"] == info["judged_by"].get("golden", 0) == \
            len(set(golden[q]) & deeper[q])
    assert events(sample) == before  # nothing judged was touched

    # Report as of version 1, without running anything.
    code, out, err = pool(capsys, cfg, "--report-only", "--pool-version", "1", "--format",
                          "json")
    assert json.loads(out)["overall"]["size"] == sum(len(v) for v in expected.values())
    assert err == ""


def test_external_run_with_unknown_ids(sample, capsys):
    cfg = sample / "configs" / "vendor.yaml"
    (sample / "configs" / "vendor.run").write_text(
        "q_faw Q0 m1 1 3.0 v\nq_faw Q0 m9 2 2.0 v\nq_faw Q0 x1 3 1.0 v\nq_nope Q0 d1 1 1.0 v\n")
    cfg.write_text("corpus: ../sample_corpus/corpus.jsonl\n"
                   "queries: ../sample_corpus/queries.jsonl\n"
                   "store: ../sample_corpus/vendor.sqlite\n"
                   "systems:\n  vendor: {kind: run, path: vendor.run}\n")
    code, out, err = pool(capsys, cfg, "--format", "json")
    assert code == 0
    assert "warning: vendor: 1 row names 1 doc id(s) not in the corpus (m9): dropped" in err
    assert "warning: vendor: 1 query id(s) not in the queries file (q_nope): 1 row dropped" in err
    report = json.loads(out)
    assert report["queries"]["q_faw"]["by_system"] == {"vendor": 2}
    assert list(report["queries"]) == ["q_faw"]
    assert len(report["warnings"]) == 3  # and: no results for three of the queries


def test_import_reports_unknown_ids(sample, tmp_path):
    cfg = sample / "configs" / "sample.yaml"
    qrels = tmp_path / "extra.qrels"
    qrels.write_text("q_faw 0 m1 2\nq_faw 0 ghost 1\nq_zzz 0 m1 1\n")
    result = import_labels(ImportRequest(cfg, qrels, "nist"))
    assert (result.pairs, result.imported) == (3, 1)
    assert result.unknown_queries == ["q_zzz"] and result.unknown_doc_pairs == 1
    out = import_labels(ImportRequest(cfg, qrels, "nist", keep_unknown=True)).render("table")
    assert "3 graded pairs -> 2 new import events by 'nist' (1 already standing)" in out
    assert "1 query id(s) not in queries.jsonl (q_zzz): 1 pair imported anyway" in out


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))}


@pytest.mark.parametrize("text, says", [
    ("q_faw 0 ghost 1\nq_faw 0 m1 -1\nq_zzz 0 m1 2\n",
     "extra.qrels:1: nothing to import: none of its 2 graded pairs names a query of "
     "queries.jsonl and a doc of corpus.jsonl (this line's doc 'ghost' is not in corpus.jsonl);"
     " wrong file or config? --keep-unknown imports them anyway"),
    ("q_zzz 0 m1 2\nq_faw 0 ghost 1\n",
     "extra.qrels:1: nothing to import: none of its 2 graded pairs names a query of "
     "queries.jsonl and a doc of corpus.jsonl (this line's query 'q_zzz' is not in "
     "queries.jsonl); wrong file or config? --keep-unknown imports them anyway"),
])
def test_import_of_a_file_with_nothing_known_is_refused(sample, capsys, tmp_path, text, says):
    """Partial overlap is normal (NIST qrels on a corpus subset: skipped, exit 0); a file none
    of whose pairs is in the collection is the wrong file or the wrong config."""
    cfg = sample / "configs" / "sample.yaml"
    golden = sample / "sample_corpus" / "golden.yaml"
    assert main(["import", str(cfg), str(golden), "--as", "golden"]) == 0  # a store to keep
    qrels = tmp_path / "extra.qrels"
    qrels.write_text(text)
    before = _tree(tmp_path)
    capsys.readouterr()
    assert main(["import", str(cfg), str(qrels), "--as", "nist"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [f"poolkit import: error: {tmp_path / says}"]
    assert _tree(tmp_path) == before
    assert main(["import", str(cfg), str(qrels), "--as", "nist", "--keep-unknown",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["imported"] == 2


BASE = ("corpus: ../sample_corpus/corpus.jsonl\nqueries: ../sample_corpus/queries.jsonl\n"
        "store: s.sqlite\n")


@pytest.mark.parametrize("body, args, message", [
    ("sotre: x\nsystems: {b: {kind: bm25}}\n", [],
     r"sample.yaml:4: unknown key in config 'sotre'.*did you mean 'store'"),
    ("systems: {b: {kind: bm25, engine: lucene}}\n", [],
     r"sample.yaml:4: systems.b.engine: unknown engine 'lucene'; valid: bm25s, rank_bm25"),
    ("systems: {b: {kind: bm25, k1: high}}\n", [],
     r"sample.yaml:4: systems.b.k1 must be int or float, found 'high'"),
    ("systems: {b: {kind: bm25, stem: klingon}}\n", [],
     r"sample.yaml:4: systems.b.stem: unknown stemmer 'klingon'"),
    ("systems:\n  b: {kind: bm25}\n  r: {kind: rerank, over: b, fetch: 10, depth: 20}\n", [],
     r"sample.yaml:6: systems.r.depth \(20\) is deeper than what it re-scores \(fetch: 10\)"),
    ("systems: {b: {kind: bm25}}\n", ["--order", "rrf"],
     r"error: --order: unknown judging order 'rrf'; valid: cal, docid, judge, mm-ns, mtf, "
     r"priority, shuffle"),
    ("systems: {b: {kind: bm25}}\n", ["--system", "bm52"],
     r"error: --system: unknown system 'bm52'; valid: b"),
    # order: judge orders by a machine judge's grades: without one named, said before any work
    ("systems: {b: {kind: bm25}}\npool: {order: judge}\n", [],
     r"sample.yaml:5: pool.order: 'judge' orders by a machine judge's grades: name the judge "
     r"with pool.judge_order: NAME"),
    ("systems: {b: {kind: bm25}}\n", ["--order", "judge"],
     r"error: .*pool.order: 'judge' orders by a machine judge's grades"),
])
def test_config_errors_are_one_line_with_exit_2(sample, capsys, body, args, message):
    import re

    cfg = sample / "configs" / "sample.yaml"
    cfg.write_text(BASE + body)
    code, out, err = pool(capsys, cfg, *args)
    assert code == 2 and out == ""
    assert err.startswith("poolkit pool: error: ") and err.count("\n") == 1
    assert re.search(message, err), err
    assert not list(sample.glob("sample_corpus/*.sqlite*"))  # no store made


def test_pool_version_is_for_reports_only(sample, capsys):
    code, out, err = pool(capsys, sample / "configs" / "sample.yaml", "--pool-version", "1")
    assert code == 2 and out == ""
    assert err == ("poolkit pool: error: --pool-version V reports an earlier version; it needs "
                   "--report-only (pooling always adds to the latest)\n")


def test_depth_must_be_positive(sample, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["pool", str(sample / "configs" / "sample.yaml"), "--depth", "0"])
    assert exc.value.code == 2
    assert "expected a positive integer, found 0" in capsys.readouterr().err


def bm25_config(root, k1):
    path = root / "configs" / "bm25.yaml"
    path.write_text("corpus: ../sample_corpus/corpus.jsonl\nqueries: ../sample_corpus/queries."
                    "jsonl\nstore: ../sample_corpus/bm25.sqlite\nsystems:\n"
                    f"  bm25: {{kind: bm25, depth: 20, k1: {k1}}}\npool:\n  depth: 3\n")
    return path


def test_an_old_pool_version_reports_the_run_it_was_built_from(sample):
    cfg = bm25_config(sample, 1.2)
    first = pool_verb(PoolRequest(cfg)).systems["bm25"]
    assert first["runs"] == {"1": first["run_sha256"]} and "k1=1.2" in first["about"]

    cfg = bm25_config(sample, 0.05)  # a different ranking brings new documents in
    report = pool_verb(PoolRequest(cfg))
    assert report.added is not None and report.added.version == 2
    second = report.systems["bm25"]
    assert second["run_sha256"] != first["run_sha256"] and "k1=0.05" in second["about"]
    assert second["runs"] == {"1": first["run_sha256"], "2": second["run_sha256"]}

    old = pool_verb(PoolRequest(cfg, report_only=True, pool_version=1))
    assert old.systems["bm25"] == first  # version 1's record stayed
    out = old.render("table", verbose=True)
    assert first["run_sha256"][:12] in out and second["run_sha256"][:12] not in out
    assert "k1=1.2" in out
    out = pool_verb(PoolRequest(cfg, report_only=True)).render("table")
    assert (f"bm25's run changed between versions: v1 {first['run_sha256'][:12]}, "
            f"v2 {second['run_sha256'][:12]}") in out


def test_bm25_pool_of_a_query_in_every_passage_is_not_empty(tmp_path, capsys):
    """BEIR-style two-passage corpus, query 'milk': Okapi's idf is negative for a word in
    every passage, so each scores below zero; both match, so both are pooled."""
    from pool_helpers import write_config

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "p1", "title": "", "text": "Milk is white."}) + "\n"
                      + json.dumps({"id": "p2", "title": "", "text": "Whole milk, skim milk."})
                      + "\n")
    queries = tmp_path / "queries.jsonl"
    queries.write_text(json.dumps({"id": "q", "text": "milk"}) + "\n")
    config = write_config(tmp_path, "bm25: {kind: bm25}", corpus=corpus, queries=queries)
    code, out, err = pool(capsys, config)
    assert code == 0 and "2 results for 1 queries" in err
    assert "pool: empty" not in out + err
    # A negative weight counts against each occurrence: p2 (milk twice) ranks below p1.
    assert read_run(tmp_path / "runs" / "bm25.run").rankings == {"q": ["p1", "p2"]}
