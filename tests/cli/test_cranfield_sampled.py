"""Issue 27's Cranfield case: a sampled pool whose labels are an import, not the draw.

BM25 alone (the issue pooled BM25 + dense + rerank; dense encodes 1,400 abstracts, minutes on
shared cores, and changes nothing here: the import covers a picked part of the draw whatever
the runs): ``pool: {strategy: sample, depth: 50, strata: [[1,10,1.0],[11,30,0.3],[31,50,0.1]],
seed: 13}``, the Cranfield qrels imported as ``nist``, the design and labels exported, the run
scored with xinfAP and infNDCG@10. Before, that printed xinfAP 0.606 and infNDCG@10 0.679
from every label (the qrels' AP 0.294, nDCG@10 0.364), exit 0, no word. Now the 1,038 labels
outside the draw are left out, and since the 799 left on drawn pairs are still a pick (the
qrels list relevant documents), the estimates (0.611, 0.787) come with three lines saying
they rest on no random sample.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import jsonschema
import pytest
from pool_helpers import write_config

from poolkit.cli import main
from poolkit.io.sample import read_sample
from poolkit.schemas import load_schema

pytestmark = [pytest.mark.shared]


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def exported(shared_dir: Path, tmp_path_factory) -> tuple[Path, Path, Path, dict]:
    tmp = tmp_path_factory.mktemp("cranfield-sampled")
    coll = shared_dir / "collections" / "cranfield"
    cfg = write_config(tmp, "bm25: {kind: bm25, depth: 50}", pool=(
        "strategy: sample\ndepth: 50\nstrata: [[1, 10, 1.0], [11, 30, 0.3], [31, 50, 0.1]]\n"
        "seed: 13"), corpus=coll / "corpus.jsonl", queries=coll / "queries.jsonl")
    code, out, err = run_cli("pool", str(cfg), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert run_cli("import", str(cfg), str(coll / "qrels.txt"), "--as", "nist")[0] == 0
    qrels, sample = tmp / "s.qrels", tmp / "pool.sample"
    assert run_cli("export", str(cfg), "--format", "qrels", "--unjudged", "-1", "-o",
                   str(qrels), "--sample", str(sample))[0] == 0
    return tmp, qrels, sample, report


def test_the_pool_says_pooled_and_drawn_per_stratum(exported) -> None:
    *_, report = exported
    design = report["design"]
    assert [(c["stratum"], c["pooled"], c["drawn"]) for c in design["strata"]] == [
        ("1-10", 2250, 2250), ("11-30", 4500, 1350), ("31-50", 4500, 450)]
    assert (design["pooled"], design["drawn"], report["overall"]["size"]) == (11250, 4050, 4050)
    assert report["systems"]["bm25"]["depth"] == 50


def test_the_export_marks_the_draw_and_writes_no_undrawn_pair_as_unjudged(exported) -> None:
    _, qrels, sample, _ = exported
    design = read_sample(sample)
    undrawn = {(q, d) for q, s in design.items() for d, n in (s.drawn or {}).items() if not n}
    assert len(undrawn) == 11250 - 4050
    unjudged = {tuple(line.split()[::2][:2]) for line in qrels.read_text().splitlines()
                if line.endswith(" -1")}
    assert unjudged and not unjudged & undrawn


def test_score_leaves_out_the_labels_outside_the_draw_and_says_why(exported) -> None:
    tmp, qrels, sample, _ = exported
    code, out, err = run_cli("score", str(qrels), str(tmp / "runs" / "bm25.run"), "--sample",
                             str(sample), "-m", "xinfAP,infNDCG@10", "--format", "json")
    assert code == 0
    assert err.splitlines() == [
        "sample: 1038 label(s) on pairs the design did not draw are left out of every "
        "estimate (xinfAP, infNDCG, statAP, R_est): they are not a random sample of the pool",
        "sample: only 799 of 4050 drawn pairs are judged (20%): the estimates rest on few "
        "judgments",
        "sample: in 277 of 675 query strata the judged drawn pairs are not the first of the "
        "judging queue: they were picked, not drawn at random, and the estimates may be biased"]
    doc = json.loads(out)
    jsonschema.Draft202012Validator(load_schema("score")).validate(doc)
    assert doc["sample"]["undrawn_labels"] == 1038 and doc["sample"]["caveats"] == err.splitlines()
