"""``poolkit sample-queries``: draw the queries people judge, recorded in the store (the verb
is :mod:`poolkit.app.sample_queries`)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "draw the queries people judge (uniform, stratified or active by a machine judge)"

DESCRIPTION = """\
Draw N of the store's pooled queries for people to judge, and record the draw in the store:
`poolkit judge --sample` then serves only those queries, and `poolkit estimate`'s store form
weights each judged query by 1/its inclusion probability (so its interval is about a random
sample). Uniform by default (every query's probability N/population); --stratify-by machine
cuts the queries, sorted by the machine judge's per-query score (the mean over the
collection's runs of --measure under the version the config defines, or JUDGE@VERSION's),
into N // 2 strata of near-equal size and draws from each in proportion; --design active
--machine JUDGE draws each query with probability proportional to the spread of the runs'
scores under the judge (floored, so none is 0; the probabilities are recorded and weighted
by). The same seed on the same store draws the same queries."""


def register(sub: argparse._SubParsersAction) -> None:
    from poolkit.app.sample_queries import DEFAULT_MEASURE, STRATIFY, SampleQueriesReport

    p = sub.add_parser("sample-queries", help=SUMMARY, description=DESCRIPTION,
                       epilog="example:\n"
                              "  poolkit sample-queries configs/sample.yaml --n 10 --seed 7\n")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    p.add_argument("--n", type=int, required=True, metavar="N", help="queries to draw")
    p.add_argument("--seed", type=int, required=True, metavar="S", help="the draw's seed")
    p.add_argument("--stratify-by", choices=list(STRATIFY), default=None,
                   help="stratify by the machine judge's per-query score (needs --machine)")
    p.add_argument("--design", choices=["active"], default=None,
                   help="active: draw each query with probability proportional to the spread "
                        "of the runs' --measure under --machine (floored, recorded)")
    p.add_argument("--machine", metavar="JUDGE[@VERSION]",
                   help="the machine judge that stratifies (JUDGE: the version the config "
                        "defines)")
    p.add_argument("--measure", default=DEFAULT_MEASURE, metavar="MEASURE",
                   help=f"the per-query score that stratifies (default: {DEFAULT_MEASURE})")
    p.add_argument("--level", type=int, default=None, metavar="N",
                   help="relevance level (default: the config's judge.relevance_level)")
    p.add_argument("--format", choices=list(SampleQueriesReport.formats), default="table",
                   help="output format (default: table)")
    from poolkit.cli.options import add_accept_untrusted

    add_accept_untrusted(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.sample_queries import SampleQueriesRequest, sample_queries
    from poolkit.cli.options import check_level, say_warnings

    check_level(args.level)
    report = sample_queries(SampleQueriesRequest(
        args.config, args.n, args.seed, args.stratify_by, args.machine, args.measure,
        args.level, args.accept_untrusted, args.design))
    sys.stdout.write(report.render(args.format))
    say_warnings(report.trust)
    return 0
