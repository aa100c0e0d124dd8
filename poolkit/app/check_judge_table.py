"""``check-judge``'s table: a header, then one block per section of the report
(:data:`SECTIONS`: the report's field and its renderer, in the order printed). A section the
report does not hold (None) is left out; adding a section is one renderer and one entry."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from poolkit.app.check_sections import circularity_block, repeatability_block
from poolkit.tables import table, wrap, wrapped


def _rate(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def canaries_block(doc: Mapping[str, Any], report: Any) -> list[str]:
    rows = [[kind, str(d["planted"]), str(d["graded"]), str(d["failed"]), str(d["fooled"]),
             _rate(d["rate"]),
             "ok" if d["rate"] is not None and d["rate"] <= report["max_fooled"] else "FOOLED"
             if d["rate"] is not None else "no grade"]
            for kind, d in doc.items()]
    return [f"canaries (fooled: graded {report['level']} or higher; rate: fooled / graded, "
            f"at most {report['max_fooled']:g}; seed {report['seed']})",
            *table(["kind", "planted", "graded", "failed", "fooled", "rate", ""], rows,
                   "lrrrrrl", indent=2)]


def people_block(doc: Mapping[str, Any], report: Any) -> list[str]:
    conf = doc["confusion"]
    grades = [str(g) for g in conf["grades"]]
    rows = [[f"people {g}", *(str(n) for n in counts)]
            for g, counts in zip(grades, conf["counts"], strict=True)]
    len_ = doc["leniency"]
    ci = "" if len_["ci"] is None else f" [{len_['ci'][0]:+.2f}, {len_['ci'][1]:+.2f}]"
    kappa = "-" if doc["kappa"] is None else f"{doc['kappa']:.3f}"
    recall = ", ".join(f"{g}: {_rate(r)}" for g, r in doc["recall"].items())
    out = [f"against people ({doc['pairs']} pairs both graded)",
           *table(["", *(f"machine {g}" for g in grades)], rows, "lr", indent=2),
           *wrap(f"weighted kappa (quadratic) {kappa}; recall per grade {recall}; leniency "
                 f"mean(machine - human) {len_['mean']:+.2f}{ci} (95%)", "  ")]
    runs = doc["runs"]
    if "missing" in runs:
        out += wrap(f"run ordering ({runs['measure']}): none, {runs['missing']}", "  ")
        return out
    sig = runs["significant"]
    tau, top = runs["tau"], runs["tau_top"]
    out += wrap(f"run ordering by {runs['measure']} on {runs['queries']} queries both "
                f"labelled, {runs['runs']} runs: Kendall's tau {_rate(tau)}, over the top "
                f"{runs['top']} {_rate(top)}; significant differences ({sig['test']}, "
                f"{sig['correction']}, alpha {sig['alpha']:g}): {sig['machine']} under the "
                f"machine's labels, {sig['people']} under people's, {sig['machine_only']} "
                f"only under the machine's", "  ")
    return out


#: (the report's field, its block), in the order the table prints them
SECTIONS: list[tuple[str, Callable[[Mapping[str, Any], Any], list[str]]]] = [
    ("canaries", canaries_block),
    ("people", people_block),
    ("repeatability", repeatability_block),
    ("circularity", circularity_block),
]


def render(report: Any) -> str:
    verdict = "trusted" if report["trusted"] else "UNTRUSTED"
    text = wrapped(f"check-judge {report['judge']}@{report['version']} (model "
                   f"{report['model']}) on {report['store']}: {verdict}")
    for key, block in SECTIONS:
        doc = report.get(key)
        if doc is not None:
            text += "\n" + "".join(f"{line}\n" for line in block(doc, report))
    if report.get("people_missing"):
        text += "\n" + wrapped(f"against people: none; {report['people_missing']}")
    return text
