"""Chunked exact search: the same top k as ranking every document's exact score at once."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.io.corpus import descending_id_order
from poolkit.retrieve import exact
from poolkit.retrieve.base import Hit, top_k


def reference(queries: np.ndarray, docs: np.ndarray, k: int, ids: list[str]) -> list[list[Hit]]:
    """Every document scored exactly, ranked by the retrievers' rule in one go."""
    id_rank = descending_id_order(ids)
    return [top_k(exact.exact_scores(q, docs), k, id_rank, ids) for q in queries]


@st.composite
def matrices(draw):
    """Queries and documents with many exact ties: few distinct document rows (repeated),
    coarse values (scores that coincide), near-duplicates one float32 ulp apart, and ids
    whose descending order is not the row order."""
    dim = draw(st.integers(1, 12))
    distinct = draw(st.integers(1, 6))
    n_docs = draw(st.integers(0, 40))
    n_queries = draw(st.integers(0, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    coarse = draw(st.booleans())
    base = (rng.integers(-3, 4, size=(distinct, dim)) / 4 if coarse
            else rng.standard_normal((distinct, dim))).astype(np.float32)
    docs = base[rng.integers(0, distinct, size=n_docs)] if n_docs else np.zeros((0, dim),
                                                                                np.float32)
    if n_docs and draw(st.booleans()):  # nudge some rows by one ulp
        nudge = rng.random(docs.shape) < 0.2
        docs = np.where(nudge, np.nextafter(docs, np.float32(np.inf)), docs).astype(np.float32)
    queries = (rng.integers(-3, 4, size=(n_queries, dim)) / 4 if coarse
               else rng.standard_normal((n_queries, dim))).astype(np.float32)
    ids = [f"d{v}" for v in rng.permutation(max(n_docs, 1))[:n_docs]]
    return queries, np.ascontiguousarray(docs, dtype=np.float32), ids


@settings(max_examples=200, deadline=None)
@given(data=matrices(), k=st.integers(0, 45), chunk=st.integers(1, 45),
       block=st.integers(1, 6))
def test_chunked_search_equals_ranking_every_document_at_once(data, k, chunk, block):
    queries, docs, ids = data
    got = exact.search(queries, docs, k, descending_id_order(ids), ids, doc_chunk=chunk,
                       query_block=block)
    assert got == reference(queries, docs, k, ids)


@settings(max_examples=30, deadline=None)
@given(data=matrices(), k=st.integers(1, 10), chunk=st.integers(1, 17))
def test_a_npy_file_is_read_in_chunks_with_the_same_result(tmp_path_factory, data, k, chunk):
    queries, docs, ids = data
    path = tmp_path_factory.mktemp("emb") / "docs.npy"
    np.save(path, docs)
    id_rank = descending_id_order(ids)
    expected = exact.search(queries, docs, k, id_rank, ids, doc_chunk=chunk)
    assert exact.search(queries, path, k, id_rank, ids, doc_chunk=chunk) == expected
    mapped = np.load(path, mmap_mode="r")
    assert exact.search(queries, mapped, k, id_rank, ids, doc_chunk=chunk) == expected


def test_a_memory_map_is_read_through_the_file_not_mapped_whole(tmp_path, monkeypatch):
    docs = np.random.default_rng(1).standard_normal((50, 8)).astype(np.float32)
    np.save(tmp_path / "d.npy", docs)
    mapped = np.load(tmp_path / "d.npy", mmap_mode="r")
    rows = exact._Rows.open(mapped)
    assert rows.path == tmp_path / "d.npy" and rows.array is None
    seen = [(start, len(view)) for start, view in rows.chunks(16)]
    assert seen == [(0, 16), (16, 16), (32, 16), (48, 2)]
    # A slice of the map is not the file's matrix: it is read as the array it is.
    assert exact._Rows.open(mapped[10:]).array is not None


def test_float32_scores_stay_within_the_error_bound():
    """The selection's margin rests on this bound (any summation order, any BLAS kernel)."""
    rng = np.random.default_rng(7)
    for dim in (1, 7, 384):
        q = rng.standard_normal((9, dim)).astype(np.float32) * rng.uniform(0.1, 3.0, (9, 1))
        d = rng.standard_normal((300, dim)).astype(np.float32)
        fast = (q @ d.T).astype(np.float64)
        exact_ = np.stack([exact.exact_scores(v, d) for v in q])
        q_norm = np.sqrt(exact.exact_norms_sq(q))
        bound = exact.float32_dot_error(dim, q_norm, float(np.sqrt(exact.exact_norms_sq(d).max())))
        assert (np.abs(fast - exact_) <= bound[:, None]).all()


@pytest.mark.parametrize("n_queries, n_docs, k", [(0, 5, 3), (2, 0, 3), (2, 5, 0)])
def test_empty_inputs(n_queries, n_docs, k):
    q = np.ones((n_queries, 4), np.float32)
    d = np.ones((n_docs, 4), np.float32)
    ids = [f"d{i}" for i in range(n_docs)]
    got = exact.search(q, d, k, descending_id_order(ids), ids)
    assert got == [[] for _ in range(n_queries)]


def test_ties_are_broken_by_doc_id_descending():
    d = np.ones((4, 3), np.float32)
    ids = ["a", "c", "b", "d"]
    got = exact.search(np.ones((1, 3), np.float32), d, 3, descending_id_order(ids), ids,
                       doc_chunk=1)
    assert [h.docid for h in got[0]] == ["d", "c", "b"]
    assert {h.score for h in got[0]} == {3.0}
