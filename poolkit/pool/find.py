"""Relevant passages beyond the pool: ``poolkit pool CONFIG --find N`` and its replay.

Per query, the text classifier (``pool.text_model``) is trained on the grades so far (grade
>= the relevance level is relevant), with the query's own text as one more relevant example
(BMI's seed document, Cormack and Grossman: it keeps a query whose judged passages are all
non-relevant rankable); it then scores every corpus passage, and the top N the pool does not
hold are found. The corpus is indexed once (``TextVectorizer`` over the whole corpus, so
its IDF is the corpus's); each query's scan is one sparse matrix-vector product of the
corpus's TF-IDF rows with the query's weights (``SparseRows.dot``), never a Python loop per
passage (``benchmarks/find_scan.py`` times it at 1M passages).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from poolkit.io.corpus import Corpus

if TYPE_CHECKING:
    from poolkit.pool.text_model import RelevanceModel, SparseRows, TextVectorizer

Found = dict[str, list[tuple[str, float]]]  # qid -> [(docid, score)], best first


class CorpusFinder:
    """A corpus indexed once for the classifier; ``find`` ranks beyond a pool per query."""

    def __init__(self, ids: Sequence[str], vectorizer: TextVectorizer, matrix: SparseRows,
                 queries: Mapping[str, str]) -> None:
        """``matrix``: the corpus's rows (``vectorizer.transform`` of its passages, in
        ``ids``' order); ``queries``: each query's text, its classifier's seed example."""
        self.ids = list(ids)
        self.row = {d: i for i, d in enumerate(self.ids)}
        self.vectorizer = vectorizer
        self.matrix = matrix
        self.queries = {q: i for i, q in enumerate(queries)}
        self.seeds = vectorizer.transform(list(queries.values()) + [""])

    @classmethod
    def from_texts(cls, ids: Sequence[str], passages: Sequence[str],
                   queries: Mapping[str, str]) -> CorpusFinder:
        """Index ``passages`` (vocabulary and IDF of the whole corpus)."""
        from poolkit.pool.text_model import TextVectorizer

        vectorizer = TextVectorizer.fit(passages)
        return cls(ids, vectorizer, vectorizer.transform(passages), queries)

    @classmethod
    def of(cls, corpus: Corpus, queries: Mapping[str, str]) -> CorpusFinder:
        return cls.from_texts(corpus.ids, corpus.passages(), queries)

    def find(self, grades: Mapping[str, Mapping[str, int]],
             excluded: Mapping[str, Collection[str]], n: Mapping[str, int],
             level: int = 1) -> Found:
        """Per query of ``n``: its top ``n[q]`` passages not in ``excluded[q]`` (the pool)
        and not graded, by a classifier trained on ``grades[q]``."""
        out: Found = {}
        for q in (q for q in n if n[q] > 0):
            col = self.model(grades.get(q, {}), q, level).score(self.matrix)  # the scan
            skip = [self.row[d] for d in (*excluded.get(q, ()), *grades.get(q, {}))
                    if d in self.row]
            col[skip] = -np.inf
            k = min(n[q], int(np.isfinite(col).sum()))
            top = np.argpartition(-col, k - 1)[:k] if k else np.array([], dtype=int)
            top = top[np.lexsort((top, -col[top]))]  # best first, ties by corpus order
            out[q] = [(self.ids[i], float(col[i])) for i in top]
        return out

    def model(self, grades: Mapping[str, int], qid: str, level: int) -> RelevanceModel:
        """The classifier of one query: its graded passages of the corpus, and its text as
        one more relevant example."""
        from poolkit.pool.text_model import RelevanceModel

        rows = [self.row[d] for d in grades if d in self.row]
        seed = self.seeds.rows([self.queries.get(qid, self.seeds.n_rows - 1)])
        labels = [int(g >= level) for d, g in grades.items() if d in self.row] + [1]
        return RelevanceModel.fit(_stack(self.matrix.rows(rows), seed), labels)

    def describe(self) -> dict[str, Any]:
        """The classifier as the store records it."""
        return {"model": "tf-idf logistic regression (pool.text_model)",
                "seed": "the query's text as a relevant example",
                "vocabulary": len(self.vectorizer.vocabulary)}


def _stack(top: SparseRows, bottom: SparseRows) -> SparseRows:
    """The rows of ``top`` then those of ``bottom`` (the same columns)."""
    from poolkit.pool.text_model import SparseRows

    return SparseRows(np.concatenate([top.indptr, bottom.indptr[1:] + top.indptr[-1]]),
                      np.concatenate([top.indices, bottom.indices]),
                      np.concatenate([top.data, bottom.data]), top.n_columns)


def find_beyond(corpus: Corpus, queries: Mapping[str, str],
                grades: Mapping[str, Mapping[str, int]], pool: Mapping[str, Sequence[str]],
                n: int, level: int) -> tuple[Found, dict[str, Any]]:
    """``pool --find n``: per query with a grade, the top ``n`` passages outside its
    ``pool``; and the classifier's settings as the store records them."""
    finder = CorpusFinder.of(corpus, queries)
    found = finder.find(grades, pool, {q: n for q in grades}, level)
    settings = {**finder.describe(), "find": n, "level": level,
                "trained_on": sum(len(g) for g in grades.values()),
                "queries": len(found), "corpus": len(corpus)}
    return found, settings
