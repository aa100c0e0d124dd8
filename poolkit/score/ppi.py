"""Prediction-powered estimates of a mean metric: many machine labels, a few human ones.

A machine judge labels every one of the N queries; people label a random sample of n of
them. For one run and one measure (say nDCG@10) that gives, per query,

* ``machine_all``: the metric under the machine's labels on all N queries (shape N);
* ``human``: the metric under the people's labels on the n sampled queries;
* ``machine_on_human``: the metric under the machine's labels on those same n queries.

**Convention.** The n human queries are *among* the N machine-labelled ones (the machine
labels every query), and ``machine_all`` is passed as ppi-python's ``Yhat_unlabeled`` as it
is, human queries included. The numbers are then exactly ppi-python's (``ppi_py.
ppi_mean_pointestimate`` and ``ppi_mean_ci``; the differential test checks it to 1e-9).

**Estimator** (PPI++, Angelopoulos, Duchi and Zrnic 2023), with weights w_i normalised to
mean 1 over the human sample (all 1 for a uniform sample; 1/pi_i rescaled for inclusion
probabilities pi_i)::

    theta(lam) = lam * mean_N(m_j) + mean_n(w_i * (h_i - lam * m_i))

It is unbiased for the mean of h over the N queries for *every fixed* lam, whatever the
judge's quality: the second term's expectation over the draw is mean_N(h) - lam mean_N(m).
lam = 0 is the human-only mean; lam = 1 is plain PPI (the machine mean corrected by the
mean human-machine difference on the sample).

**Variance** (as ppi-python; population standard deviations, ddof = 0)::

    se^2 = lam^2 var_N(m) / N + var_n(w * (h - lam * m)) / n

The formula treats the two means as independent, as when the unlabelled set is disjoint
from the labelled one. With the human queries inside the N, the exact variance for the
mean over these N queries (the finite population poolkit scores) is
(1 - n/N) var(h - lam m) / n with mean_N(m) a constant: the formula above is larger, so the
interval is conservative for that target. For a super-population of queries it omits the
term 2 cov(m, h - lam m) / N, of order 1/N (small beside 1/n).

**Tuning** (``lam=None``): lam minimises the variance, estimated at the plain-PPI point
theta_1 = theta(1) with g_i = w_i (h_i - theta_1), gh_i = w_i (m_i - theta_1),
gu_j = m_j - theta_1::

    lam = cov_n(g, gh) / ((1 + n/N) * var_{n+N}(gh ++ gu))

(cov with ddof = 0, var over the concatenation with ddof = 1), then clipped to [0, 1] (the
default; ppi-python always clips). Choosing lam from the same data costs nothing
asymptotically: theta(lam_hat) - theta(lam*) = (lam_hat - lam*)(mean_N(m) - mean_n(w m)),
a product of two vanishing terms.

``lam_max`` moves the upper clip (the clip is [0, lam_max]; 1 is ppi-python's). Nothing in
the estimator needs lam <= 1: theta(lam) is unbiased for every fixed lam, and lam* is the
slope of h on m, which exceeds 1 when the machine's values vary less than the people's.
That is what a recalibrated predictor does (:mod:`poolkit.score.ppi_calibrate`: AP of soft
labels, each pair's relevance a probability between 0 and 1, shrinks each query's
differences between runs towards 0; on TREC DL 2019 with FLAN-T5 the slope of the people's
AP differences on the recalibrated ones, the table fitted on all 43 queries, is 1.5-3.2 over
the 15 pairs of runs), and the clip at 1 then discards part of what the predictor knows. A
larger lam is also a larger bet on a lam estimated from n queries, so the bound stays an
explicit choice (``ppi-replay`` and ``estimate`` take ``--lambda-max``), measured on the
replay before it is trusted.

**Intervals.** ``interval="normal"``: estimate +- z se, se with ddof = 0 (ppi-python's
interval, to the last digit). ``interval="t"``, the small-sample version: both variances with
ddof = 1 and a Student t quantile with n - 1 degrees of freedom. se^2 is dominated by the
rectifier's variance, estimated from n values (with N >> n the machine term is nearly
known), so it carries about n - 1 degrees of freedom; Welch-Satterthwaite would give at
least n - 1, so n - 1 is the conservative choice. At lam = 0 this is exactly the classical
one-sample t interval of the human values. (With ddof = 0 at n = 5 the variance alone is
20% low: simulated coverage of a nominal 95% interval falls to about 0.89.)
``interval="auto"`` (the default) uses t when n < ``T_BELOW`` (30) and the normal interval
from there on (at n = 30 the t interval is 6% wider). What t does not cover is the tuning
itself: lam chosen on the same five queries makes the variance look smaller than it is;
in simulation (tests) the tuned t interval at n = 5 covers about 0.91 where a fixed lam
covers 0.95, and 0.94 at n = 10. Pass a fixed ``lam`` when n is that small and the nominal
level matters. On TREC DL 2019 (nDCG@10, 70B judge, 200 seeds) coverage at n = 10 is 0.92
normal and 0.96 t; at n = 5, 0.84 normal and 0.95 t.

**Paired differences.** For runs A and B scored on the same queries, the difference of two
PPI estimates with one lam is PPI on the per-query differences (theta is linear in h and
m), so :func:`ppi_difference` is :func:`ppi_mean` on ``h_A - h_B`` and ``m_A - m_B``: it
stays unbiased, its variance accounts for the pairing (the per-query correlation of A and
B), and lam is tuned jointly for the variance of the difference rather than run by run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from poolkit.errors import PoolkitError
from poolkit.score.significance import CORRECTIONS, betainc

CONFIDENCE = 0.95
#: below this many human queries ``interval="auto"`` uses the t quantile (n - 1 df)
T_BELOW = 30
INTERVALS = ("auto", "normal", "t")


class PPIError(PoolkitError):
    """Inputs a prediction-powered estimate cannot be computed from."""


@dataclass(frozen=True)
class PPIEstimate:
    """A prediction-powered estimate of a mean, with its interval and what it came from."""

    estimate: float
    low: float
    high: float
    #: the power-tuning weight: 0 is human-only, 1 is plain PPI
    lam: float
    #: mean of the human values on the n human queries (weighted when weights were given)
    human: float
    #: mean of the machine values on all N queries
    machine: float
    n: int
    N: int
    se: float
    #: "normal" or "t" (the quantile actually used)
    method: str
    confidence: float = CONFIDENCE
    #: degrees of freedom of the t quantile; None for the normal one
    df: int | None = None
    #: the machine term's part of se: sqrt(lam^2 var_N(m) / N)
    machine_se: float = 0.0

    @property
    def width(self) -> float:
        return self.high - self.low

    def p_value(self, null: float = 0.0) -> float:
        """Two-sided p of "the mean is ``null``", with the interval's own reference
        distribution (normal or t with ``df``)."""
        return two_sided_p(self.estimate - null, self.se, self.df)


def two_sided_p(diff: float, se: float, df: int | None) -> float:
    """Two-sided p of a difference ``diff`` with standard error ``se``: normal (df None) or
    Student t with ``df`` degrees of freedom."""
    if se == 0.0:
        return 1.0 if diff == 0.0 else 0.0
    stat = abs(diff) / se
    if df is None:
        return math.erfc(stat / math.sqrt(2.0))
    return betainc(df / 2.0, 0.5, df / (df + stat * stat))


# --- quantiles, without scipy -------------------------------------------------------------------

def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def t_cdf(x: float, df: float) -> float:
    """P(T <= x) for Student's t with ``df`` degrees of freedom."""
    x2 = x * x
    z = x2 / (df + x2)
    if z < 0.5:  # near 0, df / (df + x^2) rounds to 1: use I_z(1/2, df/2) = 1 - I_{1-z}(df/2, 1/2)
        tail = 0.5 * (1.0 - betainc(0.5, df / 2.0, z))
    else:
        tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + x2))
    return 1.0 - tail if x >= 0 else tail


