"""The pair-level design: the same number of human judgments in every query, stratified by
the machine's grade, and an estimator of nDCG@K and AP that stays valid.

The query design (:mod:`poolkit.score.ppi`) sends people to n whole queries; its interval
carries the spread *between* queries. The pair design spreads the same effort over all N
queries: in each query q, the population is U_q, the pairs the machine graded (a pair only
the truth graded is its own stratum, machine grade -1). Strata are the machine's grade, each
split in two: pairs some run ranks in its top :data:`TOP` (10) and the rest. A budget of B_q
human judgments is allocated to the strata in proportion to N_g (pairs in the stratum) times
a rate, :data:`BOOST` (4) for the top strata and 1 for the rest, at least min(2, N_g) each
(so every stratum's variance can be estimated), no stratum above its size, largest
remainder; n_g pairs are drawn without replacement in each stratum (stratified SRSWOR,
inclusion probability pi_g = n_g / N_g, weight w_g = N_g / n_g). The boost matters: without
it (strata by machine grade alone) the DL19 replay at n = 10 gave nDCG@10 widths of
0.44x human-only and a bias of 0.025; with it 0.15x and under 0.01. The target is the mean
over the N queries of the truth's per-query value, exactly as ``poolkit score`` computes it.

**Estimator, per query.** Both measures are a ratio of statistics of the true grades y_d,
each estimated without bias by a stratified difference estimator that uses the machine's
grade m_d as its prediction (the machine's value plus the weighted human-minus-machine
corrections of the drawn pairs):

* nDCG@K = DCG@K / IDCG@K. DCG = sum_d a_d gain(y_d) (a_d the discount of d's rank in the
  run's top K, else 0): DCG^ = sum_U a_d gain(m_d) + sum_s w_d a_d (gain(y_d) - gain(m_d)).
  IDCG depends on the counts c_j of each positive grade j: c^_j = sum_d [m_d = j] +
  sum_s w_d ([y_d = j] - [m_d = j]) (unbiased; within a stratum of constant m the machine's
  part cancels and it is sum_s w_d [y_d = j]; in strata of mixed grades it keeps the
  estimate exact when the machine is right), and IDCG^ is the
  ideal DCG of those counts, a fractional count filling a fraction of a rank (equal to the
  ideal DCG at integer counts).
* AP = S / R with r_d = [y_d >= level]: R^ = sum_d rm_d + sum_s w_d (r_d - rm_d) (= sum_s
  w_d r_d in strata of one machine grade), and the numerator
  S = sum_i r_i / rank_i * (1 + sum_{j ranked above i} r_j) is quadratic in r. With
  r^_d = rm_d + w_d I_d (r_d - rm_d) (rm the machine's relevance, I_d 1 when drawn), every
  linear term is unbiased and a product r^_i r^_j of two pairs of the same stratum is
  unbiased once its correction part e^_i e^_j is divided by
  kappa_g = pi_ij / (pi_i pi_j) = N_g (n_g - 1) / ((N_g - 1) n_g) (SRSWOR's joint inclusion);
  so S^ is exactly unbiased for S (a test enumerates every draw).

theta^_q = num^ / den^ (0 when den^ = 0). A ratio of unbiased estimates is not unbiased: its
bias is of order 1 / n_q, and for nDCG the ideal DCG is also a concave, kinked function of
the counts (it saturates once K pairs of the top grade exist), which adds to it. The bias has
the same sign in every query, so it does not average out over queries while the standard
error does: nDCG's estimate is therefore the stratified jackknife's bias-corrected
theta^_J = theta^ - sum_g (n_g - 1)(mean_{d in s_g} theta^_(d) - theta^), with theta^_(d) the
estimate with drawn pair d left out (the other weights of its stratum N_g / (n_g - 1)):
cheap, since DCG^ and the counts are sums. (On DL19, n = 10, 70B judge: bias +0.008 to
+0.011 and coverage 0.80-0.90 without it; -0.003 to -0.006 and 0.91-0.94 with it, 200
draws.) With the machine equal to the truth every correction and every replicate is the
truth: the estimate is exact whatever was drawn (a property test).

**Variance.** The stratified jackknife over the left-out replicates:

    V_q = sum_g (1 - f_g) (n_g - 1) / n_g  sum_{d in s_g} (theta^_(d) - mean_g theta^_(d))^2

(f_g = n_g / N_g; strata taken whole or drawn once contribute nothing.) For AP the
replicates are linearised (Taylor, as for survey ratio estimators): theta^_(d) = theta^ -
N_g (z_d - mean_g z) / (n_g - 1) with the influence z_d = (dS/dr_d - theta) (r_d - rm_d) / R,
dS/dr_d = (1 + sum_{j above d} r_j) / rank_d + sum_{i below d} r_i / rank_i (0 for a pair
the run does not rank), every quantity at its estimate; V_q is then exactly the linearised
stratified SRSWOR variance sum_g N_g^2 (1 - f_g) s_g^2(z) / n_g.

Queries are drawn independently, so the mean over the N queries has variance
sum_q V_q / N^2 and the interval is estimate +- z_{0.975} se (thousands of judgments: the
normal quantile). A difference between two runs uses the per-query differences of their
estimates and of their replicates (the same pairs were drawn for both), so its variance
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


def check_measure(measure: Measure, who: str = "the pair design estimates") -> None:
    """Refuse a measure the pair design (or ``who``) has no estimator for, naming those it
    has."""
    if (measure.family not in PAIR_FAMILIES or measure.gain != "linear"
            or measure.judged_only or measure.rel is not None
            or (measure.family == "AP" and measure.cutoff is not None)):
        raise PoolkitError(f"-m {measure.name}: {who} nDCG@K (linear gain) and AP only")


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


def allocate(sizes: Sequence[int], budget: int,
             rates: Sequence[float] | None = None, least: int = 2) -> list[int]:
    """Stratum sample sizes: at least min(``least``, N_g), the rest in proportion to N_g *
    rate_g (rates default 1) by largest remainder, no stratum above its size (what a full
    stratum cannot take goes to the others); all of a query when the budget reaches its
    size."""
    total = sum(sizes)
    if budget >= total:
        return list(sizes)
    take = [min(least, s) for s in sizes]
    rates = rates or [1.0] * len(sizes)
    while (left := budget - sum(take)) > 0:
        open_ = [i for i, s in enumerate(sizes) if take[i] < s]
        mass = sum(sizes[i] * rates[i] for i in open_)
        share = {i: left * sizes[i] * rates[i] / mass for i in open_}
        full = [i for i in open_ if take[i] + share[i] >= sizes[i]]
        if full:  # these take everything; spread the rest again
            for i in full:
                take[i] = sizes[i]
            continue
        floors = {i: int(math.floor(x)) for i, x in share.items()}
        order = sorted(open_, key=lambda i: -(share[i] - floors[i]))
        extra = set(order[:left - sum(floors.values())])
        for i in open_:
            take[i] += floors[i] + (i in extra)
    return take


#: pairs some run ranks in its top TOP form strata of their own, sampled BOOST times as
#: densely: nDCG@10's numerator and most of AP's weight sit there
TOP = 10
BOOST = 4.0


@dataclass(frozen=True)
class Draw:
    """One query's stratified draw for S seeds at once."""

    strata: np.ndarray  # stratum label of each pair (a refinement of the machine's grade)
    #: per stratum: (label, N_g, n_g)
    sizes: tuple[tuple[int, int, int], ...]
    weights: np.ndarray  # (S, M): w_g on drawn pairs, 0 elsewhere

    @property
    def judged(self) -> int:
        return sum(n for _, _, n in self.sizes)


