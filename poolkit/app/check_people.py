"""``check-judge``'s section against people: one machine judge version's grades (``autojudge``'s
grade events) against people's current labels on the pairs both graded.

- ``confusion``: rows people's grades, columns the machine's, on the collection's scale;
- ``kappa``: Cohen's kappa with quadratic weights (``analysis.stats``);
- ``recall``: per grade people gave, the share of those pairs the machine gave the same;
- ``leniency``: mean(machine - human) with a 95% t interval (positive: the machine grades
  higher);
- ``runs``: every run of the collection (``Collection.runs``: the configured systems' run
  files) scored as ``poolkit score`` scores it (``app.score.score_run``, ``--measure``,
  default nDCG@10) under the people's labels and under the machine's, on the queries both
  labelled: Kendall's tau of the two orderings, tau over the top 10 runs (by people's
  labels), and the pairwise differences (``run_tests``: ``poolkit score``'s test, correction
  and level) the machine's labels call significant that the people's do not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from poolkit.errors import PoolkitError

#: the measure runs are ordered by, unless --measure
DEFAULT_MEASURE = "nDCG@10"
#: the top runs the second tau is over
TOP_RUNS = 10


def against_people(collection: Any, judge: str, version: str,
                   people: dict[str, dict[str, int]], level: int,
                   measure: str = DEFAULT_MEASURE) -> tuple[dict[str, Any] | None, str | None]:
    """(the section, None), or (None, why there is none)."""
    from poolkit.policies import machine_versions

    store = collection.store
    found = [m for m in machine_versions(store, judge) if m.version == version]
    label = f"{judge}@{version}"
    if not found:
        return None, (f"{label} has graded no pooled pair (poolkit autojudge "
                      f"{collection.config.path} --judge {judge}): nothing to set against "
                      f"people")
    machine = found[0].grades
    both = sorted(p for p in machine if p[1] in people.get(p[0], {}))
    if not both:
        return None, f"no pair both people and {label} graded"
    scale = list(collection.config.grades.grades)
    humans = [people[q][d] for q, d in both]
    machines = [machine[(q, d)] for q, d in both]
    section: dict[str, Any] = {"pairs": len(both), **grade_agreement(humans, machines, scale)}
    section["runs"] = run_agreement(collection, people, machine, level, measure)
    return section, None


def grade_agreement(humans: Sequence[int], machines: Sequence[int],
                    scale: Sequence[int]) -> dict[str, Any]:
    """Confusion, quadratic kappa, recall per grade and leniency of paired grades."""
    import numpy as np

    from poolkit.analysis.stats import confusion_matrix, kappa_from_confusion

    confusion = confusion_matrix(humans, machines, scale)
    rows = confusion.sum(axis=1)
    recall = {str(g): (round(float(confusion[i, i] / rows[i]), 6) if rows[i] else None)
              for i, g in enumerate(scale)}
    kappa = kappa_from_confusion(confusion, "quadratic")
    return {"confusion": {"grades": list(scale), "rows": "people", "columns": "machine",
                          "counts": confusion.tolist()},
            "kappa": None if math.isnan(kappa) else round(kappa, 6),
            "recall": recall,
            "leniency": leniency(np.asarray(machines, float) - np.asarray(humans, float))}


def leniency(diffs: Any) -> dict[str, Any]:
    """mean(machine - human) with its 95% t interval (None for fewer than two pairs)."""
    from poolkit.score.ppi import t_ppf

    n = int(diffs.size)
    mean = float(diffs.mean())
    if n < 2:
        return {"mean": round(mean, 6), "ci": None}
    half = t_ppf(0.975, n - 1) * float(diffs.std(ddof=1)) / math.sqrt(n)
    return {"mean": round(mean, 6), "ci": [round(mean - half, 6), round(mean + half, 6)]}


def run_agreement(collection: Any, people: dict[str, dict[str, int]],
                  machine: dict[tuple[str, str], int], level: int,
                  measure: str) -> dict[str, Any]:
    """The run orderings under both label sets (see the module); ``{"missing": why}`` when
    there are fewer than two runs or no query both labelled."""
    from poolkit.analysis.stats import kendall_tau
    from poolkit.app.score import run_tests, score_run
    from poolkit.io.qrels import Qrels
    from poolkit.score.document import Settings
    from poolkit.score.measures import parse_measure
    from poolkit.score.significance import TestOptions

    shown = [parse_measure(measure)]
    by_machine: dict[str, dict[str, int]] = {}
    for (q, d), g in machine.items():
        by_machine.setdefault(q, {})[d] = g
    queries = sorted(q for q in by_machine if people.get(q) and
                     any(g >= level for g in people[q].values()) and
                     any(g >= level for g in by_machine[q].values()))
    if not queries:
        return {"measure": measure, "missing": "no query both label sets find relevant "
                                               "passages for"}
    try:
        runs = collection.runs(order="score")
    except PoolkitError as exc:
        return {"measure": measure, "missing": str(exc)}
    if len(runs) < 2:
        return {"measure": measure, "missing": f"{len(runs)} run: an ordering needs two"}
    human_q = Qrels.from_mapping({q: people[q] for q in queries}, name="people")
    machine_q = Qrels.from_mapping({q: by_machine[q] for q in queries}, name="machine")
    settings = Settings(ks=sorted({m.cutoff for m in shown if m.cutoff} or {TOP_RUNS}),
                        level=level)
    results = {}
    for source, qrels in (("people", human_q), ("machine", machine_q)):
        results[source] = [score_run(qrels, run, shown, settings) for run in runs.values()]
    means = {s: [float(r.evaluation.means[measure]) for r in rs] for s, rs in results.items()}
    names = list(runs)
    top = sorted(range(len(names)), key=lambda i: -means["people"][i])[:TOP_RUNS]
    options = TestOptions()
    tests = {s: run_tests(rs, shown, options) for s, rs in results.items()}
    by_people = {(t.a, t.b) for t in tests["people"].by_measure[measure] if t.significant}
    only_machine = [f"{t.a} vs {t.b}" for t in tests["machine"].by_measure[measure]
                    if t.significant and (t.a, t.b) not in by_people]
    return {"measure": measure, "queries": len(queries), "runs": len(names),
            "tau": _finite(kendall_tau(means["people"], means["machine"])),
            "tau_top": _finite(kendall_tau([means["people"][i] for i in top],
                                           [means["machine"][i] for i in top])),
            "top": len(top),
            "significant": {
                "test": options.test, "correction": options.correction,
                "alpha": options.alpha,
                "machine": sum(t.significant for t in tests["machine"].by_measure[measure]),
                "people": sum(t.significant for t in tests["people"].by_measure[measure]),
                "machine_only": len(only_machine), "machine_only_pairs": only_machine},
            "means": {n: {"people": round(means["people"][i], 6),
                          "machine": round(means["machine"][i], 6)}
                      for i, n in enumerate(names)}}


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else round(float(x), 6)
