"""``status``: judging progress per query and per assessor, and the judging plan's progress.

The counts (judged / pooled, grades, pace, double judgments) are the store's
(``store.judging.status_counts``); the plan (``pool.order``, ``pool.budget``, the stopping
rule) adds, per query, judged / budget, relevant found and the estimate of relevant passages
still unjudged. ``watch`` redraws a report until Ctrl-C (the team view).

Light at import: the command line's parser takes ``StatusReport.formats`` from here.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO

from poolkit.errors import StoreError, StoreUnavailable
from poolkit.reports import Report, register_report
from poolkit.tables import table

if TYPE_CHECKING:
    from poolkit.analysis.gold import GoldAgreement
    from poolkit.collection import Collection
    from poolkit.machine_choice import MachineChoice
    from poolkit.pool.stopping import StoppingRule
    from poolkit.store.contract import StoreBackend
    from poolkit.store.judging import StatusCounts


@dataclass(frozen=True)
class PlanProgress:
    """The judging plan as ``status`` shows it: the order, the budget, the stopping rule and,
    per query in the pool, what ``NextPassage.query_status`` says (budget, relevant found,
    remaining estimate, why closed)."""

    order: str
    budget: str | None
    stop_rule: dict[str, Any] | None
    queries: dict[str, dict[str, Any]] = field(default_factory=dict)


#: what a query's row takes from the plan, in this order
PLAN_KEYS = ("budget", "relevant_found", "remaining_estimate", "closed")


@register_report
@dataclass(frozen=True)
class StatusReport(Report):
    """``poolkit status``: the store's counts, and the plan's progress once there is a pool."""

    kind = "status"

    counts: StatusCounts
    plan: PlanProgress | None = None
    #: each machine judge version's coverage of the pool (``machine_coverage``); a store
    #: without machine judges has none, and its report is what it was before they existed
    machines: list[dict[str, Any]] = field(default_factory=list)
    #: the team's figures per assessor (``analysis.team``), merged into ``assessors``
    team: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the current assignment plan (``poolkit assign``), if there is one
    assignment: dict[str, Any] | None = None
    #: the store's top grade: the table's histogram columns before anyone judged (the JSON
    #: has each assessor's histogram, over the same grades)
    top: int = 3
    #: the current gold set (``poolkit gold``: file, pairs, rate, seed), if there is one
    gold_set: dict[str, Any] | None = None
    #: each assessor's agreement with the gold set (``analysis.gold``): what the JSON's
    #: ``assessors.NAME.gold`` and the table's gold lines show (none answered: absent)
    gold: dict[str, GoldAgreement] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = self.counts.to_dict()
        out["assessors"] = _with_team(out["assessors"], self.team, out["pooled"], self.top,
                                      self.gold)
        if self.gold_set is not None:
            out["gold_set"] = self.gold_set
        if self.gold_set is not None and not self.gold_set.get("hidden"):
            for name, cell in out["assessors"].items():
                cell["gold"] = (self.gold[name].to_dict() if name in self.gold
                                else _no_gold())
        if self.assignment is not None:
            out["assignment"] = self.assignment
        if self.plan is not None:
            out["queries"] = {qid: {**row, **self.plan.queries.get(qid, {})}
                              for qid, row in out["queries"].items()}
            out = {**out, "order": self.plan.order, "budget": self.plan.budget,
                   "stop_rule": self.plan.stop_rule}
            if self.plan.budget is not None:
                out["budget_progress"] = budget_progress(out["queries"].values())
        if self.machines:
            out["machine_judges"] = self.machines
        return out

    def render_table(self, verbose: bool = False) -> str:
        """What fits 80 columns: a row per query and one per assessor; ``verbose``: each
        assessor's row under every query, in one table."""
        return render_table(self.to_dict(), self.top, verbose=verbose)


def _no_gold() -> dict[str, Any]:
    from poolkit.analysis.gold import GoldAgreement

    return GoldAgreement(0).to_dict()


