"""How reusable is the pool for a system that never contributed to it?

Leave-one-run-out (Zobel 1998; Buckley & Voorhees 2004): for each run, the judged documents
that only it brought into the pool are removed from the labels, as if it had never been
pooled; the run is re-scored and its score and rank compared with those under the full pool.
Leave-one-group-out does the same with every run of a group (systems sharing a ``group:`` in
the config, e.g. one team's variants), which is the fairer test when variants share most of
their documents. Overall: the mean and max absolute change, and Kendall's tau between the
full-pool ordering of runs and the ordering by each run's left-out score.

Also: the share of the pool's relevant documents that a single run found. A high share is a
warning sign: the pool likely misses relevant documents that no pooled run found either, and
runs outside it will be underestimated.

JSON shape (``poolkit reusability --format json``; keys may be added, none removed)::

    {"command", "poolkit_version", "date", "level", "measures": [names],
     "labels": {... as compare's "after" ..., "judged_outside_pool"},
     "pool": {"basis", "pairs", "systems": [names]},
     "full": {run: {measure: mean}}, "not_pooled": [runs],
     "leave_one_run_out": {"runs": {run: UNIT}, "summary": {measure: SUMMARY}},
     "leave_one_group_out": {"groups": {group: UNIT}, "summary": {...}} | null,
     "sources": {name: UNIT},  # pooled sources that are not runs (pool --find's classifier)
     "single_run": {"relevant_pooled", "found_by_one", "share", "by_run": {run: n}},
     "single_group"?: {... "by_group" ...}, "warnings": [text]}
    UNIT = {"members", "only_pooled", "removed_judged", "removed_relevant",
            "runs": {run: {measure: {"full", "left_out", "change",
                                     "rank": {"full", "left_out", "change"},
                                     "per_query": {qid: change}}}}}
    SUMMARY = {"mean_abs_change", "max_abs_change", "max_run", "max_rank_change",
               "runs_changing_rank", "kendall_tau"}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from poolkit.analysis.reports import WARN_UNIQUE, ReusabilityReport
from poolkit.analysis.stats import kendall_tau, ranks
from poolkit.errors import PoolkitError
from poolkit.io.provenance import PoolProvenance
from poolkit.io.run import Run
from poolkit.policies import Labels, Pair
from poolkit.score.evaluate import Evaluation, evaluate
from poolkit.score.measures import Measure


def _unit_report(unit: str, members: Sequence[str], labels: Labels, runs: Mapping[str, Run],
                 sources: Mapping[Pair, set[str]], full: Mapping[str, Evaluation],
                 measures: Sequence[Measure], level: int,
                 scored: Sequence[str] | None = None) -> dict[str, Any]:
    """Leave ``members`` out: the judged pairs only they pooled are removed and the runs
    re-scored (``scored``, default: the members that are runs)."""
    member_set = set(members)
    only = [p for p, s in sources.items() if s <= member_set]
    grades = labels.qrels.grades
    judged = [p for p in only if grades.get(p[0], {}).get(p[1], -1) >= 0]
    relevant = [p for p in judged if grades[p[0]][p[1]] >= level]
    reduced = labels.qrels.without(judged, f"{labels.name} without {unit}")
    scored = [m for m in members if m in runs] if scored is None else list(scored)
    out: dict[str, Any] = {"members": list(members), "only_pooled": len(only),
                           "removed_judged": len(judged), "removed_relevant": len(relevant),
                           "runs": {}}
    for name in scored:
        ev = evaluate(reduced, runs[name], measures, level=level)
        per_measure = {}
        for m in measures:
            f, r = full[name].means[m.name], ev.means[m.name]
            per_measure[m.name] = {
                "full": f, "left_out": r, "change": r - f,
                "per_query": {q: ev.per_query[m.name].get(q, 0.0)
                              - full[name].per_query[m.name].get(q, 0.0)
                              for q in full[name].scored}}
        out["runs"][name] = per_measure
    return out


def _summary(units: Mapping[str, dict[str, Any]], full: Mapping[str, Evaluation],
             measures: Sequence[Measure]) -> dict[str, Any]:
    """Per measure: rank changes, mean/max |change|, tau(full order, left-out order)."""
    names = list(full)
    out = {}
    for m in measures:
        full_means = [full[n].means[m.name] for n in names]
        loo = {}
        for unit in units.values():
            for n, per in unit["runs"].items():
                loo[n] = per[m.name]["left_out"]
        loo_means = [loo.get(n, full[n].means[m.name]) for n in names]
        full_rank = dict(zip(names, ranks(full_means)))
        changes = {}
        for i, n in enumerate(names):
            others = [v for j, v in enumerate(full_means) if j != i]
            rank_left_out = 1 + sum(1 for v in others if v > loo_means[i])
            changes[n] = {"full": full_rank[n], "left_out": rank_left_out,
                          "change": full_rank[n] - rank_left_out}
        for unit in units.values():
            for n, per in unit["runs"].items():
                per[m.name]["rank"] = changes[n]
        deltas = [abs(loo_means[i] - full_means[i]) for i in range(len(names))]
        worst = max(range(len(names)), key=lambda i: deltas[i])
        out[m.name] = {
            "mean_abs_change": sum(deltas) / len(deltas),
            "max_abs_change": deltas[worst], "max_run": names[worst],
            "max_rank_change": max(abs(c["change"]) for c in changes.values()),
            "runs_changing_rank": sum(1 for c in changes.values() if c["change"]),
            "kendall_tau": kendall_tau(full_means, loo_means),
        }
    return out


def single_source_share(labels: Labels, sources: Mapping[Pair, set[str]], level: int,
                        groups: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Relevant pooled documents found by one run (or one group) alone, overall and per unit."""
    grades = labels.qrels.grades
    relevant = [p for p in sources if grades.get(p[0], {}).get(p[1], -1) >= level]
    by_unit: dict[str, int] = {}
    single = 0
    for p in relevant:
        units = {groups.get(s, s) for s in sources[p]} if groups is not None else sources[p]
        if len(units) == 1:
            single += 1
            (u,) = units
            by_unit[u] = by_unit.get(u, 0) + 1
    return {"relevant_pooled": len(relevant), "found_by_one": single,
            "share": single / len(relevant) if relevant else 0.0,
            "by_run" if groups is None else "by_group": dict(sorted(by_unit.items()))}


