"""BM25's term-weight matrix: built in one streaming pass over the corpus, cached on disk.

The index is bm25s's eager design: a CSC matrix with one column per term and a row per
document, holding the term's BM25 weight in the document, so a query's score vector is the
sum of its terms' columns (its postings), never a pass over every document.

Building it never holds the corpus's tokens: each passage is tokenized and its tokens turned
into term ids at once (an int32 array grows, 4 bytes a token), and the (term, doc) pairs are
counted with one sort of 64-bit keys. Weights are float64 (rank-bm25's numbers); document
rows are int32.

``IndexCache`` keeps an index in ``cache_dir`` like the dense embeddings: a folder
``bm25-<settings key>-<corpus hash>/`` of ``.npy`` arrays and the vocabulary, every file
written atomically and the manifest last; it is read memory-mapped, and anything that does
not check out (missing or short file, arrays that do not fit together, another key) is
rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from poolkit.progress import track

IdfFunction = Callable[[np.ndarray, int, float], np.ndarray]

FORMAT = 1  # the cache layout; a change makes every old entry a miss
ARRAYS = ("data", "indices", "indptr", "positive")


@dataclass
class BM25Index:
    """The weights (``data``, CSC order: term-major, documents ascending within a term),
    their document rows (``indices``), each term's slice (``indptr``), whether every weight
    of a term is positive (``positive``: then "matches" is "scores above zero"), and the
    vocabulary (term -> column)."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    positive: np.ndarray
    vocab: dict[str, int]
    n_docs: int

    def term_ids(self, tokens: Iterable[str]) -> list[int]:
        """The query's known terms as columns, repeats kept (they count twice)."""
        vocab = self.vocab
        return [vocab[t] for t in tokens if t in vocab]

    def scores(self, term_ids: list[int]) -> np.ndarray:
        """Every document's score: its weights summed in query-term order (float64)."""
        out = np.zeros(self.n_docs)
        data, indices, indptr = self.data, self.indices, self.indptr
        for t in term_ids:
            start, end = int(indptr[t]), int(indptr[t + 1])
            out[indices[start:end]] += data[start:end]  # a term's rows are distinct
        return out

    def matching(self, term_ids: list[int], scores: np.ndarray) -> np.ndarray:
        """Documents holding at least one of the terms (``scores`` is their score vector)."""
        if not term_ids:
            return np.zeros(0, dtype=np.int64)
        if all(self.positive[t] for t in term_ids):
            return np.flatnonzero(scores > 0)  # a sum of positive weights is positive
        mask = np.zeros(self.n_docs, dtype=bool)
        for t in set(term_ids):
            mask[self.indices[int(self.indptr[t]):int(self.indptr[t + 1])]] = True
        return np.flatnonzero(mask)


