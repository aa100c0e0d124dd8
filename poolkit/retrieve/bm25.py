"""BM25 (Okapi), as rank-bm25 defines it, behind two engines.

Scoring is rank-bm25's ``BM25Okapi`` exactly: ``idf = ln((N - df + 0.5) / (df + 0.5))``,
with a negative idf (a term in more than half the documents) replaced by
``epsilon * mean idf`` (epsilon 0.25), and
``score = sum over query tokens (repeats count) of
 idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))``.
``idf: lucene`` takes Lucene's (and bm25s's) ``ln(1 + (N - df + 0.5) / (df + 0.5))``
instead, always positive (``IDF_VARIANTS``).

A document that contains a query term is returned whatever the sign of its score (with
Okapi's idf, a query whose words are in most documents scores them all below zero), ranked
by score as rank-bm25's ``get_top_n`` ranks; a document matching no query term is left out.

Engines (``engine:`` in the config):

- ``bm25s`` (default): the term weights are computed once into a sparse matrix that bm25s
  scores from (its documented ``build_index_from_ids`` override point), so a query costs
  its postings, not a pass over every document. Same numbers as rank-bm25 (float64).
- ``rank_bm25``: rank-bm25 itself, the reference; fine for small corpora.

The tokenizer is shared by both: ``\\w+`` tokens, lowercased, Lucene's English stopwords
removed and Porter-stemmed by default (close to Anserini/Pyserini's English analyzer).
Each of those is configurable: ``lowercase: false``, ``stopwords: false | english | [words]``,
``stem: false | porter | english | <any Snowball language>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from poolkit.errors import PoolkitError, one_of
from poolkit.io.corpus import Corpus, QueryRecord
from poolkit.progress import track
from poolkit.retrieve.base import Results, top_k

# Lucene's EnglishAnalyzer default stop set.
ENGLISH_STOPWORDS = frozenset("""
a an and are as at be but by for if in into is it no not of on or such that the their then
there these they this to was will with""".split())
STOPWORD_LISTS = {"english": ENGLISH_STOPWORDS}
BM25_ENGINES = ("bm25s", "rank_bm25")
DEFAULTS: dict[str, Any] = {"k1": 1.5, "b": 0.75, "epsilon": 0.25, "lowercase": True,
                            "stopwords": "english", "stem": "porter", "engine": "bm25s",
                            "idf": "okapi"}
_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class Tokenizer:
    lowercase: bool = True
    stopwords: frozenset[str] = ENGLISH_STOPWORDS
    stem: str | None = "porter"
    _stemmer: Any = field(default=None, compare=False, repr=False)

    @classmethod
    def from_options(cls, lowercase: bool = True, stopwords: Any = "english",
                     stem: Any = "porter") -> Tokenizer:
        if stopwords is True:
            stopwords = "english"
        if stopwords in (False, None):
            words: frozenset[str] = frozenset()
        elif isinstance(stopwords, str):
            if stopwords not in STOPWORD_LISTS:
                raise PoolkitError(one_of(stopwords, STOPWORD_LISTS, "stopword list"))
            words = STOPWORD_LISTS[stopwords]
        else:
            words = frozenset(str(w) for w in stopwords)
        if lowercase:
            words = frozenset(w.lower() for w in words)
        if stem is True:
            stem = "porter"
        algorithm = None if stem in (False, None) else str(stem)
        stemmer = None
        if algorithm is not None:
            try:
                import Stemmer  # PyStemmer: Snowball stemmers in C
            except ImportError:  # pragma: no cover - installed with poolkit[retrieve]
                raise PoolkitError("stemming needs PyStemmer: pip install 'poolkit[retrieve]'") \
                    from None
            if algorithm not in Stemmer.algorithms():
                raise PoolkitError(one_of(algorithm, Stemmer.algorithms(), "stemmer"))
            stemmer = Stemmer.Stemmer(algorithm)
            stemmer.maxCacheSize = 100_000
        return cls(bool(lowercase), words, algorithm, stemmer)

    def __call__(self, text: str) -> list[str]:
        if self.lowercase:
            text = text.lower()
        tokens = _TOKEN.findall(text)
        if self.stopwords:
            tokens = [t for t in tokens if t not in self.stopwords]
        if self._stemmer is not None:
            tokens = self._stemmer.stemWords(tokens)
        return tokens

    def settings(self) -> dict[str, Any]:
        return {"lowercase": self.lowercase, "stem": self.stem or False,
                "stopwords": sorted(self.stopwords)}


def okapi_idf(df: np.ndarray, n_docs: int, epsilon: float) -> np.ndarray:
    """rank-bm25's BM25Okapi idf, negative values floored to epsilon * mean idf."""
    idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    floor = epsilon * (idf.sum() / len(idf)) if len(idf) else 0.0
    return np.where(idf < 0, floor, idf)


