"""``poolkit reusability``: leave-one-run-out and leave-one-group-out tests of the pool."""

from __future__ import annotations

import argparse
import sys

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
  poolkit reusability --qrels FILE RUN [RUN ...] [--depth K]
      [--group G=RUN,RUN ...]

examples:
  poolkit reusability configs/sample.yaml
  poolkit reusability configs/sample.yaml -m nDCG@10 --format json
  poolkit reusability --qrels qrels.txt runs/*.run --group lex=bm25,bm25-rm3
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    from poolkit.analysis.reports import DEFAULT_MEASURES, WARN_UNIQUE, ReusabilityReport
    from poolkit.cli.options import add_common, add_inputs, add_store_labels

    p = subparsers.add_parser(
        "reusability", help="leave-one-run/group-out: how reusable the pool is",
        description=DESCRIPTION, epilog=EPILOG)
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
    add_common(p, DEFAULT_MEASURES, ReusabilityReport.formats)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.analysis.reports import DEFAULT_MEASURES
    from poolkit.app.reusability import ReusabilityRequest, pool_reusability
    from poolkit.cli.options import check_level, check_range, measures_arg

    measures = measures_arg(args.measure, DEFAULT_MEASURES)
    check_level(args.level)
    check_range(args.warn_unique, "--warn-unique", 0, 1, "a share in [0, 1]")
    report = pool_reusability(ReusabilityRequest(
        inputs=args.inputs, measures=measures, version=args.version, qrels=args.qrels,
        depth=args.depth, groups=args.group, warn_unique=args.warn_unique, level=args.level,
        order=args.order, qrels_format=args.qrels_format, run_format=args.run_format,
        policy=args.policy, assessors=args.assessor, machines=args.with_machine))
    sys.stdout.write(report.render(args.format))
    return 0
