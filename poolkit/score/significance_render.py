"""Text renderings of paired tests (the JSON ``tests`` block of ``PairedTests.to_dict``).

Per measure, a compact run-vs-run matrix (upper triangle: mean difference row - column, the
marked p-value and ``*`` when significant), then one reading per significant difference:
``bm25 < splade on nDCG@10: -0.254, p_holm < 0.001``. Shared by ``score`` and ``compare``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

TEST_NAMES = {"t": "paired t-test", "randomization": "paired randomization test",
              "wilcoxon": "Wilcoxon signed-rank test"}
CORRECTION_NAMES = {"holm": "Holm-adjusted", "bh": "Benjamini-Hochberg-adjusted",
                    "none": "unadjusted"}

Grid = Callable[..., list[str]]


def p_name(settings: Mapping[str, Any]) -> str:
    return "p" if settings["correction"] == "none" else f"p_{settings['correction']}"


def marked(entry: Mapping[str, Any], settings: Mapping[str, Any]) -> float | None:
    """The p-value the report marks: the chosen test's, adjusted as chosen."""
    if settings["correction"] == "none":
        p: float | None = entry["p"][settings["test"]]
    else:
        p = entry["p_adjusted"][settings["correction"]]
    return p


def fmt_p(p: float | None) -> str:
    """``0.012``, ``<0.001``, or ``n/a``."""
    if p is None:
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _relation(p: str, value: float | None) -> str:
    return f"{p} {'n/a' if value is None else ('< 0.001' if value < 0.001 else f'= {value:.3f}')}"


def settings_line(settings: Mapping[str, Any]) -> str:
    test = TEST_NAMES[settings["test"]]
    if settings["test"] == "randomization":
        test += f" ({settings['permutations']:,} sign flips, seed {settings['seed']})"
    family = settings["family"]
    return (f"{test}, {CORRECTION_NAMES[settings['correction']]} over {family} "
            f"test{'' if family == 1 else 's'} (every pair and measure), "
            f"alpha {settings['alpha']:g}")


def paired_counts(tests: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    ns = sorted({t["n"] for ts in tests.values() for t in ts})
    if not ns:
        return "no pairs"
    return f"{ns[0]} paired queries" if len(ns) == 1 else \
        f"{ns[0]}-{ns[-1]} paired queries (per pair in JSON)"


def reading(entry: Mapping[str, Any], measure: str, settings: Mapping[str, Any]) -> str:
    """``bm25 < splade on nDCG@10: -0.254, p_holm < 0.001`` (``~`` when not significant)."""
    diff = entry["diff"]
    rel = "~" if not entry["significant"] else ("<" if diff < 0 else ">")
    d = "n/a" if diff is None else f"{diff:+.3f}"
    return (f"{entry['a']} {rel} {entry['b']} on {measure}: {d}, "
            f"{_relation(p_name(settings), marked(entry, settings))}")


def matrix(entries: Sequence[Mapping[str, Any]], measure: str,
           settings: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the upper-triangle matrix (rows: a, columns: b)."""
    rows_names = list(dict.fromkeys(e["a"] for e in entries))
    cols = list(dict.fromkeys(e["b"] for e in entries))
    cell = {(e["a"], e["b"]): e for e in entries}
    rows = []
    for a in rows_names:
        row = [a]
        for b in cols:
            e = cell.get((a, b))
            if e is None or e["diff"] is None:
                row.append("")
                continue
            star = " *" if e["significant"] else "  "
            row.append(f"{e['diff']:+.3f} {fmt_p(marked(e, settings))}{star}")
        rows.append(row)
    return [measure, *cols], rows


def table_lines(tests: Mapping[str, Sequence[Mapping[str, Any]]], settings: Mapping[str, Any],
                grid: Grid, title: str = "Paired tests", measures: Sequence[str] | None = None,
                name: Callable[[str], str] = str) -> list[str]:
    """The matrices and readings for ``measures`` (default: all), under ``title``."""
    out = ["", f"{title}: {settings_line(settings)}",
           f"  cell: mean difference row - column over {paired_counts(tests)}, "
           f"{p_name(settings)}, * = significant"]
    for m in measures if measures is not None else list(tests):
        entries = tests.get(m, [])
        if not entries:
            continue
        headers, rows = matrix(entries, name(m), settings)
        out += ["", *grid(headers, rows)]
        sig = [e for e in entries if e["significant"]]
        out.append(f"  {len(sig)} of {len(entries)} differences significant on {name(m)}"
                   + (":" if sig else ""))
        out += [f"    {reading(e, name(m), settings)}" for e in sig]
    return out


def markdown_lines(tests: Mapping[str, Sequence[Mapping[str, Any]]],
                   settings: Mapping[str, Any],
                   md: Callable[[list[str], list[list[str]]], list[str]]) -> list[str]:
    out = ["", "## paired tests", "", f"{settings_line(settings)}; cell: mean difference row - "
           f"column over {paired_counts(tests)}, {p_name(settings)}, * = significant."]
    for m, entries in tests.items():
        if not entries:
            continue
        headers, rows = matrix(entries, m, settings)
        out += ["", *md(headers, rows), ""]
        out += [f"- {reading(e, m, settings)}" for e in entries if e["significant"]]
    return out


#: fewer paired queries than this, and the default output reads no p-value at all
MIN_QUERIES = 10
#: the default output lists at most this many significant differences
BRIEF_READINGS = 20


def too_few(tests: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[str]:
    """The lines that say the paired tests cannot be read, when some pair has fewer than
    ``MIN_QUERIES`` queries (else [])."""
    fewest = min((e["n"] for es in tests.values() for e in es), default=MIN_QUERIES)
    if fewest >= MIN_QUERIES:
        return []
    return ["", f"significance: {fewest} {'query' if fewest == 1 else 'queries'} — too few to "
                f"read paired tests (needs at least {MIN_QUERIES})",
            "  (--verbose shows every pair's p-value)"]


def brief_lines(tests: Mapping[str, Sequence[Mapping[str, Any]]], settings: Mapping[str, Any],
                name: Callable[[str], str] = str, limit: int = BRIEF_READINGS) -> list[str]:
    """The default output's paired tests: one line per significant difference after the
    correction, or one line saying that so few queries cannot be read (the matrices, every
    p-value among them, are ``--verbose``'s: :func:`table_lines`)."""
    entries = [(m, e) for m, es in tests.items() for e in es]
    if not entries:
        return []
    few = too_few(tests)
    if few:
        return few
    sig = [(m, e) for m, e in entries if e["significant"]]
    how = (f"{TEST_NAMES[settings['test']]}, {CORRECTION_NAMES[settings['correction']]}, "
           f"alpha {settings['alpha']:g}")
    out = ["", f"significance: {len(sig)} of {len(entries)} differences significant over "
               f"{paired_counts(tests)}",
           f"  ({how}; --verbose: every pair){':' if sig else ''}"]
    out += [f"  {reading(e, name(m), settings)}" for m, e in sig[:limit]]
    if len(sig) > limit:
        out.append(f"  ... {len(sig) - limit} more (--verbose lists every pair)")
    return out
