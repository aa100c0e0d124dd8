"""``poolkit store``: set up a judging store, or copy one to another backend.

    poolkit store init CONFIG|STORE       create the schema (PostgreSQL: roles, row-level
                                          security, grants) and print what a lead runs next
    poolkit store copy SRC DST            copy every event, pool, provenance row and text;
                                          counts and a content hash prove the copy

A STORE is a SQLite file, a ``postgresql://USER@HOST:PORT/DBNAME`` URL or a libpq
``host=H port=P dbname=D user=U`` string (password from PGPASSWORD or ~/.pgpass, never in
the location); a CONFIG names its store under ``store:``.
"""

from __future__ import annotations

import argparse
import sys

from poolkit.app.store import StoreCopyReport

SUMMARY = "set up a judging store (PostgreSQL roles and grants) or copy one between backends"
INIT = "  poolkit store init configs/sample.yaml\n"
COPY = "  poolkit store copy sample_corpus/judgments.sqlite postgresql://lead@db/judging\n"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("store", help=SUMMARY, description=__doc__.split("\n\n", 1)[0],
                       epilog=f"examples:\n{INIT}{COPY}")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    init = actions.add_parser(
        "init", help="create the store's schema; on PostgreSQL also its roles and grants",
        description="Create (or migrate) the store. On PostgreSQL, run it as the team lead "
                    "(a role that may create roles): it creates the groups poolkit_admin and "
                    "poolkit_assessor, protects the judgment log with row-level security and "
                    "prints the statements that add one login role per assessor.",
        epilog=f"example:\n{INIT}")
    init.add_argument("target", metavar="CONFIG|STORE",
                      help="a config naming the store, or the store itself (a path or URL)")
    init.set_defaults(handler=run_init)
    copy = actions.add_parser(
        "copy", help="copy a store to another backend (SQLite <-> PostgreSQL)",
        description="Copy every row of SRC into DST, which must hold no data yet (a new file, "
                    "or a database with no poolkit rows), then check both by row counts and a "
                    "content hash.",
        epilog=f"example:\n{COPY}")
    copy.add_argument("source", metavar="SRC", help="CONFIG or STORE to copy from")
    copy.add_argument("destination", metavar="DST", help="CONFIG or STORE to copy into")
    copy.add_argument("--format", choices=StoreCopyReport.formats,
                      default=StoreCopyReport.formats[0])
    copy.set_defaults(handler=run_copy)


def run_init(args: argparse.Namespace) -> int:
    from poolkit.app.store import init_store

    sys.stdout.write(init_store(args.target).render_table())
    return 0


def run_copy(args: argparse.Namespace) -> int:
    from poolkit.app.store import copy_store

    sys.stdout.write(copy_store(args.source, args.destination).render(args.format))
    return 0
