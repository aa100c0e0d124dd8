"""``poolkit trec-eval``: a drop-in for trec_eval's command line and its measures (see
:mod:`poolkit.score.trec_eval` for the conventions it reproduces)."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
trec_eval's command line and output, byte for byte, for every measure trec_eval computes from
qrels and a run (all of -m all_trec, plus dcg, ideal_dcg and yaap; not the prefs_* and
*_avgjg measures, which read other qrels formats). Parameters as trec_eval takes them:
-m P.5,10 (cutoffs), -m iprec_at_recall.0.25,0.5 (fractions of R), -m set_F.0.5 or
-m utility.1,-1,0,0 (a parameter list, printed set_F_0.5), -m rbp.p=0.8 (persistence,
default 0.9; printed rbp_p=0.8), -m ndcg.1=0.5,2=3 (a gain per grade for ndcg, dcg,
ideal_dcg, ndcg_rel, Rndcg and G; printed ndcg_1=0.5,2=3); the nicknames official
(default), all_trec and set.

Unlike `poolkit score`, a query whose judgments hold no relevant document is averaged as 0
(trec_eval's convention); `poolkit score` leaves it out of every mean and counts it."""


def register(subparsers: argparse._SubParsersAction) -> None:
    from poolkit.cli.formats import add_format_options

    p = subparsers.add_parser(
        "trec-eval", help="trec_eval's output, byte for byte, for every measure of -m all_trec",
        description=DESCRIPTION,
        epilog="examples:\n  poolkit trec-eval qrels.txt bm25.run\n"
               "  poolkit trec-eval -q -m all_trec qrels.txt bm25.run\n")
    p.add_argument("qrels", metavar="QRELS", help="relevance judgments (any accepted format)")
    p.add_argument("run", metavar="RUN", help="the run to evaluate (any accepted format)")
    p.add_argument("-q", dest="per_query", action="store_true",
                   help="also print every query's values")
    p.add_argument("-c", dest="complete", action="store_true",
                   help="average over every query of the qrels; one the run lacks scores 0")
    p.add_argument("-n", dest="no_summary", action="store_true",
                   help="no summary (the 'all' lines)")
    p.add_argument("-J", dest="judged_only", action="store_true",
                   help="drop unjudged documents from every ranking before scoring")
    p.add_argument("-l", dest="level", type=int, default=1, metavar="N",
                   help="relevance level: grade >= N is relevant (default 1)")
    p.add_argument("-M", dest="depth", type=int, default=None, metavar="N",
                   help="use only the top N documents of every ranking")
    p.add_argument("-N", dest="num_docs", type=int, default=0, metavar="N",
                   help="documents in the collection (utility's fourth term; default 0)")
    p.add_argument("-m", dest="measures", action="append", default=[], metavar="MEASURE",
                   help="a measure (repeatable): NAME, NAME.K1,K2, rbp.p=X, ndcg.1=G1,2=G2 "
                        "or a nickname (default: official)")
    add_format_options(p, runs=True)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.trec_eval import TrecEvalRequest, trec_eval_report
    from poolkit.cli.options import say_warnings

    report = trec_eval_report(TrecEvalRequest(
        args.qrels, args.run, args.measures, per_query=args.per_query, complete=args.complete,
        summary=not args.no_summary, judged_only=args.judged_only, level=args.level,
        depth=args.depth, num_docs=args.num_docs, qrels_format=args.qrels_format,
        run_format=args.run_format))
    sys.stdout.write(report.render("text"))
    sys.stdout.flush()
    say_warnings(report.warnings)
    return 0
