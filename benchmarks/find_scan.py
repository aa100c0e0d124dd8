"""``pool --find``'s corpus scan at a million synthetic passages (issue 26).

    .venv/bin/python benchmarks/find_scan.py                    # 1,000,000 passages
    .venv/bin/python benchmarks/find_scan.py --docs 100000      # a quick check

Two costs, measured apart:

1. **The scan** (what ``pool --find`` repeats per query and per round): the query's
   classifier trained on its graded passages (``RelevanceModel.fit``), every passage scored
   (``SparseRows.dot``: one gather and one bincount over the matrix's non-zeros), the pool
   and the graded masked out and the top N taken (``CorpusFinder.find``). The corpus matrix
   is built directly in NumPy as the vectorizer would make it (sublinear TF x IDF, rows
   L2-normalised): passages of about 55 words (normal, sd 12, clipped to 10-200) drawn from
   a 200,000-word vocabulary with Zipfian frequencies (exponent 1.05), as
   ``bench_pool_scale.py`` draws them.
2. **Indexing** (once per ``pool --find`` call): ``TextVectorizer.fit`` and ``transform``
   over the passages' text, a Python pass per passage (tokenising), timed on ``--index-docs``
   passages of the same kind written out as text and scaled linearly to ``--docs``.

CPU seconds (``time.process_time``), so that other jobs on a shared machine do not count.
Prints the figures and writes them to ``benchmarks/out/find-scan-DOCS.json``; asserts
nothing (timings are not tests). Fixed seed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from poolkit.pool.find import CorpusFinder
from poolkit.pool.text_model import SparseRows, TextVectorizer

VOCABULARY = 200_000
WORDS, SD = 55, 12
OUT = Path(__file__).resolve().parent / "out"


def words(rng: np.random.Generator, docs: int) -> tuple[np.ndarray, np.ndarray]:
    """Per passage its length, and every word id (Zipfian), passage after passage."""
    lengths = np.clip(rng.normal(WORDS, SD, docs).round(), 10, 200).astype(np.int64)
    weights = 1.0 / np.arange(1, VOCABULARY + 1) ** 1.05
    ids = rng.choice(VOCABULARY, size=int(lengths.sum()), p=weights / weights.sum())
    return lengths, ids.astype(np.int64)


def matrix(lengths: np.ndarray, ids: np.ndarray) -> tuple[SparseRows, np.ndarray]:
    """The TF-IDF rows ``TextVectorizer.transform`` would give, built in NumPy; the IDF."""
    rows = np.repeat(np.arange(len(lengths)), lengths)
    keys, counts = np.unique(rows * VOCABULARY + ids, return_counts=True)
    row, col = keys // VOCABULARY, keys % VOCABULARY
    df = np.bincount(col, minlength=VOCABULARY)
    idf = np.log((1 + len(lengths)) / (1 + df)) + 1.0
    data = (1.0 + np.log(counts)) * idf[col]
    norms = np.sqrt(np.bincount(row, weights=data * data, minlength=len(lengths)))
    data /= norms[row]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=len(lengths)))])
    return SparseRows(indptr, col, data, VOCABULARY), idf


def scan(finder: CorpusFinder, rng: np.random.Generator, queries: int, pool: int,
         graded: int, n: int) -> dict[str, list[float]]:
    """Per query: CPU seconds of ``finder.find`` (``graded`` graded passages, a third
    relevant, in a pool of ``pool``; the top ``n`` beyond it), and of its two parts apart:
    the fit, and the scan of every passage (``SparseRows.dot``)."""
    out: dict[str, list[float]] = {"find": [], "fit": [], "dot": []}
    docs = len(finder.ids)
    for q in range(queries):
        qid = f"q{q}"
        pooled = [finder.ids[i] for i in rng.choice(docs, size=pool, replace=False)]
        grades = {d: int(rng.random() < 1 / 3) for d in pooled[:graded]}
        start = time.process_time()
        found = finder.find({qid: grades}, {qid: pooled}, {qid: n})
        out["find"].append(time.process_time() - start)
        assert len(found[qid]) == n
        start = time.process_time()
        model = finder.model(grades, qid, 1)
        out["fit"].append(time.process_time() - start)
        start = time.process_time()
        model.score(finder.matrix)
        out["dot"].append(time.process_time() - start)
    return out


def index_seconds(rng: np.random.Generator, docs: int) -> float:
    """Seconds to fit and transform ``docs`` synthetic passages given as text."""
    lengths, ids = words(rng, docs)
    vocab = np.array([f"w{i}" for i in range(VOCABULARY)])
    cuts = np.cumsum(lengths)[:-1]
    texts = [" ".join(part) for part in np.split(vocab[ids], cuts)]
    start = time.process_time()
    vectorizer = TextVectorizer.fit(texts)
    vectorizer.transform(texts)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--pool", type=int, default=100, help="pooled passages per query")
    parser.add_argument("--graded", type=int, default=100, help="graded passages per query")
    parser.add_argument("--find", type=int, default=10, help="N of pool --find N")
    parser.add_argument("--index-docs", type=int, default=20_000)
    args = parser.parse_args()
    rng = np.random.default_rng(26)
    start = time.perf_counter()
    lengths, ids = words(rng, args.docs)
    rows, idf = matrix(lengths, ids)
    built = time.perf_counter() - start
    vectorizer = TextVectorizer({f"w{i}": i for i in range(VOCABULARY)}, idf)
    finder = CorpusFinder([f"d{i}" for i in range(args.docs)], vectorizer, rows,
                          {f"q{q}": "w1 w20 w300" for q in range(args.queries)})
    times = scan(finder, rng, args.queries, args.pool, args.graded, args.find)
    indexed = index_seconds(rng, args.index_docs)
    result = {"docs": args.docs, "nonzeros": int(len(rows.data)),
              "matrix_mib": round((rows.data.nbytes + rows.indices.nbytes) / 2 ** 20),
              "synthetic_matrix_seconds": round(built, 2),
              "cpu_seconds_per_query": {part: {"median": round(statistics.median(v), 3),
                                               "max": round(max(v), 3)}
                                        for part, v in times.items()},
              "index_seconds": {"measured_docs": args.index_docs,
                                "measured": round(indexed, 2),
                                "scaled_to_docs": round(indexed * args.docs / args.index_docs)}}
    OUT.mkdir(exist_ok=True)
    (OUT / f"find-scan-{args.docs}.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"{args.docs:,} passages, {result['nonzeros']:,} non-zeros "
          f"({result['matrix_mib']} MiB of indices and values)")
    per = result["cpu_seconds_per_query"]
    print(f"per query, CPU seconds, median (max) over {args.queries} queries: find "
          f"{per['find']['median']} ({per['find']['max']}) = fit on {args.graded} grades "
          f"{per['fit']['median']} ({per['fit']['max']}) + scoring every passage "
          f"{per['dot']['median']} ({per['dot']['max']}) + masking the pool of {args.pool} "
          f"and taking the top {args.find}")
    print(f"indexing text: {result['index_seconds']['measured']} CPU s for {args.index_docs:,} "
          f"passages, so about {result['index_seconds']['scaled_to_docs']} s for "
          f"{args.docs:,}")


if __name__ == "__main__":
    main()
