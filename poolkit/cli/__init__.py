"""The ``poolkit`` console script: one thin subcommand module per stage.

Each module in ``SUBCOMMANDS`` defines ``register(subparsers)`` (adds its parser; must import
nothing heavy) and the handler it sets with ``set_defaults(handler=...)``. Heavy libraries
(torch, sentence-transformers, textual) are imported inside handlers only, so
``poolkit score`` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from poolkit import __version__
from poolkit.errors import PoolkitError

# name -> module under poolkit.cli; the order is the order `poolkit --help` lists them.
SUBCOMMANDS = {
    "score": "score",
    "pool": "pool",
    "judge": "judge",
    "status": "status",
    "export": "export",
    "import": "import_labels",
    "compare": "compare",
    "reusability": "reusability",
    "agreement": "agreement",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="poolkit",
        description="Pool, judge and score relevance labels for retrieval evaluation.",
    )
    parser.add_argument("--version", action="version", version=f"poolkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in SUBCOMMANDS.items():
        try:
            mod = importlib.import_module(f"poolkit.cli.{module}")
        except ModuleNotFoundError as exc:
            if exc.name == f"poolkit.cli.{module}":
                continue  # subcommand not built yet
            raise
        mod.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        code = args.handler(args)
    except PoolkitError as exc:
        print(f"poolkit {args.command}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
