"""The small data set the tutorials run on, made from the bundled sample: what a user brings.

``python tests/docs/tutorial_data.py FOLDER`` writes, under FOLDER:

- ``my-data/corpus.jsonl`` and ``my-data/queries.jsonl``: the sample's 24 passages and its
  four queries;
- ``my-data/runs/system-a.run``: the seed retriever's TREC run; ``my-data/runs/system-b.run``:
  a word-overlap ranker's TREC run over the same passages (a second, different system);
- ``my-data/grades.qrels``: a grade for every (query, passage), standing in for a judging
  session (bob's grades of ``sample_corpus/assessor_b.yaml``, seed 000's where bob has none,
  0 elsewhere);
- ``team/alice.qrels`` and ``team/bob.qrels``: two assessors' grades of every pair, standing in
  for their judging sessions (seed 000's hand grades, 0 elsewhere; bob's as above), who
  disagree on some;
- ``my-beir/``: the same collection as a BEIR folder (``corpus.jsonl`` with ``_id``,
  ``queries.jsonl``, ``qrels/test.tsv``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3}


def overlap_run(corpus: list[dict], queries: list[dict], depth: int = 10) -> list[str]:
    """TREC lines of a ranker scoring each passage by the query words it shares."""
    lines = []
    for q in queries:
        want = _words(q["text"])
        scored = sorted(((len(want & _words(d["title"] + " " + d["text"])), d["id"])
                         for d in corpus), key=lambda s: (-s[0], s[1]))
        for rank, (score, doc) in enumerate(scored[:depth], 1):
            lines.append(f"{q['id']} Q0 {doc} {rank} {score} overlap")
    return lines


def grades(sources: tuple[str, ...] = ("golden.yaml", "assessor_b.yaml")
           ) -> dict[tuple[str, str], int]:
    """Each pair's grade in the last of ``sources`` that grades it."""
    found: dict[tuple[str, str], int] = {}
    for source in sources:
        for entry in yaml.safe_load((SAMPLE / source).read_text()):
            for doc, grade in entry["grades"].items():
                found[(str(entry["query"]), str(doc))] = int(grade)
    return found


def make(folder: Path) -> None:
    corpus, queries = _jsonl(SAMPLE / "corpus.jsonl"), _jsonl(SAMPLE / "queries.jsonl")
    data = folder / "my-data"
    (data / "runs").mkdir(parents=True, exist_ok=True)
    (data / "corpus.jsonl").write_text((SAMPLE / "corpus.jsonl").read_text())
    (data / "queries.jsonl").write_text((SAMPLE / "queries.jsonl").read_text())
    (data / "runs" / "system-a.run").write_text((SAMPLE / "seed.run").read_text())
    (data / "runs" / "system-b.run").write_text("\n".join(overlap_run(corpus, queries)) + "\n")
    known = grades()
    every = [(q["id"], d["id"]) for q in queries for d in corpus]

    def qrels(graded: dict[tuple[str, str], int]) -> str:
        return "".join(f"{q} 0 {d} {graded.get((q, d), 0)}\n" for q, d in every)

    (data / "grades.qrels").write_text(qrels(known))
    (folder / "team").mkdir(exist_ok=True)
    (folder / "team" / "alice.qrels").write_text(qrels(grades(("golden.yaml",))))
    (folder / "team" / "bob.qrels").write_text(qrels(grades(("assessor_b.yaml",))))
    beir = folder / "my-beir"
    (beir / "qrels").mkdir(parents=True, exist_ok=True)
    (beir / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": d["id"], "title": d["title"], "text": d["text"]}) + "\n"
        for d in corpus))
    (beir / "queries.jsonl").write_text("".join(
        json.dumps({"_id": q["id"], "text": q["text"]}) + "\n" for q in queries))
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t{g}\n" for (q, d), g in sorted(known.items()) if g > 0))


if __name__ == "__main__":
    make(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
