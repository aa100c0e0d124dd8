"""``poolkit schema [NAME]``: the JSON Schema of a ``--format json`` report."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "schema", help="print the JSON Schema of a --format json report",
        description="Print the JSON Schema (draft 2020-12) of a report's --format json "
                    "output; without NAME, list the reports that have one.",
        epilog="examples:\n  poolkit schema\n  poolkit schema score\n")
    p.add_argument("name", nargs="?", metavar="NAME", help="report: score, pool, status, ...")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.schemas import load_schema, schema_names, schema_text

    if args.name is None:
        names = schema_names()
        width = max(map(len, names))
        for name in names:
            sys.stdout.write(f"{name:<{width}}  {load_schema(name).get('title', '')}\n")
        return 0
    sys.stdout.write(schema_text(args.name))
    return 0
