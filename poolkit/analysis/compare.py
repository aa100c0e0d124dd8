"""Re-scoring after pool expansion: every run under two label sets, side by side.

For each run and measure: the mean and every query's value before and after, the change,
and the run's rank among the runs; for each measure, Kendall's tau between the two orderings
of runs. Three things keep the comparison honest:

* Unjudged documents in a run's top K are counted under each label set (a standard measure
  reads them as non-relevant, which is exactly the bias pooling fixes): ``unjudged`` and
  ``Judged@K`` sit beside every run.
* Every measure also comes as its condensed-list variant (``judged_only=true``: unjudged
  documents removed before ranks are counted; Sakai 2007), and bpref, which reads judged
  documents only. A run whose standard score moves but whose condensed score does not was
  under-judged, not bad.
* Per contributing run: how many documents new to the pool it brought, how many of those
  only it brought, and how many were judged relevant. Runs that did not contribute to a pool
  are flagged.

With a judging store the contribution comes from the pool's provenance (which system brought
which document in, per version). With two label files, a run's new documents are the pairs
judged after but not before that sit in its top ``depth``, and which runs were pooled is
what the user says (``--pooled-before``/``--pooled-after``), else unknown.

JSON shape (``poolkit compare --format json``; keys may be added, none removed)::

    {"command", "poolkit_version", "date", "level", "cutoffs": [K..], "measures": [names],
     "primary": [names asked for], "condensed": bool,
     "before" / "after": {"name", "kind": "store"|"file", "pool_version"?, "store"?,
                          "policy"?, "path"?, "sha256", "judged", "relevant", "unresolved",
                          "pooled"?, "scored", "excluded"},
     "contribution": {"basis", "total": {"new_docs", "new_judged", "new_relevant"}} | null,
     "runs": [{"name", "path", "sha256",
               "pooled": {"before": bool|null, "after": bool|null},
               "contribution": {"new_docs", "only_it", "new_judged", "new_relevant"} | null,
               "judged": {K: {"before", "after"}},          # mean Judged@K
               "unjudged": {K: {"before", "after", "per_query": {qid: {"before", "after"}}}},
               "measures": {name: {"before", "after", "change",
                                   "rank": {"before", "after", "change"},
                                   "per_query": {qid: {"before", "after", "change"}}}},
               "flags": [text]}],
     "ranking": {name: {"kendall_tau", "before": [runs best first], "after": [...],
                        "order_before": "a > b = c", "order_after": ...}},
     # two runs or more (else {} and null):
     "tests": {"before" / "after": {name: [{"a", "b", "n", "diff", "ci", "p", "p_adjusted",
                                            "significant"}]}},   # PairedTests.to_dict
     "test_settings": {"before" / "after": {"test", "alpha", "correction", "family", ...}},
     "significance": {name: {"survived" | "lost" | "reversed" | "gained": [
                        {"a", "b", "before": {"diff", "p"}, "after": {"diff", "p"}}]}}}

Paired tests run under each label set on its own scored queries; the adjustment's family is
every pair and measure of that label set. ``significance`` is the pooling bias in the currency
of significance: which differences significant under the earlier labels survive, are lost or
reverse under the later ones, and which only the later labels find.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from poolkit.analysis.stats import kendall_tau, ranks
from poolkit.errors import PoolkitError
from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.policies import Labels, Pair
from poolkit.reports import Report
from poolkit.score.evaluate import evaluate
from poolkit.score.measures import Measure, parse_measures
from poolkit.score.significance import TestOptions, pairwise_tests, shifts

DEFAULT_MEASURES = ("nDCG@10", "AP", "P@10")
NO_CONDENSED = ("Judged", "bpref")  # bpref already reads judged docs only


def expand_measures(measures: Sequence[Measure], condensed: bool = True) -> list[Measure]:
    """The measures, then each one's condensed-list variant, then bpref."""
    out = list(dict.fromkeys(measures))
    if condensed:
        out += [replace(m, judged_only=True) for m in list(out)
                if m.family not in NO_CONDENSED and not m.judged_only]
    bpref = parse_measures(["bpref"])[0]
    if bpref not in out:
        out.append(bpref)
    return list(dict.fromkeys(out))


