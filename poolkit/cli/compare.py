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


def add_common(p: argparse.ArgumentParser, default_measures: tuple[str, ...]) -> None:
    """Options the analysis commands share: measures, level, run order, output format."""
    from poolkit.analysis.render import FORMATS
    from poolkit.io import RUN_ORDERS

    p.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                   help=f"a measure (repeatable or comma separated; ir_measures spelling as in "
                        f"`poolkit score`; "
                        f"default: {' '.join(default_measures)})")
    p.add_argument("--level", type=int, default=None, metavar="N",
                   help="relevance level: grade >= N is relevant for binary measures "
                        "(default: the config's judge.relevance_level, else 1)")
    p.add_argument("--order", choices=list(RUN_ORDERS), default="score",
                   help="how run files are ordered (default: score, trec_eval's order)")
    p.add_argument("--format", choices=list(FORMATS), default="table",
                   help="output format (default: table)")


def check_range(value: float | None, flag: str, low: float, high: float | None,
                what: str) -> None:
    """One-line error for an option outside ``[low, high]`` (``high=None``: no upper bound)."""
    if value is not None and (value < low or (high is not None and value > high)):
        raise PoolkitError(f"{flag} must be {what}, got {value:g}")


def check_level(level: int | None) -> None:
    check_range(level, "--level", 1, None, "a positive integer")


def add_inputs(p: argparse.ArgumentParser) -> None:
    """The positional CONFIG|RUN list shared by the store and file forms."""
    p.add_argument("inputs", nargs="*", metavar="CONFIG|RUN",
                   help="store form: CONFIG then optional RUN files; file form: RUN files. A "
                        "run is named by its file name without extension; in the store form a "
                        "name matching a system links the run to that system's pool provenance")


def add_store_labels(p: argparse.ArgumentParser) -> None:
    from poolkit.labels import POLICIES

    p.add_argument("--assessor", action="append", default=None, metavar="NAME",
                   help="store form: only these assessors' grades count (repeatable)")
    p.add_argument("--policy", choices=list(POLICIES), default="latest",
                   help="store form: how several assessors' grades on one pair become one "
                        "label (default: latest; see `poolkit export --help`)")


def register(subparsers: argparse._SubParsersAction) -> None:
    from poolkit.analysis.compare import DEFAULT_MEASURES

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
    p.set_defaults(handler=run_compare)


def measures_arg(texts: list[str], default: tuple[str, ...]) -> list:
    from poolkit.cli.score import measure_texts
    from poolkit.score.measures import parse_measures

    return parse_measures(measure_texts(texts) or list(default))


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
    from poolkit.analysis.inputs import config_runs, open_store, read_runs, split_config
    from poolkit.analysis.labels import file_labels, store_labels
    from poolkit.analysis.render import dumps, header
    from poolkit.store.judging import check_pool_version as check_version

    measures = measures_arg(args.measure, DEFAULT_MEASURES)
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
    config, paths = split_config(args.inputs, files_form)
    level = args.level
    if config is None:
        if not paths:
            raise PoolkitError("the file form needs at least one RUN file")
        level = 1 if level is None else level
        before, after = file_labels(args.before_qrels), file_labels(args.after_qrels)
        runs = read_runs(paths, args.order)
        contributions = label_contributions(
            before.qrels, after.qrels, runs, args.depth, level,
            pooled_names(args.pooled_before, runs), pooled_names(args.pooled_after, runs))
        doc = compare(before, after, runs, measures, level=level,
                      condensed=not args.no_condensed, contributions=contributions)
    else:
        level = config.judge.relevance_level if level is None else level
        with open_store(config) as store:
            v_after = args.after if args.after is not None else store.latest_pool_version()
            if v_after is None:
                raise PoolkitError(f"{config.store}: no pool yet (run `poolkit pool "
                                   f"{config.path.name}` first)")
            check_version(store, v_after)
            if args.before is not None:
                check_version(store, args.before)
            v_before = args.before if args.before is not None else v_after - 1
            if v_before >= v_after:
                raise PoolkitError(f"--before {v_before} must be an earlier pool version than "
                                   f"--after {v_after}")
            if v_before < 1:
                raise PoolkitError(f"pool version {v_after} has no earlier version to compare "
                                   f"with; expand the pool (`poolkit pool` with a deeper depth "
                                   f"or another system) first")
            before = store_labels(store, v_before, args.assessor, args.policy)
            after = store_labels(store, v_after, args.assessor, args.policy)
            runs = config_runs(config, store, paths, args.order)
            contributions = store_contributions(store, v_before, v_after, after.qrels, level)
        doc = compare(before, after, runs, measures, level=level,
                      condensed=not args.no_condensed, contributions=contributions)
    doc = {**header("compare"), **doc}
    sys.stdout.write(dumps(doc) if args.format == "json" else render_table(doc, args.per_query))
    return 0
