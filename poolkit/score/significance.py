"""Paired significance tests between runs, and multiple-comparison control.

Pure functions over per-query differences ``d = a - b`` (one value per query both runs are
scored on), on NumPy and the standard library only, so the core install can test without
SciPy. Each two-sided p-value is checked against its reference in the tests:

* ``t``: Student's paired t-test (``scipy.stats.ttest_rel``). The t distribution's tail is
  the regularized incomplete beta function, evaluated by its continued fraction.
* ``wilcoxon``: the Wilcoxon signed-rank test as ``scipy.stats.wilcoxon`` (1.17) computes it
  with its defaults: zero differences dropped (Wilcoxon's rule), no continuity correction,
  and the same choice of null distribution: exact for up to 50 differences without ties or
  zeros; with ties or zeros, the exact sign-flip distribution of the mid-rank statistic for
  up to 13 differences, else the normal approximation with the tie-corrected variance.
* ``randomization``: Fisher's paired randomization test (Smucker et al., CIKM 2007): each
  query's difference keeps its size and gets a random sign; p is the share of sign
  assignments whose mean difference is at least as far from zero as the observed one. All
  2^n assignments are enumerated when there are no more of them than ``permutations``
  (exact); otherwise ``permutations`` are drawn from a fixed seed and p = (b + 1) / (B + 1)
  (Phipson & Smyth 2010: never 0, and valid). The draw depends only on n, the seed and B,
  so a rerun reproduces every p-value.

When every difference is 0 there is nothing to test and every p is 1 (SciPy returns NaN for
the t-test, and for Wilcoxon above 13 queries). Fewer than two queries give no p (NaN).

The interval of the mean difference is the percentile bootstrap of ``intervals.bootstrap``
over the paired queries (same resamples and seed as every other interval poolkit prints).

Adjusted p-values over a family of tests: Holm's step-down (family-wise error) and
Benjamini-Hochberg's step-up (false discovery rate), as statsmodels' ``multipletests``
('holm', 'fdr_bh') computes them. NaN p-values are left out of the family and stay NaN.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np

from poolkit.errors import PoolkitError, one_of
from poolkit.score.intervals import (
    CONFIDENCE,
    RESAMPLES,
    bootstrap_means_each,
    percentile_interval,
)
from poolkit.score.intervals import SEED as BOOT_SEED
from poolkit.threads import ordered_imap

PERMUTATIONS = 10_000
SEED = 2007  # Smucker, Allan & Carterette's comparison of IR significance tests; fixed forever.
ALPHA = 0.05
_CHUNK = 1000  # sign vectors drawn at a time (bounds memory at _CHUNK x queries)
_EXACT_WILCOXON_MAX = 50  # scipy's "auto": exact null up to 50 differences without ties/zeros
_PERMUTATION_WILCOXON_MAX = 13  # ... and its exact sign-flip null with ties, up to 13


# --- the t-test ---------------------------------------------------------------------------------

def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_test(d: np.ndarray) -> float:
    """Two-sided p of the paired t-test on differences ``d`` (n - 1 degrees of freedom)."""
    d = np.asarray(d, dtype=float)
    n = d.size
    if n < 2:
        return math.nan
    if not np.any(d):
        return 1.0
    mean = float(np.mean(d))
    sd = float(np.std(d, ddof=1))
    if sd == 0.0:
        return 0.0  # every query moved by the same non-zero amount: t is infinite
    t = mean / (sd / math.sqrt(n))
    df = n - 1.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


# --- Wilcoxon signed-rank -----------------------------------------------------------------------

def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``x``, ties sharing their mean rank."""
    order = np.argsort(x, kind="mergesort")
    sorted_x = x[order]
    starts = np.flatnonzero(np.r_[True, sorted_x[1:] != sorted_x[:-1]])
    ends = np.r_[starts[1:], x.size]
    ranks = np.empty(x.size)
    # (s + e + 1) / 2 of each tie group [s, e): whole numbers halved, exact as in Python
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return ranks


