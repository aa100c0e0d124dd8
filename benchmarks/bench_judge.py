"""Benchmark the judging UI on a big store: keystroke to next passage, and start-up.

    python benchmarks/bench_judge.py [--events 100000] [--keys 300] [--json]
        [--orders priority,mtf,mm-ns,cal] [--budget 0.9] [--team]
        [--stop RULE [--stop-recall 0.9] [--stop-in-line]]

Builds a store (default: 1,000 queries x 60 pooled passages = 60,000 pool members, each
ranked by four runs, and 100,000 grade events: alice has judged 55,000 pairs, bob 45,000),
then drives the real app headless with Textual's Pilot:

- start-up: a fresh Python process, from its launch to the first passage drawn (imports,
  reading the store, building the screen), for alice resuming (55,000 own events), carol in
  agreement mode (every assessor's standing grades) and carol adjudicating (alice and bob,
  grading at random, disagree on about 34,000 pairs); median of 3;
- keystroke to next passage: a grade key sent through the app's driver, as a terminal key
  would be, until the next passage has been drawn (the grade is committed to SQLite in
  between). Median and 95th percentile over ``--keys`` grades, once per judging order of
  ``--orders`` (each on a fresh copy of the store): ``priority`` is fixed when pooled (the
  session walks the stored order), the learning orders (``mtf``, ``mm-ns``) are asked for
  every passage from the store's current state (every assessor's grades on the query), so
  their ratio to ``priority`` is what learning costs per keystroke. ``cal`` is timed as
  ``poolkit judge`` runs it (``pool.cal_live.BackgroundCal``): each query's stored texts
  read on the screen's thread when the session reaches it, the classifier retrained at
  BMI's batch boundaries in a separate process (a worker thread hands it the fits and
  waits), so the figure includes what sending the jobs and taking the models back costs
  the screen. ``trained`` says how many models were fitted while the keys were typed, and
  ``fallback`` why the fits ran on the thread instead (the process could not start).
  ``cal-thread`` is ``cal`` with its fits on the worker thread, as before they had a
  process (``--orders priority,cal,cal-thread``: both ways in one run). ``cal``'s fitting
  process starts as the first passage is chosen; the keys wait until it answers, as an
  assessor reads the first passage (``fitter_wait_s``: how long after the first paint).
  ``--budget`` adds a ``pool.budget`` (and its check before every passage) to every order.
  ``--stop RULE`` adds ``pool.stop: RULE`` (``model``, ``knee``, ``target``, ``quant``,
  ``quant-sample``; at ``--stop-recall``) to every order, checked as ``poolkit judge``
  checks it: a rule that refits a classifier (``quant``, ``quant-sample``) in the
  background (``pool.stop_live``, on ``cal``'s worker under ``cal``), the others in line;
  ``--stop-in-line`` checks every rule on the screen's thread after each grade, as before
  the background check (both ways: two runs). ``stop_fired`` says on how many queries the
  background check has answered that the rule fired.
  ``--team`` judges under issue 28's team features
  on every copy: an assignment plan (``poolkit assign``: alice, bob and carol, every pair to
  two of them, by query), so each grade first takes alice's slot of its pair in the write
  transaction, and a gold set (``poolkit gold``: ``GOLD_PER_QUERY`` unpooled passages per
  query) mixed in at ``GOLD_RATE``, whose answers are gold events. Carol judges then: the
  plan leaves alice the pairs she settled (and 20 more), carol a share of the rest.

Aim (issue 4): under 50 ms per keystroke, under 1.5 s to start.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolkit.store import Event, NewMember, QueryRecord, Store

if TYPE_CHECKING:
    from poolkit.pool.next_passage import NextPassage

RUNS = ("bm25", "dense", "rerank", "splade")
GOLD_PER_QUERY, GOLD_RATE = 3, 0.05  # --team's gold set

WORDS = ("maize fall armyworm scout field whorl egg mass larvae spray neem ash sand soil "
         "grain storage moisture aflatoxin mould hermetic bag weevil dairy cow milk udder "
         "mastitis feed water calf heat rain harvest yield farmer season crop pest control "
         "damage leaf stem root seed plant row rotate legume compost manure").split()


def passage(rng: random.Random, words: int = 110) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def build(path: Path, queries: int, docs: int, events: int) -> dict[str, Any]:
    rng = random.Random(7)
    store = Store(path)
    store.upsert_queries(QueryRecord(f"q{i:04d}", f"How do I {rng.choice(WORDS)} "
                                     f"{rng.choice(WORDS)} in my {rng.choice(WORDS)}?")
                         for i in range(queries))
    members = [NewMember(f"q{q:04d}", f"d{q:04d}_{d:03d}", f"Passage {d}", passage(rng),
                         rng.random()) for q in range(queries) for d in range(docs)]
    sources = []  # every run ranks every pooled passage of a query, each in its own order
    for q in range(queries):
        for run in RUNS:
            ranked = rng.sample(range(docs), docs)
            sources += [(f"q{q:04d}", f"d{q:04d}_{d:03d}", run, r + 1, 1.0 / (r + 1))
                        for r, d in enumerate(ranked)]
    store.add_pool_version({run: docs for run in RUNS}, "shuffle", members, sources)
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


def add_team(path: Path, overlap: int = 2) -> dict[str, Any]:
    """``--team``: an assignment plan over the whole pool (keeping who settled what) and a
    gold set of ``GOLD_PER_QUERY`` new passages per query, as ``poolkit assign`` and
    ``poolkit gold`` record them."""
    from poolkit.pool.assignment import plan_slots
    from poolkit.store.assign_sql import AssignmentPlan
    from poolkit.store.gold_sql import GoldSet

    rng = random.Random(11)
    team = ("alice", "bob", "carol")
    store = Store(path)
    pairs = [(m.qid, m.docid) for m in store.pool()]
    _, slots = store.replace_assignment(
        AssignmentPlan(overlap, "query", 7, team),
        lambda _current, settled: plan_slots(pairs, team, overlap, "query", 7, settled))
    queries = sorted({q for q, _ in pairs})
    gold = [(q, f"g{q}_{i}", rng.randint(0, 3), f"Gold {i}", passage(rng))
            for q in queries for i in range(GOLD_PER_QUERY)]
    store.replace_gold(GoldSet("bench-gold", "0" * 64, GOLD_RATE, 3), gold)
    store.close()
    return {"assigned_alice": sum("alice" in h for h in slots.values()), "gold": len(gold),
            "gold_rate": GOLD_RATE}


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


def chooser(store: Store, order: str, budget: float | None, stop: str | None = None,
            recall: float = 0.9, in_line: bool = False) -> NextPassage:
    """The next-passage decision ``poolkit judge`` builds (``Collection.next_passage``,
    ``app.judge.open_session``) for judging order ``order`` over the store's pool with its
    provenance, with stopping rule ``stop`` at ``recall`` (checked on the screen's thread
    if ``in_line``)."""
    from poolkit.pool.budget import Budget
    from poolkit.pool.cal_live import BackgroundCal, scores_by_doc
    from poolkit.pool.guided import ContinuousActiveLearning
    from poolkit.pool.live_guides import texts_from
    from poolkit.pool.next_passage import NextPassage
    from poolkit.pool.order import order_strategy
    from poolkit.pool.view import Hit, QueryPool

    sources = store.sources()
    docs: dict[str, list[str]] = {}
    for m in store.pool():
        docs.setdefault(m.qid, []).append(m.docid)
    pools = {q: QueryPool(q, tuple(ds), {d: tuple(Hit(s.system, s.rank, s.score)
                                                  for s in sources.get((q, d), ()))
                                         for d in ds})
             for q, ds in docs.items()}
    strategy: Any = order_strategy(order.removesuffix("-thread"))
    if isinstance(strategy, ContinuousActiveLearning):  # as Collection.next_passage wraps it
        cal = strategy

        def in_thread(pool: Any, grades: Any) -> Any:
            return scores_by_doc(cal, pool, grades)

        strategy = BackgroundCal(strategy, texts_from(store),
                                 trainer=in_thread if order.endswith("-thread") else None)
    rule: Any = None
    if stop == "model":
        from poolkit.pool.remaining import StopRule

        rule = StopRule(recall, 0.9)
    elif stop is not None:
        from poolkit.pool.stopping import stopping_rule

        rule = stopping_rule(stop, recall, 0.9)
    picks = NextPassage(store, pools, strategy,
                        budget=Budget.parse(budget) if budget is not None else None,
                        stop=rule, texts=texts_from(store))
    if not in_line:
        picks.check_in_background()
    return picks


def startups(path: Path, small: Path) -> list[dict[str, object]]:
    build(small, 1, 1, 0)
    baseline = startup(small, "alice", "judge")  # interpreter, imports, app: fixed cost
    baseline["assessor"] = "one-passage store"
    return [baseline, startup(path, "alice", "judge"), startup(path, "carol", "agreement"),
            startup(path, "carol", "adjudicate")]


async def drive(path: Path, assessor: str, mode: str, keys: int, order: str | None = None,
                budget: float | None = None, stop: str | None = None, recall: float = 0.9,
                in_line: bool = False) -> dict[str, Any]:
    from textual import events

    from poolkit.config import JudgeConfig
    from poolkit.judge.app import JudgeApp
    from poolkit.judge.session import JudgingSession

    store = Store(path)
    # Grade to next passage only: the topic card at each new query waits for a key, and the
    # double-tap guard (min_display) would drop keys sent as soon as a passage is drawn,
    # so its hint, not the next passage, would be what got timed.
    picks = (chooser(store, order, budget, stop, recall, in_line) if order is not None
             else None)
    app = JudgeApp(JudgingSession(store, assessor, mode=mode, chooser=picks),
                   JudgeConfig(topic_card=False, min_display=0.0))
    latencies: list[float] = []
    async with app.run_test(size=(80, 24)):
        screen = app.judge_screen
        while screen.painted == 0:
            await asyncio.sleep(0)
        started = getattr(picks.strategy if picks is not None else None, "started", None)
        waited = time.perf_counter()
        while started is not None and not started.is_set():  # cal's fitting process
            await asyncio.sleep(0.01)  # (an assessor reads the first passage meanwhile)
        waited = time.perf_counter() - waited
        for i in range(keys):
            key = "0123"[i % 4]
            before = screen.painted
            sent = time.perf_counter()
            assert app._driver is not None
            app._driver.send_message(events.Key(key, key))
            while screen.painted == before:
                await asyncio.sleep(0)
            latencies.append(screen.painted_at - sent)
    trained = getattr(picks.strategy, "trained", None) if picks is not None else None
    fallback = picks.fallback if picks is not None else None
    background = picks.background if picks is not None else None
    fired = None
    if background is not None:
        background.worker.wait()
        fired = len(background._fired)
    if picks is not None:
        picks.close()
    store.close()
    ms = sorted(x * 1000 for x in latencies)
    return {"assessor": assessor, "mode": mode, "order": order, "budget": budget,
            "stop": stop, "stop_in_line": in_line if stop else None, "stop_fired": fired,
            "trained": trained, "fallback": fallback, "fitter_wait_s": round(waited, 2),
            "keys": len(ms),
            "median_ms": statistics.median(ms),
            "p95_ms": ms[max(0, round(0.95 * len(ms)) - 1)], "max_ms": ms[-1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=60, help="pooled passages per query")
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument("--orders", default="priority,mtf,mm-ns,cal",
                        help="judging orders whose keystroke-to-next-passage is timed")
    parser.add_argument("--budget", type=float, default=None,
                        help="a pool.budget for every order (a fraction of each query's pool)")
    parser.add_argument("--stop", default=None, metavar="RULE",
                        help="a pool.stop rule for every order (model, knee, target, quant, "
                             "quant-sample)")
    parser.add_argument("--stop-recall", type=float, default=0.9,
                        help="the rule's recall (pool.stop_recall)")
    parser.add_argument("--stop-in-line", action="store_true",
                        help="check the rule on the screen's thread after each grade")
    parser.add_argument("--team", action="store_true",
                        help="judge under an assignment plan with a gold set mixed in")
    parser.add_argument("--no-startup", action="store_true",
                        help="time keystrokes only (skip the start-up probes)")
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
        if args.team:
            built["team"] = add_team(path)
        starts = [] if args.no_startup else startups(path, Path(tmp) / "small.sqlite")
        keys: list[dict[str, Any]] = []
        built["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
        for order in args.orders.split(","):
            copy = Path(tmp) / f"{order}.sqlite"
            shutil.copyfile(path, copy)  # every order starts from the same store
            who = "carol" if args.team else "alice"  # (alice's plan is what she settled)
            keys.append(asyncio.run(drive(copy, who, "judge", args.keys, order, args.budget,
                                          args.stop, args.stop_recall, args.stop_in_line)))
            copy.unlink()
        built["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    base = next((k for k in keys if k["order"] == "priority"), None)
    for k in keys:
        k["ratio_to_priority"] = round(k["median_ms"] / base["median_ms"], 2) if base else None
        k["p95_ratio_to_priority"] = round(k["p95_ms"] / base["p95_ms"], 2) if base else None
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
    if args.team:
        t = built["team"]
        print(f"team: assignment plan (alice, bob, carol; overlap 2; alice holds "
              f"{t['assigned_alice']:,} slots), gold set of {t['gold']:,} passages mixed in "
              f"at {t['gold_rate']:g}")
    budget = f", budget {args.budget:g}" if args.budget is not None else ""
    if args.stop is not None:
        budget += (f", stop {args.stop} at {args.stop_recall:g} "
                   f"({'in line' if args.stop_in_line else 'in the background'})")
    for k in keys:
        ratio = (f" ({k['ratio_to_priority']:.2f} x priority)"
                 if k["ratio_to_priority"] is not None else "")
        ratio += f", {k['trained']} models trained" if k["trained"] is not None else ""
        ratio += f" ({k['fallback']})" if k["fallback"] else ""
        ratio += (f", the rule fired on {k['stop_fired']} queries"
                  if k["stop_fired"] is not None else "")
        p95_ratio = (f" ({k['p95_ratio_to_priority']:.2f} x priority)"
                     if k["p95_ratio_to_priority"] is not None else "")
        print(f"keystroke -> next passage ({k['assessor']}, order {k['order']}{budget}, "
              f"{k['keys']} grades): median {k['median_ms']:.1f} ms{ratio}, p95 "
              f"{k['p95_ms']:.1f} ms{p95_ratio}, max {k['max_ms']:.1f} ms")
    print(f"load average (1, 5, 15 min) before the keystrokes {built['load_average_before']}, "
          f"after {built['load_average_after']}")
    print("aim: < 50 ms per keystroke, < 1.5 s to start")
    return 0


if __name__ == "__main__":
    sys.exit(main())
