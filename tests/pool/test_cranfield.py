"""Cranfield (1,400 abstracts, 225 queries): BM25 + dense + rerank pooled at depth 20."""

from __future__ import annotations

import json

import pytest
from pool_helpers import write_config

from poolkit.cli import main
from poolkit.io.run import read_run

pytestmark = [pytest.mark.shared, pytest.mark.slow]  # encodes 1,400 abstracts (~1-2 min)


def test_cranfield_three_systems_depth_20(shared_dir, tmp_path, capsys):
    coll = shared_dir / "collections" / "cranfield"
    cfg = write_config(tmp_path, """
        bm25:   {kind: bm25, depth: 100}
        dense:  {kind: dense, depth: 100}
        rerank: {kind: rerank, over: bm25, fetch: 100, depth: 20}
    """, pool="depth: 20", corpus=coll / "corpus.jsonl", queries=coll / "queries.jsonl",
        cache=tmp_path / "cache")
    assert main(["import", str(cfg), str(coll / "qrels.txt"), "--as", "cranfield"]) == 0
    capsys.readouterr()
    assert main(["pool", str(cfg), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
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
    assert any((tmp_path / "cache").glob("dense-*.npy"))
    # Re-pooling (embeddings now cached) adds nothing.
    assert main(["pool", str(cfg), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["added"]["version"] is None
    assert "(embeddings cached)" in captured.err
    print(f"\nCranfield depth-20 pool: {overall['size']} pairs, {overall['judged']} judged in "
          f"the Cranfield qrels; only-by-system {overall['only']}")
