"""The pair-level design: the same number of human judgments in every query, stratified by
the machine's grade, and an estimator of nDCG@K and AP that stays valid.

The query design (:mod:`poolkit.score.ppi`) sends people to n whole queries; its interval
carries the spread *between* queries. The pair design spreads the same effort over all N
queries: in each query q, the population is U_q, the pairs the machine graded (a pair only
the truth graded is its own stratum, machine grade -1), split into strata g by the machine's
grade (N_g pairs); a budget of B_q human judgments is allocated to the strata in proportion
to N_g (at least min(2, N_g) each, so every stratum's variance can be estimated; largest
remainder) and n_g pairs are drawn without replacement in each stratum (stratified SRSWOR,
inclusion probability pi_g = n_g / N_g, weight w_g = 1 / pi_g). The target is the mean over
the N queries of the truth's per-query value, exactly as ``poolkit score`` computes it.

**Estimator, per query.** Both measures are a ratio of statistics of the true grades y_d,
each estimated without bias by a stratified difference estimator that uses the machine's
grade m_d as its prediction (the machine's value plus the weighted human-minus-machine
corrections of the drawn pairs):

* nDCG@K = DCG@K / IDCG@K. DCG = sum_d a_d gain(y_d) (a_d the discount of d's rank in the
  run's top K, else 0): DCG^ = sum_U a_d gain(m_d) + sum_s w_d a_d (gain(y_d) - gain(m_d)).
  IDCG depends on the counts c_j of each positive grade j: c^_j = sum_s w_d [y_d = j]
  (unbiased; the machine prediction cancels within a stratum of constant m), and IDCG^ is the
  ideal DCG of those counts, a fractional count filling a fraction of a rank (equal to the
  ideal DCG at integer counts).
* AP = S / R with r_d = [y_d >= level]: R^ = sum_s w_d r_d, and the numerator
  S = sum_i r_i / rank_i * (1 + sum_{j ranked above i} r_j) is quadratic in r. With
  r^_d = rm_d + w_d I_d (r_d - rm_d) (rm the machine's relevance, I_d 1 when drawn), every
  linear term is unbiased and a product r^_i r^_j of two pairs of the same stratum is
  unbiased once its correction part e^_i e^_j is divided by
  kappa_g = pi_ij / (pi_i pi_j) = N_g (n_g - 1) / ((N_g - 1) n_g) (SRSWOR's joint inclusion);
  so S^ is exactly unbiased for S.

theta^_q = num^ / den^ (0 when den^ = 0). A ratio of unbiased estimates is not unbiased: its
bias is of order 1 / n_q (the relative variance of den^), measured in the replay. With the
machine equal to the truth every correction is 0 and theta^_q is the truth exactly,
whatever was drawn (a property test).

**Variance.** Linearisation (Taylor, as for survey ratio estimators): theta^_q - theta_q ~
sum_d (W_d - 1) z_d, where W_d is w_d on drawn pairs and 0 elsewhere and z_d is the pair's
influence: for nDCG, z_d = (a_d (gain(y_d) - gain(m_d)) - theta sum_j dIDCG/dc_j ([y_d = j]
- [m_d = j])) / IDCG (dIDCG/dc_j a central difference of one pair); for AP,
z_d = (dS/dr_d - theta) (r_d - rm_d) / R with dS/dr_d = (1 + sum_{j above d} r_j) / rank_d +
sum_{i below d} r_i / rank_i (0 for a pair the run does not rank). Every quantity is taken
at its estimate. The stratified SRSWOR variance of that sum is

    V_q = sum_g N_g^2 (1 - f_g) s_g^2(z) / n_g      (f_g = n_g / N_g, s_g^2 over the drawn, ddof 1)

Queries are drawn independently, so the mean over the N queries has variance
sum_q V_q / N^2 and the interval is estimate +- z_{0.975} se (thousands of judgments: the
normal quantile). A difference between two runs uses the per-query differences of their
estimates and of their influences (the same pairs were drawn for both), so its variance
accounts for the pairing. There is no between-query term: every query is in the sample,
and the target is the mean over these N queries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from poolkit.errors import PoolkitError
from poolkit.score.facts import discounts
from poolkit.score.measures import Measure
from poolkit.score.ppi import CONFIDENCE, normal_ppf

#: the families the pair design estimates (their per-query value is a ratio it can linearise)
PAIR_FAMILIES = ("nDCG", "AP")
UNLABELLED = -1  # the stratum of pairs the truth graded and the machine did not


def check_measure(measure: Measure) -> None:
    """Refuse a measure the pair design has no estimator for, naming those it has."""
    if (measure.family not in PAIR_FAMILIES or measure.gain != "linear"
            or measure.judged_only or measure.rel is not None
            or (measure.family == "AP" and measure.cutoff is not None)):
        raise PoolkitError(f"-m {measure.name}: the pair design estimates nDCG@K (linear "
                           f"gain) and AP only")


@dataclass(frozen=True)
class QueryPool:
    """One query's population of pairs: true and machine grades, each run's ranks."""

    truth: np.ndarray  # int grade per pair (0 when the truth did not grade it)
    machine: np.ndarray  # int grade per pair (UNLABELLED when the machine did not)
    #: run -> 0-based rank of each pair's first occurrence in the run (-1: not ranked)
    ranks: Mapping[str, np.ndarray]

    @classmethod
    def of(cls, truth: Mapping[str, int], machine: Mapping[str, int],
           rankings: Mapping[str, Sequence[str]]) -> QueryPool:
        docs = list(dict.fromkeys([*machine, *truth]))
        index = {d: i for i, d in enumerate(docs)}
        ranks = {}
        for name, ranking in rankings.items():
            r = np.full(len(docs), -1, dtype=np.int64)
            for p, d in enumerate(ranking):
                i = index.get(d)
                if i is not None and r[i] < 0:
                    r[i] = p
            ranks[name] = r
        return cls(np.array([truth.get(d, 0) for d in docs], dtype=np.int64),
                   np.array([machine.get(d, UNLABELLED) for d in docs], dtype=np.int64),
                   ranks)

    @property
    def size(self) -> int:
        return int(self.truth.size)


def allocate(sizes: Sequence[int], budget: int) -> list[int]:
    """Stratum sample sizes: at least min(2, N_g), the rest in proportion to N_g by largest
    remainder; all of a query when the budget reaches its size."""
    total = sum(sizes)
    if budget >= total:
        return list(sizes)
    base = [min(2, s) for s in sizes]
    left = budget - sum(base)
    if left <= 0:
        return base
    room = [s - b for s, b in zip(sizes, base)]
    share = [left * r / sum(room) for r in room]
    out = [b + int(math.floor(x)) for b, x in zip(base, share)]
    order = sorted(range(len(sizes)), key=lambda i: -(share[i] - math.floor(share[i])))
    for i in order[:budget - sum(out)]:
        out[i] += 1
    return out


@dataclass(frozen=True)
class Draw:
    """One query's stratified draw for S seeds at once."""

    strata: np.ndarray  # stratum (machine grade) of each pair
    #: per stratum: (grade, N_g, n_g)
    sizes: tuple[tuple[int, int, int], ...]
    weights: np.ndarray  # (S, M): w_g on drawn pairs, 0 elsewhere

    @property
    def judged(self) -> int:
        return sum(n for _, _, n in self.sizes)


