"""``poolkit import CONFIG LABELS --as SOURCE``: record a label file's grades as judgments.

LABELS is a golden.yaml (``.yaml``/``.yml``) or a TREC qrels file. Each grade becomes an
``import`` event by SOURCE (e.g. ``nist``, ``golden``) in the config's judging store.
Importing the same file again adds nothing; a changed file appends only changed grades.
Pairs whose query is not in the config's queries file or whose doc is not in its corpus are
reported and skipped (there would be nothing to show an assessor); when that leaves nothing
at all to import, the file or the config is the wrong one: an error naming the first pair's
line, the store untouched. ``--keep-unknown`` imports them anyway. ``--machine MODEL``
records the file as machine judge SOURCE's grades (a judge's output: UMBRELA's qrels),
which readers of people's labels never see. A file that says a machine judge graded some of
its pairs (`poolkit export --with-machine` marks them: JUDGE@VERSION in a qrels line's
column 2, golden.yaml's provenance `machine:`) is refused unless it is imported with
``--machine`` or ``--accept-machine`` records those grades as SOURCE's all the same (each
such event's note says so).
"""

from __future__ import annotations

import argparse
import sys

from poolkit.app.imports import ImportReport


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "import", help="record a golden.yaml or qrels file's grades as judgments by a source",
        description=__doc__,
        epilog="examples:\n"
               "  poolkit import configs/sample.yaml sample_corpus/golden.yaml --as golden\n"
               "  poolkit import configs/sample.yaml llm.qrels --as llm --machine gpt-4o\n")
    p.add_argument("config", help="collection config (YAML)")
    p.add_argument("labels", help="labels in any accepted qrels format (golden.yaml, TREC, "
                                  "BEIR, JSON), detected from the content")
    p.add_argument("--as", dest="source", required=True, metavar="SOURCE",
                   help="the assessor name the grades are recorded under (e.g. nist)")
    p.add_argument("--machine", metavar="MODEL",
                   help="the labels are machine judge SOURCE's, made by MODEL (recorded as "
                        "machine events no reader of people's labels sees)")
    p.add_argument("--accept-machine", action="store_true",
                   help="record the grades the file says are a machine judge's as SOURCE's "
                        "all the same (each event's note names the judge)")
    p.add_argument("--keep-unknown", action="store_true",
                   help="also import pairs whose query or doc is not in the collection")
    p.add_argument("--format", choices=ImportReport.formats, default=ImportReport.formats[0])
    from poolkit.cli.formats import add_format_options

    add_format_options(p, runs=False)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.imports import ImportRequest, import_labels

    report = import_labels(ImportRequest(args.config, args.labels, args.source,
                                         keep_unknown=args.keep_unknown,
                                         qrels_format=args.qrels_format,
                                         machine=args.machine,
                                         accept_machine=args.accept_machine))
    sys.stdout.write(report.render(args.format))
    return 0