def cutoffs_of(measures: Sequence[Measure], default: int = 10) -> list[int]:
    ks = sorted({m.cutoff for m in measures if m.cutoff is not None})
    return ks or [default]


def unjudged_in_top(run: Run, qrels: Qrels, queries: Sequence[str], k: int) -> dict[str, int]:
    """Per query: documents in the top ``k`` carrying no judgment (no grade >= 0)."""
    out = {}
    for qid in queries:
        grades = qrels.grades.get(qid, {})
        out[qid] = sum(1 for d in run.rankings.get(qid, [])[:k] if grades.get(d, -1) < 0)
    return out


def _judged_pairs(qrels: Qrels) -> set[Pair]:
    return {(q, d) for q, docs in qrels.grades.items() for d, g in docs.items() if g >= 0}


def _relevant(qrels: Qrels, pair: Pair, level: int) -> bool:
    return qrels.grades.get(pair[0], {}).get(pair[1], -1) >= level


# --- who brought what ---------------------------------------------------------------------------

def store_contributions(store: Any, before: int, after: int, labels: Qrels, level: int,
                        ) -> dict[str, Any]:
    """From the pool's provenance: per system, documents first pooled in versions
    ``before+1..after`` that it brought in, those only it brought, and how they were judged."""
    new = {(m.qid, m.docid) for m in store.pool(max_version=after) if m.version > before}
    by_system: dict[str, dict[str, int]] = {}
    pooled_before: set[str] = set()
    pooled_after: set[str] = set()
    for pair, sources in store.sources().items():
        systems = {s.system for s in sources if s.version <= after}
        pooled_after |= systems
        pooled_before |= {s.system for s in sources if s.version <= before}
        if pair not in new:
            continue
        for system in systems:
            c = by_system.setdefault(system, {"new_docs": 0, "only_it": 0, "new_judged": 0,
                                               "new_relevant": 0})
            c["new_docs"] += 1
            c["only_it"] += len(systems) == 1
            grade = labels.grades.get(pair[0], {}).get(pair[1], -1)
            c["new_judged"] += grade >= 0
            c["new_relevant"] += grade >= level
    judged_new = [p for p in new if labels.grades.get(p[0], {}).get(p[1], -1) >= 0]
    versions = f"version {after}" if after == before + 1 else f"versions {before + 1}..{after}"
    return {
        "basis": f"pool provenance: documents first pooled in {versions}",
        "systems": by_system, "pooled_before": pooled_before, "pooled_after": pooled_after,
        "total": {"new_docs": len(new), "new_judged": len(judged_new),
                  "new_relevant": sum(1 for p in new if _relevant(labels, p, level))},
    }


def label_contributions(before: Qrels, after: Qrels, runs: Mapping[str, Run], depth: int,
                        level: int, pooled_before: set[str] | None = None,
                        pooled_after: set[str] | None = None) -> dict[str, Any]:
    """Without a store: the new labels (pairs judged after but not before) that sit in each
    run's top ``depth``, those in no other run's top ``depth``, and how many are relevant.
    Who was pooled cannot be read off label files: it is what the caller says (or unknown)."""
    new = _judged_pairs(after) - _judged_pairs(before)
    tops = {name: {(q, d) for q, docs in run.rankings.items() for d in docs[:depth]}
            for name, run in runs.items()}
    by_system = {}
    for name, top in tops.items():
        mine = top & new
        others = set().union(*(t for n, t in tops.items() if n != name))
        by_system[name] = {"new_docs": len(mine), "only_it": len(mine - others),
                           "new_judged": len(mine),
                           "new_relevant": sum(1 for p in mine if _relevant(after, p, level))}
    return {
        "basis": f"label files: new = judged after but not before, within a run's top {depth}",
        "systems": by_system, "pooled_before": pooled_before, "pooled_after": pooled_after,
        "total": {"new_docs": len(new), "new_judged": len(new),
                  "new_relevant": sum(1 for p in new if _relevant(after, p, level))},
    }


# --- the comparison -----------------------------------------------------------------------------

def _per_query(b: Mapping[str, float] | None, a: Mapping[str, float] | None,
               queries: Sequence[str]) -> dict[str, dict[str, float | None]]:
    out = {}
    for q in queries:
        vb = b.get(q) if b is not None else None
        va = a.get(q) if a is not None else None
        out[q] = {"before": vb, "after": va,
                  "change": va - vb if va is not None and vb is not None else None}
    return out