def reusability(labels: Labels, runs: Mapping[str, Run], pool: PoolProvenance,
                measures: Sequence[Measure], *, level: int = 1,
                groups: Mapping[str, str] | None = None, warn_unique: float = WARN_UNIQUE,
                basis: str = "") -> ReusabilityReport:
    """The reusability report. ``pool``: who brought which pair in (from the runs, or the
    store's as of a version); ``groups``: system -> group (systems without one are their own
    group)."""
    if not runs:
        raise PoolkitError("reusability needs at least one run")
    sources = pool.systems_by_pair()
    measures = list(dict.fromkeys(measures))
    full = {n: evaluate(labels.qrels, r, measures, level=level) for n, r in runs.items()}
    pooled_systems = set().union(*sources.values()) if sources else set()
    grades = labels.qrels.grades
    outside = sum(1 for q, docs in grades.items() for d, g in docs.items()
                  if g >= 0 and (q, d) not in sources)
    doc: dict[str, Any] = {
        "level": level, "measures": [m.name for m in measures],
        "labels": {**labels.summary(level), "judged_outside_pool": outside},
        "pool": {"basis": basis, "pairs": len(sources),
                 "systems": sorted(pooled_systems)},
        "full": {n: {m.name: e.means[m.name] for m in measures} for n, e in full.items()},
        "not_pooled": [n for n in runs if n not in pooled_systems],
    }
    by_run = {n: _unit_report(n, [n], labels, runs, sources, full, measures, level)
              for n in runs}
    doc["leave_one_run_out"] = {"runs": by_run, "summary": _summary(by_run, full, measures)}
    # A pooled source that is not a run (``pool --find``'s classifier) is left out in turn
    # too, every run re-scored: how much the scores lean on what it found.
    doc["sources"] = {s: _unit_report(s, [s], labels, runs, sources, full, measures, level,
                                      scored=list(runs))
                      for s in sorted(pooled_systems - set(runs))}
    doc["single_run"] = single_source_share(labels, sources, level)
    doc["warnings"] = []
    share = doc["single_run"]["share"]
    if share > warn_unique:
        doc["warnings"].append(
            f"{share:.0%} of the relevant pooled documents were found by a single run "
            f"(above {warn_unique:.0%}): the pool is likely incomplete, and a run that was "
            f"not pooled will be underestimated")
    doc["leave_one_group_out"] = None
    if groups:
        all_systems = set(runs) | pooled_systems
        group_of = {s: groups.get(s, s) for s in all_systems}
        members: dict[str, list[str]] = {}
        for s in sorted(all_systems):
            members.setdefault(group_of[s], []).append(s)
        units = {g: _unit_report(g, ms, labels, runs, sources, full, measures, level)
                 for g, ms in members.items() if any(m in runs for m in ms)}
        doc["leave_one_group_out"] = {"groups": units,
                                      "summary": _summary(units, full, measures)}
        doc["single_group"] = single_source_share(labels, sources, level, group_of)
    return ReusabilityReport(**doc)
