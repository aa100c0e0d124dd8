"""``poolkit pool CONFIG --find N`` on the bundled sample, on SQLite and PostgreSQL: the
classifier's top N per judged query join as a new pool version whose provenance names the
classifier (round, rank, score), not a run; ``compare`` and ``reusability`` show it as a
source of its own; with no grade yet it is refused, one line, exit 2, nothing changed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest
from shared_data import SAMPLE
from store_backends import BACKENDS, store_location

from poolkit.cli import main
from poolkit.collection import Collection
from poolkit.io.provenance import CLASSIFIER
from poolkit.schemas import load_schema


def call(*args: object) -> int:
    return main([str(a) for a in args])


def sample_config(tmp_path: Path, store: str | Path) -> Path:
    config = tmp_path / "c.yaml"
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                      f"store: {store}\nruns_dir: {tmp_path / 'pooled'}\n"
                      f"systems:\n  seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}\n"
                      f"pool: {{depth: 3, order: docid}}\n")
    return config


@pytest.fixture(params=BACKENDS)
def world(request, tmp_path, capsys):
    with store_location(request.param, tmp_path) as store:
        config = sample_config(tmp_path, store)
        assert call("pool", config, "--quiet") == 0
        capsys.readouterr()
        yield config, store


def state(config: Path, store: str | Path) -> object:
    """What --find may change: the store file's bytes, or the server's pool and systems."""
    if isinstance(store, Path):
        return hashlib.sha256(store.read_bytes()).hexdigest()
    with Collection.open(config) as c:
        return (c.store.pool_versions(), c.store.systems(), len(c.store.pool()))


def test_find_before_any_grade_is_refused_and_changes_nothing(world, capsys):
    config, store = world
    before = state(config, store)
    assert call("pool", config, "--find", 2) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no grades yet" in err[0] and "--find" in err[0]
    assert state(config, store) == before


def test_found_passages_are_a_pool_version_found_by_the_classifier(world, capsys):
    config, _ = world
    assert call("import", config, SAMPLE / "truth.qrels", "--as", "nist") == 0
    with Collection.open(config) as c:
        pooled = set(c.store.pooled_pairs())
    capsys.readouterr()
    assert call("pool", config, "--find", 2, "--format", "json") == 0
    report = json.loads(capsys.readouterr().out)
    jsonschema.validate(report, load_schema("pool"))
    assert report["added"]["version"] == 2 and report["systems"][CLASSIFIER]["depth"] == 2
    assert call("pool", config, "--find", 1, "--quiet") == 0
    with Collection.open(config) as c:
        provenance = c.provenance()
        found = provenance.found()
        kinds = {v: s[CLASSIFIER]["kind"] for v, s in c.store.pool_version_systems().items()
                 if CLASSIFIER in s}
        settings = c.store.systems()[CLASSIFIER]["settings"]
    assert kinds == {2: "classifier", 3: "classifier"}
    assert settings["round"] == 2 and settings["find"] == 1 and settings["trained_on"] > 0
    by_round = {r: {p for p, f in found.items() if f.round == r} for r in (1, 2)}
    assert len(by_round[1]) == 2 * 4 and len(by_round[2]) == 4  # 4 queries, each judged
    assert not (by_round[1] | by_round[2]) & pooled
    for pair, f in found.items():
        assert provenance.systems_by_pair()[pair] == {CLASSIFIER}  # not a run
        assert f.version == f.round + 1 and isinstance(f.score, float)
    first = sorted((f.rank, f.score) for p, f in found.items() if f.round == 1 and p[0] == "q_faw")
    assert [r for r, _ in first] == [1, 2] and first[0][1] >= first[1][1]


def test_compare_and_reusability_show_the_classifier_as_its_own_source(world, capsys):
    config, _ = world
    assert call("import", config, SAMPLE / "truth.qrels", "--as", "nist") == 0
    assert call("pool", config, "--find", 2, "--quiet") == 0
    capsys.readouterr()
    assert call("compare", config, "--format", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_schema("compare"))
    source = doc["contribution"]["sources"][CLASSIFIER]
    assert source["new_docs"] == source["only_it"] == doc["contribution"]["total"]["new_docs"]
    assert [r["name"] for r in doc["runs"]] == ["seed"]
    assert call("compare", config) == 0
    assert f"{CLASSIFIER} (not a run" in capsys.readouterr().out
    assert call("reusability", config, "--format", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_schema("reusability"))
    unit = doc["sources"][CLASSIFIER]
    assert unit["only_pooled"] == source["new_docs"] and list(unit["runs"]) == ["seed"]
    assert CLASSIFIER in doc["pool"]["systems"] and CLASSIFIER not in doc["not_pooled"]
    assert call("reusability", config) == 0
    assert f"Leave {CLASSIFIER} out" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [["--depth", "5"], ["--system", "seed"], ["--order", "docid"],
                                   ["--report-only"]])
def test_find_runs_no_system_so_system_options_are_refused(world, capsys, extra):
    config, store = world
    before = state(config, store)
    assert call("pool", config, "--find", 2, *extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"does not go with {extra[0]}" in err[0]
    assert state(config, store) == before


SIMULATE = ["simulate", SAMPLE / "seed.run", "--depth", "3", "--qrels",
            SAMPLE / "truth.qrels", "--strategy", "priority"]


def test_simulate_find_reports_the_classifier_beside_deepening(capsys):
    assert call(*SIMULATE, "--find", "0.5,1", "--corpus", SAMPLE / "corpus.jsonl",
                "--queries", SAMPLE / "queries.jsonl", "--format", "json") == 0
    find = json.loads(capsys.readouterr().out)["find"]
    assert find["pool"] == 12 and list(find["budgets"]) == ["0.5", "1"]
    for b in find["budgets"].values():
        assert b["judged"] >= b["deepen"]["judged"]
        assert b["classifier"]["relevant_found"] <= find["outside_relevant"]
    assert call(*SIMULATE, "--find", "0.5", "--corpus", SAMPLE / "corpus.jsonl") == 0
    assert "beyond the pool" in capsys.readouterr().out


@pytest.mark.parametrize("extra, message", [
    (["--find", "0.5"], "--find in the file form needs --corpus"),
    (["--find", "2", "--corpus", SAMPLE / "corpus.jsonl"], "--find: 2 is not a fraction"),
    (["--find", "0.5", "--find-batch", "0", "--corpus", SAMPLE / "corpus.jsonl"],
     "--find-batch must be a positive integer"),
])
def test_simulate_find_bad_options_are_one_line(capsys, extra, message):
    assert call(*SIMULATE, *extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_find_without_a_store_is_one_line_and_makes_none(tmp_path, capsys):
    config = sample_config(tmp_path, tmp_path / "store.sqlite")
    assert call("pool", config, "--find", 2) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no judging store yet" in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


def test_a_find_with_nothing_left_beyond_the_pool_adds_nothing(world, capsys):
    config, store = world
    assert call("import", config, SAMPLE / "truth.qrels", "--as", "nist") == 0
    assert call("pool", config, "--find", 100, "--quiet") == 0  # every passage of the corpus
    before = state(config, store)
    capsys.readouterr()
    assert call("pool", config, "--find", 1) == 0
    assert "nothing new" in capsys.readouterr().out
    assert state(config, store) == before


def test_simulate_find_in_the_store_form_reads_the_configs_corpus(world, capsys):
    config, _ = world
    assert call("simulate", config, "--qrels", SAMPLE / "truth.qrels", "--strategy",
                "priority", "--find", "0.5", "--format", "json") == 0
    find = json.loads(capsys.readouterr().out)["find"]
    assert find["pool"] == 12 and find["budgets"]["0.5"]["judged"] == 8