def compare(before: Labels, after: Labels, runs: Mapping[str, Run],
            measures: Sequence[Measure], *, level: int = 1, condensed: bool = True,
            contributions: Mapping[str, Any] | None = None,
            tests: TestOptions | None = None) -> CompareReport:
    """The comparison report (see module doc). ``runs`` maps display name -> Run.
    ``tests``: how to run the paired tests (default options; they need two runs or more)."""
    if not runs:
        raise PoolkitError("compare needs at least one run")
    primary = list(dict.fromkeys(measures))
    shown = expand_measures(primary, condensed)
    ks = cutoffs_of(primary)
    judged = [Measure("Judged", k) for k in ks]
    evals = {}
    for name, run in runs.items():
        evals[name] = (evaluate(before.qrels, run, [*shown, *judged], level=level),
                       evaluate(after.qrels, run, [*shown, *judged], level=level))
    first_b, first_a = next(iter(evals.values()))
    queries = list(dict.fromkeys([*first_b.scored, *first_a.scored]))
    contrib = contributions or {}
    systems = contrib.get("systems", {})
    pooled_b = contrib.get("pooled_before")
    pooled_a = contrib.get("pooled_after")

    rows = []
    for name, run in runs.items():
        eb, ea = evals[name]
        entry: dict[str, Any] = {
            "name": name, "path": run.path, "sha256": run.sha256,
            "pooled": {"before": None if pooled_b is None else name in pooled_b,
                       "after": None if pooled_a is None else name in pooled_a},
            "contribution": systems.get(name, {"new_docs": 0, "only_it": 0, "new_judged": 0,
                                               "new_relevant": 0}) if contributions else None,
            "judged": {}, "unjudged": {}, "measures": {}, "flags": [],
        }
        for k, jm in zip(ks, judged):
            ub = unjudged_in_top(run, before.qrels, eb.scored, k)
            ua = unjudged_in_top(run, after.qrels, ea.scored, k)
            entry["judged"][str(k)] = {"before": eb.means[jm.name], "after": ea.means[jm.name]}
            entry["unjudged"][str(k)] = {
                "before": sum(ub.values()), "after": sum(ua.values()),
                "per_query": {q: {"before": ub.get(q), "after": ua.get(q)} for q in queries}}
        for m in shown:
            mb, ma = eb.means[m.name], ea.means[m.name]
            entry["measures"][m.name] = {
                "before": mb, "after": ma, "change": ma - mb,
                "per_query": _per_query(eb.per_query[m.name], ea.per_query[m.name], queries)}
        k0 = str(ks[0])
        for side in ("before", "after"):
            if entry["pooled"][side] is False:
                entry["flags"].append(f"not in the '{side}' pool (Judged@{k0} "
                                      f"{entry['judged'][k0][side]:.3f})")
        u = entry["unjudged"][k0]
        if u["before"] or u["after"]:
            entry["flags"].append(f"unjudged in its top {k0}: {u['before']} before, "
                                  f"{u['after']} after (read as non-relevant by the standard "
                                  f"measures; the condensed X' variants drop them)")
        rows.append(entry)

    ranking = {}
    names = [r["name"] for r in rows]
    for m in shown:
        vb = [r["measures"][m.name]["before"] for r in rows]
        va = [r["measures"][m.name]["after"] for r in rows]
        rb, ra = ranks(vb), ranks(va)
        for r, x, y in zip(rows, rb, ra):
            r["measures"][m.name]["rank"] = {"before": x, "after": y, "change": x - y}
        ranking[m.name] = {
            "kendall_tau": kendall_tau(vb, va),
            "before": [n for _, n in sorted(zip(rb, names), key=lambda t: t[0])],
            "after": [n for _, n in sorted(zip(ra, names), key=lambda t: t[0])],
            "order_before": ranking_order(names, vb), "order_after": ranking_order(names, va),
        }
    paired: dict[str, Any] = {"tests": {}, "test_settings": None, "significance": {}}
    if len(runs) > 1:
        names_shown = [m.name for m in shown]
        opts = tests or TestOptions()
        by_labels = {s: pairwise_tests({n: evals[n][i].per_query for n in runs}, names_shown,
                                       opts)
                     for i, s in enumerate(("before", "after"))}
        paired = {"tests": {s: t.to_dict() for s, t in by_labels.items()},
                  "test_settings": {s: t.settings() for s, t in by_labels.items()},
                  "significance": shifts(by_labels["before"], by_labels["after"])}
    return CompareReport(
        level=level, cutoffs=ks,
        measures=[m.name for m in shown], primary=[m.name for m in primary],
        condensed=condensed,
        before={**before.summary(level), "scored": len(first_b.scored),
                "excluded": len(first_b.excluded)},
        after={**after.summary(level), "scored": len(first_a.scored),
               "excluded": len(first_a.excluded)},
        contribution=None if not contributions else {
            "basis": contrib["basis"], "total": contrib["total"]},
        runs=rows,
        ranking=ranking,
        **paired,
    )


