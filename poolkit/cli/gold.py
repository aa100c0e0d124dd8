"""``poolkit gold CONFIG FILE --rate 0.05``: pairs with a known answer, mixed into every
assessor's judging as gold checks (the verb is :mod:`poolkit.app.gold`)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "record pairs with a known grade as gold checks mixed into every assessor's judging"

DESCRIPTION = """\
Record FILE's pairs (a golden.yaml or qrels: graded by the lead, or agreed adjudications) as
the store's gold set, replacing the last one. `poolkit judge` mixes them into every
assessor's queue at --rate gold passages per passage (where, by --seed and the assessor),
looking exactly like any other passage, and records the answers as gold events: never
labels. `poolkit status` shows each assessor's agreement with gold (exact, quadratic
kappa with its interval) and flags a lenient or strict assessor and a drift over time. A
query or doc the collection lacks (unless --skip-unknown), or a grade off its scale, is one
error naming the line, and nothing is recorded; so is a set that would make over half of
the pool gold-only (unless --yes), and a file that says a machine judge graded some of its
pairs (`poolkit export --with-machine` marks them), unless --accept-machine takes them as
gold (the gold set's file name then says whose they were)."""


def register(sub: argparse._SubParsersAction) -> None:
    from poolkit.app.gold import GoldReport

    p = sub.add_parser("gold", help=SUMMARY, description=DESCRIPTION,
                       epilog="example:\n"
                              "  poolkit gold configs/sample.yaml gold.yaml --rate 0.05\n")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    p.add_argument("labels", metavar="FILE", help="the known grades: golden.yaml or qrels")
    p.add_argument("--rate", type=float, default=0.05, metavar="R",
                   help="gold passages per passage of the pool, in (0, 1] (default: 0.05)")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="where the gold passages go in each queue (default: 0)")
    p.add_argument("--accept-machine", action="store_true",
                   help="take the grades the file says are a machine judge's as gold all the "
                        "same (the gold set records whose they were)")
    p.add_argument("--skip-unknown", action="store_true",
                   help="leave out (and count) pairs whose query or doc is not in the "
                        "collection, rather than refuse the file")
    p.add_argument("--yes", action="store_true",
                   help="record the set even when it makes over half of the pool's pairs "
                        "gold-only (shown to people only as gold, never labelled)")
    p.add_argument("--format", choices=list(GoldReport.formats), default="table",
                   help="output format (default: table)")
    from poolkit.cli.formats import add_format_options

    add_format_options(p, runs=False)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.gold import GoldRequest, gold

    report = gold(GoldRequest(args.config, args.labels, args.rate, args.seed,
                              qrels_format=args.qrels_format,
                              accept_machine=args.accept_machine, skip_unknown=args.skip_unknown,
                              yes=args.yes))
    sys.stdout.write(report.render(args.format))
    return 0
