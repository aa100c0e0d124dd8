"""bm25s alone doing what ``poolkit pool`` does with one BM25 system: read the corpus (JSONL)
and queries (TSV), tokenize (bm25s's tokenizer: lowercase words of 2+ characters, no
stopwords or stemming), index (bm25s's defaults: Lucene idf, k1 1.5, b 0.75), retrieve the
top k per query and write a TREC run. Prints its phases (seconds) as JSON."""

from __future__ import annotations

import json
import sys
import time

import bm25s


def main(corpus_path: str, queries_path: str, out_path: str, k: str) -> None:
    clock = time.perf_counter
    start = clock()
    ids, texts = [], []
    with open(corpus_path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                doc = json.loads(line)
                ids.append(str(doc["id"]))
                title = doc.get("title") or ""
                texts.append(f"{title}\n{doc['text']}" if title else doc["text"])
    with open(queries_path, encoding="utf-8") as fh:
        queries = [line.rstrip("\n").split("\t")[:2] for line in fh if line.strip()]
    read = clock()
    model = bm25s.BM25()
    model.index(bm25s.tokenize(texts, stopwords=None, show_progress=False),
                show_progress=False)
    indexed = clock()
    tokens = bm25s.tokenize([q for _, q in queries], stopwords=None, return_ids=False,
                            show_progress=False)
    known = model.vocab_dict
    tokens = [[t for t in q if t in known] for q in tokens]
    docs, scores = model.retrieve(tokens, k=min(int(k), len(ids)), show_progress=False,
                                  n_threads=1)
    lines = []
    for (qid, _), row, sc in zip(queries, docs.tolist(), scores.tolist()):
        lines.extend(f"{qid} Q0 {ids[d]} {r} {s!r} bm25s\n"
                     for r, (d, s) in enumerate(zip(row, sc), start=1) if s > 0)
    text = "".join(lines)
    searched = clock()
    with open(out_path, "w", encoding="utf-8") as fh:
        fh.write(text)
    done = clock()
    print(json.dumps({"read": read - start, "index": indexed - read,
                      "search": searched - indexed, "write": done - searched,
                      "docs": len(ids), "results": len(lines)}))


if __name__ == "__main__":
    main(*sys.argv[1:5])