@dataclass(frozen=True)
class CompareReport(Report):
    """``poolkit compare``: every run under two label sets (JSON keys = fields). ``tests``,
    ``test_settings`` and ``significance`` are the paired tests under each label set and what
    survived between them (``{}`` / None with a single run)."""

    level: int
    cutoffs: list[int]
    measures: list[str]
    primary: list[str]
    condensed: bool
    before: dict[str, Any]
    after: dict[str, Any]
    contribution: dict[str, Any] | None
    runs: list[dict[str, Any]]
    ranking: dict[str, Any]
    tests: dict[str, Any]
    test_settings: dict[str, Any] | None
    significance: dict[str, Any]


# --- rendering ---------------------------------------------------------------------------------

def short_name(name: str) -> str:
    """Table spelling: the condensed variant as a prime, ``AP(judged_only=true)`` -> ``AP'``."""
    if "judged_only=true" not in name:
        return name
    s = (name.replace(",judged_only=true", "").replace("judged_only=true,", "")
         .replace("(judged_only=true)", ""))
    head, at, cut = s.partition("@")
    return f"{head}'{at}{cut}"


def ranking_order(names: Sequence[str], values: Sequence[float]) -> str:
    """Runs best first, ``>`` between ranks and ``=`` within a tie: ``b > a = c``."""
    ordered = sorted(zip(ranks(values), names), key=lambda t: t[0])
    out = ""
    for i, (rank, name) in enumerate(ordered):
        if i:
            out += " = " if rank == ordered[i - 1][0] else " > "
        out += name
    return out


def _labels_line(side: str, s: dict[str, Any]) -> str:
    where = (f"pool v{s['pool_version']} of {Path(s['store']).name} ({s['policy']} policy)"
             if s.get("kind") == "store" else f"{s.get('path')}")
    extra = f", {s.get('unresolved', 0)} unresolved" if s.get("kind") == "store" else ""
    return (f"{side:6s} {where}: {s['judged']} judged, {s['relevant']} relevant{extra}; "
            f"{s['scored']} queries scored, {s['excluded']} excluded (no relevant)")


def _n(x: int | None) -> str:
    return "-" if x is None else str(x)


