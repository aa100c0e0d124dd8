from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.io.corpus import Corpus
from poolkit.retrieve.bm25 import BM25Retriever, Tokenizer
from poolkit.store.records import QueryRecord

PLAIN = {"stem": False, "stopwords": False}


def ranked(retriever, query, k=24):
    return [h.docid for h in retriever.search([QueryRecord("q", query)], k)["q"]]


def test_tokenizer_options():
    assert Tokenizer.from_options()("The farmers were Storing maize") == \
        ["farmer", "were", "store", "maiz"]
    assert Tokenizer.from_options(lowercase=False, stopwords=False, stem=False)("The Cows") == \
        ["The", "Cows"]
    assert Tokenizer.from_options(stopwords=["maize"], stem=False)("the MAIZE crop") == \
        ["the", "crop"]
    with pytest.raises(PoolkitError, match="unknown stemmer 'englsh'.*did you mean 'english'"):
        Tokenizer.from_options(stem="englsh")
    with pytest.raises(PoolkitError, match="unknown stopword list 'french'; valid: english"):
        Tokenizer.from_options(stopwords="french")


def test_okapi_by_hand():
    """Three documents, scored with the formula written out (rank-bm25's Okapi)."""
    corpus = Corpus.from_records([("d1", "", "apple banana apple"), ("d2", "", "banana cherry"),
                                  ("d3", "", "cherry durian elder")])
    k1, b, n, avgdl = 1.5, 0.75, 3, 8 / 3
    idf = {t: math.log(n - df + 0.5) - math.log(df + 0.5)
           for t, df in {"apple": 1, "banana": 2, "cherry": 2, "durian": 1, "elder": 1}.items()}
    floor = 0.25 * sum(idf.values()) / len(idf)  # banana and cherry are in 2 of 3 docs
    idf = {t: (floor if v < 0 else v) for t, v in idf.items()}

    def w(term, tf, dl):
        return idf[term] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))

    expected = {"d1": w("apple", 2, 3) + w("banana", 1, 3), "d2": w("banana", 1, 2)}
    for engine in ("bm25s", "rank_bm25"):
        r = BM25Retriever.from_options(corpus, engine=engine, **PLAIN)
        hits = r.search([QueryRecord("q", "apple banana")], 10)["q"]
        assert [h.docid for h in hits] == ["d1", "d2"]  # d3 matches nothing: left out
        for h in hits:
            assert h.score == pytest.approx(expected[h.docid], abs=1e-6)


@pytest.mark.parametrize("options", [{}, PLAIN, {"k1": 0.9, "b": 0.4}, {"lowercase": False}])
def test_bm25s_engine_agrees_with_rank_bm25_on_the_sample(sample_corpus, sample_queries,
                                                          options):
    fast = BM25Retriever.from_options(sample_corpus, engine="bm25s", **options)
    ref = BM25Retriever.from_options(sample_corpus, engine="rank_bm25", **options)
    for q in sample_queries:
        np.testing.assert_allclose(fast.scores(q.text), ref.scores(q.text), atol=1e-9)
        assert fast.search([q], 24) == ref.search([q], 24)


def test_bm25_ranks_each_topic_above_unrelated_chunks(sample_corpus, sample_queries):
    r = BM25Retriever.from_options(sample_corpus)
    runs = {q: [h.docid for h in hits] for q, hits in r.search(sample_queries, 24).items()}

    def above(qid, relevant, unrelated_prefixes):
        ranks = {d: i for i, d in enumerate(runs[qid])}
        worst = max(ranks[d] for d in relevant)
        unrelated = [d for d in runs[qid] if d[0] in unrelated_prefixes]
        assert all(ranks[d] > worst for d in unrelated), (qid, runs[qid])

    above("q_faw", ["m1", "m2", "m3"], "dpx")
    above("q_store", ["s1", "s2", "s3"], "dpm")
    above("q_milk", ["d1", "d2", "d3"], "mspx")
    assert runs["q_faw"][:3] == ["m1", "m2", "m3"]
    # The broad maize-protection query: its top five are maize, storage or soil chunks.
    assert all(d[0] in "msx" for d in runs["q_broad"][:5]), runs["q_broad"]


def test_repeated_query_terms_count_twice_as_in_rank_bm25(sample_corpus):
    fast = BM25Retriever.from_options(sample_corpus)
    ref = BM25Retriever.from_options(sample_corpus, engine="rank_bm25")
    q = "armyworm armyworm maize"
    np.testing.assert_allclose(fast.scores(q), ref.scores(q), atol=1e-9)
    assert fast.scores(q)[0] > fast.scores("armyworm maize")[0]


