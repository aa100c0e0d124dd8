#!/usr/bin/env python3
"""How far a threshold on a per-query statistic could bring stopping, known in hindsight.

    python tools/stopping_bounds.py --qrels QRELS CONFIG --strategy cal
    python tools/stopping_bounds.py --qrels QRELS RUN... --depth 20 --judged-only \\
        --machine JUDGE.qrels --corpus corpus.jsonl --queries queries.jsonl --strategy cal

The pools and the replayed judging orders are ``poolkit simulate``'s (same two forms). For
every order and statistic, a rule "stop a query at its first judgment k (from
``MIN_JUDGED`` on) where the statistic exceeds t" is given the cheapest t that brings 90% of
the queries to pool recall 0.9, chosen knowing every grade (the 90% quantile of each query's
largest statistic before it reaches the target): the share of the pool it judges is the best
any rule thresholding that statistic can do, before it pays for learning t. The statistics,
each read after k judgments:

- ``dryness``: ``conformal``'s (``stopping.dryness``).
- ``quant``: ``quant``'s estimated recall, found / (found + the classifier's expected
  relevant among the unjudged).
- ``quant-sample``: the same with ``quant-sample``'s prequential scaling (window 10, penalty
  0.01; its random sample's veto left out).
- ``machine``: found / (found + the unjudged the machine judge grades relevant), and
  ``machine-cal``: the machine's count corrected on the query's judged passages, found /
  (found + p x machine-relevant unjudged + q x machine-non-relevant unjudged), p and q the
  shares of judged machine-relevant and machine-non-relevant passages that are relevant (+0.5
  over +1). Only with ``--machine``.

``per-query floor``: a lower bound on what a per-query rule that checks a uniform sample of
the unjudged passages costs (Callaghan and Mueller-Hansen, "Statistical stopping criteria for
automated screening in systematic reviews", Systematic Reviews 2020: stop once the sample makes
"recall below 0.9" unlikely at level 0.1, hypergeometric): each query switches from the order
to sampling at its best point in hindsight and its sample is assumed to find nothing.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

import numpy as np

from poolkit.analysis.inputs import read_runs
from poolkit.app.simulate import SimulateRequest, judged_only, with_guides
from poolkit.collection import Collection
from poolkit.io.readers import read_labels
from poolkit.pool.learners import Judged, is_relevant
from poolkit.pool.order import order_strategy
from poolkit.pool.simulate import TARGET_SHARE, pools_from_runs, replay
from poolkit.pool.stopping import (
    MIN_JUDGED,
    QuantRule,
    SampledQuantRule,
    dryness,
    judgments_to_target,
)
from poolkit.pool.view import QueryPool

TARGET = 0.9
LEVEL = 1
ALPHA = 0.1


def _ratio(found: int, left: float) -> float:
    return found / (found + left) if found else 0.0


def statistics(pool: QueryPool, seq: Sequence[Judged], quant: QuantRule,
               sampled: SampledQuantRule) -> dict[str, list[float]]:
    """Every statistic after k = 0..n judgments of the whole sequence ``seq``."""
    n = len(seq)
    ys = np.array([int(is_relevant(j.grade, LEVEL)) for j in seq])
    out: dict[str, list[float]] = {"dryness": dryness(seq, LEVEL)}
    names = ["quant", "quant-sample"] + (["machine", "machine-cal"] if pool.machine else [])
    out.update({name: [0.0] * (n + 1) for name in names})
    said = np.array([pool.machine.get(j.docid, 0.0) >= LEVEL for j in seq])
    before = [math.nan]
    for k in range(1, n + 1):
        found = int(ys[:k].sum())
        if k < n:
            row, probs = sampled.probabilities(pool, seq[:k], LEVEL)
            left = probs[[row[j.docid] for j in seq[k:]]]
            lo = max(1, k - sampled.window)
            c = (ys[lo:k].sum() + 0.5) / (sum(before[lo:k]) + 0.5)
            before.append(float(probs[row[seq[k].docid]]))
            out["quant"][k] = _ratio(found, quant.expected_left(pool, seq[:k], LEVEL))
            out["quant-sample"][k] = _ratio(found, float(np.clip(c * left, 0, 1).sum()))
        else:
            out["quant"][k] = out["quant-sample"][k] = _ratio(found, 0.0)
        if pool.machine:
            pos, neg = said[:k], ~said[:k]
            p = (ys[:k][pos].sum() + 0.5) / (pos.sum() + 1)
            q = (ys[:k][neg].sum() + 0.5) / (neg.sum() + 1)
            out["machine"][k] = _ratio(found, float(said[k:].sum()))
            out["machine-cal"][k] = _ratio(found, float(p * said[k:].sum()
                                                        + q * (~said[k:]).sum()))
    return out


def hindsight(runs: Sequence[tuple[int, list[float]]]) -> tuple[float, int]:
    """(threshold, judged): the cheapest threshold bringing TARGET_SHARE of the queries to
    the target; ``runs``: (judgments to the target, statistic by k) per query."""
    demands = sorted(max(s[MIN_JUDGED:kt], default=-math.inf) for kt, s in runs)
    t = demands[max(0, math.ceil(TARGET_SHARE * len(demands) - 1e-9) - 1)]
    n = [len(s) - 1 for _, s in runs]
    return t, sum(next((k for k in range(MIN_JUDGED, m) if s[k] > t), m)
                  for m, (_, s) in zip(n, runs, strict=True))


def sample_needed(unjudged: int, missing: int) -> int:
    """Fewest uniform draws from ``unjudged`` passages, all found non-relevant, that reject
    "at least ``missing`` relevant among them" at level ALPHA."""
    if missing > unjudged:
        return 0
    return next(s for s in range(unjudged + 1)
                if math.comb(unjudged - missing, s) / math.comb(unjudged, s) <= ALPHA)


def per_query_floor(seq: Sequence[Judged]) -> int:
    ys = [int(is_relevant(j.grade, LEVEL)) for j in seq]
    best = len(seq)
    for k in range(len(seq) + 1):
        found = sum(ys[:k])
        # recall < TARGET iff at least `missing` relevant are left unjudged
        missing = math.floor(found * (1 - TARGET) / TARGET + 1e-9) + 1
        best = min(best, k + sample_needed(len(seq) - k, missing))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="CONFIG, or run files with --depth")
    ap.add_argument("--qrels", required=True)
    ap.add_argument("--depth", type=int)
    ap.add_argument("--judged-only", action="store_true")
    ap.add_argument("--machine")
    ap.add_argument("--corpus")
    ap.add_argument("--queries")
    ap.add_argument("--strategy", default="cal")
    args = ap.parse_args()
    names = args.strategy.split(",")
    request = SimulateRequest(qrels=args.qrels, inputs=args.inputs, depth=args.depth,
                              strategies=names, machine=args.machine, corpus=args.corpus,
                              queries=args.queries)
    qrels = read_labels(args.qrels)
    config = None
    if args.depth is None:
        with Collection.open(args.inputs[0]) as collection:
            config, pools = collection.config, collection.query_pools()
    else:
        runs = read_runs(args.inputs)
        pools = pools_from_runs(judged_only(runs, qrels) if args.judged_only else runs,
                                args.depth)
    pools = with_guides(pools, request, config)
    settings = dict(config.pool.settings) if config is not None else {}
    quant, sampled = QuantRule(TARGET), SampledQuantRule(TARGET)
    print("| order | statistic | hindsight threshold | judged |")
    print("|---|---|---|---|")
    for name in names:
        strategy = order_strategy(name, settings)
        seqs = {q: (p, replay(strategy, p, {d: qrels.grades.get(q, {}).get(d, 0)
                                            for d in p.docs})) for q, p in pools.items()}
        pool = sum(len(s) for _, s in seqs.values())
        stats = {q: statistics(p, s, quant, sampled) for q, (p, s) in seqs.items()}
        need = {q: judgments_to_target(s, TARGET, LEVEL) for q, (_, s) in seqs.items()}
        for stat in stats[next(iter(stats))]:
            t, judged = hindsight([(need[q], stats[q][stat]) for q in seqs])
            print(f"| {name} | {stat} | {t:.3f} | {judged / pool:.1%} |")
        floor = sum(per_query_floor(s) for _, s in seqs.values())
        print(f"| {name} | per-query floor | | {floor / pool:.1%} |", flush=True)


if __name__ == "__main__":
    main()
