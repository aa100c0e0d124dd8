#!/usr/bin/env python3
"""``poolkit pool`` with BM25 at a million passages, against bm25s alone, measured in one run.

Data (generated once with a fixed seed under ``benchmarks/out/scale-<docs>/``, git-ignored):
passages of about 55 words (normal, sd 12, 10 to 200) drawn from a 200,000-word Zipfian
vocabulary (exponent 1.05), and 1,000 queries of 2 to 6 words drawn the same way.

Measured, each process started from scratch by ``_common.measure`` (wall time, peak RSS):

1. ``poolkit pool`` (the real CLI) on a new store, one BM25 system at depth 1,000, Lucene's
   idf, no stemming or stopwords (the tokens bm25s makes), pool depth 10; cold index cache.
   Its phases are read from the run's settings (``index_seconds``, ``search_seconds``).
2. ``peers/bm25s_pool.py``: bm25s alone doing the same work: read the corpus file, tokenize,
   index, retrieve the top 1,000 for each query, write the TREC run. Its phases are printed
   by the script.
3. ``poolkit pool`` again, config unchanged (index cached, run reused): the re-pool.
4. Scores against rank-bm25's ``BM25Okapi`` on a 10,000-passage subset (Okapi's idf,
   poolkit's default): every document's score for 50 queries, and the ranked lists.

    .venv/bin/python benchmarks/bench_pool_scale.py [--docs 1000000] [--queries 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from _common import OUT, Sample, measure  # noqa: E402

GEN_VERSION = 1
VOCAB = 200_000
DEPTH = 1_000
POOL_DEPTH = 10

CONFIG = """\
corpus: {data}/corpus.jsonl
queries: {data}/queries.tsv
store: judgments.sqlite
runs_dir: runs
cache_dir: cache
systems:
  bm25: {{kind: bm25, depth: {depth}, stem: false, stopwords: false, idf: lucene}}
pool:
  depth: {pool_depth}
"""


def words(rng: np.random.Generator, n_words: int) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, size=int(rng.integers(3, 10)))) + str(i)
            for i in range(n_words)]


def generate(n_docs: int, n_queries: int, seed: int = 14) -> Path:
    """Write (or reuse) ``out/scale-<docs>/corpus.jsonl`` and ``queries.tsv``."""
    folder = OUT / f"scale-{n_docs}"
    meta = {"version": GEN_VERSION, "docs": n_docs, "queries": n_queries, "seed": seed,
            "vocab": VOCAB}
    meta_path = folder / "meta.json"
    if meta_path.is_file() and json.loads(meta_path.read_text()) == meta:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    vocab = np.array(words(rng, VOCAB), dtype=object)
    weights = 1.0 / np.arange(1, VOCAB + 1) ** 1.05
    weights /= weights.sum()
    cdf = np.cumsum(weights)
    with open(folder / "corpus.jsonl.tmp", "w", encoding="utf-8") as fh:
        for start in range(0, n_docs, 50_000):
            n = min(50_000, n_docs - start)
            lengths = np.clip(np.rint(rng.normal(55, 12, size=n)), 10, 200).astype(int)
            drawn = vocab[np.searchsorted(cdf, rng.random(int(lengths.sum())))]
            ends = np.cumsum(lengths)
            fh.write("".join(
                json.dumps({"id": f"p{start + i}", "text": " ".join(drawn[e - m:e])}) + "\n"
                for i, (e, m) in enumerate(zip(ends, lengths))))
    with open(folder / "queries.tsv.tmp", "w", encoding="utf-8") as fh:
        for i in range(n_queries):
            picked = vocab[np.searchsorted(cdf, rng.random(int(rng.integers(2, 7))))]
            fh.write(f"q{i}\t{' '.join(picked)}\n")
    (folder / "corpus.jsonl.tmp").replace(folder / "corpus.jsonl")
    (folder / "queries.tsv.tmp").replace(folder / "queries.tsv")
    meta_path.write_text(json.dumps(meta))
    return folder


def pool_config(data: Path, work: Path) -> Path:
    """A fresh collection in ``work`` (no store, runs or cache) over the generated data."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    path = work / "scale.yaml"
    path.write_text(CONFIG.format(data=data, depth=DEPTH, pool_depth=POOL_DEPTH))
    return path


def poolkit_pool(config: Path) -> tuple[Sample, dict[str, float]]:
    """The whole ``poolkit pool`` process, and its phases from what it wrote."""
    sample = measure([sys.executable, "-m", "poolkit", "pool", str(config), "--format",
                      "json", "--quiet"], env=ENV)
    work = config.parent
    run = json.loads((work / "runs" / "bm25.json").read_text())
    phases = {"total": sample.wall}
    manifests = list((work / "cache").glob("bm25-*/index.json"))
    if manifests and "reused" not in sample.stdout:
        index = json.loads(manifests[0].read_text())
        phases["index"] = index["build_seconds"]
        phases["search"] = run["seconds"] - index["build_seconds"] - index["save_seconds"]
    return sample, phases


