"""The scorer's per-query facts for a run held as columns, found for all queries at once.

A run read as :class:`~poolkit.io.run_columns.RunColumns` is joined with the qrels on
(query, doc id) by 64-bit hashes: a sorted array of the qrels' keys (built once per qrels and
width, so N runs share it) and one ``searchsorted`` for every ranked row. A hash only
proposes a match; every proposed match is confirmed on the bytes of the doc id and the
query, and the qrels' keys are checked to be distinct, so the join is exact. What comes out
is, per query, the slots holding a judged id, from which :class:`QueryFacts` (the same object
the line-by-line path builds) gives every measure: the values are the same by construction.

Repeated ids (for the audit) are found the same way: within each query, equal hashes are
candidates, and only the queries with a candidate are checked on their ids.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from functools import partial

import numpy as np

from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.io.run_columns import RunColumns, bytes_hashes, mix64
from poolkit.score.facts import QueryFacts
from poolkit.score.inferred import PoolSample
from poolkit.threads import cache_lock, ordered_map, part_jobs

_QUERY_SALT = np.uint64(0x9E3779B97F4A7C15)
_CHUNK_ROWS = 1 << 20  # rows of whole queries joined at a time, chunks side by side on threads


class _QrelsKeys:
    """The qrels' judged (query, doc id) pairs as sorted hash keys, for doc ids of one width."""

    def __init__(self, qrels: Qrels, width: int) -> None:
        qids = list(qrels.grades)
        self.size = (len(qids), len(qrels))
        self.query_index = {q: i for i, q in enumerate(qids)}
        per_query = list(qrels.grades.values())
        docs = [d for judged in per_query for d in judged]
        grades = [g for judged in per_query for g in judged.values()]
        query = np.repeat(np.arange(len(per_query)), [len(j) for j in per_query])
        sizes = np.fromiter(map(len, docs), np.int64, len(docs))
        # An id that is not ASCII, holds a NUL or is wider than the run's never matches a
        # row of a run read as columns (it has none of those): leave it out.
        keep = sizes <= width
        joined = "".join(docs)
        if not joined.isascii() or "\x00" in joined:
            keep &= np.fromiter((d.isascii() and "\x00" not in d for d in docs), bool, len(docs))
        if not keep.all():
            picked = np.flatnonzero(keep).tolist()
            docs = [docs[i] for i in picked]
            grades = [grades[i] for i in picked]
            query = query[keep]
        self.docids = np.array(docs, dtype=f"S{width}") if docs else np.zeros(0, f"S{width}")
        self.query = query.astype(np.int64)
        self.grades = np.array(grades, dtype=np.int64)
        keys = _keys(bytes_hashes(self.docids), self.query)
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]
        self.distinct = bool(len(self.keys) < 2 or (self.keys[1:] != self.keys[:-1]).all())
        # A bitmap of the keys' top bits: most ranked rows are unjudged, and one look-up
        # in it rules them out before the binary search.
        self.bits = max(16, min(26, int(len(keys)).bit_length() + 4))
        self.bitmap = np.zeros(1 << self.bits, bool)
        self.bitmap[keys >> np.uint64(64 - self.bits)] = True


def _keys(hashes: np.ndarray, query: np.ndarray) -> np.ndarray:
    return mix64(hashes + query.astype(np.uint64) * _QUERY_SALT)


# id(qrels) -> (a weak reference to it, its keys per width): a Qrels is not hashable.
_CACHE: dict[int, tuple[weakref.ref[Qrels], dict[int, _QrelsKeys]]] = {}


def _qrels_keys(qrels: Qrels, width: int) -> _QrelsKeys:
    """The keys of ``qrels`` at ``width``, built once while ``qrels`` lives (N runs scored
    against one qrels share them, also from threads: the first builds them)."""
    with cache_lock:
        return _cached_keys(qrels, width)


def _cached_keys(qrels: Qrels, width: int) -> _QrelsKeys:
    held = _CACHE.get(id(qrels))
    if held is None or held[0]() is not qrels:
        key = id(qrels)
        held = _CACHE[key] = (weakref.ref(qrels, lambda _: _CACHE.pop(key, None)), {})
    keys = held[1].get(width)
    if keys is None or keys.size != (len(qrels.grades), len(qrels)):  # changed since: rebuild
        keys = held[1][width] = _QrelsKeys(qrels, width)
    return keys


def _query_chunks(starts: np.ndarray, rows: int) -> list[tuple[int, int]]:
    """Consecutive query ranges of about ``rows`` rows each (at least one query each), so
    the per-row temporaries stay small however long the run."""
    cuts = np.unique(np.searchsorted(starts, np.arange(0, int(starts[-1]), rows), side="right")
                     - 1)
    bounds = [*cuts.tolist(), len(starts) - 1]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _depth_lengths(cols: RunColumns, depth: int | None) -> np.ndarray:
    lengths = cols.lengths()
    if depth is None:
        return lengths
    return np.minimum(lengths, min(depth, np.iinfo(np.int64).max))  # --depth may be any int


