"""Measures estimated from a sample of the pool: infAP, xinfAP, infNDCG, statAP, R_est, RBP.

A sampled pool judges some pooled ids and leaves the rest unjudged on purpose. Three kinds of
id meet a ranking then: *not pooled* (absent from the qrels and the sample; read as
non-relevant, as every pooled measure does), *pooled but unjudged* (grade -1 in the qrels, or
listed in the sample file without a judgment) and *judged*. The estimators weigh the judged
ids by how likely they were to be judged.

The sample design of one query is a :class:`PoolSample`: every pooled id's stratum and its
inclusion probability. Without one, the qrels are read as one uniform sample of the pool —
every listed id pooled, the judged ones (grade >= 0) a simple random sample of them — which is
exactly trec_eval's infAP assumption. Inside a stratum the estimators use the realised
judging rate ``n_s / N_s`` (judged / pooled): for a stratified simple random sample it equals
the design's probability, and it stays right when judging is unfinished (the sampled but not
yet judged ids are one more random subsample). statAP alone uses each id's own design
probability (its Horvitz-Thompson weights), falling back to the realised rate.

Sources: infAP (Yilmaz and Aslam, CIKM 2006), xinfAP and infNDCG (Yilmaz, Kanoulas and
Aslam, SIGIR 2008), statAP (Aslam, Pavlu and Yilmaz, SIGIR 2006), RBP and its residual (Moffat
and Zobel, TOIS 2008). Every estimator equals its complete-judgment measure when every pooled
id is judged (the property tests say so): infAP = xinfAP = statAP = AP, infNDCG = nDCG.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from poolkit.io.sample import PoolSample

__all__ = ["PoolSample", "RelEstimate", "drawn_labels", "estimate_relevant", "inferred_ap",
           "inferred_ndcg", "rbp", "stat_ap"]

#: Smoothing of the precision ratio above a rank when no id above it was judged (the papers'
#: epsilon: an unjudged-only prefix contributes precision ~1/2, not 0/0).
EPSILON = 1e-5
#: Stratum of pooled ids that a sample file does not list (judged outside the design).
OUTSIDE = "~outside"
UNIFORM = "pool"
Z95 = 1.959963984540054


def drawn_labels(grades: Mapping[str, int], sample: PoolSample | None) -> Mapping[str, int]:
    """The labels an estimate may read: those on pairs the design drew.

    A label on a pair the design did not draw (an import, a judgment outside the sample) was
    not chosen at random, so counting it as one more judged pair of its stratum would bias
    every estimate toward whatever made someone label it; it is left out (the score report
    says how many). Without a design, or one that does not say what it drew, every label.
    """
    if sample is None or sample.drawn is None:
        return grades
    drawn = sample.drawn
    return {d: g for d, g in grades.items() if drawn.get(d, 0) > 0}


class Design:
    """A query's design resolved against its grades: strata sizes, judged counts, rates.

    ``stratum[d]`` is known for every pooled id; ``pooled[s]`` (N_s) and ``judged[s]`` (n_s)
    count ids per stratum; ``rate(s)`` is n_s / N_s.
    """

    __slots__ = ("stratum", "inclusion", "pooled", "judged")

    def __init__(self, grades: Mapping[str, int], sample: PoolSample | None) -> None:
        stratum: dict[str, str]
        if sample is None:
            stratum = dict.fromkeys(grades, UNIFORM)
            inclusion: Mapping[str, float] = {}
        else:
            stratum = dict(sample.strata)
            for d in grades:
                stratum.setdefault(d, OUTSIDE)
            inclusion = sample.inclusion
        pooled: dict[str, int] = {}
        judged: dict[str, int] = {}
        for d, s in stratum.items():
            pooled[s] = pooled.get(s, 0) + 1
            if grades.get(d, -1) >= 0:
                judged[s] = judged.get(s, 0) + 1
        self.stratum = stratum
        self.inclusion = inclusion
        self.pooled = pooled
        self.judged = judged

    def rate(self, s: str) -> float:
        """Realised judging rate of stratum ``s`` (0 when nothing in it was judged)."""
        return self.judged.get(s, 0) / self.pooled[s]

    def prob(self, d: str) -> float:
        """The design's inclusion probability of a judged id ``d`` (statAP's weight)."""
        p = self.inclusion.get(d)
        return p if p else self.rate(self.stratum[d])

    def relevant_by_stratum(self, grades: Mapping[str, int], level: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for d, g in grades.items():
            if g >= level and g >= 0:
                s = self.stratum[d]
                out[s] = out.get(s, 0) + 1
        return out


def _first_occurrences(ranking: Sequence[str]) -> Iterator[tuple[int, str]]:
    """(0-based position, id) of each id's first occurrence; a repeat's slot is skipped."""
    seen: set[str] = set()
    for i, d in enumerate(ranking):
        if d not in seen:
            seen.add(d)
            yield i, d


@dataclass(frozen=True)
class RelEstimate:
    """Estimated |Rel| of one query with its 95% interval, and what it rests on."""

    value: float
    low: float
    high: float
    judged_relevant: int
    judged: int
    pooled: int

    @property
    def exact(self) -> bool:
        """True when every pooled id is judged: the estimate is the count, zero width."""
        return self.judged == self.pooled


def estimate_relevant(grades: Mapping[str, int], sample: PoolSample | None = None,
                      level: int = 1) -> RelEstimate:
    """R_est: the stratified estimate of |Rel| with a 95% normal interval.

    R_est = sum over strata of N_s * r_s / n_s (r_s judged relevant, n_s judged, N_s pooled);
    its variance is the stratified simple-random-sampling one, sum N_s^2 (1 - n_s/N_s) S_s^2 /
    n_s with S_s^2 = r_s (n_s - r_s) / (n_s (n_s - 1)); a stratum with a single judgment takes
    the largest Bernoulli variance (1/4), and one with none adds nothing to the estimate and
    all its pooled ids to the upper end. The interval is clipped to what is certain: at least
    the judged relevant ids, at most those plus every unjudged pooled id.
    """
    grades = drawn_labels(grades, sample)
    design = Design(grades, sample)
    rel = design.relevant_by_stratum(grades, level)
    value = var = 0.0
    unknown = 0
    for s, big_n in design.pooled.items():
        n = design.judged.get(s, 0)
        if n == 0:
            unknown += big_n
            continue
        r = rel.get(s, 0)
        value += big_n * r / n
        if n < big_n:
            s2 = r * (n - r) / (n * (n - 1)) if n > 1 else 0.25
            var += big_n * big_n * (1 - n / big_n) * s2 / n
    judged_rel = sum(rel.values())
    judged = sum(design.judged.values())
    pooled = sum(design.pooled.values())
    half = Z95 * math.sqrt(var)
    low = max(float(judged_rel), value - half)
    high = min(float(judged_rel + pooled - judged), value + half + unknown)
    return RelEstimate(value, low, max(low, high), judged_rel, judged, pooled)


def inferred_ap(ranking: Sequence[str], grades: Mapping[str, int], level: int = 1,
                sample: PoolSample | None = None) -> float:
    """xinfAP (infAP with one uniform stratum): estimated AP from a stratified pool sample.

    For a judged relevant id at rank k the expected precision is 1/k + sum over strata s of
    (pooled ids of s above k) / k * (r_s + eps) / (n_s + 2 eps), r_s and n_s the relevant and
    judged ids of s above k; rank 1 has precision 1. Each is weighted by 1 / (judging rate of
    its stratum) and the sum divided by R_est. With one stratum this is infAP: the mean
    expected precision over the judged relevant ids.
    """
    grades = drawn_labels(grades, sample)
    design = Design(grades, sample)
    stratum = design.stratum
    pooled_above: dict[str, int] = {}
    judged_above: dict[str, int] = {}
    rel_above: dict[str, int] = {}
    total = 0.0
    for i, d in _first_occurrences(ranking):
        s = stratum.get(d)
        if s is None:  # not pooled: a non-relevant slot
            continue
        g = grades.get(d, -1)
        if g >= level and g >= 0:
            k = i + 1
            if k == 1:
                expected = 1.0
            else:
                expected = 1.0 / k
                for t, above in pooled_above.items():
                    expected += (above / k) * (rel_above.get(t, 0) + EPSILON) / (
                        judged_above.get(t, 0) + 2 * EPSILON)
            total += expected / design.rate(s)
        pooled_above[s] = pooled_above.get(s, 0) + 1
        if g >= 0:
            judged_above[s] = judged_above.get(s, 0) + 1
            if g >= level:
                rel_above[s] = rel_above.get(s, 0) + 1
    r_est = estimate_relevant(grades, sample, level).value
    return total / r_est if r_est else 0.0


def stat_ap(ranking: Sequence[str], grades: Mapping[str, int], level: int = 1,
            sample: PoolSample | None = None) -> float:
    """statAP: AP by Horvitz-Thompson weights 1/pi of the judged ids (Aslam et al. 2006).

    R_hat = sum of 1/pi over the judged relevant ids; the precision at a judged relevant id at
    rank k is (1 + sum of 1/pi over the judged relevant ids above it) / k (the id itself is
    known to be sampled); statAP = sum of precision/pi over those ids, / R_hat.
    """
    grades = drawn_labels(grades, sample)
    design = Design(grades, sample)
    r_hat = sum(1.0 / design.prob(d) for d, g in grades.items() if g >= level and g >= 0)
    if not r_hat:
        return 0.0
    stratum = design.stratum
    total = above = 0.0
    for i, d in _first_occurrences(ranking):
        g = grades.get(d, -1)
        if g >= level and g >= 0 and d in stratum:
            w = 1.0 / design.prob(d)
            total += w * (1.0 + above) / (i + 1)
            above += w
    return total / r_hat


def inferred_ndcg(ranking: Sequence[str], grades: Mapping[str, int], k: int | None,
                  gain: Mapping[int, float] | None = None,
                  sample: PoolSample | None = None) -> float:
    """infNDCG@K: estimated DCG@K over estimated ideal DCG@K (Yilmaz et al. 2008).

    DCG is estimated by weighting each judged id in the top K by 1 / (its stratum's judging
    rate); the ideal ranking is built from the estimated number of ids at each grade, sum over
    strata of N_s * (judged ids of that grade in s) / n_s, rounded to the nearest integer.
    Gain = grade unless ``gain`` maps grades to gains; negative grades gain 0.
    """
    grades = drawn_labels(grades, sample)
    design = Design(grades, sample)
    stratum = design.stratum

    def gain_of(g: int) -> float:
        if g <= 0:
            return 0.0
        return float(g) if gain is None else gain[g]

    dcg = 0.0
    for i, d in _first_occurrences(ranking):
        if k is not None and i >= k:
            break
        g = grades.get(d, -1)
        s = stratum.get(d)
        if g > 0 and s is not None:
            dcg += gain_of(g) / math.log2(i + 2) / design.rate(s)
    counts: dict[int, float] = {}
    for d, g in grades.items():
        if g > 0:
            s = stratum[d]
            counts[g] = counts.get(g, 0.0) + design.pooled[s] / design.judged[s]
    ideal: list[float] = []
    for g in sorted(counts, reverse=True):
        ideal.extend([gain_of(g)] * int(math.floor(counts[g] + 0.5)))
    if k is not None:
        ideal = ideal[:k]
    idcg = sum(x / math.log2(i + 2) for i, x in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def rbp(ranking: Sequence[str], grades: Mapping[str, int], p: float) -> tuple[float, float]:
    """RBP(p) and its residual (Moffat and Zobel 2008), on trec_eval's conventions.

    RBP = (1 - p) * sum over ranks i of p^(i-1) * gain_i, gain = grade / (the query's highest
    grade), so graded qrels give partial credit and the relevance level plays no part. The
    residual is the most the unjudged could still add: the weight (1 - p) p^(i-1) of every
    unjudged slot (not in the qrels, or a negative grade) plus, when at least one retrieved id
    is unjudged, the weight p^n of everything below the ranking's end (trec_eval adds that
    tail only then; a fully judged ranking has residual 0). A repeated id's later slot is
    worth nothing either way.
    """
    # The arithmetic follows trec_eval's order (sum gain * p^(i-1) with p^(i-1) grown by
    # repeated multiplication, times 1 - p at the end; residual p^n + (1 - p) * the unjudged
    # slots' p^(i-1)), so that values and their means agree to the last printed digit.
    top = max((g for g in grades.values()), default=0)
    gained = unjudged_weight = 0.0
    cur_p = 1.0
    seen: set[str] = set()
    unjudged = False
    for d in ranking:
        if d not in seen:
            seen.add(d)
            g = grades.get(d, -1)
            if g < 0:
                unjudged = True
                unjudged_weight += cur_p
            elif g > 0:
                gained += g / top * cur_p
        cur_p *= p
    resid = cur_p + (1 - p) * unjudged_weight if unjudged else 0.0
    return (1.0 - p) * gained, resid