def rank_bm25_agreement(data: Path, n_docs: int = 10_000, n_queries: int = 50,
                        k: int = 100) -> tuple[float, int, int]:
    """poolkit's BM25 (Okapi idf, its default) against rank-bm25's BM25Okapi on the first
    ``n_docs`` passages: the largest score difference over every document of every query,
    and how many ranked top-``k`` lists are identical (ids in rank order, ties by doc id
    descending as trec_eval reads a run, scores rounded to the run file's 6 decimals)."""
    from rank_bm25 import BM25Okapi

    from poolkit.io.corpus import Corpus, QueryRecord
    from poolkit.retrieve.bm25 import BM25Retriever, Tokenizer

    with open(data / "corpus.jsonl", encoding="utf-8") as fh:
        docs = [json.loads(next(fh)) for _ in range(n_docs)]
    with open(data / "queries.tsv", encoding="utf-8") as fh:
        queries = [QueryRecord(*line.rstrip("\n").split("\t")[:2]) for line in fh]
    queries = queries[:n_queries]
    corpus = Corpus.from_records([(d["id"], "", d["text"]) for d in docs])
    tok = Tokenizer.from_options(stopwords=False, stem=False)
    ours = BM25Retriever(corpus, tokenizer=tok)
    oracle = BM25Okapi([tok(d["text"]) for d in docs])
    hits = ours.search(queries, k)
    diff, same = 0.0, 0
    for q in queries:
        want = np.asarray(oracle.get_scores(tok(q.text)))
        diff = max(diff, float(np.abs(ours.scores(q.text) - want).max()))
        terms = set(tok(q.text))
        matching = [i for i, d in enumerate(docs) if terms & set(tok(d["text"]))]
        matching.sort(key=lambda i: docs[i]["id"], reverse=True)
        matching.sort(key=lambda i: round(float(want[i]), 6), reverse=True)
        same += [h.docid for h in hits[q.qid]] == [docs[i]["id"] for i in matching[:k]]
    return diff, same, len(queries)


ENV = {**os.environ, "PYTHONHASHSEED": "0"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=1_000)
    args = parser.parse_args()
    start = time.perf_counter()
    data = generate(args.docs, args.queries)
    print(f"data: {data} ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    (data / "corpus.jsonl").read_bytes()  # in the page cache for everyone
    work = data / "work"

    ours, ours_phases = poolkit_pool(pool_config(data, work))
    peer = measure([sys.executable, str(HERE / "peers" / "bm25s_pool.py"),
                    str(data / "corpus.jsonl"), str(data / "queries.tsv"),
                    str(work / "bm25s.run"), str(DEPTH)], env=ENV)
    peer_phases = json.loads(peer.stdout)
    peer_phases["total"] = peer.wall
    peer_phases["search"] += peer_phases["write"]  # poolkit's search phase makes its run text
    again, again_phases = poolkit_pool(work / "scale.yaml")
    diff, same, n = rank_bm25_agreement(data)

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}x"

    rows = [
        ("index build (tokenize + index), s", ours_phases["index"], peer_phases["index"]),
        (f"{args.queries:,} queries at depth {DEPTH:,} (+ run text), s",
         ours_phases["search"], peer_phases["search"]),
        ("whole process, s", ours.wall, peer.wall),
        ("whole process peak RSS, MiB", ours.rss_mb, peer.rss_mb),
        ("whole process CPU (user + system), s", ours.cpu, peer.cpu),
    ]
    print(f"poolkit pool vs bm25s, {args.docs:,} passages, {args.queries:,} queries, depth "
          f"{DEPTH:,} ({os.cpu_count()} CPUs; ratio = poolkit / bm25s)\n")
    print("| measure | poolkit pool | bm25s | ratio |\n|---|---:|---:|---:|")
    for label, a, b in rows:
        print(f"| {label} | {a:,.1f} | {b:,.1f} | {ratio(a, b)} |")
    print(f"\nre-pool, config unchanged (index cached, run reused): {again.wall:.1f} s wall, "
          f"{again.cpu:.1f} s CPU, {again.rss_mb:,.0f} MiB peak RSS")
    print(f"rank-bm25 BM25Okapi, first 10,000 passages: max |score difference| {diff:.1e} "
          f"over every document of {n} queries; top-100 lists identical for {same} of {n}")
    raw = {"docs": args.docs, "queries": args.queries, "depth": DEPTH,
           "poolkit": {**ours_phases, "rss_mb": ours.rss_mb, "cpu": ours.cpu},
           "bm25s": {**peer_phases, "rss_mb": peer.rss_mb, "cpu": peer.cpu},
           "repool": {"wall": again.wall, "rss_mb": again.rss_mb, "cpu": again.cpu},
           "rank_bm25": {"max_diff": diff, "identical_lists": same, "queries": n}}
    (OUT / f"bench_pool_scale-{args.docs}.json").write_text(json.dumps(raw, indent=2))
    if diff > 1e-9 or same != n:
        raise SystemExit("poolkit's BM25 does not agree with rank-bm25's BM25Okapi")


if __name__ == "__main__":
    main()
