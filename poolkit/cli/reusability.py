"""``poolkit reusability``: leave-one-run-out and leave-one-group-out tests of the pool."""

from __future__ import annotations

import argparse
import sys

from poolkit.errors import PoolkitError

DESCRIPTION = """\
How far can the labels be trusted for a system that was never pooled? For each run, the
judged documents that only it brought into the pool are removed (as if it had never been
pooled), the run is re-scored, and its score and rank are compared with the full pool's.
With groups (systems sharing `group:` in the config, or --group), the same is done for
each group's runs together. Overall, per measure: mean and max absolute change, how many
runs change rank, and Kendall's tau between the full-pool ordering and the left-out
ordering. Also: the share of relevant pooled documents that a single run found, a warning
sign of an incomplete pool when high.

Store form: labels and pool provenance from the config's judging store (as of --version,
default the latest); runs default to the config's systems' run files. File form: one label
file and the runs; the pool is rebuilt as the union of every run's top --depth."""

EPILOG = """\
forms:
  poolkit reusability CONFIG [RUN ...] [--version V]
  poolkit reusability --qrels FILE RUN [RUN ...] [--depth K] [--group G=RUN,RUN ...]

examples:
  poolkit reusability configs/sample.yaml
  poolkit reusability configs/sample.yaml -m nDCG@10 --format json
  poolkit reusability --qrels qrels.txt runs/*.run --depth 10 --group lexical=bm25,bm25-rm3
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    from poolkit.analysis.reusability import DEFAULT_MEASURES, WARN_UNIQUE
    from poolkit.cli.options import add_common, add_inputs, add_store_labels

    p = subparsers.add_parser(
        "reusability", help="leave-one-run/group-out: how reusable the pool is",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_inputs(p)
    p.add_argument("--pool-version", "--version", dest="version", type=int, default=None,
                   metavar="V",
                   help="store form: the pool version (default: latest)")
    p.add_argument("--qrels", default=None, metavar="FILE",
                   help="file form: the labels (qrels or golden.yaml)")
    p.add_argument("--depth", type=int, default=10, metavar="K",
                   help="file form: pool depth used to rebuild the pool (default 10)")
    p.add_argument("--group", action="append", default=[], metavar="GROUP=RUN,RUN",
                   help="put runs in a group for leave-one-group-out (repeatable, once per "
                        "group, a run in one group; adds to the config's `group:`, moving "
                        "the runs named)")
    p.add_argument("--warn-unique", type=float, default=WARN_UNIQUE, metavar="X",
                   help=f"warn when more than this share of relevant pooled docs was found by "
                        f"a single run (default {WARN_UNIQUE})")
    add_store_labels(p)
    add_common(p, DEFAULT_MEASURES)
    p.set_defaults(handler=run_reusability)


def run_reusability(args: argparse.Namespace) -> int:
    from poolkit.analysis.inputs import groups_of, read_runs
    from poolkit.analysis.render import dumps, header
    from poolkit.analysis.reusability import (
        DEFAULT_MEASURES,
        render_table,
        reusability,
        sources_from_runs,
        sources_from_store,
    )
    from poolkit.cli.options import check_level, check_range, measures_arg, split_config
    from poolkit.policies import Labels

    measures = measures_arg(args.measure, DEFAULT_MEASURES)
    check_level(args.level)
    check_range(args.warn_unique, "--warn-unique", 0, 1, "a share in [0, 1]")
    files_form = args.qrels is not None
    if files_form and args.version is not None:
        raise PoolkitError("--version names a pool version (store form); not with --qrels")
    if args.depth < 1:
        raise PoolkitError(f"--depth must be a positive integer, got {args.depth}")
    chosen, paths = split_config(args.inputs, files_form)
    if chosen is None:
        if not paths:
            raise PoolkitError("the file form needs at least one RUN file")
        level = 1 if args.level is None else args.level
        labels = Labels.from_file(args.qrels, args.qrels_format)
        runs = read_runs(paths, args.order, args.run_format)
        sources = sources_from_runs(runs, args.depth)
        basis = f"union of every run's top {args.depth}"
    else:
        level = chosen.config.judge.relevance_level if args.level is None else args.level
        with chosen as collection:
            version = collection.version(args.version)
            labels = collection.labels(version, args.policy, args.assessor)
            runs = collection.runs(paths, args.order, args.run_format)
            sources = sources_from_store(collection.store, version)
            basis = f"pool provenance up to version {version}"
    groups = groups_of(chosen.config if chosen else None, args.group, runs)
    report = reusability(labels, runs, sources, measures, level=level, groups=groups or None,
                      warn_unique=args.warn_unique, basis=basis)
    out = {**header("reusability"), **report.to_dict()}
    sys.stdout.write(dumps(out) if args.format == "json" else render_table(out))
    return 0
