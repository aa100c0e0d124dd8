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
import json
import sys
from pathlib import Path

from poolkit.cli.options import REPORT_FORMATS

SUMMARY = "set up a judging store (PostgreSQL roles and grants) or copy one between backends"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("store", help=SUMMARY, description=__doc__.split("\n\n", 1)[0])
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    init = actions.add_parser(
        "init", help="create the store's schema; on PostgreSQL also its roles and grants",
        description="Create (or migrate) the store. On PostgreSQL, run it as the team lead "
                    "(a role that may create roles): it creates the groups poolkit_admin and "
                    "poolkit_assessor, protects the judgment log with row-level security and "
                    "prints the statements that add one login role per assessor.")
    init.add_argument("target", metavar="CONFIG|STORE")
    init.set_defaults(handler=run_init)
    copy = actions.add_parser(
        "copy", help="copy a store to another backend (SQLite <-> PostgreSQL)",
        description="Copy every row of SRC into DST, which must hold no data yet (a new file, "
                    "or a database with no poolkit rows), then check both by row counts and a "
                    "content hash.")
    copy.add_argument("source", metavar="SRC", help="CONFIG or STORE to copy from")
    copy.add_argument("destination", metavar="DST", help="CONFIG or STORE to copy into")
    copy.add_argument("--format", choices=REPORT_FORMATS, default="table")
    copy.set_defaults(handler=run_copy)


def location(arg: str) -> str | Path:
    """A store location from the command line: a config's ``store:``, a URL or a file."""
    from poolkit.config import load_config
    from poolkit.errors import StoreError
    from poolkit.store.backends import scheme_of
    from poolkit.store.locations import LocationError, database_location, redact

    if scheme_of(arg) != "sqlite":
        try:
            return database_location(arg) or arg
        except LocationError as exc:
            raise StoreError(f"{redact(arg)}: {exc.reason}") from None
    path = Path(arg)
    if path.suffix.lower() in (".yaml", ".yml"):
        return load_config(path).store
    from poolkit.io.links import resolve_output

    resolve_output(path)  # a store file is written: never through another user's /tmp link
    return path


def run_init(args: argparse.Namespace) -> int:
    from poolkit.store.backends import open_store
    from poolkit.store.locations import database_name
    from poolkit.store.postgres import PgStore, grant_roles, init_sql

    where = location(args.target)
    with open_store(where, create=True) as store:
        # granted before anything is printed: a role that may not grant reads only the error
        granted = grant_roles(store) if isinstance(store, PgStore) else []
        print(f"store {store.path}: schema version {store.schema_version}")
        if isinstance(store, PgStore):
            for line in granted:
                print(line)
            print("next, as this role, one per assessor (the role name is the assessor name):")
            print(init_sql(database_name(store.url)))
    return 0


def run_copy(args: argparse.Namespace) -> int:
    from poolkit.errors import StoreError
    from poolkit.store.backends import open_store
    from poolkit.store.copy import copy_store, copy_to_new_file
    from poolkit.store.locations import redact

    src, dst = location(args.source), location(args.destination)
    if str(src) == str(dst):
        raise StoreError(f"{redact(dst)}: source and destination are the same store")
    with open_store(src, create=False, read_only=True,
                    missing_hint="nothing to copy") as source:
        if isinstance(dst, Path):  # built beside, linked into place once verified
            report = copy_to_new_file(source, dst)
            label: object = dst
        else:
            with open_store(dst, create=True) as destination:
                report = copy_store(source, destination)
                label = destination.path
    if args.format == "json":
        json.dump({"command": "store copy", "source": str(source.path),
                   "destination": str(label), **report.to_dict()}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    width = max(map(len, report.counts))
    print(f"copied {source.path} -> {label}")
    for table, n in report.counts.items():
        print(f"  {table.ljust(width)}  {n:>9,}")
    print(f"content sha256 {report.source_hash} (source and copy identical)")
    return 0
