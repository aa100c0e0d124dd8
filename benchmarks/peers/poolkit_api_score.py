"""Score a TREC run with poolkit's public Python API (``from poolkit import ...``); means as JSON.

Measures the library calls alone, without the CLI's audit, intervals and report (``bench_score
--api``), beside the whole ``poolkit score`` process that bench_score times as poolkit. The
whole report in Python is ``poolkit.score_runs(poolkit.ScoreRequest(qrels, [run]))``.
"""

from __future__ import annotations

import json
import sys

from poolkit import evaluate, parse_measures, read_qrels, read_run

NAMES = ["P@10", "R@100", "RR@10", "AP", "nDCG@10"]


def main(qrels_path: str, run_path: str) -> None:
    ev = evaluate(read_qrels(qrels_path), read_run(run_path), parse_measures(NAMES))
    print(json.dumps({"queries": len(ev.scored), "means": ev.means}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
