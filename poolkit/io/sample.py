"""Sample files, and the one record of a sample design: a pooled pair's stratum and
inclusion probability.

A sampled pool records, for every pooled pair (judged or not), a :class:`SampledPair`: its
stratum, its ``inclusion`` probability (the chance the design gave it of being judged) and
whether the draw took it. The pool draws them (``pool.sample.SampleDesign.draw``), a pooling
strategy's ``Candidate`` carries one, the store keeps them (``StoreBackend.pool_sample``) and
the estimators read one query's as a :class:`PoolSample` (doc id -> stratum, doc id ->
inclusion).

The file: ``qid docid stratum inclusion_probability drawn`` (whitespace separated; ``#``
lines are comments), as ``poolkit export --sample`` writes it. Every pooled pair is listed,
judged or not: the estimators need the pool's size per stratum, not only the judged pairs. A
probability is in (0, 1]; a pair listed twice is an error. ``drawn`` is 0 for a pair the
design did not draw, else its place (1, 2, ...) in its stratum's judging order: a label on an
undrawn pair is no part of the sample, and the judged drawn pairs of a stratum are a random
subsample only when they are the first of that order (a sampled pool's judging order is
random within each stratum, so any prefix of it is). A four-column file (written before the
column existed) does not say what was drawn: every label is then read as drawn.
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
    #: doc id -> 0 (not drawn) or its place in its stratum's judging order; None when the
    #: file does not say (every label is then read as drawn)
    drawn: Mapping[str, int] | None = None

    @classmethod
    def of(cls, pairs: Iterable[SampledPair]) -> PoolSample:
        """One query's records as its design (doc ids in the order given); the drawn pairs
        are placed in that order within their stratum."""
        strata: dict[str, str] = {}
        inclusion: dict[str, float] = {}
        drawn: dict[str, int] = {}
        placed: dict[str, int] = {}
        for p in pairs:
            strata[p.docid] = p.stratum
            inclusion[p.docid] = p.inclusion
            if p.sampled:
                placed[p.stratum] = placed.get(p.stratum, 0) + 1
            drawn[p.docid] = placed[p.stratum] if p.sampled else 0
        return cls(strata, inclusion, drawn)

    def was_drawn(self, docid: str) -> bool:
        """True for a pair the design drew (every pair when the file does not say)."""
        return self.drawn is None or self.drawn.get(docid, 0) > 0


HEADER = "# qid docid stratum inclusion_probability drawn"


def read_sample(path: str | Path) -> dict[str, PoolSample]:
    """qid -> that query's :class:`PoolSample`; strict, errors name file and line."""
    text = decode(path, read_bytes(path))
    strata: dict[str, dict[str, str]] = {}
    inclusion: dict[str, dict[str, float]] = {}
    drawn: dict[str, dict[str, int]] = {}
    columns = 0
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        parts = stripped.split()
        if len(parts) not in (4, 5) or columns not in (0, len(parts)):
            raise InputError(path, lineno, f"expected {columns or '4 or 5'} columns (qid docid "
                                           f"stratum inclusion_probability [drawn]), got "
                                           f"{len(parts)}")
        columns = len(parts)
        qid, docid, stratum, prob_s = parts[:4]
        if columns == 5:
            drawn.setdefault(qid, {})[docid] = _place(path, lineno, parts[4])
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
    return {q: PoolSample(strata[q], inclusion[q], drawn.get(q) if columns == 5 else None)
            for q in strata}


def _place(path: str | Path, lineno: int, text: str) -> int:
    if not text.isdigit():
        raise InputError(path, lineno, f"drawn {text!r} is not 0 (not drawn) or a place "
                                       f"1, 2, ... in the stratum's judging order")
    return int(text)


def sample_lines(rows: Iterable[tuple[str, str, str, float, int]]) -> list[str]:
    """The file's lines (header first) for (qid, docid, stratum, inclusion, drawn) rows."""
    return [HEADER] + [f"{q} {d} {s} {p:.10g} {n}" for q, d, s, p, n in rows]


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
