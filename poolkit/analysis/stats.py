"""Agreement and rank-correlation statistics, in numpy only.

* :func:`kendall_tau`: Kendall's tau-b between two score vectors (ties in either handled as
  in scipy's default), used to compare system orderings under two label sets.
* :func:`cohen_kappa`: Cohen's kappa on a fixed label scale, unweighted or with linear or
  quadratic disagreement weights. The scale is fixed (``labels``), so a grade nobody used
  still counts in the weights, as scikit-learn's ``cohen_kappa_score(labels=...)`` does.
* :func:`krippendorff_alpha`: Krippendorff's alpha for any number of coders with missing
  values (nominal, ordinal, interval or ratio metric), as in Krippendorff (2011) and the
  ``krippendorff`` package.
* :func:`bootstrap_kappa`: a percentile bootstrap interval for kappa over the shared items.

scikit-learn and the ``krippendorff`` package are used by the tests only, to show these
match; nothing here imports them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

SCALE = (0, 1, 2, 3)
WEIGHTS = ("unweighted", "linear", "quadratic")
ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b of paired values: (C - D) / sqrt((n0 - n1)(n0 - n2)).

    C and D count concordant and discordant pairs, n0 = n(n-1)/2, n1 and n2 the pairs tied
    in x and in y. NaN when either side is constant (no order to compare) or n < 2.
    """
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError("kendall_tau needs two sequences of the same length")
    n = a.size
    if n < 2:
        return math.nan
    iu = np.triu_indices(n, k=1)
    da = np.sign(a[:, None] - a[None, :])[iu]
    db = np.sign(b[:, None] - b[None, :])[iu]
    n0 = da.size
    tied_a = int(np.count_nonzero(da == 0))
    tied_b = int(np.count_nonzero(db == 0))
    denom = math.sqrt((n0 - tied_a) * (n0 - tied_b))
    if denom == 0:
        return math.nan
    return float(np.sum(da * db) / denom)


def ranks(values: Sequence[float]) -> list[int]:
    """Competition ranks, best (highest) first: 1 + how many values are strictly greater."""
    arr = np.asarray(values, dtype=float)
    return [int(np.count_nonzero(arr > v)) + 1 for v in arr]


def weights_matrix(k: int, weights: str) -> np.ndarray:
    if weights not in WEIGHTS:
        raise ValueError(f"unknown kappa weights {weights!r}; valid: {', '.join(WEIGHTS)}")
    i, j = np.indices((k, k))
    if weights == "unweighted":
        return (i != j).astype(float)
    if weights == "linear":
        return np.abs(i - j).astype(float)
    return ((i - j) ** 2).astype(float)


def confusion_matrix(a: Sequence[int], b: Sequence[int],
                     labels: Sequence[int] = SCALE) -> np.ndarray:
    """Counts: rows are ``a``'s labels, columns ``b``'s, both in ``labels`` order."""
    index = {lab: i for i, lab in enumerate(labels)}
    k = len(labels)
    try:
        codes = np.array([index[x] * k + index[y] for x, y in zip(a, b, strict=True)],
                         dtype=np.int64)
    except KeyError as exc:
        raise ValueError(f"label {exc.args[0]!r} is not on the scale "
                         f"{', '.join(map(str, labels))}") from None
    return np.bincount(codes, minlength=k * k).reshape(k, k)


def kappa_from_confusion(confusion: np.ndarray, weights: str = "unweighted") -> float:
    """kappa = 1 - sum(w * O) / sum(w * E), E = outer(row sums, column sums) / n.

    With 0/1 weights this is Cohen's (p_o - p_e) / (1 - p_e). NaN when chance agreement is
    total (both sources used one and the same label throughout) or nothing is shared.
    """
    stack = confusion[None, ...].astype(float)
    return float(_kappas(stack, weights_matrix(confusion.shape[0], weights))[0])


