"""``poolkit ppi-replay``: prediction-powered estimates replayed against complete qrels (the
analysis is the verb :mod:`poolkit.app.ppi_replay`)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "replay PPI estimates (few human, many machine labels) against complete qrels"

DESCRIPTION = """\
Take FULL as the truth and MACHINE_QRELS as a machine judge's labels of the same pairs;
draw the human sample from the truth and report, for each n: the bias of the estimate's
mean against the truth (per run), the coverage and mean width of its 95% interval against
people alone at the same effort (the same n queries), Kendall's tau of the runs' order
against the truth's (estimate, machine-only, human-only), and for every pair of runs the
coverage and width of the difference's interval and the share of the truth's significant
differences (Holm, p < 0.05) found.

Designs: queries (n whole queries judged by people; PPI++ with a t quantile below 30
queries), pairs (the same number of human judgments spread over every query, stratified
by the machine's grade; nDCG@K and AP only), active and strat (the same budget in two
rounds: the first allocated from the machine's grades and the runs' ranks alone, the
second by Neyman allocation from the first's human-machine differences; strat's first
round is a small pilot and its strata add the query's group)."""

EPILOG = """\
On TREC DL19 (../shared/collections/dl19-passage-pool): --qrels qrels.full.txt, --machine
judges/llama-3.3-70b.4prompts.qrels and runs/*.run.

examples:
  poolkit ppi-replay --qrels full.qrels --machine llm.qrels *.run
  poolkit ppi-replay --qrels full.qrels --machine llm.qrels *.run --design pairs
  poolkit ppi-replay --qrels q.qrels --machine llm.qrels *.run --design active
"""


def register(sub: argparse._SubParsersAction) -> None:
    from poolkit.app.ppi_replay import DESIGNS, PPIReplayReport

    p = sub.add_parser("ppi-replay", help=SUMMARY, description=DESCRIPTION, epilog=EPILOG)
    p.add_argument("runs", nargs="+", metavar="RUN", help="two run files or more")
    p.add_argument("--qrels", required=True, metavar="FULL", help="complete qrels: the truth")
    p.add_argument("--machine", required=True, metavar="MACHINE_QRELS",
                   help="the machine judge's qrels")
    p.add_argument("--n", default="5,10,20", metavar="N,...",
                   help="human queries (pair designs: a budget of N queries' worth of "
                        "judgments, spread over every query); default 5,10,20")
    p.add_argument("--seeds", type=int, default=50, metavar="S", help="draws per n (50)")
    p.add_argument("--design", choices=DESIGNS, default=DESIGNS[0],
                   help="what people judge (default: queries)")
    p.add_argument("-m", "--measures", default="nDCG@10,AP", metavar="M,...",
                   help="measures (default: nDCG@10,AP)")
    p.add_argument("--level", type=int, default=2, metavar="L",
                   help="relevance level of binary measures (default 2, TREC DL)")
    p.add_argument("--calibrate", action="store_true",
                   help="query design: recalibrate the machine's grades to the people's, "
                        "cross-fitted on the human queries (nDCG@K and AP)")
    p.add_argument("--lambda-max", type=float, default=1.0, metavar="L",
                   help="query design: the tuned lambda's upper bound (default 1, "
                        "ppi-python's clip; 2 lets a recalibrated AP predictor count fully)")
    p.add_argument("--format", choices=list(PPIReplayReport.formats),
                   default=PPIReplayReport.formats[0], help="output format (default: table)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.ppi_replay import PPIReplayRequest, ppi_replay
    from poolkit.cli.options import say_warnings

    report = ppi_replay(PPIReplayRequest(args.qrels, args.machine, args.runs, args.n,
                                         args.seeds, args.design, args.measures, args.level,
                                         args.calibrate, args.lambda_max))
    sys.stdout.write(report.render(args.format))
    say_warnings(report.warnings)
    return 0