def test_no_match_and_ties():
    corpus = Corpus.from_records([("a", "", "same words"), ("c", "", "same words"),
                                  ("b", "", "other text"), ("d", "", "more"), ("e", "", "less")])
    for engine in ("bm25s", "rank_bm25"):
        r = BM25Retriever.from_options(corpus, engine=engine, **PLAIN)
        assert ranked(r, "zzz unknown") == []
        # Equal scores: doc id descending, as trec_eval orders ties when reading the run.
        assert ranked(r, "same") == ["c", "a"]
        assert ranked(r, "same", k=1) == ["c"]


def test_unknown_engine_is_refused(sample_corpus):
    with pytest.raises(PoolkitError, match="unknown BM25 engine 'bm25x'.*did you mean 'bm25s'"):
        BM25Retriever.from_options(sample_corpus, engine="bm25x")
    with pytest.raises(PoolkitError, match="unknown BM25 option 'k3'"):
        BM25Retriever.from_options(sample_corpus, k3=1)


WORDS = st.sampled_from("ant bee cat dog eel fox gnu hen".split())


@settings(max_examples=40, deadline=None)
@given(docs=st.lists(st.lists(WORDS, min_size=0, max_size=8), min_size=1, max_size=12),
       query=st.lists(WORDS, min_size=1, max_size=4))
def test_engines_agree_on_random_corpora(docs, query):
    corpus = Corpus.from_records([(f"d{i}", "", " ".join(d)) for i, d in enumerate(docs)])
    if not any(docs):
        return  # rank-bm25 divides by a zero mean length
    fast = BM25Retriever.from_options(corpus, **PLAIN)
    ref = BM25Retriever.from_options(corpus, engine="rank_bm25", **PLAIN)
    text = " ".join(query)
    np.testing.assert_allclose(fast.scores(text), ref.scores(text), atol=1e-9)
    assert fast.search([QueryRecord("q", text)], 5) == ref.search([QueryRecord("q", text)], 5)


# --- a match is never dropped for the sign of its score ---------------------------------------

MILK = [("p1", "", "Milk is a white liquid produced by mammals."),
        ("p2", "", "Skimmed milk has less fat than whole milk.")]


@pytest.mark.parametrize("engine", ["bm25s", "rank_bm25"])
def test_a_query_whose_words_are_in_every_document_still_returns_them(engine):
    """BEIR-style two-passage corpus: 'milk' is in both, so Okapi's idf is negative (and so
    is its floor, epsilon * a negative mean): both passages score below zero. They match the
    query, so both come back, best first, as rank-bm25's get_top_n returns them."""
    from rank_bm25 import BM25Okapi

    corpus = Corpus.from_records(MILK)
    r = BM25Retriever.from_options(corpus, engine=engine)
    hits = r.search([QueryRecord("q", "milk"), QueryRecord("none", "cheese")], 10)
    tokens = [r.tokenizer(p) for p in corpus.passages()]
    oracle = BM25Okapi(tokens)
    want = oracle.get_top_n(r.tokenizer("milk"), ["p1", "p2"], n=2)
    assert [h.docid for h in hits["q"]] == want
    assert all(h.score < 0 for h in hits["q"])
    expected = oracle.get_scores(r.tokenizer("milk"))
    assert sorted(h.score for h in hits["q"]) == pytest.approx(sorted(expected), abs=1e-6)
    assert hits["none"] == []  # nothing matches: nothing is ranked


@pytest.mark.parametrize("engine", ["bm25s", "rank_bm25"])
def test_lucene_idf_is_positive_and_by_formula(engine):
    corpus = Corpus.from_records(MILK + [("p3", "", "Cows graze on grass.")])
    r = BM25Retriever.from_options(corpus, engine=engine, idf="lucene", **PLAIN)
    k1, b = 1.5, 0.75
    lengths = {"p1": 8, "p2": 8, "p3": 4}
    avgdl = sum(lengths.values()) / 3
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # 'milk' is in 2 of 3 passages
    tf = {"p1": 1, "p2": 2}

    def w(d):
        return idf * tf[d] * (k1 + 1) / (tf[d] + k1 * (1 - b + b * lengths[d] / avgdl))

    hits = r.search([QueryRecord("q", "milk")], 10)["q"]
    assert [h.docid for h in hits] == ["p2", "p1"]
    assert [h.score for h in hits] == pytest.approx([w("p2"), w("p1")], abs=1e-6)
    assert r.settings()["idf"] == "lucene"


def test_idf_variants_are_declared_in_the_config_and_unknown_ones_refused(sample_corpus):
    from poolkit.retrieve.bm25 import IDF_VARIANTS
    from poolkit.retrieve.kinds import SYSTEM_KINDS

    assert SYSTEM_KINDS["bm25"].option("idf").choices == tuple(IDF_VARIANTS)
    with pytest.raises(PoolkitError, match="unknown BM25 idf 'lucen'.*did you mean 'lucene'"):
        BM25Retriever.from_options(sample_corpus, idf="lucen")
