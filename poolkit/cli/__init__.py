"""The ``poolkit`` console script: one thin subcommand module per stage.

Each module in ``SUBCOMMANDS`` defines ``register(subparsers)`` (adds its parser; must import
nothing heavy) and the handler it sets with ``set_defaults(handler=...)``. Heavy libraries
(torch, sentence-transformers, textual) are imported inside handlers only, so
``poolkit score`` starts fast.

Only the module of the subcommand asked for is imported (importing all of them costs about
0.1 s on every call); ``poolkit --help`` lists every subcommand from ``SUMMARIES`` without
importing any.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import sys
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import NoReturn

from poolkit import __version__, interrupt
from poolkit.errors import (
    PoolkitError,
    Terminated,
    out_of_memory,
    printable,
    tell,
    too_many_open_files,
)
from poolkit.helptext import plain_help

# name -> module under poolkit.cli; the order is the order `poolkit --help` lists them.
SUBCOMMANDS = {
    "score": "score",
    "pool": "pool",
    "judge": "judge",
    "serve": "serve",
    "status": "status",
    "notes": "notes",
    "export": "export",
    "import": "import_labels",
    "compare": "compare",
    "reusability": "reusability",
    "agreement": "agreement",
    "trec-eval": "trec_eval",
    "sample-replay": "sample_replay",
    "ppi-replay": "ppi_replay",
    "store": "store",
    "schema": "schema",
    "simulate": "simulate",
    "autojudge": "autojudge",
    "check-judge": "check_judge",
    "estimate": "estimate",
    "sample-queries": "sample_queries",
    "assign": "assign",
    "gold": "gold",
    "users": "users",
}

# name -> the one-line help its module registers (a test keeps the two equal).
SUMMARIES = {
    "score": "score runs against qrels/golden.yaml, with intervals and the audit",
    "pool": "run the configured systems and pool their top N per query",
    "judge": "grade pooled passages 0-3 in a terminal UI",
    "serve": "serve the judging screen to browsers, behind a login",
    "status": "judging progress: judged/pooled, grades, pace, double judgments",
    "notes": "list assessors' notes per assessor and query, with their grades",
    "export": "write the current labels as TREC qrels or golden.yaml",
    "import": "record a golden.yaml or qrels file's grades as judgments by a source",
    "compare": "re-score every run under two label sets (pool versions or files)",
    "reusability": "leave-one-run/group-out: how reusable the pool is",
    "agreement": "assessor/judge agreement: kappa, weighted kappa, alpha, noisy flags",
    "trec-eval": "trec_eval's output, byte for byte, for every measure of -m all_trec",
    "sample-replay": "replay sampled pools against complete qrels: bias, coverage, tau vs depth-k",
    "ppi-replay": "replay PPI estimates (few human, many machine labels) against complete qrels",
    "store": "set up a judging store (PostgreSQL roles and grants) or copy one between backends",
    "schema": "print the JSON Schema of a --format json report",
    "simulate": "replay judging with full qrels: strategies, budgets, stopping",
    "autojudge": "grade the pool with a machine judge (LLM endpoint, local model, cross-encoder)",
    "check-judge": "vet a machine judge: gullibility canaries and agreement with people",
    "estimate": "PPI++ estimates from machine labels on every query and human ones on a few",
    "sample-queries": "draw the queries people judge (uniform or stratified by a machine judge), "
                      "recorded",
    "assign": "assign the pool's pairs to assessors, each pair to exactly --overlap of them",
    "gold": "record pairs with a known grade as gold checks mixed into every assessor's judging",
    "users": "the accounts of poolkit serve: add, list, remove, invite (a one-time link)",
}


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``: its first word that is not an option (the top-level
    parser's own options, ``-h`` and ``--version``, take no value)."""
    return next((a for a in argv if not a.startswith("-")), None)


