"""Whole-process scoring benchmark: ``poolkit score`` against trec_eval, pytrec_eval,
ir_measures and ranx.

Generates (once, deterministic seed) a qrels and a run of 10,000 queries x 1,000 ranked docs,
about 20 graded relevant ids (grades 1-3) and about 20 judged non-relevant per query, then
times each tool as its own process, file parsing included, for P@10, R@100, RR@10, AP and
nDCG@10: wall time and peak RSS, median of ``--repeats`` runs, the tools interleaved (each
repeat in a rotated order) so that load on the machine falls on all of them alike. Prints
the table with poolkit/peer ratios, and checks that every tool computes the same means (to 4
decimals against pytrec_eval, trec_eval's own C code).

    python benchmarks/bench_score.py            # 10,000 and 43 queries (about 10 minutes)
    python benchmarks/bench_score.py --small    # 1,000 queries, a quick check
    python benchmarks/bench_score.py --multi 5  # one process scoring 5 runs vs 5 processes

trec_eval is built from ../shared/reference/trec_eval-src (``make``) into a temporary folder
that is removed afterwards. Needs the bench extra (``pip install -e '.[bench]'``); a peer that
is not installed (or a trec_eval source that is absent) is skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import HERE, OUT, Sample, cache_bytecode_in, generate, measure, median_sample

MEASURES = ["P@10", "R@100", "RR@10", "AP", "nDCG@10"]
PEERS = HERE / "peers"


def poolkit_cmd(qrels: Path, *runs: Path) -> list[str]:
    script = Path(sys.executable).with_name("poolkit")
    exe = [str(script)] if script.exists() else [sys.executable, "-m", "poolkit"]
    return [*exe, "score", str(qrels), *map(str, runs),
            *(a for m in MEASURES for a in ("-m", m)), "--format", "json"]


def poolkit_means(stdout: str) -> dict[str, float]:
    run = json.loads(stdout)["runs"][0]
    return {m: run["measures"][m]["mean"] for m in MEASURES}


def peer_means(stdout: str) -> dict[str, float]:
    return json.loads(stdout)["means"]


TREC_EVAL_SRC = HERE.parent.parent / "shared" / "reference" / "trec_eval-src"
TREC_EVAL_MEASURES = {"P_10": "P@10", "recall_100": "R@100", "map": "AP",
                      "ndcg_cut_10": "nDCG@10"}  # recip_rank has no cutoff: RR@10 not compared


def build_trec_eval(folder: Path) -> Path | None:
    """trec_eval built from its source in ``folder`` (a temporary copy), or None."""
    if not (TREC_EVAL_SRC / "Makefile").exists():
        return None
    src = folder / "trec_eval-src"
    shutil.copytree(TREC_EVAL_SRC, src)
    subprocess.run(["make", "-s", "-C", str(src)], check=True, capture_output=True)
    return src / "trec_eval"


def trec_eval_cmd(binary: Path):  # type: ignore[no-untyped-def]
    return lambda q, r: [str(binary), "-m", "P.10", "-m", "recall.100", "-m", "recip_rank",
                         "-m", "map", "-m", "ndcg_cut.10", str(q), str(r)]


def trec_eval_means(stdout: str) -> dict[str, float]:
    out = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all" and parts[0] in TREC_EVAL_MEASURES:
            out[TREC_EVAL_MEASURES[parts[0]]] = float(parts[2])
    return out


# name -> (module that must be importable, command builder, parser of its stdout)
TOOLS = {
    "poolkit": ("poolkit", poolkit_cmd, poolkit_means),
    "pytrec_eval": ("pytrec_eval",
                    lambda q, r: [sys.executable, str(PEERS / "pytrec_eval_score.py"), str(q),
                                  str(r)], peer_means),
    "ir_measures": ("ir_measures",
                    lambda q, r: [sys.executable, str(PEERS / "ir_measures_score.py"), str(q),
                                  str(r)], peer_means),
    "ranx": ("ranx",
             lambda q, r: [sys.executable, str(PEERS / "ranx_score.py"), str(q), str(r)],
             peer_means),
}
# Not a peer: poolkit's Python API alone (read_qrels, read_run, evaluate), to show what the
# CLI's audit, intervals and report add. Only with --api.
API = ("poolkit", lambda q, r: [sys.executable, str(PEERS / "poolkit_api_score.py"), str(q),
                                str(r)], peer_means)
REFERENCE = "pytrec_eval"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="1,000 queries instead of 10,000")
    parser.add_argument("--queries", default="10000,43",
                        help="comma-separated query counts, each its own table (default: "
                             "10000,43: the big run and a DL19-sized one, where start-up "
                             "dominates)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per tool (median taken)")
    parser.add_argument("--tools", default=",".join(["trec_eval", *TOOLS]),
                        help=f"comma-separated subset of trec_eval, {', '.join(TOOLS)}")
    parser.add_argument("--api", action="store_true",
                        help="also time poolkit's Python API alone (read + evaluate, no report)")
    parser.add_argument("--multi", type=int, default=None, metavar="N",
                        help="instead: `poolkit score QRELS RUN1 .. RUNN` in one process "
                             "against N processes scoring one run each (same files; "
                             "default size 1,000 queries, --queries to change)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-score-") as tmp:
        cache_bytecode_in(Path(tmp) / "pycache")
        if args.multi is not None:
            queries = 1_000 if args.small or "--queries" not in (argv or sys.argv) \
                else int(args.queries.split(",")[0])
            bench_multi(queries, args.multi, args.repeats)
            return 0
        return bench_tools(args, parser, Path(tmp))


def bench_tools(args: argparse.Namespace, parser: argparse.ArgumentParser, tmp: Path) -> int:
    """Every tool on each size of ``--queries``; writes the raw numbers under out/."""
    sizes = [1_000] if args.small else [int(q) for q in args.queries.split(",")]
    tools = {}
    for name in args.tools.split(","):
        if name == "trec_eval":
            binary = build_trec_eval(tmp)
            if binary is None:
                print(f"skipping trec_eval: no source at {TREC_EVAL_SRC}", file=sys.stderr)
                continue
            tools[name] = ("", trec_eval_cmd(binary), trec_eval_means)
            continue
        if name not in TOOLS:
            parser.error(f"unknown tool {name!r}; valid: trec_eval, {', '.join(TOOLS)}")
        if importlib.util.find_spec(TOOLS[name][0]) is None:
            print(f"skipping {name}: not installed (pip install -e '.[bench]')",
                  file=sys.stderr)
            continue
        tools[name] = TOOLS[name]
    if args.api:
        tools["poolkit API"] = API
    results = [bench_size(tools, queries, args.repeats) for queries in sizes]
    out = OUT / f"bench_score-{'-'.join(map(str, sizes))}.json"
    out.write_text(json.dumps({"python": platform.python_version(),
                               "machine": platform.machine(), "sizes": results},
                              indent=2) + "\n")
    print(f"\n(raw numbers: {out.relative_to(HERE.parent)})")
    return 0


def bench_size(tools: dict, queries: int, repeats: int) -> dict:  # type: ignore[type-arg]
    t0 = time.perf_counter()
    qrels, run = generate(queries)
    judged = qrels.read_bytes().count(b"\n")
    print(f"data: {queries:,} queries x 1,000 docs: {run.name} ({run.stat().st_size / 2**20:.0f} "
          f"MiB), {qrels.name} ({judged:,} judgments) "
          f"[{time.perf_counter() - t0:.1f} s to generate or reuse]", flush=True)

    # Warm-up on a tiny file, untimed: library files in the page cache, numba's compile cache.
    tiny_q, tiny_r = generate(20)
    for name, (_mod, cmd, _parse) in tools.items():
        measure(cmd(tiny_q, tiny_r))

    samples: dict[str, list[Sample]] = {name: [] for name in tools}
    names = list(tools)
    for rep in range(repeats):
        order = names[rep % len(names):] + names[:rep % len(names)]
        for name in order:
            s = measure(tools[name][1](qrels, run))
            samples[name].append(s)
            print(f"  run {rep + 1}/{repeats} {name:12s} {s.wall:7.2f} s "
                  f"{s.rss_mb:7.0f} MiB", flush=True)
    med = {name: median_sample(ss) for name, ss in samples.items()}
    means = {name: tools[name][2](med[name].stdout) for name in tools}

    print()
    print(table(med, queries, repeats))
    print()
    print(agreement(means))
    print()
    return {"queries": queries, "repeats": repeats,
            "tools": {n: {"wall_s": m.wall, "peak_rss_mib": m.rss_mb, "cpu_s": m.cpu,
                          "means": means[n]} for n, m in med.items()}}


def variant_runs(run: Path, n: int) -> list[Path]:
    """``n`` runs over the same queries and documents as ``run``: its scores plus seeded
    noise, re-ranked and written best first (so every run is scored, not a copy of one)."""
    import numpy as np

    lines = run.read_text(encoding="ascii").splitlines()
    cols = [line.split() for line in lines]
    qids = [c[0] for c in cols]
    docs = [c[2] for c in cols]
    scores = np.array([float(c[4]) for c in cols])
    starts = [i for i in range(len(qids)) if i == 0 or qids[i] != qids[i - 1]] + [len(qids)]
    out = []
    for v in range(n):
        path = run.with_name(f"{run.stem}-noisy{v + 1}.run")
        out.append(path)
        if path.exists():
            continue
        noisy = scores + np.random.default_rng(v + 1).normal(0, 0.5, len(scores)).round(4)
        with open(path.with_suffix(".tmp"), "w", encoding="ascii") as fh:
            for a, b in zip(starts[:-1], starts[1:]):
                # trec_eval's order (score descending, doc id descending), as engines write
                order = sorted(range(a, b), key=docs.__getitem__, reverse=True)
                order.sort(key=lambda j: -noisy[j])
                fh.write("".join(f"{qids[a]} Q0 {docs[j]} {r + 1} {noisy[j]:.4f} "
                                 f"v{v + 1}\n" for r, j in enumerate(order)))
        path.with_suffix(".tmp").replace(path)
    return out


def bench_multi(queries: int, n: int, repeats: int) -> None:
    """One ``poolkit score`` process over N runs (its default ``--jobs``, and ``--jobs 1``)
    against N processes of one run each."""
    qrels, base = generate(queries)
    runs = variant_runs(base, n)
    print(f"data: {n} runs of {queries:,} queries x 1,000 docs "
          f"({sum(r.stat().st_size for r in runs) / 2**20:.0f} MiB), {qrels.name}", flush=True)
    measure(poolkit_cmd(qrels, runs[0]))  # warm-up, untimed
    multi: list[Sample] = []
    serial: list[Sample] = []
    single: list[list[Sample]] = []
    for rep in range(repeats):
        multi.append(measure(poolkit_cmd(qrels, *runs)))
        serial.append(measure([*poolkit_cmd(qrels, *runs), "--jobs", "1"]))
        single.append([measure(poolkit_cmd(qrels, r)) for r in runs])
        print(f"  repeat {rep + 1}/{repeats}: {n} runs in one process {multi[-1].wall:.2f} s "
              f"(--jobs 1: {serial[-1].wall:.2f} s), {n} processes "
              f"{sum(s.wall for s in single[-1]):.2f} s", flush=True)
    m, m1 = median_sample(multi), median_sample(serial)
    one = [median_sample([reps[i] for reps in single]) for i in range(n)]
    total = sum(s.wall for s in one)
    agree = all(json.loads(s.stdout)["runs"][0]["measures"] == together[i]["measures"]
                for together in (json.loads(m.stdout)["runs"], json.loads(m1.stdout)["runs"])
                for i, s in enumerate(one))
    from poolkit.threads import default_jobs, usable_cpus

    jobs = default_jobs(n)
    print()
    print(f"Scoring {n} runs against one qrels ({queries:,} queries x 1,000 docs each, "
          f"5 measures, JSON; median of {repeats}; {usable_cpus()} CPUs)")
    print()
    print("| how | wall time (s) | peak RSS (MiB) | CPU (s) | wall / N processes' |")
    print("|---|---:|---:|---:|---:|")
    for label, s in ((f"`poolkit score QRELS RUN1 .. RUN{n}` (one process, --jobs {jobs})", m),
                     (f"`poolkit score QRELS RUN1 .. RUN{n} --jobs 1`", m1)):
        print(f"| {label} | {s.wall:.2f} | {s.rss_mb:.0f} | {s.cpu:.2f} | "
              f"{s.wall / total:.2f}x |")
    print(f"| {n} x `poolkit score QRELS RUN` (sum) | {total:.2f} | "
          f"{max(s.rss_mb for s in one):.0f} (max) | {sum(s.cpu for s in one):.2f} | 1.00x |")
    print(f"| one run (mean of the {n}) | {total / n:.2f} | "
          f"{sum(s.rss_mb for s in one) / n:.0f} | {sum(s.cpu for s in one) / n:.2f} | "
          f"{1 / n:.2f}x |")
    print()
    print(f"one process / {n} processes: {m.wall / total:.2f}x the time "
          f"({m.wall / (total / n):.2f} runs' worth of one run's time; --jobs 1: "
          f"{m1.wall / total:.2f}x); every run's measures "
          f"{'identical' if agree else 'DIFFER'} to scoring it alone")
    if n > 1:  # T(N runs) = T(1 run) + (N - 1) x what each further run adds
        added = (m.wall - total / n) / (n - 1)
        print(f"each run beyond the first adds {added:.2f} s to the one process, "
              f"{added / (total / n):.2f}x a run scored alone ({total / n:.2f} s)")


def table(med: dict[str, Sample], queries: int, repeats: int) -> str:
    """Markdown table: wall time and peak RSS per tool, and poolkit's ratio to each."""
    base = med.get("poolkit")
    rows = [f"Whole process, {queries:,} queries x 1,000 docs, median of {repeats} "
            f"(ratio = poolkit / tool; < 1 means poolkit is faster / smaller)",
            "",
            "| tool | wall time (s) | peak RSS (MiB) | CPU (s) | time ratio | memory ratio |",
            "|---|---:|---:|---:|---:|---:|"]
    for name, s in med.items():
        peer = base is not None and name in (*TOOLS, "trec_eval") and name != "poolkit"
        tr = f"{base.wall / s.wall:.2f}" if peer else "—"
        mr = f"{base.rss_mb / s.rss_mb:.2f}" if peer else "—"
        rows.append(f"| {name} | {s.wall:.2f} | {s.rss_mb:.0f} | {s.cpu:.2f} | {tr} | {mr} |")
    return "\n".join(rows)


