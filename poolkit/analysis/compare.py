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
     "contribution": {"basis", "total": {"new_docs", "new_judged", "new_relevant"},
                      "sources": {name: {"new_docs", "only_it", "new_judged",
                                         "new_relevant"}}} | null,  # sources not runs
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
from typing import Any

from poolkit.analysis.reports import CompareReport
from poolkit.analysis.stats import kendall_tau, ranks
from poolkit.errors import PoolkitError
from poolkit.io.provenance import PoolProvenance
from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.policies import Labels, Pair
from poolkit.score.evaluate import evaluate
from poolkit.score.measures import Measure, parse_measures
from poolkit.score.mismatch import QueryMismatch, query_mismatch
from poolkit.score.significance import TestOptions, pairwise_tests, shifts


def expand_measures(measures: Sequence[Measure], condensed: bool = True) -> list[Measure]:
    """The measures, then each one's condensed-list variant, then bpref."""
    out = list(dict.fromkeys(measures))
    if condensed:
        out += [c for m in list(out) if (c := m.condensed()) is not None]
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

def store_contributions(provenance: PoolProvenance, before: int, labels: Qrels, level: int,
                        ) -> dict[str, Any]:
    """From the pool's provenance as of the later version: per system, documents first pooled
    after version ``before`` that it brought in, those only it brought, and how they were
    judged."""
    after = provenance.version
    new = provenance.new_since(before)
    by_system: dict[str, dict[str, int]] = {}
    for pair, systems in provenance.systems_by_pair().items():
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
        "systems": by_system, "pooled_before": provenance.as_of(before).systems(),
        "pooled_after": provenance.systems(),
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
    brought = PoolProvenance.from_runs(runs, depth).pairs_by_system()
    tops = {name: brought.get(name, set()) for name in runs}
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

    mismatches = {name: query_mismatch(after.qrels.grades, run.rankings, run_name=name,
                                       labels_name="after labels")
                  for name, run in runs.items()}
    rows = []
    for name, run in runs.items():
        eb, ea = evals[name]
        entry: dict[str, Any] = {
            "name": name, "path": run.path, "sha256": run.sha256,
            "pooled": {"before": None if pooled_b is None else name in pooled_b,
                       "after": None if pooled_a is None else name in pooled_a},
            "contribution": systems.get(name, {"new_docs": 0, "only_it": 0, "new_judged": 0,
                                               "new_relevant": 0}) if contributions else None,
            "queries": _queries(mismatches[name]),
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
            "basis": contrib["basis"], "total": contrib["total"],
            # what a source that is not a run brought (``pool --find``'s classifier)
            "sources": {s: c for s, c in systems.items() if s not in runs}},
        runs=rows,
        ranking=ranking,
        **paired,
        warnings=tuple(m.warning for m in mismatches.values() if m.warning),
    )


def _queries(m: QueryMismatch) -> dict[str, int]:
    """A run's entry's ``queries``: how its queries overlap the later labels'."""
    return {"labelled": m.labelled, "in_run": m.in_run, "shared": m.shared}


def ranking_order(names: Sequence[str], values: Sequence[float]) -> str:
    """Runs best first, ``>`` between ranks and ``=`` within a tie: ``b > a = c``."""
    ordered = sorted(zip(ranks(values), names), key=lambda t: t[0])
    out = ""
    for i, (rank, name) in enumerate(ordered):
        if i:
            out += " = " if rank == ordered[i - 1][0] else " > "
        out += name
    return out
