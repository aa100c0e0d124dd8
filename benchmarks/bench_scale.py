"""Work that follows its input (issue 22, item 23), against the old path, in the same run:
``poolkit agreement`` on a big judging store, and ``poolkit score`` of a small run against
labels for very many queries.

    python benchmarks/bench_scale.py                      # 10 x 100,000 pairs; 1M queries
    python benchmarks/bench_scale.py --pairs 10000 --queries 100000   # a quick check
    python benchmarks/bench_scale.py --baseline 68f8418   # the revision to compare with

**agreement data** (generated once under ``out/agreement-<assessors>x<pairs>/``, fixed
seed): a store in which every assessor grades the same ``--pairs`` (query, doc) pairs (1,000
queries) on the 0-3 scale, each grade the pair's true grade moved by one step with a chance
that differs per assessor; one grade in 50 is regraded and one in 200 undone (so the standing
grades come from the replay rule, not the last row), and the last assessor's grades are
imported labels.

**score data** (``out/scale-score-<queries>/``, fixed seed): qrels of ``--queries`` queries
with 3 judged ids each (grades 0, 0, 1, 2 drawn), and a TREC run of 10 of them x 1,000 docs.

**Processes**, each started from scratch by ``_common.measure`` (wall time, peak RSS):
``poolkit agreement CONFIG --format json`` and ``poolkit score QRELS RUN --format json``
from this checkout, then the same commands from a temporary ``git worktree`` of
``--baseline`` (the per-event agreement, the per-query score). Each pair of JSON documents
must be equal but for their date (the script exits non-zero otherwise). The ratios are new /
old (below 1: faster or smaller).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import OUT, measure

REPO = Path(__file__).resolve().parent.parent
BASELINE = "68f8418"  # the last commit before agreement's array path


def generate(assessors: int, pairs: int) -> Path:
    folder = OUT / f"agreement-{assessors}x{pairs}"
    config = folder / "agreement.yaml"
    if config.exists():
        return config
    folder.mkdir(parents=True, exist_ok=True)
    queries = 1000
    per_query = -(-pairs // queries)
    (folder / "corpus.jsonl").write_text("".join(
        json.dumps({"id": f"d{j}", "title": "", "text": f"passage {j}"}) + "\n"
        for j in range(per_query)))
    (folder / "queries.jsonl").write_text("".join(
        json.dumps({"id": f"q{i}", "text": f"query {i}"}) + "\n" for i in range(queries)))
    (folder / "s.run").write_text("q0 Q0 d0 1 1.0 s\n")
    config.write_text("corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: store.sqlite\n"
                      "systems:\n  s: {kind: run, path: s.run}\n")
    sys.path.insert(0, str(REPO))
    from poolkit.store.records import Event
    from poolkit.store.store import Store

    rng = random.Random(22)
    keys = [(f"q{i % queries}", f"d{i // queries}") for i in range(pairs)]
    truth = [rng.choice((0, 0, 1, 2, 3)) for _ in keys]
    with Store(folder / "store.sqlite") as store:
        for a in range(assessors):
            name = f"assessor{a:02d}"
            kind = "import" if a == assessors - 1 else "grade"
            noise = 0.1 + 0.05 * a

            def grade(t: int) -> int:
                return min(3, max(0, t + rng.choice((-1, 1)))) if rng.random() < noise else t

            events = [Event(q, d, name, kind, grade=grade(t)) for (q, d), t in zip(keys, truth)]
            first = store.conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM events").fetchone()[0]
            store.record_events(events)
            again = [Event(q, d, name, kind, grade=grade(t))
                     for (q, d), t in zip(keys[::50], truth[::50])]
            store.record_events(again)
            undo = [Event(keys[i][0], keys[i][1], name, "undo", ref=first + i)
                    for i in range(1, pairs, 200)]
            store.record_events(undo)
    return config


def generate_score(queries: int) -> tuple[Path, Path]:
    folder = OUT / f"scale-score-{queries}"
    qrels, run = folder / "labels.qrels", folder / "ten.run"
    if run.exists():
        return qrels, run
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(23)
    with qrels.open("w") as f:
        for q in range(queries):
            for d in rng.sample(range(10**6), 3):
                f.write(f"q{q} 0 d{d} {rng.choice((0, 0, 1, 2))}\n")
    with run.open("w") as f:
        for q in range(10):
            for r in range(1000):
                f.write(f"q{q} Q0 d{rng.randrange(10**6)} {r + 1} {1000 - r} t\n")
    return qrels, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assessors", type=int, default=10)
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1_000_000, help="labelled queries")
    parser.add_argument("--baseline", default=BASELINE, help="the revision of the old path")
    args = parser.parse_args()
    config = generate(args.assessors, args.pairs)
    qrels, run = generate_score(args.queries)
    cases = {"agreement": ["agreement", str(config), "--format", "json"],
             "score": ["score", str(qrels), str(run), "--format", "json"]}
    results: dict[tuple[str, str], Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        old_tree = Path(tmp) / "old"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(old_tree),
                        args.baseline], check=True, capture_output=True)
        try:
            for case, argv in cases.items():
                for label, tree in (("new", REPO), ("old", old_tree)):
                    env = {**os.environ, "PYTHONPATH": str(tree)}
                    results[case, label] = measure([sys.executable, "-m", "poolkit", *argv],
                                                   env=env)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                            str(old_tree)], check=True, capture_output=True)
    print(f"{'':22s} {'wall s':>8s} {'peak MB':>8s}   (old = {args.baseline})")
    all_same = True
    report = {}
    for case in cases:
        docs = [json.loads(results[case, label].stdout) for label in ("new", "old")]
        for d in docs:
            d.pop("date", None)
        same = json.dumps(docs[0]) == json.dumps(docs[1])  # NaN as printed: equal
        all_same &= same
        new, old = results[case, "new"], results[case, "old"]
        what = (f"agreement {args.assessors}x{args.pairs:,}" if case == "agreement"
                else f"score {args.queries:,} queries")
        for label, r in (("new", new), ("old", old)):
            print(f"{what + ' ' + label:22s} {r.wall:8.2f} {r.rss_mb:8.0f}")
        print(f"{'  ratio new/old':22s} {new.wall / old.wall:8.3f} {new.rss_mb / old.rss_mb:8.3f}"
              f"   output {'identical' if same else 'DIFFERS'}")
        report[case] = {label: {"wall": r.wall, "rss_mb": r.rss_mb, "cpu": r.cpu}
                        for label, r in (("new", new), ("old", old))} | {"identical": same}
    (OUT / "scale-results.json").write_text(json.dumps(report, indent=2))
    sys.exit(0 if all_same else 1)


if __name__ == "__main__":
    main()
