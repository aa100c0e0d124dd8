"""``poolkit compare``: how every run's scores and ranks moved between two label sets."""

from __future__ import annotations

import argparse
import sys

from poolkit.errors import PoolkitError

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
  poolkit compare --before-qrels v1.qrels --after-qrels v2.qrels runs/*.run --depth 10
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    from poolkit.analysis.compare import DEFAULT_MEASURES
    from poolkit.cli.options import add_common, add_inputs, add_store_labels

    p = subparsers.add_parser(
        "compare", help="re-score every run under two label sets (pool versions or files)",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
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
    add_common(p, DEFAULT_MEASURES)
    p.add_argument("--no-condensed", action="store_true",
                   help="leave out the condensed-list (X') variants")
    p.add_argument("--per-query", action="store_true",
                   help="list every query's before/after (JSON always has them)")
    from poolkit.cli.options import add_test_options

    add_test_options(p)
    p.set_defaults(handler=run_compare)


def pooled_names(text: str | None, runs: dict) -> set[str] | None:
    from poolkit.errors import one_of

    if text is None:
        return None
    names = {n.strip() for n in text.split(",") if n.strip()}
    for n in names:
        if n not in runs:
            raise PoolkitError("--pooled-before/--pooled-after: " + one_of(n, runs, "run"))
    return names


def run_compare(args: argparse.Namespace) -> int:
    from poolkit.analysis.compare import (
        DEFAULT_MEASURES,
        compare,
        label_contributions,
        render_table,
        store_contributions,
    )
    from poolkit.analysis.inputs import read_runs
    from poolkit.analysis.render import dumps, header
    from poolkit.cli.options import check_level, measures_arg, paired_test_options, split_config
    from poolkit.policies import Labels
    from poolkit.score.evaluate import require_scorable

    measures = measures_arg(args.measure, DEFAULT_MEASURES)
    tests = paired_test_options(args)
    check_level(args.level)
    files_form = args.before_qrels is not None or args.after_qrels is not None
    if files_form and (args.before_qrels is None or args.after_qrels is None):
        raise PoolkitError("the file form needs both --before-qrels and --after-qrels")
    if files_form and (args.before is not None or args.after is not None):
        raise PoolkitError("--before/--after name pool versions (store form); with label files "
                           "use --before-qrels/--after-qrels only")
    if args.depth < 1:
        raise PoolkitError(f"--depth must be a positive integer, got {args.depth}")
    if not files_form and (args.pooled_before or args.pooled_after):
        raise PoolkitError("--pooled-before/--pooled-after are for the file form; the store "
                           "knows which systems were pooled")
    chosen, paths = split_config(args.inputs, files_form)
    level = args.level
    if chosen is None:
        if not paths:
            raise PoolkitError("the file form needs at least one RUN file")
        level = 1 if level is None else level
        before = Labels.from_file(args.before_qrels, args.qrels_format)
        after = Labels.from_file(args.after_qrels, args.qrels_format)
        require_scorable(after.qrels, level)
        runs = read_runs(paths, args.order, args.run_format)
        contributions = label_contributions(
            before.qrels, after.qrels, runs, args.depth, level,
            pooled_names(args.pooled_before, runs), pooled_names(args.pooled_after, runs))
        report = compare(before, after, runs, measures, level=level,
                         condensed=not args.no_condensed, contributions=contributions,
                         tests=tests)
    else:
        level = chosen.config.judge.relevance_level if level is None else level
        with chosen as collection:
            v_after = collection.version(args.after)
            if args.before is not None:
                collection.version(args.before)
            v_before = args.before if args.before is not None else v_after - 1
            if v_before >= v_after:
                raise PoolkitError(f"--before {v_before} must be an earlier pool version than "
                                   f"--after {v_after}")
            if v_before < 1:
                raise PoolkitError(f"pool version {v_after} has no earlier version to compare "
                                   f"with; expand the pool (`poolkit pool` with a deeper depth "
                                   f"or another system) first")
            before = collection.labels(v_before, args.policy, args.assessor)
            after = collection.labels(v_after, args.policy, args.assessor)
            runs = collection.runs(paths, args.order, args.run_format)
            contributions = store_contributions(collection.store, v_before, v_after,
                                                after.qrels, level)
        require_scorable(after.qrels, level)
        report = compare(before, after, runs, measures, level=level,
                         condensed=not args.no_condensed, contributions=contributions,
                         tests=tests)
    doc = {**header("compare"), **report.to_dict()}
    sys.stdout.write(dumps(doc) if args.format == "json" else render_table(doc, args.per_query))
    return 0
