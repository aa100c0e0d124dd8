"""``poolkit reusability``'s table: a rendering of the report's JSON document
(``ReusabilityReport``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from poolkit.io.paths import shown_path


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


# The two rank columns and tau compare different orders, so they can disagree (a rank change
# beside tau 1.000): say what each compares under the table.
SUMMARY_LEGEND = [
    "  (1) each run's left-out score ranked among the other runs' full-pool scores: how many runs",
    "      move, and the largest move",
    "  (2) Kendall's tau between the full-pool order and the order of all the runs' left-out",
    "      scores (each scored as when it was left out): a run that drops below another's",
    "      full-pool score but not below that run's left-out score counts in (1), not in (2)"]


def render_table(doc: dict[str, Any]) -> str:
    from poolkit.analysis.render import fmt, grid, signed, tau_note

    lab = doc["labels"]
    where = (f"pool v{lab['pool_version']} of {shown_path(lab['store'])} ({lab['policy']} "
             f"policy, {lab.get('unresolved', 0)} unresolved)"
             if lab.get("kind") == "store"
             else lab.get("path"))
    lines = [f"poolkit reusability: {len(doc['full'])} runs scored against {where} "
             f"({lab['judged']} judged, {lab['relevant']} relevant at level {doc['level']}"
             + (f"; {lab['machine_graded']} by machine judge {', '.join(lab['machine'])}, a "
                f"person's grade winning" if lab.get("machine") else "") + ")",
             f"  pool: {doc['pool']['pairs']} pairs from {len(doc['pool']['systems'])} systems "
             f"({doc['pool']['basis']}); {lab['judged_outside_pool']} judged pairs lie outside it "
             f"and are always kept"]
    if doc["not_pooled"]:
        lines.append(f"  not in the pool (nothing to leave out): {', '.join(doc['not_pooled'])}")
    summary_head = ["measure", "mean |change|", "max |change|", "rank changes (1)",
                    "max rank move (1)", "tau (2)"]
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
                      f"turn)"]
        lines += grid(summary_head, _summary_rows(part["summary"]))
        lines += SUMMARY_LEGEND
        lines += tau_note((s["kendall_tau"] for s in part["summary"].values()), len(doc["full"]))
    for name, unit in doc.get("sources", {}).items():
        lines += ["", f"Leave {name} out (not a run: it found passages beyond the pool): "
                      f"{unit['removed_judged']} judged docs only it brought are removed "
                      f"({unit['removed_relevant']} relevant); every run re-scored"]
        lines += grid(["run", "measure", "full", "left out", "change"],
                      [[run, m, fmt(v["full"]), fmt(v["left_out"]), signed(v["change"])]
                       for run, per in unit["runs"].items() for m, v in per.items()])
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
