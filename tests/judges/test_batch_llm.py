"""``autojudge --export-batch`` / ``--import-batch`` against the REAL llama.cpp server
(.ci/llama.sh, SmolLM2-135M-Instruct): the exported requests are posted as a batch runner
posts them (vLLM's ``run-batch`` reads the same lines), its answers written as the Batch API
writes results, and imported; each pair's event records exactly what the server answered to
its exported request, under the version the online path records. (The answers themselves
are not compared with the online path's: each request's passage delimiters differ, and the
small model's answer moves with them.)"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from llm_server import LlmServer
from pool_helpers import write_config
from shared_data import SAMPLE

from poolkit.app.pool import PoolRequest, pool
from poolkit.cli import main
from poolkit.config import load_config
from poolkit.judges.batch import parse_custom_id
from poolkit.store.backends import open_store

pytestmark = pytest.mark.slow  # the one-thread server reads ~300-token prompts

QUERY = "q_milk"
PAIRS = 4


def collection(folder: Path, server: LlmServer) -> Path:
    folder.mkdir()
    config = write_config(folder, f"seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}",
                          pool=f"depth: {PAIRS}")
    options = {"kind": "openai", "base_url": server.base_url, "model": server.model,
               "concurrency": 1, "max_attempts": 1, "timeout": 60.0}
    config.write_text(config.read_text() + f"cache_dir: {folder / 'cache'}\n"
                      "judges:\n  small: " + json.dumps(options) + "\n")
    pool(PoolRequest(config), log=lambda line: None)
    return config


def autojudge(capsys, config: Path, *args: str) -> dict:
    capsys.readouterr()
    code = main(["autojudge", str(config), "--judge", "small", "--queries", QUERY,
                 "--format", "json", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def run_batch(requests: Path, results: Path, server: LlmServer) -> dict[str, str]:
    """What a batch service does with the file: each request posted, each answer a line;
    the answers by custom_id."""
    root = server.base_url.removesuffix("/v1")
    lines = []
    for n, line in enumerate(requests.read_text().splitlines()):
        request = json.loads(line)
        post = urllib.request.Request(root + request["url"],
                                      data=json.dumps(request["body"]).encode(),
                                      headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(post, timeout=120) as response:
            body = json.loads(response.read())
        lines.append({"id": f"batch_req_{n}", "custom_id": request["custom_id"],
                      "response": {"status_code": 200, "request_id": f"r{n}", "body": body},
                      "error": None})
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return {line["custom_id"]: line["response"]["body"]["choices"][0]["message"]["content"]
            for line in lines}


def verdicts(config: Path) -> dict[tuple[str, str], tuple[str, int | None, str]]:
    with open_store(load_config(config).store) as store:
        return {(e.qid, e.docid): (e.kind, e.grade, json.loads(e.note)["answer"])
                for e in store.events(kinds=["grade", "note"], machine="small")}


def test_a_batch_through_the_real_server_records_what_the_online_path_does(
        tmp_path, capsys, llm_server):
    batched = collection(tmp_path / "batch", llm_server)
    exported = autojudge(capsys, batched, "--export-batch", str(tmp_path / "requests"))
    (requests,) = exported["batch"]["files"]
    assert requests["requests"] == PAIRS
    answers = run_batch(Path(requests["file"]), tmp_path / "results.jsonl", llm_server)
    imported = autojudge(capsys, batched, "--import-batch", str(tmp_path / "results.jsonl"))
    assert imported["batch"]["errors"] == [] and imported["batch"]["recorded"] == PAIRS
    online = collection(tmp_path / "online", llm_server)
    asked = autojudge(capsys, online)
    assert asked["version"] == imported["version"] == exported["version"]
    recorded = verdicts(batched)
    assert {(key.qid, key.docid): answer.strip() for cid, answer in answers.items()
            for key in [parse_custom_id(cid)]} == {
        pair: answer.strip() for pair, (_, _, answer) in recorded.items()}
    assert set(verdicts(online)) == set(recorded) and len(recorded) == PAIRS
    failed = sum(kind == "note" for kind, _, _ in recorded.values())
    assert imported["batch"]["pending"] == imported["pairs"]["failed"] == failed
