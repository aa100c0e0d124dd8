"""Sample files, and the one record of a sample design: a pooled pair's stratum and
inclusion probability.

A sampled pool records, for every pooled pair (judged or not), a :class:`SampledPair`: its
stratum, its ``inclusion`` probability (the chance the design gave it of being judged) and
whether the draw took it. The pool draws them (``pool.sample.SampleDesign.draw``), a pooling
strategy's ``Candidate`` carries one, the store keeps them (``StoreBackend.pool_sample``) and
the estimators read one query's as a :class:`PoolSample` (doc id -> stratum, doc id ->
inclusion).

The file: ``qid docid stratum inclusion_probability`` (whitespace separated; ``#`` lines are
comments), as ``poolkit export --sample`` writes it. Every pooled pair is listed, judged or
not: the estimators need the pool's size per stratum, not only the judged pairs. A
probability is in (0, 1]; a pair listed twice is an error. The file does not say which pairs
were drawn (the qrels do: a drawn pair is judged, or will be).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from poolkit.errors import InputError
from poolkit.io.common import decode, read_bytes
from poolkit.io.validate import number_of


@dataclass(frozen=True)
class SampledPair:
    """One pooled pair of a sampled pool: its stratum, its inclusion probability (1.0 when
    its stratum is judged in full) and whether the draw took it for judging (``sampled``;
    False for a pooled pair the sample leaves unjudged)."""

    qid: str
    docid: str
    stratum: str
    inclusion: float
    sampled: bool


@dataclass(frozen=True)
class PoolSample:
    """One query's sample design as the estimators read it: every pooled doc id's stratum
    and inclusion probability (the query's :class:`SampledPair` records, by doc id)."""

    strata: Mapping[str, str]
    inclusion: Mapping[str, float]

    @classmethod
    def of(cls, pairs: Iterable[SampledPair]) -> PoolSample:
        """One query's records as its design (doc ids in the order given)."""
        strata: dict[str, str] = {}
        inclusion: dict[str, float] = {}
        for p in pairs:
            strata[p.docid] = p.stratum
            inclusion[p.docid] = p.inclusion
        return cls(strata, inclusion)


HEADER = "# qid docid stratum inclusion_probability"


def read_sample(path: str | Path) -> dict[str, PoolSample]:
    """qid -> that query's :class:`PoolSample`; strict, errors name file and line."""
    text = decode(path, read_bytes(path))
    strata: dict[str, dict[str, str]] = {}
    inclusion: dict[str, dict[str, float]] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        parts = stripped.split()
        if len(parts) != 4:
            raise InputError(path, lineno, f"expected 4 columns (qid docid stratum "
                                           f"inclusion_probability), got {len(parts)}")
        qid, docid, stratum, prob_s = parts
        prob = number_of(prob_s)
        if prob is None:
            raise InputError(path, lineno, f"inclusion probability {prob_s!r} is not a "
                                           f"number")
        if not (0.0 < prob <= 1.0) or math.isnan(prob):
            raise InputError(path, lineno, f"inclusion probability {prob_s} is outside (0, 1]")
        if docid in strata.setdefault(qid, {}):
            raise InputError(path, lineno, f"pair ({qid}, {docid}) is listed twice")
        strata[qid][docid] = stratum
        inclusion.setdefault(qid, {})[docid] = prob
    if not strata:
        raise InputError(path, None, "no sample lines found (only comments or blank lines)")
    return {q: PoolSample(strata[q], inclusion[q]) for q in strata}


def sample_lines(rows: Iterable[tuple[str, str, str, float]]) -> list[str]:
    """The file's lines (header first) for (qid, docid, stratum, inclusion) rows."""
    return [HEADER] + [f"{q} {d} {s} {p:.10g}" for q, d, s, p in rows]


@dataclass(frozen=True)
class SampledQuery:
    """One query of a human query sample (``poolkit sample-queries``): its stratum and the
    probability the design gave it of being drawn."""

    qid: str
    stratum: str
    inclusion: float


@dataclass(frozen=True)
class QueryDraw:
    """A draw of the queries people are to judge, as the store keeps it: the ``seed``, the
    size ``n`` of ``population`` queries, the ``design`` (``uniform``, or ``stratified`` by
    ``measure`` under machine judge ``machine`` version ``judge_version``) and its queries.
    ``draw`` and ``drawn_at`` are the store's (0 and "" before it is recorded)."""

    seed: int
    n: int
    population: int
    design: str
    queries: tuple[SampledQuery, ...]
    machine: str | None = None
    judge_version: str | None = None
    measure: str | None = None
    draw: int = 0
    drawn_at: str = ""

    @property
    def inclusion(self) -> dict[str, float]:
        """qid -> inclusion probability, for the estimate's weights."""
        return {q.qid: q.inclusion for q in self.queries}
