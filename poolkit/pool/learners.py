"""What the learning judging orders share: the grades as a sequence, and run lists.

An adaptive strategy (``OrderStrategy.adaptive``) gets ``grades`` as ``{docid: grade}`` in
the order the grades were given, oldest first (every assessor's standing grade; a mapping
keeps insertion order), and ``pending``: the documents it may name now, in stored order
(the ones judged, skipped or on another assessor's screen are not in it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from poolkit.params import Param
from poolkit.pool.view import QueryPool

#: RRF's k, one ``pool:`` key for every order that stores the fused order (priority, and the
#: learners' order before any grade)
RRF_K = Param("rrf_k", (int,), 60, "RRF's k: the fused order priority uses and mtf and mm-ns "
              "store", minimum=1)


class Judged(NamedTuple):
    """One grade a learner sees: a document and its grade, in the order given."""

    docid: str
    grade: int


def is_relevant(grade: int, level: int) -> bool:
    return grade >= level


def as_grades(judged: Iterable[Judged]) -> dict[str, int]:
    """The ``grades`` mapping strategies take, in the order of ``judged``."""
    return {j.docid: j.grade for j in judged}


def run_lists(pool: QueryPool) -> dict[str, list[str]]:
    """Each run's pooled documents best rank first, runs by name (the tie-break order)."""
    lists = pool.run_lists()
    return {run: lists[run] for run in sorted(lists)}


def first_of(ranked: Sequence[str], allowed: Iterable[str] | set[str]) -> str | None:
    """The first document of ``ranked`` that is in ``allowed``."""
    allowed = allowed if isinstance(allowed, set) else set(allowed)
    return next((d for d in ranked if d in allowed), None)


def rrf_keys(pool: QueryPool, k: int = RRF_K.default) -> dict[str, float]:
    """Reciprocal-rank fusion keys, -sum over the runs of 1 / (k + rank): the ``priority``
    order, and an adaptive strategy's stored order (the order before any grade is known,
    what modes that walk the store's order see)."""
    return {d: -sum(1.0 / (k + r) for r in pool.ranks(d)) for d in pool.docs}


def grades_in(grades: Mapping[str, int]) -> list[Judged]:
    return [Judged(d, g) for d, g in grades.items()]
