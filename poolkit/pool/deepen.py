"""Deepening every run's pool: the baseline ``pool --find`` is measured against.

Deepening a depth-k pool by m judgments per query takes the passages the runs rank at depth
k+1, then k+2, ... (within one depth, run by run in the runs' order), skipping those already
pooled or taken, until m are taken: depth k+m of every run, cut at exactly the judgments the
classifier spends, so both are compared at the same cost.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from poolkit.io.run import Run


def deepen(runs: Mapping[str, Run], qid: str, pooled: Collection[str],
           m: int) -> tuple[list[str], int]:
    """The first ``m`` passages that deepening ``runs``' pool of ``qid`` adds, and the depth
    of the last one (0 when none; fewer than ``m`` passages when the runs run out). The walk
    starts at rank 1 and skips what is ``pooled``, so it needs no depth: a depth-k pool's
    first k ranks are all pooled."""
    lists = [run.rankings.get(qid, []) for run in runs.values()]
    longest = max((len(ranked) for ranked in lists), default=0)
    taken: dict[str, None] = {}
    reached = 0
    for position in range(longest):
        if len(taken) >= m:
            break
        for ranked in lists:
            if len(taken) >= m:
                break
            if position < len(ranked):
                doc = ranked[position]
                if doc not in pooled and doc not in taken:
                    taken[doc] = None
                    reached = position + 1
    return list(taken), reached
