"""The judging team's figures per assessor, beside ``status``'s counts (issue 28's
dashboard keys): the assignment's progress, can't-judge events, pace, active time and
agreement with peers on shared pairs.

- ``assigned``: slots the assessor holds in the current plan (None without a plan);
  ``assigned_judged``: of those, the pairs she has settled (a grade or a can't-judge).
- ``cant_judge``: her live can't-judge events (they are never labels).
- ``pace_median_s``: the median of her grade events' seconds (shown to graded).
- ``active_s``: the sum of those seconds, each capped at ``AWAY_S``: a passage left on
  screen longer than that counts as time away, not judging.
- ``peers``: Cohen's kappa (on the store's scale) between her standing grades and every
  other person's on the pairs both graded (an imported source's labels included, as in
  ``flags``), pooled over peers (``n`` grade pairs); kappa None under 2 pairs or when it is
  undefined (every grade the same).

What the lead's dashboard adds (``status --watch``), each as of ``now`` (injected: a test
passes its own moment, so nothing depends on the wall clock):

- ``judged_today``: her grade events whose time falls on ``now``'s date in ``now``'s time
  zone (the lead's day, not UTC's), an undone one left out.
- ``pace_trend``: the median seconds of her last ``k`` grades (``last_s``) against the ``k``
  before them (``previous_s``), ``k`` = ``TREND_N`` or half her grades if fewer, and at
  least ``TREND_MIN`` (None below); ``direction`` ``slower`` / ``faster`` when the last
  median is more than ``STEADY`` (20%) above / below the previous one, else ``steady``.
- ``away_s``: the seconds past ``AWAY_S`` of each grade's time on screen: a passage left
  longer than that is time away; ``active_s + away_s`` is all her time on screen.
- ``last_grade_at``: the time of her last grade (None: she never graded). A time, not
  the seconds since it: the report of an unchanged store stays the same from one call to
  the next (the dashboard counts the seconds to its own clock).
- ``grade_share`` and ``flags``: see ``with_flags``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from poolkit.store.contract import StoreBackend

#: seconds: a passage shown longer than this before its grade counts as time away
AWAY_S = 300.0
#: grades per window of the pace trend, the fewest that make one, and the change that counts
TREND_N, TREND_MIN, STEADY = 20, 5, 0.2
#: the grade-share flags: each side needs this many grades, and a share this many times the
#: others' (or under its inverse) is flagged
FLAG_MIN, FLAG_RATIO = 20, 2


def team_figures(store: StoreBackend, now: datetime | None = None,
                 ) -> tuple[dict[str, dict[str, Any]], dict[str, Any] | None]:
    """(assessor -> figures, the plan's ``{overlap, unit, pairs, plan, open_slots}`` or
    None), as of ``now`` (default: this moment, in the local time zone)."""
    from poolkit.store.judging import _seconds
    from poolkit.store.records import moment_of

    now = now if now is not None and now.tzinfo else (now or datetime.now()).astimezone()

    plan = store.assignment_plan()
    slots = store.assignment_slots() if plan is not None else {}
    settled = store.settled_pairs()
    held = Counter(h for hs in slots.values() for h in hs if h)
    done = Counter(h for p, hs in slots.items() for h in hs if h and h in settled.get(p, ()))
    cant = Counter(a for *_, a in store.live_marks(["cant_judge"]))
    times: dict[str, list[float]] = {}
    last: dict[str, tuple[datetime, str]] = {}  # the latest grade's moment, as stored
    for _, assessor, shown, judged in store.timings("grade"):
        seconds = _seconds(shown, judged)
        if seconds is not None:
            times.setdefault(assessor, []).append(seconds)
        moment = moment_of(judged)
        if moment is not None and judged is not None and (
                assessor not in last or moment > last[assessor][0]):
            last[assessor] = (moment, judged)
    # an undone grade is no grade of today's (its time on screen still counts above)
    today = Counter(assessor for _, assessor, _, judged in store.timings("grade", live=True)
                    if _on_day(judged, now))
    peers = _peer_kappas(store)
    names = set(held) | set(cant) | set(times) | set(peers) | set(store.assessors())
    out = {}
    for name in sorted(names):
        in_order = times.get(name, [])
        taken = sorted(in_order)
        out[name] = {
            "assigned": held[name] if plan is not None else None,
            "assigned_judged": done[name] if plan is not None else None,
            "cant_judge": cant[name],
            "pace_median_s": _median(taken),
            "active_s": round(sum(min(t, AWAY_S) for t in taken), 3),
            "peers": peers.get(name, {"n": 0, "kappa": None}),
            "judged_today": today[name],
            "pace_trend": pace_trend(in_order),
            "away_s": round(float(sum(t - AWAY_S for t in taken if t > AWAY_S)), 3),
            "last_grade_at": last[name][1] if name in last else None,
        }
    assignment = None if plan is None else {
        "plan": plan.plan, "overlap": plan.overlap, "unit": plan.unit, "pairs": len(slots),
        "open_slots": sum(h is None for hs in slots.values() for h in hs)}
    return out, assignment


def pace_trend(seconds: list[float]) -> dict[str, Any] | None:
    """The median of the last ``k`` of ``seconds`` (oldest first) against the ``k`` before
    (see the module docstring); None under ``TREND_MIN`` per window."""
    k = min(TREND_N, len(seconds) // 2)
    if k < TREND_MIN:
        return None
    last, previous = _median(sorted(seconds[-k:])), _median(sorted(seconds[-2 * k:-k]))
    assert last is not None and previous is not None
    direction = ("slower" if last > previous * (1 + STEADY) else
                 "faster" if last < previous * (1 - STEADY) else "steady")
    return {"last_s": round(last, 3), "previous_s": round(previous, 3), "window": k,
            "direction": direction}


def with_flags(team: Mapping[str, dict[str, Any]], counts: Mapping[str, Mapping[str, Any]],
               top: int) -> dict[str, dict[str, Any]]:
    """``team`` with each assessor's ``grade_share`` (grade -> share of her standing grades
    on the pool, from ``counts``' histograms; None before her first) and ``flags``:

    - ``lenient``: her share of the top grade (3 on 0-3, 1 on 0-1) is over ``FLAG_RATIO``
      (2) times the other people's together; ``harsh``: under half of it. Only when she and
      the others each hold ``FLAG_MIN`` (20) grades. (The top grade alone, not the upper
      half of the scale: an assessor one grade too high on every passage moves the upper
      half's share by less than the top grade's.)
    - ``fast``: her median seconds per grade is under ``FAST_MEDIAN`` (``counts``' ``fast``).
    """
    hist = {n: c["grades"] for n, c in counts.items()}
    tops = {n: (sum(v for g, v in h.items() if int(g) >= top), sum(h.values()))
            for n, h in hist.items()}
    out = {}
    for name, figures in team.items():
        mine, total = tops.get(name, (0, 0))
        h = hist.get(name, {})
        share = {g: round(v / total, 4) for g, v in h.items()} if total else None
        o_top = sum(x for n, (x, _) in tops.items() if n != name)
        o_total = sum(t for n, (_, t) in tops.items() if n != name)
        flags = []
        if total >= FLAG_MIN and o_total >= FLAG_MIN:
            # mine/total against o_top/o_total, cross-multiplied: exact on counts
            flags += (["lenient"] if mine * o_total > FLAG_RATIO * o_top * total else
                      ["harsh"] if FLAG_RATIO * mine * o_total < o_top * total else [])
        if counts.get(name, {}).get("fast"):
            flags.append("fast")
        out[name] = {**figures, "grade_share": share, "flags": flags}
    return out


def _on_day(judged: str | None, now: datetime) -> bool:
    """Whether a time the store recorded falls on ``now``'s date in ``now``'s time zone."""
    from poolkit.store.records import moment_of

    moment = moment_of(judged) if judged is not None else None
    return moment is not None and moment.astimezone(now.tzinfo).date() == now.date()


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def _peer_kappas(store: StoreBackend) -> dict[str, dict[str, Any]]:
    """Per person, Cohen's kappa against everyone else's standing grades on shared pairs:
    imported labels (``import --as nist``) count as that source's, as in the grade shares
    ``with_flags`` compares (one set of people for both)."""
    from poolkit.analysis.stats import cohen_kappa
    from poolkit.store.judging import VOTE_KINDS, standing_votes

    mine: dict[str, tuple[list[int], list[int]]] = {}
    for by_person in standing_votes(store, VOTE_KINDS).values():
        for a, ea in by_person.items():
            for b, eb in by_person.items():
                if a != b and ea.grade is not None and eb.grade is not None:
                    xs, ys = mine.setdefault(a, ([], []))
                    xs.append(ea.grade)
                    ys.append(eb.grade)
    out = {}
    scale = list(store.grade_scale.grades)  # an imported source's 4 on a 0-4 collection
    for name, (xs, ys) in mine.items():
        kappa = cohen_kappa(xs, ys, scale) if len(xs) >= 2 else math.nan
        out[name] = {"n": len(xs), "kappa": None if math.isnan(kappa) else round(kappa, 4)}
    return out
