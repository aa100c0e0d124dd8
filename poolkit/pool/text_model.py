"""A relevance classifier over passage text: TF-IDF features and L2-regularised logistic
regression, in NumPy alone (scikit-learn and SciPy are test-only dependencies).

The API is three names, for the ``cal`` judging order and for ranking passages outside a
pool:

- ``TextVectorizer.fit(texts)`` learns a vocabulary and its IDF from a set of texts (a
  query's pool, or a corpus); ``.transform(texts)`` gives a ``SparseRows`` matrix (CSR:
  sublinear TF x IDF, each row L2-normalised; terms outside the vocabulary are dropped).
- ``SparseRows``: rows of a sparse matrix; ``rows(idx)`` selects, ``dot(w)`` is the
  matrix-vector product as one ``numpy.bincount`` (no Python loop per passage), so scoring a
  corpus of a million passages is one pass over its non-zeros.
- ``RelevanceModel.fit(X, y, extra=None)`` trains on graded passages (``y`` 1 relevant, 0
  not; ``extra``: optional dense features per row, e.g. the runs' ranks or a machine grade,
  scaled by the caller); ``.score(X, extra=None)`` is the log-odds of relevance,
  ``.probability(...)`` its logistic.

Why the fit is cheap: the judged passages of a query are tens to a few thousand, the
vocabulary far larger. The weights of an L2-regularised fit lie in the span of the training
rows, so training reduces the rows to the columns they use (a dense n x u matrix) and each
Newton step solves an n x n system (Woodbury), never a u x u one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["RelevanceModel", "SparseRows", "TextVectorizer", "tokens"]

_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """Lower-cased runs of letters and digits."""
    return _TOKEN.findall(text.lower())


@dataclass(frozen=True)
class SparseRows:
    """A CSR matrix: row i's columns are ``indices[indptr[i]:indptr[i+1]]``, its values
    ``data`` at the same places."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    n_columns: int

    @property
    def n_rows(self) -> int:
        return len(self.indptr) - 1

    def row_ids(self) -> np.ndarray:
        """The row of every stored value."""
        return np.repeat(np.arange(self.n_rows), np.diff(self.indptr))

    def dot(self, w: np.ndarray) -> np.ndarray:
        """``X @ w`` (vectorised: one gather and one bincount)."""
        return np.bincount(self.row_ids(), weights=self.data * w[self.indices],
                           minlength=self.n_rows)

    def rows(self, idx: Sequence[int] | np.ndarray) -> SparseRows:
        idx = np.asarray(idx, dtype=np.int64)
        starts, ends = self.indptr[idx], self.indptr[idx + 1]
        lengths = ends - starts
        take = (np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)])
                if len(idx) else np.zeros(0, dtype=np.int64))
        return SparseRows(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
                          self.indices[take], self.data[take], self.n_columns)


@dataclass(frozen=True)
class TextVectorizer:
    vocabulary: dict[str, int]
    idf: np.ndarray

    @classmethod
    def fit(cls, texts: Sequence[str]) -> TextVectorizer:
        """Vocabulary (sorted) and smoothed IDF ``log((1 + N) / (1 + df)) + 1``."""
        df: dict[str, int] = {}
        for text in texts:
            for term in set(tokens(text)):
                df[term] = df.get(term, 0) + 1
        vocabulary = {t: i for i, t in enumerate(sorted(df))}
        counts = np.array([df[t] for t in sorted(df)], dtype=float)
        return cls(vocabulary, np.log((1 + len(texts)) / (1 + counts)) + 1.0)

    def transform(self, texts: Sequence[str]) -> SparseRows:
        indptr: list[int] = [0]
        indices: list[int] = []
        data: list[float] = []
        for text in texts:
            tf: dict[int, int] = {}
            for term in tokens(text):
                col = self.vocabulary.get(term)
                if col is not None:
                    tf[col] = tf.get(col, 0) + 1
            cols = sorted(tf)
            counts = np.fromiter((tf[c] for c in cols), dtype=float, count=len(cols))
            values = (1.0 + np.log(counts)) * self.idf[cols]  # one log call per text
            norm = float(np.sqrt(values @ values)) if cols else 0.0
            indices.extend(cols)
            data.extend((values / norm).tolist() if norm else [])
            indptr.append(len(indices))
        return SparseRows(np.array(indptr, dtype=np.int64), np.array(indices, dtype=np.int64),
                          np.array(data, dtype=float), len(self.vocabulary))


def _dense_columns(X: SparseRows) -> tuple[np.ndarray, np.ndarray]:
    """The columns ``X`` uses and ``X`` as a dense matrix over them."""
    used, local = np.unique(X.indices, return_inverse=True)
    dense = np.zeros((X.n_rows, len(used)))
    np.add.at(dense, (X.row_ids(), local), X.data)
    return used, dense


@dataclass(frozen=True)
class RelevanceModel:
    """Log-odds = ``X @ text_weights + extra @ extra_weights + intercept``."""

    text_weights: np.ndarray
    extra_weights: np.ndarray
    intercept: float

    @classmethod
    def fit(cls, X: SparseRows, y: Sequence[int] | np.ndarray,
            extra: np.ndarray | None = None, l2: float = 1.0,
            iterations: int = 25) -> RelevanceModel:
        """Newton's method on ``sum log-loss + l2 / 2 * |weights|^2`` (the intercept too,
        as a constant feature, so a one-class training set still has a finite fit)."""
        target = np.asarray(y, dtype=float)
        used, dense = _dense_columns(X)
        n_extra = 0 if extra is None else extra.shape[1]
        parts = [dense, np.ones((X.n_rows, 1))]
        if extra is not None:
            parts.append(np.asarray(extra, dtype=float))
        D = np.hstack(parts)
        w = np.zeros(D.shape[1])
        ridge = l2 * np.eye(len(D))
        for _ in range(iterations):
            p = 1.0 / (1.0 + np.exp(-(D @ w)))
            g = D.T @ (p - target) + l2 * w
            S = np.sqrt(p * (1 - p))[:, None] * D
            inner = ridge + S @ S.T
            step = (g - S.T @ np.linalg.solve(inner, S @ g)) / l2
            w -= step
            if np.abs(step).max(initial=0.0) < 1e-8:
                break
        text = np.zeros(X.n_columns)
        text[used] = w[:len(used)]
        return cls(text, w[len(used) + 1:len(used) + 1 + n_extra], float(w[len(used)]))

    def score(self, X: SparseRows, extra: np.ndarray | None = None) -> np.ndarray:
        """Log-odds of relevance of each row (vectorised)."""
        out = X.dot(self.text_weights) + self.intercept
        if extra is not None and len(self.extra_weights):
            out = out + np.asarray(extra, dtype=float) @ self.extra_weights
        return out

    def probability(self, X: SparseRows, extra: np.ndarray | None = None) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.score(X, extra)))
