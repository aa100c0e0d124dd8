"""Score a TREC run with poolkit's Python API (read_qrels, read_run, evaluate); means as JSON.

Measures the library calls alone, without the CLI's audit, intervals and report (``bench_score
--api``), beside the whole ``poolkit score`` process that bench_score times as poolkit.
"""

from __future__ import annotations

import json
import sys

from poolkit.io.qrels import read_qrels
from poolkit.io.run import read_run
from poolkit.score.evaluate import evaluate
from poolkit.score.measures import parse_measures

NAMES = ["P@10", "R@100", "RR@10", "AP", "nDCG@10"]


def main(qrels_path: str, run_path: str) -> None:
    ev = evaluate(read_qrels(qrels_path), read_run(run_path), parse_measures(NAMES))
    print(json.dumps({"queries": len(ev.scored), "means": ev.means}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
