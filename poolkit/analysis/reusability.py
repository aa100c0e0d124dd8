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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poolkit.analysis.stats import kendall_tau, ranks
from poolkit.errors import PoolkitError
from poolkit.io.run import Run
from poolkit.policies import Labels, Pair
from poolkit.reports import Report
from poolkit.score.evaluate import Evaluation, evaluate
from poolkit.score.measures import Measure

DEFAULT_MEASURES = ("nDCG@10", "AP", "P@10")
#: share of relevant documents found by one run alone above which the report warns
WARN_UNIQUE = 0.2


def sources_from_runs(runs: Mapping[str, Run], depth: int) -> dict[Pair, set[str]]:
    """The pool that pooling ``runs`` at ``depth`` makes: pair -> the runs that brought it in."""
    out: dict[Pair, set[str]] = {}
    for name, run in runs.items():
        for qid, docs in run.rankings.items():
            for d in docs[:depth]:
                out.setdefault((qid, d), set()).add(name)
    return out


def sources_from_store(store: Any, version: int) -> dict[Pair, set[str]]:
    """Pair -> systems that brought it into the pool, as of pool ``version``."""
    out: dict[Pair, set[str]] = {}
    for pair, sources in store.sources().items():
        systems = {s.system for s in sources if s.version <= version}
        if systems:
            out[pair] = systems
    return out


def _unit_report(unit: str, members: Sequence[str], labels: Labels, runs: Mapping[str, Run],
                 sources: Mapping[Pair, set[str]], full: Mapping[str, Evaluation],
                 measures: Sequence[Measure], level: int) -> dict[str, Any]:
    member_set = set(members)
    only = [p for p, s in sources.items() if s <= member_set]
    grades = labels.qrels.grades
    judged = [p for p in only if grades.get(p[0], {}).get(p[1], -1) >= 0]
    relevant = [p for p in judged if grades[p[0]][p[1]] >= level]
    reduced = labels.qrels.without(judged, f"{labels.name} without {unit}")
    scored = [m for m in members if m in runs]
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


@dataclass(frozen=True)
class ReusabilityReport(Report):
    """``poolkit reusability``: leave-one-run/group-out (JSON keys = fields)."""

    level: int
    measures: list[str]
    labels: dict[str, Any]
    pool: dict[str, Any]
    full: dict[str, dict[str, float]]
    not_pooled: list[str]
    leave_one_run_out: dict[str, Any]
    single_run: dict[str, Any]
    warnings: list[str]
    leave_one_group_out: dict[str, Any] | None
    single_group: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})


def reusability(labels: Labels, runs: Mapping[str, Run], sources: Mapping[Pair, set[str]],
                measures: Sequence[Measure], *, level: int = 1,
                groups: Mapping[str, str] | None = None, warn_unique: float = WARN_UNIQUE,
                basis: str = "") -> ReusabilityReport:
    """The reusability report. ``sources``: pair -> systems that pooled it;
    ``groups``: system -> group (systems without one are their own group)."""
    if not runs:
        raise PoolkitError("reusability needs at least one run")
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


# --- rendering ---------------------------------------------------------------------------------

def _unit_rows(units: Mapping[str, dict[str, Any]], label: str) -> tuple[list[str], list]:
    from poolkit.analysis.render import fmt, signed

    rows: list[list[str]] = []
    for unit, u in units.items():
        first = True
        for run, per in u["runs"].items():
            for name, m in per.items():
                removed = f"{u['removed_judged']}/{u['removed_relevant']}"
                lead = [unit, removed] if first else ["", ""]
                rows.append([*lead, run if label == "group" else "", name, fmt(m["full"]),
                             fmt(m["left_out"]), signed(m["change"]),
                             f"{m['rank']['full']} -> {m['rank']['left_out']}"])
                first = False
    head = [label, "removed judged/rel", "run", "measure", "full", "left out", "change", "rank"]
    if label != "group":
        head.pop(2)
        rows = [r[:2] + r[3:] for r in rows]
    return head, rows


def _summary_rows(summary: Mapping[str, dict[str, Any]]) -> list[list[str]]:
    from poolkit.analysis.render import fmt

    return [[n, fmt(s["mean_abs_change"]), f"{fmt(s['max_abs_change'])} ({s['max_run']})",
             str(s["runs_changing_rank"]), str(s["max_rank_change"]), fmt(s["kendall_tau"], 3)]
            for n, s in summary.items()]


def render_table(doc: dict[str, Any]) -> str:
    from poolkit.analysis.render import grid, tau_note

    lab = doc["labels"]
    where = (f"pool v{lab['pool_version']} of {Path(lab['store']).name} ({lab['policy']} "
             f"policy, {lab.get('unresolved', 0)} unresolved)"
             if lab.get("kind") == "store"
             else lab.get("path"))
    lines = [f"poolkit reusability: {len(doc['full'])} runs scored against {where} "
             f"({lab['judged']} judged, {lab['relevant']} relevant at level {doc['level']})",
             f"  pool: {doc['pool']['pairs']} pairs from {len(doc['pool']['systems'])} systems "
             f"({doc['pool']['basis']}); {lab['judged_outside_pool']} judged pairs lie outside it "
             f"and are always kept"]
    if doc["not_pooled"]:
        lines.append(f"  not in the pool (nothing to leave out): {', '.join(doc['not_pooled'])}")
    summary_head = ["measure", "mean |change|", "max |change|", "rank changes", "max rank move",
                    "tau"]
    for key, label, title in (
            ("leave_one_run_out", "run", "Leave one run out: the judged docs only that run "
                                         "brought are removed; the run is re-scored"),
            ("leave_one_group_out", "group", "Leave one group out: the judged docs only that "
                                             "group's runs brought are removed")):
        part = doc.get(key)
        if not part:
            continue
        units = part["runs"] if label == "run" else part["groups"]
        head, rows = _unit_rows(units, label)
        lines += ["", title]
        lines += grid(head, rows, left=(2, 3) if label == "group" else (2,))
        lines += ["", f"  overall ({'each run' if label == 'run' else 'each group'} left out in "
                      f"turn; tau = full-pool order vs left-out order)"]
        lines += grid(summary_head, _summary_rows(part["summary"]))
        lines += tau_note((s["kendall_tau"] for s in part["summary"].values()), len(doc["full"]))
    s = doc["single_run"]
    lines += ["", f"Relevant docs found by a single run: {s['found_by_one']} of "
                  f"{s['relevant_pooled']} relevant pooled docs ({s['share']:.1%})"]
    if s["by_run"]:
        lines += grid(["run", "found alone"], [[n, str(c)] for n, c in s["by_run"].items()])
    if doc.get("single_group"):
        g = doc["single_group"]
        lines.append(f"  by a single group: {g['found_by_one']} ({g['share']:.1%})")
    for w in doc["warnings"]:
        lines += ["", f"WARNING: {w}"]
    return "\n".join(lines) + "\n"
