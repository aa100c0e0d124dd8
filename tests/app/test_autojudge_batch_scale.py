"""``autojudge --export-batch`` at a TREC track's scale: 120,000 pending pairs (a store built
through the store's API, no pooling; a passage per doc, shared by the queries) go to three
files, each within the Batch API's 50,000 lines and 200 MB, every request once."""

from __future__ import annotations

import json
from pathlib import Path

from autojudge_helpers import autojudge_json
from pool_helpers import write_config
from shared_data import SAMPLE

from poolkit.judges.batch import MAX_BYTES, MAX_LINES, parse_custom_id
from poolkit.store import Store
from poolkit.store.records import NewMember, QueryRecord

QUERIES, DOCS = 300, 400  # 120,000 pairs


def big_collection(tmp_path: Path) -> Path:
    config = write_config(tmp_path, f"seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}")
    judge = {"kind": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "judge-m"}
    config.write_text(config.read_text() + "judges:\n  llm: " + json.dumps(judge) + "\n")
    with Store(tmp_path / "judgments.sqlite") as store:
        store.upsert_queries(QueryRecord(f"q{q}", f"query {q} words") for q in range(QUERIES))
        store.add_pool_version({"seed": DOCS}, "docid", (
            NewMember(f"q{q}", f"d{d}", "", f"passage {d}", float(d))
            for q in range(QUERIES) for d in range(DOCS)), [])
    return config


def test_120000_pending_pairs_go_to_three_files_within_both_limits(tmp_path, capsys):
    config = big_collection(tmp_path)
    out = tmp_path / "batch"
    doc, _ = autojudge_json(capsys, config, "llm", "--export-batch", str(out))
    files = doc["batch"]["files"]
    assert doc["batch"]["requests"] == QUERIES * DOCS and len(files) == 3
    assert [f["requests"] for f in files] == [MAX_LINES, MAX_LINES, 20_000]
    assert sorted(p.name for p in out.iterdir()) == \
        ["batch-0001.jsonl", "batch-0002.jsonl", "batch-0003.jsonl"]
    seen = 0
    for f in files:
        path = Path(f["file"])
        size = path.stat().st_size
        assert size == f["bytes"] <= MAX_BYTES
        with path.open("rb") as fh:
            for n, line in enumerate(fh):
                if n % 997 == 0:  # a sample of lines, read whole
                    request = json.loads(line)
                    key = parse_custom_id(request["custom_id"])
                    assert (key.version, key.reading) == (doc["version"], 0)
                    assert (request["method"], request["url"]) == ("POST",
                                                                   "/v1/chat/completions")
                    prompt = request["body"]["messages"][-1]["content"]
                    assert f"passage {key.docid[1:]}" in prompt
                    assert f"query {key.qid[1:]} words" in prompt
                seen += 1
        assert n + 1 == f["requests"] <= MAX_LINES
    assert seen == QUERIES * DOCS
