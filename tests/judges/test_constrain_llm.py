"""``constrain: json_schema`` against the REAL llama.cpp server (.ci/llama.sh, SmolLM2-135M):
llama.cpp's server turns the OpenAI API's ``response_format`` JSON schema into a grammar, so
the small model, which answers a bare grade on about a third of the sample's pairs when left
free, answers ``{"grade": G}`` with G of the scale on every pair it is asked."""

from __future__ import annotations

import json

import pytest
from llm_server import LlmServer
from pool_helpers import write_config
from shared_data import SAMPLE

from poolkit.app.pool import PoolRequest, pool
from poolkit.cli import main
from poolkit.config import load_config
from poolkit.store.backends import open_store

pytestmark = pytest.mark.slow  # the one-thread server reads each ~300-token prompt in seconds

PAIRS = 4  # q_milk's top 4 in seed.run


def test_json_schema_makes_every_answer_a_grade_of_the_scale(tmp_path, llm_server: LlmServer,
                                                            capsys):
    config = write_config(tmp_path, f"seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}",
                          pool=f"depth: {PAIRS}")
    options = {"kind": "openai", "base_url": llm_server.base_url, "model": llm_server.model,
               "concurrency": 2, "max_attempts": 1, "timeout": 120.0,
               "constrain": "json_schema"}
    config.write_text(config.read_text() + "judges:\n  small: " + json.dumps(options) + "\n")
    pool(PoolRequest(config), log=lambda line: None)
    capsys.readouterr()
    assert main(["autojudge", str(config), "--judge", "small", "--format", "json",
                 "--queries", "q_milk"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pairs"]["graded"] == PAIRS and doc["pairs"]["failed"] == 0
    with open_store(load_config(config).store) as store:
        events = store.events(kinds=["grade", "note"], machine="small")
    assert len(events) == PAIRS
    for event in events:
        note = json.loads(event.note or "")
        assert json.loads(note["answer"]) == {"grade": event.grade} and 0 <= event.grade <= 3
        assert len(note["delimiter"]) == 12
