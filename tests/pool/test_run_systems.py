from __future__ import annotations

import json

import pytest
from pool_helpers import write_config

from poolkit.config import load_config
from poolkit.errors import ConfigError
from poolkit.io.common import sha256_hex
from poolkit.io.corpus import read_corpus, read_queries
from poolkit.io.run import read_run
from poolkit.pool.run_systems import run_systems

pytestmark = pytest.mark.slow  # runs the dense model


def test_every_system_writes_its_run_and_settings(tmp_path, embedding_cache):
    (tmp_path / "vendor.run").write_text("q_faw Q0 m4 1 2.0 v\nq_faw Q0 nope 2 1.0 v\n"
                                         "q_zzz Q0 m1 1 1.0 v\n")
    cfg = load_config(write_config(tmp_path, """
        bm25:   {kind: bm25, depth: 30}
        dense:  {kind: dense, depth: 12}
        rerank: {kind: rerank, over: bm25, fetch: 15, depth: 6}
        vendor: {kind: run, path: vendor.run}
    """, cache=embedding_cache))
    corpus, queries = read_corpus(cfg.corpus), read_queries(cfg.queries)
    runs = run_systems(cfg, corpus, queries)
    assert list(runs) == ["bm25", "dense", "rerank", "vendor"]
    for name, r in runs.items():
        path = cfg.runs_dir / f"{name}.run"
        assert r.path == path
        data = path.read_bytes()
        settings = json.loads((cfg.runs_dir / f"{name}.json").read_text())
        assert settings["system"]["kind"] == r.kind and "poolkit" in settings["versions"]
        # The run file read back (trec_eval order) is the ranking poolkit pooled.
        assert read_run(path).rankings == {q: d for q, d in r.run.rankings.items() if d}
        if name != "vendor":
            assert settings["run_sha256"] == sha256_hex(data) == r.run.sha256
    assert max(len(d) for d in runs["dense"].run.rankings.values()) == 12
    assert max(len(d) for d in runs["rerank"].run.rankings.values()) == 6
    # The reranker's stage-1 list is its own run file: bm25's top 15.
    fetch = read_run(cfg.runs_dir / "rerank.fetch.run")
    assert fetch.rankings == {q: d[:15] for q, d in runs["bm25"].run.rankings.items()}
    for q, kept in runs["rerank"].run.rankings.items():
        assert set(kept) <= set(fetch.rankings[q])
    # The external run: unknown ids reported, not kept; its own file's hash is registered.
    vendor = runs["vendor"]
    assert vendor.run.rankings["q_faw"] == ["m4"]
    assert any("not in the corpus (nope)" in w for w in vendor.warnings)
    assert any("(q_zzz)" in w for w in vendor.warnings)
    assert vendor.settings["run_sha256"] == sha256_hex((tmp_path / "vendor.run").read_bytes())


def test_only_the_named_systems_and_what_they_need(tmp_path, embedding_cache):
    cfg = load_config(write_config(tmp_path, """
        bm25:   {kind: bm25, depth: 30}
        dense:  {kind: dense}
        rerank: {kind: rerank, over: bm25, fetch: 15, depth: 6}
    """, cache=embedding_cache))
    runs = run_systems(cfg, read_corpus(cfg.corpus), read_queries(cfg.queries), ["rerank"])
    assert list(runs) == ["rerank"]
    assert not (cfg.runs_dir / "dense.run").exists()


@pytest.mark.parametrize("systems, message", [
    ("b: {kind: bm25}\nd: {kind: dense, model: no/such-model}",
     r"collection.yaml:7: systems.d: cannot load model 'no/such-model': "),
    ("b: {kind: bm25}\nr: {kind: rerank, over: b, model: ./no-model}",
     r"collection.yaml:7: systems.r: model directory .*no-model does not exist$"),
    ("v: {kind: run, path: broken.run}",
     r"collection.yaml:6: systems.v: .*broken.run:1: .*'x'"),
])
def test_a_system_that_cannot_run_names_its_config_line(tmp_path, systems, message):
    (tmp_path / "broken.run").write_text("q_faw Q0 m1 1 x v\n")
    cfg = load_config(write_config(tmp_path, systems))
    with pytest.raises(ConfigError, match=message) as exc:
        run_systems(cfg, read_corpus(cfg.corpus), read_queries(cfg.queries), write=False)
    assert "\n" not in str(exc.value)
