#!/usr/bin/env python3
"""Run every poolkit command on the sample, Cranfield and TREC DL 2019, and keep what each
printed and wrote, so that two checkouts can be compared byte for byte.

    python tools/output_parity.py --tree OLD_CHECKOUT --out /tmp/parity-old
    python tools/output_parity.py --tree .            --out /tmp/parity-new
    diff -r /tmp/parity-old /tmp/parity-new          # nothing: no output changed

A refactoring must leave every command's stdout, stderr, exit code and output files as they
were. Each command runs in a scratch copy of ``configs/`` and ``sample_corpus/`` (so stores
start empty), with ``../shared`` beside it, and the checkout given by ``--tree`` first on
``PYTHONPATH``. What is expected to differ between two runs is masked in what is kept: the
scratch folder's path, dates and times, and durations. ``--only sample,dl19,cranfield`` runs
a part (Cranfield pools BM25 alone over its 1,400 abstracts: no model is loaded).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: (part, name, argv); ``{dl19}`` and ``{cran}`` are the shared collections' folders. Output
#: files go under ``out/`` and are kept with the command's output.
SAMPLE_RUNS = "sample_corpus/loop-runs/bm25.run sample_corpus/loop-runs/dense.run " \
              "sample_corpus/loop-runs/rerank.run"
COMMANDS: list[tuple[str, str, str]] = [
    ("sample", "pool-v1", "pool configs/loop.yaml --system bm25"),
    ("sample", "import-bob", "import configs/loop.yaml sample_corpus/assessor_b.yaml --as bob"),
    ("sample", "import-bob-json", "import configs/loop.yaml sample_corpus/assessor_b.yaml "
                                  "--as bob --format json"),
    ("sample", "pool-v2", "pool configs/loop.yaml"),
    ("sample", "pool-again-json", "pool configs/loop.yaml --format json"),
    ("sample", "status", "status configs/loop.yaml"),
    ("sample", "status-json", "status configs/loop.yaml --format json"),
    ("sample", "export-qrels", "export configs/loop.yaml --format qrels -o out/loop.qrels"),
    ("sample", "export-golden", "export configs/loop.yaml --format golden -o out/loop.yaml "
                                "--policy majority --unresolved out/unresolved.json"),
    ("sample", "export-sample", "export configs/loop.yaml --format qrels --unjudged -1 "
                                "-o out/unjudged.qrels --sample out/loop.sample"),
    ("sample", "export-v1", "export configs/loop.yaml --format qrels --pool-version 1"),
    ("sample", "compare", "compare configs/loop.yaml"),
    ("sample", "compare-json", "compare configs/loop.yaml --format json"),
    ("sample", "reusability", "reusability configs/loop.yaml --group neural=dense,rerank"),
    ("sample", "reusability-json", "reusability configs/loop.yaml --format json"),
    ("sample", "agreement", "agreement configs/loop.yaml --reference bob --qrels "
                            "seed=sample_corpus/golden.yaml llm=sample_corpus/llm_judge.qrels"),
    ("sample", "agreement-json", "agreement configs/loop.yaml --format json --qrels "
                                 "llm=sample_corpus/llm_judge.qrels"),
    ("sample", "notes", "notes configs/loop.yaml"),
    ("sample", "notes-json", "notes configs/loop.yaml --format json"),
    ("sample", "simulate", "simulate configs/loop.yaml --qrels sample_corpus/truth.qrels"),
    ("sample", "simulate-json", "simulate configs/loop.yaml --qrels sample_corpus/truth.qrels "
                                "--format json --budgets 0.5,1"),
    ("sample", "store-copy", "store copy configs/loop.yaml out/copy.sqlite"),
    ("sample", "store-copy-json", "store copy configs/loop.yaml out/copy2.sqlite --format json"),
    ("sample", "score", f"score out/loop.qrels {SAMPLE_RUNS} -k 5,10"),
    ("sample", "score-perq", f"score out/loop.qrels {SAMPLE_RUNS} --per-query"),
    ("sample", "score-json", f"score out/loop.qrels {SAMPLE_RUNS} --format json"),
    ("sample", "score-csv", f"score out/loop.qrels {SAMPLE_RUNS} --format csv --per-query"),
    ("sample", "score-md", f"score out/loop.qrels {SAMPLE_RUNS} --format markdown"),
    ("sample", "score-golden", "score sample_corpus/golden.yaml sample_corpus/seed.run "
                               f"{SAMPLE_RUNS} -k 5,10 --corpus sample_corpus/corpus.jsonl "
                               "--truth sample_corpus/truth.qrels"),
    ("sample", "score-stages", "score sample_corpus/golden.yaml "
                               "sample_corpus/loop-runs/rerank.run --fetch "
                               "sample_corpus/loop-runs/rerank.fetch.run --stages 100,10 "
                               "-m R@10"),
    ("sample", "score-test", f"score sample_corpus/truth.qrels {SAMPLE_RUNS} --test t "
                             "-m nDCG@10,AP"),
    ("sample", "score-sample", "score out/unjudged.qrels sample_corpus/loop-runs/bm25.run "
                               "--sample out/loop.sample -m xinfAP,infNDCG@10"),
    ("sample", "score-failon", f"score out/loop.qrels {SAMPLE_RUNS} --fail-on rel-lt-k"),
    ("sample", "trec-eval", "trec-eval out/loop.qrels sample_corpus/loop-runs/bm25.run"),
    ("sample", "trec-eval-q", "trec-eval -q -m all_trec sample_corpus/truth.qrels "
                              "sample_corpus/loop-runs/dense.run"),
    ("sample", "schema", "schema"),
    ("sample", "schema-score", "schema score"),
    ("sample", "help", "--help"),
    ("sample", "err-qrels", "score sample_corpus/corpus.jsonl sample_corpus/seed.run"),
    ("sample", "err-missing", "score missing.qrels sample_corpus/seed.run"),
    ("sample", "err-assessor", "export configs/loop.yaml --format qrels --assessor nobody"),
    ("sample", "err-measure", f"score out/loop.qrels {SAMPLE_RUNS} -m nDGC@10"),
    ("sample", "err-config", "status configs/missing.yaml"),
    ("dl19", "pool", "pool configs/dl19.yaml"),
    ("dl19", "import-nist", "import configs/dl19.yaml {dl19}/qrels.txt --as nist"),
    ("dl19", "pool-deeper", "pool configs/dl19.yaml --depth 20"),
    ("dl19", "status", "status configs/dl19.yaml"),
    ("dl19", "compare", "compare configs/dl19.yaml"),
    ("dl19", "reusability", "reusability configs/dl19.yaml"),
    ("dl19", "agreement", "agreement configs/dl19.yaml --qrels "
                          "llama={dl19}/judges/llama-3.3-70b.4prompts.qrels"),
    ("dl19", "export-qrels", "export configs/dl19.yaml --format qrels -o out/dl19.qrels"),
    ("dl19", "score", "score {dl19}/qrels.txt {dl19}/runs/bm25.run {dl19}/runs/tasb.run "
                      "{dl19}/runs/repllama.run -k 10"),
    ("dl19", "score-json", "score {dl19}/qrels.txt {dl19}/runs/bm25.run --format json "
                           "--level 2 -m nDCG@10,AP,R@100,RR,bpref,Judged@10"),
    ("dl19", "score-test", "score {dl19}/qrels.txt {dl19}/runs/bm25.run {dl19}/runs/tasb.run "
                           "{dl19}/runs/splade-pp-ed.run --test randomization -m nDCG@10"),
    ("dl19", "score-export", "score out/dl19.qrels {dl19}/runs/bm25-rm3.run --format markdown"),
    ("dl19", "trec-eval", "trec-eval {dl19}/qrels.txt {dl19}/runs/bm25.run"),
    ("dl19", "trec-eval-all", "trec-eval -m all_trec -c -l 2 {dl19}/qrels.txt "
                              "{dl19}/runs/tasb.run"),
    ("dl19", "trec-eval-q", "trec-eval -q -M 100 -m ndcg_cut.10 -m P.5,10 {dl19}/qrels.txt "
                            "{dl19}/runs/repllama.run"),
    ("dl19", "simulate-file", "simulate --qrels {dl19}/qrels.txt {dl19}/runs/bm25.run "
                              "{dl19}/runs/tasb.run --depth 10 --budgets 0.25,1"),
    ("dl19", "sample-replay", "sample-replay {dl19} --rates 0.2 --seeds 3 --depth 20"),
    ("dl19", "ppi-replay", "ppi-replay --qrels {dl19}/qrels.full.txt --machine "
                           "{dl19}/judges/flan-t5-large.4prompts.qrels {dl19}/runs/bm25.run "
                           "{dl19}/runs/tasb.run --n 5 --seeds 3 --design pairs"),
    ("cranfield", "pool", "pool out/cranfield.yaml"),
    ("cranfield", "import", "import out/cranfield.yaml {cran}/qrels.txt --as nist"),
    ("cranfield", "status-json", "status out/cranfield.yaml --format json"),
    ("cranfield", "export", "export out/cranfield.yaml --format qrels --unjudged -1 "
                            "-o out/cran.qrels --sample out/cran.sample"),
    ("cranfield", "score-sample", "score out/cran.qrels out/cran-runs/bm25.run --sample "
                                  "out/cran.sample -m xinfAP,infNDCG@10,infAP,statAP"),
    ("cranfield", "simulate", "simulate out/cranfield.yaml --qrels {cran}/qrels.txt "
                              "--budgets 0.5"),
    ("cranfield", "compare-json", "compare out/cranfield.yaml --format json"),
]

CRANFIELD_CONFIG = """\
name: cranfield-parity
corpus: {cran}/corpus.jsonl
queries: {cran}/queries.jsonl
store: cran.sqlite
runs_dir: cran-runs
cache_dir: cran-cache
systems:
  bm25:  {{kind: bm25, depth: 50}}
  bm25b: {{kind: bm25, depth: 50, k1: 0.9, b: 0.4}}