def _sign_flip_counts(weights: Sequence[int]) -> np.ndarray:
    """counts[s] = sign assignments whose positive weights sum to s (a subset-sum DP)."""
    total = int(sum(weights))
    counts = np.zeros(total + 1)
    counts[0] = 1.0
    for w in weights:
        counts[w:] = counts[w:] + counts[:total + 1 - w].copy()
    return counts


def _two_sided_from_counts(counts: np.ndarray, stat: int) -> float:
    total = counts.sum()
    low = counts[:stat + 1].sum() / total
    high = counts[stat:].sum() / total
    return float(min(1.0, 2.0 * min(low, high)))


def wilcoxon(d: np.ndarray) -> float:
    """Two-sided p of the Wilcoxon signed-rank test on differences ``d`` (see module doc)."""
    d = np.asarray(d, dtype=float)
    n = d.size
    if n < 2:
        return math.nan
    nonzero = d[d != 0]
    count = nonzero.size
    if count == 0:
        return 1.0
    ranks = _average_ranks(np.abs(nonzero))
    r_plus = float(ranks[nonzero > 0].sum())
    _, tie_sizes = np.unique(np.abs(nonzero), return_counts=True)
    ties = bool(np.any(tie_sizes > 1))
    zeros = count < n
    if n <= _EXACT_WILCOXON_MAX and not ties and not zeros:
        counts = _sign_flip_counts(range(1, count + 1))
        return _two_sided_from_counts(counts, int(round(r_plus)))
    if n <= _PERMUTATION_WILCOXON_MAX:
        # mid-ranks are multiples of 1/2: doubled, the sign-flip null is a subset-sum count
        counts = _sign_flip_counts([int(round(2 * r)) for r in ranks])
        return _two_sided_from_counts(counts, int(round(2 * r_plus)))
    mean = count * (count + 1) / 4.0
    tie_term = float(np.sum(tie_sizes.astype(float) ** 3 - tie_sizes))
    se = math.sqrt((count * (count + 1) * (2 * count + 1) - tie_term / 2.0) / 24.0)
    z = (r_plus - mean) / se
    return math.erfc(abs(z) / math.sqrt(2.0))


# --- Fisher's randomization test ----------------------------------------------------------------

@lru_cache(maxsize=8)
def _all_signs(n: int) -> np.ndarray:
    """Every one of the 2^n sign vectors, one per row."""
    bits = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
    signs: np.ndarray = 1.0 - 2.0 * bits
    return signs


_SIGNS = np.array([1.0, -1.0])  # a drawn bit's sign


def _sign_draws(n: int, permutations: int, seed: int) -> Iterator[np.ndarray]:
    """The randomization's sign draws (0/1 per query and permutation), ``_CHUNK`` rows at
    a time: they depend only on ``n``, ``permutations`` and the seed."""
    rng = np.random.default_rng(seed)
    for start in range(0, permutations, _CHUNK):
        rows = min(_CHUNK, permutations - start)
        yield rng.integers(0, 2, size=(rows, n), dtype=np.int8)


def randomization_many(diffs: np.ndarray, permutations: int = PERMUTATIONS,
                       seed: int = SEED, jobs: int = 1) -> np.ndarray:
    """Two-sided randomization p-values of every column of ``diffs`` (queries x tests).

    The columns share one set of sign vectors, which is what a single column would get on
    its own: the draw depends only on the number of queries, the seed and ``permutations``.
    Chunks of sign vectors are worked on ``jobs`` threads, each drawn in order and counted
    on its own (whole counts: their sum is exact in any order), so ``jobs`` changes nothing.
    """
    diffs = np.asarray(diffs, dtype=float)
    if diffs.ndim == 1:
        diffs = diffs[:, None]
    n, k = diffs.shape
    if n < 2:
        return np.full(k, math.nan)
    observed = np.abs(diffs.sum(axis=0))
    # sums of the same numbers in another order differ in the last bits: count them as ties
    tolerance = 1e-10 * np.abs(diffs).sum(axis=0)
    threshold = observed - tolerance
    if 2 ** n <= permutations:
        stats = np.abs(_all_signs(n) @ diffs)
        return np.asarray((stats >= threshold).sum(axis=0) / 2 ** n)

    def count(bits: np.ndarray) -> np.ndarray:
        signs = _SIGNS[bits]  # 1 - 2 * bit, looked up: one pass, the same +-1.0
        return np.asarray((np.abs(signs @ diffs) >= threshold).sum(axis=0))

    hits = np.zeros(k)
    for chunk_hits in ordered_imap(count, _sign_draws(n, permutations, seed), jobs,
                                   ahead=2 * jobs):
        hits += chunk_hits
    return (hits + 1.0) / (permutations + 1.0)


