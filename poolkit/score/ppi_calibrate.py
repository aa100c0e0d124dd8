"""A better predictor for PPI: the machine's grades recalibrated to the people's, cross-fitted.

PPI++ (:mod:`poolkit.score.ppi`) corrects the machine's per-query metric m_q with the people's
h_q; its interval narrows with the correlation of the two over queries. A judge whose grades
mean something else than the people's (FLAN-T5 on TREC DL 2019 gives grade 1 to 1,013 of the
1,804 pairs NIST graded 2, and grade 2 to hardly any) predicts h_q poorly through its raw
grades, although its grades carry the information. ``calibrate`` maps each machine grade g to
what the people's grade is worth where the machine said g, learnt from the pairs both graded
on the human queries:

* AP at level L: p_g = P(human grade >= L | machine grade g), the share of relevant pairs
  among the pairs the machine graded g;
* nDCG@K (linear gain): e_g = E(human grade | machine grade g), the mean human gain.

A grade the fitting queries never show keeps its own value (p_g = [g >= L], e_g = g), so a
machine equal to the people is fitted to itself. The query's predicted metric is then the
metric of soft labels, each judged pair d at its table value t_{g(d)}:

* AP^ = sum_i t_i / rank_i * (1 + sum_{j ranked above i} t_j) / sum_{d judged} t_d: the
  expected numerator under independent relevance (r_i^2 = r_i) over the expected |Rel|;
* nDCG^@K = sum_{rank i <= K} e_i / log2(i + 1) over the ideal DCG@K of the query's
  expected gains (its judged pairs sorted by e).

With the table at the identity both are exactly ``score``'s values (a test), so the
recalibrated predictor is the raw one whenever the people agree with the machine's scale.

**Validity by cross-fitting** (cross-prediction-powered inference, Zrnic and Candès,
"Cross-prediction-powered inference", PNAS 121(15), 2024). A predictor fitted on the human
queries and then used on them would make h - lam m small by construction and the interval
falsely narrow. So, with the human queries S (n of the N, a uniform draw):

* on a human query i the predictor is f_{-i}, fitted on the other n - 1 human queries
  (leave-one-out, cross-PPI's K = n folds);
* on every other query j it is the mean of the n fold fits, (1/n) sum_i f_{-i}(x_j), as
  cross-PPI averages its fold models on the unlabelled data.

The estimator is :func:`poolkit.score.ppi.ppi_mean` with these values as the machine's::

    theta(lam) = lam * mean_N(m~_j) + mean_n(h_i - lam * m~_i),   m~_i = f_{-i}(x_i) on S

(m~ on the human queries inside mean_N is their fold value). It is unbiased for the mean of
h over the N queries for every fixed lam: for a uniform S, the pair (training set S \\ {i},
query i) and the pair (S \\ {i}, unlabelled j) are both a uniform (n - 1)-subset and a
uniform query outside it, so every m~ has the same expectation whether its query is human
or not, and E theta(lam) = lam E m~ + E mean_n(h) - lam E m~ = mean_N(h). Its variance is
estimated as PPI++'s with m~ in place of m (cross-PPI's variance with the averaged
predictions on the unlabelled queries; the fold fits' own variability is of smaller order
when the fit is stable, and here a fit is a handful of grade means over hundreds of pairs);
lam is tuned as PPI++ tunes it. With inclusion probabilities other than uniform the
exchangeability argument does not hold and the estimate may carry a small bias.

A pair both label sets graded enters the fit; one only the machine graded is not used for
fitting (its human value is unknown, not "not relevant"); a negative machine grade is
fitted as grade 0. The fit pools every pair of the fitting queries, so a query with many
judged pairs weighs more, as it does in the confusion matrix ``agreement`` shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from poolkit.score.facts import QueryFacts, discounts
from poolkit.score.measures import Measure


def check_measure(measure: Measure) -> None:
    """Refuse a measure with no soft-label form (the pair design's set: nDCG@K, AP)."""
    from poolkit.score.ppi_pairs import check_measure as check

    check(measure, "--calibrate recalibrates")


@dataclass(frozen=True)
class SoftMetric:
    """One measure's value under soft labels for R runs x N queries, as polynomials in the
    table t (one value per machine grade 0..G-1): what :meth:`values` needs, built once."""

    family: str
    level: int
    cutoff: int | None
    #: R x N x G: the linear coefficients (AP: sum 1/rank; nDCG: the top K's discounts)
    linear: np.ndarray
    #: R x N x G x G: AP's quadratic coefficients (sum over i below j of 1/rank_i), else None
    quadratic: np.ndarray | None
    #: N x G: the query's pairs the machine graded g (AP's |Rel|, nDCG's ideal ranking)
    counts: np.ndarray

    @classmethod
    def of(cls, measure: Measure, rankings: Sequence[Mapping[str, Sequence[str]]],
           machine: Mapping[str, Mapping[str, int]], queries: Sequence[str],
           level: int, grades: int) -> SoftMetric:
        """The coefficients of ``measure`` for each run's rankings (one mapping per run) on
        ``queries``, machine grades 0..``grades``-1."""
        check_measure(measure)
        ap = measure.family == "AP"
        R, N, G = len(rankings), len(queries), grades
        linear = np.zeros((R, N, G))
        quadratic = np.zeros((R, N, G, G)) if ap else None
        counts = np.zeros((N, G))
        for qi, q in enumerate(queries):
            graded = machine.get(q, {})
            for g in graded.values():
                counts[qi, max(g, 0)] += 1
            for ri, run in enumerate(rankings):
                ranking = run.get(q, [])
                cut = len(ranking) if measure.cutoff is None else measure.cutoff
                disc = discounts(cut)
                above = np.zeros(G)
                for p, g, first in QueryFacts(ranking, graded).slots:
                    if not first:
                        continue
                    g = max(g, 0)
                    if not ap:
                        if p >= cut:
                            break
                        linear[ri, qi, g] += disc[p]
                        continue
                    linear[ri, qi, g] += 1.0 / (p + 1)
                    assert quadratic is not None
                    quadratic[ri, qi, g] += above / (p + 1)
                    above[g] += 1
        return cls(measure.family, level, measure.cutoff, linear, quadratic, counts)

    def identity(self) -> np.ndarray:
        """The table that reads the machine's grades as they are (``score``'s values)."""
        g = np.arange(self.counts.shape[1], dtype=float)
        return (g >= self.level).astype(float) if self.family == "AP" else g

    def target(self, grade: int) -> float:
        """What a human grade is worth in the table: AP's relevance, nDCG's gain."""
        if self.family == "AP":
            return float(grade >= self.level)
        return float(max(grade, 0))

    def values(self, tables: np.ndarray) -> np.ndarray:
        """The metric for F tables (F x G): F x R x N."""
        t = np.asarray(tables, dtype=float)
        num = np.einsum("rqg,fg->frq", self.linear, t)
        if self.quadratic is not None:
            num += np.einsum("rqgh,fg,fh->frq", self.quadratic, t, t)
            den = np.einsum("qg,fg->fq", self.counts, t)
        else:
            den = self._ideal(t)
        ok = den > 0
        return np.where(ok[:, None, :], num / np.where(ok, den, 1.0)[:, None, :], 0.0)

    def _ideal(self, t: np.ndarray) -> np.ndarray:
        """F x N ideal DCG@K: each query's judged pairs sorted by their expected gain."""
        k = int(self.cutoff or self.counts.sum(axis=1).max())
        cum = np.concatenate([[0.0], np.cumsum(discounts(k)[:k])])
        order = np.argsort(-t, axis=1, kind="stable")  # F x G, best grade first
        gains = np.take_along_axis(t, order, axis=1)  # F x G
        counts = self.counts[:, order].transpose(1, 0, 2)  # F x N x G
        end = np.minimum(np.cumsum(counts, axis=2), k).astype(int)
        start = np.concatenate([np.zeros_like(end[..., :1]), end[..., :-1]], axis=2)
        filled = cum[end] - cum[start]
        return np.einsum("fng,fg->fn", filled, np.maximum(gains, 0.0))


@dataclass(frozen=True)
class Calibration:
    """The pairs both label sets graded, per query and machine grade: how many, and the sum
    of the human grades' worth (:meth:`SoftMetric.target`)."""

    pairs: np.ndarray  # N x G
    worth: np.ndarray  # N x G

    @classmethod
    def of(cls, soft: SoftMetric, human: Mapping[str, Mapping[str, int]],
           machine: Mapping[str, Mapping[str, int]], queries: Sequence[str]) -> Calibration:
        N, G = soft.counts.shape
        pairs, worth = np.zeros((N, G)), np.zeros((N, G))
        for qi, q in enumerate(queries):
            graded = machine.get(q, {})
            for d, h in human.get(q, {}).items():
                g = graded.get(d)
                if g is not None:
                    pairs[qi, max(g, 0)] += 1
                    worth[qi, max(g, 0)] += soft.target(h)
        return cls(pairs, worth)

    def cross_fit(self, soft: SoftMetric, sample: Sequence[int] | np.ndarray) -> np.ndarray:
        """R x N predicted values for the human queries ``sample`` (indices): on each its
        leave-one-out fit, elsewhere the mean of the n fold fits (module docstring)."""
        idx = np.asarray(sample, dtype=int)
        fold_pairs = self.pairs[idx].sum(axis=0) - self.pairs[idx]  # n x G
        fold_worth = self.worth[idx].sum(axis=0) - self.worth[idx]
        tables = np.where(fold_pairs > 0, fold_worth / np.maximum(fold_pairs, 1.0),
                          soft.identity())
        fits = soft.values(tables)  # n x R x N
        out = fits.mean(axis=0)
        out[:, idx] = fits[np.arange(idx.size), :, idx].T
        return out  # type: ignore[no-any-return]


def calibrated(measure: Measure, rankings: Sequence[Mapping[str, Sequence[str]]],
               machine: Mapping[str, Mapping[str, int]], human: Mapping[str, Mapping[str, int]],
               queries: Sequence[str], level: int) -> tuple[SoftMetric, Calibration]:
    """The soft metric and the calibration pairs of ``measure`` on ``queries`` (the one
    path of ``estimate --calibrate`` and ``ppi-replay --calibrate``); then
    ``calibration.cross_fit(soft, human_query_indices)`` is the machine's value per run and
    query."""
    top = max((g for q in queries for g in machine.get(q, {}).values()), default=0)
    soft = SoftMetric.of(measure, rankings, machine, queries, level, max(top, 0) + 1)
    return soft, Calibration.of(soft, human, machine, queries)
