"""The assign verb: write in the store who judges which pairs (``poolkit assign``).

Every pair of the latest pool (of ``queries``, default all) gets exactly ``overlap``
assessors, balanced (``pool.assignment``). The plan is read and written in one transaction
(``AssignSql.replace_assignment``), so a grade recorded meanwhile is either seen as settled
or waits: re-assigning keeps whoever settled a pair and moves only unjudged slots.
``replace`` (``bob=dave``) moves only bob's unjudged slots to dave; every other slot stays.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poolkit import interrupt
from poolkit.errors import PoolkitError
from poolkit.reports import Report, register_report

UNITS = ("query", "pair")


@dataclass(frozen=True)
class AssignRequest:
    config: str | Path
    assessors: tuple[str, ...] = ()
    overlap: int | None = None
    queries: tuple[str, ...] | None = None
    seed: int | None = None
    unit: str | None = None
    replace: tuple[tuple[str, str], ...] = ()


def assign(request: AssignRequest) -> AssignReport:
    """Record the plan ``request`` asks for; its report (per assessor: pairs assigned and
    already settled)."""
    from poolkit.collection import Collection
    from poolkit.pool.assignment import plan_slots
    from poolkit.store.assign_sql import AssignmentPlan

    with Collection.open(request.config, write=True) as collection:
        store = collection.store
        current = store.assignment_plan()
        assessors, overlap = _team(request, current)
        # unset: the current plan's (so --replace alone changes nothing else), else defaults
        unit = request.unit or (current.unit if current else "query")
        seed = request.seed if request.seed is not None else (current.seed if current else 0)
        if unit not in UNITS:
            raise PoolkitError(f"--unit {unit!r}: query or pair")
        pairs = _pairs(store, request.queries, collection.config.store_label)
        renames = dict(request.replace)
        plan = AssignmentPlan(overlap, unit, seed, assessors)

        def make(slots: Any, settled: Any) -> Any:
            keep = {p: [h if h in settled.get(p, ()) else renames.get(h, h)
                        for h in holders if h is not None]
                    for p, holders in slots.items()} if renames else None
            return plan_slots(pairs, assessors, overlap, unit, seed, settled, keep)

        number, slots = store.replace_assignment(plan, make)
        interrupt.done(f"assignment {number} recorded")
        settled = store.settled_pairs()
        label = collection.config.store_label
    held = Counter(h for holders in slots.values() for h in holders if h)
    done = Counter(h for p, holders in slots.items() for h in holders
                   if h and h in settled.get(p, ()))
    people = sorted(set(held) | set(assessors))
    return AssignReport(plan=number, overlap=overlap, unit=unit, seed=seed,
                        pairs=len(slots), store=label,
                        open_slots=sum(h is None for hs in slots.values() for h in hs),
                        assessors={a: {"assigned": held[a], "judged": done[a]}
                                   for a in people})


def _team(request: AssignRequest, current: Any) -> tuple[tuple[str, ...], int]:
    """The assessors and overlap: as given, or with ``--replace`` the current plan's with
    the replacements made."""
    from poolkit.io.validate import check_assessor

    names = [check_assessor(n, "--assessors:") for n in request.assessors]
    check_replacements(request.replace)
    if request.replace and not names:
        if current is None:
            raise PoolkitError("--replace needs a plan to change: run poolkit assign with "
                               "--assessors first")
        names = list(current.assessors)
    for old, new in request.replace:
        if old not in names:
            raise PoolkitError(f"--replace {old}={new}: {old} is not an assessor of the plan "
                               f"({', '.join(names)})")
        names[names.index(old)] = new
    overlap = request.overlap if request.overlap is not None else (
        current.overlap if current else None)  # 0 is refused below, never the old value
    if not names or overlap is None:
        raise PoolkitError("poolkit assign needs --assessors NAME,NAME and --overlap N")
    if overlap < 1:
        raise PoolkitError(f"--overlap {overlap}: each pair needs at least one assessor")
    if len(set(names)) != len(names):
        raise PoolkitError(f"--assessors names someone twice: {', '.join(names)}")
    if overlap < 1 or overlap > len(names):
        raise PoolkitError(f"--overlap {overlap}: each pair needs that many distinct assessors, "
                           f"and {len(names)} are named ({', '.join(names)})")
    return tuple(names), overlap


def check_replacements(replace: tuple[tuple[str, str], ...]) -> None:
    """Each ``--replace OLD=NEW`` hands one leaver's open slots to one newcomer. Refused: a
    NEW that is itself replaced (a chain ``a=b b=c`` or a cycle ``a=b b=a``: what happens
    would depend on the order the swaps are made), an OLD given twice, a NEW given twice (two
    leavers' slots on one pair would go to one person) and ``a=a``."""
    from poolkit.io.validate import check_assessor

    given: dict[str, str] = {}  # OLD -> its NEW, as given so far
    taken: dict[str, str] = {}  # NEW -> its OLD
    olds = {old for old, _ in replace}
    for old, new in replace:
        spec = f"--replace {old}={new}"
        check_assessor(new, f"{spec}:")
        if old == new:
            raise PoolkitError(f"{spec}: hands {old}'s pairs to {old}; name who takes them")
        if old in given:
            raise PoolkitError(f"{spec}: {old} is already replaced (--replace {old}="
                               f"{given[old]}); give one --replace per leaver")
        if new in olds:
            raise PoolkitError(f"{spec}: {new} is replaced too (a chain or cycle of "
                               f"--replace); hand each leaver's pairs to someone who stays")
        if new in taken:
            raise PoolkitError(f"{spec}: {new} already takes {taken[new]}'s pairs (--replace "
                               f"{taken[new]}={new}); one leaver per newcomer")
        given[old], taken[new] = new, old


def _pairs(store: Any, queries: tuple[str, ...] | None, label: str) -> list[tuple[str, str]]:
    pool = [(m.qid, m.docid) for m in store.pool()]
    if not pool:
        raise PoolkitError(f"{label}: nothing pooled to assign; run poolkit pool first")
    if queries is None:
        return pool
    known = {q for q, _ in pool}
    unknown = [q for q in queries if q not in known]
    if unknown:
        raise PoolkitError(f"--queries: {', '.join(unknown)} not pooled in {label}")
    return [p for p in pool if p[0] in set(queries)]


@register_report
@dataclass(frozen=True)
class AssignReport(Report):
    """``poolkit assign``'s report: the plan as recorded."""

    kind = "assign"

    plan: int
    overlap: int
    unit: str
    seed: int
    pairs: int
    store: str
    open_slots: int = 0
    assessors: dict[str, dict[str, int]] = field(default_factory=dict)
    command: str = "assign"

    def render_table(self) -> str:
        from poolkit.tables import table

        head = (f"plan {self.plan}: {self.pairs} pairs, each to {self.overlap} assessors "
                f"(by {self.unit}, seed {self.seed}), recorded in {self.store}")
        rows = [[a, str(v["assigned"]), str(v["judged"])] for a, v in self.assessors.items()]
        lines = [head, *table(["assessor", "assigned", "judged"], rows, "lrr", indent=2)]
        if self.open_slots:
            lines.append(f"{self.open_slots} slots open: the first to judge such a pair "
                         f"takes one")
        return "\n".join(lines) + "\n"
