"""The sample-queries verb: draw the queries people are to judge, and record the draw.

The population is the pooled queries of the collection's store. ``stratify_by="machine"``
stratifies them by the machine judge's per-query score: the mean over the collection's runs
of ``measure`` under one version of the judge's labels (``--machine NAME@VERSION``, or
``NAME``: the version the config defines, ``machine_choice``; ``pool.query_sample`` for
the designs); a query the judge's labels do not score is not in that population.
``design="active"`` draws them with probability proportional to the spread of the runs'
scores under the same judge version (``pool.query_sample.draw_active``). The draw
(seed, design, judge version, each query's stratum and inclusion probability) is recorded in
the store: ``poolkit judge --sample`` serves its queries and ``poolkit estimate``'s store form
weights by it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolkit import interrupt
from poolkit.errors import PoolkitError
from poolkit.io.sample import QueryDraw
from poolkit.reports import STDERR, Report, register_report

if TYPE_CHECKING:
    from poolkit.policies import MachineVersion

STRATIFY = ("machine",)
#: the designs ``--design`` names (the others follow from --stratify-by)
CHOSEN = ("active",)
DEFAULT_MEASURE = "nDCG@10"


@dataclass(frozen=True)
class SampleQueriesRequest:
    config: str | Path
    n: int
    seed: int
    stratify_by: str | None = None
    machine: str | None = None
    measure: str = DEFAULT_MEASURE
    level: int | None = None
    #: use a judge version ``check-judge`` marked untrusted (``--accept-untrusted``)
    accept_untrusted: bool = False
    #: ``active``: probability proportional to the spread of the runs' machine scores
    #: (``pool.query_sample``); None: uniform, or stratified by ``stratify_by``
    design: str | None = None


def sample_queries(request: SampleQueriesRequest) -> SampleQueriesReport:
    """Draw and record the human query sample ``request`` asks for."""
    from poolkit.collection import Collection
    from poolkit.pool.query_sample import (
        MachineScores,
        draw_active,
        draw_stratified,
        draw_uniform,
    )

    r = request
    if r.design is not None and r.design not in CHOSEN:
        raise PoolkitError(f"--design {r.design!r}: the one design to name is 'active' "
                           f"(uniform is the default, stratified is --stratify-by machine)")
    if r.stratify_by is not None and r.stratify_by not in STRATIFY:
        raise PoolkitError(f"--stratify-by {r.stratify_by!r}: the one stratifier is 'machine'")
    if r.design == "active" and (r.machine is None or r.stratify_by is not None):
        raise PoolkitError("--design active needs --machine JUDGE (and no --stratify-by)")
    if r.design is None and (r.stratify_by is None) != (r.machine is None):
        raise PoolkitError("--stratify-by machine and --machine JUDGE go together")
    with Collection.open(r.config, write=True) as collection:
        store = collection.store
        population = [q for q in store.queries() if q in {m.qid for m in store.pool()}]
        trust: list[str] = []
        if r.machine is None:
            draw = QueryDraw(r.seed, r.n, len(population), "uniform",
                             draw_uniform(population, r.n, r.seed))
        else:
            level = collection.config.judge.relevance_level if r.level is None else r.level
            trust = collection.trusted([collection.machine_choice().choose(
                r.machine, "--machine")], "--machine", r.accept_untrusted)
            version, per_run = machine_scores(collection, r.machine, r.measure, level)
            per_run = {q: per_run[q] for q in population if q in per_run}
            if r.design == "active":
                drawn = draw_active(MachineScores(per_run), r.n, r.seed)
            else:
                drawn = draw_stratified({q: sum(v) / len(v) for q, v in per_run.items()},
                                        r.n, r.seed)
            draw = QueryDraw(r.seed, r.n, len(per_run), r.design or "stratified", drawn,
                             version.judge, version.version, r.measure)
        number = store.record_query_draw(draw)
        interrupt.done(f"draw {number} recorded")
        label = collection.config.store_label
    return SampleQueriesReport(draw=number, design=draw.design, seed=draw.seed, n=draw.n,
                               population=draw.population, machine=draw.machine,
                               judge_version=draw.judge_version, measure=draw.measure,
                               store=label, trust=tuple(trust),
                               queries=[{"qid": q.qid, "stratum": q.stratum,
                                                      "inclusion": q.inclusion}
                                                     for q in draw.queries])


def machine_scores(collection: Any, judge: str, measure: str, level: int,
                   ) -> tuple[MachineVersion, dict[str, list[float]]]:
    """(the judge version ``judge`` names, qid -> each of the collection's runs' ``measure``
    under that version's labels), each run scored as ``poolkit score`` scores it."""
    from poolkit.app.estimate import machine_qrels
    from poolkit.app.score import ScoreRequest, check, score_run
    from poolkit.score.document import Settings

    shown = check(ScoreRequest(qrels="", runs=["-"], measures=[measure], level=level)).shown
    chosen = collection.machine_choice().choose(judge, "--machine")
    qrels = machine_qrels(chosen)
    totals: dict[str, list[float]] = {}
    settings = Settings(ks=[m.cutoff for m in shown if m.cutoff] or [10], level=level)
    for run in collection.runs().values():
        per = score_run(qrels, run, shown, settings).evaluation.per_query[shown[0].name]
        for q, v in per.items():
            totals.setdefault(q, []).append(v)
    return chosen, totals


@register_report
@dataclass(frozen=True)
class SampleQueriesReport(Report):
    """``poolkit sample-queries``'s report: the draw as recorded."""

    kind = "sample-queries"

    draw: int
    design: str
    seed: int
    n: int
    population: int
    machine: str | None
    judge_version: str | None
    measure: str | None
    store: str
    queries: list[dict[str, Any]] = field(default_factory=list)
    command: str = "sample-queries"
    #: the machine judge version's trust note (``Collection.trusted``), said on stderr
    trust: tuple[str, ...] = field(default=(), metadata=STDERR)

    def render_table(self) -> str:
        from poolkit.tables import table

        how = ("uniformly" if self.design == "uniform" else
               f"in proportion to the spread of the runs' {self.measure} under "
               f"{self.machine}@{self.judge_version}" if self.design == "active" else
               f"stratified by {self.machine}@{self.judge_version}'s per-query {self.measure}")
        head = (f"draw {self.draw}: {self.n} of {self.population} queries, {how}, seed "
                f"{self.seed} (recorded in {self.store}; judge them with poolkit judge "
                f"--sample)")
        rows = [[q["qid"], q["stratum"], f"{q['inclusion']:.3f}"] for q in self.queries]
        return "\n".join([head, *table(["query", "stratum", "inclusion"], rows, "llr",
                                       indent=2)]) + "\n"
