"""Who judges which pairs: a balanced plan in which every pair has exactly ``overlap``
assessors (``poolkit assign``).

Pure: pairs, assessors and what is already settled in, slots out (``store.assign_sql``
writes them). A pair someone has settled (a standing grade or a can't-judge) keeps that
person in one of its slots, listed or not: re-assigning moves only what was not judged.
The rest are handed out greedily, to the least-loaded listed assessors first (ties in a
seeded order), by pair or, with ``unit="query"``, a query's pairs to one team, so loads
differ by at most one pair when nothing is settled and the unit is the pair.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

Pair = tuple[str, str]
Slots = dict[Pair, list[str | None]]
UNITS = ("query", "pair")


def plan_slots(pairs: Sequence[Pair], assessors: Sequence[str], overlap: int, unit: str,
               seed: int, settled: Mapping[Pair, Sequence[str]] | None = None,
               keep: Mapping[Pair, Sequence[str]] | None = None) -> Slots:
    """Each pair's ``overlap`` slots. ``settled`` people stay (up to ``overlap``, first
    settled first); ``keep`` holders (``--replace``: the unjudged slots not moved) stay next;
    the remaining slots go to listed assessors by load. A slot no listed assessor can take
    (fewer of them than the overlap, once the settled are counted) stays open (None)."""
    rng = random.Random(seed)
    rank = {a: rng.random() for a in assessors}
    load = {a: 0 for a in assessors}
    held: dict[Pair, list[str]] = {}
    for pair in pairs:
        people = list(dict.fromkeys([*(settled or {}).get(pair, ()), *(keep or {}).get(pair, ())]))
        held[pair] = people[:overlap]
        for who in held[pair]:
            if who in load:
                load[who] += 1
    order = list(pairs)
    rng.shuffle(order)
    if unit == "pair":
        for pair in order:
            _fill(held[pair], assessors, overlap, load, rank)
    else:
        by_query: dict[str, list[Pair]] = {}
        for pair in order:
            by_query.setdefault(pair[0], []).append(pair)
        for qid in sorted(by_query, key=lambda q: (-len(by_query[q]), rng.random())):
            _fill_query(by_query[qid], held, assessors, overlap, load, rank)
    return {pair: [*held[pair], *[None] * (overlap - len(held[pair]))] for pair in pairs}


def _fill(holders: list[str], assessors: Sequence[str], overlap: int, load: dict[str, int],
          rank: Mapping[str, float]) -> None:
    for who in sorted((a for a in assessors if a not in holders),
                      key=lambda a: (load[a], rank[a]))[:overlap - len(holders)]:
        holders.append(who)
        load[who] += 1


def _fill_query(pairs: list[Pair], held: dict[Pair, list[str]], assessors: Sequence[str],
                overlap: int, load: dict[str, int], rank: Mapping[str, float]) -> None:
    """One team for the whole query: those already holding most of its pairs, then the
    least loaded; each pair takes team members until it has its overlap."""
    present = {a: sum(a in held[p] for p in pairs) for a in assessors}
    team = sorted(assessors, key=lambda a: (-present[a], load[a], rank[a]))
    for pair in pairs:
        for who in team:
            if len(held[pair]) >= overlap:
                break
            if who not in held[pair]:
                held[pair].append(who)
                load[who] += 1
