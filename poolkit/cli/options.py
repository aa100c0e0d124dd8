"""Options and argument helpers several subcommands share (no subcommand imports another).

Kept free of heavy imports: every helper imports what it needs when called.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from poolkit.errors import PoolkitError

if TYPE_CHECKING:
    from poolkit.score.measures import Measure
    from poolkit.score.significance import TestOptions

def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {value}")
    return value


def add_common(p: argparse.ArgumentParser, default_measures: tuple[str, ...],
               formats: Sequence[str]) -> None:
    """Options the analysis commands share: measures, level, run order, output format
    (``formats``: the report's, the default first)."""
    from poolkit.io import RUN_ORDERS

    p.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                   help=f"a measure (repeatable or comma separated; ir_measures spelling as in "
                        f"`poolkit score`; "
                        f"default: {' '.join(default_measures)})")
    p.add_argument("--level", type=int, default=None, metavar="N",
                   help="relevance level: grade >= N is relevant for binary measures "
                        "(default: the config's judge.relevance_level, else 1)")
    p.add_argument("--order", choices=list(RUN_ORDERS), default="score",
                   help="how run files are ordered (default: score, trec_eval's order)")
    p.add_argument("--format", choices=list(formats), default=formats[0],
                   help=f"output format (default: {formats[0]})")


def check_range(value: float | None, flag: str, low: float, high: float | None,
                what: str) -> None:
    """One-line error for an option outside ``[low, high]`` (``high=None``: no upper bound)."""
    if value is not None and not (low <= value and (high is None or value <= high)):  # NaN too
        raise PoolkitError(f"{flag} must be {what}, got {value:g}")


def check_level(level: int | None) -> None:
    check_range(level, "--level", 1, None, "a positive integer")


def add_inputs(p: argparse.ArgumentParser) -> None:
    """The positional CONFIG|RUN list shared by the store and file forms, and the options
    that force the format of the label and run files named (detected from content if not)."""
    from poolkit.cli.formats import add_format_options

    add_format_options(p)
    p.add_argument("inputs", nargs="*", metavar="CONFIG|RUN",
                   help="store form: CONFIG then optional RUN files; file form: RUN files. A "
                        "run is named by its file name without extension; in the store form a "
                        "name matching a system links the run to that system's pool provenance")


def add_with_machine(p: argparse.ArgumentParser, help: str | None = None) -> None:
    from poolkit.policies import MACHINE_HELP

    p.add_argument("--with-machine", action="append", default=[], metavar="NAME[@VERSION]",
                   dest="with_machine", help=help or MACHINE_HELP)


def add_store_labels(p: argparse.ArgumentParser) -> None:
    from poolkit.policies import DEFAULT_POLICY, MACHINE_HELP, POLICIES

    add_with_machine(p, "store form: " + MACHINE_HELP)

    p.add_argument("--assessor", action="append", default=None, metavar="NAME",
                   help="store form: only these assessors' grades count (repeatable)")
    p.add_argument("--policy", choices=list(POLICIES), default=DEFAULT_POLICY,
                   help="store form: how several assessors' grades on one pair become one "
                        f"label (default: {DEFAULT_POLICY}, as for every command; an "
                        "adjudication decides its pair under any policy; see `poolkit export "
                        "--help`)")


def measures_arg(texts: list[str], default: tuple[str, ...]) -> list[Measure]:
    """The ``-m`` measures (comma or repeat separated), else ``default``."""
    from poolkit.score.measures import parse_measures, split_measures

    return parse_measures(split_measures(texts) or list(default))


def add_test_options(p: argparse.ArgumentParser) -> None:
    """--test, --alpha, --correction (score and compare); choices from the registries of
    ``poolkit.score.significance`` (NumPy only, so ``score`` still starts on the core)."""
    from poolkit.score.significance import (
        ALPHA,
        CORRECTIONS,
        DEFAULT_CORRECTION,
        DEFAULT_TEST,
        TESTS,
    )

    p.add_argument("--test", choices=list(TESTS), default=DEFAULT_TEST,
                   help=f"the paired test whose p-value the table marks (default: "
                        f"{DEFAULT_TEST}; JSON has all three)")
    p.add_argument("--alpha", type=float, default=ALPHA, metavar="A",
                   help=f"significance level (default: {ALPHA:g})")
    p.add_argument("--correction", choices=list(CORRECTIONS), default=DEFAULT_CORRECTION,
                   help=f"adjustment of the marked p-values over every pair and measure "
                        f"(default: {DEFAULT_CORRECTION}; JSON has holm and bh)")


def paired_test_options(args: argparse.Namespace) -> TestOptions:
    from poolkit.score.significance import TestOptions

    return TestOptions(test=args.test, alpha=args.alpha, correction=args.correction)


def say_warnings(lines: Sequence[str]) -> None:
    """A report's warnings (``Report`` fields marked ``STDERR``), one line each on stderr."""
    import sys

    for line in lines:
        print(line, file=sys.stderr)


def add_verbose(p: argparse.ArgumentParser, what: str) -> None:
    """``-v``/``--verbose``: the table's detail beyond what fits an 80-column terminal
    (``what`` names it); JSON always has everything."""
    p.add_argument("-v", "--verbose", action="store_true",
                   help=f"the whole table: {what} (the default fits 80 columns; JSON always "
                        f"has everything)")


def add_accept_untrusted(p: argparse.ArgumentParser) -> None:
    """``--accept-untrusted``: use a machine judge version ``poolkit check-judge`` marked
    untrusted (said on stderr) instead of refusing it."""
    p.add_argument("--accept-untrusted", action="store_true",
                   help="use a machine judge version `poolkit check-judge` marked untrusted "
                        "(canaries fooled it) instead of refusing it")
