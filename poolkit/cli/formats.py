"""``--qrels-format`` and ``--run-format``: force a format instead of detecting it."""

from __future__ import annotations

import argparse

# Kept in step with poolkit.io.formats' registries by a test; listed here so that building
# the parser imports no reader.
QRELS_FORMAT_NAMES = ("trec", "beir", "golden", "json")
RUN_FORMAT_NAMES = ("trec", "msmarco", "json", "ranked")


def add_format_options(parser: argparse.ArgumentParser, *, runs: bool = True) -> None:
    parser.add_argument("--qrels-format", choices=QRELS_FORMAT_NAMES, default=None,
                        metavar="FORMAT",
                        help="read the qrels as FORMAT instead of detecting it from the "
                             f"content: {', '.join(QRELS_FORMAT_NAMES)}")
    if runs:
        parser.add_argument("--run-format", choices=RUN_FORMAT_NAMES, default=None,
                            metavar="FORMAT",
                            help="read every run as FORMAT instead of detecting it from the "
                                 f"content: {', '.join(RUN_FORMAT_NAMES)}")
