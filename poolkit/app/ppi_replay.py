"""The ppi-replay verb: prediction-powered estimates replayed against complete labels.

FULL qrels stand in for the truth: ``poolkit score``'s value of every run and measure on
the truth's scored queries (those with a grade >= ``level``; per-query values from the same
measure code, ``Measure.from_facts``). For each n and each of ``seeds`` draws, people
"judge" a sample drawn from the truth and the machine's qrels label everything:

* ``queries``: n queries uniformly without replacement, judged in full; the estimate is
  PPI++ (:func:`poolkit.score.ppi.ppi_mean_many`; t quantile below 30 queries).
* ``pairs``: the same number of human judgments (n times the mean pairs per query) spread
  over every query, stratified by the machine's grade (:mod:`poolkit.score.ppi_pairs`). n
  is then a budget in queries' worth of judgments, not the queries people see: each
  result's ``human_queries`` says those (every query with a pair to draw).
* ``active`` and ``strat``: the same budget in two rounds (:mod:`poolkit.score.ppi_designs`):
  round 1's allocation from the machine's view alone (``active``: a prior that favours the
  runs' top ranks and the grades at the relevance level's edge; ``strat``: a small
  proportional pilot), round 2's by Neyman allocation from the spread of the human-minus-
  machine grades round 1 found per cell (machine grade x top band, x the query's group in
  ``strat``); the estimators are the pair design's, the rounds combined with fixed
  coefficients. Each draw is made one seed at a time (round 2 depends on round 1).

``calibrate`` (query design only): the machine's value of a query is its metric under the
machine's grades recalibrated to the people's, cross-fitted on the draw's human queries
(:mod:`poolkit.score.ppi_calibrate`), refitted for every draw. ``lambda_max`` (query design
only): the tuned lambda's upper clip (:func:`poolkit.score.ppi.tuned_lambda`; 1 by default).

Human-only at the same effort is always the query design's classical interval (lam = 0) on
the same n queries. Reported per n and measure: per run the bias of the mean estimate,
coverage and mean width of the 95% interval; Kendall's tau of the runs' order against the
truth's (estimate, machine-only, human-only; mean over draws); and over every pair of runs
the coverage and width of the difference's interval and the share of the truth's
significant differences (paired, all queries human-judged, Holm-adjusted p < 0.05) that an
estimate finds (adjusted p < 0.05, same sign).

A query the truth scores that the machine never labelled gets the machine's value 0 (its
machine-only figures count it so; the query design's estimate corrects that prediction as
any other, the pair design draws its pairs from the stratum of pairs the machine did not
grade): a warning (stderr, and ``warnings`` in the JSON) names how many and which.

Every seed's draw comes from one generator seeded by (n, design), so a replay is the same
on every machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from poolkit.errors import PoolkitError, one_of
from poolkit.reports import Report, register_report

if TYPE_CHECKING:  # the verb imports them when it runs: building the parser stays cheap
    from poolkit.io.run import Run
    from poolkit.score.measures import Measure
    from poolkit.score.ppi import PPIBatch
    from poolkit.score.ppi_calibrate import Calibration, SoftMetric
    from poolkit.score.ppi_pairs import PairInterval, QueryPool

DESIGNS = ("queries", "pairs", "active", "strat")
#: the designs that draw pairs (nDCG@K and AP only)
PAIR_DESIGNS = DESIGNS[1:]
ALPHA = 0.05
PathLike = str | Path


@dataclass(frozen=True)
class PPIReplayRequest:
    """FULL qrels (the truth), the machine's qrels and the runs; the replay's settings."""

    qrels: PathLike
    machine: PathLike
    runs: Sequence[PathLike]
    n: Sequence[int] | str = (5, 10, 20)
    seeds: int = 50
    design: str = "queries"
    measures: Sequence[str] | str = ("nDCG@10", "AP")
    level: int = 2
    calibrate: bool = False
    lambda_max: float = 1.0


@dataclass(frozen=True)
class _Inputs:
    names: list[str]
    queries: list[str]
    #: measure name -> (truth, machine) per-query values, runs x queries
    values: dict[str, tuple[np.ndarray, np.ndarray]]
    pools: list[QueryPool]  # per query (pair design)
    sizes: np.ndarray  # pairs per query (truth's or machine's)
    #: measure name -> (soft metric, calibration pairs) when calibrated
    calibrated: dict[str, tuple[SoftMetric, Calibration]] = field(default_factory=dict)


def ppi_replay(request: PPIReplayRequest) -> PPIReplayReport:
    """Replay ``request`` (module docstring)."""
    from poolkit.app.score import require_positive
    from poolkit.io import read_any_run, read_labels
    from poolkit.score.measures import parse_measure
    from poolkit.score.ppi import check_lam_max
    from poolkit.score.ppi_calibrate import check_measure as calibrated_measure
    from poolkit.score.ppi_pairs import check_measure

    r = request
    require_positive(r.seeds, "--seeds")
    require_positive(r.level, "--level")
    if r.design not in DESIGNS:
        raise PoolkitError("--design " + one_of(r.design, DESIGNS, "design"))
    ns = _numbers(r.n)
    measures = [parse_measure(t) for t in _texts(r.measures)]
    who = "pair" if r.design == "pairs" else r.design
    if r.design in PAIR_DESIGNS:
        for m in measures:
            check_measure(m, f"the {who} design estimates")
        if r.calibrate:
            raise PoolkitError(f"--calibrate: the {who} design already corrects every "
                               f"pair; calibrate is the query design's")
    if r.calibrate:
        for m in measures:
            calibrated_measure(m)
    lambda_max = check_lam_max(r.lambda_max, "--lambda-max")
    if r.design in PAIR_DESIGNS and lambda_max != 1.0:
        raise PoolkitError(f"--lambda-max: the {who} design tunes no lambda; it is the "
                           f"query design's")
    if len(r.runs) < 2:
        raise PoolkitError("ppi-replay orders and compares runs: give two RUNs or more")
    truth, machine = read_labels(r.qrels), read_labels(r.machine)
    runs = [read_any_run(p) for p in r.runs]
    names = [run.name for run in runs]
    if len(set(names)) < len(names):
        raise PoolkitError(f"two runs have the same name: {', '.join(names)}")
    queries = [q for q, g in truth.grades.items() if any(v >= r.level for v in g.values())]
    if not queries:
        raise PoolkitError(f"{r.qrels}: no query has a grade >= {r.level} (lower --level)")
    if max(ns) > len(queries):
        raise PoolkitError(f"--n {max(ns)}: the truth scores only {len(queries)} queries")
    inputs = _inputs(truth.grades, machine.grades, runs, names, queries, measures, r.level,
                     r.calibrate)
    results = [_replay_n(inputs, r, n, m) for n in ns for m in measures]
    return PPIReplayReport(design=r.design, level=r.level, seeds=r.seeds,
                           queries=len(queries), runs=names, results=results,
                           calibrate=r.calibrate, lambda_max=lambda_max,
                           warnings=_unlabelled(queries, machine.grades))


def _unlabelled(queries: Sequence[str], machine: Mapping[str, Mapping[str, int]]) -> list[str]:
    """The warning for the truth's scored queries the machine never labelled (module
    docstring), or none."""
    from poolkit.app.estimate import listed

    missing = [q for q in queries if not machine.get(q)]
    if not missing:
        return []
    return [f"warning: {len(missing)} of the {len(queries)} queries the truth scores "
            f"{'has' if len(missing) == 1 else 'have'} no machine label ({listed(missing)}): "
            f"the machine's value there is 0, in its machine-only figures and as the "
            f"prediction the estimate corrects"]


def _texts(value: Sequence[str] | str) -> list[str]:
    parts = value.split(",") if isinstance(value, str) else [
        p for v in value for p in v.split(",")]
    out = [p.strip() for p in parts if p.strip()]
    if not out:
        raise PoolkitError("-m: no measure given (e.g. -m nDCG@10,AP)")
    return list(dict.fromkeys(out))


def _numbers(value: Sequence[int] | str) -> list[int]:
    from poolkit.app.inputs import comma_numbers

    ns = comma_numbers(value, int, "--n", "5,10,20")
    if any(n < 2 for n in ns):
        spelled = value if isinstance(value, str) else ",".join(map(str, value))
        raise PoolkitError(f"--n {spelled!r}: an interval needs at least 2 human queries")
    return list(dict.fromkeys(ns))


def _inputs(truth: Mapping[str, Mapping[str, int]], machine: Mapping[str, Mapping[str, int]],
            runs: Sequence[Run], names: list[str], queries: list[str],
            measures: Sequence[Measure], level: int, calibrate: bool = False) -> _Inputs:
    """Per-query values of every run under both label sets, computed once; each query's
    population of pairs for the pair design; the soft metrics when calibrated."""
    from poolkit.score.measures import QueryFacts
    from poolkit.score.ppi_calibrate import calibrated
    from poolkit.score.ppi_pairs import QueryPool

    values = {}
    for m in measures:
        t = [[m.from_facts(QueryFacts(run.rankings.get(q, []), truth[q]), level)
              for q in queries] for run in runs]
        mm = [[m.from_facts(QueryFacts(run.rankings.get(q, []), machine.get(q, {})), level)
               for q in queries] for run in runs]
        values[m.name] = (np.array(t), np.array(mm))
    pools = [QueryPool.of(truth[q], machine.get(q, {}),
                          {n: run.rankings.get(q, []) for n, run in zip(names, runs)})
             for q in queries]
    soft = {m.name: calibrated(m, [run.rankings for run in runs], machine, truth, queries, level)
            for m in measures} if calibrate else {}
    return _Inputs(names, queries, values, pools, np.array([p.size for p in pools]), soft)


@dataclass(frozen=True)
class _Intervals:
    """Per seed (columns) and run or pair (rows): estimates, bounds, p-values."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    p: np.ndarray | None = None


