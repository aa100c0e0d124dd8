"""The analysis commands' reports (compare, reusability, agreement, simulate), typed and
registered, and the defaults their command lines show.

Light to import (no NumPy): building a command's parser reads a report's ``formats`` and
these defaults. The computations (``analysis.compare``, ``analysis.reusability``,
``analysis.agreement``, ``pool.simulate``) build the reports; each renders itself, the
renderers and their helpers imported when called. The JSON document is the report's fields
after the header every analysis report opens with (command, poolkit version, date); the table
is a rendering of that same document, so the two formats cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from poolkit.reports import STDERR, Report, register_report

#: measures compare and reusability score when none is asked for
DEFAULT_MEASURES = ("nDCG@10", "AP", "P@10")
#: share of relevant documents found by one run alone above which reusability warns
WARN_UNIQUE = 0.2
#: kappa variants reported for every pair of sources; the agreement flag reads one of them
KAPPAS = {
    "unweighted": "Cohen's kappa, every disagreement equal",
    "linear": "weights |i - j| on the 0-3 scale",
    "quadratic": "weights (i - j)^2 on the 0-3 scale",
    "binary": "unweighted kappa on grade >= level vs below",
}
#: a source whose kappa against the reference is below this is flagged (agreement)
THRESHOLD = 0.6


class AnalysisReport(Report):
    """An analysis report's JSON document: the header (command, poolkit version, date), then
    the fields."""

    def document(self) -> dict[str, Any]:
        from poolkit.analysis.render import header

        return {**header(self.kind), **self.to_dict()}

    def render_json(self, **table_options: Any) -> str:
        """The document as strict JSON; it holds everything the table's options choose from
        (every query, every matrix), so they change nothing here."""
        from poolkit.analysis.render import dumps

        return dumps(self.document())


@register_report
@dataclass(frozen=True)
class CompareReport(AnalysisReport):
    """``poolkit compare``: every run under two label sets (JSON keys = fields). ``tests``,
    ``test_settings`` and ``significance`` are the paired tests under each label set and what
    survived between them (``{}`` / None with a single run)."""

    kind = "compare"

    level: int
    cutoffs: list[int]
    measures: list[str]
    primary: list[str]
    condensed: bool
    before: dict[str, Any]
    after: dict[str, Any]
    contribution: dict[str, Any] | None
    runs: list[dict[str, Any]]
    ranking: dict[str, Any]
    tests: dict[str, Any]
    test_settings: dict[str, Any] | None
    significance: dict[str, Any]
    #: one line per run whose queries hardly match the later labels' (stderr)
    warnings: tuple[str, ...] = field(default=(), metadata=STDERR)

    def render_table(self, per_query: bool = False, verbose: bool = False) -> str:
        """What fits 80 columns; ``verbose``: every measure, the paired tests' matrices;
        ``per_query`` (implies ``verbose``): every query's before and after too (JSON always
        has them)."""
        from poolkit.analysis.compare_table import render_table

        return render_table(self.document(), per_query, verbose)


@register_report
@dataclass(frozen=True)
class ReusabilityReport(AnalysisReport):
    """``poolkit reusability``: leave-one-run/group-out (JSON keys = fields)."""

    kind = "reusability"

    level: int
    measures: list[str]
    labels: dict[str, Any]
    pool: dict[str, Any]
    full: dict[str, dict[str, float]]
    not_pooled: list[str]
    leave_one_run_out: dict[str, Any]
    single_run: dict[str, Any]
    warnings: list[str]
    leave_one_group_out: dict[str, Any] | None
    single_group: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})
    #: pooled sources that are not runs (``pool --find``'s classifier), each left out in turn
    sources: dict[str, Any] = field(default_factory=dict)

    def render_table(self) -> str:
        from poolkit.analysis.reusability_table import render_table

        return render_table(self.document())


@register_report
@dataclass(frozen=True)
class AgreementReport(AnalysisReport):
    """``poolkit agreement``: sources, overlapping pairs, alpha, noisy flags."""

    kind = "agreement"

    scale: list[int]
    level: int
    sources: list[dict[str, Any]]
    pairs: list[dict[str, Any]]
    alpha: dict[str, Any]
    reference: str | None
    reference_default: bool
    flag: dict[str, Any]
    bootstrap: dict[str, Any]
    #: each machine judge version against each person or reference (None: no machine source)
    machines: list[dict[str, Any]] | None = field(default=None, metadata={"omit_none": True})

    def render_table(self, matrices: bool = True) -> str:
        """``matrices``: the confusion matrices too (JSON always has them)."""
        from poolkit.analysis.agreement_table import render_table

        return render_table(self.document(), matrices=matrices)


@register_report
@dataclass(frozen=True)
class SimulateReport(Report):
    """``poolkit simulate``: judging replayed with complete qrels as the assessor (keys as in
    ``pool.simulate``'s docstring); ``qrels`` names the labels, ``plot`` the figure drawn."""

    kind = "simulate"

    level: int
    budgets: list[float]
    measures: list[str]
    stop_rule: dict[str, Any]
    queries: int
    pool: int
    relevant: int
    runs: list[str]
    strategies: dict[str, Any]
    qrels: dict[str, Any]
    plot: str | None = field(default=None, metadata={"omit_none": True})
    #: ``--find``: beyond the pool against deepening (``pool.find_replay``)
    find: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})

    def document(self) -> dict[str, Any]:
        return {"command": self.kind, **self.to_dict()}

    def render_json(self) -> str:
        from poolkit.analysis.render import dumps

        return dumps(self.document())

    def render_table(self) -> str:
        from poolkit.analysis.simulate_render import render_table

        return render_table(self.document())
