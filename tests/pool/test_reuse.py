"""``poolkit pool`` again with nothing changed reuses BM25's stored run (and its cached index);
any change to what makes the run searches again."""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from pool_helpers import SAMPLE, write_config

from poolkit.cli import main
from poolkit.io.common import sha256_hex
from poolkit.io.run import read_run


def pool(cfg: Path, *extra: str) -> tuple[dict, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["pool", str(cfg), "--format", "json", *extra]) == 0, err.getvalue()
    return json.loads(out.getvalue()), err.getvalue()


def snapshot(runs: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(runs.iterdir())}


@pytest.fixture
def collection(tmp_path):
    for name in ("corpus.jsonl", "queries.jsonl"):
        shutil.copy(SAMPLE / name, tmp_path / name)
    return write_config(tmp_path, "bm25: {kind: bm25, depth: 30}", corpus=tmp_path /
                        "corpus.jsonl", queries=tmp_path / "queries.jsonl",
                        cache=tmp_path / "cache")


def test_an_unchanged_repool_reuses_the_run_and_touches_nothing(collection):
    first, err = pool(collection)
    assert first["added"]["version"] == 1 and "(indexed corpus)" in err
    runs = collection.parent / "runs"
    before = snapshot(runs)
    second, err = pool(collection)
    assert "bm25 [bm25]" in err and "reused (system, settings, corpus and queries " \
        "unchanged)" in err
    assert second["added"]["version"] is None and second["added"]["new_docs"] == 0
    assert snapshot(runs) == before  # not even rewritten
    assert second["overall"] == first["overall"]


def test_a_deeper_pool_reuses_the_run_and_pools_deeper(collection):
    pool(collection)
    runs = collection.parent / "runs"
    ranking = read_run(runs / "bm25.run").rankings
    deeper, err = pool(collection, "--depth", "20")
    assert "reused" in err
    assert deeper["added"]["version"] == 2
    assert deeper["added"]["new_docs"] == sum(len(d[10:20]) for d in ranking.values())


def _edit_config(cfg: Path) -> None:
    cfg.write_text(cfg.read_text().replace("depth: 30}", "depth: 30, k1: 1.2}"))


def _edit_queries(cfg: Path) -> None:
    path = cfg.parent / "queries.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["text"] += " storage"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")


def _edit_corpus(cfg: Path) -> None:
    path = cfg.parent / "corpus.jsonl"
    with path.open("a") as fh:
        fh.write(json.dumps({"id": "extra", "text": "maize storage weevils"}) + "\n")


def _edit_run(cfg: Path) -> None:
    path = cfg.parent / "runs" / "bm25.run"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]))


def _drop_settings(cfg: Path) -> None:
    (cfg.parent / "runs" / "bm25.json").unlink()


def _old_settings(cfg: Path) -> None:
    """A settings file written before queries were hashed."""
    path = cfg.parent / "runs" / "bm25.json"
    settings = json.loads(path.read_text())
    del settings["queries_sha256"]
    path.write_text(json.dumps(settings))


def _other_versions(cfg: Path) -> None:
    path = cfg.parent / "runs" / "bm25.json"
    settings = json.loads(path.read_text())
    settings["versions"]["bm25s"] = "0.0.1"
    path.write_text(json.dumps(settings))


@pytest.mark.parametrize("change", [_edit_config, _edit_queries, _edit_corpus,
                                    _drop_settings, _old_settings, _other_versions])
def test_any_change_searches_again(collection, change):
    pool(collection)
    change(collection)
    _, err = pool(collection)
    assert "reused" not in err
    runs = collection.parent / "runs"
    settings = json.loads((runs / "bm25.json").read_text())
    assert settings["run_sha256"] == sha256_hex((runs / "bm25.run").read_bytes())
    _, err = pool(collection)  # and now that is what an unchanged re-pool reuses
    assert "reused" in err


def test_the_index_is_cached_even_when_the_run_is_not_reusable(collection):
    pool(collection)
    _drop_settings(collection)
    _, err = pool(collection)
    assert "(index cached)" in err and "reused" not in err


def test_an_edited_run_file_is_refused_not_searched_again_over(collection):
    """poolkit's copy edited by hand is no longer poolkit's: pool refuses to write over it
    (one line, nothing changed); once it is moved away pool searches again."""
    pool(collection)
    _edit_run(collection)
    runs = collection.parent / "runs"
    before, store = snapshot(runs), (collection.parent / "judgments.sqlite").read_bytes()
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["pool", str(collection)]) == 2
    assert out.getvalue() == "" and err.getvalue().splitlines() == [
        f"poolkit pool: error: {collection}:4: {runs / 'bm25.run'}: pool's copy of "
        f"systems.bm25's run would overwrite a file poolkit did not write; poolkit never "
        f"writes over a file it did not make: move it out of {runs} or set another runs_dir"]
    assert snapshot(runs) == before
    assert (collection.parent / "judgments.sqlite").read_bytes() == store
    (runs / "bm25.run").unlink()
    _, err = pool(collection)
    assert "reused" not in err and (runs / "bm25.run").is_file()


@pytest.mark.slow  # loads the dense model
def test_a_reranker_fetches_from_the_reused_run(tmp_path, embedding_cache):
    cfg = write_config(tmp_path, """
        bm25:   {kind: bm25, depth: 30}
        rerank: {kind: rerank, over: bm25, fetch: 15, depth: 6}
    """, cache=embedding_cache)
    pool(cfg)
    runs = tmp_path / "runs"
    fetch, kept = (runs / "rerank.fetch.run").read_bytes(), (runs / "rerank.run").read_bytes()
    _, err = pool(cfg)
    assert "bm25 [bm25]" in err and "reused" in err.splitlines()[1]
    assert (runs / "rerank.fetch.run").read_bytes() == fetch
    assert (runs / "rerank.run").read_bytes() == kept


@pytest.mark.slow  # loads MiniLM
def test_an_unchanged_dense_system_is_not_searched_again(tmp_path, monkeypatch):
    """Issue 14: a re-pool of an unchanged dense system neither encodes nor searches; a
    changed encoder option searches again (from the cached embeddings)."""
    from poolkit.retrieve import dense

    monkeypatch.setattr(dense, "_EMBEDDINGS", {})  # encoded here, into this cache
    cfg = write_config(tmp_path, "dense: {kind: dense, depth: 5}", cache=tmp_path / "cache")
    pool(cfg)
    runs = tmp_path / "runs"
    before = snapshot(runs)
    monkeypatch.setattr(dense.DenseRetriever, "search",
                        lambda *a: pytest.fail("searched an unchanged dense system again"))
    _, err = pool(cfg)
    assert "dense [dense]" in err and "reused" in err
    assert snapshot(runs) == before
    monkeypatch.undo()
    monkeypatch.setattr(dense, "_EMBEDDINGS", {})  # read from the cache file this time
    monkeypatch.setattr(dense.Encoder, "encode_documents",
                        lambda *a, **k: pytest.fail("re-encoded despite the cache"))
    cfg.write_text(cfg.read_text().replace("depth: 5}", "depth: 5, query_prefix: 'q: '}"))
    _, err = pool(cfg)
    assert "reused" not in err and "(embeddings cached)" in err
