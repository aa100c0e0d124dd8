#!/usr/bin/env python3
"""Pooling benchmarks, measured in one run, printed as a small table (no assertions).

1. Pool-build time on Cranfield (1,400 abstracts, 225 queries; BM25 + dense + rerank at
   depth 20), whole ``poolkit pool`` process: cold (empty embedding cache, new store) and
   warm (embeddings cached, new store). Needs ../shared beside the repository.
2. BM25 query throughput at 100k synthetic passages (Zipfian vocabulary, seeded):
   poolkit's BM25 (default engine) against bm25s (its defaults: Lucene idf, numpy backend)
   and rank-bm25's BM25Okapi, top 100 per query, query tokenisation included. Everyone
   gets the same whitespace-level tokens (no stemming, no stopwords). rank-bm25 scans every
   document per query term, so it gets fewer queries; throughput is per second either way.

    .venv/bin/python benchmarks/bench_pool.py [--docs 100000] [--queries 1000] [--no-cranfield]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

CRANFIELD_CONFIG = """\
corpus: {coll}/corpus.jsonl
queries: {coll}/queries.jsonl
store: judgments.sqlite
runs_dir: runs
cache_dir: {cache}
systems:
  bm25:   {{kind: bm25, depth: 100}}
  dense:  {{kind: dense, depth: 100}}
  rerank: {{kind: rerank, over: bm25, fetch: 100, depth: 20}}
pool:
  depth: 20
