"""Drawing the queries people judge: the designs ``poolkit sample-queries`` records.

PPI's interval is valid when the human queries are a probability sample of the N queries
with known inclusion probabilities pi_i; the estimate then weights query i by 1/pi_i
(``score.ppi``: weights normalised to mean 1, a Hajek-type weighting).

* ``uniform``: n of the N queries without replacement, every pi_i = n/N (the weights are
  all equal: the plain PPI++ estimate).
* ``stratified`` by the machine's per-query score s_i (the mean over the runs of a measure
  under the machine judge's labels): the N queries sorted by s_i are cut into H = max(1,
  n // 2) strata of near-equal size (two draws a stratum, so a stratum is never one lucky
  query); stratum h of N_h queries gets n_h draws, proportional to N_h by largest remainder
  with at least one each, and pi_i = n_h / N_h for its queries. Spreading the sample over
  easy and hard queries (as the machine sees them) removes the between-strata part of the
  draw's variance; the estimate stays unbiased because each query's pi_i is known and
  weighted by.

The interval ``score.ppi`` gives treats the weighted sample as independent draws: for a
proportional stratified draw that leaves out the variance the stratification removed, so the
interval is conservative there rather than exact.

The draw is a function of the seed and the population in its given order (a ``random.
Random(seed)``), so the same seed on the same store draws the same queries.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from poolkit.errors import PoolkitError
from poolkit.io.sample import SampledQuery

DESIGNS = ("uniform", "stratified")


def draw_uniform(population: Sequence[str], n: int, seed: int) -> tuple[SampledQuery, ...]:
    """n queries of ``population`` uniformly without replacement, in population order."""
    _check(population, n)
    chosen = set(random.Random(seed).sample(list(population), n))
    pi = n / len(population)
    return tuple(SampledQuery(q, "all", pi) for q in population if q in chosen)


def strata_sizes(sizes: Sequence[int], n: int) -> list[int]:
    """Draws per stratum: proportional to ``sizes`` (largest remainder), at least one each
    and at most the stratum's size, summing to n."""
    total = sum(sizes)
    exact = [n * s / total for s in sizes]
    out = [max(1, min(s, int(e))) for s, e in zip(sizes, exact)]
    order = sorted(range(len(sizes)), key=lambda h: exact[h] - int(exact[h]), reverse=True)
    while sum(out) < n:
        for h in order:
            if sum(out) < n and out[h] < sizes[h]:
                out[h] += 1
    while sum(out) > n:
        for h in reversed(order):
            if sum(out) > n and out[h] > 1:
                out[h] -= 1
    return out


def draw_stratified(scores: Mapping[str, float], n: int, seed: int,
                    ) -> tuple[SampledQuery, ...]:
    """n of the queries of ``scores`` stratified by score (module docstring), in the
    order of ``scores``."""
    population = list(scores)
    _check(population, n)
    ranked = sorted(population, key=lambda q: (scores[q], population.index(q)))
    strata_count = max(1, n // 2)
    bounds = [round(h * len(ranked) / strata_count) for h in range(strata_count + 1)]
    strata = [ranked[bounds[h]:bounds[h + 1]] for h in range(strata_count)]
    takes = strata_sizes([len(s) for s in strata], n)
    rng = random.Random(seed)
    drawn: dict[str, SampledQuery] = {}
    for h, (members, take) in enumerate(zip(strata, takes)):
        low, high = scores[members[0]], scores[members[-1]]
        name = f"{h + 1}: {low:.3f}-{high:.3f}"
        for q in rng.sample(members, take):
            drawn[q] = SampledQuery(q, name, take / len(members))
    return tuple(drawn[q] for q in population if q in drawn)


def _check(population: Sequence[str], n: int) -> None:
    if n < 2:
        raise PoolkitError(f"--n {n}: an estimate needs at least 2 human queries")
    if n > len(population):
        raise PoolkitError(f"--n {n}: there are only {len(population)} queries to draw from")
