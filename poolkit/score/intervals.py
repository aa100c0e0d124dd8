"""Confidence intervals for macro-averaged measures.

Two constructions, chosen by what a per-query value is:

- Hit@K is a 0/1 outcome per query, so its mean is a proportion of queries and gets the
  Wilson score interval (Wilson, 1927). The query is the trial: chunks returned for one
  query are not independent draws.
- Every other mean averages fractional per-query scores, which are not Bernoulli draws, so
  it gets a percentile bootstrap over queries (Efron, 1979): the query set is resampled with
  replacement ``RESAMPLES`` times from a fixed seed, so a rerun reproduces the band exactly.

Each family declares its method (``Family.interval`` in :mod:`poolkit.score.measures`).
All measures of one run share the same resamples (one draw of queries moves every measure
at once), which is also what makes the bootstrap cheap: the resample counts form one
matrix that multiplies the per-query values of every measure.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from poolkit.score.families_trec import geometric_term
from poolkit.score.measures import MEASURES
from poolkit.threads import ordered_imap

CONFIDENCE = 0.95  # every interval's confidence level (a 'level' elsewhere is a grade)
RESAMPLES = 1000
SEED = 1979  # Efron's bootstrap paper; any fixed value would do, this one never changes.
_CHUNK = 100  # resamples drawn at a time, bounding memory at ~_CHUNK x queries counts

#: the families whose per-query value, and so any mean of it, lies in [0, 1]; a family not
#: here (utility, dcg, G, an inferred estimate such as infAP or statAP...) has no range said
UNIT_FAMILIES = frozenset({
    "P", "R", "Rcap", "Hit", "RR", "AP", "nDCG", "Rprec", "bpref", "Judged", "CP", "RBP",
    "RBP_resid", "iprec_at_recall", "11pt_avg", "set_P", "set_map", "set_F", "unj"})


@dataclass(frozen=True)
class Interval:
    """A two-sided interval at ``confidence`` for a mean; ``method`` is 'wilson' or
    'bootstrap'. (JSON names the confidence ``level``, as it always has.)"""

    low: float
    high: float
    method: str
    confidence: float = CONFIDENCE
    resamples: int | None = None
    seed: int | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"low": self.low, "high": self.high, "method": self.method,
                                  "level": self.confidence}
        if self.resamples is not None:
            out["resamples"] = self.resamples
            out["seed"] = self.seed
        return out


def _z(confidence: float) -> float:
    """Two-sided standard-normal quantile (1.959964 at 95%), via the inverse error function."""
    return math.sqrt(2.0) * _erfinv(confidence)


def _erfinv(y: float) -> float:
    # Newton on math.erf from a good start: exact to double precision in a few steps.
    x = 0.0 if y == 0 else math.copysign(math.sqrt(-math.log((1 - abs(y)) / 2)), y) * 0.9
    for _ in range(50):
        err = math.erf(x) - y
        step = err / (2 / math.sqrt(math.pi) * math.exp(-x * x))
        x -= step
        if abs(step) < 1e-15:
            break
    return x


def wilson(successes: int, n: int, confidence: float = CONFIDENCE) -> Interval:
    """Wilson score interval for ``successes`` of ``n`` trials (7 of 9 -> 0.453-0.937)."""
    if n <= 0:
        raise ValueError("Wilson interval needs at least one trial")
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} outside 0..{n}")
    z = _z(confidence)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # At 0 or n successes the bound is exactly 0 or 1; say so rather than 0.9999999999999999.
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == n else min(1.0, center + half)
    return Interval(low, high, "wilson", confidence)


def value_range(family: str, difference: bool = False) -> tuple[float, float] | None:
    """The values a mean of ``family`` can take ((0, 1) for :data:`UNIT_FAMILIES`), or of a
    difference of two such means ((-1, 1)); None when the family has no range said."""
    if family not in UNIT_FAMILIES:
        return None
    return (-1.0, 1.0) if difference else (0.0, 1.0)


def bootstrap_means(values: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Resampled means: ``values`` is (queries, measures); returns (resamples, measures).

    Each resample draws ``queries`` indices with replacement; the draw depends only on the
    number of queries, the seed and ``resamples``, so it is reproducible run to run.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    n = values.shape[0]
    out = np.empty((resamples, values.shape[1]))
    for start, rows, counts in _resample_counts(n, resamples, seed):
        out[start:start + rows] = counts @ values / n
    return out


def bootstrap_means_each(columns: Sequence[np.ndarray], resamples: int = RESAMPLES,
                         seed: int = SEED, jobs: int = 1) -> list[np.ndarray]:
    """``bootstrap_means(c)[:, 0]`` for each 1-D array ``c`` (all of one length), value for
    value, with the resamples drawn once for all: the draw depends only on the length, and
    each column is multiplied by it on its own, as alone (one product of all the columns
    at once could differ in the last bits). The paired tests' intervals of N runs' pairs.

    The counts are cast to float once per chunk (``int @ float`` casts them for every
    product; the cast is exact, so the products are the same), and the chunks are worked
    on ``jobs`` threads (:func:`poolkit.threads.ordered_imap` draws them in order on this
    thread, so the same for any ``jobs``).
    """
    arrays = [np.asarray(c, dtype=float)[:, None] for c in columns]
    if not arrays:
        return []
    n = arrays[0].shape[0]
    outs = [np.empty((resamples, 1)) for _ in arrays]

    def fill(chunk: tuple[int, int, np.ndarray]) -> None:
        start, rows, counts = chunk
        weights = counts.astype(float)
        for values, out in zip(arrays, outs):
            out[start:start + rows] = weights @ values / n

    for _ in ordered_imap(fill, _resample_counts(n, resamples, seed), jobs, ahead=2 * jobs):
        pass
    return [out[:, 0] for out in outs]


def _resample_counts(n: int, resamples: int,
                     seed: int) -> Iterator[tuple[int, int, np.ndarray]]:
    """(first resample, resamples, counts): how often each of the ``n`` queries is drawn in
    each resample, ``_CHUNK`` resamples at a time."""
    if n == 0:
        raise ValueError("bootstrap needs at least one query")
    rng = np.random.default_rng(seed)
    for start in range(0, resamples, _CHUNK):
        rows = min(_CHUNK, resamples - start)
        idx = rng.integers(0, n, size=(rows, n), dtype=np.int64)
        offsets = (np.arange(rows, dtype=np.int64) * n)[:, None]
        yield start, rows, np.bincount((idx + offsets).ravel(),
                                       minlength=rows * n).reshape(rows, n)


def percentile_interval(means: np.ndarray, confidence: float = CONFIDENCE,
                        resamples: int = RESAMPLES, seed: int = SEED) -> Interval:
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(float(low), float(high), "bootstrap", confidence, resamples, seed)


def bootstrap(values: Sequence[float], confidence: float = CONFIDENCE, resamples: int = RESAMPLES,
              seed: int = SEED) -> Interval:
    """Percentile bootstrap interval of the mean of ``values`` (one value per query)."""
    means = bootstrap_means(np.asarray(values, dtype=float), resamples, seed)[:, 0]
    return percentile_interval(means, confidence, resamples, seed)


def intervals(per_query: Mapping[str, Mapping[str, float]], families: Mapping[str, str],
              queries: Sequence[str], confidence: float = CONFIDENCE, resamples: int = RESAMPLES,
              seed: int = SEED) -> dict[str, Interval | None]:
    """One interval per measure name, by the method its family declares (``Family.interval``:
    Wilson for Hit, bootstrap for the rest).

    ``per_query[name][qid]`` are the per-query values, ``families[name]`` the measure family,
    ``queries`` the scored query ids in a fixed order (the order the resamples index). A
    measure over no queries gets None.
    """
    out: dict[str, Interval | None] = {}
    if not queries:
        return {name: None for name in per_query}
    wilson_ones = {name for name in per_query if _method(families[name]) == "wilson"}
    boot = [name for name in per_query if name not in wilson_ones]
    for name in per_query:
        if name in wilson_ones:
            vals = per_query[name]
            hits = sum(1 for q in queries if vals.get(q, 0.0) > 0)
            out[name] = wilson(hits, len(queries), confidence)
    if boot:
        # a geometric mean's (gm_map) interval: the mean of its logs', exponentiated
        logs = [_geometric(families[name]) for name in boot]
        matrix = np.column_stack([
            np.fromiter(((geometric_term(v) if log else v) for v in
                         (per_query[name].get(q, 0.0) for q in queries)), float, len(queries))
            for name, log in zip(boot, logs)])
        means = bootstrap_means(matrix, resamples, seed)
        for j, name in enumerate(boot):
            iv = percentile_interval(means[:, j], confidence, resamples, seed)
            out[name] = replace(iv, low=math.exp(iv.low), high=math.exp(iv.high)) \
                if logs[j] else iv
    return {name: out[name] for name in per_query}


def _geometric(family: str) -> bool:
    registered = MEASURES.get(family)
    return registered is not None and registered.aggregate == "geometric"


def _method(family: str) -> str:
    """The interval method of a measure family (bootstrap for a name not registered)."""
    registered = MEASURES.get(family)
    return registered.interval if registered is not None else "bootstrap"
