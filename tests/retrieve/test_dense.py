from __future__ import annotations

import numpy as np
import pytest

from poolkit.io.corpus import Corpus
from poolkit.retrieve import dense
from poolkit.retrieve.dense import DenseRetriever, EmbeddingCache, Encoder, default_model_path

pytestmark = pytest.mark.slow  # loads MiniLM (once per session)


@pytest.fixture
def fresh_memo(monkeypatch):
    """Forget in-process embeddings so the disk cache is what is tested."""
    monkeypatch.setattr(dense, "_EMBEDDINGS", {})


def test_default_model_is_the_packaged_minilm(minilm):
    assert minilm.ref == str(default_model_path())
    assert (default_model_path() / "model.safetensors").is_file()
    assert minilm.encode_queries(["x"]).shape == (1, 384)


def test_dense_on_the_sample(sample_corpus, sample_queries, minilm, tmp_path, fresh_memo):
    r = DenseRetriever(sample_corpus, encoder=minilm, cache_dir=tmp_path)
    runs = {q: [h.docid for h in hits] for q, hits in r.search(sample_queries, 24).items()}
    assert set(runs["q_faw"][:3]) == {"m1", "m2", "m3"}
    assert set(runs["q_milk"][:3]) <= {"d1", "d2", "d3", "d4", "d5"}
    assert runs["q_store"][0] in {"s1", "s2"}
    assert all(len(v) == 24 for v in runs.values())  # exact search ranks every document


def test_exact_search_is_brute_force_cosine(sample_corpus, sample_queries, minilm, tmp_path,
                                            fresh_memo):
    r = DenseRetriever(sample_corpus, encoder=minilm, cache_dir=tmp_path)
    emb = np.asarray(r.embeddings)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    q = sample_queries[0]
    qv = minilm.model.encode([q.text], normalize_embeddings=True)[0]
    cos = emb @ qv
    hits = r.search([q], 5)[q.qid]
    assert [h.docid for h in hits] == [sample_corpus.ids[i] for i in np.argsort(-cos)[:5]]
    assert hits[0].score == pytest.approx(float(cos.max()), abs=1e-5)


def test_embeddings_are_cached_on_disk_by_model_and_corpus(sample_corpus, sample_queries,
                                                           minilm, tmp_path, fresh_memo,
                                                           monkeypatch):
    first = DenseRetriever(sample_corpus, encoder=minilm, cache_dir=tmp_path)
    expected = first.search(sample_queries, 10)
    assert first.cache_hit is False
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 2 and files[0].endswith(".json") and files[1].endswith(".npy")
    assert sample_corpus.sha256[:16] in files[1] and minilm.key() in files[1]

    monkeypatch.setattr(dense, "_EMBEDDINGS", {})
    monkeypatch.setattr(Encoder, "encode_documents",
                        lambda self, texts: pytest.fail("re-encoded despite the cache"))
    second = DenseRetriever(sample_corpus, encoder=minilm, cache_dir=tmp_path)
    assert second.search(sample_queries, 10) == expected
    assert second.cache_hit is True

    # Another corpus content (one word changed) or another document prefix: another key.
    changed = Corpus(list(sample_corpus.ids), list(sample_corpus.titles),
                     [sample_corpus.texts[0] + " extra", *sample_corpus.texts[1:]])
    cache = EmbeddingCache(tmp_path)
    assert cache.path(minilm, changed) != cache.path(minilm, sample_corpus)
    prefixed = Encoder(doc_prefix="passage: ")
    assert prefixed.key() != minilm.key()
    assert cache.load(minilm, changed) is None


def test_a_damaged_cache_is_re_encoded(sample_corpus, minilm, tmp_path, fresh_memo):
    path = EmbeddingCache(tmp_path).path(minilm, sample_corpus)
    path.write_bytes(b"not a numpy file")
    r = DenseRetriever(sample_corpus, encoder=minilm, cache_dir=tmp_path)
    assert r.embeddings.shape == (24, 384) and r.cache_hit is False
