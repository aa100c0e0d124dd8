"""The bundled sample written as a BEIR folder (for the collection tests)."""

from __future__ import annotations

import json
from pathlib import Path

from shared_data import SAMPLE

from poolkit.io.corpus import read_queries
from poolkit.io.golden import read_golden


def beir_copy(folder: Path, splits: tuple[str, ...] = ("test",), extra_query: bool = True) -> Path:
    """The sample as a BEIR folder: ``_id`` keys, a train-only query, qrels/SPLIT.tsv."""
    folder.mkdir(parents=True)
    with (folder / "corpus.jsonl").open("w") as out:
        for line in (SAMPLE / "corpus.jsonl").read_text().splitlines():
            doc = json.loads(line)
            out.write(json.dumps({"_id": doc["id"], "title": doc.get("title", ""),
                                  "text": doc["text"], "metadata": {}}) + "\n")
    with (folder / "queries.jsonl").open("w") as out:
        for q in read_queries(SAMPLE / "queries.jsonl"):
            out.write(json.dumps({"_id": q.qid, "text": q.text, "metadata": {}}) + "\n")
        if extra_query:  # a training query: not in the test split, so not pooled
            out.write(json.dumps({"_id": "q_train", "text": "maize spacing"}) + "\n")
    (folder / "qrels").mkdir()
    grades = read_golden(SAMPLE / "golden.yaml").grades
    for split in splits:
        (folder / "qrels" / f"{split}.tsv").write_text(
            "query-id\tcorpus-id\tscore\n"
            + "".join(f"{q}\t{d}\t{g}\n" for q, docs in grades.items() for d, g in docs.items()))
    return folder
