"""The score report's default table: what a reader wants first, in an 80-column terminal.

Every run's means in one grid (one per cutoff when one is too wide; each mean with its
interval when that still fits; a single run as one row per measure), the audit condensed to one row
per run and cutoff, what the labels allow (|Rel| against K, label coverage, excluded
queries), and the paired tests as one line per significant difference after the correction
(or one line saying that so few queries cannot be read). Stage and truth tables, asked for,
are kept. The rest of the table (each query's audit row and warnings, the test matrices, the
per-run blocks) is ``--verbose``'s (:func:`poolkit.score.render.render_table`); JSON keeps all.
Like every rendering, it reads the report's document and computes no number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from poolkit.io.common import short_hash
from poolkit.score.document import distinct_names
from poolkit.score.intervals import CONFIDENCE
from poolkit.score.render import (
    _f,
    _fail_on_lines,
    _grid,
    _head,
    _ids,
    _mean_rows,
    _n,
    _pct,
    _shared,
    _stage_rows,
    _truth_rows,
)
from poolkit.score.significance_render import brief_lines
from poolkit.tables import WIDTH, wrap

LISTED = 10  # stage and truth tables list at most this many queries before --verbose


def render_brief(doc: dict[str, Any]) -> str:
    """The default table of the report's document (``ScoreReport.to_dict``)."""
    out = _head(doc, WIDTH)
    runs = doc["runs"]
    out += _means(runs) if len(runs) > 1 else _one_run(doc, runs[0])
    out += _audit(doc, runs)
    out += _labels(runs[0])
    names = distinct_names([run["name"] for run in runs])
    for run, shown_as in zip(runs, names):
        if run["stages"]:
            out += _stages(run["stages"])
        if run["truth"]:
            out += _truth(run["truth"], doc["truth"], shown_as)
    if doc.get("tests"):
        out += brief_lines(doc["tests"], doc["settings"]["tests"])
    out += _fail_on_lines(doc)
    return "\n".join(out) + "\n"


def _scored(run: dict[str, Any]) -> str:
    return _n(run["queries"]["scored"], "scored query", "scored queries")


def _notes(doc: dict[str, Any], run: dict[str, Any]) -> list[str]:
    """What is odd about a run's queries: fewer shared with the labels, some without
    results, some the labels lack."""
    s = run["audit"]["summary"]
    return [*_shared(doc, run),
            *([f"no results: {_n(len(s['missing']), 'query', 'queries')} (scored 0)"]
              if s["missing"] else []),
            *([f"not in the qrels: {_n(len(s['unknown']), 'query', 'queries')} (ignored)"]
              if s["unknown"] else [])]


def _one_run(doc: dict[str, Any], run: dict[str, Any]) -> list[str]:
    headers, rows = _mean_rows(run)
    return ["", f"run {run['name']}  sha256:{short_hash(run['sha256'])}  means over "
                f"{_scored(run)}", *(f"  {note}" for note in _notes(doc, run)),
            *_grid(headers, rows, width=WIDTH, left=(3,))]


def _means(runs: list[dict[str, Any]]) -> list[str]:
    """Runs by measures in one grid, or one grid per cutoff when one is too wide; every mean
    with its interval when that still fits without wrapping."""
    names = distinct_names([run["name"] for run in runs])
    measures = list(dict.fromkeys(m for run in runs for m in run["measures"]))
    by_cutoff: dict[Any, list[str]] = {}
    for run in runs:
        for name, m in run["measures"].items():
            by_cutoff.setdefault(m["cutoff"], [])
            if name not in by_cutoff[m["cutoff"]]:
                by_cutoff[m["cutoff"]].append(name)

    def grids(groups: list[list[str]], cell: Any) -> list[list[str]]:
        return [_grid(["run", *group], [[shown_as, *(cell(run["measures"][m])
                                                     if m in run["measures"] else "-"
                                                     for m in group)]
                                        for run, shown_as in zip(runs, names)], width=WIDTH)
                for group in groups]

    def mean(m: dict[str, Any]) -> str:
        return _f(m["mean"])

    def with_interval(m: dict[str, Any]) -> str:
        ci = m["ci"]
        return mean(m) + (f" [{ci['low']:.3f}, {ci['high']:.3f}]" if ci else "")

    title = f"means over {_scored(runs[0])} ({CONFIDENCE:.0%} intervals: --verbose)"
    for cell, groups in ((with_interval, [measures]), (with_interval, list(by_cutoff.values())),
                         (mean, [measures]), (mean, list(by_cutoff.values()))):
        blocks = grids(groups, cell)
        if all(len(block) == len(runs) + 1 for block in blocks):  # none had to wrap
            if cell is with_interval:
                title = f"means [{CONFIDENCE:.0%} interval] over {_scored(runs[0])}"
            break
    return ["", title, *(line for i, block in enumerate(blocks)
                         for line in ([""] if i else []) + block)]


