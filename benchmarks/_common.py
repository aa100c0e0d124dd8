"""Helpers shared by the benchmarks: synthetic TREC files and whole-process measurement.

Nothing here imports poolkit: the benchmark driver stays small, and every tool is timed in a
process of its own.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"

# Runs in a fresh, small Python process: starts the tool, waits for it with wait4 and prints
# the tool's own wall time and peak RSS. The wrapper is tiny, so the child's ru_maxrss (which
# on Linux starts from the RSS of the process that forked it) is the tool's own peak.
_WRAPPER = r"""
import json, os, subprocess, sys, time
out = open(sys.argv[1], "wb")
t0 = time.perf_counter()
proc = subprocess.Popen(sys.argv[2:], stdout=out)
_, status, ru = os.wait4(proc.pid, 0)
wall = time.perf_counter() - t0
proc.returncode = os.waitstatus_to_exitcode(status)
print(json.dumps({"wall": wall, "maxrss_kb": ru.ru_maxrss, "user": ru.ru_utime,
                  "sys": ru.ru_stime, "rc": proc.returncode}))
"""


def cache_bytecode_in(folder: Path) -> None:
    """Let every process started from now on write and reuse compiled bytecode in ``folder``.

    pip compiles an installed package's modules at install time, so a user's ``poolkit``
    (like every peer in site-packages) starts from ``.pyc`` files. A machine that sets
    ``PYTHONDONTWRITEBYTECODE`` (CI images, containers) would instead time an editable
    checkout compiling its own source on every start: ~0.08 s that no installed user pays.
    The benchmarks' untimed warm-up runs fill the cache."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder)


@dataclass
class Sample:
    wall: float  # seconds, process start to exit
    rss_mb: float  # peak resident set size, MiB
    cpu: float  # user + system seconds
    stdout: str


def measure(cmd: list[str], env: dict[str, str] | None = None) -> Sample:
    """Run ``cmd`` once in its own process; its wall time, peak RSS, CPU time and stdout."""
    with tempfile.NamedTemporaryFile(prefix="bench-", suffix=".out", dir=OUT, delete=False) as f:
        out_path = Path(f.name)
    try:
        done = subprocess.run([sys.executable, "-S", "-c", _WRAPPER, str(out_path), *cmd],
                              capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"wrapper failed: {done.stderr.strip()}")
        info = json.loads(done.stdout)
        stdout = out_path.read_text(encoding="utf-8")
    finally:
        out_path.unlink(missing_ok=True)
    if info["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {info['rc']}; see its stderr above")
    return Sample(info["wall"], info["maxrss_kb"] / 1024.0, info["user"] + info["sys"], stdout)


def median_sample(samples: list[Sample]) -> Sample:
    """Median wall time and median peak RSS (each over the repeats), stdout of the first."""
    return Sample(statistics.median(s.wall for s in samples),
                  statistics.median(s.rss_mb for s in samples),
                  statistics.median(s.cpu for s in samples), samples[0].stdout)


# --- synthetic TREC data ---------------------------------------------------------------------

GEN_VERSION = 1


def generate(num_queries: int, depth: int = 1000, seed: int = 20240601, *,
             rel_mean: int = 20, collection: int = 5_000_000) -> tuple[Path, Path]:
    """Write (or reuse) ``out/bench-{Q}x{depth}.qrels`` and ``.run``; return their paths.

    Per query: ``depth`` distinct doc ids drawn from a collection of ``collection`` ids, with
    strictly decreasing scores (4 decimals, no ties, so every tool agrees on the order) in
    rank order; 10-30 (about ``rel_mean``) relevant ids graded 1-3, most of them retrieved
    (more often near the top), some not; and about as many judged non-relevant (grade 0),
    retrieved or not. The same seed gives byte-identical files.
    """
    import numpy as np  # only the generator needs it

    OUT.mkdir(parents=True, exist_ok=True)
    stem = OUT / f"bench-{num_queries}x{depth}"
    qrels_path, run_path, meta_path = (stem.with_suffix(s) for s in (".qrels", ".run", ".json"))
    meta = {"version": GEN_VERSION, "queries": num_queries, "depth": depth, "seed": seed,
            "rel_mean": rel_mean, "collection": collection}
    if (meta_path.exists() and qrels_path.exists() and run_path.exists()
            and json.loads(meta_path.read_text()) == meta):
        return qrels_path, run_path

    rng = np.random.default_rng(seed)
    weights = 1.0 / (np.arange(depth) + 5.0)
    weights /= weights.sum()
    tmp_q, tmp_r = qrels_path.with_suffix(".qrels.tmp"), run_path.with_suffix(".run.tmp")
    with open(tmp_q, "w", encoding="ascii") as fq, open(tmp_r, "w", encoding="ascii") as fr:
        for q in range(num_queries):
            qid = f"{q + 1:05d}"
            ids = rng.choice(collection, size=depth + 60, replace=False)
            docs = [f"D{d:07d}" for d in ids[:depth]]
            spare = [f"D{d:07d}" for d in ids[depth:]]  # never retrieved
            gaps = rng.integers(1, 500, size=depth)  # in units of 1e-4: strictly decreasing
            scores = 40.0 - np.cumsum(gaps) / 1e4 + rng.integers(0, 100_000) / 1e4
            fr.write("".join(f"{qid} Q0 {d} {i + 1} {s:.4f} bench\n"
                             for i, (d, s) in enumerate(zip(docs, scores))))

            n_rel = int(rng.integers(rel_mean // 2, rel_mean * 3 // 2 + 1))
            n_ret = int(rng.binomial(n_rel, 0.8))
            n_non = int(rng.integers(rel_mean // 2, rel_mean * 3 // 2 + 1))
            n_non_ret = int(rng.binomial(n_non, 0.7))
            pos = rng.choice(depth, size=n_ret + n_non_ret, replace=False, p=weights)
            judged = [docs[p] for p in pos] + spare[: (n_rel - n_ret) + (n_non - n_non_ret)]
            rel_docs = judged[:n_ret] + judged[n_ret + n_non_ret:][: n_rel - n_ret]
            non_docs = judged[n_ret:n_ret + n_non_ret] + judged[n_ret + n_non_ret:][n_rel - n_ret:]
            grades = rng.choice([1, 2, 3], size=n_rel, p=[0.5, 0.3, 0.2])
            lines = [f"{qid} 0 {d} {g}\n" for d, g in zip(rel_docs, grades)]
            lines += [f"{qid} 0 {d} 0\n" for d in non_docs]
            order = rng.permutation(len(lines))  # qrels lines are not in rank order
            fq.write("".join(lines[i] for i in order))
    tmp_q.replace(qrels_path)
    tmp_r.replace(run_path)
    meta_path.write_text(json.dumps(meta))
    return qrels_path, run_path


def venv_python() -> str:
    return os.environ.get("BENCH_PYTHON", sys.executable)
