"""The score report's renderings of its document: table, Markdown, CSV and JSON.

Each renderer takes the JSON-ready document (``ScoreReport.to_dict``, shape in
:mod:`poolkit.score.document`) and ``per_query``; none computes a number, so the formats
cannot disagree. JSON of a big report is written compact, and a run's part of it may be
written ahead on the thread that scored the run (:func:`prepare_json`).

``grid`` is the aligned-table layout every report's table uses.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from typing import Any

from poolkit.io.common import short_hash
from poolkit.reports import json_text
from poolkit.score.document import RunDocument, distinct_names
from poolkit.score.intervals import CONFIDENCE
from poolkit.score.mismatch import shared_phrase
from poolkit.tables import table

WIDTH = 100  # the table format stays readable in a 100-column terminal
AUDIT_ROWS_UNLISTED = 20  # without --per-query, at most this many flagged queries are listed


# --- shared helpers -----------------------------------------------------------------------------

def _f(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def _ci(ci: dict[str, Any] | None) -> tuple[str, str]:
    if not ci:
        return "-", "-"
    return f"[{ci['low']:.3f}, {ci['high']:.3f}]", ci["method"]


def _ks(doc: dict[str, Any]) -> str:
    return ",".join(str(k) for k in doc["settings"]["k"])


def _settings_fields(doc: dict[str, Any]) -> list[str]:
    s = doc["settings"]
    depth = "all" if s["depth"] is None else str(s["depth"])
    corpus = [] if s["corpus_size"] is None else [f"corpus={s['corpus_size']}"]
    return [f"K={_ks(doc)}", f"level={s['level']} (grade >= {s['level']} is relevant)",
            f"order={s['order']}", f"depth={depth}", f"gain={s['gain']}", *corpus]


def _settings_line(doc: dict[str, Any]) -> str:
    return "  ".join(_settings_fields(doc))


def _settings_lines(doc: dict[str, Any], width: int) -> list[str]:
    """The settings, two spaces apart, on as many lines of at most ``width`` as they take."""
    lines = [""]
    for text in _settings_fields(doc):
        if lines[-1] and len(lines[-1]) + 2 + len(text) > width:
            lines.append("")
        lines[-1] += f"{'  ' if lines[-1] else ''}{text}"
    return lines


def _queries_line(run: dict[str, Any]) -> str:
    q = run["queries"]
    return (f"{q['scored']} scored, {len(q['excluded'])} excluded (no judged-relevant id), "
            f"{len(q['missing'])} with no results, {len(q['unknown'])} not in the qrels")


def _shared(doc: dict[str, Any], run: dict[str, Any]) -> list[str]:
    """How many queries the labels and the run share, when the two sets differ (else [])."""
    q = run["queries"]
    phrase = shared_phrase(q["shared"], doc["qrels"]["queries"], q["in_run"])
    return [f"shared: {phrase}"] if phrase else []


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def _ids(ids: Sequence[str], limit: int = 10) -> str:
    more = f" ... (+{len(ids) - limit})" if len(ids) > limit else ""
    return ", ".join(ids[:limit]) + more


def _warnings(audit: dict[str, Any], qid: str, k: int) -> list[str]:
    """A query's warnings at K; those about the whole query go with the first K only."""
    a = audit["queries"][qid]
    first = a["warnings"] if k == audit["k"][0] else []
    return first + a["at"][str(k)]["warnings"]


def _audit_rows(run: dict[str, Any], k: int, per_query: bool) -> tuple[list[str], int]:
    """Query ids whose audit rows are listed at K, and how many flagged ones were left out."""
    queries = run["audit"]["queries"]
    if per_query:
        return list(queries), 0
    flagged = [q for q, a in queries.items() if a["warnings"] or a["at"][str(k)]["warnings"]]
    return flagged[:AUDIT_ROWS_UNLISTED], max(0, len(flagged) - AUDIT_ROWS_UNLISTED)


