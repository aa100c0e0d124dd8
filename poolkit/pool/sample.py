"""The ``sample`` pooling design: judge a stratified random sample of a deep pool.

The pool is the union of every run's top ``depth``, as depth-k pooling makes it. For
stratifying, each pooled document is ranked by the **best rank any run gave it** (a document
third in one run and fiftieth in another has rank 3): strata are ranges of that rank, so
``[[1, 10, 1.0], [11, 30, 0.5], [31, 100, 0.1]]`` judges every document some run put in its
top 10, half of those first reaching the pool at ranks 11-30, a tenth of the rest. The ranges
must tile 1..depth, so every pooled document falls in exactly one stratum.

Within a stratum of N pooled documents, n = round(rate * N) of them (at least one) are drawn
by simple random sampling without replacement, so every document of the stratum has the same
inclusion probability n / N — recorded with its stratum for the estimators (xinfAP, infNDCG,
statAP, R_est). The draw orders documents by a hash of (seed, query, doc id): the same seed
gives the same sample whatever order the runs arrive in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from poolkit.errors import PoolkitError
from poolkit.io.provenance import PoolProvenance
from poolkit.io.run import Run
from poolkit.io.sample import SampledPair
from poolkit.params import DEFAULT_SEED


@dataclass(frozen=True)
class Stratum:
    """Best ranks ``first``..``last`` (inclusive), sampled at ``rate`` (0 < rate <= 1)."""

    first: int
    last: int
    rate: float

    @property
    def label(self) -> str:
        return f"{self.first}-{self.last}"


@dataclass(frozen=True)
class SampleDesign:
    """A stratified sample of the depth-``depth`` pool (see the module docstring): the plan
    whose ``draw`` makes each pooled pair's :class:`~poolkit.io.sample.SampledPair`."""

    depth: int
    strata: tuple[Stratum, ...]
    seed: int = DEFAULT_SEED
    name = "sample"

    def __post_init__(self) -> None:
        if isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1:
            raise PoolkitError(f"sample: depth must be a positive integer, got {self.depth!r}")
        if not self.strata:
            raise PoolkitError("sample: strata must list at least one [first, last, rate]")
        expected = 1
        for s in self.strata:
            if s.first != expected or s.last < s.first:
                raise PoolkitError(
                    f"sample: strata must tile ranks 1..{self.depth} in order; "
                    f"[{s.first}, {s.last}] should start at {expected}")
            if not 0.0 < s.rate <= 1.0:
                raise PoolkitError(f"sample: stratum [{s.first}, {s.last}] has rate {s.rate}; "
                                   f"a rate is in (0, 1]")
            expected = s.last + 1
        if expected != self.depth + 1:
            raise PoolkitError(f"sample: strata end at rank {expected - 1}, not at the depth "
                               f"{self.depth}")

    @classmethod
    def from_lists(cls, depth: int, strata: Sequence[Sequence[object]], seed: int = DEFAULT_SEED,
                   ) -> SampleDesign:
        """From the config's ``[[first, last, rate], ...]``."""
        out = []
        for item in strata:
            if not isinstance(item, Sequence) or isinstance(item, str) or len(item) != 3:
                raise PoolkitError(f"sample: a stratum is [first, last, rate], got {item!r}")
            first, last, rate = item
            if not (isinstance(first, int) and isinstance(last, int)) or isinstance(
                    first, bool) or isinstance(last, bool):
                raise PoolkitError(f"sample: stratum ranks must be integers, got {item!r}")
            if isinstance(rate, bool) or not isinstance(rate, (int, float)):
                raise PoolkitError(f"sample: stratum rate must be a number, got {item!r}")
            out.append(Stratum(first, last, float(rate)))
        return cls(depth, tuple(out), seed)

    def stratum_of(self, best_rank: int) -> Stratum:
        for s in self.strata:
            if s.first <= best_rank <= s.last:
                return s
        raise PoolkitError(f"sample: rank {best_rank} is outside 1..{self.depth}")

    def draw(self, qid: str, ranks: Mapping[str, Sequence[int]]) -> list[SampledPair]:
        """The pooled documents of one query with stratum, inclusion probability and the
        draw, by best rank then doc id.

        ``ranks`` maps each pooled doc id to the ranks runs gave it (within ``depth``).
        """
        by_stratum: dict[Stratum, list[tuple[str, int]]] = {s: [] for s in self.strata}
        for docid, rs in ranks.items():
            best = min(rs)
            by_stratum[self.stratum_of(best)].append((docid, best))
        out: list[SampledPair] = []
        for s, members in by_stratum.items():
            if not members:
                continue
            n = min(len(members), max(1, int(s.rate * len(members) + 0.5)))
            drawn = set(sorted((d for d, _ in members), key=lambda d: self._key(qid, d))[:n])
            inclusion = n / len(members)
            out.extend(SampledPair(qid, d, s.label, inclusion, d in drawn)
                       for d, _best in sorted(members, key=lambda m: (m[1], m[0])))
        return out

    def _key(self, qid: str, docid: str) -> bytes:
        return hashlib.sha256(f"sample\0{self.seed}\0{qid}\0{docid}".encode()).digest()


def pool_ranks(rankings: Mapping[str, Sequence[str]], depth: int) -> dict[str, list[int]]:
    """Doc id -> the ranks runs gave it in their top ``depth`` (first occurrences): one
    query's ``io.provenance.PoolProvenance.ranks``, from each run's ranking of it."""
    runs = {name: Run({"": list(ranking)}, name=name) for name, ranking in rankings.items()}
    return PoolProvenance.from_runs(runs, depth).ranks("")


def with_unjudged(grades: Mapping[str, Mapping[str, int]],
                  pooled: Iterable[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """The labels plus every pooled pair without one as grade -1 ("pooled, not judged").

    What trec_eval's infAP and poolkit's estimators read: -1 tells a pooled id the sample left
    unjudged from an id never pooled (absent). Doc ids sorted within each query.
    """
    out = {q: dict(docs) for q, docs in grades.items()}
    for qid, docid in pooled:
        out.setdefault(qid, {}).setdefault(docid, -1)
    return {q: dict(sorted(docs.items())) for q, docs in out.items()}