def _query_design(truth: np.ndarray, machine: np.ndarray, draws: np.ndarray,
                  lam: float | None, lam_max: float = 1.0) -> tuple[_Intervals, _Intervals]:
    """PPI++ (lam None, tuned in [0, lam_max]) or human-only (lam 0) for every run and every
    pair of runs."""
    from poolkit.score.ppi import ppi_mean_many

    def one(t: np.ndarray, m: np.ndarray) -> PPIBatch:
        return ppi_mean_many(m, t[draws], m[draws], lam=lam, lam_max=lam_max)

    runs = [one(t, m) for t, m in zip(truth, machine)]
    pairs = [one(truth[a] - truth[b], machine[a] - machine[b])
             for a, b in combinations(range(len(truth)), 2)]
    return _stacked(runs), _stacked(pairs, np.array([b.p_values() for b in pairs]))


def _calibrated_design(truth: np.ndarray, soft: SoftMetric, calibration: Calibration,
                       draws: np.ndarray, lam_max: float) -> tuple[_Intervals, _Intervals]:
    """PPI++ on the cross-fitted recalibrated machine values, refitted for every draw."""
    rows = [_query_design(truth, calibration.cross_fit(soft, d), d[None, :], None, lam_max)
            for d in draws]

    def joined(parts: list[_Intervals]) -> _Intervals:
        def cat(key: str) -> np.ndarray:
            return np.concatenate([getattr(iv, key) for iv in parts], axis=1)

        return _Intervals(cat("estimate"), cat("low"), cat("high"),
                          None if parts[0].p is None else cat("p"))

    return joined([r[0] for r in rows]), joined([r[1] for r in rows])