def _with_team(counts: dict[str, Any], team: dict[str, dict[str, Any]],
               pooled: int, top: int, gold: Mapping[str, Any]) -> dict[str, Any]:
    """Each assessor's counts with her team figures; one assigned work, or who answered
    gold passages, who has judged nothing yet is listed too (with nothing counted)."""
    blank = {"judged": 0, "pooled": pooled, "grades": {str(g): 0 for g in range(top + 1)},
             "median_seconds": None, "fast": False, "under_min_display": 0}
    names = sorted(set(counts) | {n for n, t in team.items() if t.get("assigned")} | set(gold))
    return {n: {**counts.get(n, blank), **team.get(n, {})} for n in names}


def status(collection: Collection, pool_version: int | None = None,
           now: datetime | None = None) -> StatusReport:
    """The report as of ``now`` (default: this moment) on ``collection``'s store, against the
    pool as of ``pool_version`` (None: the latest, so a new version is picked up at each
    call)."""
    from poolkit.store.judging import status_report

    top = collection.config.grades.top  # the store's, once a grade was given (Collection)
    counts = status_report(collection.store, pool_version, collection.config.judge.min_display,
                           top)
    from poolkit.analysis.team import team_figures, with_flags

    machines = machine_coverage(collection.store, counts.pool_version,
                                collection.machine_choice())
    team, assignment = team_figures(collection.store, now)
    team = with_flags(team, counts.assessors, top)
    gold_set, gold = gold_figures(collection.store)
    plan = (plan_progress(collection, counts.pool_version, counts.queries)
            if counts.pool_version is not None else None)
    return StatusReport(counts, plan, machines, team, assignment, top, gold_set, gold)


def gold_figures(store: StoreBackend) -> tuple[dict[str, Any] | None, dict[str, GoldAgreement]]:
    """The current gold set as the report names it, and each assessor's agreement with it
    (``analysis.gold``); (None, {}) without a gold set."""
    from poolkit.analysis.gold import gold_agreement

    current = store.gold_set()
    if current is None:
        return None, {}
    described = {"gold_set": current.gset, "labels": current.path,
                 "pairs": len(store.gold_queue()), "rate": current.rate, "seed": current.seed}
    try:
        return described, gold_agreement(store)
    except StoreError:  # an assessor on PostgreSQL: gold's grades and file are the lead's
        del described["labels"]
        return {**described, "hidden": True}, {}


def machine_coverage(store: StoreBackend, version: int | None,
                     choice: MachineChoice | None = None) -> list[dict[str, Any]]:
    """Each machine judge version, oldest first per judge: the pool's pairs (as of
    ``version``; none without a pool) it holds a standing grade on, and those it failed on
    (an ``autojudge`` failure, a note event with ``{"failed": ...}``, not graded since).
    ``default`` marks the version a bare ``--with-machine NAME`` reads (``choice``: the
    collection's ``machine_choice``; None: a store without a config); a judge none of
    whose versions is it has none marked. ``flagged`` counts the pooled pairs whose grade
    was of a flagged passage (``judges.flags``; not in ``graded`` where the judge's
    ``flagged:`` is ``human``) and ``flagged_pairs`` lists them with the reasons;
    ``given_up`` counts the failed pairs autojudge no longer asks (``max_failures``
    failures each) and ``given_up_pairs`` lists them."""
    from poolkit.machine_choice import MachineChoice
    from poolkit.policies import machine_failures

    choice = choice or MachineChoice(store, str(store.path))
    judges = choice.known()
    if not judges:
        return []
    pooled = store.pooled_pairs(version) if version is not None else set()
    out = []
    for judge in judges:
        failed = machine_failures(store, judge)
        limit = choice.max_failures(judge)
        versions = choice.versions(judge)
        default = choice.default(judge) if versions else None
        rows = [(v.version, v is default, set(v.grades) & pooled, v.flagged)
                for v in versions]
        known = {v.version for v in versions}
        rows.extend((version_, False, set(), {}) for version_ in sorted(failed)
                    if version_ not in known)
        for version_, is_default, graded, flagged in rows:
            counts = {p: n for p, n in failed.get(version_, {}).items()
                      if p in pooled and p not in flagged and p not in graded}
            marked = sorted(p for p in flagged if p in pooled)
            gave_up = sorted(p for p, n in counts.items() if n >= limit)
            out.append({"judge": judge, "version": version_, "default": is_default,
                        "graded": len(graded), "pooled": len(pooled), "failed": len(counts),
                        "flagged": len(marked),
                        "flagged_pairs": [[q, d, flagged[(q, d)]] for q, d in marked],
                        "given_up": len(gave_up),
                        "given_up_pairs": [[q, d, counts[(q, d)]] for q, d in gave_up]})
    return out


