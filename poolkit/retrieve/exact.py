"""Exact inner-product top-k over an embedding matrix of any size, in bounded memory.

The documents are scanned in chunks (``doc_chunk`` rows at a time, read from disk into one
reused buffer when the matrix is a ``.npy`` file), each chunk scored against a block of
queries with one float32 matrix product. Memory is the chunk, one block of scores and each
query's candidates (about k), whatever the corpus size.

Ranking is the retrievers' rule (``base.top_k``): score rounded to six decimals descending,
then doc id descending. The score that is rounded is the inner product computed in float64
from the float32 vectors (every product is exact in float64, and each row is summed the same
way whatever its neighbours), so it does not depend on how the documents are chunked or the
queries blocked, nor on the BLAS kernel a matrix shape happens to pick: a float32 matrix
product gives different last bits for the same pair in differently shaped blocks, which
after rounding to six decimals moves a few scores and so ranks.

The float32 product only selects candidates. With ``delta`` a bound on its error
(``float32_dot_error``), each query keeps across chunks the documents whose float32 score is
within ``delta + 2e-6`` of its k-th best lower bound (float32 score - delta): any other has
k documents whose rounded exact score is certainly higher. That is k plus the few within the
margin, however many chunks there are. A second pass over the chunks gives those candidates,
and only those, their rounded exact score: a float64 matrix-vector product settles it where
its whole error interval rounds alike, the documented sum settles the rest (a score next to
a rounding boundary). The result equals ``top_k`` over the exact scores of every document,
for any chunk size (a property test holds it to that).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from poolkit.retrieve.base import SCORE_DECIMALS, ScoredDoc

#: rounding to 6 decimals keeps the order of two scores more than this apart
ROUNDING_GAP = 2 * 10.0 ** -SCORE_DECIMALS
#: float32 scores held at once (one block of queries x one chunk of documents): 64 MiB
SCORE_BUDGET = 1 << 24
#: queries scored at once by default: chunks of 65,536 documents (96 MiB of float32 rows at
#: 384 dimensions), so a query's candidates are merged every 65,536 documents, not 16,384
QUERY_BLOCK = 256


def float32_dot_error(dim: int, q_norm: np.ndarray, d_norm: float) -> np.ndarray:
    """An upper bound on |float32 dot product - exact| for vectors of these norms, whatever
    the summation order, plus slack for the float64 re-score's own rounding."""
    return dot_error(dim, q_norm, d_norm, 2.0 ** -24)


def dot_error(dim: int, q_norm: np.ndarray, d_norm: float, unit: float) -> np.ndarray:
    """An upper bound on |computed dot product - exact| in a precision of unit roundoff
    ``unit``, whatever the summation order (Higham's gamma_n times sum |q_i d_i|, at most
    |q| |d|), with slack for the rounding of the bound itself."""
    gamma = dim * unit / (1 - dim * unit)
    return gamma * q_norm.astype(np.float64) * d_norm * 1.01 + 1e-12