def _summary_lines(run: dict[str, Any], k: int) -> list[str]:
    s = run["audit"]["summary"]
    a = s["at"][str(k)]
    n = s["scored"]
    lines = [
        f"|Rel| < K in {len(a['rel_lt_k'])} of {n} (P@{k} cannot reach 1), |Rel| > K in "
        f"{len(a['rel_gt_k'])} (R@{k} cannot reach 1)",
        f"mean ceiling {_f(a['mean_ceiling'])}, mean R@{k} {_f(a['mean_recall'])}, mean share "
        f"of ceiling {a['mean_share_of_ceiling']:.0%}",
        f"mean Judged@{k} {_f(a['mean_judged'])} ({len(a['unjudged_in_top_k'])} of {n} with "
        f"unjudged ids in the top {k})",
        f"hits in the top {k}: {a['positional_hits']} positional, {a['distinct_hits']} "
        f"distinct; repeats in {_n(len(s['repeats']['queries']), 'query', 'queries')} "
        f"({_n(s['repeats']['slots'], 'repeated slot')})",
    ]
    if s["labels"]:
        lab = s["labels"]
        lines.append(f"label coverage (judged ids / {s['corpus_size']} in the corpus): mean "
                     f"{_pct(lab['mean'])}, min {_pct(lab['min'])}, max {_pct(lab['max'])}")
    for key, what in (("excluded", "excluded (no judged-relevant id)"),
                      ("missing", "no results (scored 0)"),
                      ("unknown", "unknown to the qrels (ignored)")):
        if s[key]:
            lines.append(f"{what}: {_ids(s[key])}")
    return lines


# --- table ----------------------------------------------------------------------------------

def _grid(headers: list[str], rows: Sequence[Sequence[str] | str], indent: int = 2,
          width: int = WIDTH, left: tuple[int, ...] = ()) -> list[str]:
    """Aligned columns (the first and those in ``left`` left-aligned, the rest right),
    wrapping past ``width``: ``tables.table`` with the score report's defaults."""
    align = "".join("l" if i == 0 or i in left else "r" for i in range(len(headers)))
    return table(headers, rows, align=align, indent=indent, width=width)


#: public name of the aligned-table layout, for the other reports (compare, reusability, ...)
grid = _grid


def _head(doc: dict[str, Any], width: int = WIDTH) -> list[str]:
    """Who scored what, when, and how: the table's first lines."""
    q = doc["qrels"]
    return [f"poolkit {doc['poolkit_version']} score  {doc['date']}",
            f"qrels  {q['name']}  sha256:{short_hash(q['sha256'])}  "
            f"{_n(q['queries'], 'query', 'queries')}, "
            f"{_n(q['judgments'], 'judgment')}",
            *_settings_lines(doc, width)]


def _fail_on_lines(doc: dict[str, Any]) -> list[str]:
    failed = doc["fail_on"]["failed"]
    if not doc["fail_on"]["conditions"]:
        return []
    return ["", f"fail-on {', '.join(doc['fail_on']['conditions'])}: "
                + ("FAILED" if failed else "passed"),
            *(f"  ! {f['message']}" for f in failed)]


def render_table(doc: dict[str, Any], per_query: bool = False) -> str:
    """The whole table (``--verbose``; the default is :mod:`poolkit.score.render_brief`):
    every run's block, its intervals, the audit per query with its warnings, and the paired
    tests' matrices."""
    out = _head(doc)
    if len(doc["runs"]) > 1:
        out += _runs_side_by_side(doc["runs"])
    if doc.get("tests"):
        from poolkit.score.significance_render import table_lines

        out += table_lines(doc["tests"], doc["settings"]["tests"], _grid)
    for run in doc["runs"]:
        out += ["", f"run {run['name']}  sha256:{short_hash(run['sha256'])}",
                *(f"  {line}" for line in _shared(doc, run)),
                f"  queries: {_queries_line(run)}", ""]
        headers, rows = _mean_rows(run)
        out += _grid(headers, list(rows), left=(3,))
        if per_query and run["measures"]:
            headers, rows = _per_query_rows(run)
            out += ["", "  per query", *_grid(headers, list(rows))]
        out += _audit_table(run, per_query)
        if run["stages"]:
            out += _stage_table(run["stages"])
        if run["truth"]:
            out += _truth_table(run["truth"], doc["truth"])
    out += _fail_on_lines(doc)
    return "\n".join(out) + "\n"


