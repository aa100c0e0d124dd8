"""Two-stage retrieval: re-score another system's top ``fetch`` and keep the best ``depth``.

The second stage is a ``Reranker``: ``rerank(query, docids, top_k) -> [ScoredDoc]``.

- ``CrossEncoderReranker``: a sentence-transformers ``CrossEncoder`` (``model:`` in the
  config, a local path or a hub name) scores each (query, passage) pair.
- ``BiEncoderReranker``: with no cross-encoder configured, the packaged MiniLM bi-encoder
  re-scores the candidates by cosine similarity. That is the honest offline default: a
  legitimate two-stage system (lexical recall, semantic precision), not a pretend
  cross-encoder. Document embeddings come from the dense cache.

``RerankRetriever`` keeps the candidate list it re-scored (``fetch_results``), so stage-1
recall (fetch) and stage-2 recall (keep) can both be scored from files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from poolkit.io.corpus import Corpus, QueryRecord
from poolkit.progress import enabled as progress_enabled
from poolkit.retrieve.base import Results, Retriever, ScoredDoc, rank_hits
from poolkit.retrieve.dense import Encoder, document_embeddings, load_model, resolve_model
from poolkit.retrieve.device import resolve_device
from poolkit.retrieve.exact import exact_scores


class Reranker(Protocol):
    def rerank(self, query: str, docids: Sequence[str], top_k: int) -> list[ScoredDoc]: ...

    def rerank_many(self, queries: Mapping[str, str], candidates: Mapping[str, Sequence[str]],
                    top_k: int) -> Results: ...

    def settings(self) -> dict[str, Any]: ...


class _Batched:
    """``rerank`` in terms of ``rerank_many`` (one batched model call for all queries)."""

    def rerank(self, query: str, docids: Sequence[str], top_k: int) -> list[ScoredDoc]:
        return self.rerank_many({"q": query}, {"q": docids}, top_k)["q"]

    def rerank_many(self, queries: Mapping[str, str], candidates: Mapping[str, Sequence[str]],
                    top_k: int) -> Results:
        raise NotImplementedError


class CrossEncoderReranker(_Batched):
    def __init__(self, corpus: Corpus, model: str, base: Path | None = None,
                 batch_size: int = 32, max_length: int | None = None,
                 device: str | None = None) -> None:
        self.corpus = corpus
        self.model_name = model
        self.ref, self.local = resolve_model(model, base)
        self.batch_size, self.max_length = int(batch_size), max_length
        self.device_option = device

    @cached_property
    def device(self) -> str:
        return resolve_device(self.device_option)

    def rerank_many(self, queries: Mapping[str, str], candidates: Mapping[str, Sequence[str]],
                    top_k: int) -> Results:
        model = load_model("cross", self.ref, self.local, self.max_length, self.device)
        pairs, owners = [], []
        for qid, docids in candidates.items():
            for d in docids:
                pairs.append((queries[qid], self.corpus.passage(self.corpus.index[d])))
                owners.append((qid, d))
        scores = (np.asarray(model.predict(pairs, batch_size=self.batch_size,
                                           show_progress_bar=progress_enabled()),
                             dtype=np.float64)
                  if pairs else np.zeros(0))
        return _collect(candidates, owners, scores.reshape(len(pairs), -1)[:, 0] if pairs
                        else scores, top_k)

    def settings(self) -> dict[str, Any]:
        return {"scorer": "cross-encoder", "model": self.model_name,
                "model_path": self.ref if self.local else None,
                "batch_size": self.batch_size, "max_length": self.max_length,
                "device": self.device}


class BiEncoderReranker(_Batched):
    def __init__(self, corpus: Corpus, encoder: Encoder | None = None,
                 cache_dir: str | Path | None = None) -> None:
        self.corpus = corpus
        self.encoder = encoder or Encoder()
        self.cache_dir = cache_dir

    def rerank_many(self, queries: Mapping[str, str], candidates: Mapping[str, Sequence[str]],
                    top_k: int) -> Results:
        qids = [q for q in candidates if candidates[q]]
        if not qids:
            return {q: [] for q in candidates}
        docs, _hit = document_embeddings(self.encoder, self.corpus, self.cache_dir)
        q_emb = self.encoder.encode_queries([queries[q] for q in qids])
        owners: list[tuple[str, str]] = []
        scores: list[np.ndarray] = []
        for qid, qv in zip(qids, q_emb):
            rows = [self.corpus.index[d] for d in candidates[qid]]
            # The dense retriever's exact score of the same pair (a float32 product's last
            # bits depend on the block it is computed in).
            scores.append(exact_scores(qv, np.asarray(docs[rows])))
            owners.extend((qid, d) for d in candidates[qid])
        return _collect(candidates, owners, np.concatenate(scores), top_k)

    def settings(self) -> dict[str, Any]:
        return {"scorer": "bi-encoder", **self.encoder.settings()}


def _collect(candidates: Mapping[str, Sequence[str]], owners: list[tuple[str, str]],
             scores: np.ndarray, top_k: int) -> Results:
    per: dict[str, list[ScoredDoc]] = {q: [] for q in candidates}
    for (qid, d), s in zip(owners, scores.tolist()):
        per[qid].append(ScoredDoc(d, float(s)))
    return {q: rank_hits(hits, top_k) for q, hits in per.items()}


class RerankRetriever:
    """``first`` fetches ``fetch`` candidates per query; ``reranker`` re-scores them."""

    kind = "rerank"

    def __init__(self, name: str, first: Retriever, reranker: Reranker, fetch: int) -> None:
        self.name = name
        self.first = first
        self.reranker = reranker
        self.fetch = int(fetch)
        self.fetch_results: Results = {}

    def search(self, queries: Sequence[QueryRecord], k: int) -> Results:
        self.fetch_results = self.first.search(queries, self.fetch)
        texts = {q.qid: q.text for q in queries}
        candidates = {q: [h.docid for h in hits] for q, hits in self.fetch_results.items()}
        return self.reranker.rerank_many(texts, candidates, min(k, self.fetch))

    def settings(self) -> dict[str, Any]:
        return {"kind": self.kind, "over": self.first.name, "fetch": self.fetch,
                **self.reranker.settings()}
