"""``poolkit assign``: who judges which pairs, with controlled overlap, recorded in the store
(the verb is :mod:`poolkit.app.assign`)."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "assign the pool's pairs to assessors, each pair to exactly --overlap of them"

DESCRIPTION = """\
Write in the store who judges which pairs of the latest pool: every pair to exactly
--overlap distinct assessors, balanced across them (--unit query gives a query's pairs to
one team; --unit pair spreads single pairs). `poolkit judge --assessor NAME` then serves
NAME's assignment, and the store refuses anyone else a pair that has its overlap: that
assessor gets other work. Running assign again keeps every pair's judged slots and moves
only unjudged ones; --replace bob=dave hands bob's unjudged slots to dave and changes
nothing else. The same seed on the same store gives the same plan."""


def register(sub: argparse._SubParsersAction) -> None:
    from poolkit.app.assign import UNITS, AssignReport

    p = sub.add_parser("assign", help=SUMMARY, description=DESCRIPTION,
                       epilog="example:\n"
                              "  poolkit assign configs/sample.yaml --assessors alice,bob "
                              "--overlap 2\n")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    p.add_argument("--assessors", metavar="NAME,NAME", help="who judges (comma-separated)")
    p.add_argument("--overlap", type=int, metavar="N", help="assessors per pair")
    p.add_argument("--queries", metavar="QID,QID", help="only these queries' pairs")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="ties' seed (default: the current plan's, else 0)")
    p.add_argument("--unit", choices=list(UNITS), default=None,
                   help="assign whole queries or single pairs (default: the current plan's, "
                        "else query)")
    p.add_argument("--replace", action="append", default=[], metavar="OLD=NEW",
                   help="hand OLD's unjudged pairs to NEW (repeatable)")
    p.add_argument("--format", choices=list(AssignReport.formats), default="table",
                   help="output format (default: table)")
    p.set_defaults(handler=run)


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(n.strip() for n in (text or "").split(",") if n.strip())


def _swap(text: str) -> tuple[str, str]:
    from poolkit.errors import PoolkitError

    old, sep, new = text.partition("=")
    if not sep or not old.strip() or not new.strip():
        raise PoolkitError(f"--replace {text!r}: write OLD=NEW (bob=dave)")
    return old.strip(), new.strip()


def run(args: argparse.Namespace) -> int:
    from poolkit.app.assign import AssignRequest, assign

    report = assign(AssignRequest(
        args.config, _names(args.assessors), args.overlap,
        _names(args.queries) if args.queries else None, args.seed, args.unit,
        tuple(_swap(r) for r in args.replace)))
    sys.stdout.write(report.render(args.format))
    return 0
