"""``poolkit check-judge`` against the REAL llama.cpp server (.ci/llama.sh) serving
SmolLM2-135M-Instruct: canaries planted in the passages bob graded 0, asked through the
command line, the check recorded whole and no event added; the report's figures for the
whole sample are in docs/how-to/vet-a-judge.md (the commands are there).

A 135M model answers many prompts with words instead of a digit (``max_attempts: 1``: at
temperature 0 a second try repeats the first answer), so a kind may have failed canaries, or
no grade at all (no rate: untrusted); the test holds whatever the model says.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from llm_server import LlmServer
from pool_helpers import write_config
from shared_data import SAMPLE

from poolkit.app.pool import PoolRequest, pool
from poolkit.cli import main
from poolkit.config import load_config
from poolkit.schemas import load_schema
from poolkit.store.backends import open_store

pytestmark = pytest.mark.slow  # a minute or so: the one-thread server reads ~9 prompts

PER_KIND = 2


def test_the_real_judge_goes_through_check_judge(tmp_path: Path, llm_server: LlmServer,
                                                 capsys):
    config = write_config(tmp_path, f"seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}",
                          pool="depth: 3")
    options = {"kind": "openai", "base_url": llm_server.base_url, "model": llm_server.model,
               "concurrency": 2, "max_attempts": 1, "timeout": 120.0}
    config.write_text(config.read_text() + f"cache_dir: {tmp_path / 'cache'}\n"
                      "judges:\n  small: " + json.dumps(options) + "\n")
    pool(PoolRequest(config), log=lambda line: None)
    assert main(["import", str(config), str(SAMPLE / "assessor_b.yaml"), "--as", "bob"]) == 0
    assert main(["autojudge", str(config), "--judge", "small", "--queries", "q_milk"]) == 0
    with open_store(load_config(config).store) as store:
        events = store.events() + store.events(machine="small")
    capsys.readouterr()
    assert main(["check-judge", str(config), "--judge", "small", "--canaries", str(PER_KIND),
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_schema("check-judge"), cls=jsonschema.Draft202012Validator)
    print(json.dumps(doc["canaries"]), doc["trusted"], doc.get("people", {}).get("kappa"))
    for kind in ("terms", "instruction", "both"):
        got = doc["canaries"][kind]
        assert got["planted"] == PER_KIND == got["graded"] + got["failed"]
        assert got["rate"] == (None if not got["graded"]
                               else round(got["fooled"] / got["graded"], 6))
    assert doc["trusted"] == all(k["rate"] is not None and k["rate"] <= 0.1
                                 for k in doc["canaries"].values())
    with open_store(load_config(config).store) as store:
        (made,) = store.judge_checks("small")
        canaries = store.canaries(made.id)
        assert made.trusted == doc["trusted"] and len(canaries) == 3 * PER_KIND
        assert all(c.model == llm_server.model for c in canaries)
        assert store.events() + store.events(machine="small") == events
    code = main(["estimate", str(config), "--machine", "small"])
    err = capsys.readouterr().err
    graded = any(e.kind == "grade" and e.assessor == "small" for e in events)
    if not graded:  # the small model read no answer on q_milk as a grade this time
        assert code == 2 and "has no standing grade" in err
    elif doc["trusted"]:
        assert "untrusted" not in err
    else:
        assert code == 2 and "is untrusted" in err
