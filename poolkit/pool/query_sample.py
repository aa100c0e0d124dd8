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

* ``active``: probability proportional to size, the size what is known before people judge:
  the spread (standard deviation) over the collection's runs of the machine judge's
  per-query score, where the runs disagree most under the machine and a person's labels
  move the comparison most. pi_i = n s_i / sum s, each s_i first floored at :data:`FLOOR`
  times the mean spread (so no query's pi is 0 and a query the runs agree on can still be
  drawn) and any pi above 1 set to 1 with the rest re-spread; the pi sum to n. Drawn by
  systematic sampling on a random order (Madow): exactly n queries, each with its pi. The
  sampler takes a :class:`MachineScores` (per-query, per-run machine scores and nothing
  else): human labels cannot reach it.

The interval ``score.ppi`` gives treats the weighted sample as independent draws: for a
proportional stratified draw that leaves out the variance the stratification removed, so the
interval is conservative there rather than exact.

The draw is a function of the seed and the population in its given order (a ``random.
Random(seed)``), so the same seed on the same store draws the same queries.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from poolkit.errors import PoolkitError
from poolkit.io.sample import SampledQuery

DESIGNS = ("uniform", "stratified", "active")
#: the active design's floor: no query's size below this share of the mean spread
FLOOR = 0.2


@dataclass(frozen=True)
class MachineScores:
    """What the active sampler may see: qid -> the machine judge's score of each run in
    that query. No human label: that is the point of the type."""

    scores: Mapping[str, Sequence[float]]

    def spread(self) -> dict[str, float]:
        """qid -> the standard deviation of the runs' machine scores there."""
        out = {}
        for q, values in self.scores.items():
            mean = sum(values) / len(values) if values else 0.0
            out[q] = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)) \
                if values else 0.0
        return out


def active_inclusion(view: MachineScores, n: int) -> dict[str, float]:
    """The active design's pi per query (module docstring): proportional to the floored
    spread, capped at 1, summing to n."""
    if not isinstance(view, MachineScores):
        raise TypeError(f"the active sampler takes MachineScores (no human labels), got "
                        f"{type(view).__name__}")
    spread = view.spread()
    _check(list(spread), n)
    mean = sum(spread.values()) / len(spread)
    size = {q: max(s, FLOOR * mean) if mean > 0 else 1.0 for q, s in spread.items()}
    pi: dict[str, float] = {}
    while len(pi) < n:  # the certain queries first, the rest spread over what is left
        left = n - len(pi)
        mass = sum(v for q, v in size.items() if q not in pi)
        over = [q for q, v in size.items() if q not in pi and left * v >= mass]
        if not over:
            for q, v in size.items():
                pi.setdefault(q, left * v / mass)
            break
        for q in over:
            pi[q] = 1.0
    return {q: pi[q] for q in spread}


def draw_active(view: MachineScores, n: int, seed: int) -> tuple[SampledQuery, ...]:
    """n queries with the active design's probabilities (systematic sampling on a random
    order: exactly n, each query with its pi), in the order of ``view``."""
    pi = active_inclusion(view, n)
    rng = random.Random(seed)
    order = list(pi)
    rng.shuffle(order)
    start, cum, chosen = rng.random(), 0.0, set()
    for q in order:
        low, cum = cum, cum + pi[q]
        if math.floor(cum - start) > math.floor(low - start) or pi[q] >= 1.0:
            chosen.add(q)
    return tuple(SampledQuery(q, "active", pi[q]) for q in pi if q in chosen)


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
