"""``poolkit check-judge`` on the loopback server's fake judges (``judge_fakes``): the canaries
catch the judge each kind is made for, the verdict is recorded per judge version, and the
commands that use a machine judge's labels refuse an untrusted one."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from autojudge_helpers import KEY_ENV
from judge_fakes import ContentJudge, ObeyingJudge, TermsJudge, people_grades
from llm_faults import loopback_llm
from shared_data import SAMPLE

from poolkit.app.pool import PoolRequest, pool
from poolkit.cli import main
from poolkit.schemas import load_schema

PAIRS = 10  # seed.run's top 10 of each query (rev.run holds the same passages reversed)


def pooled(directory: Path) -> dict[str, list[str]]:
    by_query: dict[str, list[str]] = {}
    for line in (SAMPLE / "seed.run").read_text().splitlines():
        by_query.setdefault(line.split()[0], []).append(line.split()[2])
    return {q: docs[:PAIRS] for q, docs in by_query.items()}


def make_collection(tmp_path: Path, url: str, people: bool = True) -> Path:
    """The sample pooled from seed.run and its reverse, people's grades (golden, else 0) on
    every pooled pair when ``people``, judge ``llm`` on ``url``."""
    ranked = pooled(tmp_path)
    (tmp_path / "rev.run").write_text("".join(
        f"{q} Q0 {d} {i} {100 - i} rev\n"
        for q, docs in ranked.items() for i, d in enumerate(reversed(docs), 1)))
    options = {"kind": "openai", "base_url": url, "model": "judge-m", "backoff": 0.001,
               "max_wait": 0.01, "timeout": 5.0, "api_key_env": KEY_ENV, "concurrency": 2}
    config = tmp_path / "c.yaml"
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                      f"store: store.sqlite\nruns_dir: runs\n"
                      f"systems:\n  seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}\n"
                      f"  rev: {{kind: run, path: {tmp_path / 'rev.run'}}}\n"
                      f"pool: {{depth: {PAIRS}, order: docid}}\n"
                      f"judges:\n  llm: {json.dumps(options)}\n")
    pool(PoolRequest(config), log=lambda line: None)
    if people:
        grades = people_grades()
        (tmp_path / "people.qrels").write_text("".join(
            f"{q} 0 {d} {grades[q][d]}\n" for q, docs in ranked.items() for d in docs))
        assert main(["import", str(config), str(tmp_path / "people.qrels"), "--as",
                     "alice"]) == 0
    return config


def check(capsys, config: Path, *args: str, code: int = 0) -> tuple[dict, str]:
    capsys.readouterr()  # what came before
    got = main(["check-judge", str(config), "--judge", "llm", "--format", "json", *args])
    out, err = capsys.readouterr()
    assert got == code, err
    if code:
        assert out == ""
        return {}, err
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("check-judge"), cls=jsonschema.Draft202012Validator)
    return doc, err


@pytest.fixture
def served():
    with loopback_llm() as (url, script):
        yield url, script


def test_the_term_matching_judge_is_untrusted_and_estimate_refuses_it(tmp_path, capsys, served):
    url, script = served
    script.grader = TermsJudge()
    config = make_collection(tmp_path, url)
    assert main(["autojudge", str(config), "--judge", "llm"]) == 0
    capsys.readouterr()
    doc, _ = check(capsys, config, "--canaries", "6")
    terms = doc["canaries"]["terms"]
    assert terms["planted"] == 6 and terms["rate"] >= 0.5
    assert doc["canaries"]["both"]["rate"] >= 0.5
    assert doc["trusted"] is False
    got = main(["estimate", str(config), "--machine", "llm"])
    _, err = capsys.readouterr()
    assert got == 2
    assert err.count("\n") == 1
    assert f"machine judge llm@{doc['version']} is untrusted" in err
    assert "`terms` canaries fooled it" in err and "poolkit check-judge" in err
    assert "--accept-untrusted" in err


def test_the_content_judge_passes_every_kind(tmp_path, capsys, served):
    url, script = served
    script.grader = ContentJudge()
    config = make_collection(tmp_path, url)
    doc, _ = check(capsys, config, "--canaries", "5", "--seed", "3")
    assert doc["trusted"] is True
    for kind in ("terms", "instruction", "both"):
        assert doc["canaries"][kind] == {"planted": 5, "graded": 5, "failed": 0, "fooled": 0,
                                         "rate": 0.0}


def test_the_instruction_obeying_judge_is_caught_by_instruction(tmp_path, capsys, served):
    url, script = served
    script.grader = ObeyingJudge()
    config = make_collection(tmp_path, url)
    doc, _ = check(capsys, config, "--canaries", "5")
    assert doc["canaries"]["instruction"]["rate"] == 1.0
    assert doc["canaries"]["both"]["rate"] == 1.0
    assert doc["canaries"]["terms"]["rate"] == 0.0
    assert doc["trusted"] is False
