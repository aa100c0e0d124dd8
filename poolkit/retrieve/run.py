"""External runs (Pyserini, Elasticsearch, a vendor...): any TREC run file joins the pool.

A run is checked against the collection before it is used: rows naming a doc id that is
not in the corpus (there is no text to judge) or a query id that is not in the queries file
are dropped and *reported*, never silently kept. A doc id repeated within a query keeps its
first (best) position only. What remains is ranked as read (``order:``, trec_eval's score
order by default) and re-numbered 1..n; like every system, it is then cut to the system's
``depth`` (default 100) when written to the runs directory.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poolkit.io.corpus import QueryRecord
from poolkit.io.formats import detect
from poolkit.io.readers import read_any_run
from poolkit.io.run import Run
from poolkit.retrieve.base import Results, ScoredDoc, run_to_results

EXAMPLES = 5  # how many unknown ids a report names


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """'1 row', '2 rows': a count with its noun agreeing."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


@dataclass
class RunCheck:
    """What validating a run against the corpus and queries found."""

    rows: int = 0
    kept: int = 0
    unknown_docs: int = 0          # rows dropped: doc id not in the corpus
    unknown_doc_ids: list[str] = field(default_factory=list)   # first few, for the message
    distinct_unknown_docs: int = 0
    unknown_queries: list[str] = field(default_factory=list)   # dropped whole
    unknown_query_rows: int = 0
    repeats: int = 0               # rows dropped: doc already ranked higher for that query
    queries_without_results: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.unknown_docs or self.unknown_queries or self.repeats)

    def messages(self, name: str) -> list[str]:
        out = []
        if self.unknown_queries:
            shown = ", ".join(self.unknown_queries[:EXAMPLES])
            more = "" if len(self.unknown_queries) <= EXAMPLES else ", ..."
            out.append(f"{name}: {len(self.unknown_queries)} query id(s) not in the queries "
                       f"file ({shown}{more}): {counted(self.unknown_query_rows, 'row')} dropped")
        if self.unknown_docs:
            shown = ", ".join(self.unknown_doc_ids[:EXAMPLES])
            more = "" if self.distinct_unknown_docs <= EXAMPLES else ", ..."
            out.append(f"{name}: {counted(self.unknown_docs, 'row')} "
                       f"name{'s' if self.unknown_docs == 1 else ''} "
                       f"{self.distinct_unknown_docs} doc id(s) not in the corpus "
                       f"({shown}{more}): dropped")
        if self.repeats:
            out.append(f"{name}: {self.repeats} repeated doc id(s) within a query: "
                       f"only the first is kept")
        if self.queries_without_results:
            out.append(f"{name}: no results for {len(self.queries_without_results)} of the "
                       f"queries ({', '.join(self.queries_without_results[:EXAMPLES])}"
                       f"{'' if len(self.queries_without_results) <= EXAMPLES else ', ...'})")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "kept": self.kept, "unknown_doc_rows": self.unknown_docs,
                "unknown_docs": self.distinct_unknown_docs,
                "unknown_doc_examples": self.unknown_doc_ids[:EXAMPLES],
                "unknown_queries": self.unknown_queries,
                "unknown_query_rows": self.unknown_query_rows, "repeats": self.repeats,
                "queries_without_results": self.queries_without_results}


def validate_run(run: Run, doc_ids: Collection[str], query_ids: Sequence[str],
                 ) -> tuple[Run, RunCheck]:
    """The run restricted to known queries and docs (first occurrence of each doc), and why."""
    check = RunCheck()
    rankings: dict[str, list[str]] = {}
    scores: dict[str, list[float]] = {}
    known_q = set(query_ids)
    unknown_docs: set[str] = set()
    for qid, docs in run.rankings.items():
        check.rows += len(docs)
        if qid not in known_q:
            check.unknown_queries.append(qid)
            check.unknown_query_rows += len(docs)
            continue
        sc = run.scores.get(qid)
        seen: set[str] = set()
        kept, kept_scores = [], []
        for i, d in enumerate(docs):
            if d not in doc_ids:
                check.unknown_docs += 1
                if d not in unknown_docs:
                    unknown_docs.add(d)
                    if len(check.unknown_doc_ids) < EXAMPLES:
                        check.unknown_doc_ids.append(d)
                continue
            if d in seen:
                check.repeats += 1
                continue
            seen.add(d)
            kept.append(d)
            kept_scores.append(sc[i] if sc else float(len(docs) - i))
        rankings[qid], scores[qid] = kept, kept_scores
        check.kept += len(kept)
    check.distinct_unknown_docs = len(unknown_docs)
    check.queries_without_results = [q for q in query_ids if not rankings.get(q)]
    clean = Run(rankings, name=run.name, sha256=run.sha256, path=run.path, tag=run.tag,
                scores=scores)
    return clean, check


class ExternalRun:
    """A validated run file as a retriever: ``search`` returns its top k per query."""

    kind = "run"

    def __init__(self, name: str, path: str | Path, doc_ids: Collection[str],
                 query_ids: Sequence[str], order: str = "score", fmt: str | None = None,
                 ) -> None:
        self.name = name
        self.path = Path(path)
        self.order = order
        # told from the content unless the system's ``format:`` says; a file that could be
        # two formats is an error whose hint names that key, not a command-line option
        self.format = fmt or detect(self.path, "run", key="format")
        self.source = read_any_run(self.path, order=order, fmt=self.format)
        self.run, self.check = validate_run(self.source, doc_ids, query_ids)

    def search(self, queries: Sequence[QueryRecord], k: int) -> Results:
        results = run_to_results(self.run, k)
        empty: list[ScoredDoc] = []
        return {q.qid: results.get(q.qid, empty) for q in queries}

    def settings(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": str(self.path), "order": self.order,
                "format": self.format, "source_sha256": self.source.sha256,
                "validation": self.check.to_dict()}
