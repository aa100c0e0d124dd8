"""``poolkit autojudge`` against a judge with a fixed latency, and through the real llama.cpp
server (issue 24).

1. A loopback OpenAI-compatible server of this script's own answers every request after a
   fixed ``--latency`` (200 ms): a bare grade, its log-probabilities and token counts.
   ``poolkit autojudge`` (the real CLI, a process of its own, on a new store and cache)
   grades ``--pairs`` (2,000) pooled pairs at ``--concurrency`` (8). Its wall time is
   compared with the ideal N x latency / concurrency, and with a plain sequential loop of the
   same requests (urllib, one after the other, the bodies poolkit sent). The sequential loop
   would take N x latency, so it runs on the first ``--sequential`` (100) requests only and
   its time is scaled to N (said in the output). The store is then read: every pair must
   hold exactly one grade of the judge.
2. When ``POOLKIT_TEST_LLM_URL`` and ``POOLKIT_TEST_LLM_MODEL`` name a running server
   (``source .ci/llama.sh && start_throwaway_llm``: llama.cpp serving SmolLM2-135M, one
   thread, two slots), ``--real-pairs`` (20) pairs through it at concurrency 1 and 2, each
   on a new store and cache: pairs per second.

Prints the figures and their ratios; asserts nothing (timings are not tests).

    python benchmarks/bench_autojudge.py [--pairs 2000] [--latency 0.2] [--concurrency 8]
    bash -c 'source .ci/llama.sh && start_throwaway_llm && python benchmarks/bench_autojudge.py'
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).resolve().parent / "out" / "autojudge"
DOCS_PER_QUERY = 10
MODEL = "bench-judge"


class Served:
    """What the loopback server received, and how long it waits before answering."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.lock = threading.Lock()
        self.bodies: list[bytes] = []


def handler(served: Served) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with served.lock:
                served.bodies.append(raw)
            time.sleep(served.latency)
            prompt = json.loads(raw)["messages"][-1]["content"]
            grade = str(sum(prompt.encode()) % 4)
            top = [{"token": str(g), "logprob": math.log(0.7 if str(g) == grade else 0.1)}
                   for g in range(4)]
            payload = json.dumps({
                "model": MODEL, "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": grade},
                             "logprobs": {"content": [{"token": grade, "logprob": top[0][
                                 "logprob"], "top_logprobs": top}]}}],
                "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 1},
            }).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def serve(latency: float) -> tuple[ThreadingHTTPServer, Served, str]:
    served = Served(latency)
    ThreadingHTTPServer.request_queue_size = 128
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(served))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, served, f"http://127.0.0.1:{server.server_address[1]}/v1"


def collection(folder: Path, pairs: int, judge: dict[str, object], seed: int = 24) -> Path:
    """A new collection of ``pairs`` pooled pairs (``pairs / 10`` queries, 10 docs each,
    passages of about 60 words drawn with ``seed``), pooled; judge ``llm`` is ``judge``."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(5000)]
    queries = -(-pairs // DOCS_PER_QUERY)
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as f:
        for q in range(queries):
            f.write(json.dumps({"id": f"q{q}", "text": " ".join(rng.choices(words, k=5))})
                    + "\n")
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as f, \
            open(folder / "seed.run", "w", encoding="utf-8") as run:
        for q in range(queries):
            for d in range(DOCS_PER_QUERY):
                f.write(json.dumps({"id": f"d{q}_{d}", "title": f"passage {d}",
                                    "text": " ".join(rng.choices(words, k=60))}) + "\n")
                run.write(f"q{q} Q0 d{q}_{d} {d + 1} {100 - d} seed\n")
    config = folder / "collection.yaml"
    config.write_text(
        "corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: judgments.sqlite\n"
        "runs_dir: runs\ncache_dir: cache\nsystems:\n  seed: {kind: run, path: seed.run}\n"
        f"pool:\n  depth: {DOCS_PER_QUERY}\n  order: docid\n"
        f"judges:\n  llm: {json.dumps(judge)}\n", encoding="utf-8")
    poolkit("pool", str(config), "--quiet")
    return config


def poolkit(*args: str) -> tuple[float, str]:
    """(wall seconds, stdout) of one ``poolkit`` process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "poolkit", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"poolkit {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return wall, done.stdout


def autojudge(config: Path, *extra: str) -> tuple[float, dict]:
    wall, out = poolkit("autojudge", str(config), "--judge", "llm", "--format", "json", *extra)
    return wall, json.loads(out)


def grades_in_store(config: Path) -> tuple[int, int]:
    """(grade events of judge llm, distinct pairs they grade), read from the SQLite file."""
    with sqlite3.connect(config.parent / "judgments.sqlite") as conn:
        return conn.execute(
            "SELECT COUNT(*), COUNT(DISTINCT qid || char(0) || docid) FROM events "
            "WHERE assessor = 'llm' AND kind = 'grade' AND origin = 'machine'").fetchone()


