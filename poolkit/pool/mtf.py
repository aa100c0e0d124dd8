"""``mtf``: Move-to-Front pooling (Cormack, Palmer and Clarke, "Efficient construction of
large test collections", SIGIR 1998).

Every run starts with the same priority. The judging follows one run at a time, down its
ranking: while its documents are relevant the run stays at the front; after a non-relevant
one its priority drops by ``step`` and the run with the highest priority takes over (ties:
the first by run name). A run with nothing left to judge leaves; documents already judged
(through another run, or by another assessor) are passed over.

The state is rebuilt from the grades on every call, so it is a pure function of them: a
grade counts for the run at the front when the document is among that run's unjudged
documents (the usual case; also when a second assessor judged a later document of the same
run first); a grade for a document the front run does not hold (an import, a document
another assessor was given from a different run) changes no priority.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from poolkit.params import Param
from poolkit.pool.learners import RRF_K, first_of, is_relevant, rrf_keys, run_lists
from poolkit.pool.order_base import OrderStrategy
from poolkit.pool.view import QueryPool

#: the grade from which a learner counts a judged passage as relevant (mtf's and mm-ns's
#: ``level``; a confidence is called CONFIDENCE elsewhere)
MIN_RELEVANT_GRADE = Param("learner_level", (int,), 1, "grade from which a judged passage "
                           "counts as relevant for mtf and mm-ns", minimum=0, attr="level")


@dataclass(frozen=True)
class MoveToFront(OrderStrategy):
    level: int = 1
    step: float = 1.0
    rrf_k: int = RRF_K.default  # the stored order (before any grade): priority's, at the config's k
    name: ClassVar[str] = "mtf"
    summary: ClassVar[str] = "Move-to-Front: follow a run while it finds relevant passages"
    params: ClassVar[tuple[Param, ...]] = (
        MIN_RELEVANT_GRADE,
        Param("mtf_step", (float,), 1.0, "priority a run loses after a non-relevant passage",
              minimum=1e-9, attr="step"),
        RRF_K)
    blind: ClassVar[bool] = False
    adaptive: ClassVar[bool] = True

    def keys(self, pool: QueryPool) -> dict[str, float]:
        return rrf_keys(pool, self.rrf_k)

    def priorities(self, pool: QueryPool, grades: Mapping[str, int],
                   ) -> tuple[dict[str, float], str | None]:
        """Each run's priority and the run at the front after ``grades`` (in order)."""
        lists = run_lists(pool)
        members = {run: set(docs) for run, docs in lists.items()}
        priority = {run: 0.0 for run in lists}
        done: set[str] = set()
        front = _front(lists, priority, done, demoted=None)
        for docid, grade in grades.items():
            if front is not None and docid in members[front] and docid not in done:
                done.add(docid)
                if not is_relevant(grade, self.level):
                    priority[front] -= self.step
                    front = _front(lists, priority, done, demoted=front)
            done.add(docid)
            if front is None or all(d in done for d in lists[front]):
                front = _front(lists, priority, done, demoted=None)
        return priority, front

    def next(self, pool: QueryPool, grades: Mapping[str, int],
             pending: Sequence[str]) -> str | None:
        priority, front = self.priorities(pool, grades)
        lists = run_lists(pool)
        names = list(lists)
        allowed = set(pending)
        order = sorted(names, key=lambda r: (r != front, -priority[r], names.index(r)))
        for run in order:
            doc = first_of(lists[run], allowed)
            if doc is not None:
                return doc
        return pending[0] if pending else None  # a pooled document no run ranks


def _front(lists: Mapping[str, list[str]], priority: Mapping[str, float], done: set[str],
           demoted: str | None) -> str | None:
    """The highest-priority run with something left to judge (ties: run order); the run
    just demoted only when no other run has anything left."""
    live = [r for r in lists if any(d not in done for d in lists[r])]
    others = [r for r in live if r != demoted] or live
    if not others:
        return None
    best = max(priority[r] for r in others)
    return next(r for r in others if priority[r] == best)
