"""``poolkit compare``: how every run's scores and ranks moved between two label sets."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
Score every run under two label sets and show what changed: per run and per query, each
measure before and after and the change; each run's rank and, per measure, Kendall's tau
between the two orderings of runs; per contributing run, the documents new to the pool it
brought, those only it brought and how many were judged relevant. Runs that did not
contribute to a pool are flagged with their Judged@K.

Unjudged documents are never silently non-relevant: unjudged@K counts them in each run's top
K under both label sets, every measure also comes as its condensed-list variant (X' =
unjudged documents removed before ranks are counted), and bpref (judged documents only) is
always reported beside them.

Store form: labels as of two pool versions of the config's judging store (the grades of the
pairs pooled by then); runs default to the config's systems' run files. File form: two
label files (qrels or golden.yaml) and the runs to score; a run's new documents are the
labels new in its top --depth, and --pooled-before/--pooled-after say which runs were pooled."""

EPILOG = """\
forms:
  poolkit compare CONFIG [RUN ...] [--before V] [--after V]
      default: --after = the latest pool version, --before = the one before it
  poolkit compare --before-qrels OLD --after-qrels NEW RUN [RUN ...] [--depth K]
      [--pooled-before RUN,RUN] [--pooled-after RUN,RUN]

examples:
  poolkit compare configs/sample.yaml --before 1 --after 2
  poolkit compare configs/sample.yaml -m nDCG@10 -m AP --per-query --format json
  poolkit compare --before-qrels v1.qrels --after-qrels v2.qrels runs/*.run
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    from poolkit.analysis.reports import DEFAULT_MEASURES, CompareReport
    from poolkit.cli.options import (
        add_common,
        add_inputs,
        add_store_labels,
        add_test_options,
        add_verbose,
    )

    p = subparsers.add_parser(
        "compare", help="re-score every run under two label sets (pool versions or files)",
        description=DESCRIPTION, epilog=EPILOG)
    add_inputs(p)
    p.add_argument("--before", type=int, default=None, metavar="V",
                   help="store form: the earlier pool version")
    p.add_argument("--after", type=int, default=None, metavar="V",
                   help="store form: the later pool version (default: latest)")
    p.add_argument("--before-qrels", default=None, metavar="FILE",
                   help="file form: the earlier labels (qrels or golden.yaml)")
    p.add_argument("--after-qrels", default=None, metavar="FILE",
                   help="file form: the later labels")
    p.add_argument("--depth", type=int, default=10, metavar="K",
                   help="file form: count a run's new labels within its top K (default 10)")
    p.add_argument("--pooled-before", default=None, metavar="RUN,RUN",
                   help="file form: the runs the earlier labels were pooled from (others are "
                        "flagged; default: unknown)")
    p.add_argument("--pooled-after", default=None, metavar="RUN,RUN",
                   help="file form: the runs the later labels were pooled from")
    add_store_labels(p)
    add_common(p, DEFAULT_MEASURES, CompareReport.formats)
    p.add_argument("--no-condensed", action="store_true",
                   help="leave out the condensed-list (X') variants")
    p.add_argument("--per-query", action="store_true",
                   help="list every query's before/after (implies --verbose; JSON always has "
                        "them)")
    add_verbose(p, "every measure, the paired tests' matrices under each label set")
    add_test_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.analysis.reports import DEFAULT_MEASURES
    from poolkit.app.compare import CompareRequest, compare_labels
    from poolkit.cli.options import (
        check_level,
        measures_arg,
        paired_test_options,
        say_warnings,
    )

    measures = measures_arg(args.measure, DEFAULT_MEASURES)
    tests = paired_test_options(args)
    check_level(args.level)
    report = compare_labels(CompareRequest(
        inputs=args.inputs, measures=measures, before=args.before, after=args.after,
        before_qrels=args.before_qrels, after_qrels=args.after_qrels, depth=args.depth,
        pooled_before=_names(args.pooled_before), pooled_after=_names(args.pooled_after),
        level=args.level, order=args.order, qrels_format=args.qrels_format,
        run_format=args.run_format, policy=args.policy, assessors=args.assessor,
        condensed=not args.no_condensed, tests=tests, machines=args.with_machine))
    sys.stdout.write(report.render(args.format, per_query=args.per_query,
                                   verbose=args.verbose))
    sys.stdout.flush()
    say_warnings(report.warnings)
    return 0


def _names(text: str | None) -> list[str] | None:
    """``RUN,RUN`` as names (None: not given)."""
    return None if text is None else [n.strip() for n in text.split(",") if n.strip()]