def agreement(means: dict[str, dict[str, float]]) -> str:
    """Each tool's means beside pytrec_eval's, and whether they agree to 4 decimals."""
    names = list(means)
    ref = means.get(REFERENCE)
    rows = ["Means (agree = every tool within 0.00005 of pytrec_eval, i.e. the same to 4 "
            "decimals; trec_eval prints 4 decimals and has no RR@10)", "",
            "| measure | " + " | ".join(names) + " | agree |",
            "|---|" + "---:|" * len(names) + "---|"]
    ok_all = True
    for m in MEASURES:
        vals = [means[n].get(m) for n in names]
        if ref is None:
            ok = None
        else:
            # None: the tool has no such measure (trec_eval's recip_rank has no cutoff).
            ok = all(v is None or abs(v - ref[m]) <= 5e-5 + 1e-12 for v in vals)
            ok_all = ok_all and ok
        cells = " | ".join("—" if v is None else f"{v:.4f}" for v in vals)
        rows.append(f"| {m} | {cells} | {'—' if ok is None else 'yes' if ok else 'NO'} |")
    if ref is not None and "poolkit" in means:
        same = all(abs(means["poolkit"][m] - ref[m]) < 5e-5 for m in MEASURES)
        rows.append("")
        rows.append(f"poolkit vs pytrec_eval, 5 measures to 4 decimals: "
                    f"{'agree' if same else 'DIFFER'}")
    if ref is not None and not ok_all:
        rows.append("WARNING: some tool disagrees; its timing may not compare like with like")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