def draw(pool: QueryPool, budget: int, seeds: int, rng: np.random.Generator) -> Draw:
    """Draw ``budget`` pairs of ``pool`` for each of ``seeds``: strata are the machine's
    grade, split by whether some run ranks the pair in its top :data:`TOP` (sampled
    :data:`BOOST` times as densely)."""
    ranked = np.stack(list(pool.ranks.values())) if pool.ranks else np.full((1, pool.size), -1)
    top = ((ranked >= 0) & (ranked < TOP)).any(axis=0)
    labels = (pool.machine - UNLABELLED) * 2 + top
    groups = sorted(set(labels.tolist()))
    members = [np.flatnonzero(labels == g) for g in groups]
    take = allocate([m.size for m in members], budget,
                    [BOOST if g % 2 else 1.0 for g in groups])
    weights = np.zeros((seeds, pool.size))
    for idx, n in zip(members, take):
        if n == 0:
            continue
        picked = np.argsort(rng.random((seeds, idx.size)), axis=1)[:, :n]
        rows = np.repeat(np.arange(seeds), n)
        weights[rows, idx[picked].ravel()] = idx.size / n
    return Draw(labels, tuple((g, m.size, n) for g, m, n in zip(groups, members, take)),
                weights)


@dataclass(frozen=True)
class QueryEstimate:
    """One run's estimate in one query for every seed, and its delete-one replicates."""

    value: np.ndarray  # (S,)
    #: (S, M): the estimate with each drawn pair left out (module docstring); undrawn: unused
    replicates: np.ndarray


