"""compare and reusability (store form) score a ``kind: run`` system exactly as ``poolkit
score`` scores the user's own file: on every DL19 run, the same per-query values.

(Before issue 8 they scored poolkit's copy, written with 6-decimal scores: near-equal scores
became ties that trec_eval's tie-break reordered, so the numbers drifted.)
"""

from __future__ import annotations

import json

import pytest
from pool_helpers import write_config

from poolkit.cli import main

pytestmark = [pytest.mark.shared, pytest.mark.slow]
MEASURES = "AP,nDCG@10,P@10,R@100,RR"


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_store_form_analyses_equal_score_on_the_original_files(shared_dir, tmp_path, capsys):
    coll = shared_dir / "collections" / "dl19-passage-pool"
    run_files = sorted((coll / "runs").glob("*.run"))
    assert len(run_files) == 6
    systems = "\n".join(f"{p.stem}: {{kind: run, path: {p}}}" for p in run_files)
    cfg = str(write_config(tmp_path, systems, pool="depth: 10\norder: docid",
                           corpus=coll / "corpus.jsonl", queries=coll / "queries.jsonl"))
    assert main(["import", cfg, str(coll / "qrels.txt"), "--as", "nist"]) == 0
    assert main(["pool", cfg, "--system", "bm25"]) == 0  # version 1
    assert main(["pool", cfg]) == 0  # version 2: every run
    labels = tmp_path / "v2.qrels"
    assert main(["export", cfg, "--format", "qrels", "--pool-version", "2",
                 "-o", str(labels)]) == 0

    compared = _json(capsys, ["compare", cfg, "-m", MEASURES, "--format", "json"])
    reused = _json(capsys, ["reusability", cfg, "-m", MEASURES, "--format", "json"])
    by_name = {r["name"]: r for r in compared["runs"]}
    for path in run_files:
        scored = _json(capsys, ["score", str(labels), str(path), "-m", MEASURES,
                                "--format", "json"])["runs"][0]["measures"]
        for measure, values in scored.items():
            after = {q: v["after"] for q, v in
                     by_name[path.stem]["measures"][measure]["per_query"].items()
                     if v["after"] is not None}
            assert after == values["per_query"], (path.stem, measure)
            assert reused["full"][path.stem][measure] == values["mean"], (path.stem, measure)
