"""``poolkit judge``: grade the pool in a terminal UI (Textual is imported only here)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from poolkit.errors import PoolkitError, tell

DESCRIPTION = """\
Open the judging UI on CONFIG's store as assessor NAME. Passages come in the pool's judging
order, blind (no system names, ranks or scores) unless judge.blind is false in the config.
Reopening resumes at the first passage NAME has not judged. Every grade is written to the
store before the next passage appears; undo, skip and notes are recorded as events too.
Keys are listed in the footer and remapped under judge.keys in the config. One live session
per assessor and store: a second one is refused (--take-over to open it anyway)."""


NOTHING = {
    "judge": "nothing to judge: the pool is empty",
    "adjudicate": "nothing to adjudicate: no two assessors disagree on a pair",
    "agreement": "nothing to double-judge: no one but {name} has judged a passage",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge", help="grade pooled passages 0-3 in a terminal UI",
                       description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    p.add_argument("--assessor", metavar="NAME",
                   help="who is judging (recorded on every event); on a PostgreSQL store it "
                        "defaults to, and must be, your database role")
    p.add_argument("--query", metavar="QID", help="start at this query")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--agreement", action="store_true",
                      help="show only passages someone else has judged and NAME has not "
                           "(double judging for an agreement sample)")
    mode.add_argument("--adjudicate", action="store_true",
                      help="walk the pairs where assessors disagree, showing their grades, "
                           "and record NAME's adjudicated grade as its own event")
    p.add_argument("--show-names", action="store_true",
                   help="with --adjudicate: show which assessor gave which grade")
    p.add_argument("--pool-version", type=int, metavar="V",
                   help="judge the pool as of version V (default: the latest, and a version "
                        "added while judging shows up at the next query)")
    p.add_argument("--take-over", action="store_true",
                   help="open even though another live session judges as NAME on this store "
                        "(that session's further grades are refused)")
    p.add_argument("--double", action="store_true",
                   help="under a learning pool.order: also judge the passages other assessors "
                        "judged (double judging) instead of being given different ones")
    p.set_defaults(handler=run)


def require_terminal() -> None:
    """The UI needs a terminal both ways: without one it would write escape codes into a
    pipe and wait forever, or take a piped "3" as a grade. Refuse instead."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        if stream is None or not stream.isatty():
            raise PoolkitError(f"the judging UI needs a terminal, but {name} is not one "
                               f"(run poolkit judge in a terminal, without pipes or redirects)")


def run(args: argparse.Namespace) -> int:
    from poolkit.collection import Collection
    from poolkit.io.validate import check_assessor
    from poolkit.judge.session import JudgingSession

    if args.show_names and not args.adjudicate:
        raise PoolkitError("--show-names only applies with --adjudicate")
    if args.assessor is not None:  # (on PostgreSQL it defaults to the database role)
        check_assessor(args.assessor, "--assessor")
    mode = "adjudicate" if args.adjudicate else "agreement" if args.agreement else "judge"
    with Collection.open(args.config, write=True) as collection:
        config = collection.config
        assessor = collection.assessor(args.assessor, "adjudicate" if args.adjudicate
                                       else "grade")
        version = collection.version(args.pool_version)
        chooser = collection.next_passage(version, args.double)
        # No --pool-version: the session follows the latest (a new one shows at the next query).
        session = JudgingSession(collection.store, assessor, mode=mode,
                                 start_qid=args.query, pool_version=args.pool_version,
                                 chooser=chooser, min_display=config.judge.min_display)
        if not session.query_ids:  # (judge mode always has the pool to show)
            tell(f"poolkit judge: {NOTHING[mode].format(name=session.assessor)}")
            return 0
        try:  # Textual: only when the UI really opens (the core install has none)
            from poolkit.judge.app import JudgeApp
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] != "textual":
                raise
            raise PoolkitError("the judging UI needs Textual: pip install 'poolkit[judge]'"
                               ) from None
        require_terminal()

        from poolkit.store.claims import claim, release

        mine = claim(collection.store, session.assessor, take_over=args.take_over)
        app = JudgeApp(session, config.judge, show_names=args.show_names, claim=mine)
        try:
            app.run()
        finally:
            release(collection.store, mine)
        progress = session.progress()
        closed = {q: chooser.closed(q) for q in session.query_ids} if session.chooser else {}
    tell(f"{session.assessor}: {progress.done}/{progress.total} done in {mode} mode "
         f"(store {config.store_label})")
    for qid, why in closed.items():
        if why:
            tell(f"  query {qid}: no more passages offered: {why}")
    if app.unsaved:  # quit (pressed twice) while the store could not take them
        raise PoolkitError("not saved (the store could not be reached; judge them again): "
                           + ", ".join(_unsaved(e) for e in app.unsaved))
    return 0


def _unsaved(event: Any) -> str:
    what = f" {event.grade}" if event.grade is not None else ""
    return f"{event.kind}{what} of query {event.qid} doc {event.docid}"

