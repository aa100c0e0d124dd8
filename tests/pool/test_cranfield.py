"""Cranfield (1,400 abstracts, 225 queries): BM25 + dense + rerank pooled at depth 20, then
judging replayed on that pool with the Cranfield qrels as the assessor (`poolkit simulate`)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from pool_helpers import write_config
from shared_data import LASTING_CACHE, lasting_cache

from poolkit.cli import main
from poolkit.io.run import read_run

# Encodes 1,400 abstracts (~1-2 min) once per machine: the embeddings are kept in the lasting
# test cache (shared_data.LASTING_CACHE), keyed by model and corpus hash.
pytestmark = [pytest.mark.shared, pytest.mark.slow]


def run_cli(*argv: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(list(argv)) == 0, err.getvalue()
    return out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def pooled(shared_dir, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("cranfield")
    coll = shared_dir / "collections" / "cranfield"
    cfg = write_config(tmp_path, """
        bm25:   {kind: bm25, depth: 100}
        dense:  {kind: dense, depth: 100}
        rerank: {kind: rerank, over: bm25, fetch: 100, depth: 20}
    """, pool="depth: 20", corpus=coll / "corpus.jsonl", queries=coll / "queries.jsonl",
        cache=LASTING_CACHE / "cranfield")
    with lasting_cache("cranfield"):  # another xdist worker waits, then reads the embeddings
        run_cli("import", str(cfg), str(coll / "qrels.txt"), "--as", "cranfield")
        out, _ = run_cli("pool", str(cfg), "--format", "json")
    return tmp_path, cfg, coll, json.loads(out)


def test_cranfield_three_systems_depth_20(pooled):
    tmp_path, cfg, _, report = pooled
    overall = report["overall"]
    assert overall["queries"] == 225 and report["added"]["version"] == 1
    assert overall["by_system"] == {"bm25": 4500, "dense": 4500, "rerank": 4500}
    assert 4500 < overall["size"] < 13500
    assert all(q["size"] >= 20 for q in report["queries"].values())
    # Both stages of the reranker are on disk to be scored: fetch 100, keep 20.
    runs = tmp_path / "runs"
    fetch, keep = read_run(runs / "rerank.fetch.run"), read_run(runs / "rerank.run")
    assert {len(d) for d in fetch.rankings.values()} == {100}
    assert {len(d) for d in keep.rankings.values()} == {20}
    # The dense run's embeddings are in the configured cache (written there by this session
    # or by an earlier one: the file's name is the model's key and the corpus's hash).
    cached = json.loads((runs / "dense.json").read_text())["retriever"]["embedding_cache"]
    assert Path(cached).parent == LASTING_CACHE / "cranfield" and Path(cached).is_file()
    # Re-pooling adds nothing, and the dense system's unchanged run is reused (not even its
    # cached embeddings are read).
    out, err = run_cli("pool", str(cfg), "--format", "json")
    assert json.loads(out)["added"]["version"] is None
    dense = next(line for line in err.splitlines() if line.startswith("dense [dense]"))
    assert "reused" in dense, err


def test_cranfield_replay(pooled):
    """The issue's acceptance checks on Cranfield, as this data answers them (README)."""
    _, cfg, coll, _ = pooled
    # Only the budgets asserted below: each budget is read off the same replay, so the
    # others (estimates and tau at 0.1, 0.75, 1) would only cost time.
    out, _ = run_cli("simulate", str(cfg), "--qrels", str(coll / "qrels.txt"),
                     "--budgets", "0.25,0.5", "--format", "json")
    doc = json.loads(out)
    assert doc["queries"] == 225
    found = {n: {b: s["budgets"][b]["relevant_found"] for b in ("0.25", "0.5")}
             for n, s in doc["strategies"].items()}
    for adaptive in ("mtf", "mm-ns"):
        for budget in ("0.25", "0.5"):
            for fixed in ("shuffle", "docid"):
                assert found[adaptive][budget] > 1.5 * found[fixed][budget]
        # Against RRF priority the data says: behind at 0.25, level (within 1% of the
        # relevant documents) at 0.5.
        assert found[adaptive]["0.25"] < found["priority"]["0.25"]
        assert abs(found[adaptive]["0.5"] - found["priority"]["0.5"]) <= 0.01 * doc["relevant"]
    for name, s in doc["strategies"].items():
        assert s["budgets"]["0.5"]["interval_coverage"] >= 0.9, name
        assert s["stop"]["share_reaching_target"] >= 0.9, name


def test_cranfield_stopping_rules_under_cal_as_measured(pooled):
    """quant-sample replayed on Cranfield with its settings as chosen on DL 2019, not tuned
    here (README: it stops early and misses: 4,774 of 7,794 judged, 155 of 225 queries at
    recall 0.9); knee stops at 74% of the pool short of 0.9 on 14% of the queries; target
    keeps its promise by judging everything (about four relevant passages per query, fewer
    than its sample of 29)."""
    _, cfg, coll, _ = pooled
    out, _ = run_cli("simulate", str(cfg), "--qrels", str(coll / "qrels.txt"), "--strategy",
                     "cal", "--stop", "quant-sample,knee,target", "--budgets", "0.5",
                     "--format", "json")
    doc = json.loads(out)
    assert (doc["pool"], doc["queries"], doc["relevant"]) == (7794, 225, 930)
    stops = doc["strategies"]["cal"]["stops"]
    sample = stops["quant-sample"]
    assert (sample["judged"], sample["relevant_found"]) == (4774, 818)
    assert round(sample["share_reaching_target"] * 225) == 155     # 68.9%: under the 90%
    assert sample["promise"].startswith("no guarantee, heuristic")
    assert (stops["knee"]["judged"], round(stops["knee"]["share_reaching_target"] * 225)) \
        == (5739, 193)
    assert stops["target"]["judged"] == 7794 and stops["target"]["share_reaching_target"] == 1
    assert "probability >= 0.95" in stops["target"]["promise"]
