"""The ``local`` judge kind on a tiny randomly-initialised causal LM the tests build (no
download): the grade is the argmax of the grade tokens' next-token probabilities, the
distribution is recorded, batching changes nothing, and ``poolkit autojudge`` records it
with the same provenance as the ``openai`` kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from autojudge_helpers import autojudge_json
from hypothesis import given, settings
from hypothesis import strategies as st
from pool_helpers import write_config
from shared_data import SAMPLE
from tiny_models import tiny_causal_lm

from poolkit.app.pool import PoolRequest, pool
from poolkit.cli import main
from poolkit.judges import JUDGE_KINDS, JudgePair
from poolkit.judges.local import LocalJudge, grade_distribution_of, grade_token_ids
from poolkit.judges.prompt import BUILTIN_TEMPLATE
from poolkit.store import QueryRecord

QUERY = QueryRecord("q1", "what is the capital of france", "Cities.", None)
PASSAGES = ["Paris is the capital of France.", "Bananas are yellow.",
            "France is a country in Europe with many old cities and a long coast.",
            "Berlin.", "The capital of Germany is Berlin, not Paris."]


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory) -> Path:
    return tiny_causal_lm(tmp_path_factory.mktemp("models") / "tiny-lm")


def judge(path: Path, **settings) -> LocalJudge:
    return LocalJudge({"path": str(path), "device": "cpu", **settings}, BUILTIN_TEMPLATE)


def pairs() -> list[JudgePair]:
    return [JudgePair(QUERY, f"d{i}", "", body) for i, body in enumerate(PASSAGES)]


def test_batches_give_each_pair_the_distribution_it_gets_alone(tiny_lm):
    batched = judge(tiny_lm, batch_size=3).ask_batch(pairs())
    alone = judge(tiny_lm, batch_size=1).ask_batch(pairs())
    assert [p for p, _ in batched] == [p for p, _ in alone]
    for (_, a), (_, b) in zip(batched, alone, strict=True):
        assert a.grade == b.grade
        for g in "0123":
            assert a.distribution[g] == pytest.approx(b.distribution[g], abs=1e-4)
        assert a.extra["batch"] in (3, 2) and b.extra["batch"] == 1
        assert a.prompt_tokens == b.prompt_tokens > 0


def test_the_grade_is_the_argmax_of_a_distribution_over_the_four_grades(tiny_lm):
    for prompt, answer in judge(tiny_lm, batch_size=2).ask_batch(pairs()):
        dist = answer.distribution
        assert set(dist) == {"0", "1", "2", "3"}
        assert sum(dist.values()) == pytest.approx(1, abs=1e-5)
        assert answer.grade == max(range(4), key=lambda g: (dist[str(g)], -g))
        assert 0 < answer.extra["grade_mass"] <= 1 and answer.model == "tiny-lm"
        assert answer.completion_tokens == 0 and answer.latency >= 0
        assert prompt.endswith("Grade:")  # no chat template: the prompt as rendered


def test_grade_tokens_are_the_digits(tiny_lm):
    lm = judge(tiny_lm)
    assert grade_token_ids(lm.tokenizer) == {
        g: [lm.tokenizer.convert_tokens_to_ids(str(g))] for g in range(4)}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=8, max_size=8),
       st.permutations(list(range(8))))
def test_the_distribution_is_the_grade_tokens_mass_normalised(probs, ids):
    tokens = {0: [ids[0], ids[1]], 1: [ids[2]], 2: [ids[3], ids[4]], 3: [ids[5]]}
    dist, mass = grade_distribution_of(probs, tokens)
    raw = {g: sum(probs[i] for i in tokens[g]) for g in range(4)}
    assert mass == pytest.approx(sum(raw.values()))
    if mass > 0:
        assert sum(dist.values()) == pytest.approx(1, abs=1e-5)
        best = max(raw.values())
        top = max(range(4), key=lambda g: (dist[str(g)], -g))
        assert raw[top] == pytest.approx(best, abs=1e-5)
    else:
        assert set(dist.values()) == {0.0}


def test_the_version_hashes_the_models_bytes(tiny_lm, tmp_path):
    kind = JUDGE_KINDS["local"]
    other = tiny_causal_lm(tmp_path / "tiny-lm", seed=1)  # same name, other weights
    a, b = judge(tiny_lm), judge(other)
    assert a.settings["model_sha256"] != b.settings["model_sha256"]
    assert kind.version_of(a.settings, a.template) != kind.version_of(b.settings, b.template)
    moved = judge(tiny_lm, batch_size=1)  # how it is run is not what it is
    assert kind.version_of(moved.settings, moved.template) == \
        kind.version_of(a.settings, a.template)


def sample(tmp_path: Path, model: Path, **options) -> Path:
    config = write_config(tmp_path, f"seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}")
    spec = {"kind": "local", "path": str(model), "batch_size": 4, "device": "cpu", **options}
    config.write_text(config.read_text() + "judges:\n  tiny: " + json.dumps(spec) + "\n")
    pool(PoolRequest(config), log=lambda line: None)
    return config


def autojudge(capsys, config: Path, *args: str) -> dict:
    return autojudge_json(capsys, config, "tiny", *args)[0]


def test_autojudge_records_a_local_judges_grades_with_provenance(tiny_lm, tmp_path, capsys):
    from poolkit.config import load_config
    from poolkit.store.backends import open_store

    config = sample(tmp_path, tiny_lm)
    doc = autojudge(capsys, config, "--limit", "6")
    assert doc["pairs"] == {"total": 40, "graded": 6, "already": 0, "failed": 0,
            "flagged": 0, "given_up": 0}
    assert doc["model"] == "tiny-lm" and doc["tokens"]["prompt"] > 0
    with open_store(load_config(config).store) as store:
        events = store.events(kinds=["grade"], machine="tiny")
    assert len(events) == 6
    for e in events:
        note = json.loads(e.note)
        assert (e.origin, e.judge_version, e.source) == ("machine", doc["version"], "tiny-lm")
        assert note["kind"] == "local" and note["grade"] == e.grade
        assert note["text_sha256"] == e.text_hash and note["tokens"]["prompt"] > 0
        assert len(note["prompt_sha256"]) == len(note["template_sha256"]) == 64
        dist = note["distribution"]
        assert max(range(4), key=lambda g: (dist[str(g)], -g)) == e.grade
        assert note["batch"] in (4, 2) and note["device"] == "cpu"
    again = autojudge(capsys, config, "--limit", "6")
    assert again["version"] == doc["version"] and again["pairs"]["already"] == 6
    assert again["pairs"]["graded"] == 6  # the next six: the first six are not asked again


def test_the_version_autojudge_records_is_the_one_a_bare_name_reads(tiny_lm, tmp_path,
                                                                    capsys):
    """The config's local judge (its model's bytes hashed) is the version ``status`` marks
    and ``export --machine-only NAME@VERSION`` writes; a bare NAME, with its ``--variant``
    graded last, is refused by export (``machine_choice``: which one is meant)."""
    config = sample(tmp_path, tiny_lm)
    doc = autojudge(capsys, config, "--limit", "2", "--variant", "scale_order=descending")
    base = doc["variant"]["base_version"]
    capsys.readouterr()
    assert main(["status", str(config), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["machine_judges"]
    assert {r["version"]: r["default"] for r in rows} == {base: True, doc["version"]: False}
    assert main(["export", str(config), "--format", "qrels", "--machine-only", "tiny"]) == 2
    assert "machine judge 'tiny' has 2 versions in the store; name one: " in \
        capsys.readouterr().err
    assert main(["export", str(config), "--format", "qrels", "--machine-only",
                 f"tiny@{base}"]) == 0
    assert f"machine judge tiny@{base} alone" in capsys.readouterr().err


def test_dry_run_counts_tokens_with_the_models_tokenizer(tiny_lm, tmp_path, capsys):
    config = sample(tmp_path, tiny_lm)
    doc = autojudge(capsys, config, "--dry-run", "--queries", "q_faw")
    lm = judge(tiny_lm)
    from poolkit.config import load_config
    from poolkit.store.backends import open_store

    with open_store(load_config(config).store) as store:
        texts = [store.text(m.text_hash) for m in store.pool() if m.qid == "q_faw"]
        query = store.queries()["q_faw"]
    expected = sum(lm.count_tokens(lm.prompt(JudgePair(query, "", title, body)))
                   for title, body in texts)
    assert doc["estimate"]["prompt_tokens"] == expected and doc["estimate"]["pairs"] == 10


def test_a_missing_model_is_a_config_error_naming_the_line(tiny_lm, tmp_path, capsys):
    config = sample(tmp_path, tiny_lm)
    config.write_text(config.read_text().replace(str(tiny_lm), "nowhere.gguf"))
    store = config.parent / "judgments.sqlite"
    before = store.read_bytes()
    code = main(["autojudge", str(config), "--judge", "tiny"])
    _, err = capsys.readouterr()
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"{config}:" in lines[0]
    assert "judges.tiny.path: no such file or folder" in lines[0] and "nowhere.gguf" in lines[0]
    assert store.read_bytes() == before


def test_a_gpu_asked_for_and_not_there_is_one_line(tiny_lm, tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    config = sample(tmp_path, tiny_lm, device="cuda")
    store = config.parent / "judgments.sqlite"
    before = store.read_bytes()
    _, err = autojudge_json(capsys, config, "tiny", code=2)
    assert err.strip().splitlines() == [
        "poolkit autojudge: error: device: cuda, but torch sees no GPU (device: auto uses "
        "the CPU)"]
    assert store.read_bytes() == before