def lucene_idf(df: np.ndarray, n_docs: int, epsilon: float) -> np.ndarray:
    """Lucene's BM25 idf, ``ln(1 + (N - df + 0.5) / (df + 0.5))``: always positive
    (``epsilon`` plays no part)."""
    return np.log1p((n_docs - df + 0.5) / (df + 0.5))


#: ``idf:`` option -> the idf of a term from its document frequency.
IDF_VARIANTS: dict[str, Callable[[np.ndarray, int, float], np.ndarray]] = {
    "okapi": okapi_idf,
    "lucene": lucene_idf,
}


class BM25Retriever:
    """BM25 over a corpus; ``search`` returns the top k per query, non-matches left out."""

    kind = "bm25"

    def __init__(self, corpus: Corpus, name: str = "bm25", k1: float = 1.5, b: float = 0.75,
                 epsilon: float = 0.25, tokenizer: Tokenizer | None = None,
                 engine: str = "bm25s", idf: str = "okapi") -> None:
        if engine not in BM25_ENGINES:
            raise PoolkitError(one_of(engine, BM25_ENGINES, "BM25 engine"))
        if idf not in IDF_VARIANTS:
            raise PoolkitError(one_of(str(idf), IDF_VARIANTS, "BM25 idf"))
        self.idf = idf
        self.name = name
        self.corpus = corpus
        self.k1, self.b, self.epsilon = float(k1), float(b), float(epsilon)
        self.tokenizer = tokenizer or Tokenizer.from_options()
        self.engine = engine
        passages = corpus.passages()
        tokens = [self.tokenizer(p) for p in track(passages, len(passages),
                                                   f"{name}: tokenizing", "passages")]
        self._engine = (_BM25SEngine if engine == "bm25s" else _RankBM25Engine)(
            tokens, self.k1, self.b, self.epsilon, IDF_VARIANTS[idf])

    @classmethod
    def from_options(cls, corpus: Corpus, name: str = "bm25", **options: Any) -> BM25Retriever:
        unknown = set(options) - set(DEFAULTS)
        if unknown:
            raise PoolkitError(one_of(sorted(unknown)[0], DEFAULTS, "BM25 option"))
        o = {**DEFAULTS, **options}
        tok = Tokenizer.from_options(o["lowercase"], o["stopwords"], o["stem"])
        return cls(corpus, name, k1=o["k1"], b=o["b"], epsilon=o["epsilon"], tokenizer=tok,
                   engine=o["engine"], idf=o["idf"])

    def settings(self) -> dict[str, Any]:
        return {"kind": self.kind, "k1": self.k1, "b": self.b, "epsilon": self.epsilon,
                "engine": self.engine, "tokenizer": self.tokenizer.settings(),
                # Okapi's idf is implied (settings written before the option stay the same).
                **({"idf": self.idf} if self.idf != "okapi" else {}),
                "docs": len(self.corpus), "corpus_sha256": self.corpus.sha256}

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every document for one query (float64, corpus order)."""
        return self._engine.scores(self.tokenizer(query))

    def search(self, queries: Sequence[QueryRecord], k: int) -> Results:
        """The top ``k`` documents matching a query term, by score (whatever its sign)."""
        ids, id_rank = self.corpus.ids, self.corpus.id_rank
        out: Results = {}
        for q in queries:
            tokens = self.tokenizer(q.text)
            out[q.qid] = top_k(self._engine.scores(tokens), k, id_rank, ids,
                               among=self._engine.matching(tokens))
        return out


class _RankBM25Engine:
    def __init__(self, tokens: list[list[str]], k1: float, b: float, epsilon: float,
                 idf: Callable[[np.ndarray, int, float], np.ndarray]) -> None:
        from rank_bm25 import BM25Okapi

        self.n = len(tokens)
        self.bm25 = BM25Okapi(tokens, k1=k1, b=b, epsilon=epsilon) if self.n else None
        if self.bm25 is not None and idf is not okapi_idf:
            counts: dict[str, int] = {}
            for freqs in self.bm25.doc_freqs:
                for t in freqs:
                    counts[t] = counts.get(t, 0) + 1
            terms = list(counts)
            df = np.array([counts[t] for t in terms], dtype=np.float64)
            self.bm25.idf = dict(zip(terms, idf(df, self.n, epsilon).tolist()))

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        if self.bm25 is None or not query_tokens:
            return np.zeros(self.n)
        return np.asarray(self.bm25.get_scores(query_tokens), dtype=np.float64)

    def matching(self, query_tokens: list[str]) -> np.ndarray:
        """Documents holding at least one of the query's terms."""
        if self.bm25 is None:
            return np.zeros(0, dtype=np.int64)
        terms = set(query_tokens)
        return np.array([i for i, freqs in enumerate(self.bm25.doc_freqs)
                         if not terms.isdisjoint(freqs)], dtype=np.int64)