def _stacked(rows: Sequence[Any], p: np.ndarray | None = None) -> _Intervals:
    """One row per run or pair from objects with ``estimate``, ``low`` and ``high``."""
    return _Intervals(np.array([r.estimate for r in rows]), np.array([r.low for r in rows]),
                      np.array([r.high for r in rows]), p)


def _pair_design(inputs: _Inputs, design: str, measure: Measure, budget: int, seeds: int,
                 level: int, rng: np.random.Generator,
                 ) -> tuple[_Intervals, _Intervals, float, int]:
    """A pair design's (``pairs``, ``active``, ``strat``) estimate for every run and pair
    of runs, the judgments made (mean over seeds) and the queries they were made in."""
    from poolkit.score.ppi import two_sided_p
    from poolkit.score.ppi_designs import two_rounds
    from poolkit.score.ppi_pairs import Draw, Rounds, combine, draw, estimate_query

    rounds: list[Sequence[Draw | Rounds]]
    if design == "pairs":
        rounds = [[draw(pool, budget, seeds, rng) for pool in inputs.pools]]
    else:  # two rounds, the second's allocation from the first's labels: one seed at a time
        rounds = [two_rounds(design, inputs.pools, budget, level, rng) for _ in range(seeds)]
    runs, pairs = [], []
    for draws in rounds:
        per_run = [[estimate_query(measure, pool, name, d, level)
                    for pool, d in zip(inputs.pools, draws)] for name in inputs.names]
        runs.append([combine(list(zip(est, draws))) for est in per_run])
        pairs.append([combine(list(zip(per_run[a], draws)), minus=per_run[b])
                      for a, b in combinations(range(len(per_run)), 2)])
    run_iv, pair_iv = _joined(runs), _joined(pairs)
    p = np.array([[two_sided_p(float(e), float(s), None) for e, s in zip(est, se)]
                  for est, se in zip(pair_iv[0], pair_iv[1])])
    judged = np.array([[d.judged for d in draws] for draws in rounds])
    queries = (judged > 0).sum(axis=1)
    return (_Intervals(*_pair_rows(run_iv)), _Intervals(*_pair_rows(pair_iv), p),
            float(judged.sum(axis=1).mean()), int(round(float(queries.mean()))))


