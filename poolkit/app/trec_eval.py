"""The trec-eval verb: trec_eval's output, byte for byte, for every measure it computes from
qrels and a run.

``trec_eval_report(TrecEvalRequest(qrels, run, measures=["map", "P.5,10"], per_query=True))``
reads both files and returns the :class:`TrecEvalReport`, whose one format is trec_eval's text
(conventions in :mod:`poolkit.score.trec_eval`). ``poolkit trec-eval`` is this verb behind
trec_eval's own switches (-q, -c, -n, -J, -l, -M, -N, -m).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from poolkit.errors import PoolkitError
from poolkit.io.formats import read_labels_as, read_run_as, run_tag_of_last_line
from poolkit.reports import STDERR, Report, register_report
from poolkit.score.mismatch import query_mismatch
from poolkit.score.trec_eval import Options, select_measures, trec_eval


@dataclass(frozen=True)
class TrecEvalRequest:
    """The qrels and the run (any accepted format) and trec_eval's switches: ``measures``
    (-m; default ``official``), ``per_query`` (-q), ``complete`` (-c), ``summary`` (not -n),
    ``judged_only`` (-J), ``level`` (-l), ``depth`` (-M) and ``num_docs`` (-N, documents in
    the collection, for utility)."""

    qrels: str | Path
    run: str | Path
    measures: Sequence[str] = ()
    per_query: bool = False
    complete: bool = False
    summary: bool = True
    judged_only: bool = False
    level: int = 1
    depth: int | None = None
    num_docs: int = 0
    qrels_format: str | None = None
    run_format: str | None = None


@register_report
@dataclass(frozen=True)
class TrecEvalReport(Report):
    """trec_eval's stdout for one run (its ``runid`` line from a TREC run's last line)."""

    kind = "trec-eval"
    formats = ("text",)

    text: str
    #: a warning when the run's queries hardly match the qrels' (:mod:`poolkit.score.mismatch`)
    warnings: tuple[str, ...] = field(default=(), metadata=STDERR)

    def render_text(self) -> str:
        return self.text


def trec_eval_report(request: TrecEvalRequest) -> TrecEvalReport:
    """trec_eval's output for the request's run; a TREC run's runid is its last line's tag."""
    r = request
    selection = select_measures([r.measures] if isinstance(r.measures, str) else list(r.measures))
    if r.depth is not None and r.depth < 0:
        raise PoolkitError(f"-M must not be negative, got {r.depth}")
    qrels = read_labels_as(r.qrels, r.qrels_format)
    run, fmt = read_run_as(r.run, r.run_format)
    runid = run_tag_of_last_line(r.run) if fmt == "trec" else None
    opts = Options(complete=r.complete, level=r.level, depth=r.depth, judged_only=r.judged_only,
                   num_docs=r.num_docs)
    mismatch = query_mismatch(qrels.grades, run.rankings, run_name=run.name)
    return TrecEvalReport(trec_eval(qrels, run, selection, opts, per_query=r.per_query,
                                    summary=r.summary, runid=runid),
                          warnings=(mismatch.warning,) if mismatch.warning else ())
