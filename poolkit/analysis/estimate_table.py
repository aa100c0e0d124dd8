"""``poolkit estimate``'s table: the report's notes first, then per measure the runs and the
pairs, the orderings' taus, and the judge's agreement with the people."""

from __future__ import annotations

import math
from typing import Any

from poolkit.tables import table


def _f(value: float | None, digits: int = 3) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _p(value: float) -> str:
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def render_table(doc: dict[str, Any]) -> str:
    q = doc["queries"]
    conf = round(doc["confidence"] * 100)
    out = [f"note: {line}" for line in doc["notes"]]
    out.append(f"queries: N = {q['N']} scored by the machine's labels, n = {q['n']} by the "
               f"people's (level {doc['level']}); interval {conf}%, lambda = the weight on "
               f"the machine (0 human-only, 1 plain PPI)")
    names = list(doc["runs"])
    for measure in doc["measures"]:
        out += ["", f"{measure}"]
        rows = []
        for name in names:
            e = doc["runs"][name]["measures"][measure]
            rows.append([name, _f(e["machine"]), _f(e["human"]), _f(e["estimate"]),
                         f"[{_f(e['low'])}, {_f(e['high'])}]", _f(e["lambda"], 2)])
        out += table(["run", "machine", f"human (n={q['n']})", "estimate", f"{conf}% interval",
                      "lambda"], rows, align="lrrrrr", indent=2)
        pairs = [(key, d[measure]) for key, d in doc["pairs"].items() if measure in d]
        if pairs:
            out.append("")
            rows = [[key.replace("|", " - "), _signed(e["machine"]), _signed(e["human"]),
                     _signed(e["estimate"]), f"[{e['low']:+.3f}, {e['high']:+.3f}]",
                     _f(e["lambda"], 2), _p(e["p"]), _p(e["p_adjusted"])] for key, e in pairs]
            out += table(["A - B", "machine", "human", "estimate", f"{conf}% interval",
                          "lambda", "p", f"p {doc['correction']}"], rows, align="lrrrrrrr",
                         indent=2)
        taus = doc["tau"][measure]
        out.append("  Kendall's tau of the run orderings: " + ", ".join(
            f"{k.replace('|', ' vs ')} {_f(v, 2)}" for k, v in taus.items()))
    out += ["", *agreement_lines(doc["agreement"], doc["level"])]
    return "\n".join(out) + "\n"


def agreement_lines(a: dict[str, Any] | None, level: int) -> list[str]:
    """The judge against the people: kappas with intervals, the verdict, the confusion."""
    if a is None:
        return ["the judge and the people share no graded pair: no agreement to report"]

    def undefined(w: str) -> bool:
        return a["kappa"][w] is None or math.isnan(a["kappa"][w])  # null in the JSON

    def kappa(w: str) -> str:
        if undefined(w):
            return "n/a"
        ci = a["kappa_ci"][w]
        band = "" if ci is None else f" [{ci['low']:.2f}, {ci['high']:.2f}]"
        return f"{a['kappa'][w]:.2f}{band} ({a['verdict'][w]})"

    why = (" (n/a: both sides put every shared pair in one and the same class, so kappa is "
           "undefined)"
           if undefined("unweighted") or undefined("binary") else "")
    c = a["confusion"]
    rows = [[f"human {g}", *map(str, counts)] for g, counts in zip(c["labels"], c["counts"])]
    return [f"the judge against the people on {a['shared']} pairs both graded: Cohen's kappa "
            f"{kappa('unweighted')}, binary at level {level} {kappa('binary')}{why}; verdicts "
            f"against the threshold {a['threshold']:g}",
            *table(["", *(f"machine {g}" for g in c["labels"])], rows, align="lr", indent=2)]
