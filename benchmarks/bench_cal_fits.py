"""What ``order: cal``'s fits take from the judging screen's thread, apart from the screen.

    python benchmarks/bench_cal_fits.py [--rounds 3]

Six queries of 60 passages of bench_judge's made-up text, four runs ranking each; 50 grades
per query are fed to ``pool.cal_live.BackgroundCal`` one by one, and after each the main
thread (standing in for the screen) sleeps 2 ms ten times and records how late each sleep
ends. A late wake-up is the main thread waiting for the interpreter (or for a core), so the
lateness with the fits on the worker thread (``thread``) against the fits in the child
process (``process``) is what the thread's fits hold the screen back. Both ways alternate
``--rounds`` times; the machine's load is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Mapping

from poolkit.pool.cal_live import BackgroundCal, scores_by_doc
from poolkit.pool.guided import ContinuousActiveLearning
from poolkit.pool.view import Hit, QueryPool

WORDS = ("maize fall armyworm scout field whorl egg mass larvae spray neem ash sand soil "
         "grain storage moisture aflatoxin mould hermetic bag weevil dairy cow milk udder "
         "mastitis feed water calf heat rain harvest yield farmer season crop pest control "
         "damage leaf stem root seed plant row rotate legume compost manure").split()


def pools(rng: random.Random, queries: int = 6, docs: int = 60) -> list[QueryPool]:
    out = []
    for q in range(queries):
        ids = tuple(f"q{q}_d{i:03d}" for i in range(docs))
        out.append(QueryPool(
            f"q{q}", ids, {d: tuple(Hit(r, rng.randint(1, docs), 1.0) for r in "abcd")
                           for d in ids},
            query="how do I scout maize for armyworm",
            texts={d: " ".join(rng.choice(WORDS) for _ in range(110)) for d in ids}))
    return out


def lateness(mode: str, seed: int = 7) -> dict[str, float]:
    """Milliseconds each 2 ms sleep of the main thread ended late, fits ``mode``."""
    rng = random.Random(seed)
    strategy = ContinuousActiveLearning()

    def in_thread(pool: QueryPool, grades: Mapping[str, int]) -> dict[str, float] | None:
        return scores_by_doc(strategy, pool, grades)

    cal = BackgroundCal(strategy, trainer=in_thread if mode == "thread" else None)
    late: list[float] = []
    for pool in pools(rng):
        grades: dict[str, int] = {}
        for d in pool.docs[:50]:
            grades[d] = rng.choice((0, 0, 1, 3))
            cal.next(pool, grades, [x for x in pool.docs if x not in grades])
            for _ in range(10):
                t = time.perf_counter()
                time.sleep(0.002)
                late.append((time.perf_counter() - t - 0.002) * 1000)
    cal.wait()
    cal.close()
    late.sort()
    return {"models": cal.trained, "median_ms": statistics.median(late),
            "p95_ms": late[int(0.95 * len(late))], "p99_ms": late[int(0.99 * len(late))],
            "max_ms": late[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    for _ in range(args.rounds):
        for mode in ("thread", "process"):
            r = lateness(mode)
            print(f"fits on the {mode:7s} ({r['models']} models): the main thread's 2 ms "
                  f"sleeps ended late by median {r['median_ms']:.2f} ms, p95 "
                  f"{r['p95_ms']:.2f}, p99 {r['p99_ms']:.2f}, max {r['max_ms']:.1f}",
                  flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":  # (the fitting process is spawned: it imports this module)
    main()
