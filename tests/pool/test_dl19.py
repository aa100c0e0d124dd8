"""The six real DL19 passage runs pooled at depth 10, checked against an independent count."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from pool_helpers import write_config

from poolkit.cli import main

pytestmark = pytest.mark.shared


def top10(path):
    """Each query's top 10 by trec_eval's order (score desc, doc id desc), read by hand."""
    rows = defaultdict(list)
    for line in path.read_text().splitlines():
        qid, _q0, docid, _rank, score, _tag = line.split()
        rows[qid].append((float(score), docid))
    return {q: {d for _s, d in sorted(r, reverse=True)[:10]} for q, r in rows.items()}


def test_dl19_pool_depth_10(shared_dir, tmp_path, capsys):
    coll = shared_dir / "collections" / "dl19-passage-pool"
    run_files = sorted((coll / "runs").glob("*.run"))
    assert len(run_files) == 6
    systems = "\n".join(f"{p.stem}: {{kind: run, path: {p}}}" for p in run_files)
    cfg = write_config(tmp_path, systems, pool="depth: 10\norder: docid",
                       corpus=coll / "corpus.jsonl", queries=coll / "queries.jsonl")
    assert main(["import", str(cfg), str(coll / "qrels.txt"), "--as", "nist"]) == 0
    capsys.readouterr()
    assert main(["pool", str(cfg), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)

    tops = {p.stem: top10(p) for p in run_files}
    judged = set()
    for line in (coll / "qrels.txt").read_text().splitlines():
        qid, _iter, docid, _grade = line.split()
        judged.add((qid, docid))
    qids = sorted({q for t in tops.values() for q in t})
    assert sorted(report["queries"]) == qids and len(qids) == 43
    total_judged = 0
    for q in qids:
        pool = set().union(*(t.get(q, set()) for t in tops.values()))
        got = report["queries"][q]
        assert got["size"] == len(pool)
        for s, t in tops.items():
            others = set().union(*(o.get(q, set()) for n, o in tops.items() if n != s))
            assert got["by_system"][s] == len(t[q])
            assert got["only"][s] == len(t[q] - others), (q, s)
        n_judged = sum((q, d) in judged for d in pool)
        assert got["judged"] == got["judged_by"].get("nist", 0) == n_judged
        total_judged += n_judged
    overall = report["overall"]
    assert overall["judged"] == total_judged
    assert overall["size"] == sum(report["queries"][q]["size"] for q in qids)
    print(f"\nDL19 depth-10 pool of 6 runs: {overall['size']} pairs, "
          f"{total_judged} already judged by NIST ({total_judged / overall['size']:.1%}); "
          f"only-by-system: {overall['only']}")
