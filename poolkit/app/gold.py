"""The gold verb: record pairs with a known answer as the store's gold set (``poolkit gold``).

The file (a golden.yaml or qrels: graded by the lead, or agreed adjudications) is read and
checked in full before the store is opened for writing: a query not in the collection's
queries file, a doc not in its corpus, or a grade off the collection's scale is one error
naming the file and line, and the store is left as it was. So is a file that says a machine
judge graded some of its pairs (``app.machine_files``): gold is the truth people are checked
against, so a machine's grades become gold only with ``accept_machine``, and the gold set's
recorded ``labels`` then says whose they were. Each gold pair is then recorded with its
grade and its passage's text (``store.gold_sql``), replacing the last gold set.

The judging screen mixes the set's pairs into every assessor's queue at ``rate`` (gold
passages per passage of the pool, deterministic by ``seed``: ``judge.gold``), and records
the answers as ``gold`` events: never labels. ``status`` compares them with the known grades
(``analysis.gold``).

Light at import: the command line's parser takes ``GoldReport.formats`` from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from poolkit import interrupt
from poolkit.errors import InputError, PoolkitError
from poolkit.reports import Report, register_report

if TYPE_CHECKING:
    from poolkit.io.qrels import Qrels


@dataclass(frozen=True)
class GoldRequest:
    config: str | Path
    labels: str | Path           # golden.yaml or qrels: the known answers
    rate: float = 0.05           # gold passages per passage of the pool, in (0, 1]
    seed: int = 0                # where in each assessor's queue they go
    qrels_format: str | None = None  # None: detected from the content
    accept_machine: bool = False     # take grades the file says are a machine's as gold
    skip_unknown: bool = False   # leave out pairs the collection lacks, rather than refuse
    yes: bool = False            # record a set that makes most of the pool gold-only


#: the share of the pool a gold set may take without ``--yes``: gold pairs that are pooled are
#: shown to people only as gold, so past it most of the pool would get no labels at all
GOLD_ONLY_SHARE = 0.5


def check_rate(rate: float) -> float:
    """``rate`` when it is in (0, 1]: a share of the queue, so 0 mixes nothing in and over
    1 is more gold than work."""
    if not 0 < rate <= 1:
        raise PoolkitError(f"--rate {rate:g}: gold passages per passage must be in (0, 1] "
                           f"(0.05: one in twenty)")
    return rate


def gold(request: GoldRequest) -> GoldReport:
    """Record ``request.labels`` as the store's gold set; its report."""
    from poolkit.app.machine_files import ACCEPT, machine_counts, refuse_machine_grades
    from poolkit.collection import Collection
    from poolkit.io.corpus import read_corpus, read_queries
    from poolkit.io.formats import detect
    from poolkit.io.golden import read_golden_full
    from poolkit.io.paths import path_text
    from poolkit.io.readers import read_labels
    from poolkit.store.gold_sql import GoldSet
    from poolkit.store.imports import split_unjudged

    rate = check_rate(request.rate)
    collection = Collection.open(request.config, write=True, create=True)
    config = collection.config
    path = str(request.labels)
    fmt = request.qrels_format or detect(path, "qrels")
    labels = (read_golden_full(path, config.grades)[0] if fmt == "golden"
              else read_labels(path, fmt))
    if not request.accept_machine:
        refuse_machine_grades(labels, "gold is the truth people are checked against",
                              f"give {ACCEPT} to take a machine's grades as gold all the same")
    graded, _unjudged = split_unjudged(labels, config.grades)  # off the scale: file:line
    queries = read_queries(config.queries)
    docs = read_corpus(config.corpus).docs()
    known_q = {q.qid for q in queries}
    skipped = 0
    if request.skip_unknown:
        graded, skipped = _known_only(graded, known_q, docs)
    else:
        _check_known(graded, known_q, docs, config.queries.name, config.corpus.name)
    if len(graded) == 0:
        raise InputError(path, None, "no graded pair: a gold set needs known grades" + (
            f" ({skipped} left out by --skip-unknown)" if skipped else ""))
    rows = [(q, d, g, *docs[d]) for q, ds in graded.grades.items() for d, g in ds.items()]
    taken = machine_counts(labels, ((q, d) for q, d, *_ in rows))
    with collection, collection.made_on_success():  # a first gold that fails makes no store
        store = collection.store
        pooled = store.pooled_pairs() if store.latest_pool_version() is not None else set()
        gold_only = sum((q, d) in pooled for q, d, *_ in rows)
        if gold_only > len(pooled) * GOLD_ONLY_SHARE and not request.yes:
            raise InputError(path, None, f"{gold_only} of the pool's {len(pooled)} pairs would "
                             f"become gold-only (people see them only as gold checks, never as "
                             f"labels), leaving {len(pooled) - gold_only} to judge; --yes "
                             f"records it anyway")
        store.upsert_queries(queries)
        number = store.replace_gold(GoldSet(_described(path_text(path), taken), labels.sha256,
                                            rate, request.seed), rows)
        interrupt.done(f"gold set {number} recorded")
    return GoldReport(gold_set=number, labels=path, labels_sha256=labels.sha256,
                      pairs=len(rows), queries=len(graded.grades), pooled=gold_only, rate=rate,
                      seed=request.seed, store=config.store_label, skipped_unknown=skipped,
                      machine_accepted=taken or None)


