"""``poolkit status``: judging progress per query and per assessor."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TextIO

from poolkit.cli.options import REPORT_FORMATS as FORMATS
from poolkit.errors import StoreUnavailable
from poolkit.tables import table


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "status", help="judging progress: judged/pooled, grades, pace, double judgments",
        description="Per query and per assessor: judged / pooled, the grade histogram, the "
                    "median seconds per judgment (judged_at - shown_at) and how many pairs "
                    "carry grades from two or more assessors.")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    p.add_argument("--format", choices=FORMATS, default="table")
    p.add_argument("--pool-version", type=int, metavar="V",
                   help="count against the pool as of version V (default: the latest)")
    p.add_argument("--watch", type=float, nargs="?", const=5.0, metavar="SECONDS",
                   help="a live team view: redraw every SECONDS (default 5) until Ctrl-C, "
                        "each assessor's progress and pace as the others judge")
    p.set_defaults(handler=run)


DAY = 86400  # the longest --watch interval


def run(args: argparse.Namespace) -> int:
    from poolkit.collection import Collection
    from poolkit.errors import PoolkitError

    if args.watch is not None and not args.watch > 0:
        raise PoolkitError(f"--watch takes a number of seconds above 0, not {args.watch:g}")
    if args.watch is not None and not args.watch <= DAY:  # inf would overflow sleep()
        raise PoolkitError(f"--watch takes at most {DAY} seconds (a day), not {args.watch:g}")
    with Collection.open(args.config) as collection:
        if args.pool_version is not None:
            collection.version(args.pool_version)
        if args.watch is None:
            sys.stdout.write(render(collection, args))
        else:
            watch(lambda: render(collection, args), args.watch)
    return 0


def render(collection: Any, args: argparse.Namespace) -> str:
    """The report as of now (a new pool version is picked up at each redraw)."""
    from poolkit.store.judging import status_report

    report = status_report(collection.store, args.pool_version,
                           collection.config.judge.min_display).to_dict()
    if report["pool_version"] is not None:
        add_judging_progress(report, collection.next_passage(report["pool_version"]),
                             collection.config)
    if args.format == "json":
        return json.dumps(report, indent=2) + "\n"
    return render_table(report)


def watch(draw: Callable[[], str], seconds: float, refreshes: int | None = None,
          sleep: Callable[[float], None] = time.sleep, out: TextIO | None = None) -> None:
    """Redraw ``draw()`` every ``seconds`` (``refreshes`` times; None: until Ctrl-C). On a
    terminal each frame replaces the last; piped, frames follow each other. A store that
    cannot be reached for a frame (a PostgreSQL restart) is said in that frame and read
    again at the next one (the connection is opened again then)."""
    out = out or sys.stdout
    clear = "\x1b[H\x1b[2J" if out.isatty() else ""
    n = 0
    try:
        while refreshes is None or n < refreshes:
            if n:
                sleep(seconds)
            try:
                frame = draw()
            except StoreUnavailable as exc:  # a server restarting: say so, try next frame
                frame = f"store unreachable: {exc} (trying again)\n"
            stamp = datetime.now().strftime("%H:%M:%S")
            out.write(f"{clear}{frame}-- {stamp}, every {seconds:g}s; Ctrl-C to stop\n")
            out.flush()
            n += 1
    except KeyboardInterrupt:
        out.write("\n")


def add_judging_progress(report: dict[str, Any], chooser: Any, config: Any) -> None:
    """Per query: judged / budget, relevant found, the estimate of relevant passages still
    unjudged (95% interval), and why the query is closed, if it is."""
    settings = config.pool.settings
    report["order"] = config.pool.order
    report["budget"] = str(chooser.budget) if chooser.budget else None
    report["stop_rule"] = ({"target": settings["stop_recall"],
                            "confidence": settings.get("stop_confidence", 0.9)}
                           if "stop_recall" in settings else None)
    for qid, row in report["queries"].items():
        if qid in chooser.pools:
            extra = chooser.query_status(qid)
            row.update({k: extra[k] for k in ("budget", "relevant_found",
                                              "remaining_estimate", "closed")})


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def render_table(report: Mapping[str, Any]) -> str:
    from poolkit.store.judging import FAST_MEDIAN

    head = ("query", "assessor", "judged/pooled", "g0", "g1", "g2", "g3", "med s", "double",
            "judged/budget", "rel", "left est (95%)")
    rows: list[tuple[str, ...]] = []

    def cells(qid: str, name: str, cell: dict[str, Any], double: str = "") -> tuple[str, ...]:
        g = cell["grades"]
        return (qid, name, f"{cell['judged']}/{cell['pooled']}", g["0"], g["1"], g["2"],
                g["3"], _seconds(cell["median_seconds"]), double, "", "", "")

    def progress(q: dict[str, Any]) -> tuple[str, str, str]:
        if "remaining_estimate" not in q:
            return ("", "", "")
        est = q["remaining_estimate"]
        budget = "-" if q["budget"] is None else str(q["budget"])
        left = f"{est['value']:.1f} ({est['low']:g}-{est['high']:g})"
        return (f"{q['judged']}/{budget}" + (" stop" if q["closed"] else ""),
                str(q["relevant_found"]), left)

    for qid, q in report["queries"].items():
        rows.append((qid, "(any)", f"{q['judged']}/{q['pooled']}", "", "", "", "", "",
                     str(q["doubly_judged"]), *progress(q)))
        rows.extend(cells(qid, name, c) for name, c in q["assessors"].items())
    rows.append(("all", "(any)", f"{report['judged']}/{report['pooled']}", "", "", "", "", "",
                 str(report["doubly_judged"]), "", "", ""))
    rows.extend(cells("all", name, c) for name, c in report["assessors"].items())
    lines = [f"store {report['store']} · pool version {report['pool_version']}",
             *table(head, [tuple(str(c) for c in r) for r in rows], align="llr")]
    for qid, q in report["queries"].items():
        if q.get("closed"):
            lines.append(f"query {qid}: no more passages offered: {q['closed']}")
    for name, cell in report["assessors"].items():
        if cell.get("fast"):
            lines.append(f"{name}: median {_seconds(cell['median_seconds'])} s per judgment, "
                         f"under {FAST_MEDIAN:g} s: check that the passages are being read")
        if cell.get("under_min_display"):
            lines.append(f"{name}: {cell['under_min_display']} judgment(s) made less than "
                         f"{report['min_display']:g} s after the passage appeared")
    if report["unpooled_labels"]:
        lines.append(f"{report['unpooled_labels']} label(s) on pairs outside the pool "
                     f"(imported) are not counted above")
    return "\n".join(lines) + "\n"
