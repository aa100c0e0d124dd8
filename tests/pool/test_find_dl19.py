"""Issue 26's acceptance beyond the pool, on TREC DL 2019 (six runs at depth 20, NIST's full
qrels as the assessor, the shared corpus of 14,581 passages): with 10% and 25% more
judgments than the pool, the classifier finds more relevant passages per judgment than
deepening every run's pool by as many. The README's figures are these (``poolkit simulate
... --find 0.1,0.25``)."""

from __future__ import annotations

import pytest

from poolkit.analysis.inputs import read_runs
from poolkit.io.corpus import read_corpus, read_queries
from poolkit.io.readers import read_labels
from poolkit.pool.find import CorpusFinder
from poolkit.pool.find_replay import replay_find
from poolkit.pool.provenance import pools_from_runs

pytestmark = pytest.mark.shared


def test_the_classifier_finds_more_relevant_per_judgment_than_deepening(shared_dir):
    coll = shared_dir / "collections" / "dl19-passage-pool"
    runs = read_runs(sorted(str(p) for p in (coll / "runs").glob("*.run")))
    pools = pools_from_runs(runs, 20)
    finder = CorpusFinder.of(read_corpus(coll / "corpus.jsonl"),
                             {q.qid: q.text for q in read_queries(coll / "queries.jsonl")})
    doc = replay_find(finder, {q: p.docs for q, p in pools.items()},
                      read_labels(coll / "qrels.full.txt"), runs,
                      [("0.1", 0.1), ("0.25", 0.25)])
    assert doc["pool"] == 2280 and doc["outside_relevant"] == 1541
    found = {}
    for key, b in doc["budgets"].items():
        c, d = b["classifier"], b["deepen"]
        assert d["judged"] == b["judged"]  # the same cost
        assert c["per_judgment"] > d["per_judgment"], key
        found[key] = (b["judged"], c["relevant_found"], d["relevant_found"], d["depth"])
    # the README's table (poolkit simulate ... --find 0.1,0.25)
    assert found == {"0.1": (232, 141, 72, 25), "0.25": (579, 308, 192, 30)}