def draw(pool: QueryPool, budget: int, seeds: int, rng: np.random.Generator) -> Draw:
    """Draw ``budget`` pairs of ``pool`` (stratified by machine grade) for each of ``seeds``."""
    grades = sorted(set(pool.machine.tolist()))
    members = [np.flatnonzero(pool.machine == g) for g in grades]
    take = allocate([m.size for m in members], budget)
    weights = np.zeros((seeds, pool.size))
    for idx, n in zip(members, take):
        if n == 0:
            continue
        picked = np.argsort(rng.random((seeds, idx.size)), axis=1)[:, :n]
        rows = np.repeat(np.arange(seeds), n)
        weights[rows, idx[picked].ravel()] = idx.size / n
    return Draw(pool.machine, tuple((g, m.size, n) for g, m, n in zip(grades, members, take)),
                weights)


@dataclass(frozen=True)
class QueryEstimate:
    """One run's estimate in one query for every seed, and each pair's influence."""

    value: np.ndarray  # (S,)
    influence: np.ndarray  # (S, M)


def _ideal(counts: np.ndarray, gains: np.ndarray, k: int) -> np.ndarray:
    """Ideal DCG@k of (fractional) counts per grade (columns, best grade first)."""
    disc = np.asarray(discounts(k)[:k])
    cum = np.concatenate([[0.0], np.cumsum(disc)])

    def filled(x: np.ndarray) -> np.ndarray:  # the discount mass of the first x ranks
        x = np.clip(x, 0.0, k)
        whole = np.minimum(np.floor(x).astype(np.int64), k - 1)
        return np.where(x >= k, cum[k], cum[whole] + (x - whole) * disc[whole])

    bounds = np.cumsum(counts, axis=-1)
    lower = np.concatenate([np.zeros_like(bounds[..., :1]), bounds[..., :-1]], axis=-1)
    return np.sum(gains * (filled(bounds) - filled(lower)), axis=-1)  # type: ignore[no-any-return]