def plan_progress(collection: Collection, version: int, qids: Iterable[str]) -> PlanProgress:
    """Per query of ``qids`` in the pool: judged / budget, relevant found, the estimate of
    relevant passages still unjudged (95% interval), and why the query is closed, if it is."""
    chooser = collection.next_passage(version)
    config = collection.config
    settings = config.pool.settings
    queries = {}
    for qid in qids:
        if qid in chooser.pools:
            extra = chooser.query_status(qid)
            queries[qid] = {k: extra[k] for k in PLAN_KEYS}
    return PlanProgress(
        order=config.pool.order,
        budget=str(chooser.budget) if chooser.budget else None,
        stop_rule=_stop_rule(chooser.stop_rule, settings.get("stop_confidence", 0.9)),
        queries=queries)


def budget_progress(queries: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Judged of what the budget allows, over the pool's queries: a query judged past its
    budget (judged before the budget was set) counts its budget, not more."""
    rows = [(q["judged"], q["budget"]) for q in queries if q.get("budget") is not None]
    return {"judged": sum(min(j, b) for j, b in rows), "allowed": sum(b for _, b in rows)}


def _stop_rule(rule: StoppingRule | None, confidence: float) -> dict[str, Any] | None:
    """The stopping rule's entry: its name, target recall, confidence and promise."""
    if rule is None:
        return None
    return {"rule": rule.name, "target": rule.target, "confidence": confidence,
            "promise": rule.promise()}


def watch(draw: Callable[[], str], seconds: float, refreshes: int | None = None,
          sleep: Callable[[float], None] | None = None, out: TextIO | None = None,
          clock: Callable[[], datetime] = datetime.now) -> None:
    """Redraw ``draw()`` every ``seconds`` (``refreshes`` times; None: until Ctrl-C). On a
    terminal each frame replaces the last; piped, frames follow each other. A store that
    cannot be reached for a frame (a PostgreSQL restart) is said in that frame and read
    again at the next one (the connection is opened again then)."""
    out = out or sys.stdout
    sleep = sleep or time.sleep  # looked up now: a test may stand in for it
    clear = "\x1b[H\x1b[2J" if out.isatty() else ""
    n = 0
    try:
        while refreshes is None or n < refreshes:
            if n:
                sleep(seconds)
            try:
                frame = draw()
            except StoreUnavailable as exc:  # a server restarting: say so, try next frame
                frame = f"store unreachable: {exc} (trying again)\n"
            stamp = clock().strftime("%H:%M:%S")
            out.write(f"{clear}{frame}-- {stamp}, every {seconds:g}s; Ctrl-C to stop\n")
            out.flush()
            n += 1
    except KeyboardInterrupt:
        out.write("\n")


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _scale_of(report: Mapping[str, Any], top: int) -> list[str]:
    """The histogram's columns: the grades every assessor's histogram has (the store's
    scale 0..``top``, and any grade above it an older store holds)."""
    cells = list(report["assessors"].values())
    return list(cells[0]["grades"]) if cells else [str(g) for g in range(top + 1)]


def render_table(report: Mapping[str, Any], top: int = 3, team: bool = True,
                 verbose: bool = True) -> str:
    """The report (as its JSON document) as aligned text for a terminal; ``team``: with the
    per-assessor team table (the dashboard, which draws those figures itself, leaves it);
    ``verbose`` (the dashboard's): every assessor's row under every query in one table, else
    a table per query and one per assessor, which fit 80 columns."""
    from poolkit.store.judging import FAST_MEDIAN

    grades = _scale_of(report, top)
    blank = ("",) * len(grades)
    head = ("query", "assessor", "judged/pooled", *(f"g{g}" for g in grades), "med s",
            "double", "judged/budget", "rel", "left est (95%)")
    rows: list[tuple[str, ...]] = []

    def cells(qid: str, name: str, cell: dict[str, Any], double: str = "") -> tuple[str, ...]:
        g = cell["grades"]
        return (qid, name, f"{cell['judged']}/{cell['pooled']}", *(g.get(k, 0) for k in grades),
                _seconds(cell["median_seconds"]), double, "", "", "")

    def progress(q: dict[str, Any]) -> tuple[str, str, str]:
        if "remaining_estimate" not in q:
            return ("", "", "")
        est = q["remaining_estimate"]
        budget = "-" if q["budget"] is None else str(q["budget"])
        left = f"{est['value']:.1f} ({est['low']:g}-{est['high']:g})"
        return (f"{q['judged']}/{budget}" + (" stop" if q["closed"] else ""),
                str(q["relevant_found"]), left)

    for qid, q in report["queries"].items():
        rows.append((qid, "(any)", f"{q['judged']}/{q['pooled']}", *blank, "",
                     str(q["doubly_judged"]), *progress(q)))
        rows.extend(cells(qid, name, c) for name, c in q["assessors"].items())
    spent = report.get("budget_progress")
    rows.append(("all", "(any)", f"{report['judged']}/{report['pooled']}", *blank, "",
                 str(report["doubly_judged"]),
                 f"{spent['judged']}/{spent['allowed']}" if spent else "", "", ""))
    rows.extend(cells("all", name, c) for name, c in report["assessors"].items())
    from poolkit.io.paths import shown_path

    lines = [f"store {shown_path(report['store'])} · pool version {report['pool_version']}",
             *(table(head, [tuple(str(c) for c in r) for r in rows], align="llr") if verbose
               else _brief_tables(head, rows, len(grades)))]
    for qid, q in report["queries"].items():
        if q.get("closed"):
            lines.append(f"query {qid}: no more passages offered: {q['closed']}")
    for name, cell in report["assessors"].items():
        if cell.get("fast"):
            lines.append(f"{name}: median {_seconds(cell['median_seconds'])} s per judgment, "
                         f"under {FAST_MEDIAN:g} s: check that the passages are being read")
        if cell.get("under_min_display"):
            lines.append(f"{name}: {cell['under_min_display']} judgment(s) made less than "
                         f"{report['min_display']:g} s after the passage appeared")
    if report["unpooled_labels"]:
        lines.append(f"{report['unpooled_labels']} label(s) on pairs outside the pool "
                     f"(imported) are not counted above")
    if team and report["assessors"]:
        lines += team_lines(report)
    if report.get("machine_judges"):
        lines += machine_lines(report["machine_judges"])
    if report.get("gold_set"):
        lines += gold_lines(report)
    return "\n".join(lines) + "\n"


def _brief_tables(head: Sequence[str], rows: Sequence[Sequence[Any]],
                  grades: int) -> list[str]:
    """The one table's rows as two that fit 80 columns: each query's (and all's) progress,
    then each assessor's histogram and pace over all queries (the ``all`` rows); a column
    that is blank on every row is left out."""
    progress = [0, 2, 4 + grades, 5 + grades, 6 + grades, 7 + grades]
    by_query = [r for r in rows if r[1] == "(any)"]
    by_assessor = [r for r in rows if r[0] == "all" and r[1] != "(any)"]

    # judged/budget says nothing judged/pooled does not while no query has a budget
    cols = [c for c in progress if any(str(r[c]) and not str(r[c]).endswith("/-")
                                       for r in by_query)]
    out = table([head[c] for c in cols], [[str(r[c]) for c in cols] for r in by_query],
                align="lr")
    if by_assessor:
        cols = [1, 2, *range(3, 3 + grades), 3 + grades]
        out += ["", *table([head[c] for c in cols],
                           [[str(r[c]) for c in cols] for r in by_assessor], align="lr")]
    return out


def team_lines(report: Mapping[str, Any]) -> list[str]:
    """Each assessor's team figures (the JSON's ``assessors.NAME.*``: judged, settled of
    assigned, can't-judge, pace, active time, kappa with peers and with gold, flags), under
    the assignment plan's line: ``status_cells.assessor_block``, the dashboard's cells."""
    from poolkit.app.status_cells import assessor_block

    plan = report.get("assignment")
    title = ("team (no assignment plan):" if plan is None else
             f"team: plan {plan['plan']}, {plan['pairs']} pairs, each to {plan['overlap']} "
             f"assessors by {plan['unit']}" + (f", {plan['open_slots']} slots open"
                                              if plan["open_slots"] else "") + ":")
    return ["", title, *assessor_block(report)]


def machine_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The machine judges' table: never mixed into the people's counts above it."""
    head = ("machine judge", "version", "graded/pooled", "coverage", "failed")
    cells = [(r["judge"], r["version"] + (" (default)" if r["default"] else ""),
              f"{r['graded']}/{r['pooled']}",
              f"{r['graded'] / r['pooled']:.1%}" if r["pooled"] else "-", str(r["failed"]))
             for r in rows]
    notes = []
    for r in rows:
        label = f"{r['judge']}@{r['version']}"
        if r.get("flagged"):
            notes.append(f"{label}: {_pairs(r['flagged'])} with a flagged passage (text aimed "
                         f"at the grader; --format json lists them)")
        if r.get("given_up"):
            notes.append(f"{label}: {_pairs(r['given_up'])} given up after repeated failures, "
                         f"left for people (autojudge --retry-failed asks again)")
    return ["", "machine judges (not counted above; labels only with --with-machine):",
            *table(head, cells, align="llrrr"), *notes]


def _pairs(n: int) -> str:
    return f"{n} pair{'s' if n != 1 else ''}"


def gold_lines(report: Mapping[str, Any]) -> list[str]:
    """Each assessor against the gold set (``analysis.gold``), and a line per flag."""
    from poolkit.analysis.gold import BIAS_FLAG, DRIFT_WINDOW, LOW_KAPPA

    gold = report["gold_set"]
    if gold.get("hidden"):
        return ["", f"gold checks: set {gold['gold_set']}, {gold['pairs']} pairs; agreement "
                    f"with gold is the lead's to read"]
    head = ("assessor", "gold n", "exact", "kappa (95%)", "bias", "flags")
    rows, notes = [], []
    for name, c in report["assessors"].items():
        g = c["gold"]
        kappa = "-" if g["kappa"] is None else f"{g['kappa']:.2f}" + (
            f" ({g['low']:.2f}-{g['high']:.2f})" if g["low"] is not None else "")
        rows.append((name, str(g["n"]), "-" if g["exact"] is None else f"{g['exact']:.0%}",
                     kappa, "-" if g["bias"] is None else f"{g['bias']:+.2f}",
                     ", ".join(g["flags"]) or "-"))
        if "lenient" in g["flags"] or "strict" in g["flags"]:
            side, flag = ("above", "lenient") if g["bias"] > 0 else ("below", "strict")
            notes.append(f"{name}: grades {abs(g['bias']):.2f} {side} gold on average over "
                         f"{g['n']} gold passages ({flag}: over {BIAS_FLAG:g})")
        if "low" in g["flags"]:
            notes.append(f"{name}: agreement with gold under {LOW_KAPPA:g} (kappa's interval "
                         f"tops out at {g['high']:.2f})")
        if "drift" in g["flags"]:
            d = g["drift"]
            notes.append(f"{name}: drift: {d['recent']:.0%} exact on the last {DRIFT_WINDOW} "
                         f"gold passages, {d['earlier']:.0%} before")
    title = (f"gold checks: set {gold['gold_set']}, {gold['pairs']} pairs from "
             f"{gold['labels']}, {gold['rate']:g} per passage (quadratic kappa):")
    if not rows:
        return ["", title, "  nobody has judged yet: no answer to hold against gold"]
    return ["", title, *table(head, rows, align="lrrrrl"), *notes]
