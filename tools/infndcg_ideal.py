#!/usr/bin/env python3
"""Where sample-replay's infNDCG@10 bias comes from: the same draws scored three ways.

    python tools/infndcg_ideal.py FOLDER [--rates 0.1,0.2,0.3] [--seeds 20]

FOLDER is what ``poolkit sample-replay`` reads (qrels.txt or qrels.full.txt, runs/*.run).
For every run and rate, over the same draws as sample-replay's (same designs and seeds): the
bias of the mean infNDCG@10 against the fully judged depth-100 pool; the bias when the
estimated DCG@10 is divided by the pool's true ideal DCG@10 instead of the ideal built from
estimated grade counts; and when that estimated ideal is left unrounded (a fractional count
fills a fraction of its last position). A bias that vanishes with the true ideal is the
ideal's: concave in the estimated counts, so underestimated on average where a query's
relevant documents are few and some lie in a sampled stratum.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from poolkit.app.sample_replay import design_for
from poolkit.io.qrels import read_qrels
from poolkit.io.run import read_run
from poolkit.pool.sample import pool_ranks
from poolkit.score.inferred import Design, PoolSample, inferred_ndcg

K = 10


def ideal_dcg(counts: Mapping[int, float], rounded: bool) -> float:
    """DCG@K of an ideal ranking holding counts[g] documents of grade g."""
    total, pos = 0.0, 0.0
    for g in sorted(counts, reverse=True):
        left = math.floor(counts[g] + 0.5) if rounded else counts[g]
        while left > 1e-12 and pos < K:
            take = min(left, math.floor(pos) + 1 - pos)
            total += g * take / math.log2(math.floor(pos) + 2)
            pos, left = pos + take, left - take
    return total


def estimated_parts(ranking: list[str], grades: dict[str, int],
                    sample: PoolSample) -> tuple[float, dict[int, float]]:
    """infNDCG@K's estimated DCG and its estimated grade counts."""
    design = Design(grades, sample)
    dcg = sum(grades[d] / math.log2(i + 2) / design.rate(design.stratum[d])
              for i, d in enumerate(ranking[:K]) if grades.get(d, -1) > 0)
    counts: dict[int, float] = {}
    for d, g in grades.items():
        if g > 0:
            s = design.stratum[d]
            counts[g] = counts.get(g, 0.0) + design.pooled[s] / design.judged[s]
    return dcg, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--rates", default="0.1,0.2,0.3")
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    qrels = args.folder / "qrels.full.txt"
    truth = read_qrels(qrels if qrels.exists() else args.folder / "qrels.txt").grades
    runs = {p.stem: read_run(p) for p in sorted((args.folder / "runs").glob("*.run"))}
    queries = [q for q, g in truth.items() if any(v >= 2 for v in g.values())]
    ranks = {q: pool_ranks({n: r.rankings.get(q, []) for n, r in runs.items()}, 100)
             for q in queries}
    print(f"{len(queries)} queries; bias of mean infNDCG@{K} against the depth-100 pool")
    print("| rate | run | pool | estimated ideal | true ideal | unrounded ideal |")
    print("|---|---|---:|---:|---:|---:|")
    for rate in (float(r) for r in args.rates.split(",")):
        for name, run in runs.items():
            pool, ways = [], np.zeros(3)
            for q in queries:
                full = {d: truth[q].get(d, 0) for d in ranks[q]}
                true_ideal = ideal_dcg(_counts(full), rounded=True)
                dcg = sum(full.get(d, 0) / math.log2(i + 2)
                          for i, d in enumerate(run.rankings.get(q, [])[:K]))
                pool.append(dcg / true_ideal if true_ideal else 0.0)
            for seed in range(args.seeds):
                design = design_for(rate, 100, seed)
                for q in queries:
                    pairs = design.draw(q, ranks[q])
                    grades = {p.docid: truth[q].get(p.docid, 0) if p.sampled else -1
                              for p in pairs}
                    sample, ranking = PoolSample.of(pairs), run.rankings.get(q, [])
                    dcg, counts = estimated_parts(ranking, grades, sample)
                    full = {d: truth[q].get(d, 0) for d in ranks[q]}
                    ideals = (ideal_dcg(_counts(full), True), ideal_dcg(counts, False))
                    ways += [inferred_ndcg(ranking, grades, K, None, sample),
                             *(dcg / i if i else 0.0 for i in ideals)]
            means = ways / (args.seeds * len(queries)) - np.mean(pool)
            print(f"| {rate:.0%} | {name} | {np.mean(pool):.4f} | "
                  + " | ".join(f"{m:+.4f}" for m in means) + " |")


def _counts(grades: Mapping[str, int]) -> dict[int, float]:
    out: dict[int, float] = {}
    for g in grades.values():
        if g > 0:
            out[g] = out.get(g, 0.0) + 1
    return out


if __name__ == "__main__":
    main()