class _BM25SEngine:
    """bm25s's sparse scorer over rank-bm25's Okapi weights."""

    def __init__(self, tokens: list[list[str]], k1: float, b: float, epsilon: float,
                 idf: Callable[[np.ndarray, int, float], np.ndarray]) -> None:
        import bm25s

        class _Okapi(bm25s.BM25):
            def build_index_from_ids(self, unique_token_ids, corpus_token_ids, **_: Any):
                self.nonoccurrence_array = None  # only BM25L/BM25+ use one
                return _okapi_matrix(corpus_token_ids, len(unique_token_ids), k1, b, epsilon,
                                     idf)

        self.n = len(tokens)
        self.bm25 = _Okapi(k1=k1, b=b, dtype="float64", int_dtype="int64")
        self.vocab: dict[str, int] = {}
        if self.n:
            self.bm25.index(tokens, create_empty_token=False, show_progress=False)
            self.vocab = self.bm25.vocab_dict

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        ids = [self.vocab[t] for t in query_tokens if t in self.vocab]
        if not ids:
            return np.zeros(self.n)
        return self.bm25.get_scores_from_ids(ids)

    def matching(self, query_tokens: list[str]) -> np.ndarray:
        """Documents holding at least one of the query's terms: the union of its postings."""
        ids = sorted({self.vocab[t] for t in query_tokens if t in self.vocab})
        if not ids:
            return np.zeros(0, dtype=np.int64)
        matrix = self.bm25.scores
        indptr, indices = matrix["indptr"], matrix["indices"]
        return np.unique(np.concatenate([indices[indptr[t]:indptr[t + 1]] for t in ids]))


def _okapi_matrix(corpus_token_ids: list[list[int]], n_vocab: int, k1: float, b: float,
                  epsilon: float,
                  idf_of: Callable[[np.ndarray, int, float], np.ndarray] = okapi_idf,
                  ) -> dict[str, Any]:
    """bm25s's score matrix (CSC: one column per term, rows are documents), Okapi weights
    (with ``idf_of``'s idf)."""
    n_docs = len(corpus_token_ids)
    lengths = np.fromiter((len(d) for d in corpus_token_ids), dtype=np.int64, count=n_docs)
    flat = np.fromiter((t for d in corpus_token_ids for t in d), dtype=np.int64,
                       count=int(lengths.sum()))
    doc_of = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    # One (term, doc) pair per distinct occurrence, sorted term-major: that is CSC order.
    pairs, tf = np.unique(flat * n_docs + doc_of, return_counts=True)
    term, doc = np.divmod(pairs, n_docs)
    df = np.bincount(term, minlength=n_vocab)
    present = df > 0
    idf = np.zeros(n_vocab)
    idf[present] = idf_of(df[present].astype(np.float64), n_docs, epsilon)
    avgdl = lengths.mean() if n_docs else 0.0
    norm = k1 * (1 - b + b * lengths / avgdl) if avgdl else np.full(n_docs, k1)
    data = idf[term] * tf * (k1 + 1) / (tf + norm[doc])
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    return {"data": data.astype(np.float64), "indices": doc, "indptr": indptr,
            "num_docs": n_docs}
