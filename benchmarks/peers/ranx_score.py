"""Score a TREC run with ranx: its own file readers and evaluate (numba); means as JSON."""

from __future__ import annotations

import json
import sys

from ranx import Qrels, Run, evaluate

MEASURES = {"P@10": "precision@10", "R@100": "recall@100", "RR@10": "mrr@10", "AP": "map",
            "nDCG@10": "ndcg@10"}


def main(qrels_path: str, run_path: str) -> None:
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    res = evaluate(qrels, run, list(MEASURES.values()))
    print(json.dumps({"means": {name: float(res[m]) for name, m in MEASURES.items()}}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
