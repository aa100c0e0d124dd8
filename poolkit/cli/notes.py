"""``poolkit notes``: the assessors' notes, per assessor and query, with the grade each
explains."""

from __future__ import annotations

import argparse
import json
import sys

from poolkit.cli.options import REPORT_FORMATS as FORMATS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "notes", help="list assessors' notes per assessor and query, with their grades",
        description="List every note written while judging (the `n` key), per assessor and "
                    "query, with the grade the note explains (the assessor's standing grade "
                    "on that passage, '-' when they have none).")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    p.add_argument("--format", choices=FORMATS, default="table")
    p.add_argument("--assessor", action="append", metavar="NAME",
                   help="only this assessor's notes (repeatable)")
    p.add_argument("--query", action="append", metavar="QID",
                   help="only notes on this query (repeatable)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.collection import Collection
    from poolkit.errors import StoreError, did_you_mean, one_of
    from poolkit.store.notes import notes

    with Collection.open(args.config) as collection:
        store = collection.store
        # A filter naming no one in the store is a typo, not "no notes".
        known = store.assessors()
        for name in args.assessor or ():
            if name not in known:
                raise StoreError(f"{collection.config.store_label}: --assessor: "
                                 + one_of(name, known, "assessor"))
        queries = store.queries()
        for qid in args.query or ():
            if qid not in queries:  # a store may hold thousands: no list, a suggestion
                raise StoreError(f"{collection.config.store_label}: --query: no query {qid!r} in "
                                 f"the store{did_you_mean(qid, queries)}")
        found = notes(store, args.assessor, args.query)
        where = collection.config.store_label
    if args.format == "json":
        json.dump({"store": where, "notes": [n.to_dict() for n in found]},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if not found:
        print("no notes", file=sys.stderr)
        return 0
    last: tuple[str, str] | None = None
    for n in found:
        if last is None or last[0] != n.assessor:
            sys.stdout.write(f"{n.assessor}\n")
        if last != (n.assessor, n.qid):
            sys.stdout.write(f"  query {n.qid}\n")
        grade = "-" if n.grade is None else str(n.grade)
        ruling = " (adjudicated)" if n.grade_kind == "adjudicate" else ""
        sys.stdout.write(f"    {n.docid}  grade {grade}{ruling}  {n.at[:16]}  {n.text}\n")
        last = (n.assessor, n.qid)
    return 0
