"""``poolkit compare``'s table: a rendering of the report's JSON document (``CompareReport``).

Condensed-list variants are spelled with a prime (``AP'``); the per-query lists are optional.
"""

from __future__ import annotations

from typing import Any

from poolkit.io.paths import shown_path
from poolkit.score.mismatch import shared_phrase


def short_name(name: str) -> str:
    """Table spelling: the condensed variant as a prime, ``AP(judged_only=true)`` -> ``AP'``."""
    if "judged_only=true" not in name:
        return name
    s = (name.replace(",judged_only=true", "").replace("judged_only=true,", "")
         .replace("(judged_only=true)", ""))
    head, at, cut = s.partition("@")
    return f"{head}'{at}{cut}"


def _labels_line(side: str, s: dict[str, Any]) -> str:
    where = (f"pool v{s['pool_version']} of {shown_path(s['store'])} ({s['policy']} policy)"
             if s.get("kind") == "store" else f"{s.get('path')}")
    extra = f", {s.get('unresolved', 0)} unresolved" if s.get("kind") == "store" else ""
    if s.get("machine"):
        extra += (f", {s['machine_graded']} by machine judge {', '.join(s['machine'])} "
                  f"(a person's grade wins)")
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
    lines += [f"  queries of {r['name']}: {phrase}" for r in doc["runs"]
              if (phrase := shared_phrase(**r["queries"], labels_name="after labels"))]
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
        for name, c in contrib.get("sources", {}).items():
            lines.append(f"  {name} (not a run: passages found beyond the pool): "
                         f"{c['new_docs']} new docs, {c['only_it']} only it, "
                         f"{c['new_judged']} judged, {c['new_relevant']} relevant")
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
