"""``poolkit simulate``: replay judging with a full qrels file as the assessor."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
Replay judging on a pool with FULL_QRELS as the assessor (a pooled document the qrels lack
counts as grade 0) and report, per judging-order strategy and budget, the relevant documents
found, the pool recall, Kendall's tau between the runs' ordering under the labels judged so
far and under the full labels (nDCG@10 and AP, `poolkit score` semantics), the estimate of
relevant documents still unjudged with its 95% interval, and what the stopping rule judges.
A budget b judges round(b x n_q) passages of a query whose pool holds n_q.

Store form: the pool (with provenance) is the config's store's latest pool version, the runs
are the config's systems' run files, strategy parameters and the stopping rule come from the
config's pool section. File form: the pool is the union of the runs' top --depth. In both,
--param KEY=VALUE sets a strategy parameter (a pool: key) over the config's."""

EPILOG = """\
forms:
  poolkit simulate CONFIG --qrels FULL_QRELS [options]
  poolkit simulate --qrels FULL_QRELS RUN [RUN ...] --depth K [options]

examples:
  poolkit simulate configs/sample.yaml --qrels full.qrels --budgets 0.25,0.5
  poolkit simulate --qrels qrels.full.txt runs/*.run --depth 20 --format json
  poolkit simulate --qrels qrels.full.txt runs/*.run --depth 20 --plot found.png
  poolkit simulate --qrels full.qrels *.run --depth 20 --param mm_ns_discount=1
  poolkit simulate configs/sample.yaml --qrels full.qrels --find 0.1,0.25
"""

def register(subparsers: argparse._SubParsersAction) -> None:
    from poolkit.analysis.reports import SimulateReport
    from poolkit.app.simulate import RUN_ORDERS
    from poolkit.pool.order import ORDER_STRATEGIES
    from poolkit.pool.simulate import DEFAULT_BUDGETS, DEFAULT_MEASURES
    from poolkit.pool.stopping import STOP_RULES

    p = subparsers.add_parser(
        "simulate", help="replay judging with full qrels: strategies, budgets, stopping",
        description=DESCRIPTION, epilog=EPILOG)
    p.add_argument("inputs", nargs="*", metavar="CONFIG | RUN",
                   help="a config (store form), or run files with --depth (file form)")
    p.add_argument("--qrels", required=True, metavar="FULL_QRELS",
                   help="the complete labels that play the assessor (qrels or golden.yaml)")
    p.add_argument("--depth", type=int, metavar="K",
                   help="file form: pool the runs' top K")
    p.add_argument("--strategy", default=",".join(RUN_ORDERS), metavar="NAMES",
                   help=f"comma-separated strategies of {','.join(ORDER_STRATEGIES)} "
                        f"(default: {','.join(RUN_ORDERS)})")
    p.add_argument("--budgets", default=",".join(DEFAULT_BUDGETS), metavar="B,B",
                   help="comma-separated fractions of each query's pool "
                        f"(default {','.join(DEFAULT_BUDGETS)})")
    p.add_argument("--level", type=int, default=1, metavar="L",
                   help="grade from which a document is relevant (default 1)")
    p.add_argument("-m", "--measures", default=",".join(DEFAULT_MEASURES), metavar="M,M",
                   help=f"measures for tau (default {','.join(DEFAULT_MEASURES)})")
    p.add_argument("--stop-recall", type=float, metavar="R",
                   help="the stopping rule's target pool recall (default: the config's "
                        "pool.stop_recall, else 0.9)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a strategy parameter, as a pool: key of the config (e.g. "
                        "mm_ns_discount=0.5, mtf_step=2); repeatable; over the config's")
    p.add_argument("--machine", metavar="LABELS",
                   help="a machine judge's labels (qrels or golden.yaml): order judge sorts "
                        "by them, cal reads them as a feature")
    p.add_argument("--corpus", metavar="FILE.jsonl",
                   help="file form: the passages' text, for --strategy cal and the corpus "
                        "--find scans")
    p.add_argument("--queries", metavar="FILE",
                   help="file form: the queries' text, for cal and --find (each query's text "
                        "is one relevant example for its classifier)")
    p.add_argument("--stop", default="", metavar="RULES",
                   help="stopping rules to replay under every order, of "
                        f"{','.join(STOP_RULES)}, each beside its promise")
    p.add_argument("--judged-only", action="store_true",
                   help="file form: cut every run to the documents FULL_QRELS grades first")
    p.add_argument("--format", choices=SimulateReport.formats, default=SimulateReport.formats[0])
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw relevant found against judgments, one line per strategy "
                        "(needs matplotlib: pip install 'poolkit[plot]')")
    p.add_argument("--find", metavar="B,B",
                   help="also replay `pool --find`: judge the whole pool, then spend B x "
                        "each query's pool more judgments on passages the text classifier "
                        "finds beyond it, against deepening every run's pool by as many")
    p.add_argument("--find-batch", type=int, default=5, metavar="N",
                   help="with --find: passages per query per round (retrained after each; "
                        "default 5)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.simulate import SimulateRequest, simulate_judging
    from poolkit.pool.simulate import parse_budgets
    from poolkit.pool.stopping import parse_stops

    budgets = parse_budgets(args.budgets)
    report = simulate_judging(SimulateRequest(
        qrels=args.qrels, inputs=args.inputs, depth=args.depth,
        strategies=[n.strip() for n in args.strategy.split(",") if n.strip()],
        budgets=budgets, level=args.level,
        measures=[m.strip() for m in args.measures.split(",") if m.strip()],
        stop_recall=args.stop_recall, params=args.param, plot=args.plot, machine=args.machine,
        corpus=args.corpus, queries=args.queries, judged_only=args.judged_only,
        find=parse_budgets(args.find, "--find") if args.find else (),
        find_batch=args.find_batch,
        stops=parse_stops(args.stop) if args.stop else ()))
    sys.stdout.write(report.render(args.format))
    return 0
