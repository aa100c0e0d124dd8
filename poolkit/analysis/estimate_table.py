"""``poolkit estimate``'s table: the report's notes first, then per measure the runs and the
pairs, the orderings' taus, and the judge's agreement with the people.

By default it fits an 80-column terminal: the pairs are one line per significant difference
(or one line saying that so few human queries cannot be read, as ``score`` says it); their
table, every p-value in it, is ``verbose``'s.
"""

from __future__ import annotations

import math
from typing import Any

from poolkit.score.significance import ALPHA
from poolkit.score.significance_render import MIN_QUERIES
from poolkit.tables import table
from poolkit.tables import wrap as _wrapped


def _f(value: float | None, digits: int = 3) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _p(value: float) -> str:
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def render_table(doc: dict[str, Any], verbose: bool = False) -> str:
    """The report as text; ``verbose``: every pair's difference in a table."""
    q = doc["queries"]
    conf = round(doc["confidence"] * 100)
    wrap = (lambda text, indent="": [indent + text]) if verbose else _wrapped
    out = [line for note in doc["notes"] for line in wrap(f"note: {note}")]
    out += wrap(f"queries: N = {q['N']} scored by the machine's labels, n = {q['n']} by the "
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
        if pairs and not verbose:
            out += _brief_pairs(pairs, doc["correction"])
        elif pairs:
            out.append("")
            rows = [[key.replace("|", " - "), _signed(e["machine"]), _signed(e["human"]),
                     _signed(e["estimate"]), f"[{e['low']:+.3f}, {e['high']:+.3f}]",
                     _f(e["lambda"], 2), _p(e["p"]), _p(e["p_adjusted"])] for key, e in pairs]
            out += table(["A - B", "machine", "human", "estimate", f"{conf}% interval",
                          "lambda", "p", f"p {doc['correction']}"], rows, align="lrrrrrrr",
                         indent=2)
        taus = doc["tau"][measure]
        out += wrap("Kendall's tau of the run orderings: " + ", ".join(
            f"{k.replace('|', ' vs ')} {_f(v, 2)}" for k, v in taus.items()), "  ")
    agreement = agreement_lines(doc["agreement"], doc["level"])
    out += ["", *wrap(agreement[0]), *agreement[1:]]
    return "\n".join(out) + "\n"


def _brief_pairs(pairs: list[tuple[str, dict[str, Any]]], correction: str) -> list[str]:
    """One line per significant difference, or one saying so few queries cannot be read."""
    fewest = min(e["n"] for _key, e in pairs)
    if fewest < MIN_QUERIES:
        return _wrapped(f"pairs: n = {fewest} human {'query' if fewest == 1 else 'queries'} "
                        f"— too few to read the differences' p-values (needs at least "
                        f"{MIN_QUERIES}; --verbose shows every pair)", "  ")
    p_name = "p" if correction == "none" else f"p {correction}"
    sig = [(key, e) for key, e in pairs if e["p_adjusted"] < ALPHA]
    out = _wrapped(f"pairs: {len(sig)} of {len(pairs)} differences significant ({p_name} < "
                   f"{ALPHA:g}; --verbose: every pair){':' if sig else ''}", "  ")
    return out + [f"    {key.replace('|', ' - ')}: {_signed(e['estimate'])} "
                  f"[{e['low']:+.3f}, {e['high']:+.3f}], {p_name} {_p(e['p_adjusted'])}"
                  for key, e in sig]


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
