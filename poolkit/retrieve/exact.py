"""Exact inner-product top-k over an embedding matrix of any size, in bounded memory.

The documents are scanned in chunks (``doc_chunk`` rows at a time, read from disk into one
reused buffer when the matrix is a ``.npy`` file), each chunk scored against a block of
queries with one float32 matrix product, and each query keeps a running set of candidates.
Memory is the chunk, one block of scores and the candidates, whatever the corpus size.

Ranking is the retrievers' rule (``base.top_k``): score rounded to six decimals descending,
then doc id descending. The score that is rounded is the inner product computed in float64
from the float32 vectors (every product is exact in float64, and each row is summed the same
way whatever its neighbours), so it does not depend on how the documents are chunked or the
queries blocked, nor on the BLAS kernel a matrix shape happens to pick: a float32 matrix
product gives different last bits for the same pair in differently shaped blocks, which
after rounding to six decimals moves a few scores and so ranks. The float32 product only
selects candidates: with ``delta`` a bound on its error (``float32_dot_error``), a document
whose float32 score is more than ``2 * delta + 2e-6`` below the k-th best of its chunk, or
``delta + 2e-6`` below the k-th best exact score so far, cannot be in the top k, and every
other one is re-scored exactly. The result equals ``top_k`` over the exact scores of every
document, for any chunk size (a property test holds it to that).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from poolkit.retrieve.base import SCORE_DECIMALS, Hit

#: rounding to 6 decimals keeps the order of two scores more than this apart
ROUNDING_GAP = 2 * 10.0 ** -SCORE_DECIMALS
#: float32 scores held at once (one block of queries x one chunk of documents): 64 MiB
SCORE_BUDGET = 1 << 24


def float32_dot_error(dim: int, q_norm: np.ndarray, d_norm: float) -> np.ndarray:
    """An upper bound on |float32 dot product - exact| for vectors of these norms, whatever
    the summation order (Higham's gamma_n times sum |q_i d_i| <= |q| |d|), plus slack for
    the float64 re-score's own rounding."""
    u = 2.0 ** -24
    gamma = dim * u / (1 - dim * u)
    return gamma * q_norm.astype(np.float64) * d_norm * 1.01 + 1e-12


def exact_scores(q: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Inner products of one query with each row of ``docs`` in float64: the products are
    exact, and each row is summed by NumPy's pairwise sum, which depends only on the row."""
    return (np.asarray(docs, dtype=np.float64)  # type: ignore[no-any-return]
            * np.asarray(q, dtype=np.float64)).sum(axis=1)


def exact_top_k(scores: np.ndarray, k: int, id_rank: np.ndarray) -> np.ndarray:
    """Indices of the best ``k`` of exact ``scores`` by (rounded score desc, id rank asc):
    the reference the chunked search equals (``base.top_k`` on these scores)."""
    rounded = np.round(scores.astype(np.float64), SCORE_DECIMALS)
    return np.lexsort((id_rank, -rounded))[:max(k, 0)]  # type: ignore[no-any-return]


class _Running:
    """One query's candidates so far: doc indices and exact rounded scores, plus the float32
    threshold below which a document cannot enter its top k."""

    __slots__ = ("docs", "rounded", "floor")

    def __init__(self) -> None:
        self.docs = np.zeros(0, np.int64)
        self.rounded = np.zeros(0, np.float64)
        self.floor = -np.inf  # the k-th best rounded score once k are held

    def add(self, docs: np.ndarray, rounded: np.ndarray, k: int, id_rank: np.ndarray) -> None:
        all_docs = np.concatenate([self.docs, docs])
        all_rounded = np.concatenate([self.rounded, rounded])
        if len(all_docs) >= k:
            keep = np.lexsort((id_rank[all_docs], -all_rounded))[:k]
            all_docs, all_rounded = all_docs[keep], all_rounded[keep]
            self.floor = float(all_rounded[-1])
        self.docs, self.rounded = all_docs, all_rounded

    def hits(self, k: int, id_rank: np.ndarray, ids: Sequence[str]) -> list[Hit]:
        order = np.lexsort((id_rank[self.docs], -self.rounded))[:k]
        return [Hit(ids[i], s) for i, s in zip(self.docs[order].tolist(),
                                                self.rounded[order].tolist())]


def search(queries: np.ndarray, docs: np.ndarray | str | Path, k: int, id_rank: np.ndarray,
           ids: Sequence[str], *, doc_chunk: int | None = None,
           query_block: int | None = None) -> list[list[Hit]]:
    """The top ``k`` documents of each query (rows of ``queries``), best first.

    ``docs`` is the matrix (an array or memory map) or the path of a ``.npy`` file, read in
    chunks of ``doc_chunk`` rows (default: what keeps a block of scores within
    ``SCORE_BUDGET``). ``query_block`` bounds the queries scored at once.
    """
    nq = int(queries.shape[0])
    source = _Rows.open(docs)
    n = source.rows
    if nq == 0:
        return []
    if n == 0 or k <= 0:
        return [[] for _ in range(nq)]
    q32 = np.ascontiguousarray(queries, dtype=np.float32)
    q_norm = np.sqrt(exact_norms_sq(q32))
    block = max(1, min(nq, query_block or nq, SCORE_BUDGET // 64))
    chunk = max(1, doc_chunk or SCORE_BUDGET // block)
    running = [_Running() for _ in range(nq)]
    for start, rows in source.chunks(chunk):
        d_norm = float(np.sqrt(exact_norms_sq(rows).max(initial=0.0)))
        delta = float32_dot_error(q32.shape[1], q_norm, d_norm)
        for qa in range(0, nq, block):
            scores = q32[qa:qa + block] @ rows.T
            _select(scores, rows, q32[qa:qa + block], delta[qa:qa + block], start, k,
                    id_rank, running[qa:qa + block])
    return [r.hits(k, id_rank, ids) for r in running]


def exact_norms_sq(rows: np.ndarray) -> np.ndarray:
    r = rows.astype(np.float64)
    return (r * r).sum(axis=1)  # type: ignore[no-any-return]


def _select(scores: np.ndarray, rows: np.ndarray, queries: np.ndarray, delta: np.ndarray,
            start: int, k: int, id_rank: np.ndarray, running: Sequence[_Running]) -> None:
    """Fold one chunk's float32 scores into each query's running candidates."""
    width = scores.shape[1]
    if width > k:
        kth = np.partition(scores, width - k, axis=1)[:, width - k].astype(np.float64)
        chunk_floor = kth - 2 * delta - ROUNDING_GAP
    else:
        chunk_floor = np.full(len(running), -np.inf)
    floors = np.array([r.floor for r in running], dtype=np.float64) - delta - ROUNDING_GAP
    floor = np.maximum(chunk_floor, floors)
    rows64 = rows.astype(np.float64)  # once per chunk, not once per query's candidates
    for i, r in enumerate(running):
        picked = np.flatnonzero(scores[i] >= floor[i])
        if not len(picked):
            continue
        rounded = np.round(exact_scores(queries[i], rows64[picked]), SCORE_DECIMALS)
        r.add(picked + start, rounded, k, id_rank)


class _Rows:
    """Row chunks of a matrix in memory, or of a ``.npy`` file read into one reused buffer
    (so a corpus's embeddings are never all resident)."""

    def __init__(self, rows: int, array: np.ndarray | None = None, path: Path | None = None,
                 offset: int = 0, dim: int = 0) -> None:
        self.rows, self.array, self.path, self.offset, self.dim = rows, array, path, offset, dim

    @classmethod
    def open(cls, docs: np.ndarray | str | Path) -> _Rows:
        if isinstance(docs, np.memmap) and docs.filename and docs.flags.c_contiguous:
            layout = _npy_layout_or_none(Path(docs.filename))
            if layout is not None and layout == (docs.shape, docs.offset):
                return cls(docs.shape[0], path=Path(docs.filename), offset=int(docs.offset),
                           dim=docs.shape[1])
        if isinstance(docs, (str, Path)):
            path = Path(docs)
            shape, offset = _npy_layout(path)
            return cls(shape[0], path=path, offset=offset, dim=shape[1])
        return cls(int(docs.shape[0]), array=docs)

    def chunks(self, size: int) -> Iterator[tuple[int, np.ndarray]]:
        if self.array is not None:
            for start in range(0, self.rows, size):
                yield start, np.ascontiguousarray(self.array[start:start + size],
                                                  dtype=np.float32)
            return
        assert self.path is not None
        buffer = np.empty((min(size, self.rows), self.dim), np.float32)
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            for start in range(0, self.rows, size):
                view = buffer[:min(size, self.rows - start)]
                if fh.readinto(view.data.cast("B")) != view.nbytes:
                    raise OSError(f"{self.path}: shorter than its header says")
                yield start, view


def _npy_layout(path: Path) -> tuple[tuple[int, ...], int]:
    """(shape, data offset) of a C-ordered float32 ``.npy`` file."""
    with open(path, "rb") as fh:
        version = np.lib.format.read_magic(fh)
        read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                       (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read_header is None:
            raise ValueError(f"{path}: .npy format {version} is not read here")
        shape, fortran, dtype = read_header(fh)
        offset = fh.tell()
    if fortran or dtype != np.float32 or len(shape) != 2:
        raise ValueError(f"{path}: not a C-ordered float32 matrix")
    return shape, offset


def _npy_layout_or_none(path: Path) -> tuple[tuple[int, ...], int] | None:
    """The layout of a memory-mapped matrix's file, if it is the whole file's matrix."""
    try:
        return _npy_layout(path)
    except (OSError, ValueError):
        return None