def _kappas(confusions: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Vectorised kappa over a stack of confusion matrices (r, k, k)."""
    n = confusions.sum(axis=(1, 2))
    rows = confusions.sum(axis=2)
    cols = confusions.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = rows[:, :, None] * cols[:, None, :] / n[:, None, None]
        observed_w = (confusions * w).sum(axis=(1, 2))
        expected_w = (expected * w).sum(axis=(1, 2))
        out = 1.0 - observed_w / expected_w
    out[~np.isfinite(out) | (expected_w == 0)] = np.nan
    return out


def cohen_kappa(a: Sequence[int], b: Sequence[int], labels: Sequence[int] = SCALE,
                weights: str = "unweighted") -> float:
    """Cohen's kappa between two sources' labels for the same items, on a fixed scale."""
    return kappa_from_confusion(confusion_matrix(a, b, labels), weights)


def bootstrap_kappa(a: Sequence[int], b: Sequence[int], labels: Sequence[int] = SCALE,
                    weights: str = "unweighted", resamples: int = 1000, seed: int = 1979,
                    level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of kappa, resampling the shared items with replacement.

    Reproducible: the draw depends only on the item count, ``resamples`` and ``seed``.
    Resamples where kappa is undefined (every label the same) are left out; None when no
    resample gives a value.
    """
    index = {lab: i for i, lab in enumerate(labels)}
    k = len(labels)
    codes = np.array([index[x] * k + index[y] for x, y in zip(a, b, strict=True)],
                     dtype=np.int64)
    if codes.size == 0:
        return None
    counts = bootstrap_confusions([codes], k, resamples, seed)[0]
    return kappa_interval(bootstrap_kappas(counts, weights_matrix(k, weights)), level)


def kappa_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float] | None:
    """The percentile interval of bootstrap kappas, leaving out undefined ones (NaN)."""
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


BOOTSTRAP_CHUNK = 200  # resamples drawn at a time (the draws' stream depends on it)


def bootstrap_confusions(code_sets: Sequence[np.ndarray], k: int, resamples: int, seed: int,
                         done: Callable[[int], None] | None = None) -> list[np.ndarray]:
    """Each code array's (item i's cell ``row * k + column`` of a k x k confusion matrix)
    resampled confusion matrices, ``(resamples, k, k)`` int64: the draws of
    :func:`bootstrap_kappa` (``default_rng(seed)``, then ``integers(0, n, (rows, n))`` per
    chunk of BOOTSTRAP_CHUNK resamples), so every set of n items sees the same resamples.

    Sets of one size share the draws: each chunk's draws are counted once per item (a
    (rows, n) multiplicity matrix), and every set's counts are that matrix times its cells'
    one-hot matrix, exact in floating point (integer sums below 2^24 in float32, 2^53 in
    float64). Drawing and gathering once per set and kappa was most of the time of
    ``agreement`` over 45 pairs of 100,000 shared judgments. ``done(rows)`` is called as
    each set's chunk is counted (a progress bar)."""
    out = [np.empty((resamples, k, k), np.int64) for _ in code_sets]
    by_size: dict[int, list[int]] = {}
    for i, codes in enumerate(code_sets):
        by_size.setdefault(len(codes), []).append(i)
    for n, members in by_size.items():
        if len(members) == 1:  # no draws to share: count the cells drawn directly
            (i,) = members
            rng = np.random.default_rng(seed)
            for start in range(0, resamples, BOOTSTRAP_CHUNK):
                rows = min(BOOTSTRAP_CHUNK, resamples - start)
                drawn = code_sets[i][rng.integers(0, n, size=(rows, n))]
                drawn += (np.arange(rows) * k * k)[:, None]
                counts = np.bincount(drawn.ravel(), minlength=rows * k * k)
                out[i][start:start + rows] = counts.reshape(rows, k, k)
                if done is not None:
                    done(rows)
            continue
        dtype = np.float32 if n < (1 << 24) else np.float64
        onehots = []
        for i in members:
            onehot = np.zeros((n, k * k), dtype)
            onehot[np.arange(n), code_sets[i]] = 1
            onehots.append(onehot)
        rng = np.random.default_rng(seed)
        for start in range(0, resamples, BOOTSTRAP_CHUNK):
            rows = min(BOOTSTRAP_CHUNK, resamples - start)
            drawn = rng.integers(0, n, size=(rows, n))
            drawn += (np.arange(rows) * n)[:, None]
            times = np.bincount(drawn.ravel(), minlength=rows * n).reshape(rows, n)
            del drawn
            times_f = times.astype(dtype)
            del times
            for i, onehot in zip(members, onehots):
                counts = np.rint(times_f @ onehot).astype(np.int64)
                out[i][start:start + rows] = counts.reshape(rows, k, k)
                if done is not None:
                    done(rows)
    return out


