"""The ppi-replay report as Markdown tables: one summary row per n and measure, then each
run's bias and coverage. In the pair designs (pairs, active, strat) n is a budget (the
judgments of n whole queries, spread over every query): the design line and the n column
say so."""

from __future__ import annotations

from typing import Any


def _share(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def replay_table(report: Any) -> str:
    calibrated = "; machine grades recalibrated (cross-fitted)" if report.calibrate else ""
    if report.lambda_max != 1.0:
        calibrated += f"; tuned lambda in [0, {report.lambda_max:g}]"
    pairs = report.design != "queries"
    spread = (f" (n: a budget of n whole queries' worth of pairs, spread over all "
              f"{report.queries} queries; judgments: the pairs drawn"
              f"{', over both rounds' if report.design in ('active', 'strat') else ''})"
              if pairs else "")
    n = "n (queries' worth)" if pairs else "n"
    lines = [f"Design: {report.design}{spread}{calibrated}; {report.seeds} seeds; truth: the "
             f"FULL qrels on {report.queries} queries; level {report.level}; 95% intervals (t "
             f"below 30 human queries in the query design). Human-only: the same n queries "
             f"judged by people alone.", "",
             f"| measure | {n} | judgments | max abs bias (machine) | coverage (human) | "
             "width vs human: mean (max) | tau: estimate / machine / human | "
             "pairs: coverage (human) | pairs: width vs human | significant found "
             "(human) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in report.results:
        s, p, t = r["summary"], r["pairs"], r["summary"]["tau"]
        lines.append(
            f"| {r['measure']} | {r['n']} | {r['judgments']:.0f} | {s['max_abs_bias']:.4f} "
            f"({s['machine_max_abs_bias']:.3f}) | {s['coverage']:.2f} "
            f"({s['human_coverage']:.2f}) | {s['width_ratio']:.2f}x "
            f"({s['max_width_ratio']:.2f}x) | {t['estimate']:.3f} / {t['machine']:.3f} / "
            f"{t['human']:.3f} | {p['coverage']:.2f} ({p['human_coverage']:.2f}) | "
            f"{p['width_ratio']:.2f}x | {_share(p['found'])} ({_share(p['human_found'])}) "
            f"of {p['significant']}/{p['of']} |")
    lines += ["", f"| measure | {n} | run | truth | machine | bias | coverage | width | "
                  "human width |", "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in report.results:
        for name, v in r["runs"].items():
            lines.append(f"| {r['measure']} | {r['n']} | {name} | {v['truth']:.4f} | "
                         f"{v['machine']:.4f} | {v['bias']:+.4f} | {v['coverage']:.2f} | "
                         f"{v['width']:.3f} | {v['human_width']:.3f} |")
    return "\n".join(lines) + "\n"
