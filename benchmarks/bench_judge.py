"""Benchmark the judging UI on a big store: keystroke to next passage, and start-up.

    python benchmarks/bench_judge.py [--events 100000] [--keys 300] [--json]

Builds a store (default: 1,000 queries x 60 pooled passages = 60,000 pool members, and
100,000 grade events: alice has judged 55,000 pairs, bob 45,000), then drives the real app
headless with Textual's Pilot:

- start-up: a fresh Python process, from its launch to the first passage drawn (imports,
  reading the store, building the screen), for alice resuming (55,000 own events), carol in
  agreement mode (every assessor's standing grades) and carol adjudicating (alice and bob,
  grading at random, disagree on about 34,000 pairs); median of 3;
- keystroke to next passage: a grade key sent through the app's driver, as a terminal key
  would be, until the next passage has been drawn (the grade is committed to SQLite in
  between). Median and 95th percentile over ``--keys`` grades.

Aim (issue 4): under 50 ms per keystroke, under 1.5 s to start.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from poolkit.store import Event, NewMember, QueryRecord, Store

WORDS = ("maize fall armyworm scout field whorl egg mass larvae spray neem ash sand soil "
         "grain storage moisture aflatoxin mould hermetic bag weevil dairy cow milk udder "
         "mastitis feed water calf heat rain harvest yield farmer season crop pest control "
         "damage leaf stem root seed plant row rotate legume compost manure").split()


def passage(rng: random.Random, words: int = 110) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def build(path: Path, queries: int, docs: int, events: int) -> dict[str, int]:
    rng = random.Random(7)
    store = Store(path)
    store.upsert_queries(QueryRecord(f"q{i:04d}", f"How do I {rng.choice(WORDS)} "
                                     f"{rng.choice(WORDS)} in my {rng.choice(WORDS)}?")
                         for i in range(queries))
    members = [NewMember(f"q{q:04d}", f"d{q:04d}_{d:03d}", f"Passage {d}", passage(rng),
                         rng.random()) for q in range(queries) for d in range(docs)]
    store.add_pool_version({"bm25": docs}, "shuffle", members, [])
    pool = store.pool()
    n_alice = min(len(pool), round(events * 0.55))
    n_bob = events - n_alice
    log = []
    for assessor, count in (("alice", n_alice), ("bob", n_bob)):
        for i, m in enumerate(pool[:count]):
            t = 1_700_000_000 + i * 9
            log.append(Event(m.qid, m.docid, assessor, "grade", grade=rng.randint(0, 3),
                             shown_at=_iso(t), judged_at=_iso(t + 4 + rng.random() * 8),
                             text_hash=m.text_hash, pool_version=1, position=i % docs + 1))
    store.record_events(log)
    store.close()
    return {"queries": queries, "pooled": len(pool), "events": len(log), "alice": n_alice,
            "bob": n_bob}


def _iso(t: float) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="microseconds")


async def first_paint(path: Path, assessor: str, mode: str) -> None:
    """Start-up probe (run in its own process): open the app, say when the passage is drawn."""
    from poolkit.judge.app import JudgeApp
    from poolkit.judge.session import JudgingSession

    app = JudgeApp(JudgingSession(Store(path), assessor, mode=mode))
    async with app.run_test(size=(80, 24)):
        while app.judge_screen.painted == 0:
            await asyncio.sleep(0)
        print("painted", flush=True)


def startup(path: Path, assessor: str, mode: str, repeat: int = 3) -> dict[str, object]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, __file__, "--probe", str(path), assessor, mode],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        times.append(time.perf_counter() - t0)
        proc.wait()
        if line.strip() != "painted":
            raise SystemExit(f"start-up probe failed for {assessor} ({mode})")
    return {"assessor": assessor, "mode": mode, "startup_s": statistics.median(times)}


async def drive(path: Path, assessor: str, mode: str, keys: int) -> dict[str, object]:
    from textual import events

    from poolkit.config import JudgeConfig
    from poolkit.judge.app import JudgeApp
    from poolkit.judge.session import JudgingSession

    store = Store(path)
    # Grade to next passage only: the topic card at each new query waits for a key, and the
    # double-tap guard (min_display) would drop keys sent as soon as a passage is drawn,
    # so its hint, not the next passage, would be what got timed.
    app = JudgeApp(JudgingSession(store, assessor, mode=mode),
                   JudgeConfig(topic_card=False, min_display=0.0))
    latencies: list[float] = []
    async with app.run_test(size=(80, 24)):
        screen = app.judge_screen
        while screen.painted == 0:
            await asyncio.sleep(0)
        for i in range(keys):
            key = "0123"[i % 4]
            before = screen.painted
            sent = time.perf_counter()
            assert app._driver is not None
            app._driver.send_message(events.Key(key, key))
            while screen.painted == before:
                await asyncio.sleep(0)
            latencies.append(screen.painted_at - sent)
    store.close()
    ms = sorted(x * 1000 for x in latencies)
    return {"assessor": assessor, "mode": mode, "keys": len(ms),
            "median_ms": statistics.median(ms), "p95_ms": ms[max(0, round(0.95 * len(ms)) - 1)],
            "max_ms": ms[-1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=60, help="pooled passages per query")
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--probe", nargs=3, metavar=("STORE", "ASSESSOR", "MODE"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        asyncio.run(first_paint(Path(args.probe[0]), args.probe[1], args.probe[2]))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite"
        t = time.perf_counter()
        built = build(path, args.queries, args.docs, args.events)
        built["build_s"] = round(time.perf_counter() - t, 2)
        built["store_mb"] = round(path.stat().st_size / 2**20, 1)
        small = Path(tmp) / "small.sqlite"
        build(small, 1, 1, 0)
        baseline = startup(small, "alice", "judge")  # interpreter, imports, app: fixed cost
        baseline["assessor"] = "one-passage store"
        starts = [baseline, startup(path, "alice", "judge"), startup(path, "carol", "agreement"),
                  startup(path, "carol", "adjudicate")]
        keys = asyncio.run(drive(path, "alice", "judge", args.keys))
    if args.json:
        json.dump({"store": built, "startup": starts, "keystrokes": keys}, sys.stdout, indent=2)
        print()
        return 0
    print(f"store: {built['pooled']:,} pooled passages over {built['queries']:,} queries, "
          f"{built['events']:,} grade events ({built['store_mb']} MB, built in "
          f"{built['build_s']} s)")
    for r in starts:
        print(f"start-up ({r['assessor']}, {r['mode']}): {r['startup_s']:.2f} s "
              f"(launch to first passage drawn, median of 3)")
    print(f"keystroke -> next passage ({keys['assessor']}, {keys['keys']} grades): median "
          f"{keys['median_ms']:.1f} ms, p95 {keys['p95_ms']:.1f} ms, max {keys['max_ms']:.1f} ms")
    print("aim: < 50 ms per keystroke, < 1.5 s to start")
    return 0


if __name__ == "__main__":
    sys.exit(main())
