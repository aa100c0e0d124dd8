"""``collection: irds:ID``, tested offline: datasets registered with ir_datasets from local
files (as a plugin would register them), never downloaded."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest
from shared_data import SAMPLE

from poolkit.config import load_config
from poolkit.errors import ConfigError
from poolkit.io.corpus import read_corpus, read_queries
from poolkit.io.golden import read_golden
from poolkit.io.qrels import read_qrels

ir_datasets = pytest.importorskip("ir_datasets")
from ir_datasets.formats import GenericDoc, TrecQrels, TsvDocs, TsvQueries  # noqa: E402
from ir_datasets.util import LocalDownload  # noqa: E402


def register(tmp_path: Path, docs_file: Path | None = None) -> str:
    """The sample (titles folded into the text) registered under a fresh id."""
    corpus = read_corpus(SAMPLE / "corpus.jsonl")
    docs = docs_file or tmp_path / "docs.tsv"
    if docs_file is None:
        docs.write_text("".join(f"{d}\t{corpus.passage(i).replace(chr(10), ' ')}\n"
                                for i, d in enumerate(corpus.ids)))
    queries = tmp_path / "queries.tsv"
    queries.write_text("".join(f"{q.qid}\t{q.text}\n"
                               for q in read_queries(SAMPLE / "queries.jsonl")))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs_ in
                             read_golden(SAMPLE / "golden.yaml").grades.items()
                             for d, g in docs_.items()))
    name = f"poolkit-test/{uuid.uuid4().hex}"
    ir_datasets.registry.register(name, ir_datasets.Dataset(
        TsvDocs(LocalDownload(docs), doc_cls=GenericDoc),
        TsvQueries(LocalDownload(queries)),
        TrecQrels(LocalDownload(qrels), {0: "not", 1: "related", 2: "highly", 3: "perfect"})))
    return name


def config(tmp_path: Path, collection: str) -> Path:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"collection: {collection}\nstore: store.sqlite\n"
                   "systems:\n  bm25: {kind: bm25}\n")
    return cfg


def test_an_ir_datasets_dataset_becomes_poolkits_files(tmp_path: Path) -> None:
    name = register(tmp_path)
    cfg = load_config(config(tmp_path, f"irds:{name}"))
    corpus = read_corpus(cfg.corpus)
    sample = read_corpus(SAMPLE / "corpus.jsonl")
    assert corpus.ids == sample.ids
    assert corpus.texts == [sample.passage(i).replace("\n", " ") for i in range(len(sample))]
    assert [(q.qid, q.text) for q in read_queries(cfg.queries)] == \
        [(q.qid, q.text) for q in read_queries(SAMPLE / "queries.jsonl")]
    assert read_qrels(cfg.corpus.parent / "qrels.txt").grades == \
        read_golden(SAMPLE / "golden.yaml").grades
    assert cfg.corpus.is_relative_to(tmp_path / ".cache" / "collections" / "irds")
    # written once: a second load reads the files, not the dataset
    (tmp_path / "docs.tsv").unlink()
    assert load_config(config(tmp_path, f"irds:{name}")).corpus == cfg.corpus


def test_a_missing_download_is_one_line_saying_what_ir_datasets_needs(tmp_path: Path) -> None:
    name = register(tmp_path, docs_file=tmp_path / "never-downloaded" / "docs.tsv")
    with pytest.raises(ConfigError) as err:
        load_config(config(tmp_path, f"irds:{name}"))
    message = str(err.value)
    assert message.startswith(f"{tmp_path / 'c.yaml'}:1: collection: irds:{name}: ir_datasets "
                              f"could not provide the documents")
    assert "never-downloaded/docs.tsv" in message and str(ir_datasets.util.home_path()) in message
    assert "\n" not in message
    assert not list((tmp_path / ".cache").rglob("corpus.jsonl"))  # nothing half-written


def test_an_unknown_dataset_id_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="irds: unknown ir_datasets id 'no-such/dataset'"):
        load_config(config(tmp_path, "irds:no-such/dataset"))


def test_without_ir_datasets_the_error_says_how_to_install_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import fails
    with pytest.raises(ConfigError, match=r"needs the ir_datasets package: pip install "
                                          r"'poolkit\[irds\]'"):
        load_config(config(tmp_path, "irds:msmarco-passage/trec-dl-2019/judged"))


def test_a_lone_surrogate_in_a_dataset_becomes_the_replacement_character(tmp_path: Path) -> None:
    """A JSON source's ``\\ud800`` reaches ir_datasets' docs and queries as half a UTF-16
    pair, which no UTF-8 file holds (writing poolkit's files ended in a traceback): it is
    written as U+FFFD, ids included, since the user cannot edit these files."""
    from ir_datasets.formats import GenericQuery, JsonlDocs, JsonlQueries

    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"doc_id": "d1", "text": "fine"}\n'
                    '{"doc_id": "d\\ud800", "text": "half \\udfff of a pair"}\n')
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"query_id": "q1", "text": "maize \\ud83d"}\n')
    name = f"poolkit-test/{uuid.uuid4().hex}"
    ir_datasets.registry.register(name, ir_datasets.Dataset(
        JsonlDocs(LocalDownload(docs), doc_cls=GenericDoc,
                  mapping={"doc_id": "doc_id", "text": "text"}),
        JsonlQueries(LocalDownload(queries), query_cls=GenericQuery,
                     mapping={"query_id": "query_id", "text": "text"})))
    cfg = load_config(config(tmp_path, f"irds:{name}"))
    corpus = read_corpus(cfg.corpus)
    assert corpus.ids == ["d1", "d\ufffd"] and corpus.texts == ["fine", "half \ufffd of a pair"]
    assert [q.text for q in read_queries(cfg.queries)] == ["maize \ufffd"]