def render_table(doc: dict[str, Any], per_query: bool = False) -> str:
    from poolkit.analysis.render import fmt, grid, signed, tau_note

    k = str(doc["cutoffs"][0])
    lines = [f"poolkit compare: {len(doc['runs'])} runs under two label sets "
             f"(relevance level {doc['level']})",
             "  " + _labels_line("before", doc["before"]),
             "  " + _labels_line("after", doc["after"])]
    primes = "X' = condensed list (unjudged docs removed); " if doc["condensed"] else ""
    lines += [f"  {primes}bpref reads judged docs only;",
              f"  Judged@{k} and unjudged@{k} say how much of each run's top {k} carries a label",
              ""]

    def yn(v: bool | None) -> str:
        return "?" if v is None else ("yes" if v else "no")

    contrib = doc["contribution"]
    head = ["run", "pooled before", "after"]
    if contrib:
        head += ["new docs", "only it", "new relevant"]
    head += [f"Judged@{k}", f"unjudged@{k}"]
    rows = []
    for r in doc["runs"]:
        row = [r["name"], yn(r["pooled"]["before"]), yn(r["pooled"]["after"])]
        if contrib:
            c = r["contribution"]
            row += [str(c["new_docs"]), str(c["only_it"]), str(c["new_relevant"])]
        j, u = r["judged"][k], r["unjudged"][k]
        row += [f"{fmt(j['before'], 3)} -> {fmt(j['after'], 3)}", f"{u['before']} -> {u['after']}"]
        rows.append(row)
    lines.append("Runs and what they brought to the pool")
    lines += grid(head, rows)
    if contrib:
        t = contrib["total"]
        lines += [f"  new to the pool: {t['new_docs']} docs, {t['new_judged']} judged, "
                  f"{t['new_relevant']} relevant ({contrib['basis']})"]
    lines += ["", "Scores before and after (rank among the runs, 1 = best)"]
    rows = []
    for r in doc["runs"]:
        for i, (name, m) in enumerate(r["measures"].items()):
            rows.append([r["name"] if i == 0 else "", short_name(name), fmt(m["before"]),
                         fmt(m["after"]), signed(m["change"]),
                         f"{m['rank']['before']} -> {m['rank']['after']}"])
    lines += grid(["run", "measure", "before", "after", "change", "rank"], rows, left=(1,))
    lines += ["", "System ranking: Kendall's tau between the before and after orderings"]
    lines += grid(["measure", "tau", "order before (best first)", "order after"],
                  [[short_name(n), fmt(v["kendall_tau"], 3), v["order_before"], v["order_after"]]
                   for n, v in doc["ranking"].items()], left=(2, 3))
    lines += tau_note((v["kendall_tau"] for v in doc["ranking"].values()), len(doc["runs"]))
    if doc.get("tests"):
        lines += significance_lines(doc)
    flags = [(r["name"], f) for r in doc["runs"] for f in r["flags"]]
    if flags:
        lines += ["", "Flags"] + [f"  {n}: {f}" for n, f in flags]
    if per_query:
        for r in doc["runs"]:
            lines += ["", f"Per query: {r['name']}"]
            names = [n for n in doc["primary"]]
            head = ["query"] + [f"{short_name(n)} {s}" for n in names
                                for s in ("before", "after")] + [f"unjudged@{k}"]
            rows = []
            u = r["unjudged"][k]["per_query"]
            for q in u:
                row = [q]
                for n in names:
                    v = r["measures"][n]["per_query"][q]
                    row += [fmt(v["before"]), fmt(v["after"])]
                row.append(f"{_n(u[q]['before'])} -> {_n(u[q]['after'])}")
                rows.append(row)
            lines += grid(head, rows)
    return "\n".join(lines) + "\n"


def significance_lines(doc: dict[str, Any]) -> list[str]:
    """What the later labels did to the significant differences, then the primary measures'
    matrices under each label set."""
    from poolkit.analysis.render import grid
    from poolkit.score.significance import SHIFTS
    from poolkit.score.significance_render import fmt_p, p_name, settings_line, table_lines

    after_settings = doc["test_settings"]["after"]
    lines = ["", "Significant differences: earlier labels -> later labels",
             f"  {settings_line(after_settings)}, under each label set",
             "  survived: significant under both, same direction; lost: only under the earlier;",
             "  reversed: significant under both, opposite directions; gained: only under the "
             "later"]
    rows = []
    for m, fates in doc["significance"].items():
        before = sum(1 for t in doc["tests"]["before"][m] if t["significant"])
        after = sum(1 for t in doc["tests"]["after"][m] if t["significant"])
        rows.append([short_name(m), str(before), str(after),
                     *(str(len(fates[s])) for s in SHIFTS)])
    lines += grid(["measure", "before", "after", *SHIFTS], rows)
    pn = p_name(after_settings)
    for m in doc["primary"]:
        for fate in SHIFTS[1:]:
            for e in doc["significance"][m][fate]:
                b, a = e["before"], e["after"]
                lines.append(f"  {fate} on {short_name(m)}: {e['a']} vs {e['b']}: "
                             f"{b['diff']:+.3f} ({pn} {fmt_p(b['p'])}) -> "
                             f"{a['diff']:+.3f} ({pn} {fmt_p(a['p'])})")
    for side in ("before", "after"):
        lines += table_lines(doc["tests"][side], doc["test_settings"][side], grid,
                             title=f"Paired tests under the {side} labels",
                             measures=doc["primary"], name=short_name)
    return lines
