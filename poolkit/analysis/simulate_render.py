"""The ``poolkit simulate`` report as a table, and its plot (matplotlib, imported only here)."""

from __future__ import annotations

from typing import Any

from poolkit.analysis.render import fmt, grid
from poolkit.errors import PoolkitError
from poolkit.io.atomic import atomic_writer


def render_table(doc: dict[str, Any]) -> str:
    strategies: dict[str, Any] = doc["strategies"]
    keys = list(next(iter(strategies.values()))["budgets"]) if strategies else []
    rule = doc["stop_rule"]
    lines = [f"simulate · qrels {doc.get('qrels', {}).get('name', '?')} · {doc['queries']} "
             f"queries · pool {doc['pool']} · relevant in pool {doc['relevant']} "
             f"(grade >= {doc['level']}) · runs {len(doc['runs'])}", ""]
    lines.append("  relevant found (pool recall) at each budget")
    lines += grid(["strategy", *keys], [
        [n, *(f"{b['relevant_found']} ({fmt(b['recall'], 3)})" for b in s["budgets"].values())]
        for n, s in strategies.items()])
    for measure in doc["measures"]:
        lines += ["", f"  Kendall's tau of the runs' {measure} ordering vs the full labels"]
        lines += grid(["strategy", *keys], [
            [n, *(fmt(b["tau"][measure], 3) for b in s["budgets"].values())]
            for n, s in strategies.items()])
    lines += ["", "  remaining-relevant estimate: share of queries whose 95% interval holds "
                  "the true count"]
    lines += grid(["strategy", *keys], [
        [n, *(fmt(b["interval_coverage"], 2) for b in s["budgets"].values())]
        for n, s in strategies.items()])
    lines += ["", f"  stopping rule: stop a query once P(pool recall >= {rule['target']:g}) >= "
                  f"{rule['confidence']:g} (from {rule['min_judged']} judgments on)"]
    lines += grid(["strategy", "judged", "found", "recall", "queries at target"], [
        [n, str(s["stop"]["judged"]), str(s["stop"]["relevant_found"]),
         fmt(s["stop"]["recall"], 3),
         f"{s['stop']['queries_reaching_target']}/{doc['queries']}"]
        for n, s in strategies.items()])
    rules = next(iter(strategies.values())).get("stops", {}) if strategies else {}
    for rule, first in rules.items():
        lines += ["", f"  stop: {rule} — promise: {first['promise']}"]
        lines += grid(["strategy", "judged", "share judged", "found", "recall",
                       "share at target", *(["over draws: at target (min), meeting, judged "
                                             "(max)"] if "draws" in first else [])], [
            [n, str(s["stops"][rule]["judged"]), fmt(s["stops"][rule]["judged_share"], 3),
             str(s["stops"][rule]["relevant_found"]),
             fmt(s["stops"][rule]["recall"], 3), fmt(s["stops"][rule]["share_reaching_target"], 3),
             *([_draws(s["stops"][rule]["draws"])] if "draws" in first else [])]
            for n, s in strategies.items()])
    if strategies:
        share = next(iter(strategies.values()))["budget_to_target_share"]["share"]
        lines += ["", f"  fixed budget: the fraction of every query's pool at which "
                      f"{share:.0%} of the queries reach recall {_target(doc)}"]
        lines += grid(["strategy", "fraction", "judged", "share judged"], [
            [n, fmt(b["fraction"], 3), str(b["judged"]), fmt(b["judged_share"], 3)]
            for n, s in strategies.items() for b in [s["budget_to_target_share"]]])
    targets = list(next(iter(strategies.values()))["judgments_to_recall"]) if strategies else []
    lines += ["", f"  judgments until every query has found a share R of its relevant "
                  f"pooled documents (pool: {doc['pool']})"]
    lines += grid(["strategy", *(f"R={t}" for t in targets)], [
        [n, *(str(v) for v in s["judgments_to_recall"].values())]
        for n, s in strategies.items()])
    if doc.get("find"):
        lines += ["", *_find_lines(doc["find"], doc["level"])]
    return "\n".join(lines) + "\n"


def _target(doc: dict[str, Any]) -> str:
    return f"{doc['stop_rule']['target']:g}"


def _draws(draws: dict[str, Any]) -> str:
    """The conformal rule over its ``count`` draws: mean share of queries at the target
    (its smallest), the share of draws meeting the promised share, the share judged."""
    at, judged = draws["share_reaching_target"], draws["judged_share"]
    return (f"{fmt(at['mean'], 3)} ({fmt(at['min'], 3)}), {fmt(draws['meeting_share'], 2)}, "
            f"{fmt(judged['mean'], 3)} ({fmt(judged['max'], 3)}) of {draws['count']}")


def _find_lines(find: dict[str, Any], level: int) -> list[str]:
    """``--find``: relevant passages found beyond the pool by the classifier, against
    deepening every run's pool by the same judgments."""
    lines = [f"  beyond the pool (all {find['pool']} pooled passages judged first): relevant "
             f"found with extra judgments, of {find['outside_relevant']} relevant (grade >= "
             f"{level}) outside the pool; classifier in rounds of {find['batch']} per query"]
    rows = []
    for key, b in find["budgets"].items():
        c, d = b["classifier"], b["deepen"]
        rows.append([key, str(b["judged"]),
                     f"{c['relevant_found']} ({fmt(c['per_judgment'], 3)})",
                     f"{d['relevant_found']} ({fmt(d['per_judgment'], 3)})",
                     str(d["depth"])])
    return lines + grid(["extra", "judged", "classifier (per judgment)",
                         "deepening (per judgment)", "deepest rank"], rows)


def plot_backend() -> Any:
    """matplotlib's pyplot on the file-only Agg backend; a PoolkitError when not installed."""
    try:
        import matplotlib
    except ModuleNotFoundError:
        raise PoolkitError("--plot needs matplotlib: pip install 'poolkit[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot(doc: dict[str, Any], path: str, title: str | None = None) -> None:
    """Relevant found against judgments (summed over queries), one line per strategy."""
    plt = plot_backend()
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    for name, s in doc["strategies"].items():
        ax.plot(s["curve"]["judged"], s["curve"]["relevant_found"], label=name, linewidth=1.6)
    ax.axhline(doc["relevant"], color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("judgments (all queries)")
    ax.set_ylabel(f"relevant found (grade >= {doc['level']})")
    ax.set_title(title or f"{doc.get('qrels', {}).get('name', '')}: {doc['queries']} queries, "
                          f"pool {doc['pool']}")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    try:
        with atomic_writer(path, "wb") as fh:  # an OutputError naming the file, old one kept
            fig.savefig(fh, format="png")
    finally:
        plt.close(fig)
