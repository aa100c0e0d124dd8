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

- ``bm25s`` (default): bm25s's eager sparse design, built by poolkit in NumPy
  (``bm25_index``): the term weights are computed once into a CSC matrix, so a query costs
  its postings, not a pass over every document. Same numbers as rank-bm25 (float64).
  Cached in ``cache_dir`` by corpus content hash and settings, read memory-mapped.
- ``rank_bm25``: rank-bm25 itself, the reference; fine for small corpora; never cached.

The tokenizer is shared by both: ``\\w+`` tokens, lowercased, Lucene's English stopwords
removed and Porter-stemmed by default (close to Anserini/Pyserini's English analyzer).
Each of those is configurable: ``lowercase: false``, ``stopwords: false | english | [words]``,
``stem: false | porter | english | <any Snowball language>``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from poolkit.errors import PoolkitError, one_of
from poolkit.io.corpus import Corpus, QueryRecord
from poolkit.progress import track
from poolkit.retrieve.base import Results, top_k

if TYPE_CHECKING:
    from poolkit.retrieve.bm25_index import BM25Index

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
    """BM25 over a corpus; ``search`` returns the top k per query, non-matches left out.

    With ``cache_dir`` the bm25s engine's index is cached there by corpus content hash and
    settings (``bm25_index.IndexCache``): a hit skips tokenizing the corpus altogether
    (``cache_hit`` says which it was). rank-bm25, the reference, is never cached.
    """

    kind = "bm25"

    def __init__(self, corpus: Corpus, name: str = "bm25", k1: float = 1.5, b: float = 0.75,
                 epsilon: float = 0.25, tokenizer: Tokenizer | None = None,
                 engine: str = "bm25s", idf: str = "okapi",
                 cache_dir: str | Path | None = None) -> None:
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
        self.cache_dir = cache_dir
        self.cache_hit: bool | None = None
        self._built: _SparseEngine | _RankBM25Engine | None = None

    def build(self) -> BM25Retriever:
        """Build (or load from the cache) the index now rather than at the first search."""
        self._engine  # noqa: B018 - built on first access
        return self

    @property
    def _engine(self) -> _SparseEngine | _RankBM25Engine:
        """Built (or loaded) on first use: a run reused unchanged never needs it."""
        if self._built is None:
            if self.engine == "bm25s":
                self._built = self._sparse_engine()
            else:
                passages = self.corpus.passages()
                tokens = [self.tokenizer(p) for p in track(
                    passages, len(passages), f"{self.name}: tokenizing", "passages")]
                self._built = _RankBM25Engine(tokens, self.k1, self.b, self.epsilon,
                                              IDF_VARIANTS[self.idf])
        return self._built

    @classmethod
    def from_options(cls, corpus: Corpus, name: str = "bm25",
                     cache_dir: str | Path | None = None, **options: Any) -> BM25Retriever:
        unknown = set(options) - set(DEFAULTS)
        if unknown:
            raise PoolkitError(one_of(sorted(unknown)[0], DEFAULTS, "BM25 option"))
        o = {**DEFAULTS, **options}
        tok = Tokenizer.from_options(o["lowercase"], o["stopwords"], o["stem"])
        return cls(corpus, name, k1=o["k1"], b=o["b"], epsilon=o["epsilon"], tokenizer=tok,
                   engine=o["engine"], idf=o["idf"], cache_dir=cache_dir)

    def index_settings(self) -> dict[str, Any]:
        """Everything the index depends on besides the corpus (the cache key)."""
        return {"k1": self.k1, "b": self.b, "epsilon": self.epsilon, "idf": self.idf,
                "engine": self.engine, "tokenizer": self.tokenizer.settings()}

    def _sparse_engine(self) -> _SparseEngine:
        from poolkit.retrieve.bm25_index import IndexCache, build_index

        corpus = self.corpus
        cache = IndexCache(self.cache_dir)
        index = cache.load(self.index_settings(), corpus.sha256, len(corpus)) \
            if self.cache_dir is not None else None
        self.cache_hit = index is not None if self.cache_dir is not None else None
        if index is None:
            start = time.perf_counter()
            index = build_index((corpus.passage(i) for i in range(len(corpus))), len(corpus),
                                self.tokenizer, self.k1, self.b, self.epsilon,
                                IDF_VARIANTS[self.idf], f"{self.name}: tokenizing")
            cache.save(self.index_settings(), corpus.sha256, index,
                       {"corpus_path": corpus.path,
                        "build_seconds": round(time.perf_counter() - start, 3)})
        return _SparseEngine(index)

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
            scores, matching = self._engine.score_and_match(self.tokenizer(q.text))
            out[q.qid] = top_k(scores, k, id_rank, ids, among=matching)
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

    def score_and_match(self, query_tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
        return self.scores(query_tokens), self.matching(query_tokens)

    def matching(self, query_tokens: list[str]) -> np.ndarray:
        """Documents holding at least one of the query's terms."""
        if self.bm25 is None:
            return np.zeros(0, dtype=np.int64)
        terms = set(query_tokens)
        return np.array([i for i, freqs in enumerate(self.bm25.doc_freqs)
                         if not terms.isdisjoint(freqs)], dtype=np.int64)


class _SparseEngine:
    """Scores from the precomputed sparse index (bm25s's eager design): a query costs its
    postings."""

    def __init__(self, index: BM25Index) -> None:
        self.index = index

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        return self.index.scores(self.index.term_ids(query_tokens))

    def score_and_match(self, query_tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
        ids = self.index.term_ids(query_tokens)
        scores = self.index.scores(ids)
        return scores, self.index.matching(ids, scores)
