"""The score report: one typed document (:class:`ScoreReport`), four renderings.

Its fields are the top-level keys of ``poolkit score --format json`` (an API: same keys, same
order; shape in :mod:`poolkit.score.document`); table, JSON, CSV and Markdown are renderings
of that one document (:mod:`poolkit.score.render`), so no format can state a different
number. The score verb (:func:`poolkit.app.score.score_runs`) builds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from poolkit import __version__
from poolkit.io import Qrels
from poolkit.reports import STDERR, Report, register_report
from poolkit.score import render
from poolkit.score.audit import Failure
from poolkit.score.circularity import circular_line
from poolkit.score.document import (
    RunDocument,
    RunResult,
    Settings,
    distinct_names,
    labels_identity,
    report_date,
    settings_document,
)

if TYPE_CHECKING:
    from poolkit.score.sample_check import SampleCheck
    from poolkit.score.significance import PairedTests


@register_report
@dataclass(frozen=True)
class ScoreReport(Report):
    """Every run's measures, intervals and audit against one set of labels (and the paired
    tests between the runs, two runs or more). ``report.means()`` for the numbers alone;
    ``report.render(fmt, per_query=..., verbose=...)`` for the text ``poolkit score`` prints."""

    kind = "score"
    formats = ("table", "json", "csv", "markdown")

    poolkit_version: str
    date: str
    settings: dict[str, Any]
    qrels: dict[str, Any]
    truth: dict[str, Any] | None
    runs: list[RunDocument]
    fail_on: dict[str, Any]
    tests: dict[str, Any]
    #: what the sample design says of the labels (``--sample``; :mod:`poolkit.score.sample_check`)
    sample: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})
    #: one line per run whose queries hardly match the labels' (:mod:`poolkit.score.mismatch`),
    #: and one for labels outside the corpus coverage is measured against
    warnings: tuple[str, ...] = field(default=(), metadata=STDERR)
    #: ``--judge-family``: the runs of the labels' judge's model family (``circularity``)
    circular_runs: list[dict[str, Any]] | None = field(default=None,
                                                       metadata={"omit_none": True})

    @classmethod
    def build(cls, settings: Settings, qrels: Qrels, results: Sequence[RunResult], *,
              truth: Qrels | None = None, conditions: Sequence[str] = (),
              failures: Sequence[Failure] = (),
              tests: PairedTests | None = None,
              sample: SampleCheck | None = None,
              notes: Sequence[str] = (),
              circular: list[dict[str, Any]] | None = None) -> ScoreReport:
        """The report of ``results``; ``tests`` are the paired tests (two runs or more);
        ``notes``, further warnings (the labels against ``--corpus``)."""
        return cls(
            poolkit_version=__version__,
            date=report_date(),
            settings=settings_document(settings, tests),
            qrels=labels_identity(qrels),
            truth=labels_identity(truth) if truth else None,
            runs=[r.document() for r in results],
            fail_on={"conditions": list(conditions),
                     "failed": [f.to_dict() for f in failures]},
            tests=tests.to_dict() if tests else {},
            sample=sample.to_dict() if sample else None,
            warnings=(*(sample.lines() if sample else ()),
                      *(r.run.mismatch.warning for r in results
                        if r.run.mismatch is not None and r.run.mismatch.warning),
                      *notes, *map(circular_line, circular or ())),
            circular_runs=circular,
        )

    @staticmethod
    def prepare_run(result: RunResult, fmt: str) -> None:
        """Build what rendering ``fmt`` will need of one run, ahead of the rest (on the
        thread that scored it, while later runs are read)."""
        render.PREPARE.get(fmt, render.document_only)(result.document())

    def means(self) -> dict[str, dict[str, float]]:
        """Run name -> measure -> mean, in report order (a repeated name suffixed #2, ...)."""
        names = distinct_names([run["name"] for run in self.runs])
        return {name: {m: v["mean"] for m, v in run["measures"].items()}
                for name, run in zip(names, self.runs)}

    @property
    def failures(self) -> list[Mapping[str, Any]]:
        """The ``--fail-on`` conditions that held (each with its one-line ``message``)."""
        return list(self.fail_on["failed"])

    def render_table(self, per_query: bool = False, verbose: bool = False) -> str:
        """What fits an 80-column terminal; ``verbose`` (``per_query`` implies it): every
        run's block, each query's audit and the paired tests' matrices."""
        if not (verbose or per_query):
            from poolkit.score.render_brief import render_brief

            return render_brief(self.to_dict())
        return render.render_table(self.to_dict(), per_query)

    def render_json(self, per_query: bool = False) -> str:
        """Every per-query value whatever ``per_query`` says: JSON is for programs."""
        return render.render_json(self.to_dict(), per_query)

    def render_csv(self, per_query: bool = False) -> str:
        return render.render_csv(self.to_dict(), per_query)

    def render_markdown(self, per_query: bool = False) -> str:
        """Every run's block, as ``verbose`` tables are (a document, not a terminal)."""
        return render.render_markdown(self.to_dict(), per_query)
