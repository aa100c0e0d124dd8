"""Score a TREC run with pytrec_eval: its own parsers, its C evaluator; means as JSON.

trec_eval has no cutoff on reciprocal rank, so RR@10 is recip_rank over each ranking's top 10
in trec_eval's own order (score descending, ties by doc id descending), as a user would do it.
"""

from __future__ import annotations

import heapq
import json
import sys

import pytrec_eval

TREC = {"P@10": "P_10", "R@100": "recall_100", "AP": "map", "nDCG@10": "ndcg_cut_10"}


def main(qrels_path: str, run_path: str) -> None:
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(TREC.values())).evaluate(run)
    top10 = {q: dict(heapq.nlargest(10, docs.items(), key=lambda kv: (kv[1], kv[0])))
             for q, docs in run.items()}
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)
    n = len(per_query)
    means = {name: sum(v[m] for v in per_query.values()) / n for name, m in TREC.items()}
    means["RR@10"] = sum(v["recip_rank"] for v in rr.values()) / len(rr)
    print(json.dumps({"queries": n, "means": means}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