def _runs_side_by_side(runs: list[dict[str, Any]]) -> list[str]:
    """Every run's means in one grid, with Judged@K: the comparison a reader wants first."""
    names = list(dict.fromkeys(m for run in runs for m in run["measures"]))
    ks = list(dict.fromkeys(k for run in runs for k in run["audit"]["k"]))
    rows = []
    for run, shown_as in zip(runs, distinct_names([run["name"] for run in runs])):
        at = run["audit"]["summary"]["at"]
        rows.append([shown_as, *(_f(run["measures"][m]["mean"]) if m in run["measures"]
                                    else "-" for m in names),
                     *(_f(at[str(k)]["mean_judged"]) if str(k) in at else "-" for k in ks)])
    return ["", "runs side by side (means; intervals and the audit per run below)",
            *_grid(["run", *names, *(f"Judged@{k}" for k in ks)], list(rows))]


def _mean_rows(run: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    rows = []
    for name, m in run["measures"].items():
        ci, method = _ci(m["ci"])
        rows.append([name, _f(m["mean"]), ci, method])
    return ["measure", "mean", f"{CONFIDENCE:.0%} interval", "method"], rows


def _per_query_rows(run: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    ms = run["measures"]
    rows = [[qid, *(_f(m["per_query"].get(qid)) for m in ms.values())]
            for qid in run["audit"]["queries"]]
    rows.append(["mean", *(_f(m["mean"]) for m in ms.values())])
    return ["query", *ms], rows


def _audit_headers(k: int) -> list[str]:
    return ["query", "|Rel|", "labels", "ceiling", f"R@{k}", "of ceiling", f"Judged@{k}",
            "hits pos/dist", "repeats"]


def _audit_cells(audit: dict[str, Any], qid: str, k: int) -> list[str]:
    a = audit["queries"][qid]
    at = a["at"][str(k)]
    return [qid, _rel_cell(a), _pct(a["labels"]), _f(at["ceiling"]), _f(at["recall"]),
            f"{at['share_of_ceiling']:.0%}", _f(at["judged"]),
            f"{at['positional_hits']}/{at['distinct_hits']}", str(a["repeats"])]


def _rel_cell(a: dict[str, Any]) -> str:
    """|Rel| as judged; on sampled labels also R_est and its 95% interval."""
    est = a.get("rel_est")
    if not est:
        return str(a["rel"])
    return f"{a['rel']} (R_est {est['value']:.1f} [{est['low']:.1f}, {est['high']:.1f}])"


def _audit_table(run: dict[str, Any], per_query: bool) -> list[str]:
    out: list[str] = []
    audit = run["audit"]
    for k in audit["k"]:
        shown, left = _audit_rows(run, k, per_query)
        out += ["", f"  audit at K={k}"]
        rows: list[list[str] | str] = []
        for qid in shown:
            rows.append(_audit_cells(audit, qid, k))
            rows += [f"  ! {w}" for w in _warnings(audit, qid, k)]
        if rows:
            out += _grid(_audit_headers(k), rows)
        if left:
            out.append(f"  ... {left} more flagged queries (--per-query lists every query)")
        out += [f"  {line}" for line in _summary_lines(run, k)]
    return out


def _stage_rows(st: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    fk, kk = st["fetch"]["k"], st["keep"]["k"]
    headers = ["query", f"R@{fk} fetch", f"R@{kk} keep", "loss"]
    rows = [[qid, _f(r["fetch"]), _f(r["keep"]), _f(r["loss"])]
            for qid, r in st["per_query"].items()]
    m = st["mean"]
    rows.append(["mean", _f(m["fetch"]), _f(m["keep"]), _f(m["loss"])])
    return headers, rows


def _stage_title(st: dict[str, Any]) -> str:
    f, k = st["fetch"], st["keep"]
    return (f"stage-1 (fetch {f['name']} sha256:{short_hash(f['sha256'])} at {f['k']}) vs "
            f"stage-2 (keep {k['name']} at {k['k']})")


def _stage_table(st: dict[str, Any]) -> list[str]:
    headers, rows = _stage_rows(st)
    return ["", f"  {_stage_title(st)}", *_grid(headers, list(rows))]


def _truth_rows(tt: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    headers = ["query", "judged", "true"]
    for k in tt["k"]:
        headers += [f"R@{k} judged", f"R@{k} true"]
    rows = []
    for qid, r in tt["per_query"].items():
        row = [qid, str(r["judged"]), str(r["true"])]
        for k in tt["k"]:
            rec = r["recall"][str(k)]
            row += [_f(rec["judged"]), _f(rec["true"])]
        rows.append(row)
    return headers, rows


def _truth_title(truth: dict[str, Any]) -> str:
    return (f"label coverage: judged-relevant ids vs truly relevant "
            f"({truth['name']} sha256:{short_hash(truth['sha256'])})")


def _truth_table(tt: dict[str, Any], truth: dict[str, Any]) -> list[str]:
    headers, rows = _truth_rows(tt)
    return ["", f"  {_truth_title(truth)}", *_grid(headers, list(rows))]


# --- markdown -------------------------------------------------------------------------------

def _md(headers: list[str], rows: list[list[str]], left: tuple[int, ...] = ()) -> list[str]:
    esc = [[c.replace("|", "\\|") for c in r] for r in [headers, *rows]]
    out = ["| " + " | ".join(esc[0]) + " |",
           "|" + "|".join(":---" if i == 0 or i in left else "---:"
                          for i in range(len(headers))) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in esc[1:]]
    return out


def render_markdown(doc: dict[str, Any], per_query: bool = False) -> str:
    q = doc["qrels"]
    out = ["# poolkit score", "",
           f"- poolkit {doc['poolkit_version']}, {doc['date']}",
           f"- qrels `{q['name']}` sha256 `{short_hash(q['sha256'])}`: "
           f"{_n(q['queries'], 'query', 'queries')}, {_n(q['judgments'], 'judgment')}",
           f"- {_settings_line(doc)}"]
    if doc.get("tests"):
        from poolkit.score.significance_render import markdown_lines

        out += markdown_lines(doc["tests"], doc["settings"]["tests"], _md)
    for run in doc["runs"]:
        out += ["", f"## run `{run['name']}` sha256 `{short_hash(run['sha256'])}`", "",
                *(f"{line.capitalize()}." for line in _shared(doc, run)),
                f"Queries: {_queries_line(run)}.", ""]
        headers, rows = _mean_rows(run)
        out += _md(headers, rows, left=(3,))
        if per_query and run["measures"]:
            headers, rows = _per_query_rows(run)
            out += ["", "### per query", "", *_md(headers, rows)]
        for k in run["audit"]["k"]:
            shown, left = _audit_rows(run, k, per_query)
            out += ["", f"### audit at K={k}", ""]
            arows = [[*_audit_cells(run["audit"], qid, k),
                      "; ".join(_warnings(run["audit"], qid, k))] for qid in shown]
            if arows:
                out += [*_md([*_audit_headers(k), "warnings"], arows, left=(9,)), ""]
            if left:
                out.append(f"- {left} more flagged queries (--per-query lists every query)")
            out += [f"- {line}" for line in _summary_lines(run, k)]
        if run["stages"]:
            headers, srows = _stage_rows(run["stages"])
            out += ["", f"### {_stage_title(run['stages'])}", "", *_md(headers, srows)]
        if run["truth"]:
            headers, trows = _truth_rows(run["truth"])
            out += ["", f"### {_truth_title(doc['truth'])}", "", *_md(headers, trows)]
    if doc["fail_on"]["conditions"]:
        failed = doc["fail_on"]["failed"]
        out += ["", f"**fail-on** {', '.join(doc['fail_on']['conditions'])}: "
                    + ("FAILED" if failed else "passed")]
        out += [f"- {f['message']}" for f in failed]
    return "\n".join(out) + "\n"


# --- csv ----------------------------------------------------------------------------------------

CSV_COLUMNS = ["run", "run_sha256", "qrels", "qrels_sha256", "k", "query", "measure", "value",
               "ci_low", "ci_high", "ci_method", "scored_queries", "date", "poolkit_version"]


def render_csv(doc: dict[str, Any], per_query: bool = False) -> str:
    """Tidy rows: one value per row; ``query`` is 'all' for means and summary figures.

    Audit, stage and truth figures are rows too, named ``audit.*``, ``stage.*``, ``truth.*``.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    ks = " ".join(str(k) for k in doc["settings"]["k"])
    for run in doc["runs"]:
        base = [run["name"], run["sha256"], doc["qrels"]["name"], doc["qrels"]["sha256"], ks]
        tail = [run["queries"]["scored"], doc["date"], doc["poolkit_version"]]

        def row(query: str, measure: str, value: Any, ci: dict[str, Any] | None = None) -> None:
            ci_cells = [ci["low"], ci["high"], ci["method"]] if ci else ["", "", ""]
            w.writerow([*base, query, measure, "" if value is None else value, *ci_cells, *tail])

        for name, m in run["measures"].items():
            row("all", name, m["mean"], m["ci"])
            if per_query:
                for qid, v in m["per_query"].items():
                    row(qid, name, v)
        s = run["audit"]["summary"]
        for key in ("excluded", "missing", "unknown"):
            row("all", f"audit.{key}", len(s[key]))
        row("all", "audit.repeats", s["repeats"]["slots"])
        if s["labels"]:
            row("all", "audit.labels", s["labels"]["mean"])
        for k, a in s["at"].items():
            row("all", f"audit.rel_lt_k@{k}", len(a["rel_lt_k"]))
            row("all", f"audit.ceiling@{k}", a["mean_ceiling"])
            row("all", f"audit.share_of_ceiling@{k}", a["mean_share_of_ceiling"])
            row("all", f"audit.judged@{k}", a["mean_judged"])
        if per_query:
            for qid, a in run["audit"]["queries"].items():
                row(qid, "audit.rel", a["rel"])
                if a.get("rel_est"):
                    for key in ("value", "low", "high"):
                        row(qid, f"audit.rel_est.{key}", a["rel_est"][key])
                row(qid, "audit.labels", a["labels"])
                row(qid, "audit.repeats", a["repeats"])
                for k, at in a["at"].items():
                    for key in ("ceiling", "share_of_ceiling", "judged", "positional_hits",
                                "distinct_hits"):
                        row(qid, f"audit.{key}@{k}", at[key])
        st = run["stages"]
        if st:
            fk, kk = st["fetch"]["k"], st["keep"]["k"]
            keys = {"fetch": f"stage.fetch.R@{fk}", "keep": f"stage.keep.R@{kk}",
                    "loss": "stage.loss"}
            for key, name in keys.items():
                row("all", name, st["mean"][key])
                for qid, r in st["per_query"].items():
                    row(qid, name, r[key])
        tt = run["truth"]
        if tt:
            for qid, r in tt["per_query"].items():
                row(qid, "truth.judged", r["judged"])
                row(qid, "truth.true", r["true"])
                for k, rec in r["recall"].items():
                    row(qid, f"truth.R@{k}.judged", rec["judged"])
                    row(qid, f"truth.R@{k}.true", rec["true"])
    return buf.getvalue()


JSON_INDENT_LIMIT = 20_000  # per-query values above which JSON is written compact
_COMPACT = (",", ":")


def _values(run: dict[str, Any]) -> int:
    return sum(len(m["per_query"]) for m in run["measures"].values())


def render_json(doc: dict[str, Any], per_query: bool = False) -> str:
    """The whole document (per-query values always included: JSON is for programs).

    Indented for reading; compact (one line) past ``JSON_INDENT_LIMIT`` per-query values,
    because only the compact form uses the C encoder (10x faster on 10,000 queries).
    Compact, it is ``json.dumps(doc, separators=(",", ":"))`` to the byte (strict, as every
    report: :func:`poolkit.reports.json_text`), written key by key so a run written ahead
    (:func:`prepare_json`) is spliced in, not encoded again.
    """
    if sum(_values(r) for r in doc["runs"]) <= JSON_INDENT_LIMIT:
        return json_text(doc) + "\n"
    items = [f"{json_text(key)}:{_compact_runs(value) if key == 'runs' else _compact(value)}"
             for key, value in doc.items()]
    return "{" + ",".join(items) + "}\n"


def _compact(value: Any) -> str:
    return json_text(value, indent=None, separators=_COMPACT)


def _compact_runs(runs: Sequence[dict[str, Any]]) -> str:
    texts = [run.compact_json if isinstance(run, RunDocument) and run.compact_json is not None
             else _compact(run) for run in runs]
    return "[" + ",".join(texts) + "]"


def prepare_json(run: RunDocument) -> None:
    """Write a run's compact JSON ahead, when the run alone makes the report compact (so
    the whole report is: ``render_json``); a smaller run is cheap to write at the end."""
    if run.compact_json is None and _values(run) > JSON_INDENT_LIMIT:
        run.compact_json = _compact(run)


def document_only(run: RunDocument) -> None:
    """Formats that render from the document alone need nothing more ahead."""


#: what each format can build ahead from one run's finished part (``ScoreReport.prepare_run``)
PREPARE: dict[str, Callable[[RunDocument], None]] = {"json": prepare_json}