"""


def pool_once(work: Path, cache: Path) -> tuple[float, dict[str, float]]:
    """One whole ``poolkit pool`` process on a fresh store; wall seconds and per-system seconds."""
    for name in ("judgments.sqlite", "judgments.sqlite-wal", "judgments.sqlite-shm"):
        (work / name).unlink(missing_ok=True)
    shutil.rmtree(work / "runs", ignore_errors=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "poolkit", "pool", str(work / "cranfield.yaml"),
                    "--format", "json"], check=True, env=env, cwd=ROOT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    per = {p.stem: json.loads(p.read_text())["seconds"] for p in (work / "runs").glob("*.json")}
    return wall, per


def bench_cranfield() -> list[tuple[str, str]]:
    coll = SHARED / "collections" / "cranfield"
    if not coll.is_dir():
        return [("cranfield pool build", f"skipped: {coll} not present")]
    with tempfile.TemporaryDirectory(prefix="bench-pool-") as tmp:
        work = Path(tmp)
        cache = work / "cache"
        (work / "cranfield.yaml").write_text(CRANFIELD_CONFIG.format(coll=coll, cache=cache))
        cold, cold_per = pool_once(work, cache)
        warm, warm_per = pool_once(work, cache)
    return [
        ("cranfield pool build, cold (encode 1,400 docs)",
         f"{cold:6.1f} s  (dense {cold_per['dense']:.1f} s, bm25 {cold_per['bm25']:.1f} s, "
         f"rerank {cold_per['rerank']:.1f} s)"),
        ("cranfield pool build, warm (embedding cache)",
         f"{warm:6.1f} s  (dense {warm_per['dense']:.1f} s)  cold/warm = {cold / warm:.1f}x"),
    ]


def synthetic(n_docs: int, n_queries: int, seed: int = 7) -> tuple[list[str], list[str]]:
    """Passages of 30-90 tokens from a 50k-word Zipfian vocabulary; queries of 2-6 words."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = ["".join(rng.choice(letters, size=rng.integers(3, 10))) + str(i)
             for i in range(50_000)]
    weights = 1.0 / np.arange(1, len(vocab) + 1) ** 1.05
    weights /= weights.sum()
    lengths = rng.integers(30, 91, size=n_docs)
    words = rng.choice(len(vocab), size=int(lengths.sum()), p=weights)
    docs, pos = [], 0
    for n in lengths:
        docs.append(" ".join(vocab[w] for w in words[pos:pos + n]))
        pos += n
    # Queries mix frequent and rarer words, as real ones do.
    queries = [" ".join(vocab[w] for w in rng.choice(len(vocab), size=rng.integers(2, 7),
                                                      p=weights)) for _ in range(n_queries)]
    return docs, queries


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def bench_bm25(n_docs: int, n_queries: int, n_rank_bm25: int) -> list[tuple[str, str]]:
    import bm25s
    from rank_bm25 import BM25Okapi

    from poolkit.io.corpus import Corpus
    from poolkit.retrieve.bm25 import BM25Retriever, Tokenizer
    from poolkit.store.records import QueryRecord

    docs, queries = synthetic(n_docs, n_queries)
    corpus = Corpus.from_records([(f"d{i}", "", t) for i, t in enumerate(docs)])
    records = [QueryRecord(f"q{i}", q) for i, q in enumerate(queries)]
    tok = Tokenizer.from_options(stopwords=False, stem=False)
    k = 100

    ours, ours_index = timed(lambda: BM25Retriever(corpus, tokenizer=tok,
                                                   engine="bm25s").build())
    ours.search(records[:5], k)  # warm-up
    ours_hits, ours_time = timed(ours.search, records, k)

    def bm25s_index():
        model = bm25s.BM25()
        model.index(bm25s.tokenize(docs, stopwords=None, stemmer=None, show_progress=False),
                    show_progress=False)
        return model

    peer, peer_index = timed(bm25s_index)

    def bm25s_search(qs):
        q_tokens = bm25s.tokenize(qs, stopwords=None, stemmer=None, show_progress=False)
        return peer.retrieve(q_tokens, k=k, show_progress=False)

    bm25s_search(queries[:5])  # warm-up
    _, peer_time = timed(bm25s_search, queries)

    ref, ref_index = timed(lambda: BM25Okapi([tok(t) for t in docs]))
    sub = records[:n_rank_bm25]

    def rank_bm25_search(qs):
        out = []
        for q in qs:
            scores = ref.get_scores(tok(q.text))
            top = np.argpartition(-scores, k)[:k]
            out.append((scores, top[np.argsort(-scores[top])]))
        return out

    ref_out, ref_time = timed(rank_bm25_search, sub)
    # Same numbers: every document's score, and the top-10 score lists (ids may differ
    # only inside ties, which rank-bm25 leaves in arbitrary order and poolkit breaks by id).
    diff = max(float(np.abs(scores - ours.scores(q.text)).max())
               for (scores, _top), q in zip(ref_out, sub))
    agree = sum(np.round(scores[top[:10]], 6).tolist() == [h.score for h in
                ours_hits[q.qid][:10]] for (scores, top), q in zip(ref_out, sub))

    ours_qps = len(records) / ours_time
    peer_qps = len(queries) / peer_time
    ref_qps = len(sub) / ref_time
    return [
        (f"bm25 index, {n_docs:,} passages", f"poolkit {ours_index:.1f} s, bm25s "
         f"{peer_index:.1f} s, rank-bm25 {ref_index:.1f} s"),
        ("bm25 queries/s (top 100)", f"poolkit {ours_qps:,.0f} ({len(records)} q), bm25s "
         f"{peer_qps:,.0f} ({len(queries)} q), rank-bm25 {ref_qps:,.1f} ({len(sub)} q)"),
        ("bm25 throughput ratio poolkit / bm25s", f"{ours_qps / peer_qps:.2f}x"),
        ("bm25 throughput ratio poolkit / rank-bm25", f"{ours_qps / ref_qps:,.0f}x"),
        ("agreement with rank-bm25", f"top-10 scores identical for {agree} of {len(sub)} "
         f"queries; max |score difference| {diff:.1e}"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--rank-bm25-queries", type=int, default=20)
    parser.add_argument("--no-cranfield", action="store_true")
    args = parser.parse_args()
    rows = []
    if not args.no_cranfield:
        rows += bench_cranfield()
    rows += bench_bm25(args.docs, args.queries, args.rank_bm25_queries)
    width = max(len(r[0]) for r in rows)
    print(f"poolkit pooling benchmark ({os.cpu_count()} CPUs)")
    for label, value in rows:
        print(f"  {label.ljust(width)}  {value}")


if __name__ == "__main__":
    main()