def _described(path: str, taken: Mapping[str, int]) -> str:
    """How the gold set names its file: with, when machine grades were taken as gold by
    ``--accept-machine``, whose and how many (``status`` shows it; the store keeps it)."""
    if not taken:
        return path
    whose = ", ".join(f"{n} graded by machine judge {label}" for label, n in taken.items())
    return f"{path} ({whose}, taken as gold by --accept-machine)"


def _known_only(graded: Qrels, known_q: set[str], docs: Mapping[str, object],
                ) -> tuple[Qrels, int]:
    """``graded`` without the pairs whose query or doc the collection lacks (``--skip-unknown``,
    as ``import`` skips them), and how many were left out."""
    from poolkit.io.qrels import Qrels

    kept = {q: {d: g for d, g in ds.items() if d in docs}
            for q, ds in graded.grades.items() if q in known_q}
    kept = {q: ds for q, ds in kept.items() if ds}
    left_out = len(graded) - sum(len(ds) for ds in kept.values())
    return Qrels(kept, name=graded.name, sha256=graded.sha256, path=graded.path,
                 source_lines=graded.source_lines), left_out


def _check_known(graded: Qrels, known_q: set[str], docs: Mapping[str, object], queries_name: str,
                 corpus_name: str) -> None:
    """The first pair (in file order) whose query or doc the collection lacks: an error
    naming its line. A gold passage must be one an assessor can be shown."""
    lines = graded.source_lines
    pairs = sorted(((q, d) for q, ds in graded.grades.items() for d in ds),
                   key=lambda p: lines.get(p) or 0)
    for qid, docid in pairs:
        if qid not in known_q or docid not in docs:
            why = (f"query {qid!r} is not in {queries_name}" if qid not in known_q
                   else f"doc {docid!r} is not in {corpus_name}")
            raise InputError(graded.path or graded.name, lines.get((qid, docid)),
                             f"{why}: a gold pair must be one an assessor can be shown "
                             f"(--skip-unknown leaves such pairs out)")


@register_report
@dataclass(frozen=True)
class GoldReport(Report):
    """``poolkit gold``'s report: the gold set as recorded."""

    kind = "gold"

    gold_set: int
    labels: str
    labels_sha256: str
    pairs: int
    queries: int
    pooled: int
    rate: float
    seed: int
    store: str
    skipped_unknown: int = 0  # pairs left out by --skip-unknown
    command: str = "gold"
    #: ``--accept-machine``: JUDGE@VERSION -> the gold pairs the file said it graded
    machine_accepted: dict[str, int] | None = field(default=None, metadata={"omit_none": True})

    def render_table(self) -> str:
        lines = [f"gold set {self.gold_set}: {self.pairs} pairs over {self.queries} queries "
                 f"from {self.labels}, mixed in at {self.rate:g} per passage (seed "
                 f"{self.seed}), recorded in {self.store}"]
        for label, n in (self.machine_accepted or {}).items():
            lines.append(f"  {n} of them graded by machine judge {label}, as the file says: "
                         f"taken as gold by --accept-machine")
        if self.skipped_unknown:
            lines.append(f"  {self.skipped_unknown} pairs left out: their query or doc is not "
                         f"in the collection (--skip-unknown)")
        if self.pooled:
            lines.append(f"  {self.pooled} of them are pooled: people are shown those only as "
                         f"gold (their answers are never labels)")
        return "\n".join(lines) + "\n"