pool:
  strategy: sample
  depth: 50
  strata: [[1, 10, 1.0], [11, 30, 0.3], [31, 50, 0.1]]
  seed: 13
"""

#: what may differ between two runs of one checkout, and what it is replaced by
MASKS = [
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:?\d\d|Z)?"), "<TIME>"),
    (re.compile(r"\d{4}-\d\d-\d\d( \d\d:\d\d(:\d\d)?)?"), "<DATE>"),
    (re.compile(r"\b\d+(\.\d+)? ?(s|ms|seconds)\b"), "<DURATION>"),
    (re.compile(r'("[a-z_]*(seconds|elapsed|wall|duration)[a-z_]*": )[0-9.e-]+'),
     r"\1<DURATION>"),
    # a store's content hash covers its events' times
    (re.compile(r'(content sha256 |"hash": ")[0-9a-f]{64}'), r"\1<STORE-HASH>"),
]


def mask(text: str, work: Path) -> str:
    text = text.replace(str(work), "<WORK>")
    for pattern, repl in MASKS:
        text = pattern.sub(repl, text)
    return text


def run_all(tree: Path, out: Path, shared: Path, parts: set[str]) -> int:
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="poolkit-parity-"))
    try:
        work = scratch / "repo"
        (work / "out").mkdir(parents=True)
        shutil.copytree(REPO / "configs", work / "configs")
        shutil.copytree(REPO / "sample_corpus", work / "sample_corpus",
                        ignore=shutil.ignore_patterns("*.sqlite*", "loop-runs", "runs"))
        (scratch / "shared").symlink_to(shared)
        dl19 = str(shared / "collections" / "dl19-passage-pool")
        cran = str(shared / "collections" / "cranfield")
        (work / "out" / "cranfield.yaml").write_text(CRANFIELD_CONFIG.format(cran=cran))
        env = dict(os.environ, PYTHONPATH=str(tree), HF_HUB_OFFLINE="1",
                   TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false", COLUMNS="100",
                   TZ="UTC")
        env.pop("CI", None)
        failures = 0
        for number, (part, name, command) in enumerate(COMMANDS):
            if part not in parts:
                continue
            argv = command.format(dl19=dl19, cran=cran).split()
            before = {p: p.stat().st_mtime_ns for p in (work / "out").rglob("*") if p.is_file()}
            proc = subprocess.run([sys.executable, "-m", "poolkit", *argv], cwd=work, env=env,
                                  capture_output=True, text=True, stdin=subprocess.DEVNULL)
            stem = out / f"{number:02d}-{part}-{name}"
            stem.with_suffix(".out").write_text(mask(proc.stdout, work))
            stem.with_suffix(".err").write_text(mask(proc.stderr, work))
            stem.with_suffix(".rc").write_text(f"{proc.returncode}\n")
            for path in sorted((work / "out").rglob("*")):
                if not path.is_file() or before.get(path) == path.stat().st_mtime_ns:
                    continue
                kept = out / f"{stem.name}.file.{path.relative_to(work / 'out')}".replace(
                    os.sep, "_")
                data = path.read_bytes()
                if path.suffix == ".sqlite" or b"\0" in data[:4096]:
                    kept.write_text(f"{len(data) > 0} (binary)\n")
                else:
                    kept.write_text(mask(data.decode("utf-8", "replace"), work))
            print(f"{stem.name}: exit {proc.returncode}", flush=True)
            failures += proc.returncode not in (0, 2, 3)
        return failures
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout to run")
    parser.add_argument("--out", type=Path, required=True, help="folder for what it printed")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--only", default="sample,dl19,cranfield")
    parser.add_argument("--remask", action="store_true",
                        help="only apply the masks again to the files in --out")
    args = parser.parse_args()
    if args.remask:
        for path in args.out.iterdir():
            path.write_text(mask(path.read_text(), Path("/nonexistent")))
        return 0
    return run_all(args.tree.resolve(), args.out, args.shared.resolve(),
                   set(args.only.split(",")))


if __name__ == "__main__":
    sys.exit(main())
