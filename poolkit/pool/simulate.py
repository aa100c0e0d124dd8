"""Replay judging with a full qrels file as the assessor (``poolkit simulate``).

For every strategy and query, the strategy is asked for the next passage, the qrels grade it
(a pooled document the qrels lack is grade 0), and so on until the pool is exhausted. The
order does not depend on when one stops, so every budget and the stopping rule are read off
that one replay: budget b judges round(b x n_q) passages of a query whose pool holds n_q
(half rounds up).

JSON shape (``poolkit simulate --format json``; keys may be added, none removed)::

    {"command": "simulate", "level", "budgets": [b...], "measures": [names],
     "stop_rule": {"target", "confidence", "min_judged"}, "queries", "pool", "relevant",
     "strategies": {name: {
        "params": {...},
        "budgets": {"b": {"judged", "relevant_found", "recall", "mean_recall",
                          "tau": {measure: tau}, "interval_coverage"}},
        "stop": {"judged", "relevant_found", "recall", "queries_reaching_target",
                 "share_reaching_target"},
        "judgments_to_recall": {"0.5": n, ...},
        "budget_to_target_share": {"share", "fraction", "judged", "judged_share"},
        "stops": {rule: {"judged", "judged_share", "relevant_found", "recall",
                         "share_reaching_target", "promise",
                         conformal: "calibration_queries", "threshold", "hindsight", "draws"}},
                         (with --stop)
        "curve": {"judged": [...], "relevant_found": [...]},
        "per_query": {qid: {"pool", "relevant", "stop": {"judged", "relevant_found"},
            "budgets": {"b": {"judged", "relevant_found",
                              "remaining_estimate": {"value", "low", "high"},
                              "remaining_true"}}}}}}}

``recall`` is relevant found over relevant in the pool, summed over queries; ``mean_recall``
averages it over queries with a relevant pooled document. ``tau`` is Kendall's tau between
the runs' ordering by a measure (``poolkit score`` semantics, ``evaluate``) under the labels
judged so far and under the full labels of the pool. ``judgments_to_recall[R]`` is the
judgments, summed over queries, until each query has found a share R of its pooled relevant
documents: the cost of equal recall. ``budget_to_target_share`` is the smallest fraction of
every query's pool at which 90% of the queries reach the stopping rule's target recall, and
what that fixed budget judges: what a stopping rule has to beat.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from poolkit.errors import PoolkitError
from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.pool.learners import Judged, grades_in, is_relevant
from poolkit.pool.order import OrderStrategy
from poolkit.pool.provenance import pools_from_runs
from poolkit.pool.remaining import StopRule, estimate_remaining
from poolkit.pool.stopping import StoppingRule, judgments_to_target
from poolkit.pool.view import QueryPool
from poolkit.score.evaluate import evaluate
from poolkit.score.measures import Measure, parse_measure

__all__ = ["pools_from_runs", "replay", "simulate", "parse_budgets", "budget_count"]

DEFAULT_BUDGETS = ("0.1", "0.25", "0.5", "0.75", "1")
DEFAULT_MEASURES = ("nDCG@10", "AP")
RECALL_TARGETS = (0.5, 0.8, 0.9, 0.95, 1.0)
CURVE_STEPS = 50
#: the share of queries ``budget_to_target_share`` asks to reach the stopping target
TARGET_SHARE = 0.9


def parse_budgets(text: str, flag: str = "--budgets") -> list[tuple[str, float]]:
    """``0.1,0.25`` -> [("0.1", 0.1), ("0.25", 0.25)]: each a fraction in (0, 1], as typed
    (``flag`` names the option in errors)."""
    out: list[tuple[str, float]] = []
    for item in (t.strip() for t in text.split(",")):
        try:
            value = float(item)
        except ValueError:
            raise PoolkitError(f"{flag}: {item!r} is not a number (expected fractions of "
                               f"each query's pool in (0, 1], e.g. 0.1,0.25,0.5)") from None
        if not 0 < value <= 1 or math.isnan(value):
            raise PoolkitError(f"{flag}: {item} is not a fraction in (0, 1]")
        if item in dict(out):
            raise PoolkitError(f"{flag}: {item} is given twice")
        out.append((item, value))
    return out


def budget_count(fraction: float, pool_size: int) -> int:
    """round(fraction x pool size), half up."""
    return min(pool_size, int(math.floor(fraction * pool_size + 0.5)))


def replay(strategy: OrderStrategy, pool: QueryPool, grades: Mapping[str, int]) -> list[Judged]:
    """The whole judging sequence of one query under ``strategy`` with ``grades`` assessing.

    The pool is first put in the order the strategy would have stored (its keys, then doc
    id, as ``poolkit pool`` stores it); the strategy then names each next passage."""
    keys = strategy.keys(pool)
    stored = sorted(pool.docs, key=lambda d: (keys[d], d))
    view = replace(pool, docs=tuple(stored))
    judged: dict[str, int] = {}
    for _ in range(len(stored)):
        pending = [d for d in stored if d not in judged]
        doc = strategy.next(view, judged, pending)
        if doc is None:
            break
        if doc not in pending:
            raise PoolkitError(f"strategy {strategy.name!r} offered {doc!r} for query "
                               f"{pool.qid!r}, which is judged already or not pooled")
        judged[doc] = grades.get(doc, 0)
    return grades_in(judged)


@dataclass
class QueryReplay:
    pool: QueryPool
    sequence: list[Judged]
    relevant: int
    stop_at: int


def _stop_index(pool: QueryPool, seq: Sequence[Judged], rule: StopRule, level: int) -> int:
    """Judgments made when the stopping rule first fires (the whole pool if it never does)."""
    for k in range(rule.min_judged, len(seq)):
        if rule.fires(pool, seq[:k], level):
            return k
    return len(seq)


def _labels(replays: Mapping[str, QueryReplay], counts: Mapping[str, int],
            name: str) -> Qrels:
    return Qrels.from_mapping({q: {j.docid: j.grade for j in r.sequence[:counts[q]]}
                               for q, r in replays.items()}, name=name)


def _means(qrels: Qrels, runs: Mapping[str, Run], measures: Sequence[Measure],
           level: int) -> dict[str, list[float]]:
    evs = [evaluate(qrels, run, measures, level=level) for run in runs.values()]
    return {m.name: [ev.means[m.name] for ev in evs] for m in measures}


Tau = Callable[[Sequence[float], Sequence[float]], float]


def simulate(pools: Mapping[str, QueryPool], qrels: Qrels, strategies: Mapping[str, OrderStrategy],
             budgets: Sequence[tuple[str, float]], runs: Mapping[str, Run], *, tau: Tau,
             level: int = 1, measures: Sequence[str] = DEFAULT_MEASURES,
             stop_rule: StopRule | None = None,
             stops: Sequence[StoppingRule] = ()) -> dict[str, Any]:
    """The replay report (see the module docstring for its shape). ``tau`` is Kendall's tau
    (``analysis.stats.kendall_tau``, passed in: analysis is a stage beside pool)."""
    if not pools:
        raise PoolkitError("nothing to simulate: the pool is empty")
    rule = stop_rule or StopRule()
    parsed = [parse_measure(m) for m in measures]
    truth = {q: {d: qrels.grades.get(q, {}).get(d, 0) for d in p.docs} for q, p in pools.items()}
    full_labels = Qrels.from_mapping(truth, name="full")
    full_means = _means(full_labels, runs, parsed, level)
    relevant = {q: sum(1 for g in t.values() if g >= level) for q, t in truth.items()}
    total_relevant = sum(relevant.values())
    doc: dict[str, Any] = {
        "command": "simulate", "level": level, "budgets": [v for _, v in budgets],
        "measures": [m.name for m in parsed],
        "stop_rule": asdict(rule),
        "queries": len(pools), "pool": sum(len(p.docs) for p in pools.values()),
        "relevant": total_relevant, "runs": list(runs), "strategies": {}}
    for name, strategy in strategies.items():
        replays = {q: _replay_query(strategy, p, truth[q], relevant[q], rule, level)
                   for q, p in pools.items()}
        doc["strategies"][name] = _strategy_report(
            strategy, replays, budgets, runs, parsed, level, full_means, total_relevant, rule,
            tau)
        if stops:
            doc["strategies"][name]["stops"] = {
                s.name: _stops_report(s, replays, level, total_relevant) for s in stops}
    return doc


def _replay_query(strategy: OrderStrategy, pool: QueryPool, grades: Mapping[str, int],
                  relevant: int, rule: StopRule, level: int) -> QueryReplay:
    seq = replay(strategy, pool, grades)
    return QueryReplay(pool, seq, relevant, _stop_index(pool, seq, rule, level))


def _found(seq: Sequence[Judged], k: int, level: int) -> int:
    return sum(1 for j in seq[:k] if is_relevant(j.grade, level))


def _strategy_report(strategy: OrderStrategy, replays: Mapping[str, QueryReplay],
                     budgets: Sequence[tuple[str, float]], runs: Mapping[str, Run],
                     measures: Sequence[Measure], level: int,
                     full_means: Mapping[str, list[float]], total_relevant: int,
                     rule: StopRule, tau: Tau) -> dict[str, Any]:
    def recall(found: int) -> float:
        return found / total_relevant if total_relevant else math.nan

    per_query: dict[str, Any] = {
        q: {"pool": len(r.pool.docs), "relevant": r.relevant,
            "stop": {"judged": r.stop_at, "relevant_found": _found(r.sequence, r.stop_at, level)},
            "budgets": {}}
        for q, r in replays.items()}
    out: dict[str, Any] = {"params": _params(strategy), "budgets": {}}
    for key, fraction in budgets:
        counts = {q: budget_count(fraction, len(r.pool.docs)) for q, r in replays.items()}
        found_total = covered = 0
        recalls = []
        for q, r in replays.items():
            k = counts[q]
            found = _found(r.sequence, k, level)
            found_total += found
            est = estimate_remaining(r.pool, r.sequence[:k], level)
            true_left = r.relevant - found
            covered += est.low <= true_left <= est.high
            if r.relevant:
                recalls.append(found / r.relevant)
            per_query[q]["budgets"][key] = {
                "judged": k, "relevant_found": found, "remaining_estimate": est.to_dict(),
                "remaining_true": true_left}
        partial = _means(_labels(replays, counts, f"{strategy.name}@{key}"), runs, measures,
                         level)
        out["budgets"][key] = {
            "judged": sum(counts.values()), "relevant_found": found_total,
            "recall": recall(found_total),
            "mean_recall": sum(recalls) / len(recalls) if recalls else math.nan,
            "tau": {m.name: tau(partial[m.name], full_means[m.name]) for m in measures},
            "interval_coverage": covered / len(replays)}
    stop_found = sum(per_query[q]["stop"]["relevant_found"] for q in replays)
    reaching = sum(1 for q, r in replays.items()
                   if r.relevant == 0
                   or per_query[q]["stop"]["relevant_found"] >= rule.target * r.relevant)
    out["stop"] = {"judged": sum(r.stop_at for r in replays.values()),
                   "relevant_found": stop_found, "recall": recall(stop_found),
                   "queries_reaching_target": reaching,
                   "share_reaching_target": reaching / len(replays)}
    out["judgments_to_recall"] = {str(t): _judgments_to_recall(replays, t, level)
                                  for t in RECALL_TARGETS}
    out["budget_to_target_share"] = _budget_to_target_share(replays, rule.target, level)
    out["curve"] = _curve(replays, level)
    out["per_query"] = per_query
    return out


def _stops_report(rule: StoppingRule, replays: Mapping[str, QueryReplay], level: int,
                  total_relevant: int) -> dict[str, Any]:
    """``stops.RULE``: what ``rule`` judges and finds on every query, beside its promise."""
    queries = {q: (r.pool, r.sequence) for q, r in replays.items()}
    judged = found = reaching = 0
    for q, stop in rule.stop_all(queries, level).items():
        r = replays[q]
        judged += stop.judged
        found += stop.relevant_found
        reaching += r.relevant == 0 or stop.relevant_found >= rule.target * r.relevant
    return {"judged": judged, "relevant_found": found,
            "judged_share": judged / sum(len(r.pool.docs) for r in replays.values()),
            "recall": found / total_relevant if total_relevant else math.nan,
            "share_reaching_target": reaching / len(replays), "promise": rule.promise(),
            **rule.details(queries, level)}


def _judgments_to_recall(replays: Mapping[str, QueryReplay], target: float, level: int) -> int:
    total = 0
    for r in replays.values():
        need = math.ceil(target * r.relevant - 1e-9)
        found = 0
        for k, j in enumerate(r.sequence, 1):
            if found >= need:
                break
            found += is_relevant(j.grade, level)
            if found >= need:
                total += k
                break
    return total


def _budget_to_target_share(replays: Mapping[str, QueryReplay], target: float, level: int,
                            share: float = TARGET_SHARE) -> dict[str, Any]:
    """The smallest fraction f of every query's pool at which a ``share`` of the queries
    reach recall ``target`` (the ceil(share x Q)-th smallest of each query's judgments to
    the target over its pool), and what judging f of every pool costs: the fixed budget a
    stopping rule must beat."""
    need = sorted(judgments_to_target(r.sequence, target, level) / len(r.pool.docs)
                  if r.pool.docs else 0.0 for r in replays.values())
    f = need[max(0, math.ceil(share * len(need) - 1e-9) - 1)]
    judged = sum(budget_count(f, len(r.pool.docs)) for r in replays.values())
    return {"share": share, "fraction": f, "judged": judged,
            "judged_share": judged / max(1, sum(len(r.pool.docs) for r in replays.values()))}


def _curve(replays: Mapping[str, QueryReplay], level: int) -> dict[str, list[int]]:
    judged, found = [0], [0]
    for step in range(1, CURVE_STEPS + 1):
        fraction = step / CURVE_STEPS
        counts = {q: budget_count(fraction, len(r.pool.docs)) for q, r in replays.items()}
        judged.append(sum(counts.values()))
        found.append(sum(_found(r.sequence, counts[q], level) for q, r in replays.items()))
    return {"judged": judged, "relevant_found": found}


def _params(strategy: OrderStrategy) -> dict[str, Any]:
    """The strategy's declared parameters (config keys under ``pool:``) and their values."""
    return {p.key: getattr(strategy, p.target) for p in strategy.params}
