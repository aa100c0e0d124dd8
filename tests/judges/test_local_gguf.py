"""The ``local`` judge kind end to end on the REAL SmolLM2-135M-Instruct GGUF (the file CI's
llama.cpp server serves, ``POOLKIT_TEST_LLM_GGUF`` from .ci/llama.sh), loaded in-process by
transformers: ``poolkit autojudge`` grades a few of the sample's pairs in one batch, every
pair graded (a distribution is always read, so nothing fails to parse), provenance complete.
Loading the GGUF takes most of the time (about 25 s on a busy 2-core machine); the README
gives the judge's kappa on the whole sample and the commands that measure it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from pool_helpers import write_config
from shared_data import SAMPLE

from poolkit.app.pool import PoolRequest, pool
from poolkit.cli import main
from poolkit.config import load_config
from poolkit.store.backends import open_store

QUERY = "q_faw"
PAIRS = 4  # one batch


def autojudge(capsys, config: Path) -> dict:
    code = main(["autojudge", str(config), "--judge", "small", "--format", "json",
                 "--queries", QUERY, "--limit", str(PAIRS)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_the_real_gguf_grades_the_sample_in_process(tmp_path, llm_gguf, capsys):
    config = write_config(tmp_path, f"seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}")
    options = {"kind": "local", "path": str(llm_gguf), "batch_size": 4}
    config.write_text(config.read_text() + "judges:\n  small: " + json.dumps(options) + "\n")
    pool(PoolRequest(config), log=lambda line: None)

    started = time.monotonic()
    doc = autojudge(capsys, config)
    seconds = time.monotonic() - started
    assert doc["pairs"] == {"total": 10, "graded": PAIRS, "already": 0, "failed": 0,
            "flagged": 0, "given_up": 0}
    assert doc["model"]  # as the file states it (general.name)
    with open_store(load_config(config).store) as store:
        events = store.events(kinds=["grade"], machine="small")
    assert len({(e.qid, e.docid) for e in events}) == len(events) == PAIRS
    for e in events:
        note = json.loads(e.note)
        assert (e.origin, e.judge_version, e.source) == ("machine", doc["version"],
                                                         doc["model"])
        assert note["kind"] == "local" and note["model"] == doc["model"]
        assert note["text_sha256"] == e.text_hash and len(note["prompt_sha256"]) == 64
        dist = note["distribution"]
        assert abs(sum(dist.values()) - 1) < 1e-3
        assert max(range(4), key=lambda g: (dist[str(g)], -g)) == e.grade == note["grade"]
        assert 0 < note["grade_mass"] <= 1 and note["tokens"]["prompt"] > 100
        assert note["latency"] > 0
    print(f"\nlocal SmolLM2-135M: {PAIRS} pairs in {seconds:.1f} s")
