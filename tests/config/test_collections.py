"""``collection: beir:PATH`` and ``collection: irds:ID`` in a config: resolution and errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from beir_sample import SAMPLE, beir_copy

from poolkit.config import load_config
from poolkit.errors import ConfigError
from poolkit.io.corpus import read_corpus, read_queries


def config(tmp_path: Path, collection: str, extra: str = "") -> Path:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"collection: {collection}\nstore: store.sqlite\n{extra}"
                   "systems:\n  bm25: {kind: bm25}\n")
    return cfg


def test_a_beir_folder_gives_corpus_and_the_splits_queries(tmp_path: Path) -> None:
    beir_copy(tmp_path / "sample-beir")
    cfg = load_config(config(tmp_path, "beir:sample-beir"))
    assert cfg.corpus == tmp_path / "sample-beir" / "corpus.jsonl"
    assert read_corpus(cfg.corpus).ids == read_corpus(SAMPLE / "corpus.jsonl").ids
    # only the test split's queries, written once under the cache folder
    assert cfg.queries.parent == tmp_path / ".cache" / "collections"
    assert [q.qid for q in read_queries(cfg.queries)] == \
        [q.qid for q in read_queries(SAMPLE / "queries.jsonl")]
    assert load_config(config(tmp_path, "beir:sample-beir")).queries == cfg.queries


def test_queries_that_are_all_in_the_split_are_read_in_place(tmp_path: Path) -> None:
    beir_copy(tmp_path / "b", extra_query=False)
    assert load_config(config(tmp_path, "beir:b")).queries == tmp_path / "b" / "queries.jsonl"


@pytest.mark.parametrize(("collection", "splits", "message"), [
    ("beir:nowhere", ("test",), "collection: beir: no folder"),
    ("beir:b#dev", ("test",), "unknown split 'dev'; valid: test"),
    ("beir:b", ("train", "dev"), "has splits dev, train and none is 'test'; name one, "
                                 "e.g. beir:b#dev"),
    ("bier:b", ("test",), "unknown collection scheme 'bier'; valid: beir, irds (did you "
                          "mean 'beir'?)"),
    ("b", ("test",), "expected SCHEME:WHERE"),
])
def test_collection_errors_name_the_config_line(tmp_path: Path, collection: str,
                                                splits: tuple[str, ...], message: str) -> None:
    beir_copy(tmp_path / "b", splits)
    with pytest.raises(ConfigError) as err:
        load_config(config(tmp_path, collection))
    assert str(err.value).startswith(f"{tmp_path / 'c.yaml'}:1: ") and message in str(err.value)


def test_a_beir_folder_without_its_files_says_which(tmp_path: Path) -> None:
    beir_copy(tmp_path / "b")
    (tmp_path / "b" / "queries.jsonl").unlink()
    with pytest.raises(ConfigError, match="has no queries.jsonl"):
        load_config(config(tmp_path, "beir:b"))


def test_collection_and_corpus_together_are_refused(tmp_path: Path) -> None:
    beir_copy(tmp_path / "b")
    shutil.copy(SAMPLE / "corpus.jsonl", tmp_path / "corpus.jsonl")
    with pytest.raises(ConfigError, match=r"c.yaml:3: config.corpus: give either collection"):
        load_config(config(tmp_path, "beir:b", "corpus: corpus.jsonl\n"))
