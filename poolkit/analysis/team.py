"""The judging team's figures per assessor, beside ``status``'s counts (issue 28's
dashboard keys): the assignment's progress, can't-judge events, pace, active time and
agreement with peers on shared pairs.

- ``assigned``: slots the assessor holds in the current plan (None without a plan);
  ``assigned_judged``: of those, the pairs she has settled (a grade or a can't-judge).
- ``cant_judge``: her live can't-judge events (they are never labels).
- ``pace_median_s``: the median of her grade events' seconds (shown to graded).
- ``active_s``: the sum of those seconds, each capped at ``AWAY_S``: a passage left on
  screen longer than that counts as time away, not judging.
- ``peers``: Cohen's kappa (0-3) between her standing grades and every other person's on
  the pairs both graded, pooled over peers (``n`` grade pairs); kappa None under 2 pairs or
  when it is undefined (every grade the same).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from poolkit.store.contract import StoreBackend

#: seconds: a passage shown longer than this before its grade counts as time away
AWAY_S = 300.0


def team_figures(store: StoreBackend) -> tuple[dict[str, dict[str, Any]], dict[str, Any] | None]:
    """(assessor -> figures, the plan's ``{overlap, unit, pairs, plan, open_slots}`` or
    None)."""
    from poolkit.store.judging import _seconds

    plan = store.assignment_plan()
    slots = store.assignment_slots() if plan is not None else {}
    settled = store.settled_pairs()
    held = Counter(h for hs in slots.values() for h in hs if h)
    done = Counter(h for p, hs in slots.items() for h in hs if h and h in settled.get(p, ()))
    cant = Counter(a for *_, a in store.live_marks(["cant_judge"]))
    times: dict[str, list[float]] = {}
    for _, assessor, shown, judged in store.timings("grade"):
        seconds = _seconds(shown, judged)
        if seconds is not None:
            times.setdefault(assessor, []).append(seconds)
    peers = _peer_kappas(store)
    names = set(held) | set(cant) | set(times) | set(peers) | set(store.assessors())
    out = {}
    for name in sorted(names):
        taken = sorted(times.get(name, []))
        out[name] = {
            "assigned": held[name] if plan is not None else None,
            "assigned_judged": done[name] if plan is not None else None,
            "cant_judge": cant[name],
            "pace_median_s": _median(taken),
            "active_s": round(sum(min(t, AWAY_S) for t in taken), 3),
            "peers": peers.get(name, {"n": 0, "kappa": None}),
        }
    assignment = None if plan is None else {
        "plan": plan.plan, "overlap": plan.overlap, "unit": plan.unit, "pairs": len(slots),
        "open_slots": sum(h is None for hs in slots.values() for h in hs)}
    return out, assignment


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def _peer_kappas(store: StoreBackend) -> dict[str, dict[str, Any]]:
    from poolkit.analysis.stats import cohen_kappa

    mine: dict[str, tuple[list[int], list[int]]] = {}
    for by_person in store.current_grades(kinds=["grade"]).values():
        for a, ea in by_person.items():
            for b, eb in by_person.items():
                if a != b and ea.grade is not None and eb.grade is not None:
                    xs, ys = mine.setdefault(a, ([], []))
                    xs.append(ea.grade)
                    ys.append(eb.grade)
    out = {}
    for name, (xs, ys) in mine.items():
        kappa = cohen_kappa(xs, ys) if len(xs) >= 2 else math.nan
        out[name] = {"n": len(xs), "kappa": None if math.isnan(kappa) else round(kappa, 4)}
    return out