@dataclass(frozen=True)
class Rounds:
    """Draws made one after another (each among the pairs not yet judged, its allocation
    free to depend on what the earlier ones found), combined with fixed coefficients that
    sum to 1 (:mod:`poolkit.score.ppi_designs` gives the argument). ``parts[k].weights``
    makes round k's own unbiased estimate (the pairs judged before it at weight 1); the
    estimate uses sum_k coefs[k] * parts[k].weights, and every round's jackknife counts
    its own draw only."""

    parts: tuple[Draw, ...]
    coefs: tuple[float, ...]

    @property
    def weights(self) -> np.ndarray:
        return sum((c * d.weights for d, c in zip(self.parts, self.coefs)),  # type: ignore[return-value]
                   np.zeros_like(self.parts[0].weights))

    @property
    def judged(self) -> int:
        """The pairs people judged over every round (the last round counts the earlier
        ones in its stratum taken whole)."""
        return self.parts[-1].judged


def phases(d: Draw | Rounds) -> list[tuple[Draw, float]]:
    """A design's rounds and their coefficients (a single draw: itself, 1)."""
    return list(zip(d.parts, d.coefs)) if isinstance(d, Rounds) else [(d, 1.0)]


def jackknifed(d: Draw) -> list[tuple[np.ndarray, int, int]]:
    """(mask of the drawn pairs, N_g, n_g) of every stratum the jackknife leaves pairs out
    of: drawn at least twice and not taken whole (a whole stratum is known, not estimated)."""
    drawn = d.weights > 0
    return [(drawn & (d.strata == g), size, n) for g, size, n in d.sizes if 2 <= n < size]


def _left_out(x: np.ndarray, d: Draw | Rounds) -> np.ndarray:
    """How sum_s w x changes when each drawn pair is left out of its stratum (the others'
    weights become N_g / (n_g - 1)): -N_g (x_d - mean_g x) / (n_g - 1), times its round's
    coefficient. ``x`` broadcasts to (S, M, ...); the result has that shape, 0 off the
    jackknifed strata."""
    shape = np.broadcast_shapes(x.shape, d.weights.shape + x.shape[2:])
    x = np.broadcast_to(x, shape)
    out = np.zeros(shape)
    for part, coef in phases(d):
        for mask, size, n in jackknifed(part):
            m = mask.reshape(mask.shape + (1,) * (len(shape) - 2))
            mean = np.where(m, x, 0.0).sum(axis=1, keepdims=True) / n
            out += np.where(m, -coef * size * (x - mean) / (n - 1), 0.0)
    return out


def _ideal(counts: np.ndarray, gains: np.ndarray, k: int) -> np.ndarray:
    """Ideal DCG@k of (fractional) counts per grade (last axis, best grade first)."""
    disc = np.asarray(discounts(k)[:k])
    cum = np.concatenate([[0.0], np.cumsum(disc)])

    def filled(x: np.ndarray) -> np.ndarray:  # the discount mass of the first x ranks
        x = np.clip(x, 0.0, k)
        whole = np.minimum(np.floor(x).astype(np.int64), k - 1)
        return np.where(x >= k, cum[k], cum[whole] + (x - whole) * disc[whole])

    bounds = np.cumsum(counts, axis=-1)
    lower = np.concatenate([np.zeros_like(bounds[..., :1]), bounds[..., :-1]], axis=-1)
    return np.sum(gains * (filled(bounds) - filled(lower)), axis=-1)  # type: ignore[no-any-return]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)  # type: ignore[no-any-return]


