"""``poolkit compare``'s table: a rendering of the report's JSON document (``CompareReport``).

Condensed-list variants are spelled with a prime (``AP'``); the per-query lists are optional.
By default the table fits an 80-column terminal: the primary measures only, the significance
as what the later labels did to it (or one line saying that so few queries cannot be read),
long lines wrapped; ``verbose`` (``per_query`` implies it) is every measure, the paired tests'
matrices under each label set, and every line whole.
"""

from __future__ import annotations

from typing import Any

from poolkit.io.paths import shown_path
from poolkit.score.mismatch import shared_phrase
from poolkit.tables import wrap


def short_name(name: str) -> str:
    """Table spelling: the condensed variant as a prime, ``AP(judged_only=true)`` -> ``AP'``."""
    if "judged_only=true" not in name:
        return name
    s = (name.replace(",judged_only=true", "").replace("judged_only=true,", "")
         .replace("(judged_only=true)", ""))
    head, at, cut = s.partition("@")
    return f"{head}'{at}{cut}"


def _labels_parts(s: dict[str, Any]) -> tuple[str, str]:
    """Where a label set is, and what it holds."""
    where = (f"pool v{s['pool_version']} of {shown_path(s['store'])} ({s['policy']} policy)"
             if s.get("kind") == "store" else f"{s.get('path')}")
    extra = f", {s.get('unresolved', 0)} unresolved" if s.get("kind") == "store" else ""
    if s.get("machine"):
        extra += (f", {s['machine_graded']} by machine judge {', '.join(s['machine'])} "
                  f"(a person's grade wins)")
    return where, (f"{s['judged']} judged, {s['relevant']} relevant{extra}; "
                   f"{s['scored']} queries scored, {s['excluded']} excluded (no relevant)")


def _n(x: int | None) -> str:
    return "-" if x is None else str(x)


def _wrapped(text: str, indent: str = "  ", more: str = "    ") -> list[str]:
    return wrap(text, indent, more)