def exact_scores(q: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Inner products of one query with each row of ``docs`` in float64: the products are
    exact, and each row is summed by NumPy's pairwise sum, which depends only on the row."""
    return (np.asarray(docs, dtype=np.float64)  # type: ignore[no-any-return]
            * np.asarray(q, dtype=np.float64)).sum(axis=1)


class _Candidates:
    """A block of queries' candidates so far, chosen on float32 scores: one row per query of
    document indices (-1 pads a row) with a lower and an upper bound on each one's exact
    score (its float32 score -/+ its chunk's ``delta``), and ``bar``, each query's k-th best
    lower bound (-inf until k are held). A document whose upper bound is more than
    ``ROUNDING_GAP`` below ``bar`` has k documents whose rounded exact score is certainly
    higher, so it is dropped (or never taken). Rows are updated together, chunk by chunk."""

    __slots__ = ("docs", "lower", "upper", "bar")

    def __init__(self, queries: int) -> None:
        self.docs = np.full((queries, 0), -1, np.int64)
        self.lower = np.full((queries, 0), -np.inf)
        self.upper = np.full((queries, 0), -np.inf)
        self.bar = np.full(queries, -np.inf)

    def add(self, row: np.ndarray, docs: np.ndarray, scores: np.ndarray, delta: np.ndarray,
            k: int) -> None:
        """Take documents ``docs`` for queries ``row`` (ascending), then drop what cannot
        be in a top k any more."""
        counts = np.bincount(row, minlength=len(self.bar))
        slot = np.arange(len(row)) - np.repeat(np.cumsum(counts) - counts, counts)
        width = self.docs.shape[1]
        self.docs, self.lower, self.upper = (
            np.pad(held, ((0, 0), (0, int(counts.max(initial=0)))), constant_values=pad)
            for held, pad in ((self.docs, -1), (self.lower, -np.inf), (self.upper, -np.inf)))
        self.docs[row, width + slot] = docs
        self.lower[row, width + slot] = scores - delta[row]
        self.upper[row, width + slot] = scores + delta[row]
        width = self.docs.shape[1]
        if width < k:
            return
        self.bar = np.partition(self.lower, width - k, axis=1)[:, width - k]
        keep = (self.docs >= 0) & (self.upper + ROUNDING_GAP >= self.bar[:, None])
        kept = np.count_nonzero(keep, axis=1)
        cap = int(kept.max(initial=0))
        if cap < width:  # kept ones first in each row, then cut the columns no row needs
            order = np.argsort(~keep, axis=1, kind="stable")[:, :cap]
            self.docs, self.lower, self.upper = (
                np.take_along_axis(held, order, axis=1)
                for held in (self.docs, self.lower, self.upper))
            keep = np.arange(cap) < kept[:, None]
        gone = ~keep
        self.docs[gone], self.lower[gone], self.upper[gone] = -1, -np.inf, -np.inf

    def held(self) -> list[np.ndarray]:
        """Each query's candidate documents, ascending."""
        return [np.sort(d[d >= 0]) for d in self.docs]


def search(queries: np.ndarray, docs: np.ndarray | str | Path, k: int, id_rank: np.ndarray,
           ids: Sequence[str], *, doc_chunk: int | None = None,
           query_block: int | None = None) -> list[list[ScoredDoc]]:
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
    block = max(1, min(nq, query_block or QUERY_BLOCK, SCORE_BUDGET // 64))
    chunk = max(1, doc_chunk or SCORE_BUDGET // block)
    blocks = [(qa, _Candidates(len(q32[qa:qa + block]))) for qa in range(0, nq, block)]
    for start, rows in source.chunks(chunk):
        delta = float32_dot_error(q32.shape[1], q_norm, max_norm(rows))
        for qa, candidates in blocks:
            scores = q32[qa:qa + block] @ rows.T
            _select(scores, delta[qa:qa + block], start, k, candidates)
    docs_held = [d for _, candidates in blocks for d in candidates.held()]
    rounded = _rescore(source, chunk, q32, docs_held)
    return [_ranked(d, s, k, id_rank, ids) for d, s in zip(docs_held, rounded)]


def exact_norms_sq(rows: np.ndarray) -> np.ndarray:
    r = rows.astype(np.float64)
    return (r * r).sum(axis=1)  # type: ignore[no-any-return]


def max_norm(rows: np.ndarray) -> float:
    """An upper bound on the largest norm of float32 ``rows``, from float32 sums of squares
    (one pass, no float64 copy of the chunk): a sum of n non-negative terms is at most
    ``gamma_n`` relatively below the exact one, whatever the order."""
    if not len(rows):
        return 0.0
    u = 2.0 ** -24
    gamma = rows.shape[1] * u / (1 - rows.shape[1] * u)
    sq = float(np.einsum("ij,ij->i", rows, rows).max())
    return float(np.sqrt(sq / (1 - gamma) + 1e-30)) * (1 + 1e-9)


def _select(scores: np.ndarray, delta: np.ndarray, start: int, k: int,
            candidates: _Candidates) -> None:
    """Fold one chunk's float32 scores (a block of queries x the chunk) into the block's
    candidates: only the documents that could still beat a query's k-th best are taken."""
    width = scores.shape[1]
    bar = candidates.bar.copy()
    unset = np.isneginf(bar)
    if width > k and unset.any():  # nothing held yet: k of the chunk's scores bound it
        held = scores if unset.all() else scores[unset]
        bar[unset] = _at_least_k_reach(held, k).astype(np.float64) - delta[unset]
    floor = _float32_at_most(bar - delta - ROUNDING_GAP)
    taken = np.flatnonzero(scores >= floor[:, None])
    row, column = np.divmod(taken, width)
    candidates.add(row, column + start, scores.ravel()[taken].astype(np.float64), delta, k)


def _at_least_k_reach(scores: np.ndarray, k: int) -> np.ndarray:
    """For each row of ``scores`` (wider than ``k``), a value that at least ``k`` of its
    scores reach: any such value bounds the k-th best from below, the higher the fewer
    documents taken. A rank a little above k's in every ``step``-th column is close to the
    k-th best at a fraction of a full partition's cost; rows where fewer than k reach it (a
    sample that happened to hold the high scores) get the exact k-th best."""
    width = scores.shape[1]
    step = width // (4 * k)
    if step < 2:
        return np.partition(scores, width - k, axis=1)[:, width - k]  # type: ignore[no-any-return]
    sample = scores[:, ::step]
    rank = min(sample.shape[1], k // step + k // (4 * step) + 8)
    reach = np.partition(sample, sample.shape[1] - rank, axis=1)[:, sample.shape[1] - rank]
    short = np.flatnonzero(np.count_nonzero(scores >= reach[:, None], axis=1) < k)
    if len(short):
        reach[short] = np.partition(scores[short], width - k, axis=1)[:, width - k]
    return reach  # type: ignore[no-any-return]


def _float32_at_most(values: np.ndarray) -> np.ndarray:
    """The largest float32 at most each value: a float32 score is at least ``v`` only if it
    is at least this (so comparing in float32 takes every document float64 would)."""
    low = values.astype(np.float32)
    return np.where(low > values, np.nextafter(low, np.float32(-np.inf)), low)


def _rescore(source: _Rows, chunk: int, q32: np.ndarray,
             docs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The rounded exact score (``exact_scores``) of each query's candidate documents
    (``docs``, ascending), in one more pass over the chunks.

    A float64 matrix-vector product (BLAS, any summation order) is within ``dot_error`` of
    the exact score, and rounding to six decimals is monotone: where both ends of that
    interval round alike, so does the exact score. Only the rest (scores next to a rounding
    boundary: a handful in a million) are summed the exact way."""
    q64 = q32.astype(np.float64)
    q_norm = np.sqrt(exact_norms_sq(q32))
    rounded = [np.empty(len(d), np.float64) for d in docs]
    for start, rows in source.chunks(chunk):
        bounds = [start, start + len(rows)]
        error = dot_error(q32.shape[1], q_norm, max_norm(rows), 2.0 ** -53) * 2
        for i, d in enumerate(docs):
            a, b = np.searchsorted(d, bounds)
            if b == a:
                continue
            picked = rows[d[a:b] - start]
            approx = picked.astype(np.float64) @ q64[i]
            low = np.round(approx - error[i], SCORE_DECIMALS)
            high = np.round(approx + error[i], SCORE_DECIMALS)
            unsure = np.flatnonzero(low != high)
            if len(unsure):
                low[unsure] = np.round(exact_scores(q32[i], picked[unsure]), SCORE_DECIMALS)
            rounded[i][a:b] = low
    return rounded


def _ranked(docs: np.ndarray, rounded: np.ndarray, k: int, id_rank: np.ndarray,
            ids: Sequence[str]) -> list[ScoredDoc]:
    order = np.lexsort((id_rank[docs], -rounded))[:k]
    names = [ids[i] for i in docs[order].tolist()]
    return list(map(ScoredDoc, names, rounded[order].tolist()))


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
