"""The sample-replay verb: replay sampled pooling against complete labels, for bias,
interval coverage and ranking tau.

With a collection whose qrels stand in for the truth (TREC DL 2019: six runs, NIST's
qrels), every design is replayed as if an assessor judged only what it selects:

* **sample**: the depth-``depth`` pool stratified by best rank (``poolkit.pool.sample``), one
  draw per seed; the drawn pairs get their true grade (a pair the truth never judged is
  non-relevant, as it is in the truth's own scores), the rest of the pool is -1. MAP is
  estimated by xinfAP (and statAP), nDCG@10 by infNDCG@10, each mean with its bootstrap
  interval over queries.
* **depth-k** at the same cost: the depth-k pool whose size is closest to the sample's mean
  number of judgments, judged in full, scored with AP and nDCG@10 (unjudged = non-relevant).

Per run: the bias of the mean over seeds against the truth's value, how often the 95%
interval covers the truth, and Kendall's tau of the system ordering against the truth's.

``sample_replay(SampleReplayRequest(folder))`` reads the folder and returns the
:class:`SampleReplayReport` (Markdown tables); :func:`replay` is the analysis on runs and
labels in memory. It combines a pool design with analysis statistics, two stages that do not
import each other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from poolkit.analysis.stats import kendall_tau
from poolkit.app.inputs import comma_numbers
from poolkit.app.score import require_positive
from poolkit.errors import PoolkitError
from poolkit.io.qrels import read_qrels
from poolkit.io.run import Run, read_run
from poolkit.pool.sample import SampleDesign, Stratum, pool_ranks
from poolkit.reports import Report, register_report
from poolkit.score.inferred import PoolSample
from poolkit.score.intervals import bootstrap_means
from poolkit.score.measures import Measure, QueryFacts, parse_measure


@dataclass(frozen=True)
class SampleReplayRequest:
    """The collection folder (qrels.full.txt or qrels.txt, and runs/*.run) and the replay:
    sampling ``rates`` of the pool (fractions in (0, 1], or their spelling ``"0.1,0.2"``),
    ``seeds`` draws per rate, the pool ``depth`` and the relevance ``level`` of MAP."""

    collection: str | Path
    rates: Sequence[float] | str = (0.1, 0.2, 0.3)
    seeds: int = 20
    depth: int = 100
    level: int = 2


def sample_replay(request: SampleReplayRequest) -> SampleReplayReport:
    """Replay every rate of ``request`` over its seeds on its collection's runs."""
    r = request
    for flag, value in (("--seeds", r.seeds), ("--depth", r.depth), ("--level", r.level)):
        require_positive(value, flag)
    rates = _rates(r.rates)
    folder = Path(r.collection)
    qrels_path = folder / "qrels.full.txt"
    if not qrels_path.exists():
        qrels_path = folder / "qrels.txt"
    truth = read_qrels(qrels_path).grades
    runs = {path.stem: read_run(path) for path in sorted((folder / "runs").glob("*.run"))}
    if not runs:
        raise PoolkitError(f"{folder / 'runs'}: no *.run files")
    return SampleReplayReport(replay(runs, truth, rates, range(r.seeds), r.depth, r.level),
                              r.seeds)


def _rates(rates: Sequence[float] | str) -> list[float]:
    out = comma_numbers(rates, float, "--rates", "0.1,0.2")
    if any(not 0 < rate <= 1 for rate in out):
        spelled = rates if isinstance(rates, str) else ",".join(map(str, rates))
        raise PoolkitError(f"--rates {spelled!r}: a rate is a fraction of the pool in (0, 1]")
    return out


#: Stratum shape (best ranks 1-10, 11-30, 31-100) whose rates a sampling rate scales:
#: rate r samples the three at 4r, 1.5r and 0.45r (the top capped at 1), which spends about
#: r of a DL 2019 depth-100 pool's judgments, most of them near the top.
SHAPE = ((1, 10, 4.0), (11, 30, 1.5), (31, 100, 0.45))


def design_for(rate: float, depth: int, seed: int) -> SampleDesign:
    scale = depth / SHAPE[-1][1]
    strata = tuple(Stratum(max(1, round((a - 1) * scale) + 1), round(b * scale),
                           min(1.0, w * rate)) for a, b, w in SHAPE)
    return SampleDesign(depth, strata, seed)


@dataclass
class Cell:
    """One run under one design: estimates over seeds and the truth."""

    truth: float
    estimates: list[float]
    covered: list[bool]
    #: the value with the whole depth-``depth`` pool judged: what the sample estimates
    pool: float = math.nan
    covered_pool: list[bool] | None = None

    @property
    def bias(self) -> float:
        return float(np.mean(self.estimates)) - self.truth

    @property
    def coverage(self) -> float:
        return float(np.mean(self.covered)) if self.covered else math.nan

    @property
    def pool_bias(self) -> float:
        return float(np.mean(self.estimates)) - self.pool

    @property
    def pool_coverage(self) -> float:
        return float(np.mean(self.covered_pool)) if self.covered_pool else math.nan


@dataclass
class RateResult:
    rate: float
    judgments: float  # mean judged pairs per draw, all queries
    depth_k: int
    depth_k_judgments: int
    #: measure -> run -> Cell (sampled estimate) and run -> (value, covered) (depth-k)
    sampled: dict[str, dict[str, Cell]]
    depth: dict[str, dict[str, Cell]]
    #: measure -> taus over seeds (sampled) / the depth-k tau
    taus: dict[str, list[float]]
    depth_taus: dict[str, float]
    pool_depth: int = 100


MEASURES = {"MAP": ("xinfAP", "AP"), "statAP": ("statAP", "AP"),
            "nDCG@10": ("infNDCG@10", "nDCG@10")}


def _mean_and_interval(values: Sequence[float]) -> tuple[float, float, float]:
    means = bootstrap_means(np.asarray(values, dtype=float))[:, 0]
    low, high = np.percentile(means, [2.5, 97.5])
    return float(np.mean(values)), float(low), float(high)


def _scores(runs: Mapping[str, Run], grades: Mapping[str, Mapping[str, int]],
            queries: Sequence[str], measure: Measure, level: int,
            samples: Mapping[str, PoolSample] | None = None) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for name, run in runs.items():
        vals = []
        for q in queries:
            facts = QueryFacts(run.rankings.get(q, []), grades.get(q, {}),
                               samples.get(q) if samples else None)
            vals.append(measure.from_facts(facts, level))
        out[name] = vals
    return out


def replay(runs: Mapping[str, Run], truth: Mapping[str, Mapping[str, int]],
           rates: Sequence[float], seeds: Sequence[int], depth: int = 100,
           level: int = 2) -> list[RateResult]:
    """Replay every rate over every seed (see the module docstring)."""
    queries = [q for q, g in truth.items() if any(v >= level for v in g.values())]
    ranks = {q: pool_ranks({n: r.rankings.get(q, []) for n, r in runs.items()}, depth)
             for q in queries}
    truth_scores = {label: {n: float(np.mean(v)) for n, v in _scores(
        runs, truth, queries, parse_measure(full), level).items()}
        for label, (_, full) in MEASURES.items()}
    full_pool = {q: {d: truth[q].get(d, 0) for d in ranks[q]} for q in queries}
    pool_scores = {label: {n: float(np.mean(v)) for n, v in _scores(
        runs, full_pool, queries, parse_measure(full), level).items()}
        for label, (_, full) in MEASURES.items()}
    names = list(runs)
    results = []
    for rate in rates:
        sampled = {label: {n: Cell(truth_scores[label][n], [], [], pool_scores[label][n], [])
                           for n in names} for label in MEASURES}
        taus: dict[str, list[float]] = {label: [] for label in MEASURES}
        judged_counts = []
        for seed in seeds:
            design = design_for(rate, depth, seed)
            grades: dict[str, dict[str, int]] = {}
            samples: dict[str, PoolSample] = {}
            count = 0
            for q in queries:
                pairs = design.draw(q, ranks[q])
                g = {}
                for p in pairs:
                    g[p.docid] = truth[q].get(p.docid, 0) if p.sampled else -1
                    count += p.sampled
                grades[q] = g
                samples[q] = PoolSample.of(pairs)
            judged_counts.append(count)
            for label, (est, _) in MEASURES.items():
                per_run = _scores(runs, grades, queries, parse_measure(est), level,
                                  samples)
                means = {}
                for n, vals in per_run.items():
                    mean, low, high = _mean_and_interval(vals)
                    cell = sampled[label][n]
                    cell.estimates.append(mean)
                    cell.covered.append(low <= cell.truth <= high)
                    assert cell.covered_pool is not None
                    cell.covered_pool.append(low <= cell.pool <= high)
                    means[n] = mean
                taus[label].append(kendall_tau([means[n] for n in names],
                                                [truth_scores[label][n] for n in names]))
        judgments = float(np.mean(judged_counts))
        k, k_count = _depth_at_cost(ranks, judgments, depth)
        depth_grades = {q: {d: truth[q].get(d, 0) for d, rs in ranks[q].items() if min(rs) <= k}
                        for q in queries}
        depth_cells: dict[str, dict[str, Cell]] = {}
        depth_taus = {}
        for label, (_, full) in MEASURES.items():
            per_run = _scores(runs, depth_grades, queries, parse_measure(full), level)
            depth_cells[label] = {}
            for n, vals in per_run.items():
                mean, low, high = _mean_and_interval(vals)
                t = truth_scores[label][n]
                depth_cells[label][n] = Cell(t, [mean], [low <= t <= high])
            depth_taus[label] = kendall_tau([depth_cells[label][n].estimates[0] for n in names],
                                            [truth_scores[label][n] for n in names])
        results.append(RateResult(rate, judgments, k, k_count, sampled, depth_cells, taus,
                                  depth_taus, depth))
    return results


def _depth_at_cost(ranks: Mapping[str, Mapping[str, Sequence[int]]], judgments: float,
                   depth: int) -> tuple[int, int]:
    """The pool depth k whose depth-k pool size is closest to ``judgments``."""
    best = (1, 0)
    gap = math.inf
    for k in range(1, depth + 1):
        size = sum(1 for r in ranks.values() for rs in r.values() if min(rs) <= k)
        if abs(size - judgments) < gap:
            best, gap = (k, size), abs(size - judgments)
    return best


def _depth_label(results: Sequence[RateResult]) -> str:
    return str(results[0].pool_depth) if results else "?"


@register_report
@dataclass(frozen=True)
class SampleReplayReport(Report):
    """Every rate's replay (:class:`RateResult`) and the seeds per rate; Markdown only."""

    kind = "sample-replay"
    formats = ("markdown",)

    results: list[RateResult]
    seeds: int

    def render_markdown(self) -> str:
        """One table per measure (bias, coverage, depth-k beside), then the taus."""
        results, seeds = self.results, self.seeds
        lines = [f"Sample: {seeds} seeds per rate; truth: the complete qrels; pool: the "
                 f"depth-{_depth_label(results)} pool judged in full (what the sample "
                 f"estimates)."]
        for label, (est, _) in MEASURES.items():
            lines += ["", f"| rate | judged | run | {label} truth | pool | {est} bias | "
                          "vs pool | coverage (truth / pool) | depth-k | depth-k bias |",
                      "|---|---:|---|---:|---:|---:|---:|---:|---|---:|"]
            for r in results:
                for n, cell in r.sampled[label].items():
                    d = r.depth[label][n]
                    lines.append(
                        f"| {r.rate:.0%} | {r.judgments:.0f} | {n} | {cell.truth:.4f} | "
                        f"{cell.pool:.4f} | {cell.bias:+.4f} | {cell.pool_bias:+.4f} | "
                        f"{cell.coverage:.0%} / {cell.pool_coverage:.0%} | k={r.depth_k} "
                        f"({r.depth_k_judgments}) | {d.bias:+.4f} |")
        lines += ["", "Kendall's tau against the truth's system ordering (sample: mean, and "
                      "worst seed in brackets)", "",
                  "| rate | MAP: xinfAP | statAP | depth-k | nDCG@10: infNDCG | depth-k |",
                  "|---|---:|---:|---:|---:|---:|"]
        for r in results:
            def tau(label: str) -> str:
                t = r.taus[label]
                return f"{np.mean(t):.3f} ({min(t):.3f})"

            lines.append(f"| {r.rate:.0%} | {tau('MAP')} | {tau('statAP')} | "
                         f"{r.depth_taus['MAP']:.3f} | {tau('nDCG@10')} | "
                         f"{r.depth_taus['nDCG@10']:.3f} |")
        return "\n".join(lines) + "\n"
