"""What the score report says, part by part: each run's entry, the settings, the labels' identity.

:class:`poolkit.score.report.ScoreReport` assembles these into one JSON-ready document (the
``--format json`` output, whose keys are an API); :mod:`poolkit.score.render` renders that
same document as a table, Markdown and CSV, so no format can state a different number. Each
one states the cutoffs K, the qrels and every run by name and content hash, the query counts,
the date and poolkit's version.

JSON shape (keys beyond these may be added, none removed)::

    {"poolkit_version", "date", "settings": {"k": [..], "level", "order", "depth", "gain",
                                             "corpus_size", "intervals": {...}},
     "qrels": {"name", "path", "sha256", "queries", "judgments"}, "truth": {...} | null,
     "runs": [{"name", "path", "sha256",
               "queries": {"in_run", "shared", "scored", "excluded", "missing", "unknown"},
               "measures": {NAME: {"mean", "per_query": {qid: value}, "ci": {"low", "high",
                                   "method", "level", ...} | null, "family", "cutoff"}},
               "audit": {"k", "summary": {...}, "queries": {qid: {...}}},
               "stages": {...} | null, "truth": {...} | null}],
     "fail_on": {"conditions": [..], "failed": [{"condition", "run", "queries", "message"}]},
     "tests": {MEASURE: [{"a", "b", "n", "diff", "ci", "p", "p_adjusted", ...}]}}

With two runs or more, ``tests`` holds every pair's paired tests (shape in
``poolkit.score.significance.PairedTests``) and ``settings.tests`` how they were run (test,
alpha, correction, permutations, seed, family size); with one run they are ``{}`` and null.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from poolkit.io import Qrels, Run
from poolkit.score.audit import Audit, TruthTable
from poolkit.score.intervals import CONFIDENCE, RESAMPLES, SEED, Interval
from poolkit.score.measures import Measure
from poolkit.score.mismatch import QueryMismatch, query_mismatch
from poolkit.score.stages import StageReport

if TYPE_CHECKING:
    from poolkit.score.evaluate import Evaluation
    from poolkit.score.significance import PairedTests


@dataclass(frozen=True)
class RunInfo:
    """What the report says of a run itself. Its rows are not kept once it is scored
    (``Evaluation.let_rows_go``), so scoring N runs in one process holds one run at a time."""

    name: str
    path: str | None
    sha256: str
    queries: int  # queries in the run, scored or not
    #: how the run's queries and the labels' overlap (None: not measured)
    mismatch: QueryMismatch | None = None

    @classmethod
    def of(cls, run: Run, qrels: Qrels | None = None) -> RunInfo:
        mismatch = (None if qrels is None else
                    query_mismatch(qrels.grades, run.rankings, run_name=run.name))
        return cls(run.name, run.path, run.sha256, len(run.rankings), mismatch)


class RunDocument(dict[str, Any]):
    """One run's entry of the report's ``runs`` (a plain dict to every reader), with its
    compact JSON when it was written ahead (``render.prepare_json``): ``render_json`` then
    splices that text in rather than encoding the run again."""

    compact_json: str | None = None


@dataclass
class RunResult:
    """Everything the report says about one run.

    :meth:`document` builds the run's part of the report once; the score verb has it built
    (``ScoreReport.prepare_run``) on the thread that scored the run, so N runs' parts are
    built while later runs are read, not one after another at the end. Nothing in the part
    refers to the run's rows (only to values computed from them)."""

    run: RunInfo
    evaluation: Evaluation
    shown: list[Measure]
    intervals: dict[str, Interval | None]
    audit: Audit
    stages: StageReport | None = None
    truth: TruthTable | None = None
    _document: RunDocument | None = field(default=None, init=False, repr=False,
                                          compare=False)

    def document(self) -> RunDocument:
        """The run's entry of the report's ``runs``, built on first use (so complete the
        result, stages and truth included, before asking)."""
        if self._document is None:
            self._document = run_document(self)
        return self._document


@dataclass
class Settings:
    ks: list[int]
    level: int = 1
    order: str = "score"
    depth: int | None = None
    gain: str = "linear"
    corpus_size: int | None = None
    #: the corpus's ids when known (``--corpus``): label coverage counts judged ids among them
    corpus_ids: frozenset[str] | None = field(default=None, repr=False)


def report_date() -> str:
    """UTC time of the report, ISO 8601; ``SOURCE_DATE_EPOCH`` pins it (reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    t = time.gmtime(int(epoch)) if epoch and epoch.isdigit() else time.gmtime()
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", t)


def labels_identity(q: Qrels) -> dict[str, Any]:
    return {"name": q.name, "path": q.path, "sha256": q.sha256, "queries": len(q.grades),
            "judgments": len(q)}


def run_document(r: RunResult) -> RunDocument:
    """One run's entry of the report's ``runs`` (see the module doc for its keys)."""
    ev = r.evaluation
    measures = {}
    for m in r.shown:
        ci = r.intervals.get(m.name)
        measures[m.name] = {"mean": ev.means[m.name], "per_query": ev.per_query[m.name],
                            "ci": ci.to_dict() if ci else None, "family": m.family,
                            "cutoff": m.cutoff}
    return RunDocument({
        "name": r.run.name, "path": r.run.path, "sha256": r.run.sha256,
        "queries": {"in_run": r.run.queries, "shared": r.run.queries - len(ev.unknown),
                    "scored": len(ev.scored),
                    "excluded": list(ev.excluded), "missing": list(ev.missing),
                    "unknown": list(ev.unknown)},
        "measures": measures,
        "audit": r.audit.to_dict(),
        "stages": r.stages.to_dict() if r.stages else None,
        "truth": r.truth.to_dict() if r.truth else None,
    })


def settings_document(settings: Settings, tests: PairedTests | None = None) -> dict[str, Any]:
    """The report's ``settings``: how it was scored, its intervals and (two runs or more) how
    its paired tests were run."""
    return {"k": list(settings.ks), "level": settings.level, "order": settings.order,
            "depth": settings.depth, "gain": settings.gain, "corpus_size": settings.corpus_size,
            "intervals": {"level": CONFIDENCE, "hit": "wilson", "other": "bootstrap",
                          "resamples": RESAMPLES, "seed": SEED},
            "tests": tests.settings() if tests else None}


def distinct_names(names: Sequence[str]) -> list[str]:
    """The names, a repeated one suffixed #2, #3 (two files named alike in two folders): how
    the report names the runs in its paired tests and its side-by-side table."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out
