"""``poolkit notes``: the assessors' notes, per assessor and query, with the grade each
explains."""

from __future__ import annotations

import argparse
import sys

from poolkit.app.notes import NotesReport


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "notes", help="list assessors' notes per assessor and query, with their grades",
        description="List every note written while judging (the `n` key), per assessor and "
                    "query, with the grade the note explains (the assessor's standing grade "
                    "on that passage, '-' when they have none).",
        epilog="example:\n  poolkit notes configs/sample.yaml --assessor alice --query q_faw\n")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    p.add_argument("--format", choices=NotesReport.formats, default=NotesReport.formats[0])
    p.add_argument("--assessor", action="append", metavar="NAME",
                   help="only this assessor's notes (repeatable)")
    p.add_argument("--query", action="append", metavar="QID",
                   help="only notes on this query (repeatable)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.notes import list_notes
    from poolkit.collection import Collection
    from poolkit.errors import tell

    with Collection.open(args.config) as collection:
        report = list_notes(collection, args.assessor, args.query)
    if args.format == "table" and not report.notes:
        tell("no notes")
        return 0
    sys.stdout.write(report.render(args.format))
    return 0