def _joined(rounds: Sequence[Sequence[PairInterval]]) -> tuple[np.ndarray, np.ndarray]:
    """(estimates, standard errors), rows runs or pairs, columns seeds, of each round of
    draws' intervals side by side."""
    return (np.concatenate([[iv.estimate for iv in ivs] for ivs in rounds], axis=1),
            np.concatenate([[iv.se for iv in ivs] for ivs in rounds], axis=1))


def _pair_rows(iv: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimates and the normal 95% bounds of (estimates, standard errors)."""
    from poolkit.score.ppi import CONFIDENCE, normal_ppf

    est, se = iv
    half = normal_ppf(1.0 - (1.0 - CONFIDENCE) / 2.0) * se
    return est, est - half, est + half


def _replay_n(inputs: _Inputs, r: PPIReplayRequest, n: int,
              measure: Measure) -> dict[str, Any]:
    """One n and one measure: the table row's figures (module docstring)."""
    truth, machine = inputs.values[measure.name]
    N = truth.shape[1]
    rng = np.random.default_rng([n, DESIGNS.index(r.design)])
    draws = np.argsort(rng.random((r.seeds, N)), axis=1)[:, :n]
    human, human_pairs = _query_design(truth, machine, draws, 0.0)
    judgments, judged_queries = float(inputs.sizes[draws].sum(axis=1).mean()), n
    if r.design == "queries" and r.calibrate:
        est, est_pairs = _calibrated_design(truth, *inputs.calibrated[measure.name], draws,
                                            r.lambda_max)
    elif r.design == "queries":
        est, est_pairs = _query_design(truth, machine, draws, None, r.lambda_max)
    else:
        budget = round(n * float(inputs.sizes.mean()) / N)  # n queries' pairs, expected
        est, est_pairs, judgments, judged_queries = _pair_design(
            inputs, r.design, measure, budget, r.seeds, r.level, rng)
    return _figures(inputs.names, truth, machine, est, est_pairs, human, human_pairs,
                    (n, judged_queries), measure.name, judgments)


def _adjusted(p: np.ndarray) -> np.ndarray:
    from poolkit.score.significance import holm

    return np.array([holm(col) for col in p.T]).T


def _figures(names: list[str], truth: np.ndarray, machine: np.ndarray, est: _Intervals,
             est_pairs: _Intervals, human: _Intervals, human_pairs: _Intervals,
             effort: tuple[int, int], measure: str, judgments: float) -> dict[str, Any]:
    """``effort``: n (``--n``) and the queries people judged in (n, or in the pair design
    every query a pair was drawn from)."""
    from poolkit.analysis.stats import kendall_tau
    from poolkit.score.ppi import ppi_mean_many

    true = truth.mean(axis=1)
    ideal = np.arange(truth.shape[1])[None, :]
    pairs = list(combinations(range(len(names)), 2))
    true_diff = np.array([true[a] - true[b] for a, b in pairs])
    full = [ppi_mean_many(truth[a] - truth[b], (truth[a] - truth[b])[ideal],
                          (truth[a] - truth[b])[ideal], lam=0.0).p_values()[0] for a, b in pairs]
    significant = np.array(_adjusted(np.array(full)[:, None])[:, 0] < ALPHA)

    def covered(iv: _Intervals, target: np.ndarray) -> np.ndarray:
        return (iv.low <= target[:, None]) & (target[:, None] <= iv.high)

    def found(iv: _Intervals) -> float | None:
        if not significant.any():
            return None
        assert iv.p is not None
        hit = (_adjusted(iv.p) < ALPHA) & (np.sign(iv.estimate) == np.sign(true_diff)[:, None])
        return float(hit[significant].mean())

    def tau(values: np.ndarray) -> float:
        return float(np.mean([kendall_tau(list(col), list(true)) for col in values.T]))

    width, hwidth = (est.high - est.low).mean(axis=1), (human.high - human.low).mean(axis=1)
    pw = (est_pairs.high - est_pairs.low).mean()
    phw = (human_pairs.high - human_pairs.low).mean()
    runs = {name: {"truth": float(true[i]), "machine": float(machine[i].mean()),
                   "estimate": float(est.estimate[i].mean()),
                   "bias": float(est.estimate[i].mean() - true[i]),
                   "coverage": float(covered(est, true)[i].mean()), "width": float(width[i]),
                   "human_bias": float(human.estimate[i].mean() - true[i]),
                   "human_coverage": float(covered(human, true)[i].mean()),
                   "human_width": float(hwidth[i]), "width_ratio": float(width[i] / hwidth[i])}
            for i, name in enumerate(names)}
    n, human_queries = effort
    return {
        "n": n, "human_queries": human_queries, "measure": measure, "judgments": judgments,
        "runs": runs,
        "summary": {
            "max_abs_bias": float(max(abs(v["bias"]) for v in runs.values())),
            "machine_max_abs_bias": float(np.max(np.abs(machine.mean(axis=1) - true))),
            "coverage": float(covered(est, true).mean()),
            "human_coverage": float(covered(human, true).mean()),
            "width": float(width.mean()), "human_width": float(hwidth.mean()),
            "width_ratio": float(width.mean() / hwidth.mean()),
            "max_width_ratio": float(max(v["width_ratio"] for v in runs.values())),
            "tau": {"estimate": tau(est.estimate), "machine": tau(machine.mean(axis=1)[:, None]),
                    "human": tau(human.estimate)}},
        "pairs": {
            "coverage": float(covered(est_pairs, true_diff).mean()),
            "human_coverage": float(covered(human_pairs, true_diff).mean()),
            "width": float(pw), "human_width": float(phw), "width_ratio": float(pw / phw),
            "significant": int(significant.sum()), "of": len(pairs),
            "found": found(est_pairs), "human_found": found(human_pairs)},
    }


@register_report
@dataclass(frozen=True)
class PPIReplayReport(Report):
    """The replay's settings and one result per n and measure (``_figures``' keys)."""

    kind = "ppi-replay"
    formats = ("table", "json")

    design: str
    level: int
    seeds: int
    queries: int
    runs: list[str]
    results: list[dict[str, Any]] = field(default_factory=list)
    #: the machine's grades recalibrated to the people's, cross-fitted (query design)
    calibrate: bool = False
    #: the tuned lambda's upper clip (query design; 1 is ppi-python's)
    lambda_max: float = 1.0
    #: lines said on stderr too, one each (module docstring)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"command": self.kind, **super().to_dict()}

    def render_table(self) -> str:
        from poolkit.app.ppi_replay_table import replay_table

        return replay_table(self)
