"""``poolkit import CONFIG LABELS --as SOURCE``: record a label file's grades as judgments.

LABELS is a golden.yaml (``.yaml``/``.yml``) or a TREC qrels file. Each grade becomes an
``import`` event by SOURCE (e.g. ``nist``, ``golden``) in the config's judging store.
Importing the same file again adds nothing; a changed file appends only changed grades.
Pairs whose query is not in the config's queries file or whose doc is not in its corpus are
reported and skipped (there would be nothing to show an assessor); when that leaves nothing
at all to import, the file or the config is the wrong one: an error naming the first pair's
line, the store untouched. ``--keep-unknown`` imports them anyway.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Container
from pathlib import Path
from typing import TYPE_CHECKING

from poolkit.cli.options import REPORT_FORMATS as FORMATS
from poolkit.errors import InputError, tell

if TYPE_CHECKING:
    from poolkit.io.qrels import Qrels


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "import", help="record a golden.yaml or qrels file's grades as judgments by a source",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", help="collection config (YAML)")
    p.add_argument("labels", help="labels in any accepted qrels format (golden.yaml, TREC, "
                                  "BEIR, JSON), detected from the content")
    p.add_argument("--as", dest="source", required=True, metavar="SOURCE",
                   help="the assessor name the grades are recorded under (e.g. nist)")
    p.add_argument("--keep-unknown", action="store_true",
                   help="also import pairs whose query or doc is not in the collection")
    p.add_argument("--format", choices=FORMATS, default="table")
    from poolkit.cli.formats import add_format_options

    add_format_options(p, runs=False)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.collection import Collection
    from poolkit.io.corpus import read_corpus, read_queries
    from poolkit.io.formats import detect
    from poolkit.io.golden import read_golden_full
    from poolkit.io.qrels import Qrels
    from poolkit.io.readers import read_labels
    from poolkit.io.validate import check_assessor
    from poolkit.retrieve.run import counted
    from poolkit.store.imports import import_labels, split_unjudged

    check_assessor(args.source, "--as: source name")
    collection = Collection.open(args.config, write=True, create=True)
    config = collection.config
    texts: dict[str, str] = {}
    fmt = args.qrels_format or detect(args.labels, "qrels")
    if fmt == "golden":
        labels, texts, _provenance = read_golden_full(args.labels)
    else:
        labels = read_labels(args.labels, fmt)
    graded, unjudged = split_unjudged(labels)  # off-scale grades: an error naming the line
    queries = read_queries(config.queries)
    _warn_text_contradictions(args.labels, texts, {q.qid: q.text for q in queries},
                              config.queries.name)
    known_q = {q.qid for q in queries}
    corpus_ids = read_corpus(config.corpus).index
    unknown_q = sorted(q for q in labels.grades if q not in known_q)
    unknown_pairs = sum(1 for q, docs in labels.grades.items() if q in known_q
                        for d in docs if d not in corpus_ids)
    kept = graded
    if not args.keep_unknown:
        kept = Qrels({q: {d: g for d, g in docs.items() if d in corpus_ids}
                      for q, docs in graded.grades.items() if q in known_q},
                     name=labels.name, sha256=labels.sha256, path=labels.path)
    if not args.keep_unknown and len(kept) == 0 and len(graded) > 0:
        raise _nothing_known(graded, known_q, corpus_ids, config.queries.name,
                             config.corpus.name)
    total = len(labels)
    with collection:
        store = collection.store
        collection.assessor(args.source, "import")  # a lead's: refused before any write
        store.upsert_queries(queries)
        added = import_labels(store, kept, args.source, source=Path(args.labels).name)
    result = {"labels": str(args.labels), "labels_sha256": labels.sha256, "source": args.source,
              "pairs": total, "imported": added, "unchanged": len(kept) - added,
              "pooled_not_judged": unjudged,
              "unknown_queries": unknown_q,
              "unknown_query_pairs": sum(len(labels.grades[q]) for q in unknown_q),
              "unknown_doc_pairs": unknown_pairs, "kept_unknown": bool(args.keep_unknown),
              "store": config.store_label}
    if args.format == "json":
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{labels.name}: {counted(total, 'graded pair')} -> "
          f"{counted(added, 'new import event')} by "
          f"{args.source!r} ({result['unchanged']} already standing) in {config.store_label}")
    if unjudged:
        print(f"  {counted(unjudged, 'pair')} marked -1 (pooled, not judged): not grades, "
              f"not recorded")
    skipped = "imported anyway" if args.keep_unknown else "skipped"
    if unknown_q:
        shown = ", ".join(unknown_q[:5]) + (", ..." if len(unknown_q) > 5 else "")
        print(f"  {len(unknown_q)} query id(s) not in {config.queries.name} ({shown}): "
              f"{counted(result['unknown_query_pairs'], 'pair')} {skipped}")
    if unknown_pairs:
        print(f"  {counted(unknown_pairs, 'pair')} name{'s' if unknown_pairs == 1 else ''} "
              f"doc ids not in {config.corpus.name}: {skipped}")
    return 0


def _nothing_known(graded: Qrels, known_q: Container[str], corpus_ids: Container[str],
                   queries_name: str, corpus_name: str) -> InputError:
    """Every graded pair unknown: almost surely the wrong file or config (partial overlap,
    NIST qrels on a corpus subset, is skipped and reported instead). Names the first pair."""
    from poolkit.retrieve.run import counted

    pairs = [(q, d) for q, docs in graded.grades.items() for d in docs]
    lines = graded.source_lines
    qid, docid = min(pairs, key=lambda p: lines.get(p) or 0)  # file order where known
    why = (f"query {qid!r} is not in {queries_name}" if qid not in known_q
           else f"doc {docid!r} is not in {corpus_name}")
    return InputError(graded.path or graded.name, lines.get((qid, docid)),
                      f"nothing to import: none of its {counted(len(pairs), 'graded pair')} "
                      f"names a query of {queries_name} and a doc of {corpus_name} (this "
                      f"line's {why}); wrong file or config? --keep-unknown imports them "
                      f"anyway")


def _warn_text_contradictions(labels_path: str, texts: dict[str, str], known: dict[str, str],
                              queries_name: str) -> None:
    """A golden.yaml query ``text:`` that differs from the collection's queries file means
    the labels may have been made for another query: say so (the file's ids still rule)."""
    for qid, text in texts.items():
        if qid in known and " ".join(text.split()) != " ".join(known[qid].split()):
            tell(f"poolkit import: warning: {labels_path}: query {qid!r} text {text[:60]!r} "
                 f"differs from {queries_name}'s {known[qid][:60]!r}")
