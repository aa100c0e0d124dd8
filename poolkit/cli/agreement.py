"""``poolkit agreement``: how far label sources agree, and which judge is too noisy to trust."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
Agreement between label sources on the (query, doc) pairs they both judged: every assessor
in a judging store (config form) and any label files given with --qrels (an automatic
judge's qrels, another team's golden.yaml). For every pair of sources that overlap: shared
pairs, raw agreement, Cohen's kappa unweighted and with linear and quadratic weights on the
fixed 0-3 scale (a grade nobody used still counts), kappa on labels binarised at the
relevance level, each with a 95% percentile bootstrap interval (1000 resamples over the
shared pairs, fixed seed), and the confusion matrix. Across all sources: Krippendorff's
alpha (ordinal). A source whose kappa against the reference is below --threshold is flagged
as too noisy to trust; the reference is --reference, or else the only human assessor among
the sources when there is exactly one (labels brought in with `poolkit import` and --qrels
files are not human assessors). Negative grades (TREC's -1) are not labels and are set
aside.

Machine judges in the store (`poolkit autojudge`, `poolkit import --machine`) are sources
too, every version of each (--with-machine NAME[@VERSION] picks some, --no-machine none),
and each version is reported against each person or reference: kappa (four grades and
binary at --level) with its interval and verdict, the confusion matrix (rows: the human's
grade), and the mean grade difference per human grade (machine minus human: a lenient judge
shows as +)."""

EPILOG = """\
forms (the store's assessors, and label files; label files only):
  poolkit agreement CONFIG [--qrels [NAME=]FILE ...]
  poolkit agreement --qrels [NAME=]FILE [NAME=]FILE ...

examples:
  poolkit agreement configs/sample.yaml --reference alice
  poolkit agreement configs/sample.yaml --qrels llm=llm.qrels --reference alice
  poolkit agreement --qrels nist=qrels.txt llm=llm.qrels --reference nist
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    from poolkit.analysis.reports import KAPPAS, THRESHOLD, AgreementReport
    from poolkit.cli.formats import add_format_options

    p = subparsers.add_parser(
        "agreement", help="assessor/judge agreement: kappa, weighted kappa, alpha, noisy flags",
        description=DESCRIPTION, epilog=EPILOG)
    p.add_argument("config", metavar="CONFIG", nargs="?",
                   help="collection config: every assessor in its judging store is a source")
    p.add_argument("--qrels", nargs="+", default=[], metavar="[NAME=]FILE",
                   help="label files (qrels or golden.yaml) as further sources, named NAME or "
                        "by file name")
    add_format_options(p, runs=False)
    p.add_argument("--assessor", action="append", default=None, metavar="NAME",
                   help="only these store assessors (repeatable; default: all)")
    p.add_argument("--with-machine", action="append", default=None, metavar="NAME[@VERSION]",
                   help="only these machine judges of the store (NAME: the version the config "
                        "defines; "
                        "repeatable or NAME,NAME; default: every version of every judge)")
    p.add_argument("--no-machine", action="store_true",
                   help="leave the store's machine judges out")
    p.add_argument("--reference", default=None, metavar="NAME",
                   help="the human reference source that the others are checked against "
                        "(default: the only human assessor, if there is exactly one)")
    p.add_argument("--threshold", type=float, default=THRESHOLD, metavar="X",
                   help=f"flag a source whose kappa against the reference is below X "
                        f"(default {THRESHOLD})")
    p.add_argument("--kappa", choices=list(KAPPAS), default="unweighted",
                   help="which kappa the flag reads (default: unweighted)")
    p.add_argument("--level", type=int, default=None, metavar="N",
                   help="relevance level for binarised kappa: grade >= N is relevant "
                        "(default: the config's judge.relevance_level, else 1)")
    p.add_argument("--no-matrices", action="store_true",
                   help="leave the confusion matrices out of the table (JSON always has them)")
    p.add_argument("--format", choices=list(AgreementReport.formats),
                   default=AgreementReport.formats[0],
                   help=f"output format (default: {AgreementReport.formats[0]})")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.analysis.stats import SCALE
    from poolkit.app.agreement import AgreementRequest, label_agreement
    from poolkit.cli.options import check_range

    check_range(args.level, "--level", 1, SCALE[-1], "1, 2 or 3 (the 0-3 scale)")
    check_range(args.threshold, "--threshold", -1, 1, "a kappa in [-1, 1]")
    report = label_agreement(AgreementRequest(
        config=args.config, qrels=args.qrels, qrels_format=args.qrels_format,
        assessors=args.assessor, reference=args.reference, threshold=args.threshold,
        kappa=args.kappa, level=args.level,
        machines=() if args.no_machine else args.with_machine))
    sys.stdout.write(report.render(args.format, matrices=not args.no_matrices))
    return 0
