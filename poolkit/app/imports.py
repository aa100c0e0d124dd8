"""``import``: record a label file's grades as judgments by a source.

The labels (golden.yaml, TREC, BEIR or JSON qrels, detected from the content) become
``import`` events by the source (e.g. ``nist``) in the config's judging store. Importing the
same file again adds nothing; a changed file appends only changed grades. Pairs whose query
is not in the config's queries file or whose doc is not in its corpus are reported and
skipped (there would be nothing to show an assessor); when that leaves nothing at all to
import, the file or the config is the wrong one: an error naming the first pair's line, the
store untouched. ``keep_unknown`` imports them anyway. A file that says a machine judge
graded some of its pairs (``poolkit export --with-machine`` marks them) is refused under a
person's name unless ``accept_machine``; as a machine judge's (``machine``) it is welcome
(``app.machine_files``).

Light at import: the command line's parser takes ``ImportReport.formats`` from here.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolkit import interrupt
from poolkit.errors import InputError, PoolkitError, tell
from poolkit.reports import Report, register_report

if TYPE_CHECKING:
    from poolkit.io.qrels import Qrels


@dataclass(frozen=True)
class ImportRequest:
    config: str | Path
    labels: str | Path             # the label file
    source: str                    # the assessor name the grades are recorded under
    keep_unknown: bool = False     # also import pairs outside the collection
    qrels_format: str | None = None  # None: detected from the content
    machine: str | None = None     # a model id: the grades are that machine judge's
    accept_machine: bool = False   # take grades the file says are a machine's as source's


_TABLE_ONLY = {"table_only": True}  # named in the table, not a key of the JSON document


@register_report
@dataclass(frozen=True)
class ImportReport(Report):
    """``poolkit import``: how many grades became events, and what was skipped."""

    kind = "import"

    labels: str
    labels_sha256: str
    source: str
    pairs: int
    imported: int
    unchanged: int
    pooled_not_judged: int
    unknown_queries: list[str]
    unknown_query_pairs: int
    unknown_doc_pairs: int
    kept_unknown: bool
    store: str
    #: ``--accept-machine``: JUDGE@VERSION -> the pairs the file said it graded, recorded
    #: as the source's all the same (absent otherwise)
    machine_accepted: dict[str, int] | None = field(default=None, metadata={"omit_none": True})
    labels_name: str = field(default="", metadata=_TABLE_ONLY)
    queries_file: str = field(default="", metadata=_TABLE_ONLY)
    corpus_file: str = field(default="", metadata=_TABLE_ONLY)

    def to_dict(self) -> dict[str, Any]:
        table_only = {f.name for f in fields(self) if f.metadata.get("table_only")}
        return {k: v for k, v in super().to_dict().items() if k not in table_only}

    def render_table(self) -> str:
        from poolkit.retrieve.run import counted

        lines = [f"{self.labels_name}: {counted(self.pairs, 'graded pair')} -> "
                 f"{counted(self.imported, 'new import event')} by "
                 f"{self.source!r} ({self.unchanged} already standing) in {self.store}"]
        for label, n in (self.machine_accepted or {}).items():
            lines.append(f"  {counted(n, 'grade')} the file says machine judge {label} gave, "
                         f"recorded as {self.source}'s (--accept-machine)")
        if self.pooled_not_judged:
            lines.append(f"  {counted(self.pooled_not_judged, 'pair')} marked -1 (pooled, "
                         f"not judged): not grades, not recorded")
        skipped = "imported anyway" if self.kept_unknown else "skipped"
        unknown_q = self.unknown_queries
        if unknown_q:
            shown = ", ".join(unknown_q[:5]) + (", ..." if len(unknown_q) > 5 else "")
            lines.append(f"  {len(unknown_q)} query id(s) not in {self.queries_file} ({shown}): "
                         f"{counted(self.unknown_query_pairs, 'pair')} {skipped}")
        n = self.unknown_doc_pairs
        if n:
            lines.append(f"  {counted(n, 'pair')} name{'s' if n == 1 else ''} doc ids not in "
                         f"{self.corpus_file}: {skipped}")
        return "\n".join(lines) + "\n"


def import_labels(request: ImportRequest, warn: Callable[[str], None] = tell) -> ImportReport:
    """Record the file's grades as ``import`` events by ``request.source``; ``warn`` hears a
    golden.yaml query text that differs from the collection's."""
    from poolkit.app.machine_files import (
        ACCEPT,
        accepted_note,
        machine_counts,
        refuse_machine_grades,
    )
    from poolkit.collection import Collection
    from poolkit.io.corpus import read_corpus, read_queries
    from poolkit.io.formats import detect
    from poolkit.io.golden import read_golden_full
    from poolkit.io.paths import path_text
    from poolkit.io.qrels import Qrels
    from poolkit.io.readers import read_labels
    from poolkit.io.validate import check_assessor
    from poolkit.store.imports import import_labels as record_imports
    from poolkit.store.imports import split_unjudged

    source = check_assessor(request.source, "--as: source name")  # before anything is read
    if request.accept_machine and request.machine is not None:
        raise PoolkitError(f"{ACCEPT} takes a machine's grades as a person's; with --machine "
                           f"they are recorded as the judge's: give one of the two")
    collection = Collection.open(request.config, write=True, create=True)
    config = collection.config
    path = str(request.labels)
    texts: dict[str, str] = {}
    fmt = request.qrels_format or detect(path, "qrels")
    if fmt == "golden":
        labels, texts, _provenance = read_golden_full(path, config.grades)
    else:
        labels = read_labels(path, fmt)
    if request.machine is None and not request.accept_machine:
        refuse_machine_grades(
            labels, f"recorded --as {source} they would pass for a person's",
            f"import the file as the judge's (--as JUDGE --machine MODEL), or give {ACCEPT} "
            f"to record them as {source}'s all the same")
    # a grade off the config's scale: an error naming the line
    graded, unjudged = split_unjudged(labels, config.grades)
    queries = read_queries(config.queries)
    for line in text_contradictions(path, texts, {q.qid: q.text for q in queries},
                                    config.queries.name):
        warn(line)
    known_q = {q.qid for q in queries}
    corpus_ids = read_corpus(config.corpus).index
    unknown_q = sorted(q for q in labels.grades if q not in known_q)
    unknown_pairs = sum(1 for q, docs in labels.grades.items() if q in known_q
                        for d in docs if d not in corpus_ids)
    kept = graded
    if not request.keep_unknown:
        kept = Qrels({q: {d: g for d, g in docs.items() if d in corpus_ids}
                      for q, docs in graded.grades.items() if q in known_q},
                     name=labels.name, sha256=labels.sha256, path=labels.path)
        if len(kept) == 0 and len(graded) > 0:
            raise _nothing_known(graded, known_q, corpus_ids, config.queries.name,
                                 config.corpus.name)
    with collection, collection.made_on_success():  # a first import that fails makes no store
        store = collection.store
        # a lead's, and a person's name or a judge's: refused before any write
        collection.assessor(source, "import", "--as", machine=request.machine is not None)
        store.upsert_queries(queries)
        accepted = ({p: accepted_note(label) for p, label in labels.machine.items()}
                    if request.machine is None else {})
        added = record_imports(store, kept, source, source=path_text(Path(path).name),
                               machine=request.machine, notes=accepted)
        interrupt.done(f"{added} labels recorded")
    taken = (machine_counts(labels, ((q, d) for q, ds in kept.grades.items() for d in ds))
             if accepted else None)
    return ImportReport(
        labels=path, labels_sha256=labels.sha256, source=source, pairs=len(labels),
        imported=added, unchanged=len(kept) - added, pooled_not_judged=unjudged,
        unknown_queries=unknown_q,
        unknown_query_pairs=sum(len(labels.grades[q]) for q in unknown_q),
        unknown_doc_pairs=unknown_pairs, kept_unknown=bool(request.keep_unknown),
        store=config.store_label, machine_accepted=taken, labels_name=labels.name,
        queries_file=config.queries.name, corpus_file=config.corpus.name)


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


def text_contradictions(labels_path: str, texts: dict[str, str], known: dict[str, str],
                        queries_name: str) -> list[str]:
    """A golden.yaml query ``text:`` that differs from the collection's queries file means
    the labels may have been made for another query: one warning each (the file's ids still
    rule)."""
    return [f"poolkit import: warning: {labels_path}: query {qid!r} text {text[:60]!r} "
            f"differs from {queries_name}'s {known[qid][:60]!r}"
            for qid, text in texts.items()
            if qid in known and " ".join(text.split()) != " ".join(known[qid].split())]
