"""Sample files: the design of a sampled pool, one pooled pair a line.

``qid docid stratum inclusion_probability`` (whitespace separated; ``#`` lines are comments),
as ``poolkit export --sample`` writes it. Every pooled pair is listed, judged or not: the
estimators need the pool's size per stratum, not only the judged pairs. A probability is in
(0, 1]; a pair listed twice is an error.
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
class PoolSample:
    """One query's sample design: every pooled id's stratum and inclusion probability."""

    strata: Mapping[str, str]
    probs: Mapping[str, float]


HEADER = "# qid docid stratum inclusion_probability"


def read_sample(path: str | Path) -> dict[str, PoolSample]:
    """qid -> that query's :class:`PoolSample`; strict, errors name file and line."""
    text = decode(path, read_bytes(path))
    strata: dict[str, dict[str, str]] = {}
    probs: dict[str, dict[str, float]] = {}
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
        probs.setdefault(qid, {})[docid] = prob
    if not strata:
        raise InputError(path, None, "no sample lines found (only comments or blank lines)")
    return {q: PoolSample(strata[q], probs[q]) for q in strata}


def sample_lines(rows: Iterable[tuple[str, str, str, float]]) -> list[str]:
    """The file's lines (header first) for (qid, docid, stratum, probability) rows."""
    return [HEADER] + [f"{q} {d} {s} {p:.10g}" for q, d, s, p in rows]


def write_sample(samples: Mapping[str, PoolSample], path: str | Path) -> None:
    rows = [(q, d, s.strata[d], s.probs[d]) for q, s in samples.items() for d in s.strata]
    Path(path).write_text("\n".join(sample_lines(rows)) + "\n", encoding="utf-8")