def render_table(doc: dict[str, Any], per_query: bool = False, verbose: bool = False) -> str:
    from poolkit.analysis.render import fmt, grid, signed, tau_note

    verbose = verbose or per_query
    k = str(doc["cutoffs"][0])
    lines = [f"poolkit compare: {len(doc['runs'])} runs under two label sets "
             f"(relevance level {doc['level']})"]
    for side in ("before", "after"):
        where, holds = _labels_parts(doc[side])
        lines += ([f"  {side:6s} {where}: {holds}"] if verbose else
                  [*_wrapped(f"{side:6s} {where}:", more=" " * 9),
                   *_wrapped(holds, " " * 9, " " * 9)])
    lines += [f"  queries of {r['name']}: {phrase}" for r in doc["runs"]
              if (phrase := shared_phrase(**r["queries"], labels_name="after labels"))]
    primes = "X' = condensed list (unjudged docs removed); " if doc["condensed"] else ""
    lines += ([f"  {primes}bpref reads judged docs only;",
               f"  Judged@{k} and unjudged@{k} say how much of each run's top {k} carries a "
               f"label"] if verbose else
              [f"  Judged@{k}, unjudged@{k}: how much of each run's top {k} carries a label;",
               "  unjudged docs are read as non-relevant" + (" (the condensed X' variants "
                                                              "drop them)" if primes else "")])
    lines.append("")

    def yn(v: bool | None) -> str:
        return "?" if v is None else ("yes" if v else "no")

    contrib = doc["contribution"]
    # the default's columns say the same in fewer: "pooled" before -> after, "new rel"
    head = ["run", "pooled before", "after"] if verbose else ["run", "pooled"]
    if contrib:
        head += ["new docs", "only it", "new relevant" if verbose else "new rel"]
    head += [f"Judged@{k}", f"unjudged@{k}"]
    rows = []
    for r in doc["runs"]:
        row = ([r["name"], yn(r["pooled"]["before"]), yn(r["pooled"]["after"])] if verbose
               else [r["name"], f"{yn(r['pooled']['before'])} -> {yn(r['pooled']['after'])}"])
        if contrib:
            c = r["contribution"]
            row += [str(c["new_docs"]), str(c["only_it"]), str(c["new_relevant"])]
        j, u = r["judged"][k], r["unjudged"][k]
        row += [f"{fmt(j['before'], 3)} -> {fmt(j['after'], 3)}", f"{u['before']} -> {u['after']}"]
        rows.append(row)
    lines.append("Runs and what they brought to the pool")
    lines += grid(head, rows)
    wrap = (lambda text: [f"  {text}"]) if verbose else _wrapped
    if contrib:
        t = contrib["total"]
        lines += wrap(f"new to the pool: {t['new_docs']} docs, {t['new_judged']} judged, "
                      f"{t['new_relevant']} relevant ({contrib['basis']})")
        for name, c in contrib.get("sources", {}).items():
            lines += wrap(f"{name} (not a run: passages found beyond the pool): "
                          f"{c['new_docs']} new docs, {c['only_it']} only it, "
                          f"{c['new_judged']} judged, {c['new_relevant']} relevant")
    shown = [n for n in doc["measures"] if verbose or n in doc["primary"]]
    lines += ["", "Scores before and after (rank among the runs, 1 = best)" if verbose else
              "Scores before and after (rank, 1 = best"
              + ("" if len(shown) == len(doc["measures"]) else "; more measures: --verbose")
              + ")"]
    rows = []
    for r in doc["runs"]:
        for i, (name, m) in enumerate((n, m) for n, m in r["measures"].items() if n in shown):
            rows.append([r["name"] if i == 0 else "", short_name(name), fmt(m["before"]),
                         fmt(m["after"]), signed(m["change"]),
                         f"{m['rank']['before']} -> {m['rank']['after']}"])
    lines += grid(["run", "measure", "before", "after", "change", "rank"], rows, left=(1,))
    lines += ["", "System ranking: Kendall's tau between the before and after orderings"]
    lines += grid(["measure", "tau", "order before (best first)", "order after"],
                  [[short_name(n), fmt(v["kendall_tau"], 3), v["order_before"], v["order_after"]]
                   for n, v in doc["ranking"].items() if n in shown], left=(2, 3))
    lines += tau_note((v["kendall_tau"] for n, v in doc["ranking"].items() if n in shown),
                      len(doc["runs"]))
    if doc.get("tests"):
        lines += significance_lines(doc) if verbose else brief_significance(doc)
    # by default without the flag that restates the table's unjudged@K column
    flags = [(r["name"], f) for r in doc["runs"] for f in r["flags"]
             if verbose or not f.startswith(f"unjudged in its top {k}:")]
    if flags:
        lines += ["", "Flags"] + [line for n, f in flags for line in wrap(f"{n}: {f}")]
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


def brief_significance(doc: dict[str, Any]) -> list[str]:
    """What the later labels did to the significant differences, without the matrices; with
    too few queries, one line saying so instead (as ``score`` says it)."""
    from poolkit.score.significance_render import too_few

    return (too_few({m: doc["tests"][side][m] for side in ("before", "after")
                     for m in doc["primary"]})
            or significance_lines(doc, matrices=False))


def significance_lines(doc: dict[str, Any], matrices: bool = True) -> list[str]:
    """What the later labels did to the significant differences, then the primary measures'
    matrices under each label set."""
    from poolkit.analysis.render import grid
    from poolkit.score.significance import SHIFTS
    from poolkit.score.significance_render import fmt_p, p_name, settings_line, table_lines

    after_settings = doc["test_settings"]["after"]
    said = f"{settings_line(after_settings)}, under each label set"
    lines = ["", "Significant differences: earlier labels -> later labels",
             *([f"  {said}",
                "  survived: significant under both, same direction; lost: only under the "
                "earlier;",
                "  reversed: significant under both, opposite directions; gained: only under "
                "the later"] if matrices else
               [*_wrapped(said),
                "  survived: significant under both, same direction; reversed: opposite ones;",
                "  lost: significant only under the earlier labels; gained: only the later"])]
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
    if not matrices:
        return [*lines, "  (--verbose: the paired tests' matrices under each label set)"]
    for side in ("before", "after"):
        lines += table_lines(doc["tests"][side], doc["test_settings"][side], grid,
                             title=f"Paired tests under the {side} labels",
                             measures=doc["primary"], name=short_name)
    return lines
