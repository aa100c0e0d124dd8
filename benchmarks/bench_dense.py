#!/usr/bin/env python3
"""Dense retrieval at scale, measured in one run, printed as a table (no assertions).

On a synthetic corpus (``--docs`` passages of 30-90 words drawn, Zipf-like, from the
MiniLM vocabulary's whole words, so about one token a word; seeded, written once under
``benchmarks/out/dense-N/``), each step a process of its own (``_common.measure``: wall
time and peak RSS):

1. encode the corpus: poolkit (``EmbeddingCache.encode``: sentence-transformers' own
   length-sorted batches, each written to the cache file as it is done) against plain
   ``SentenceTransformer.encode`` of the same texts, same model, batch size and device,
   in the same run. Passages/s is timed inside each process around the encoding alone
   (model loaded first), with its CPU seconds (a fairer ratio on a shared machine); the
   embeddings of both are compared (bit for bit);
2. re-pool from the cache: the whole ``poolkit pool`` process on a dense-only config
   (``--queries`` queries at ``--depth``), the embeddings cached by step 1, or with
   ``--search-docs M`` a corpus of M passages whose cache holds seeded random unit vectors
   (search time and memory do not depend on the values; encoding M would take hours);
3. exact search alone over the cached embeddings: poolkit's chunked search against the
   search poolkit did before (query blocks x every document, the cache mapped whole);
4. projections to 1M and 8.8M (MS MARCO) passages from the measured rates.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_dense.py            # 100,000 passages
    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_dense.py --docs 2000 --queries 50
    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_dense.py --docs 5000 --repeats 2 \\
        --search-docs 100000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

from _common import OUT, measure

ROOT = Path(__file__).resolve().parent.parent
MSMARCO = 8_841_823
SEED = 20241130


# --- data --------------------------------------------------------------------------------------

def vocabulary() -> list[str]:
    """Whole words of the packaged MiniLM's WordPiece vocabulary (one token each)."""
    from poolkit.retrieve.dense import default_model_path

    words = (default_model_path() / "vocab.txt").read_text(encoding="utf-8").split("\n")
    return [w for w in words if w.isalpha() and w.isascii() and len(w) >= 3]