def ndcg(pool: QueryPool, run: str, k: int | None, d: Draw) -> QueryEstimate:
    """nDCG@k's ratio estimate and influences (module docstring)."""
    y, m, W = pool.truth, pool.machine, d.weights
    r = pool.ranks[run]
    k = k or max(pool.size, int(r.max(initial=-1)) + 1, 1)
    ranked = (r >= 0) & (r < k)
    a = np.zeros(pool.size)
    a[ranked] = np.asarray(discounts(k))[r[ranked]]
    gy, gm = np.maximum(y, 0).astype(float), np.maximum(m, 0).astype(float)
    dcg = float(a @ gm) + W @ (a * (gy - gm))
    levels = np.array(sorted({int(g) for g in y if g > 0}, reverse=True), dtype=np.int64)
    if levels.size == 0:
        return QueryEstimate(np.zeros(W.shape[0]), np.zeros_like(W))
    onehot = (y[:, None] == levels[None, :]).astype(float)  # (M, J)
    counts = W @ onehot  # (S, J)
    gains = levels.astype(float)
    idcg = _ideal(counts, gains, k)
    safe = np.where(idcg > 0, idcg, 1.0)
    value = np.where(idcg > 0, dcg / safe, 0.0)
    step = np.eye(levels.size) * 0.5
    slope = np.stack([_ideal(counts + s, gains, k) - _ideal(counts - s, gains, k)
                      for s in step], axis=-1)  # (S, J)
    mh = (m[:, None] == levels[None, :]).astype(float)
    moved = slope @ (onehot - mh).T  # (S, M)
    influence = (a * (gy - gm) - value[:, None] * moved) / safe[:, None]
    return QueryEstimate(value, np.where(idcg[:, None] > 0, influence, 0.0))


def ap(pool: QueryPool, run: str, level: int, d: Draw) -> QueryEstimate:
    """AP's ratio estimate (numerator exactly unbiased) and influences (module docstring)."""
    W = d.weights
    rel = (pool.truth >= level).astype(float)
    rm = (pool.machine >= level).astype(float)
    e = rel - rm
    e_hat = W * e  # (S, M)
    r_hat = rm + e_hat
    r = pool.ranks[run]
    order = np.flatnonzero(r >= 0)
    order = order[np.argsort(r[order])]
    inv = 1.0 / (r[order] + 1.0)
    ro = r_hat[:, order]
    above = np.cumsum(ro, axis=1) - ro
    num = (ro * inv * (1.0 + above)).sum(axis=1)
    for g, size, n in d.sizes:
        if n < 2 or n == size:
            continue
        kappa = size * (n - 1) / ((size - 1) * n)
        eg = np.where(d.strata[order] == g, e_hat[:, order], 0.0)
        num += (1.0 / kappa - 1.0) * (eg * inv * (np.cumsum(eg, axis=1) - eg)).sum(axis=1)
    den = W @ rel  # R^ = sum_s w r: exactly 0 when no relevant pair was drawn
    safe = np.where(den > 0, den, 1.0)
    value = np.where(den > 0, num / safe, 0.0)
    below = np.cumsum((ro * inv)[:, ::-1], axis=1)[:, ::-1] - ro * inv
    dsdr = np.zeros_like(W)
    dsdr[:, order] = inv * (1.0 + above) + below
    influence = (dsdr - value[:, None]) * e / safe[:, None]
    return QueryEstimate(value, np.where(den[:, None] > 0, influence, 0.0))


def estimate_query(measure: Measure, pool: QueryPool, run: str, d: Draw,
                   level: int) -> QueryEstimate:
    """The pair design's estimate of ``measure`` for ``run`` in one query."""
    check_measure(measure)
    if measure.family == "nDCG":
        return ndcg(pool, run, measure.cutoff, d)
    return ap(pool, run, level, d)


def query_variance(influence: np.ndarray, d: Draw) -> np.ndarray:
    """V_q: the stratified SRSWOR variance of sum_s w z (module docstring), per seed."""
    drawn = d.weights > 0
    total = np.zeros(influence.shape[0])
    for g, size, n in d.sizes:
        if n < 2 or n == size:
            continue
        z = np.where(drawn & (d.strata == g), influence, 0.0)
        s1, s2 = z.sum(axis=1), (z * z).sum(axis=1)
        var = np.maximum(s2 - s1 * s1 / n, 0.0) / (n - 1)
        total += size * size * (1.0 - n / size) * var / n
    return total


@dataclass(frozen=True)
class PairInterval:
    """Mean over queries, per seed: estimates, standard errors and 95% intervals."""

    estimate: np.ndarray
    se: np.ndarray
    confidence: float = CONFIDENCE

    @property
    def half(self) -> np.ndarray:
        return normal_ppf(1.0 - (1.0 - self.confidence) / 2.0) * self.se  # type: ignore[no-any-return]

    @property
    def low(self) -> np.ndarray:
        return self.estimate - self.half  # type: ignore[no-any-return]

    @property
    def high(self) -> np.ndarray:
        return self.estimate + self.half  # type: ignore[no-any-return]


def combine(parts: Sequence[tuple[QueryEstimate, Draw]],
            minus: Sequence[QueryEstimate] | None = None) -> PairInterval:
    """The mean over queries of one run's estimates (``parts``: one per query), or of the
    difference with another run's (``minus``, same queries and draws), with its interval."""
    values, variance = [], []
    for i, (est, d) in enumerate(parts):
        value, influence = est.value, est.influence
        if minus is not None:
            value, influence = value - minus[i].value, influence - minus[i].influence
        values.append(value)
        variance.append(query_variance(influence, d))
    n = len(parts)
    return PairInterval(np.mean(values, axis=0), np.sqrt(np.sum(variance, axis=0)) / n)
