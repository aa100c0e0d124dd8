from __future__ import annotations

from pathlib import Path

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


@pytest.fixture(scope="module")
def sample_embeddings(sample_corpus, minilm):
    """The sample's document embeddings as the default encoder makes them, encoded once for
    the tests that check what is done with them, not how they are made or kept."""
    return minilm.encode_documents(dense.Passages(sample_corpus))


@pytest.fixture
def encoded_memo(monkeypatch, sample_corpus, minilm, sample_embeddings):
    """An in-process memo holding only the sample's embeddings (``sample_embeddings``): a
    search test reads them without encoding again; nothing leaks to other tests."""
    monkeypatch.setattr(dense, "_EMBEDDINGS",
                        {(minilm.key(), sample_corpus.sha256): sample_embeddings})


def test_default_model_is_the_packaged_minilm(minilm):
    assert minilm.ref == str(default_model_path())
    assert (default_model_path() / "model.safetensors").is_file()
    assert minilm.encode_queries(["x"]).shape == (1, 384)


def test_dense_on_the_sample(sample_corpus, sample_queries, minilm, tmp_path, encoded_memo):
    r = DenseRetriever(sample_corpus, encoder=minilm, cache_dir=tmp_path)
    runs = {q: [h.docid for h in hits] for q, hits in r.search(sample_queries, 24).items()}
    assert set(runs["q_faw"][:3]) == {"m1", "m2", "m3"}
    assert set(runs["q_milk"][:3]) <= {"d1", "d2", "d3", "d4", "d5"}
    assert runs["q_store"][0] in {"s1", "s2"}
    assert all(len(v) == 24 for v in runs.values())  # exact search ranks every document


def test_exact_search_is_brute_force_cosine(sample_corpus, sample_queries, minilm, tmp_path,
                                            encoded_memo):
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


@pytest.mark.parametrize("batch_size", [1, 5, 32])
def test_document_embeddings_are_plain_encodes(sample_corpus, minilm, batch_size,
                                               sample_embeddings):
    """poolkit encodes sentence-transformers' own batches one by one: the same embeddings
    as one ``encode`` call over the whole corpus, bit for bit."""
    texts = sample_corpus.passages()
    plain = minilm.model.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                                convert_to_numpy=True)
    # At the default batch size poolkit's encode is the module's (encoded once).
    ours = (sample_embeddings if batch_size == minilm.batch_size else
            Encoder(batch_size=batch_size).encode_documents(dense.Passages(sample_corpus)))
    assert ours.dtype == np.float32 and ours.shape == plain.shape
    np.testing.assert_array_equal(ours, plain)


def test_length_batches_are_sentence_transformers_order():
    texts = ["aa", "a", "aaaa", "aaa", "aa", ""]
    batches = dense.length_batches(texts, "", 4)
    order = np.argsort([-len(t) for t in texts])  # what SentenceTransformer.encode does
    assert np.concatenate(batches).tolist() == order.tolist()
    assert [len(b) for b in batches] == [4, 2]
    with_prefix = dense.length_batches(texts, "query: ", 4)
    assert np.concatenate(with_prefix).tolist() == np.argsort(
        [-len("query: " + t) for t in texts]).tolist()


def test_the_cache_file_is_written_row_by_row_and_mapped(sample_corpus, minilm, tmp_path,
                                                        fresh_memo, sample_embeddings):
    emb, hit = dense.document_embeddings(minilm, sample_corpus, tmp_path)
    assert hit is False and isinstance(emb, np.memmap)
    path = EmbeddingCache(tmp_path).path(minilm, sample_corpus)
    assert Path(emb.filename) == path and not emb.flags.writeable
    np.testing.assert_array_equal(np.load(path), sample_embeddings)  # encode_documents
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    note = path.with_suffix(".json").read_text()
    assert '"device": "cpu"' in note and '"docs": 24' in note


def test_a_failed_encode_leaves_no_cache_file(sample_corpus, minilm, tmp_path, fresh_memo,
                                              monkeypatch):
    calls = []
    original = Encoder._encode_batch

    def fail_on_second(self, texts, prefix):
        calls.append(len(texts))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(self, texts, prefix)

    encoder = Encoder(batch_size=8)
    monkeypatch.setattr(Encoder, "_encode_batch", fail_on_second)
    with pytest.raises(KeyboardInterrupt):
        dense.document_embeddings(encoder, sample_corpus, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_encode_resumes_from_its_last_finished_chunk(sample_corpus, tmp_path,
                                                                    fresh_memo, monkeypatch):
    """Chunks of 8 passages, batches of 4: three chunks. Interrupted inside the third, the
    first two are kept (and the interrupt's line says so); the rerun encodes the third
    only, into the embeddings an encode never stopped makes, and keeps no chunk after."""
    from poolkit import interrupt

    monkeypatch.setattr(dense, "CHUNK_PASSAGES", 8)
    encoder = Encoder(batch_size=4)
    expected = encoder.encode_documents(dense.Passages(sample_corpus))  # never stopped
    calls = []
    original = Encoder._encode_batch

    def counted(self, texts, prefix):
        calls.append(len(texts))
        if len(calls) == 5:  # the third chunk's first batch
            raise KeyboardInterrupt
        return original(self, texts, prefix)

    monkeypatch.setattr(Encoder, "_encode_batch", counted)
    interrupt.reset()
    with pytest.raises(KeyboardInterrupt):
        dense.document_embeddings(encoder, sample_corpus, tmp_path)
    path = EmbeddingCache(tmp_path).path(encoder, sample_corpus)
    assert not path.exists()
    assert sorted(p.name for p in path.with_suffix(".parts").iterdir()) == [
        "b4-c8-000000.npy", "b4-c8-000001.npy"]
    assert interrupt.interrupted_line("pool") == (
        "poolkit pool: interrupted; nothing recorded, the store is as it was; dense "
        "embeddings of 16 of 24 passages kept in the cache: run the same command to resume")

    calls.clear()
    emb, hit = dense.document_embeddings(encoder, sample_corpus, tmp_path)
    assert calls == [4, 4] and hit is False
    np.testing.assert_array_equal(emb, expected)
    assert not path.with_suffix(".parts").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.with_suffix(".json").name,
                                                          path.name]
    interrupt.reset()
    assert interrupt.interrupted_line("pool") == (
        "poolkit pool: interrupted; nothing recorded, the store is as it was: run the same "
        "command again")