class Parser(argparse.ArgumentParser):
    """argparse with poolkit's error shape: a usage mistake is one stderr line (what is wrong
    and where to look), exit 2, like every other bad input; ``--help`` shows the usage.
    Subparsers are made of this class too (argparse uses the parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {printable(' '.join(message.split()))} "
                     f"(see {self.prog} --help)\n")


def _subparser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The subparser of ``command`` (so that its errors name it), else ``parser``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return action.choices[command]  # type: ignore[no-any-return]
    return parser


def build_parser(load: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``poolkit`` parser with the real subparsers of the subcommands in ``load`` (None:
    all); the others are listed by name and summary only, their modules not imported."""
    parser = Parser(
        prog="poolkit",
        description="Pool, judge and score relevance labels for retrieval evaluation.",
        epilog="example:\n  poolkit score qrels.txt bm25.run -m nDCG@10",
    )
    parser.add_argument("--version", action="version", version=f"poolkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in SUBCOMMANDS.items():
        if load is None or name in load:
            importlib.import_module(f"poolkit.cli.{module}").register(sub)
        else:
            sub.add_parser(name, help=SUMMARIES[name], add_help=False)
    plain_help(parser)  # every --help as plain text, paragraphs filled to the terminal
    return parser


def _terminate(signum: int, frame: object) -> NoReturn:
    raise Terminated


@contextmanager
def _sigterm_as_interrupt(command: str | None) -> Iterator[None]:
    """SIGTERM handled like SIGINT while a command runs, in every command but the judging
    screen (a terminal UI, whose app restores the terminal on its own way out)."""
    import signal
    import threading

    if (command == "judge" or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return
    signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def _names_written_as_given() -> Iterator[None]:
    """stdout writes a file name's bytes that are not UTF-8 back as they came (a path from
    the command line holds them as lone surrogates, \\udc80-\\udcff, which a UTF-8 locale's
    strict stdout cannot encode: a report naming such a file ended in a traceback), as
    Python's own C locale does; restored after the command. Only the process's own stdout:
    a stream a caller put in its place is theirs."""
    import io

    stdout = sys.stdout
    if (stdout is not sys.__stdout__ or not isinstance(stdout, io.TextIOWrapper)
            or stdout.errors != "strict"):
        yield
        return
    stdout.reconfigure(errors="surrogateescape")
    try:
        yield
    finally:
        stdout.reconfigure(errors="strict")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        with _names_written_as_given():
            return _main(argv)
    except (MemoryError, OSError, ImportError, RuntimeError) as exc:
        # A resource limit (`ulimit -v`, `ulimit -n`) can strike anywhere, importing a
        # subcommand's modules included: one line that names the limit, not a traceback.
        why = _limit_reached(exc)
        if why is None:
            raise
        command = _command(argv)
        who = f"poolkit {command}" if command in SUBCOMMANDS else "poolkit"
        print(f"{who}: error: {why}", file=sys.stderr)
        return 2


def _limit_reached(exc: BaseException) -> str | None:
    """What ``exc`` says when a resource limit caused it, else None. Out of address space,
    Python raises MemoryError, the dynamic loader fails to map a library's segments, and a
    thread's stack cannot be allocated; out of descriptors, an open fails with EMFILE."""
    text = str(exc)
    if isinstance(exc, MemoryError) or (
            isinstance(exc, ImportError) and "failed to map segment" in text):
        return out_of_memory()
    if isinstance(exc, RuntimeError) and "can't start new thread" in text:
        return f"cannot start a thread: {out_of_memory()}"
    if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
        return too_many_open_files()
    return None


def _main(argv: list[str]) -> int:
    command = _command(argv)
    parser = build_parser([command] if command in SUBCOMMANDS else [])
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the subcommand's parser, which knows its own options
        shown = (f"{len(extra)} not shown (a stray word may be a password)"
                 if getattr(args, "conceal_extra", False) else " ".join(extra))
        _subparser(parser, command).error(f"unrecognized arguments: {shown}")
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    interrupt.reset()
    try:
        with _sigterm_as_interrupt(args.command):
            code = args.handler(args)
    except PoolkitError as exc:
        tell(f"poolkit {args.command}: error: {exc}")
        return exc.exit_code
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (errors.Terminated)
        terminated = isinstance(exc, Terminated)
        if str(exc):  # what the command had done when stopped, in its own words
            tell(f"poolkit {args.command}: {exc}")
        else:  # what it kept, as poolkit.interrupt knows it
            command = " ".join(filter(None, [args.command, getattr(args, "action", None)]))
            line = interrupt.interrupted_line(command, "terminated" if terminated
                                              else "interrupted")
            if line is not None:
                tell(line)
        # 128 + the signal's number, as a shell reports a process it ended
        return 143 if terminated else 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if type(exc).__module__ != "sqlite3":  # not imported here: `score` must start fast
            raise
        # SQLite failed while rows were read outside a Store method (a store damaged in
        # the middle is found only when its damaged pages are read).
        from poolkit.store.failures import OPENED, describe

        store = OPENED[-1] if OPENED else "<store>"
        tell(f"poolkit {args.command}: error: {describe(store, exc)}")
        return 2
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
