"""Chunked exact search: the same top k as ranking every document's exact score at once."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.io.corpus import descending_id_order
from poolkit.retrieve import exact
from poolkit.retrieve.base import ScoredDoc, top_k


def reference(queries: np.ndarray, docs: np.ndarray, k: int,
              ids: list[str]) -> list[list[ScoredDoc]]:
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


def _ids(n: int) -> list[str]:
    return [f"d{(i * 7) % n:03d}" for i in range(n)]  # descending id order is not row order


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 100])
def test_k_larger_than_the_corpus_returns_every_document_ranked(chunk):
    rng = np.random.default_rng(3)
    docs = rng.standard_normal((11, 6)).astype(np.float32)
    queries = rng.standard_normal((3, 6)).astype(np.float32)
    ids = _ids(11)
    got = exact.search(queries, docs, 50, descending_id_order(ids), ids, doc_chunk=chunk)
    assert got == reference(queries, docs, 50, ids)
    assert all(len(hits) == 11 for hits in got)


@pytest.mark.parametrize("chunk", [1, 2, 3, 4, 7, 13])
@pytest.mark.parametrize("k", [1, 4, 5, 9])
def test_a_tie_at_the_kth_place_spanning_chunks_is_cut_by_doc_id(chunk, k):
    """Rows 2..10 score the same (one vector repeated); k cuts through them whichever chunk
    each one is in: the cut follows doc id descending, as ranking all at once does."""
    top = np.array([[2.0, 0.0, 0.0]], np.float32)
    tied = np.array([[1.0, 0.0, 0.0]], np.float32)
    low = np.array([[0.0, 1.0, 0.0]], np.float32)
    docs = np.concatenate([top, top, np.repeat(tied, 9, axis=0), low, low])
    ids = _ids(len(docs))
    query = np.array([[1.0, 0.5, 0.0]], np.float32)
    got = exact.search(query, docs, k, descending_id_order(ids), ids, doc_chunk=chunk)
    assert got == reference(query, docs, k, ids)
    tied_ids = sorted((ids[i] for i in range(2, 11)), reverse=True)
    assert [h.docid for h in got[0][2:]] == tied_ids[:max(0, k - 2)]


@pytest.mark.parametrize("chunk", [1, 2, 5])
def test_duplicate_vectors_everywhere(chunk):
    rng = np.random.default_rng(5)
    distinct = rng.standard_normal((3, 8)).astype(np.float32)
    docs = distinct[rng.integers(0, 3, size=30)]
    queries = np.concatenate([rng.standard_normal((2, 8)).astype(np.float32),
                              distinct[:1]])
    ids = _ids(30)
    for k in (1, 7, 10, 29, 30, 31):
        got = exact.search(queries, docs, k, descending_id_order(ids), ids, doc_chunk=chunk,
                           query_block=2)
        assert got == reference(queries, docs, k, ids)


def test_an_empty_npy_file_gives_no_hits(tmp_path):
    np.save(tmp_path / "empty.npy", np.zeros((0, 4), np.float32))
    got = exact.search(np.ones((2, 4), np.float32), tmp_path / "empty.npy", 3,
                       descending_id_order([]), [])
    assert got == [[], []]


def test_a_score_next_to_a_rounding_boundary_is_summed_the_exact_way(monkeypatch):
    """The float64 product only settles a score's six decimals when its whole error interval
    rounds alike; 1.5e-6 in float32 sits 6e-14 above the 1e-6 / 2e-6 midpoint, so it is
    summed the documented way, and the hit says 2e-6 as ranking every score at once does."""
    docs = np.array([[1.5e-6], [1.0], [0.25]], np.float32)
    query = np.ones((1, 1), np.float32)
    ids = ["a", "b", "c"]
    summed: list[int] = []
    real = exact.exact_scores

    def spy(q, rows):
        summed.append(len(rows))
        return real(q, rows)

    monkeypatch.setattr(exact, "exact_scores", spy)
    got = exact.search(query, docs, 3, descending_id_order(ids), ids)
    monkeypatch.setattr(exact, "exact_scores", real)
    assert got == reference(query, docs, 3, ids)
    assert summed == [1] and got[0][-1] == ScoredDoc("a", 2e-06)


def test_only_about_k_documents_a_query_are_re_scored_in_float64(monkeypatch):
    """The float32 pass keeps k candidates plus the few within its error margin of the k-th
    (not k per chunk), so the float64 work does not grow with the number of chunks."""
    rng = np.random.default_rng(11)
    docs = rng.standard_normal((4000, 32)).astype(np.float32)
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    queries = rng.standard_normal((5, 32)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    ids = [f"p{i}" for i in range(4000)]
    sizes: list[int] = []
    real = exact._rescore

    def spy(source, chunk, q32, docs_held):
        sizes.extend(len(d) for d in docs_held)
        return real(source, chunk, q32, docs_held)

    monkeypatch.setattr(exact, "_rescore", spy)
    got = exact.search(queries, docs, 100, descending_id_order(ids), ids, doc_chunk=250)
    assert got == reference(queries, docs, 100, ids)
    assert len(sizes) == 5 and all(100 <= s <= 110 for s in sizes)


def test_max_norm_bounds_every_row_from_above():
    rng = np.random.default_rng(2)
    for dim in (1, 3, 384):
        rows = (rng.standard_normal((200, dim)) * rng.uniform(1e-3, 1e3, (200, 1))
                ).astype(np.float32)
        exact_max = float(np.sqrt(exact.exact_norms_sq(rows).max()))
        assert exact_max <= exact.max_norm(rows) <= exact_max * (1 + 1e-4)
    assert exact.max_norm(np.zeros((0, 4), np.float32)) == 0.0


@pytest.mark.parametrize("high_in_sample", [False, True])
def test_a_wide_chunk_bounds_its_kth_best_from_a_sample_or_exactly(high_in_sample):
    """A chunk far wider than k bounds its k-th best from every step-th column; when those
    columns hold the only high scores, fewer than k reach the sample's bound and the row
    falls back to the exact k-th best. Either way the result is ranking all at once."""
    rng = np.random.default_rng(4)
    n, k = 400, 10
    docs = rng.standard_normal((n, 5)).astype(np.float32)
    if high_in_sample:  # every 10th row (the sample's columns) far above the rest
        docs[::10] += np.float32(50.0)
    queries = np.ones((2, 5), np.float32)
    ids = _ids(n)
    scores = queries @ docs.T
    reach = exact._at_least_k_reach(scores, k)
    assert (np.count_nonzero(scores >= reach[:, None], axis=1) >= k).all()
    if high_in_sample:
        np.testing.assert_array_equal(reach, np.sort(scores, axis=1)[:, -k])
    got = exact.search(queries, docs, k, descending_id_order(ids), ids, doc_chunk=n)
    assert got == reference(queries, docs, k, ids)
