"""``poolkit sample-replay``: replay sampled pools against complete qrels (the analysis is the
verb :mod:`poolkit.app.sample_replay`)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "replay sampled pools against complete qrels: bias, coverage, tau vs depth-k"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sample-replay", help=SUMMARY,
        description="Replay stratified sampled pools (and depth-k pooling at the same number of "
                    "judgments) on a collection whose qrels are complete: per run the bias of "
                    "estimated MAP (xinfAP, statAP) and nDCG@10 (infNDCG@10), the coverage of "
                    "their 95% bootstrap intervals over seeds, and Kendall's tau of the system "
                    "ordering. Prints Markdown tables.",
        epilog="example:\n  poolkit sample-replay ../shared/collections/dl19-passage-pool "
               "--seeds 5\n")
    p.add_argument("collection", metavar="FOLDER",
                   help="folder with qrels.full.txt (or qrels.txt) and runs/*.run")
    p.add_argument("--rates", default="0.1,0.2,0.3", metavar="R,...",
                   help="sampling rates of the pool (default: 0.1,0.2,0.3)")
    p.add_argument("--seeds", type=int, default=20, metavar="N", help="draws per rate (20)")
    p.add_argument("--depth", type=int, default=100, metavar="N", help="pool depth (100)")
    p.add_argument("--level", type=int, default=2, metavar="N",
                   help="relevance level of MAP (default 2, the TREC DL convention)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.sample_replay import SampleReplayRequest, sample_replay

    report = sample_replay(SampleReplayRequest(args.collection, args.rates, args.seeds,
                                               args.depth, args.level))
    sys.stdout.write(report.render("markdown"))
    return 0
