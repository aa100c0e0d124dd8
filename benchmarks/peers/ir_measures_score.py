"""Score a TREC run with ir_measures: its own readers and calc_aggregate; means as JSON."""

from __future__ import annotations

import json
import sys

import ir_measures
from ir_measures import AP, RR, P, R, nDCG

MEASURES = {"P@10": P @ 10, "R@100": R @ 100, "RR@10": RR @ 10, "AP": AP, "nDCG@10": nDCG @ 10}


def main(qrels_path: str, run_path: str) -> None:
    qrels = ir_measures.read_trec_qrels(qrels_path)
    run = ir_measures.read_trec_run(run_path)
    agg = ir_measures.calc_aggregate(list(MEASURES.values()), qrels, run)
    print(json.dumps({"means": {name: float(agg[m]) for name, m in MEASURES.items()}}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
