"""The assignment planner's laws (hypothesis): every pair gets exactly ``overlap`` distinct
assessors; by pair, loads differ by at most one; by query, a query's pairs share one team;
settled people keep their pairs; the same seed gives the same plan."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from poolkit.pool.assignment import plan_slots

sizes = st.lists(st.integers(1, 6), min_size=1, max_size=6)


def pairs_of(sizes):
    return [(f"q{i}", f"d{j}") for i, n in enumerate(sizes) for j in range(n)]


@given(sizes, st.integers(1, 3), st.integers(0, 3), st.integers(0, 99))
def test_every_pair_gets_overlap_distinct_people_and_loads_differ_by_one(sizes, k, extra, seed):
    pairs = pairs_of(sizes)
    people = [f"a{i}" for i in range(k + extra)]
    slots = plan_slots(pairs, people, k, "pair", seed)
    assert all(len(h) == k and len(set(h)) == k and None not in h for h in slots.values())
    load = Counter(a for h in slots.values() for a in h)
    assert max(load[a] for a in people) - min(load[a] for a in people) <= 1
    assert plan_slots(pairs, people, k, "pair", seed) == slots


@given(sizes, st.integers(1, 3), st.integers(0, 3), st.integers(0, 99))
def test_by_query_one_team_judges_every_pair_of_a_query(sizes, k, extra, seed):
    pairs = pairs_of(sizes)
    people = [f"a{i}" for i in range(k + extra)]
    slots = plan_slots(pairs, people, k, "query", seed)
    teams: dict[str, set] = {}
    for (q, _), h in slots.items():
        assert len(set(h)) == k
        teams.setdefault(q, set()).update(h)
    assert all(len(t) == k for t in teams.values())


@given(sizes, st.integers(1, 3), st.integers(0, 99), st.data())
def test_settled_people_keep_their_pairs(sizes, k, seed, data):
    pairs = pairs_of(sizes)
    people = [f"a{i}" for i in range(k + 1)]
    settled = {p: data.draw(st.lists(st.sampled_from(people + ["zoe"]), max_size=k, unique=True))
               for p in pairs}
    slots = plan_slots(pairs, people, k, "pair", seed, settled)
    assert all(set(settled[p]) <= set(h) and len(set(h)) == k for p, h in slots.items())


def test_fewer_people_than_the_overlap_leave_open_slots():
    assert plan_slots([("q", "d")], ["a"], 2, "pair", 0) == {("q", "d"): ["a", None]}
