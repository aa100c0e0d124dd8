"""``poolkit agreement``'s table: a rendering of the report's JSON document
(``AgreementReport``): sources, pairs, alpha, flags, confusion matrices."""

from __future__ import annotations

from typing import Any


def render_table(doc: dict[str, Any], matrices: bool = True) -> str:
    """The agreement report for people: sources, pairs, alpha, flags, confusion matrices."""
    from poolkit.analysis.render import fmt, grid

    lines = [f"poolkit agreement: {len(doc['sources'])} label sources, grades on the fixed "
             f"{doc['scale'][0]}-{doc['scale'][-1]} scale, relevance level {doc['level']}", ""]
    lines += grid(["source", "kind", "judged", "queries", "unjudged (<0)"],
                  [[s["name"], s["kind"], str(s["judged"]), str(s["queries"]), str(s["unjudged"])]
                   for s in doc["sources"]], left=(1,))
    lines.append("")
    boot = doc["bootstrap"]
    if not doc["pairs"]:
        lines.append("No two sources judged a common (query, doc) pair: nothing to compare.")
    else:
        lines.append(f"Sources judging the same (query, doc) pairs; agree = same grade; "
                     f"binary: grade >= {doc['level']}")
        ws = ("unweighted", "linear", "quadratic", "binary")

        def ci(r: dict[str, Any], w: str) -> str:
            band = r["kappa_ci"][w]
            return "n/a" if band is None else f"{fmt(band['low'], 2)} to {fmt(band['high'], 2)}"

        lines += grid(["a", "b", "shared", "agree", "kappa", "linear", "quadratic", "binary"],
                      [[r["a"], r["b"], str(r["shared"]), fmt(r["raw_agreement"], 3),
                        *(fmt(r["kappa"][w], 3) for w in ws)] for r in doc["pairs"]],
                      left=(1,))
        lines += [f"  note ({r['a']}, {r['b']}): {n}" for r in doc["pairs"] for n in r["notes"]]
        lines += ["", f"  {boot['level']:.0%} percentile bootstrap intervals ({boot['resamples']} "
                      f"resamples of the shared pairs, seed {boot['seed']})"]
        lines += grid(["a", "b", "kappa", "linear", "quadratic", "binary"],
                      [[r["a"], r["b"], *(ci(r, w) for w in ws)] for r in doc["pairs"]],
                      left=(1,))
    lines.append("")
    a = doc["alpha"]
    lines.append(f"Krippendorff's alpha ({a['metric']}) across {a['sources']} sources: "
                 f"{fmt(a['value'], 3)} on {a['units']} pairs judged by at least two sources")
    flag = doc["flag"]
    lines.append("")
    ref = doc["reference"]
    chosen = (f"Reference {ref!r} (the only human assessor; pick another with --reference NAME)"
              if doc.get("reference_default") else None)
    if ref is None:
        humans = [s["name"] for s in doc["sources"] if s["kind"] == "assessor"]
        among = (f"{len(humans)} human assessors ({', '.join(humans)})" if humans
                 else "no human assessor among the sources")
        lines.append(f"No --reference given, {among}: name the reference with --reference NAME "
                     f"to flag noisy sources.")
    elif not flag["against_reference"]:
        lines.append(f"{chosen or f'Reference {ref!r}'} shares no judged pair with any other "
                     f"source: nothing to flag.")
    else:
        if chosen:
            lines.append(chosen + ".")
        lines.append(f"Against the reference {ref!r} ({flag['kappa']} kappa, 95% interval; "
                     f"too noisy when all of it is below {flag['threshold']}):")
        shared = {(r["a"], r["b"]): r["shared"] for r in doc["pairs"]}
        rows = []
        for n, v in flag["against_reference"].items():
            band = next((r["kappa_ci"][flag["kappa"]] for r in doc["pairs"]
                         if {r["a"], r["b"]} == {n, ref}), None)
            said = flag.get("verdicts", {}).get(n, "undecided")
            count = shared.get((n, ref), shared.get((ref, n), 0))
            rows.append([n, fmt(v, 3),
                         f"{fmt(band['low'], 2)} to {fmt(band['high'], 2)}" if band else "-",
                         {"ok": "ok", "too noisy": "TOO NOISY"}.get(
                             said, f"too few pairs to tell ({count})")])
        lines += grid(["source", "kappa", "interval", "verdict"], rows, left=(3,))
    if doc.get("machines"):
        lines += machine_lines(doc["machines"], doc["level"], doc["flag"]["threshold"])
    if matrices and doc["pairs"]:
        lines += ["", "Confusion matrices (rows: a's grade, columns: b's grade)"]
        for r in doc["pairs"]:
            c = r["confusion"]
            lines.append("")
            lines += grid([f"{r['a']} \\ {r['b']}", *map(str, c["labels"])],
                          [[str(lab), *map(str, row)]
                           for lab, row in zip(c["labels"], c["counts"], strict=True)])
    return "\n".join(lines) + "\n"


def machine_lines(rows: list[dict[str, Any]], level: int, threshold: float) -> list[str]:
    """Each machine judge version against each person or reference: kappa on the four
    grades and binary, their intervals and verdicts, and the mean grade difference per human
    grade (machine minus human)."""
    from poolkit.analysis.render import fmt, grid

    def band(r: dict[str, Any], w: str) -> str:
        ci = r["kappa_ci"][w]
        return "n/a" if ci is None else f"{fmt(ci['low'], 2)} to {fmt(ci['high'], 2)}"

    def diff(value: float | None) -> str:
        return "-" if value is None else f"{value:+.2f}"

    said = {"ok": "ok", "too noisy": "TOO NOISY", "undecided": "undecided"}
    grades = list(rows[0]["mean_difference"]) if rows else ["0", "1", "2", "3"]
    lines = ["", f"Machine judges against each person or reference (kappa on the "
                 f"{len(grades)} grades, and "
                 f"binary at grade >= {level}; verdict against {threshold}; mean difference "
                 f"= machine minus human grade, per human grade: + is lenient)"]
    lines += grid(["judge", "against", "shared", "kappa", "interval", "verdict", "binary",
                   "interval", "verdict"],
                  [[r["source"], r["against"], str(r["shared"]), fmt(r["kappa"]["unweighted"], 3),
                    band(r, "unweighted"), said[r["verdict"]["unweighted"]],
                    fmt(r["kappa"]["binary"], 3), band(r, "binary"),
                    said[r["verdict"]["binary"]]] for r in rows], left=(1,))
    lines += ["", "  mean grade difference (machine minus human) by the human's grade"]
    lines += grid(["judge", "against", *(f"human {g}" for g in grades)],
                  [[r["source"], r["against"],
                    *(diff(r["mean_difference"][g]) for g in grades)] for r in rows],
                  left=(1,))
    return lines