def _invert(cdf: Callable[[float], float], p: float) -> float:
    """The x with cdf(x) = p for a continuous increasing cdf symmetric about 0, by bisection
    to the last bit; in the lower tail, where the cdf is exact (1 - p is exact for p >= 1/2)."""
    if not 0.0 < p < 1.0:
        raise PPIError(f"a quantile needs 0 < p < 1, got {p}")
    if p > 0.5:
        return -_invert(cdf, 1.0 - p)
    lo, hi = -1.0, 1.0
    while cdf(lo) > p:
        lo *= 2.0
    while cdf(hi) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@lru_cache(maxsize=256)
def normal_ppf(p: float) -> float:
    """The standard normal quantile (scipy.stats.norm.ppf)."""
    return _invert(_normal_cdf, p)


@lru_cache(maxsize=256)
def t_ppf(p: float, df: float) -> float:
    """Student's t quantile with ``df`` degrees of freedom (scipy.stats.t.ppf)."""
    if df <= 0:
        raise PPIError(f"the t quantile needs df > 0, got {df}")
    return _invert(lambda x: t_cdf(x, df), p)


# --- the estimator ------------------------------------------------------------------------------

def _vector(name: str, values: Sequence[float] | np.ndarray) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise PPIError(f"{name} must be one value per query (1-d), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise PPIError(f"{name} has a value that is not a finite number")
    return arr


def _weights(n: int, weights: Sequence[float] | np.ndarray | None,
             inclusion: Sequence[float] | np.ndarray | None) -> np.ndarray:
    """Weights of the human sample normalised to mean 1 (ppi-python's convention)."""
    if weights is not None and inclusion is not None:
        raise PPIError("give weights or inclusion probabilities, not both")
    if inclusion is not None:
        pi = _vector("inclusion", inclusion)
        if np.any(pi <= 0) or np.any(pi > 1):
            raise PPIError("inclusion probabilities must be in (0, 1]")
        weights = 1.0 / pi
    if weights is None:
        return np.ones(n)
    w = _vector("weights", weights)
    if w.size != n:
        raise PPIError(f"{w.size} weights for {n} human queries")
    if np.any(w < 0) or w.sum() <= 0:
        raise PPIError("weights must be non-negative and not all zero")
    return w / w.sum() * n


def check_lam_max(lam_max: float, name: str = "lam_max") -> float:
    """The upper clip of a tuned lam: a finite number >= 0 (module docstring); ``name`` is
    how the caller spells it (``--lambda-max`` on the command line)."""
    if not (math.isfinite(lam_max) and lam_max >= 0.0):
        raise PPIError(f"{name} {lam_max}: the tuned lambda's upper bound must be a finite "
                       f"number >= 0")
    return float(lam_max)


def tuned_lambda(human: np.ndarray, machine_on_human: np.ndarray, machine_all: np.ndarray,
                 w: np.ndarray, clip: bool = True, lam_max: float = 1.0) -> float:
    """PPI++'s variance-minimising lam (module docstring), as ppi-python computes it,
    clipped to [0, ``lam_max``] unless ``clip`` is False."""
    n, N = human.size, machine_all.size
    theta1 = float(machine_all.mean() + (w * (human - machine_on_human)).mean())
    g = w * (human - theta1)
    gh = w * (machine_on_human - theta1)
    gu = machine_all - theta1
    cov = float(((g - g.mean()) * (gh - gh.mean())).mean())
    var = float(np.var(np.concatenate([gh, gu]), ddof=1))
    if var == 0.0:
        return 0.0  # the machine gives every query the same value: it carries no information
    lam = cov / ((1.0 + n / N) * var)
    return min(lam_max, max(0.0, lam)) if clip else lam


def ppi_mean(machine_all: Sequence[float] | np.ndarray, human: Sequence[float] | np.ndarray,
             machine_on_human: Sequence[float] | np.ndarray, *, lam: float | None = None,
             clip: bool = True, lam_max: float = 1.0,
             weights: Sequence[float] | np.ndarray | None = None,
             inclusion: Sequence[float] | np.ndarray | None = None,
             confidence: float = CONFIDENCE, interval: str = "auto") -> PPIEstimate:
    """The PPI++ estimate of the mean of the human values over the N queries (module
    docstring for the estimator, its variance and the interval rule).

    ``lam=None`` tunes lam (clipped to [0, ``lam_max``] unless ``clip=False``); ``lam=1`` is
    plain PPI
    and ``lam=0`` the human-only mean. ``weights`` (any positive scale) or ``inclusion``
    (probabilities pi_i; weights 1/pi_i) weight the human sample.
    """
    m_all = _vector("machine_all", machine_all)
    h = _vector("human", human)
    m_h = _vector("machine_on_human", machine_on_human)
    n, N = h.size, m_all.size
    if m_h.size != n:
        raise PPIError(f"{n} human values but {m_h.size} machine values on the human queries")
    if n < 2:
        raise PPIError(f"a prediction-powered interval needs at least 2 human queries, got {n}")
    if N < n:
        raise PPIError(f"the machine labels {N} queries, fewer than the {n} human ones "
                       f"(they must be among them)")
    if interval not in INTERVALS:
        raise PPIError(f"interval must be one of {', '.join(INTERVALS)}, got {interval!r}")
    if not 0.0 < confidence < 1.0:
        raise PPIError(f"confidence must be in (0, 1), got {confidence}")
    w = _weights(n, weights, inclusion)
    lam_max = check_lam_max(lam_max)
    if lam is None:
        lam = tuned_lambda(h, m_h, m_all, w, clip=clip, lam_max=lam_max)
    lam = float(lam)
    rectifier = w * (h - lam * m_h)
    estimate = float((lam * m_all).mean() + rectifier.mean())
    method = interval if interval != "auto" else ("t" if n < T_BELOW else "normal")
    ddof = 1 if method == "t" else 0
    se = math.sqrt(float(np.var(lam * m_all, ddof=ddof)) / N
                   + float(np.var(rectifier, ddof=ddof)) / n)
    upper = 1.0 - (1.0 - confidence) / 2.0
    df = n - 1 if method == "t" else None
    q = t_ppf(upper, df) if df is not None else normal_ppf(upper)
    return PPIEstimate(estimate=estimate, low=estimate - q * se, high=estimate + q * se,
                       lam=lam, human=float((w * h).mean()), machine=float(m_all.mean()),
                       n=n, N=N, se=se, method=method, confidence=confidence, df=df,
                       machine_se=math.sqrt(float(np.var(lam * m_all, ddof=ddof)) / N))


def queries_for_width(est: PPIEstimate, width: float, interval: str = "auto") -> int | None:
    """The fewest human queries n' (at least ``est.n``, at most ``est.N``) whose interval
    the design expects to be at most ``width`` wide, or None when even all N would not do.

    se^2 = A + B / n with A the machine term (``machine_se^2``, known from all N queries)
    and B the rectifier's variance per query, estimated by n (se^2 - A); with lam and both
    variances as they are now, the width at n' is 2 q(n') sqrt(A + B / n'), q the quantile
    the interval rule would use at n' (t below 30). A projection, not a promise: lam and the
    variances are re-estimated when the new queries come in."""
    if not (math.isfinite(width) and width > 0):
        raise PPIError(f"a target width must be a number > 0, got {width}")
    a = est.machine_se ** 2
    b = max(0.0, est.n * (est.se ** 2 - a))
    upper = 1.0 - (1.0 - est.confidence) / 2.0
    for n in range(est.n, est.N + 1):
        method = interval if interval != "auto" else ("t" if n < T_BELOW else "normal")
        q = t_ppf(upper, n - 1) if method == "t" else normal_ppf(upper)
        if 2.0 * q * math.sqrt(a + b / n) <= width:
            return n
    return None


@dataclass(frozen=True)
class PPIDifference:
    """The estimate of mean(A) - mean(B), its p-value for "no difference", adjusted later."""

    a: str
    b: str
    estimate: PPIEstimate
    p: float
    p_adjusted: float | None = None


def ppi_difference(machine_all_a: Sequence[float] | np.ndarray,
                   machine_all_b: Sequence[float] | np.ndarray,
                   human_a: Sequence[float] | np.ndarray, human_b: Sequence[float] | np.ndarray,
                   machine_on_human_a: Sequence[float] | np.ndarray,
                   machine_on_human_b: Sequence[float] | np.ndarray,
                   **options: object) -> PPIEstimate:
    """PPI on the per-query differences A - B (same queries, same order, in each pair of
    vectors); ``options`` are :func:`ppi_mean`'s. Its ``p_value()`` tests "A = B"."""
    machine_all = _vector("machine_all_a", machine_all_a) - _vector("machine_all_b",
                                                                    machine_all_b)
    human = _vector("human_a", human_a) - _vector("human_b", human_b)
    machine_on_human = (_vector("machine_on_human_a", machine_on_human_a)
                        - _vector("machine_on_human_b", machine_on_human_b))
    return ppi_mean(machine_all, human, machine_on_human, **options)  # type: ignore[arg-type]


def pairwise_differences(machine_all: dict[str, np.ndarray], human: dict[str, np.ndarray],
                         machine_on_human: dict[str, np.ndarray], *,
                         correction: str = "holm", **options: object) -> list[PPIDifference]:
    """Every pair of runs (in the dicts' order, A before B), each with its PPI p-value and
    the p-values adjusted over the pairs by ``correction`` (``holm``, ``bh`` or ``none``:
    poolkit's own adjustments, as ``score`` uses them)."""
    if correction not in CORRECTIONS:
        raise PPIError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    names = list(machine_all)
    pairs: list[PPIDifference] = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            est = ppi_difference(machine_all[a], machine_all[b], human[a], human[b],
                                 machine_on_human[a], machine_on_human[b], **options)
            pairs.append(PPIDifference(a, b, est, est.p_value()))
    adjusted = CORRECTIONS[correction]([d.p for d in pairs])
    return [PPIDifference(d.a, d.b, d.estimate, d.p, float(p)) for d, p in zip(pairs, adjusted)]


@dataclass(frozen=True)
class PPIBatch:
    """:func:`ppi_mean` for S draws at once (uniform weights): one row per draw."""

    estimate: np.ndarray
    se: np.ndarray
    lam: np.ndarray
    #: the interval's quantile (t with n - 1 df or normal, by ``interval``)
    quantile: float
    method: str
    #: degrees of freedom of the t quantile; None for the normal one
    df: int | None = None

    @property
    def low(self) -> np.ndarray:
        return self.estimate - self.quantile * self.se  # type: ignore[no-any-return]

    @property
    def high(self) -> np.ndarray:
        return self.estimate + self.quantile * self.se  # type: ignore[no-any-return]

    def p_values(self) -> np.ndarray:
        """Two-sided p of "the mean is 0" per draw (:meth:`PPIEstimate.p_value`'s rule)."""
        return np.array([two_sided_p(float(e), float(s), self.df)
                         for e, s in zip(self.estimate, self.se)])


def ppi_mean_many(machine_all: np.ndarray, human: np.ndarray, machine_on_human: np.ndarray,
                  *, lam: float | None = None, lam_max: float = 1.0,
                  confidence: float = CONFIDENCE, interval: str = "auto") -> PPIBatch:
    """:func:`ppi_mean` (uniform weights, lam clipped to [0, ``lam_max``] when tuned) for
    every row of ``human`` and ``machine_on_human`` (shape S x n: S draws of n human queries)
    against one ``machine_all`` (N): the same numbers, row by row (a test), without a
    Python loop."""
    m_all = np.asarray(machine_all, dtype=float)
    h = np.asarray(human, dtype=float)
    m_h = np.asarray(machine_on_human, dtype=float)
    n, N = h.shape[1], m_all.size
    if n < 2:
        raise PPIError(f"a prediction-powered interval needs at least 2 human queries, got {n}")
    if lam is None:
        theta1 = m_all.mean() + (h - m_h).mean(axis=1, keepdims=True)
        g, gh = h - theta1, m_h - theta1
        gu = np.broadcast_to(m_all, (h.shape[0], N)) - theta1
        cov = ((g - g.mean(axis=1, keepdims=True))
               * (gh - gh.mean(axis=1, keepdims=True))).mean(axis=1)
        var = np.var(np.concatenate([gh, gu], axis=1), axis=1, ddof=1)
        lams = np.where(var == 0.0, 0.0,
                        np.clip(cov / ((1.0 + n / N) * np.where(var == 0, 1.0, var)), 0.0,
                                check_lam_max(lam_max)))
    else:
        lams = np.full(h.shape[0], float(lam))
    rectifier = h - lams[:, None] * m_h
    estimate = lams * m_all.mean() + rectifier.mean(axis=1)
    method = interval if interval != "auto" else ("t" if n < T_BELOW else "normal")
    ddof = 1 if method == "t" else 0
    se = np.sqrt(lams ** 2 * float(np.var(m_all, ddof=ddof)) / N
                 + np.var(rectifier, axis=1, ddof=ddof) / n)
    upper = 1.0 - (1.0 - confidence) / 2.0
    df = n - 1 if method == "t" else None
    q = t_ppf(upper, df) if df is not None else normal_ppf(upper)
    return PPIBatch(estimate, se, lams, q, method, df)