def sequential(url: str, bodies: list[bytes]) -> float:
    """Seconds a plain loop takes to send ``bodies`` one after the other."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    start = time.perf_counter()
    for body in bodies:
        request = urllib.request.Request(url + "/chat/completions", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with opener.open(request, timeout=60) as response:
            json.loads(response.read())
    return time.perf_counter() - start


def loopback(args: argparse.Namespace) -> None:
    server, served, url = serve(args.latency)
    try:
        judge = {"kind": "openai", "base_url": url, "model": MODEL,
                 "concurrency": args.concurrency, "api_key_env": "POOLKIT_BENCH_NO_KEY"}
        config = collection(OUT / "loopback", args.pairs, judge)
        wall, doc = autojudge(config)
        events, pairs = grades_in_store(config)
        bodies = list(served.bodies)
        n_seq = min(args.sequential, len(bodies))
        seq = sequential(url, bodies[:n_seq]) * len(bodies) / max(n_seq, 1)
    finally:
        server.shutdown()
    n = doc["pairs"]["graded"]
    ideal = n * args.latency / args.concurrency
    print(f"loopback judge, {args.latency * 1000:.0f} ms a request, {n} pairs graded "
          f"({doc['pairs']['failed']} failed), concurrency {args.concurrency}")
    print(f"  store: {events} grade events of judge llm over {pairs} distinct pairs "
          f"(pool: {doc['pairs']['total']} pairs)")
    print(f"  poolkit autojudge, the whole process   {wall:8.1f} s   "
          f"{wall / ideal:5.2f} x ideal")
    print(f"  poolkit autojudge, its own 'seconds'   {doc['seconds']:8.1f} s   "
          f"{doc['seconds'] / ideal:5.2f} x ideal")
    print(f"  ideal N x latency / concurrency        {ideal:8.1f} s")
    print(f"  plain sequential loop (measured on {n_seq} requests, scaled to {len(bodies)})"
          f" {seq:8.1f} s   poolkit is {seq / wall:4.1f} x faster")
    (OUT / "loopback.json").write_text(json.dumps({
        "pairs": n, "latency": args.latency, "concurrency": args.concurrency, "wall": wall,
        "seconds": doc["seconds"], "ideal": ideal, "sequential_scaled": seq,
        "sequential_measured_on": n_seq, "store_events": events, "store_pairs": pairs}))


def real(args: argparse.Namespace) -> None:
    url, model = os.environ.get("POOLKIT_TEST_LLM_URL"), os.environ.get("POOLKIT_TEST_LLM_MODEL")
    if not url or not model:
        print("real llama.cpp server: not running (POOLKIT_TEST_LLM_URL unset); start it with "
              "source .ci/llama.sh && start_throwaway_llm")
        return
    print(f"real llama.cpp server ({model}), {args.real_pairs} pairs each run, new store and "
          f"cache, passages of its own each run (llama.cpp would reuse a repeated prompt), "
          f"after one warm-up request:")
    warm = json.dumps({"model": model, "max_tokens": 1,
                       "messages": [{"role": "user", "content": "Grade: "}]}).encode()
    sequential(url, [warm])
    for concurrency in args.real_concurrency:
        judge = {"kind": "openai", "base_url": url, "model": model, "concurrency": concurrency,
                 "api_key_env": "POOLKIT_BENCH_NO_KEY", "timeout": 600.0}
        config = collection(OUT / f"real-{concurrency}", args.real_pairs, judge,
                            seed=100 + concurrency)
        wall, doc = autojudge(config)
        recorded = doc["pairs"]["graded"] + doc["pairs"]["failed"]
        print(f"  concurrency {concurrency}: {recorded} pairs recorded "
              f"({doc['pairs']['graded']} graded, {doc['pairs']['failed']} failed) in "
              f"{doc['seconds']:.1f} s: {recorded / doc['seconds']:.2f} pairs/s "
              f"(process {wall:.1f} s; load average {os.getloadavg()[0]:.2f} after)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--sequential", type=int, default=100,
                        help="requests the sequential loop sends (its time scaled to --pairs)")
    parser.add_argument("--real-pairs", type=int, default=20)
    parser.add_argument("--no-real", action="store_true")
    parser.add_argument("--no-loopback", action="store_true")
    parser.add_argument("--real-concurrency", type=lambda v: [int(c) for c in v.split(",")],
                        default=[1, 2], help="the real server's runs, in this order")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores (others share "
          f"this machine)")
    if not args.no_loopback:
        loopback(args)
    if not args.no_real:
        real(args)


if __name__ == "__main__":
    main()