def ndcg(pool: QueryPool, run: str, k: int | None, d: Draw | Rounds) -> QueryEstimate:
    """nDCG@k: the jackknife-corrected ratio and its delete-one replicates (module
    docstring)."""
    y, m, W = pool.truth, pool.machine, d.weights
    r = pool.ranks[run]
    k = k or max(pool.size, int(r.max(initial=-1)) + 1, 1)
    ranked = (r >= 0) & (r < k)
    a = np.zeros(pool.size)
    a[ranked] = np.asarray(discounts(k))[r[ranked]]
    gy, gm = np.maximum(y, 0).astype(float), np.maximum(m, 0).astype(float)
    x = a * (gy - gm)
    dcg = float(a @ gm) + W @ x
    levels = np.array(sorted({int(g) for g in y if g > 0}, reverse=True), dtype=np.int64)
    if levels.size == 0:
        return QueryEstimate(np.zeros(W.shape[0]), np.zeros_like(W))
    # the grade counts as a difference estimate too: the machine's counts plus the weighted
    # corrections (in strata of one machine grade the same as the weighted human counts)
    onehot = ((y[:, None] == levels[None, :]).astype(float)
              - (m[:, None] == levels[None, :]).astype(float))  # (M, J)
    counts = (m[:, None] == levels[None, :]).sum(axis=0) + W @ onehot  # (S, J)
    gains = levels.astype(float)
    value = _ratio(dcg, _ideal(counts, gains, k))
    replicates = _ratio(dcg[:, None] + _left_out(x[None, :], d),
                        _ideal(counts[:, None, :] + _left_out(onehot[None], d), gains, k))
    return QueryEstimate(value - _jackknife_bias(value, replicates, d), replicates)


def _jackknife_bias(value: np.ndarray, replicates: np.ndarray, d: Draw | Rounds) -> np.ndarray:
    """The stratified jackknife's bias estimate sum_g (n_g - 1)(mean_g theta_(d) - theta),
    over every round's strata."""
    bias = np.zeros_like(value)
    for part, _coef in phases(d):
        for mask, _size, n in jackknifed(part):
            bias += (n - 1) * (np.where(mask, replicates, 0.0).sum(axis=1) / n - value)
    return bias


def ap(pool: QueryPool, run: str, level: int, d: Draw | Rounds) -> QueryEstimate:
    """AP's ratio estimate (numerator exactly unbiased) and the linearised replicates
    (module docstring)."""
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
    for part, coef in phases(d):  # a round's own pairs within one stratum: E w_i w_j = kappa
        for g, size, n in part.sizes:
            if n < 2 or n == size:
                continue
            kappa = size * (n - 1) / ((size - 1) * n)
            eg = np.where(part.strata[order] == g, coef * (part.weights * e)[:, order], 0.0)
            num += (1.0 / kappa - 1.0) * (eg * inv * (np.cumsum(eg, axis=1) - eg)).sum(axis=1)
    den = rm.sum() + W @ e  # R^, a difference estimate (= sum_s w r in strata of one grade)
    safe = np.where(den > 0, den, 1.0)
    value = _ratio(num, den)
    below = np.cumsum((ro * inv)[:, ::-1], axis=1)[:, ::-1] - ro * inv
    dsdr = np.zeros_like(W)
    dsdr[:, order] = inv * (1.0 + above) + below
    influence = np.where(den[:, None] > 0, (dsdr - value[:, None]) * e / safe[:, None], 0.0)
    return QueryEstimate(value, value[:, None] + _left_out(influence, d))


def estimate_query(measure: Measure, pool: QueryPool, run: str, d: Draw | Rounds,
                   level: int) -> QueryEstimate:
    """The pair design's estimate of ``measure`` for ``run`` in one query."""
    check_measure(measure)
    if measure.family == "nDCG":
        return ndcg(pool, run, measure.cutoff, d)
    return ap(pool, run, level, d)


def query_variance(replicates: np.ndarray, d: Draw | Rounds) -> np.ndarray:
    """V_q, the stratified jackknife variance sum_g (1 - f_g)(n_g - 1)/n_g
    sum_{d in s_g} (theta_(d) - mean_g theta_(d))^2, per seed (module docstring), summed
    over the rounds (their draws' errors are uncorrelated)."""
    total = np.zeros(replicates.shape[0])
    for part, _coef in phases(d):
        for mask, size, n in jackknifed(part):
            mean = np.where(mask, replicates, 0.0).sum(axis=1, keepdims=True) / n
            dev = np.where(mask, replicates - mean, 0.0)
            total += (1.0 - n / size) * (n - 1) / n * (dev * dev).sum(axis=1)
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


def combine(parts: Sequence[tuple[QueryEstimate, Draw | Rounds]],
            minus: Sequence[QueryEstimate] | None = None) -> PairInterval:
    """The mean over queries of one run's estimates (``parts``: one per query), or of the
    difference with another run's (``minus``, same queries and draws), with its interval."""
    values, variance = [], []
    for i, (est, d) in enumerate(parts):
        value, replicates = est.value, est.replicates
        if minus is not None:
            value, replicates = value - minus[i].value, replicates - minus[i].replicates
        values.append(value)
        variance.append(query_variance(replicates, d))
    n = len(parts)
    return PairInterval(np.mean(values, axis=0), np.sqrt(np.sum(variance, axis=0)) / n)
