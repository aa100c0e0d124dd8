"""Where gold passages go in an assessor's walk (``poolkit gold``; the session's rule).

Before each passage of a query's walk, a gold pair of that query is put in with probability
``rate`` (while the query has gold pairs left), so about ``rate`` gold passages come per
passage of the pool. The draws are made by a generator seeded with (seed, assessor, query)
alone: the same store shows an assessor her gold passages at the same places in every
session, two assessors at different places, and a pool grown by a new version keeps the
places already drawn (the draw for the i-th passage does not depend on how many follow).
Gold pairs of a query go in a seeded order too, so which one comes first is no tell either.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def mix_gold(walk: Sequence[T], gold: Sequence[T], rate: float, seed: int, assessor: str,
             qid: str) -> list[T]:
    """``walk`` with ``gold`` mixed in (every gold item at most once, in a seeded order)."""
    rng = random.Random(f"{seed}\x1f{assessor}\x1f{qid}")
    waiting = list(gold)
    rng.shuffle(waiting)
    out: list[T] = []
    for item in walk:
        if waiting and rng.random() < rate:
            out.append(waiting.pop())
        out.append(item)
    return out
