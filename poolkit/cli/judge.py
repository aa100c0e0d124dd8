"""``poolkit judge``: grade the pool in a terminal UI (Textual is imported only here)."""

from __future__ import annotations

import argparse
import sys

from poolkit.errors import PoolkitError

DESCRIPTION = """\
Open the judging UI on CONFIG's store as assessor NAME. Passages come in the pool's judging
order, blind (no system names, ranks or scores) unless judge.blind is false in the config.
Reopening resumes at the first passage NAME has not judged. Every grade is written to the
store before the next passage appears; undo, skip and notes are recorded as events too.
Keys are listed in the footer and remapped under judge.keys in the config. One live session
per assessor and store: a second one is refused (--take-over to open it anyway)."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge", help="grade pooled passages 0-3 in a terminal UI",
                       description=DESCRIPTION,
                       epilog="examples:\n  poolkit judge configs/sample.yaml --assessor alice\n"
                              "  poolkit judge configs/sample.yaml --assessor alice --adjudicate")
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
    mode.add_argument("--review-machine", metavar="JUDGE[@V]",
                      help="walk the pairs where machine judge JUDGE (the version the config "
                           "defines, or JUDGE@VERSION) and NAME disagree most, showing the "
                           "judge's grade after NAME's, and record NAME's answer as an "
                           "adjudication (a person's grade: it decides the pair in people's "
                           "labels)")
    p.add_argument("--show-names", action="store_true",
                   help="with --adjudicate: show which assessor gave which grade")
    p.add_argument("--pool-version", type=int, metavar="V",
                   help="judge the pool as of version V (default: the latest, and a version "
                        "added while judging shows up at the next query)")
    p.add_argument("--sample", action="store_true",
                   help="serve only the queries of the latest `poolkit sample-queries` draw")
    p.add_argument("--take-over", action="store_true",
                   help="open even though another live session judges as NAME on this store "
                        "(that session's further grades are refused)")
    p.add_argument("--double", action="store_true",
                   help="under a learning pool.order: also judge the passages other assessors "
                        "judged (double judging) instead of being given different ones")
    from poolkit.cli.options import add_accept_untrusted

    add_accept_untrusted(p)
    p.set_defaults(handler=run)


def _require_terminal() -> None:
    """The UI needs a terminal both ways: without one it would write escape codes into a
    pipe and wait forever, or take a piped "3" as a grade. Refuse instead. Under Textual's
    web driver (``poolkit serve``) input comes framed, a key a packet: no terminal needed."""
    from poolkit.app.screen import web_driver

    if web_driver():
        return
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        if stream is None or not stream.isatty():
            raise PoolkitError(f"the judging UI needs a terminal, but {name} is not one "
                               f"(run poolkit judge in a terminal, without pipes or redirects)")


def _mode(args: argparse.Namespace) -> str:
    if args.review_machine is not None:
        return "review"
    return "adjudicate" if args.adjudicate else "agreement" if args.agreement else "judge"


def run(args: argparse.Namespace) -> int:
    from poolkit.app.screen import errors_in_screen

    with errors_in_screen("poolkit judge: not opened"):  # (a browser has no stderr)
        return run_judge(args)


def run_judge(args: argparse.Namespace) -> int:
    from poolkit.app.judge import (
        JudgeRequest,
        judging_config,
        nothing_to_show,
        open_session,
        session_summary,
        unsaved_error,
    )
    from poolkit.app.screen import say
    from poolkit.collection import Collection
    from poolkit.errors import tell
    from poolkit.store.claims import claim, release

    request = JudgeRequest(args.config, args.assessor, _mode(args), args.query,
                           args.pool_version, args.double, args.show_names, args.sample,
                           args.review_machine, args.accept_untrusted)
    with Collection.open(args.config, write=True) as collection:
        judge = judging_config(collection)  # (a bad queries file: refused before a session)
        session = open_session(collection, request)
        nothing = nothing_to_show(session)
        if nothing:
            say("poolkit judge", nothing)
            return 0
        try:  # Textual: only when the UI really opens (the core install has none)
            from poolkit.judge.app import JudgeApp
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] != "textual":
                raise
            raise PoolkitError("the judging UI needs Textual: pip install 'poolkit[judge]'"
                               ) from None
        _require_terminal()
        mine = claim(collection.store, session.assessor, take_over=args.take_over)
        app = JudgeApp(session, judge, show_names=args.show_names, claim=mine)
        try:
            app.run()
        finally:
            release(collection.store, mine)
        summary = session_summary(session, collection.config.store_label)
    for line in summary:
        tell(line)
    if app.unsaved:  # quit (pressed twice) while the store could not take them
        raise unsaved_error(app.unsaved)
    return 0