def _audit(doc: dict[str, Any], runs: list[dict[str, Any]]) -> list[str]:
    """One row per run and cutoff, the audit's means; with several runs, a line for each
    run whose queries are odd (:func:`_notes`; a single run has them above its means)."""
    names = distinct_names([run["name"] for run in runs])
    rows: list[list[str]] = []
    notes: list[str] = []
    for run, shown_as in zip(runs, names):
        s = run["audit"]["summary"]
        for i, k in enumerate(run["audit"]["k"]):
            a = s["at"][str(k)]
            rows.append([shown_as if i == 0 else "", str(k), _f(a["mean_ceiling"]),
                         f"{a['mean_share_of_ceiling']:.0%}", _f(a["mean_judged"]),
                         str(s["repeats"]["slots"]) if i == 0 else ""])
        if len(runs) > 1 and _notes(doc, run):
            notes += wrap(f"{shown_as}: {'; '.join(_notes(doc, run))}", "  ")
    headers = ["run", "K", "ceiling", "R@K/ceiling", "Judged@K", "repeats"]
    return ["", "audit: means over the queries (--verbose: each query, with its warnings)",
            *_grid(headers, rows, width=WIDTH), *notes]


def _labels(run: dict[str, Any]) -> list[str]:
    """What the labels allow, the same for every run: |Rel| against K, label coverage."""
    s = run["audit"]["summary"]
    rels = [a["rel"] for a in run["audit"]["queries"].values()]
    n = s["scored"]
    out = [f"  labels: {_n(n, 'query', 'queries')} scored, {len(s['excluded'])} excluded "
           f"(no judged-relevant id)" + (f"; |Rel| {min(rels)} to {max(rels)}" if rels else "")]
    if s["labels"]:
        lab = s["labels"]
        out.append(f"  label coverage (judged / corpus of {s['corpus_size']}): mean "
                   f"{_pct(lab['mean'])}, min {_pct(lab['min'])}, max {_pct(lab['max'])}")
    for key, sign, what in (("rel_lt_k", "<", "P"), ("rel_gt_k", ">", "R")):
        counts = [f"{len(s['at'][str(k)][key])}" + (f" of {n} queries" if i == 0 else "")
                  + f" at K={k}" for i, k in enumerate(run["audit"]["k"])]
        out.append(f"  |Rel| {sign} K, so {what}@K cannot reach 1: {', '.join(counts)}")
    if s["excluded"]:
        out.append(f"  excluded: {_ids(s['excluded'])}")
    return out


def _listed(rows: Sequence[list[str]], last: int = 0) -> tuple[list[list[str]], list[str]]:
    """At most ``LISTED`` query rows (and the ``last`` rows after them, a mean), and the
    note on the ones left out."""
    queries = len(rows) - last
    if queries <= LISTED:
        return list(rows), []
    return ([*rows[:LISTED], *rows[queries:]],
            [f"  ... {queries - LISTED} more queries (--verbose lists every query)"])


def _stages(st: dict[str, Any]) -> list[str]:
    headers, rows = _stage_rows(st)
    shown, more = _listed(rows, last=1)
    f, k = st["fetch"], st["keep"]
    return ["", f"stages: fetch {f['name']} at {f['k']}, keep {k['name']} at {k['k']}",
            *_grid(headers, shown, width=WIDTH), *more]


def _truth(tt: dict[str, Any], truth: dict[str, Any], run: str) -> list[str]:
    headers, rows = _truth_rows(tt)
    shown, more = _listed(rows)
    return ["", f"{run}: judged-relevant vs truly relevant ids ({truth['name']})",
            *_grid(headers, shown, width=WIDTH), *more]
