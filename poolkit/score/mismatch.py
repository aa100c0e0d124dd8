"""A run whose queries do not match the labels', said loudly.

A run scored against labels of another query set (ids written ``001`` against ``1``, the
wrong year's topics) gives a figure such as nDCG@10 0.002 with exit 0. :func:`query_mismatch`
counts the queries the labels and the run share; when fewer than half of the run's queries
are labelled, or fewer than half of the labelled queries are in the run, its
:attr:`QueryMismatch.warning` is one line with both counts and a few ids from each side, which
``score``, ``compare``, ``trec-eval`` (and ``estimate``) print on stderr. It is a warning,
not an error: the exit code stays what ``--fail-on`` makes it.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable
from dataclasses import dataclass

#: how many ids of each side a warning shows
EXAMPLES = 3


@dataclass(frozen=True)
class QueryMismatch:
    """How the labels' queries and a run's queries overlap.

    ``run_only``/``labels_only`` are the first few ids (in byte order) found on one side
    only; ``labels_ids`` a few labelled ids to show when every labelled query is in the run.
    """

    run_name: str
    labels_name: str
    labelled: int
    in_run: int
    shared: int
    run_only: tuple[str, ...]
    labels_only: tuple[str, ...]
    labels_ids: tuple[str, ...]

    @property
    def differs(self) -> bool:
        """The two query sets are not the same (a table header says how many are shared)."""
        return not self.shared == self.labelled == self.in_run

    @property
    def loud(self) -> bool:
        """Fewer than half of the run's queries are labelled, or fewer than half of the
        labelled queries are in the run."""
        return 2 * self.shared < self.in_run or 2 * self.shared < self.labelled

    @property
    def warning(self) -> str | None:
        """The stderr line when :attr:`loud`, else None, e.g. ``warning: run bm25 has 131 of
        225 queries the qrels lack (001, 002, 003); qrels ids look like 1, 2, 3``."""
        if not self.loud:
            return None
        run, labels = f"run {self.run_name}", self.labels_name
        missing = self.labelled - self.shared
        if 2 * self.shared < self.in_run:
            first = (f"{run} has {self.in_run - self.shared} of {self.in_run} queries the "
                     f"{labels} lack ({_ids(self.run_only)})")
        else:
            first = f"{run} has {self.in_run} queries, {self.shared} of them in the {labels}"
        second = (f"{labels} ids look like {_ids(self.labels_only or self.labels_ids)}"
                  f" ({missing} of {self.labelled} not in the run)")
        return f"warning: {first}; {second}"


def shared_phrase(shared: int, labelled: int, in_run: int, labels_name: str = "qrels") -> str:
    """What a table header says when the labels' and the run's query sets differ (else ""):
    ``40 shared by the qrels' 43 and the run's 200 queries``."""
    if shared == labelled == in_run:
        return ""
    return f"{shared} shared by the {labels_name}' {labelled} and the run's {in_run} queries"


def _ids(ids: Iterable[str]) -> str:
    return ", ".join(ids) or "none"


def query_mismatch(labelled: Collection[str], in_run: Collection[str], *, run_name: str,
                   labels_name: str = "qrels") -> QueryMismatch:
    """The overlap of the labelled query ids and the run's (see :class:`QueryMismatch`)."""
    labels_set, run_set = set(labelled), set(in_run)
    shared = labels_set & run_set
    return QueryMismatch(
        run_name, labels_name, len(labels_set), len(run_set), len(shared),
        tuple(heapq.nsmallest(EXAMPLES, run_set - shared)),
        tuple(heapq.nsmallest(EXAMPLES, labels_set - shared)),
        tuple(heapq.nsmallest(EXAMPLES, labels_set)))
