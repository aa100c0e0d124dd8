"""``poolkit estimate``: a score with a human error bar (the verb is
:mod:`poolkit.app.estimate`)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "PPI++ estimates from machine labels on every query and human ones on a few"

DESCRIPTION = """\
A machine judge labels every query, people label a few: for each run and measure, the
machine-only mean, the people-only mean on their queries and the prediction-powered (PPI++)
estimate with its 95% interval and tuning weight lambda (0: people only, 1: plain PPI), n
human queries of N; for each pair of runs the same for their difference, with its p-value
adjusted over every pair and measure (--correction); Kendall's tau between the orderings
the three give; and the judge's agreement with the people (kappa, confusion, the verdict of
`poolkit agreement`). Per-query values are `poolkit score`'s, so every measure of score is
available. The interval assumes the human queries are a random sample of the queries: the
report says so when they were not drawn by poolkit's sampler, and says which human queries
had no machine label (they are left out). Warnings (stderr, and `warnings` in the JSON) say
where a figure is surer than it looks: pairs people disagree on that --policy left out,
intervals of width 0 (identical human scores), intervals beyond the measure's range."""

EPILOG = """\
forms (file form; store form, when the first input is a .yaml/.yml config and --machine
is no file):
  poolkit estimate --machine MACHINE_QRELS --human HUMAN_QRELS RUN...
  poolkit estimate CONFIG --machine JUDGE[@VERSION] [--human NAMES] [--run RUN]

examples:
  poolkit estimate --machine llm.qrels --human nist.qrels bm25.run dense.run
  poolkit estimate --machine llm.qrels --human nist.qrels *.run --level 2 -v
  poolkit estimate configs/sample.yaml --machine llm --human alice
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    from poolkit.app.estimate import DEFAULT_MEASURES, EstimateReport
    from poolkit.cli.formats import add_format_options
    from poolkit.cli.options import add_accept_untrusted, add_verbose
    from poolkit.policies import DEFAULT_POLICY, POLICIES
    from poolkit.score.significance import CORRECTIONS, DEFAULT_CORRECTION

    p = subparsers.add_parser("estimate", help=SUMMARY, description=DESCRIPTION, epilog=EPILOG)
    add = p.add_argument
    add("inputs", nargs="+", metavar="CONFIG|RUN",
        help="file form: RUN files; store form: the CONFIG")
    add_accept_untrusted(p)
    add("--machine", required=True, metavar="QRELS|JUDGE",
        help="file form: the machine judge's labels; store form: the judge, JUDGE@VERSION "
             "or JUDGE (its one version; of several, refused with their list)")
    add("--human", metavar="QRELS|NAMES",
        help="file form: the people's labels (on some queries); store form: whose grades "
             "count (NAME,NAME; default: every person)")
    add("--policy", choices=list(POLICIES), default=DEFAULT_POLICY,
        help=f"store form: how several people's grades on a pair become one label (default: "
             f"{DEFAULT_POLICY})")
    add("--run", dest="runs", action="append", default=[], metavar="FILE",
        help="store form: a run file to score beside every system's (repeatable)")
    add("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE",
        help=f"a measure of `poolkit score` (repeatable or comma separated; default: "
             f"{','.join(DEFAULT_MEASURES)})")
    add("--level", type=int, default=None, metavar="N",
        help="relevance level: grade >= N is relevant (binary measures, scored queries, the "
             "binary kappa; default: the config's judge.relevance_level, else 1)")
    add("--correction", choices=list(CORRECTIONS), default=DEFAULT_CORRECTION,
        help=f"adjustment of the pairs' p-values over every pair and measure (default: "
             f"{DEFAULT_CORRECTION})")
    add("--calibrate", action="store_true",
        help="recalibrate the machine's grades to the people's, cross-fitted on the human "
             "queries (nDCG@K and AP; the machine column stays the raw grades')")
    add("--lambda-max", type=float, default=1.0, metavar="L",
        help="the tuned lambda's upper bound (default 1, ppi-python's clip; 2 lets a "
             "--calibrate AP predictor count fully)")
    add("--target-width", type=float, default=None, metavar="W",
        help="say how many more human queries and judgments the design expects to need "
             "before every run's interval is at most W wide")
    add_format_options(p)
    add("--format", choices=list(EstimateReport.formats), default="table",
        help="output format (default: table)")
    add_verbose(p, "every pair's difference, with its lambda and p-values")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.estimate import (
        EstimateRequest,
        EstimateStoreRequest,
        estimate,
        estimate_store,
        store_form,
    )
    from poolkit.cli.options import check_level, say_warnings
    from poolkit.errors import PoolkitError

    check_level(args.level)
    if store_form(args.inputs, args.machine):
        report = estimate_store(EstimateStoreRequest(
            config=args.inputs[0], machine=args.machine, runs=args.runs, level=args.level,
            humans=None if args.human is None else [args.human], policy=args.policy,
            measures=args.measures, correction=args.correction, run_format=args.run_format,
            calibrate=args.calibrate, lambda_max=args.lambda_max,
            accept_untrusted=args.accept_untrusted,
            target_width=args.target_width))
    elif args.human is None:
        raise PoolkitError("--human: give the people's labels (file form)")
    else:
        report = estimate(EstimateRequest(
            machine=args.machine, human=args.human, runs=args.inputs, measures=args.measures,
            level=args.level or 1, correction=args.correction, run_format=args.run_format,
            qrels_format=args.qrels_format, calibrate=args.calibrate,
            lambda_max=args.lambda_max, target_width=args.target_width))
    sys.stdout.write(report.render(args.format, verbose=args.verbose))
    say_warnings(report.warnings)
    return 0