def tokenize_to_ids(passages: Iterable[str], n_docs: int, tokenize: Callable[[str], list[str]],
                    label: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(term id of every token, doc-major; each document's length; the terms by id)."""
    vocab: defaultdict[str, int] = defaultdict()
    vocab.default_factory = vocab.__len__  # a new term gets the next id
    term_of = vocab.__getitem__
    ids = array("i")
    lengths = array("q")
    for text in track(passages, n_docs, label, "passages"):
        tokens = tokenize(text)
        lengths.append(len(tokens))
        ids.extend(map(term_of, tokens))
    return (np.frombuffer(ids, dtype=np.int32), np.frombuffer(lengths, dtype=np.int64),
            list(vocab))


def build_index(passages: Iterable[str], n_docs: int, tokenize: Callable[[str], list[str]],
                k1: float, b: float, epsilon: float, idf_of: IdfFunction,
                label: str = "bm25: tokenizing") -> BM25Index:
    flat, lengths, terms = tokenize_to_ids(passages, n_docs, tokenize, label)
    keys = pair_keys(flat, lengths)
    del flat  # the tokens' ids are in the keys now
    matrix = okapi_matrix(keys, lengths, len(terms), k1, b, epsilon, idf_of)
    return BM25Index(**matrix, vocab={t: i for i, t in enumerate(terms)}, n_docs=n_docs)


def pair_keys(flat: np.ndarray, lengths: np.ndarray, block: int = 65_536) -> np.ndarray:
    """One 64-bit key per token, ``term * n_docs + doc``: sorted, they are term-major with
    documents ascending (CSC order), and equal keys are one (term, doc) pair."""
    n_docs = len(lengths)
    keys = flat.astype(np.int64)
    keys *= max(n_docs, 1)
    ends = np.cumsum(lengths)
    for start in range(0, n_docs, block):  # the document of every token, a block at a time
        stop = min(start + block, n_docs)
        first = int(ends[start - 1]) if start else 0
        keys[first:int(ends[stop - 1])] += np.repeat(
            np.arange(start, stop, dtype=np.int64), lengths[start:stop])
    return keys


def okapi_matrix(keys: np.ndarray, lengths: np.ndarray, n_vocab: int, k1: float, b: float,
                 epsilon: float, idf_of: IdfFunction) -> dict[str, np.ndarray]:
    """The CSC arrays from every token's ``pair_keys`` (consumed: sorted in place), each
    weight as rank-bm25 computes it: ``idf * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl /
    avgdl)))``. Memory: one array of the tokens' keys, then a few of the pairs, one at a
    time where that is possible."""
    n_docs = max(len(lengths), 1)
    keys.sort()
    n_tokens = len(keys)
    new = np.empty(n_tokens, dtype=bool)
    new[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    del new
    tf = np.empty(len(starts))  # run lengths of equal keys, as float64
    np.subtract(starts[1:], starts[:-1], out=tf[:-1])
    tf[-1:] = n_tokens - starts[-1:]
    pairs = keys[starts]
    del keys, starts
    # Pairs are term-major: each term's slice is found by bisection, its documents by
    # taking the term's offset away.
    indptr = np.searchsorted(pairs, np.arange(n_vocab + 1, dtype=np.int64) * n_docs)
    df = np.diff(indptr)
    pairs -= np.repeat(np.arange(n_vocab, dtype=np.int64) * n_docs, df)
    doc = pairs.astype(np.int32)
    del pairs
    idf = np.zeros(n_vocab)
    present = df > 0
    idf[present] = idf_of(df[present].astype(np.float64), len(lengths), epsilon)
    avgdl = lengths.mean() if len(lengths) else 0.0
    norm = k1 * (1 - b + b * lengths / avgdl) if avgdl else np.full(len(lengths), k1)
    denominator = norm[doc]
    denominator += tf
    data = tf
    data *= k1 + 1
    with np.errstate(divide="ignore", invalid="ignore"):  # b > 1 can make it 0, as in rank-bm25
        data /= denominator
    del denominator
    data *= np.repeat(idf, df)
    positive = np.ones(n_vocab, dtype=bool)
    if present.any():
        positive[present] = np.minimum.reduceat(data, indptr[:-1][present]) > 0
    return {"data": data, "indices": doc, "indptr": indptr.astype(np.int64),
            "positive": positive}


# -- the cache ----------------------------------------------------------------------------------

def settings_key(settings: Mapping[str, Any]) -> str:
    """What determines the index (tokenizer, k1, b, epsilon, idf, engine), hashed."""
    material = json.dumps({"format": FORMAT, **settings}, sort_keys=True, default=str)
    return hashlib.sha256(material.encode()).hexdigest()[:16]


class IndexCache:
    """BM25 indexes on disk: ``bm25-<settings key>-<corpus hash>/``, read memory-mapped."""

    def __init__(self, cache_dir: str | Path | None) -> None:
        self.dir = Path(cache_dir) if cache_dir is not None else None

    def path(self, settings: Mapping[str, Any], corpus_sha256: str) -> Path | None:
        if self.dir is None:
            return None
        return self.dir / f"bm25-{settings_key(settings)}-{corpus_sha256[:16]}"

    def load(self, settings: Mapping[str, Any], corpus_sha256: str,
             n_docs: int) -> BM25Index | None:
        """The cached index, or None when there is none or it does not check out."""
        folder = self.path(settings, corpus_sha256)
        if folder is None or not (folder / "index.json").is_file():
            return None
        try:
            manifest = json.loads((folder / "index.json").read_text(encoding="utf-8"))
            if (manifest.get("key") != settings_key(settings)
                    or manifest.get("corpus_sha256") != corpus_sha256
                    or manifest.get("docs") != n_docs):
                return None
            arrays = {}
            for name in ARRAYS:
                path = folder / f"{name}.npy"
                if path.stat().st_size != manifest["bytes"][name]:
                    return None
                arrays[name] = np.load(path, mmap_mode="r", allow_pickle=False)
            vocab_path = folder / "vocab.txt"
            if vocab_path.stat().st_size != manifest["bytes"]["vocab"]:
                return None
            text = vocab_path.read_text(encoding="utf-8")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # damaged: rebuilt, not trusted
        terms = text.split("\n") if text else []
        index = BM25Index(**arrays, vocab={t: i for i, t in enumerate(terms)}, n_docs=n_docs)
        return index if _consistent(index, len(terms), manifest) else None

    def save(self, settings: Mapping[str, Any], corpus_sha256: str, index: BM25Index,
             extra: Mapping[str, Any]) -> None:
        folder = self.path(settings, corpus_sha256)
        if folder is None:
            return
        import time

        from poolkit.io.atomic import atomic_writer, check_writable_folder, write_bytes, write_text

        start = time.perf_counter()
        check_writable_folder(folder)  # an OutputError naming it, not a traceback
        sizes: dict[str, int] = {}
        for name in ARRAYS:
            path = folder / f"{name}.npy"
            with atomic_writer(path, "wb") as fh:
                np.save(fh, np.ascontiguousarray(getattr(index, name)), allow_pickle=False)
            sizes[name] = path.stat().st_size
        vocab = "\n".join(sorted(index.vocab, key=index.vocab.__getitem__)).encode()
        write_bytes(folder / "vocab.txt", vocab)
        sizes["vocab"] = len(vocab)
        manifest = {"key": settings_key(settings), "settings": dict(settings),
                    "corpus_sha256": corpus_sha256, "docs": index.n_docs,
                    "terms": len(index.vocab), "postings": int(len(index.data)),
                    "bytes": sizes, **extra,
                    "save_seconds": round(time.perf_counter() - start, 3)}
        write_text(folder / "index.json", json.dumps(manifest, indent=2, default=str) + "\n")


def _consistent(index: BM25Index, n_terms: int, manifest: Mapping[str, Any]) -> bool:
    """Arrays that fit together (lengths, dtypes, bounds): a damaged file rarely passes."""
    indptr, indices = index.indptr, index.indices
    if (n_terms != manifest.get("terms") or len(index.vocab) != n_terms
            or indptr.shape != (n_terms + 1,) or index.positive.shape != (n_terms,)
            or index.data.dtype != np.float64 or indices.dtype != np.int32
            or indptr.dtype != np.int64 or index.positive.dtype != bool
            or index.data.shape != indices.shape or len(indices) != manifest.get("postings")):
        return False
    if n_terms and (indptr[0] != 0 or indptr[-1] != len(indices)
                    or bool((np.diff(indptr) <= 0).any())):
        return False
    if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= index.n_docs):
        return False
    return True
