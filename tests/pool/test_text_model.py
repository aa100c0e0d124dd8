"""The text classifier: TF-IDF rows as scikit-learn builds them, the sparse product equal to
SciPy's, and the logistic fit at the optimum of its stated objective."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from poolkit.pool.text_model import RelevanceModel, SparseRows, TextVectorizer

TEXTS = ["the cat sat on the mat", "dogs chase cats", "a mat for the dog",
         "quantum chromodynamics of quarks", "quarks and gluons", "the cat and the dog"]


def as_scipy(X: SparseRows) -> sparse.csr_matrix:
    return sparse.csr_matrix((X.data, X.indices, X.indptr), shape=(X.n_rows, X.n_columns))


def test_tfidf_rows_are_sklearns_with_sublinear_tf():
    ours = as_scipy(TextVectorizer.fit(TEXTS).transform(TEXTS)).toarray()
    theirs = TfidfVectorizer(sublinear_tf=True, token_pattern=r"(?u)\b\w+\b").fit_transform(TEXTS)
    np.testing.assert_allclose(ours, theirs.toarray(), atol=1e-12)


def test_unknown_terms_are_dropped_and_an_empty_row_is_zero():
    X = TextVectorizer.fit(TEXTS).transform(["zebra", "cat zebra"])
    assert X.n_rows == 2 and X.indptr[1] == 0 and X.indptr[2] == 1


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcdefg"), max_size=8), min_size=1, max_size=12),
       st.data())
def test_dot_and_rows_agree_with_scipy(docs, data):
    texts = [" ".join(d) for d in docs]
    X = TextVectorizer.fit(texts).transform(texts)
    w = np.arange(X.n_columns, dtype=float) - 2.5
    np.testing.assert_allclose(X.dot(w), as_scipy(X) @ w, atol=1e-12)
    idx = data.draw(st.lists(st.integers(0, X.n_rows - 1), max_size=6))
    np.testing.assert_allclose(as_scipy(X.rows(idx)).toarray(), as_scipy(X).toarray()[idx])


def objective(w, D, y, l2):
    z = D @ w
    return float(np.sum(np.logaddexp(0, z) - y * z) + l2 / 2 * w @ w)


@pytest.mark.parametrize("l2", [0.1, 1.0, 10.0])
def test_fit_reaches_the_optimum_of_its_objective(l2):
    vec = TextVectorizer.fit(TEXTS)
    X = vec.transform(TEXTS)
    y = np.array([1, 0, 1, 0, 0, 1])
    extra = np.array([[0.1], [0.5], [0.2], [0.9], [0.8], [0.0]])
    model = RelevanceModel.fit(X, y, extra, l2=l2)
    D = np.hstack([as_scipy(X).toarray(), np.ones((6, 1)), extra])
    best = optimize.minimize(objective, np.zeros(D.shape[1]), args=(D, y, l2), method="BFGS",
                             options={"gtol": 1e-10})
    ours = np.concatenate([model.text_weights, [model.intercept], model.extra_weights])
    assert objective(ours, D, y, l2) <= best.fun + 1e-9
    np.testing.assert_allclose(model.score(X, extra), D @ best.x, atol=1e-5)


def test_one_class_training_set_has_a_finite_fit_and_ranks_by_similarity():
    vec = TextVectorizer.fit(TEXTS)
    model = RelevanceModel.fit(vec.transform(["quarks and gluons"]), [1])
    p = model.probability(vec.transform(TEXTS))
    assert np.all(np.isfinite(p)) and int(np.argmax(p)) == 4 and p[3] > p[0]