def bootstrap_kappas(counts: np.ndarray, w: np.ndarray) -> np.ndarray:
    """kappa of every resampled confusion matrix, a chunk at a time as bootstrap_kappa did."""
    values = np.empty(len(counts))
    for start in range(0, len(counts), BOOTSTRAP_CHUNK):
        part = counts[start:start + BOOTSTRAP_CHUNK]
        values[start:start + len(part)] = _kappas(part.astype(float), w)
    return values


def _alpha_distances(domain: np.ndarray, n_v: np.ndarray, level: str) -> np.ndarray:
    """delta^2(c, k) for every pair of values in ``domain`` (ordered)."""
    v = domain.astype(float)
    if level == "nominal":
        return (v[:, None] != v[None, :]).astype(float)
    if level == "interval":
        return (v[:, None] - v[None, :]) ** 2
    if level == "ratio":
        s = v[:, None] + v[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(s != 0, (v[:, None] - v[None, :]) / s, 0.0)
        return d ** 2
    # ordinal: (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2, on the ranks of the ordered domain.
    cum = np.concatenate([[0.0], np.cumsum(n_v)])
    i, j = np.indices((len(v), len(v)))
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    between = cum[hi + 1] - cum[lo]
    return (between - (n_v[i] + n_v[j]) / 2.0) ** 2


def krippendorff_alpha(data: Sequence[Sequence[float]] | np.ndarray, level: str = "ordinal",
                       domain: Sequence[float] | None = None) -> float:
    """Krippendorff's alpha = 1 - D_o / D_e over a coders x units matrix (NaN = missing).

    Units coded by fewer than two coders carry no pairable value and are ignored. The
    coincidence matrix o_ck sums, over units u with m_u >= 2 values, n_uc * n_uk / (m_u - 1)
    (minus the diagonal self-pairs); n_c are its margins; D_o = sum o_ck delta_ck,
    D_e = sum n_c n_k delta_ck / (n - 1). ``domain`` fixes the ordered value set (values nobody
    used do not change alpha: they have n_c = 0). NaN when nothing is pairable or every
    pairable value is the same (no expected disagreement).
    """
    if level not in ALPHA_LEVELS:
        raise ValueError(f"unknown alpha level {level!r}; valid: {', '.join(ALPHA_LEVELS)}")
    m = np.asarray(data, dtype=float)
    if m.ndim != 2:
        raise ValueError("krippendorff_alpha needs a coders x units matrix")
    present = ~np.isnan(m)
    values = np.unique(m[present])
    dom = values if domain is None else np.asarray(sorted(domain), dtype=float)
    if not np.isin(values, dom).all():
        raise ValueError("the data holds values outside the domain")
    if dom.size == 0:
        return math.nan
    # value_counts[u, c]: coders giving unit u value dom[c]
    idx = np.searchsorted(dom, np.where(present, m, dom[0]))
    counts = np.zeros((m.shape[1], dom.size))
    coders, units = np.nonzero(present)
    np.add.at(counts, (units, idx[coders, units]), 1)
    m_u = counts.sum(axis=1)
    keep = m_u >= 2
    counts, m_u = counts[keep], m_u[keep]
    if counts.shape[0] == 0:
        return math.nan
    scaled = counts / (m_u - 1)[:, None]
    o = scaled.T @ counts - np.diag(scaled.sum(axis=0))
    n_v = o.sum(axis=0)
    n = n_v.sum()
    e = (np.outer(n_v, n_v) - np.diag(n_v)) / (n - 1)
    d = _alpha_distances(dom, n_v, level)
    d_e = float((e * d).sum())
    if d_e == 0:
        return math.nan
    return float(1.0 - (o * d).sum() / d_e)