def test_a_damaged_chunk_is_encoded_again(sample_corpus, tmp_path, fresh_memo, monkeypatch):
    monkeypatch.setattr(dense, "CHUNK_PASSAGES", 8)
    encoder = Encoder(batch_size=4)
    path = EmbeddingCache(tmp_path).path(encoder, sample_corpus)
    parts = path.with_suffix(".parts")
    parts.mkdir()
    (parts / "b4-c8-000000.npy").write_bytes(b"torn")
    np.save(parts / "b4-c8-000001.npy", np.zeros((3, 384), dtype=np.float32))  # wrong shape
    calls = []
    original = Encoder._encode_batch
    monkeypatch.setattr(Encoder, "_encode_batch",
                        lambda self, t, p: calls.append(len(t)) or original(self, t, p))
    emb, _ = dense.document_embeddings(encoder, sample_corpus, tmp_path)
    assert calls == [4] * 6
    np.testing.assert_array_equal(emb, encoder.encode_documents(dense.Passages(sample_corpus)))


def test_re_pool_reads_the_cache_without_encoding_or_loading_it_whole(
        sample_corpus, sample_queries, minilm, tmp_path, fresh_memo, monkeypatch):
    first = DenseRetriever(sample_corpus, encoder=minilm, cache_dir=tmp_path)
    expected = first.search(sample_queries, 7)
    monkeypatch.setattr(dense, "_EMBEDDINGS", {})
    monkeypatch.setattr(Encoder, "encode_documents",
                        lambda *a, **k: pytest.fail("re-encoded despite the cache"))
    reads = []
    real_chunks = dense.exact._Rows.chunks

    def chunks(self, size):
        reads.append((self.path, self.array is None))
        return real_chunks(self, size)

    monkeypatch.setattr(dense.exact._Rows, "chunks", chunks)
    again = DenseRetriever(sample_corpus, encoder=minilm, cache_dir=tmp_path)
    assert again.search(sample_queries, 7) == expected and again.cache_hit is True
    # The map is read through the file in chunks, not asked for as one array: one pass to
    # choose the candidates, one to re-score them.
    assert reads == [(EmbeddingCache(tmp_path).path(minilm, sample_corpus), True)] * 2


def test_chunked_search_is_ranking_every_exact_cosine(sample_corpus, sample_queries, minilm,
                                                      tmp_path, encoded_memo, monkeypatch):
    from poolkit.retrieve.base import top_k
    from poolkit.retrieve.exact import exact_scores

    r = DenseRetriever(sample_corpus, encoder=minilm, cache_dir=tmp_path)
    emb = np.asarray(r.embeddings)
    q_emb = minilm.encode_queries([q.text for q in sample_queries])
    expected = {q.qid: top_k(exact_scores(v, emb), 24, sample_corpus.id_rank, sample_corpus.ids)
                for q, v in zip(sample_queries, q_emb)}
    monkeypatch.setattr(dense.exact, "SCORE_BUDGET", 3)  # one document per chunk
    assert r.search(sample_queries, 24) == expected


def test_the_same_queries_are_encoded_once_and_read_only(minilm, monkeypatch):
    """A dense system and a bi-encoder reranker of one pool ask for the same queries'
    embeddings: the second call is the first's array, which nobody can change."""
    monkeypatch.setattr(dense, "_last_queries", None)
    calls = []
    encode = minilm.model.encode
    monkeypatch.setattr(minilm.model, "encode", lambda *a, **k: calls.append(a) or encode(*a, **k))
    first = minilm.encode_queries(["solar energy", "fall armyworm"])
    again = minilm.encode_queries(["solar energy", "fall armyworm"])
    assert again is first and len(calls) == 1 and not first.flags.writeable
    other = minilm.encode_queries(["solar energy"])
    assert len(calls) == 2 and other.shape == (1, 384)
    np.testing.assert_allclose(other[0], first[0], atol=1e-6)
