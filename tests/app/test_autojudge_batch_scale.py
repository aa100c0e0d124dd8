"""``autojudge --export-batch`` at a TREC track's scale: 120,000 pending pairs (a store built
through the store's API, no pooling; a passage per doc, shared by the queries) go to three
files, each within the Batch API's 50,000 lines and 200 MB, every request once; and pools of
any ids at all, split in shards, exported and imported back to their pairs."""

from __future__ import annotations

import json
from pathlib import Path

from autojudge_helpers import autojudge_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
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


ids = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(ids, st.lists(ids, min_size=1, max_size=3, unique=True), min_size=1,
                       max_size=3), st.integers(1, 3))
def test_any_ids_go_out_and_come_back_to_their_pairs(tmp_path_factory, capsys, pool, n):
    """Whatever the query and doc ids (':', '%', spaces, any script), the export names every
    pending pair of the shard once and the import of its answers grades exactly those."""
    root = tmp_path_factory.mktemp("ids")
    config = write_config(root, f"seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}")
    judge = {"kind": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "judge-m"}
    config.write_text(config.read_text() + "judges:\n  llm: " + json.dumps(judge) + "\n")
    with Store(root / "judgments.sqlite") as store:
        store.upsert_queries(QueryRecord(q, f"about {q}") for q in pool)
        store.add_pool_version({"seed": 3}, "docid", (
            NewMember(q, d, "", f"text of {d}", float(i)) for q, docs in pool.items()
            for i, d in enumerate(docs)), [])
    every: set[tuple[str, str]] = set()
    for shard in range(1, n + 1):
        doc, _ = autojudge_json(capsys, config, "llm", "--export-batch", str(root / f"b{shard}"),
                                "--shard", f"{shard}/{n}")
        lines = [json.loads(line) for f in doc["batch"]["files"]
                 for line in Path(f["file"]).read_text().splitlines()]
        named = [(k.qid, k.docid) for k in (parse_custom_id(r["custom_id"]) for r in lines)]
        assert len(set(named)) == len(named) and not set(named) & every
        every |= set(named)
        results = root / f"out{shard}.jsonl"
        results.write_text("".join(json.dumps({
            "id": f"r{i}", "custom_id": r["custom_id"], "error": None,
            "response": {"status_code": 200, "body": {"choices": [
                {"message": {"content": "2"}}]}}}) + "\n" for i, r in enumerate(lines)))
        got, _ = autojudge_json(capsys, config, "llm", "--import-batch", str(results))
        assert got["pairs"]["graded"] == len(lines) and got["grades"]["2"] == len(lines)
    assert every == {(q, d) for q, docs in pool.items() for d in docs}
    with Store(root / "judgments.sqlite") as store:
        graded = {(e.qid, e.docid) for e in store.events(kinds=["grade"], machine="llm")}
    assert graded == every
