"""The BM25 index cache: keyed by corpus content and every setting, memory-mapped, and never
trusted when damaged; and the streaming index's numbers against rank-bm25's BM25Okapi."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.io.corpus import Corpus
from poolkit.retrieve.bm25 import BM25Retriever, Tokenizer, lucene_idf, okapi_idf
from poolkit.retrieve.bm25_index import IndexCache, build_index
from poolkit.store.records import QueryRecord

PLAIN = {"stem": False, "stopwords": False}


class CountingCorpus(Corpus):
    """A corpus that counts how often a retriever asks for a passage's text."""

    reads = 0

    def passage(self, i: int) -> str:
        type(self).reads += 1
        return super().passage(i)


def counting(records) -> CountingCorpus:
    CountingCorpus.reads = 0
    return CountingCorpus([r[0] for r in records], [r[1] for r in records],
                          [r[2] for r in records])


def generated(n_docs: int, seed: int = 3) -> list[tuple[str, str, str]]:
    """Passages of 1-30 words from a 300-word Zipfian vocabulary (the most frequent words
    are in most passages: their Okapi idf is negative, then floored)."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(300)]
    p = 1.0 / np.arange(1, 301) ** 1.1
    p /= p.sum()
    return [(f"d{i:04d}", "", " ".join(vocab[w] for w in rng.choice(300, rng.integers(1, 31),
                                                                      p=p)))
            for i in range(n_docs)]


QUERIES = [QueryRecord(f"q{i}", q) for i, q in enumerate(
    ["w0", "w1 w5 w17", "w250 w3", "w9 w9 w2", "w299", "nothing here", "w0 w1 w2 w3 w4"])]


def test_miss_then_hit_and_a_hit_never_reads_the_corpus(tmp_path, sample_corpus,
                                                        sample_queries):
    records = list(zip(sample_corpus.ids, sample_corpus.titles, sample_corpus.texts))
    first = BM25Retriever.from_options(counting(records), cache_dir=tmp_path)
    cold = first.search(sample_queries, 24)
    assert first.cache_hit is False and CountingCorpus.reads == len(records)
    [folder] = tmp_path.glob("bm25-*")
    manifest = json.loads((folder / "index.json").read_text())
    assert manifest["docs"] == len(records) and manifest["corpus_sha256"] == \
        sample_corpus.sha256

    second = BM25Retriever.from_options(counting(records), cache_dir=tmp_path)
    warm = second.search(sample_queries, 24)
    assert second.cache_hit is True
    assert CountingCorpus.reads == 0  # tokenizing the corpus is skipped entirely
    assert isinstance(second._engine.index.data, np.memmap)  # read memory-mapped
    assert warm == cold
    # ... and both are what the uncached engine and rank-bm25 itself return.
    assert BM25Retriever.from_options(sample_corpus).search(sample_queries, 24) == cold
    assert BM25Retriever.from_options(sample_corpus, engine="rank_bm25").search(
        sample_queries, 24) == cold


def test_the_index_is_built_on_first_use_or_when_asked(tmp_path, sample_corpus):
    lazy = BM25Retriever.from_options(sample_corpus, cache_dir=tmp_path)
    assert lazy.cache_hit is None and not list(tmp_path.glob("bm25-*"))  # nothing yet
    assert lazy.build() is lazy and lazy.cache_hit is False
    assert BM25Retriever.from_options(sample_corpus, cache_dir=tmp_path).build().cache_hit


def test_without_a_cache_dir_nothing_is_cached(tmp_path, sample_corpus):
    r = BM25Retriever.from_options(sample_corpus)
    r.scores("maize")
    assert r.cache_hit is None


@pytest.mark.parametrize("change", [
    {"k1": 1.2}, {"b": 0.5}, {"epsilon": 0.1}, {"idf": "lucene"}, {"lowercase": False},
    {"stopwords": False}, {"stopwords": ["maize"]}, {"stem": False}, {"stem": "english"},
])
def test_every_setting_that_changes_the_index_changes_the_key(tmp_path, sample_corpus, change):
    base = BM25Retriever.from_options(sample_corpus, cache_dir=tmp_path)
    changed = BM25Retriever.from_options(sample_corpus, cache_dir=tmp_path, **change)
    cache = IndexCache(tmp_path)
    assert cache.path(base.index_settings(), sample_corpus.sha256) != \
        cache.path(changed.index_settings(), sample_corpus.sha256)
    base.scores("maize")
    changed.scores("maize")
    assert changed.cache_hit is False  # not the other's index
    assert len(list(tmp_path.glob("bm25-*"))) == 2


def test_the_corpus_content_is_in_the_key(tmp_path):
    records = generated(50)
    one = BM25Retriever.from_options(Corpus.from_records(records), cache_dir=tmp_path, **PLAIN)
    one.scores("w1")
    edited = [*records[:-1], (records[-1][0], "", records[-1][2] + " w1")]
    two = BM25Retriever.from_options(Corpus.from_records(edited), cache_dir=tmp_path, **PLAIN)
    assert two.scores("w1")[-1] > one.scores("w1")[-1] and two.cache_hit is False


def test_the_reference_engine_is_not_cached(tmp_path, sample_corpus):
    r = BM25Retriever.from_options(sample_corpus, engine="rank_bm25", cache_dir=tmp_path)
    r.scores("maize")
    assert r.cache_hit is None and not list(tmp_path.glob("bm25-*"))


def _truncate(folder, name):
    path = folder / name
    path.write_bytes(path.read_bytes()[:-8])


def _scramble_indptr(folder, _name):
    path = folder / "indptr.npy"
    data = bytearray(path.read_bytes())
    data[-16:] = b"\xff" * 16  # the last offsets, now past the end of the postings
    path.write_bytes(bytes(data))


def _rows_out_of_range(folder, _name):
    path = folder / "indices.npy"
    data = bytearray(path.read_bytes())
    data[-4:] = (2**31 - 1).to_bytes(4, "little")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage, name", [
    (lambda f, n: (f / n).unlink(), "data.npy"),
    (lambda f, n: (f / n).unlink(), "vocab.txt"),
    (_truncate, "data.npy"),
    (_truncate, "indices.npy"),
    (_truncate, "vocab.txt"),
    (lambda f, n: (f / n).write_text("{not json"), "index.json"),
    (lambda f, n: (f / n).write_text("[]"), "index.json"),
    (lambda f, n: (f / n).write_bytes(b"garbage" * 40), "positive.npy"),
    (_scramble_indptr, ""),
    (_rows_out_of_range, ""),
])
def test_a_damaged_cache_is_rebuilt_not_trusted(tmp_path, sample_corpus, sample_queries,
                                                damage, name):
    expected = BM25Retriever.from_options(sample_corpus, cache_dir=tmp_path).search(
        sample_queries, 24)
    [folder] = tmp_path.glob("bm25-*")
    damage(folder, name)
    again = BM25Retriever.from_options(sample_corpus, cache_dir=tmp_path)
    assert again.search(sample_queries, 24) == expected
    assert again.cache_hit is False
    # Rebuilt and written back whole: the next one is a hit.
    third = BM25Retriever.from_options(sample_corpus, cache_dir=tmp_path)
    assert third.search(sample_queries, 24) == expected and third.cache_hit is True


def test_an_unwritable_cache_folder_is_a_clear_error(tmp_path, sample_corpus):
    from poolkit.errors import PoolkitError

    blocker = tmp_path / "cache"
    blocker.write_text("a file, not a folder")
    with pytest.raises(PoolkitError, match="cache"):
        BM25Retriever.from_options(sample_corpus, cache_dir=blocker).scores("maize")


def test_scores_equal_rank_bm25_okapi_on_a_generated_corpus():
    """Every document's score for every query against rank-bm25's BM25Okapi itself (not
    poolkit's wrapper of it), and the ranked lists against its scores."""
    from rank_bm25 import BM25Okapi

    records = generated(2000)
    corpus = Corpus.from_records(records)
    tok = Tokenizer.from_options(stopwords=False, stem=False)
    oracle = BM25Okapi([tok(r[2]) for r in records])
    ours = BM25Retriever(corpus, tokenizer=tok)
    hits = ours.search(QUERIES, 50)
    for q in QUERIES:
        want = oracle.get_scores(tok(q.text))
        np.testing.assert_allclose(ours.scores(q.text), want, rtol=0, atol=1e-9)
        matching = [i for i, r in enumerate(records) if set(tok(r[2])) & set(tok(q.text))]
        ranked = sorted(matching, key=lambda i: (-round(want[i], 6), _neg(records[i][0])))
        assert [h.docid for h in hits[q.qid]] == [records[i][0] for i in ranked[:50]]
    # w0 is in most passages: its idf is negative, so floored (epsilon * mean idf).
    assert oracle.idf["w0"] == pytest.approx(0.25 * oracle.average_idf)


def _neg(docid: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in docid)


WORDS = st.sampled_from("ant bee cat dog eel fox gnu hen".split())


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(st.lists(WORDS, max_size=8), min_size=1, max_size=14),
       query=st.lists(WORDS, min_size=1, max_size=4), lucene=st.booleans(),
       b=st.sampled_from([0.0, 0.75, 1.0, 3.0]))
def test_matching_is_the_union_of_the_query_terms_postings(docs, query, lucene, b):
    """The shortcut (all of a query's weights positive: matching = scoring above zero) and
    the postings union agree, for either idf and any b (b > 1 can make weights negative)."""
    index = build_index([" ".join(d) for d in docs], len(docs), str.split, 1.5, b, 0.25,
                        lucene_idf if lucene else okapi_idf)
    ids = index.term_ids(query)
    scores = index.scores(ids)
    want = [i for i, d in enumerate(docs) if set(d) & set(query)]
    assert index.matching(ids, scores).tolist() == want
