"""For every export policy and both formats: export -> score reads the labels as exported,
and export -> import -> export reproduces them (the grade scale is one contract)."""

from __future__ import annotations

import pytest
from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, build_store

from poolkit.cli import main
from poolkit.io import read_labels
from poolkit.policies import POLICIES
from poolkit.store import Event


@pytest.fixture
def world(tmp_path):
    store_path = tmp_path / "s.sqlite"
    with build_store(store_path, TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        for doc, a, b in (("d1", 3, 3), ("d2", 0, 1), ("d3", 2, 2), ("d4", 1, 0)):
            qid = "q1" if doc in TINY_POOLS["q1"] else "q2"
            store.record_event(Event(qid, doc, "alice", "grade", grade=a))
            store.record_event(Event(qid, doc, "bob", "grade", grade=b))
        store.record_event(Event("q1", "d2", "carol", "adjudicate", grade=1))
        store.record_event(Event("q2", "d5", "alice", "grade", grade=0))
    (tmp_path / "corpus.jsonl").write_text("".join(
        f'{{"id": "{d}", "text": "x"}}\n' for d in TINY_DOCS))
    (tmp_path / "queries.jsonl").write_text("".join(
        f'{{"id": "{q.qid}", "text": "{q.text}"}}\n' for q in TINY_QUERIES))
    (tmp_path / "sys.run").write_text("".join(
        f"{q} Q0 {d} {i + 1} {10 - i} sys\n" for q, ds in TINY_POOLS.items()
        for i, d in enumerate(ds)))
    config = tmp_path / "config.yaml"
    config.write_text(f"corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: {store_path}\n"
                      "systems:\n  sys: {kind: run, path: sys.run}\n")
    return tmp_path, config


@pytest.mark.parametrize("fmt, suffix", [("qrels", ".qrels"), ("golden", ".yaml")])
@pytest.mark.parametrize("policy", list(POLICIES))
def test_export_then_score_and_import_reproduce_the_labels(world, capsys, policy, fmt, suffix):
    root, config = world
    exported = root / f"{policy}{suffix}"
    assert main(["export", str(config), "--format", fmt, "--policy", policy,
                 "-o", str(exported)]) == 0
    labels = read_labels(exported).grades
    assert labels and all(0 <= g <= 3 for docs in labels.values() for g in docs.values())
    assert main(["score", str(exported), str(root / "sys.run"), "--format", "json"]) == 0
    name = f"rt-{policy}-{fmt}"
    assert main(["import", str(config), str(exported), "--as", name]) == 0
    again = root / f"again{suffix}"
    assert main(["export", str(config), "--format", fmt, "--policy", "latest",
                 "--assessor", name, "-o", str(again)]) == 0
    assert read_labels(again).grades == labels
    capsys.readouterr()
