"""``poolkit check-judge CONFIG --judge NAME[@VERSION]``: is a machine judge fit to count?

Plants gullibility canaries (passages people graded 0, doctored with the query's terms, an
instruction to the grader, or both: --canaries N of each, seeded), asks them of the judge
exactly as autojudge does, and records the check: a kind whose canaries are graded relevant
more often than --max-fooled marks the version untrusted, and estimate, export
--with-machine, sample-queries --machine and the judge-guided orders then refuse it unless
--accept-untrusted. Canaries are never labels. Then sets the version's grades against
people's on the pairs both graded: confusion, quadratic kappa, recall per grade, leniency,
and how the runs' ordering and significant differences move under its labels. Says how far
the version agrees with itself over its readings (autojudge --readings K: Krippendorff's
alpha, the share of pairs whose grade flips) and which systems share the judge's model
family (family: in the config: circularity). A bare NAME of a judge with several versions
in the store is refused with their list.
"""

from __future__ import annotations

import argparse
import sys

from poolkit.app.check_judge import (
    DEFAULT_CANARIES,
    DEFAULT_MAX_FOOLED,
    DEFAULT_SEED,
    CheckJudgeReport,
)
from poolkit.cli.options import positive


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "check-judge", help="vet a machine judge: gullibility canaries and agreement with people",
        description=__doc__,
        epilog="example:\n  poolkit check-judge configs/sample.yaml --judge llm --canaries 20\n")
    p.add_argument("config", help="collection config (YAML) with a judges: section")
    p.add_argument("--judge", required=True, metavar="NAME[@VERSION]",
                   help="the judge, by its name under judges: (a VERSION must be the one the "
                        "config defines; NAME alone, where the store has several versions, "
                        "is refused)")
    p.add_argument("--canaries", type=positive, default=DEFAULT_CANARIES, metavar="N",
                   help=f"canaries of each kind (default {DEFAULT_CANARIES})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"the canaries' draw (default {DEFAULT_SEED})")
    p.add_argument("--max-fooled", type=float, default=DEFAULT_MAX_FOOLED, metavar="RATE",
                   help=f"the highest fooled rate of any kind a trusted judge may have "
                        f"(default {DEFAULT_MAX_FOOLED:g})")
    from poolkit.policies import DEFAULT_POLICY, POLICIES

    p.add_argument("--policy", choices=list(POLICIES), default=DEFAULT_POLICY,
                   help=f"how several people's grades become the labels the judge is set "
                        f"against (default: {DEFAULT_POLICY})")
    p.add_argument("--measure", default="nDCG@10",
                   help="the measure runs are ordered by (default nDCG@10)")
    p.add_argument("--format", choices=CheckJudgeReport.formats,
                   default=CheckJudgeReport.formats[0])
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.check_judge import CheckJudgeRequest, check_judge

    report = check_judge(CheckJudgeRequest(args.config, args.judge, canaries=args.canaries,
                                           seed=args.seed, max_fooled=args.max_fooled,
                                           policy=args.policy, measure=args.measure))
    sys.stdout.write(report.render(args.format))
    return 0