def randomization(d: np.ndarray, permutations: int = PERMUTATIONS, seed: int = SEED) -> float:
    """Two-sided p of Fisher's paired randomization test on differences ``d``."""
    return float(randomization_many(np.asarray(d, dtype=float)[:, None], permutations, seed)[0])


#: the paired tests by their CLI name (``--test``); each maps differences to a two-sided p
TESTS: dict[str, Callable[[np.ndarray], float]] = {
    "t": t_test,
    "randomization": randomization,
    "wilcoxon": wilcoxon,
}
DEFAULT_TEST = "randomization"


# --- multiple comparisons -----------------------------------------------------------------------

def _defined(p: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(p, dtype=float)
    return arr, np.flatnonzero(~np.isnan(arr))


def holm(p: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values: the i-th smallest of m is max over j <= i of
    min(1, (m - j + 1) p_(j)). Controls the family-wise error rate."""
    arr, idx = _defined(p)
    out = np.full(arr.shape, math.nan)
    m = idx.size
    if m:
        order = idx[np.argsort(arr[idx], kind="mergesort")]
        raw = arr[order] * np.arange(m, 0, -1)
        out[order] = np.minimum(1.0, np.maximum.accumulate(raw))
    return out


def benjamini_hochberg(p: Sequence[float]) -> np.ndarray:
    """Benjamini-Hochberg step-up adjusted p-values: the i-th smallest of m is min over
    j >= i of min(1, m p_(j) / j). Controls the false discovery rate."""
    arr, idx = _defined(p)
    out = np.full(arr.shape, math.nan)
    m = idx.size
    if m:
        order = idx[np.argsort(arr[idx], kind="mergesort")]
        raw = arr[order] / (np.arange(1, m + 1) / m)
        out[order] = np.minimum(1.0, np.minimum.accumulate(raw[::-1])[::-1])
    return out


def no_correction(p: Sequence[float]) -> np.ndarray:
    return np.asarray(p, dtype=float).copy()


#: adjustments by their CLI name (``--correction``); the report carries holm and bh always
CORRECTIONS: dict[str, Callable[[Sequence[float]], np.ndarray]] = {
    "holm": holm,
    "bh": benjamini_hochberg,
    "none": no_correction,
}
DEFAULT_CORRECTION = "holm"


# --- every pair of runs on every measure --------------------------------------------------------

@dataclass(frozen=True)
class TestOptions:
    """Which test the report marks, at what level, adjusted how; and the randomization's draw."""

    __test__ = False  # not a pytest class, despite the name

    test: str = DEFAULT_TEST
    alpha: float = ALPHA
    correction: str = DEFAULT_CORRECTION
    permutations: int = PERMUTATIONS
    seed: int = SEED

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise PoolkitError("--test: " + one_of(self.test, TESTS, "test"))
        if self.correction not in CORRECTIONS:
            raise PoolkitError("--correction: " + one_of(self.correction, CORRECTIONS,
                                                         "correction"))
        if not 0.0 < self.alpha < 1.0:
            raise PoolkitError(f"--alpha must be between 0 and 1 (exclusive), got "
                               f"{self.alpha:g}")
        if self.permutations < 1:
            raise PoolkitError(f"permutations must be a positive integer, got "
                               f"{self.permutations}")

    @property
    def p_name(self) -> str:
        """How the marked p-value is written: ``p_holm``, ``p_bh``, or ``p`` (no correction)."""
        return "p" if self.correction == "none" else f"p_{self.correction}"

    def to_dict(self) -> dict[str, object]:
        return {"test": self.test, "alpha": self.alpha, "correction": self.correction,
                "permutations": self.permutations, "seed": self.seed,
                "ci": {"level": CONFIDENCE, "method": "bootstrap", "resamples": RESAMPLES,
                       "seed": BOOT_SEED}}


@dataclass(frozen=True)
class PairTest:
    """Run ``a`` against run ``b`` on one measure, over the ``n`` queries both are scored on.

    ``diff`` is mean(a - b); ``p`` holds every test's two-sided p-value; ``p_adjusted`` the
    marked test's p-value adjusted over the whole report's family (every pair and measure).
    """

    measure: str
    a: str
    b: str
    n: int
    diff: float | None
    ci: tuple[float, float] | None
    p: dict[str, float | None]
    p_adjusted: dict[str, float | None] = field(default_factory=dict)
    significant: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "n": self.n, "diff": self.diff,
                "ci": list(self.ci) if self.ci else None, "p": dict(self.p),
                "p_adjusted": dict(self.p_adjusted), "significant": self.significant}

    @property
    def sign(self) -> int:
        """+1 when a scored higher, -1 when lower, 0 for no difference."""
        return 0 if not self.diff else (1 if self.diff > 0 else -1)


def _nan_to_none(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def paired(a: Mapping[str, float], b: Mapping[str, float]) -> tuple[list[str], np.ndarray]:
    """The queries both runs are scored on (in ``a``'s order) and their differences a - b."""
    queries = [q for q in a if q in b]
    return queries, np.fromiter((a[q] - b[q] for q in queries), float, len(queries))


@dataclass
class PairedTests:
    """Every pair of runs on every measure, and how each reads under the options.

    JSON (``to_dict``; the report's ``tests`` key; keys may be added, none removed)::

        {MEASURE: [{"a": run, "b": run, "n": paired queries,
                    "diff": mean(a - b), "ci": [low, high] (95% paired bootstrap),
                    "p": {"t": p, "randomization": p, "wilcoxon": p},
                    "p_adjusted": {"holm": p, "bh": p}   # the marked test, whole family
                    "significant": bool}]}              # marked test, correction, alpha

    Undefined values (fewer than two paired queries) are null.
    """

    options: TestOptions
    by_measure: dict[str, list[PairTest]]

    def to_dict(self) -> dict[str, list[dict[str, Any]]]:
        return {m: [t.to_dict() for t in tests] for m, tests in self.by_measure.items()}

    def settings(self) -> dict[str, object]:
        family = sum(1 for ts in self.by_measure.values() for t in ts
                     if t.p[self.options.test] is not None)
        return {**self.options.to_dict(), "family": family}

    def marked_p(self, t: PairTest) -> float | None:
        opt = self.options
        return t.p[opt.test] if opt.correction == "none" else t.p_adjusted[opt.correction]

    def find(self, measure: str, a: str, b: str) -> PairTest | None:
        for t in self.by_measure.get(measure, []):
            if (t.a, t.b) == (a, b):
                return t
        return None


class _Columns:
    """Each run's per-query values of one measure as (query ids, array), built once for
    all its pairs: two runs scored on the same queries in the same order (the usual case)
    pair by subtracting arrays, value for value what :func:`paired` computes."""

    def __init__(self, scores: Mapping[str, Mapping[str, Mapping[str, float]]], measure: str):
        self.scores, self.measure = scores, measure
        self.built: dict[str, tuple[list[str], np.ndarray]] = {}

    def of(self, run: str) -> tuple[list[str], np.ndarray]:
        if run not in self.built:
            values = self.scores[run][self.measure]
            self.built[run] = (list(values),
                               np.fromiter(values.values(), float, len(values)))
        return self.built[run]

    def differences(self, a: str, b: str) -> np.ndarray:
        (qa, va), (qb, vb) = self.of(a), self.of(b)
        if qa == qb:
            return va - vb
        return paired(self.scores[a][self.measure], self.scores[b][self.measure])[1]


def pairwise_tests(scores: Mapping[str, Mapping[str, Mapping[str, float]]],
                   measures: Sequence[str], options: TestOptions | None = None,
                   jobs: int = 1) -> PairedTests:
    """Test every pair of runs (in ``scores`` order, a before b) on every measure.

    ``scores[run][measure][qid]`` are per-query values of the scored queries only, so a
    query excluded from a run's means (no relevant label) is left out of its tests too.
    The resampling tests work on ``jobs`` threads; the result is the same for any ``jobs``.
    """
    opt = options or TestOptions()
    runs = list(scores)
    pending: list[tuple[str, str, str, np.ndarray]] = []
    for m in measures:
        columns = _Columns(scores, m)
        for i, a in enumerate(runs):
            for b in runs[i + 1:]:
                pending.append((m, a, b, columns.differences(a, b)))
    # one shared draw of sign vectors per query count (what each test would get alone)
    rand: list[float] = [math.nan] * len(pending)
    by_n: dict[int, list[int]] = {}
    for j, (*_, d) in enumerate(pending):
        by_n.setdefault(d.size, []).append(j)
    for n, idx in by_n.items():
        if n >= 2:
            ps = randomization_many(np.column_stack([pending[j][3] for j in idx]),
                                    opt.permutations, opt.seed, jobs)
            for j, p in zip(idx, ps):
                rand[j] = float(p)
    # the differences' bootstrap intervals, the resamples drawn once per query count
    cis: list[tuple[float, float] | None] = [None] * len(pending)
    for n, idx in by_n.items():
        if n:
            means = bootstrap_means_each([pending[j][3] for j in idx], jobs=jobs)
            for j, m_j in zip(idx, means):
                iv = percentile_interval(m_j)
                cis[j] = (iv.low, iv.high)
    tests = []
    for (m, a, b, d), p_rand, ci in zip(pending, rand, cis):
        n = d.size
        p = {"t": t_test(d), "randomization": p_rand, "wilcoxon": wilcoxon(d)}
        tests.append(PairTest(m, a, b, n, float(d.mean()) if n else None, ci,
                              {k: _nan_to_none(v) for k, v in p.items()}))
    marked: list[float] = [math.nan if (x := t.p[opt.test]) is None else x for t in tests]
    adjusted = {"holm": holm(marked), "bh": benjamini_hochberg(marked)}
    out: dict[str, list[PairTest]] = {m: [] for m in measures}
    for j, t in enumerate(tests):
        adj = {k: _nan_to_none(v[j]) for k, v in adjusted.items()}
        used = t.p[opt.test] if opt.correction == "none" else adj[opt.correction]
        out[t.measure].append(replace(t, p_adjusted=adj,
                                      significant=used is not None and used < opt.alpha))
    return PairedTests(opt, out)


# --- what the later labels did to the earlier significant differences -------------------------

#: the fate of a pair's outcome between two label sets, in the order reports list them
SHIFTS = ("survived", "lost", "reversed", "gained")


def shift(before: PairTest, after: PairTest) -> str | None:
    """``survived``: significant both times, same direction; ``lost``: significant before,
    not after; ``reversed``: significant both times, opposite directions; ``gained``:
    significant only after. None when neither is significant."""
    if before.significant and after.significant:
        return "survived" if before.sign == after.sign else "reversed"
    if before.significant:
        return "lost"
    if after.significant:
        return "gained"
    return None


def shifts(before: PairedTests, after: PairedTests) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Per measure, the pairs in each fate of ``SHIFTS`` (pairs in both reports only).

    JSON: ``{MEASURE: {"survived" | "lost" | "reversed" | "gained": [{"a", "b",
    "before": {"diff", "p"}, "after": {"diff", "p"}}]}}`` where p is the marked p-value.
    """
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for m, tests in after.by_measure.items():
        fates: dict[str, list[dict[str, Any]]] = {s: [] for s in SHIFTS}
        for t_after in tests:
            t_before = before.find(m, t_after.a, t_after.b)
            if t_before is None:
                continue
            fate = shift(t_before, t_after)
            if fate:
                fates[fate].append({
                    "a": t_after.a, "b": t_after.b,
                    "before": {"diff": t_before.diff, "p": before.marked_p(t_before)},
                    "after": {"diff": t_after.diff, "p": after.marked_p(t_after)}})
        out[m] = fates
    return out