def generate(n_docs: int, n_queries: int) -> Path:
    """``out/dense-N/``: corpus.jsonl and queries.jsonl (written once per size and seed)."""
    import numpy as np

    folder = OUT / f"dense-{n_docs}"
    stamp = folder / "meta.json"
    meta = {"docs": n_docs, "queries": n_queries, "seed": SEED, "version": 1}
    if stamp.exists() and json.loads(stamp.read_text()) == meta:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    vocab = vocabulary()
    weights = 1.0 / np.arange(1, len(vocab) + 1) ** 1.05
    weights /= weights.sum()
    perm = rng.permutation(len(vocab))  # which words are frequent: not the vocabulary order
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as fh:
        for start in range(0, n_docs, 10_000):
            n = min(10_000, n_docs - start)
            lengths = rng.integers(30, 91, size=n)
            words = perm[rng.choice(len(vocab), size=int(lengths.sum()), p=weights)]
            pos = 0
            for i, m in enumerate(lengths.tolist()):
                text = " ".join(vocab[w] for w in words[pos:pos + m])
                pos += m
                fh.write(json.dumps({"id": f"p{start + i}", "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as fh:
        for q in range(n_queries):
            size = int(rng.integers(3, 9))
            words = perm[rng.choice(len(vocab), size=size, p=weights)]
            fh.write(json.dumps({"id": f"q{q}", "text": " ".join(vocab[w] for w in words)})
                     + "\n")
    stamp.write_text(json.dumps(meta))
    return folder


CONFIG = """\
corpus: {folder}/corpus.jsonl
queries: {folder}/queries.jsonl
store: {work}/judgments.sqlite
runs_dir: {work}/runs
cache_dir: {cache}
systems:
  dense: {{kind: dense, depth: {depth}, batch_size: {batch}}}
pool:
  depth: 10
"""


# --- the measured processes (``--child MODE``) ----------------------------------------------

def child_poolkit_encode(folder: Path, cache: Path, batch: int) -> dict:
    from poolkit.io.corpus import read_corpus
    from poolkit.retrieve.dense import EmbeddingCache, Encoder

    corpus = read_corpus(folder / "corpus.jsonl")
    encoder = Encoder(batch_size=batch)
    encoder.model  # noqa: B018 - loaded before the clock starts, as for the peer
    start, cpu = time.perf_counter(), time.process_time()
    emb = EmbeddingCache(cache).encode(encoder, corpus)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"seconds": seconds, "cpu": cpu, "docs": len(corpus), "file": str(emb.filename)}


def child_plain_encode(folder: Path, out: Path, batch: int) -> dict:
    import numpy as np
    from sentence_transformers import SentenceTransformer

    from poolkit.retrieve.dense import default_model_path

    texts = [json.loads(line)["text"] for line in
             (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    model = SentenceTransformer(str(default_model_path()), device="cpu")
    start, cpu = time.perf_counter(), time.process_time()
    emb = model.encode(texts, batch_size=batch, normalize_embeddings=True,
                       convert_to_numpy=True, show_progress_bar=False)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    np.save(out, emb)
    return {"seconds": seconds, "cpu": cpu, "docs": len(texts)}


def _queries_and_cache(folder: Path, cache: Path, batch: int):  # type: ignore[no-untyped-def]
    from poolkit.io.corpus import read_corpus, read_queries
    from poolkit.retrieve.dense import EmbeddingCache, Encoder

    corpus = read_corpus(folder / "corpus.jsonl")
    queries = read_queries(folder / "queries.jsonl")
    encoder = Encoder(batch_size=batch)
    docs = EmbeddingCache(cache).load(encoder, corpus)
    assert docs is not None, "no cached embeddings: run the encode step first"
    q_emb = encoder.encode_queries([q.text for q in queries])
    return corpus, docs, q_emb


def child_search(folder: Path, cache: Path, batch: int, depth: int) -> dict:
    from poolkit.retrieve import exact

    corpus, docs, q_emb = _queries_and_cache(folder, cache, batch)
    start = time.perf_counter()
    hits = exact.search(q_emb, docs, depth, corpus.id_rank, corpus.ids)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "first": [h.docid for h in hits[0][:10]]}


def child_search_before(folder: Path, cache: Path, batch: int, depth: int) -> dict:
    """The search poolkit did before issue 14: blocks of queries x every document (~64 MB
    of scores a block), the memory map used as one array, ``top_k`` per row, every query's
    hits kept (as that search returned them, and as the chunked search does)."""
    import numpy as np

    from poolkit.retrieve.base import top_k

    corpus, docs, q_emb = _queries_and_cache(folder, cache, batch)
    start = time.perf_counter()
    hits = []
    step = max(1, 2**24 // max(1, len(corpus)))
    for a in range(0, len(q_emb), step):
        block = q_emb[a:a + step] @ np.asarray(docs).T
        hits += [top_k(row, depth, corpus.id_rank, corpus.ids) for row in block]
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "first": [h.docid for h in hits[0][:10]]}


CHILDREN = {"poolkit-encode": child_poolkit_encode, "plain-encode": child_plain_encode,
            "search": child_search, "search-before": child_search_before}


# --- the driver --------------------------------------------------------------------------------

def run_child(mode: str, *args: object) -> tuple[dict, float, float]:
    """(the child's JSON, its wall seconds, its peak RSS MiB)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false"}
    s = measure([sys.executable, str(Path(__file__).resolve()), "--child", mode,
                 *map(str, args)], env=env)
    return json.loads(s.stdout.strip().splitlines()[-1]), s.wall, s.rss_mb


def poolkit_exe() -> list[str]:
    script = Path(sys.executable).with_name("poolkit")
    return [str(script)] if script.exists() else [sys.executable, "-m", "poolkit"]


def hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.1f} min"


def synthetic_cache(folder: Path, cache: Path, batch: int) -> None:
    """Fill the embedding cache of ``folder``'s corpus with seeded random unit vectors:
    search time and memory do not depend on the values, and encoding a large corpus on a
    shared CPU takes hours. Labelled as such in the table."""
    import numpy as np

    from poolkit.io.corpus import read_corpus
    from poolkit.retrieve.dense import EmbeddingCache, Encoder

    corpus = read_corpus(folder / "corpus.jsonl")
    path = EmbeddingCache(cache).path(Encoder(batch_size=batch), corpus)
    assert path is not None
    rng = np.random.default_rng(SEED)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32,
                                    shape=(len(corpus), 384))
    for a in range(0, len(corpus), 50_000):
        block = rng.standard_normal((min(50_000, len(corpus) - a), 384)).astype(np.float32)
        out[a:a + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    out.flush()
    del out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=100_000, help="passages encoded")
    parser.add_argument("--search-docs", type=int, default=None,
                        help="passages searched and re-pooled (default: --docs, from the "
                             "encoded cache; another size gets seeded random unit vectors)")
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=1,
                        help="encodes per tool, alternating which goes first (median)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("child_args", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        a = args.child_args
        folder, target, batch = Path(a[0]), Path(a[1]), int(a[2])
        extra = [int(a[3])] if len(a) > 3 else []
        print(json.dumps(CHILDREN[args.child](folder, target, batch, *extra)))
        return 0

    import numpy as np

    n, batch = args.docs, args.batch_size
    m = args.search_docs or n
    t0 = time.perf_counter()
    folder = generate(n, args.queries)
    print(f"data: {n:,} passages, {args.queries:,} queries in {folder.relative_to(ROOT)} "
          f"[{time.perf_counter() - t0:.1f} s to generate or reuse]", flush=True)
    work = OUT / f"dense-{n}-work"
    shutil.rmtree(work, ignore_errors=True)
    cache = work / "cache"
    cache.mkdir(parents=True)
    plain_npy = work / "plain.npy"

    # Warm-up, untimed: the model's files and the libraries in the page cache.
    tiny = generate(200, 5)
    run_child("poolkit-encode", tiny, work / "warm", batch)

    samples: dict[str, list[tuple[dict, float, float]]] = {"poolkit": [], "plain": []}
    for rep in range(args.repeats):
        for tool in (("poolkit", "plain") if rep % 2 == 0 else ("plain", "poolkit")):
            if tool == "poolkit":
                shutil.rmtree(cache, ignore_errors=True)
                got = run_child("poolkit-encode", folder, cache, batch)
            else:
                got = run_child("plain-encode", folder, plain_npy, batch)
            samples[tool].append(got)
            print(f"  {tool} encode: {got[0]['seconds']:.1f} s ({got[0]['cpu']:.1f} CPU s), "
                  f"{got[2]:.0f} MiB", flush=True)

    def med(tool: str, pick) -> float:  # type: ignore[no-untyped-def]
        return float(np.median([pick(x) for x in samples[tool]]))

    ours_s, plain_s = med("poolkit", lambda x: x[0]["seconds"]), med("plain",
                                                                      lambda x: x[0]["seconds"])
    ours_cpu, plain_cpu = med("poolkit", lambda x: x[0]["cpu"]), med("plain",
                                                                     lambda x: x[0]["cpu"])
    ours_rss, plain_rss = med("poolkit", lambda x: x[2]), med("plain", lambda x: x[2])
    a = np.load(samples["poolkit"][-1][0]["file"], mmap_mode="r")
    b = np.load(plain_npy, mmap_mode="r")
    same = bool(a.shape == b.shape and np.array_equal(a, b))
    diff = float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) if a.shape == b.shape else -1.0
    del a, b
    ours_rate, plain_rate = n / ours_s, n / plain_s
    reps = f"median of {args.repeats}" if args.repeats > 1 else "one run each"
    rows: list[tuple[str, str]] = [
        (f"encode {n:,} passages (batch {batch}, cpu, {reps})",
         f"poolkit {ours_rate:,.1f} passages/s, {ours_rss:,.0f} MiB peak; "
         f"SentenceTransformer.encode {plain_rate:,.1f} passages/s, {plain_rss:,.0f} MiB peak"),
        ("  ratio poolkit / plain encode",
         f"throughput {ours_rate / plain_rate:.2f}x (per CPU second "
         f"{plain_cpu / ours_cpu:.2f}x), peak RSS {ours_rss / plain_rss:.2f}x"),
        ("  embeddings poolkit vs plain",
         "identical (bit for bit)" if same else f"max |difference| {diff:.1e}"),
    ]

    if m != n:
        search_folder = generate(m, args.queries)
        search_cache = OUT / f"dense-{m}-work-search" / "cache"
        shutil.rmtree(search_cache.parent, ignore_errors=True)
        search_cache.mkdir(parents=True)
        synthetic_cache(search_folder, search_cache, batch)
        what = f"{m:,} passages, synthetic embeddings"
    else:
        search_folder, search_cache, what = folder, cache, f"{m:,} passages"

    # Re-pool from the cache: the whole `poolkit pool` process.
    work_pool = search_cache.parent / "pool"
    shutil.rmtree(work_pool, ignore_errors=True)
    work_pool.mkdir()
    config = work_pool / "dense.yaml"
    config.write_text(CONFIG.format(folder=search_folder, work=work_pool, cache=search_cache,
                                    depth=args.depth, batch=batch))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    pooled = measure([*poolkit_exe(), "pool", str(config), "--quiet", "--format", "json"],
                     env=env)
    settings = json.loads((work_pool / "runs" / "dense.json").read_text())
    rows.append((f"re-pool from cache ({what}, {args.queries:,} q, depth {args.depth})",
                 f"{pooled.wall:.1f} s, {pooled.rss_mb:,.0f} MiB peak (whole `poolkit pool`; "
                 f"dense system {settings['seconds']:.1f} s; embeddings cached: "
                 f"{settings.get('embedding_cache_hit')})"))

    found, _, s_rss = run_child("search", search_folder, search_cache, batch, args.depth)
    before, _, b_rss = run_child("search-before", search_folder, search_cache, batch,
                                 args.depth)
    cache_mib = m * 384 * 4 / 2**20
    rows += [
        (f"exact search alone ({args.queries:,} q x {m:,} docs, top {args.depth})",
         f"chunked {found['seconds']:.1f} s, {s_rss:,.0f} MiB peak; before (map used whole) "
         f"{before['seconds']:.1f} s, {b_rss:,.0f} MiB peak; cache file {cache_mib:,.0f} MiB"),
        ("  same top 10 for the first query", "yes" if found["first"] == before["first"]
         else "no"),
    ]
    for size, label in ((1_000_000, "1M"), (MSMARCO, "8.8M (MS MARCO)")):
        rows.append((f"projected at {label} passages",
                     f"encode {hours(size / ours_rate)} (this CPU, this load); cache "
                     f"{size * 384 * 4 / 2**30:.1f} GiB; exact search of {args.queries:,} "
                     f"queries {hours(found['seconds'] * size / m)}"))

    width = max(len(r[0]) for r in rows)
    print(f"\npoolkit dense benchmark ({os.cpu_count()} CPUs, {platform.machine()}, "
          f"Python {platform.python_version()})")
    for label, value in rows:
        print(f"  {label.ljust(width)}  {value}")
    raw = OUT / f"bench_dense-{n}-{m}.json"
    raw.write_text(json.dumps({"docs": n, "search_docs": m, "queries": args.queries,
                               "depth": args.depth, "batch_size": batch,
                               "encode": {t: [{"child": x[0], "wall_s": x[1], "rss_mib": x[2]}
                                              for x in v] for t, v in samples.items()},
                               "identical": same, "max_diff": diff,
                               "repool_wall_s": pooled.wall, "repool_rss_mib": pooled.rss_mb,
                               "search": found, "search_rss_mib": s_rss,
                               "search_before": before, "search_before_rss_mib": b_rss},
                              indent=2) + "\n")
    print(f"\n(raw numbers: {raw.relative_to(ROOT)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
