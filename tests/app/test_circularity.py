"""Circularity marks (``score.circularity``): a run of the machine judge's own model family
is marked, one line each and in the JSON, by ``score --judge-family`` (the run's provenance
beside its file) and ``estimate`` (the config's ``family:`` of systems and judges)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from autojudge_helpers import autojudge_json
from llm_faults import loopback_llm
from shared_data import SAMPLE

from poolkit.cli import main
from poolkit.config import load_config
from poolkit.errors import ConfigError
from poolkit.schemas import load_schema
from poolkit.score.circularity import circular_runs, family_beside, same_family


@pytest.fixture
def world(tmp_path, capsys):
    """(config, url): the sample pooled from the seed run (family LLaMA) and BM25 (none);
    judge llm of family llama graded every pair; bob's grades imported."""
    with loopback_llm() as (url, _script):
        config = tmp_path / "c.yaml"
        judge = {"kind": "openai", "base_url": url, "model": "judge-m", "backoff": 0.001,
                 "max_wait": 0.01, "timeout": 5.0, "family": "llama"}
        config.write_text(
            f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
            f"store: {tmp_path / 's.sqlite'}\nruns_dir: {tmp_path / 'runs'}\n"
            f"systems:\n  seed: {{kind: run, path: {SAMPLE / 'seed.run'}, family: ' LLaMA'}}\n"
            f"  bm25: {{kind: bm25}}\npool: {{depth: 5, order: docid}}\n"
            f"judges:\n  llm: {json.dumps(judge)}\n")
        assert main(["pool", str(config), "--quiet"]) == 0
        assert main(["import", str(config), str(SAMPLE / "assessor_b.yaml"), "--as",
                     "bob"]) == 0
        capsys.readouterr()
        doc, _ = autojudge_json(capsys, config, "llm")
        yield config, doc["version"]


def test_estimate_marks_the_run_of_the_judges_family(world, capsys):
    config, version = world
    assert main(["estimate", str(config), "--machine", "llm", "-m", "P@5", "--format",
                 "json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("estimate"))
    assert doc["circular_runs"] == [{"run": "seed", "family": " LLaMA",
                                     "judge": f"llm@{version}"}]
    line = (f"circularity: run seed is of family  LLaMA, as is machine judge llm@{version} "
            f"whose labels score it: the judge may favour it; check it against people's "
            f"labels")
    assert line in doc["warnings"] and err.count(line) == 1
    # another family: no mark
    config.write_text(config.read_text().replace('"family": "llama"', '"family": "qwen"'))
    assert main(["estimate", str(config), "--machine", "llm", "-m", "P@5", "--format",
                 "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["circular_runs"] == [] and "circularity" not in err


def test_score_marks_a_run_whose_provenance_names_the_judges_family(world, capsys):
    config, version = world
    runs = config.parent / "runs"
    assert json.loads((runs / "seed.json").read_text())["system"]["family"] == " LLaMA"
    assert "family" not in json.loads((runs / "bm25.json").read_text())["system"]
    qrels = config.parent / "with.qrels"
    assert main(["export", str(config), "--format", "qrels", "--with-machine",
                 f"llm@{version}", "-o", str(qrels)]) == 0
    capsys.readouterr()
    argv = ["score", str(qrels), str(runs / "seed.run"), str(runs / "bm25.run"), "-m", "P@5",
            "--format", "json", "--quiet"]
    assert main([*argv, "--judge-family", "Llama"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("score"))
    assert doc["circular_runs"] == [{"run": "seed.run", "family": " LLaMA",
                                     "judge": f"llm@{version}"}]
    assert err.count("circularity: run seed.run is of family") == 1
    assert main(argv) == 0  # no judge family given: nothing said
    out, err = capsys.readouterr()
    assert "circular_runs" not in json.loads(out) and "circularity" not in err


def test_families_compare_without_case_or_spaces_and_a_missing_one_never_matches(tmp_path):
    assert same_family(" LLaMA ", "llama") and not same_family(None, None)
    assert not same_family("", "") and not same_family("llama", "qwen")
    assert circular_runs("j", None, {"a": None}) == []
    run = tmp_path / "x.run"
    assert family_beside(run) is None  # no provenance
    (tmp_path / "x.json").write_text("[1, 2]")
    assert family_beside(run) is None  # not poolkit's
    (tmp_path / "x.json").write_text('{"system": {"family": "gpt"}}')
    assert family_beside(run) == "gpt" and family_beside(None) is None


@pytest.mark.parametrize("where, text, message", [
    ("systems", "  seed: {kind: run, path: seed.run, family: 3}\n",
     "systems.seed.family must be str, found 3"),
    ("judges", "  llm: {kind: openai, base_url: 'http://x/v1', model: m, family: [a]}\n",
     "judges.llm.family must be str, found ['a']"),
])
def test_a_family_that_is_not_text_is_a_config_error_on_its_line(tmp_path, where, text,
                                                                 message):
    (tmp_path / "seed.run").write_text((SAMPLE / "seed.run").read_text())
    config = tmp_path / "c.yaml"
    systems = "  seed: {kind: run, path: seed.run}\n" if where == "judges" else text
    judges = f"judges:\n{text}" if where == "judges" else ""
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}"
                      f"\nstore: s.sqlite\nsystems:\n{systems}{judges}")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    line = 5 if where == "systems" else 7
    assert str(caught.value).startswith(f"{config}:{line}: ") and message in str(caught.value)


def test_the_family_keeps_a_run_reusable(tmp_path):
    """A declared family joins the run's provenance; an undeclared one adds nothing, so
    runs made before families existed are reused as they were."""
    from poolkit.config import SystemConfig
    from poolkit.pool.run_systems import _system_dict

    assert "family" not in _system_dict(SystemConfig("s", "bm25"))
    assert _system_dict(SystemConfig("s", "bm25", family="qwen"))["family"] == "qwen"
