"""``poolkit status``: judging progress per query and per assessor."""

from __future__ import annotations

import argparse
import sys

from poolkit.app.status import StatusReport
from poolkit.cli.options import add_verbose


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "status", help="judging progress: judged/pooled, grades, pace, double judgments",
        description="Per query and per assessor: judged / pooled, the grade histogram, the "
                    "median seconds per judgment (judged_at - shown_at) and how many pairs "
                    "carry grades from two or more assessors.",
        epilog="examples:\n  poolkit status configs/sample.yaml\n"
               "  poolkit status configs/sample.yaml --watch 10\n")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    p.add_argument("--format", choices=StatusReport.formats, default=StatusReport.formats[0])
    p.add_argument("--pool-version", type=int, metavar="V",
                   help="count against the pool as of version V (default: the latest)")
    add_verbose(p, "one table, every assessor's row under every query")
    p.add_argument("--watch", type=float, nargs="?", const=5.0, metavar="SECONDS",
                   help="the lead's dashboard: every assessor's progress, pace, agreement "
                        "and flags, redrawn every SECONDS (default 5, at least 0.5) until "
                        "Ctrl-C (q); on a terminal, p shows the per-query rows; piped, a "
                        "frame that fits")
    p.set_defaults(handler=run)


DAY = 86400  # the longest --watch interval
#: the shortest: each redraw reads the whole store, and a person reads no faster
FASTEST = 0.5


def run(args: argparse.Namespace) -> int:
    from poolkit.app.status import status
    from poolkit.app.status_board import live
    from poolkit.collection import Collection
    from poolkit.errors import PoolkitError

    if args.watch is not None and not args.watch > 0:
        raise PoolkitError(f"--watch takes a number of seconds above 0, not {args.watch:g}")
    if args.watch is not None and args.watch < FASTEST:
        raise PoolkitError(f"--watch takes at least {FASTEST:g} seconds between redraws (each "
                           f"reads the whole store), not {args.watch:g}")
    if args.watch is not None and not args.watch <= DAY:  # inf would overflow sleep()
        raise PoolkitError(f"--watch takes at most {DAY} seconds (a day), not {args.watch:g}")
    with Collection.open(args.config) as collection:
        if args.pool_version is not None:
            collection.version(args.pool_version)

        if args.watch is None:
            report = status(collection, args.pool_version)
            sys.stdout.write(report.render(args.format, verbose=args.verbose))
        else:  # as of each redraw: a new pool version is picked up too
            live(collection, args.pool_version, args.watch, args.format)
    return 0