def column_facts(qrels: Qrels, run: Run, qids: Sequence[str], depth: int | None,
                 sample: Mapping[str, PoolSample] | None = None,
                 ) -> dict[str, QueryFacts] | None:
    """QueryFacts for each of ``qids`` (queries of ``qrels``; a query the run lacks gets an
    empty ranking) of a run held as columns, or None in the astronomically rare case of two
    qrels keys sharing a hash (the caller then scores the lists). A query's list itself is
    made only if a measure reads it (``QueryFacts.ranking``)."""
    cols = run.columns
    assert cols is not None
    index = _qrels_keys(qrels, cols.docids.dtype.itemsize)
    if not index.distinct:
        return None
    run_to_qrels = np.array([index.query_index.get(q, -1) for q in cols.qids], dtype=np.int64)
    lengths_all = cols.lengths()
    depth_lengths = _depth_lengths(cols, depth)
    hashes = cols.hashes()

    def matches(chunk: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """(row, qrels entry) of every judged row of the queries ``chunk``."""
        qa, qb = chunk
        a, b = int(cols.starts[qa]), int(cols.starts[qb])
        row_query = np.repeat(run_to_qrels[qa:qb], lengths_all[qa:qb])
        keys = _keys(hashes[a:b], row_query)
        maybe = index.bitmap[keys >> np.uint64(64 - index.bits)]
        maybe &= row_query >= 0
        if depth is not None:
            pos = np.arange(a, b) - np.repeat(cols.starts[qa:qb], lengths_all[qa:qb])
            maybe &= pos < np.repeat(depth_lengths[qa:qb], lengths_all[qa:qb])
        rows = np.flatnonzero(maybe)
        keys = keys[rows]
        at = np.minimum(np.searchsorted(index.keys, keys), len(index.keys) - 1)
        hit = index.keys[at] == keys
        rows, entry = rows[hit] + a, index.order[at[hit]]
        exact = ((index.docids[entry] == cols.docids[rows])
                 & (index.query[entry] == row_query[rows - a]))
        return rows[exact], entry[exact]

    found = ordered_map(matches, _query_chunks(cols.starts, _CHUNK_ROWS), part_jobs())
    rows = np.concatenate([r for r, _ in found])
    entry = np.concatenate([e for _, e in found])

    first = np.zeros(len(rows), bool)
    first[np.unique(entry, return_index=True)[1]] = True
    run_query = np.searchsorted(cols.starts, rows, side="right") - 1
    position = rows - cols.starts[run_query]
    bounds = np.searchsorted(run_query, np.arange(len(cols.qids) + 1))
    pos_l, grade_l, first_l = (position.tolist(), index.grades[entry].tolist(), first.tolist())
    lengths = depth_lengths.tolist()

    run_index = {q: i for i, q in enumerate(cols.qids)}
    facts: dict[str, QueryFacts] = {}
    rankings = run.rankings
    for qid in qids:
        grades = qrels.grades.get(qid, {})
        design = sample.get(qid) if sample else None
        j = run_index.get(qid)
        if j is None:
            facts[qid] = QueryFacts.from_slots(0, [], grades, design)
            continue
        a, b = int(bounds[j]), int(bounds[j + 1])
        slots = list(zip(pos_l[a:b], grade_l[a:b], first_l[a:b]))
        n = lengths[j]
        facts[qid] = QueryFacts.from_slots(n, slots, grades, design,
                                           partial(_top, rankings, qid, n))
    return facts


def _top(rankings: Mapping[str, list[str]], qid: str, n: int) -> list[str]:
    return rankings[qid][:n]


def column_repeats(cols: RunColumns, depth: int | None) -> dict[str, tuple[int, int, list[str]]]:
    """Per query of the run: (results within depth, repeated slots, repeated ids in first-seen
    order), exactly as :func:`poolkit.score.audit.repeats_of` counts them on the list."""
    from poolkit.score.audit import repeats_of

    lengths = _depth_lengths(cols, depth)
    out: dict[str, tuple[int, int, list[str]]] = {
        q: (n, 0, []) for q, n in zip(cols.qids, lengths.tolist())}
    for j in _candidate_queries(cols, lengths):
        q = cols.qids[j]
        ranking = cols.docs(j)[:int(lengths[j])]
        slots, repeated = repeats_of(ranking)
        out[q] = (len(ranking), slots, repeated)
    return out


def _candidate_queries(cols: RunColumns, lengths: np.ndarray) -> list[int]:
    """Queries with two equal doc-id hashes within their first ``lengths`` rows (a superset
    of the queries with a repeated id)."""
    nq = len(cols.qids)
    if not nq or int(lengths.max()) < 2:
        return []
    width = int(lengths.max())
    hashes = cols.hashes()
    full = cols.lengths()
    if int(full.min()) == int(full.max()):  # the usual run: every query equally deep
        mat = hashes.reshape(nq, int(full[0]))[:, :width].copy()
    elif nq * width <= 2 * len(cols) + (1 << 20):
        # Pad each query to one row of a matrix (pads distinct from each other and, but for a
        # 1-in-2^64 chance that the exact check below absorbs, from every hash).
        mat = np.full((nq, width), np.iinfo(np.uint64).max, np.uint64)
        mat -= np.arange(width, dtype=np.uint64)
        for j in range(nq):
            n = int(lengths[j])
            mat[j, :n] = hashes[cols.starts[j]:cols.starts[j] + n]
    else:  # a few very deep queries among shallow ones: one sort of (query, hash) keys
        query = np.repeat(np.arange(nq), full)
        pos = np.arange(len(cols)) - np.repeat(cols.starts[:-1], full)
        rows = np.flatnonzero(pos < lengths[query])
        keys = _keys(hashes[rows].copy(), query[rows])
        order = np.argsort(keys)
        dup = np.flatnonzero(keys[order][1:] == keys[order][:-1])
        return sorted(set(query[rows][order[dup]].tolist()))
    step = max(1, _CHUNK_ROWS // width)

    def repeated_in(a: int) -> np.ndarray:  # rows a.. sorted, those with two equal hashes
        part = mat[a:a + step]
        part.sort(axis=1)
        return np.flatnonzero((part[:, 1:] == part[:, :-1]).any(axis=1)) + a

    found = ordered_map(repeated_in, range(0, nq, step), part_jobs())
    return np.concatenate(found).tolist()  # type: ignore[no-any-return]
