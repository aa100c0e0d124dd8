#!/usr/bin/env python3
"""Set-up-and-run for a fresh machine that has only Python.

    python tasks.py sample   # pool the bundled sample, show the report, score every system
    python tasks.py test     # run the whole test suite
    python tasks.py bench    # run the benchmarks (installs the peers they compare against)
    python tasks.py docs     # build the documentation site strictly (docs serve: serve it)

Each creates ``.venv`` on first use and installs poolkit into it. PyTorch is installed first
and pinned to the CPU build (``torch==2.13.0``) so that nothing later pulls a CUDA build;
set ``POOLKIT_TORCH_INDEX`` to a CPU wheel index URL on machines whose default index only
has CUDA builds. Re-installs happen only when pyproject.toml changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
TORCH = "torch==2.13.0"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")


def sh(*cmd: str | Path, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT, env=env)


def ensure_env(extras: str, torch: bool = True) -> None:
    stamp = VENV / f".poolkit-installed-{extras.replace(',', '-')}"
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + TORCH.encode()).hexdigest()
    if stamp.exists() and stamp.read_text() == want:
        return
    if not PY.exists():
        print(f"creating {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    pip = [PY, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    index = os.environ.get("POOLKIT_TORCH_INDEX")
    if torch:
        sh(*pip, TORCH, *(["--index-url", index] if index else []))
    # torch is already satisfied, so sentence-transformers cannot pull another build.
    sh(*pip, "-e", f".[{extras}]")
    stamp.write_text(want)


def offline_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    return env


def sample() -> None:
    """The main job on the bundled sample: pool with three systems, then score every run."""
    ensure_env("all")
    poolkit = [PY, "-m", "poolkit"]
    env = offline_env()
    corpus = ROOT / "sample_corpus"
    config = ROOT / "configs" / "sample.yaml"
    # The seed's hand labels go into the store first (idempotent), so the pool report shows
    # how much of the pool they already cover.
    sh(*poolkit, "import", config, corpus / "golden.yaml", "--as", "golden", env=env)
    sh(*poolkit, "pool", config, env=env)
    pooled = corpus / ".poolkit" / "runs"  # poolkit's own runs folder, beside the store
    runs = [pooled / f"{name}.run" for name in ("bm25", "dense", "rerank")]
    golden = corpus / "golden.yaml"
    # Every system's run and the seed's own rankings against seed 000's judged grades.
    sh(*poolkit, "score", golden, corpus / "seed.run", *runs, "-k", "5,10",
       "--corpus", corpus / "corpus.jsonl", env=env)
    # The reranker's two stages: recall of its fetch list vs what it kept.
    sh(*poolkit, "score", golden, pooled / "rerank.run",
       "--fetch", pooled / "rerank.fetch.run", "--stages", "100,10", "-m", "R@10",
       env=env)


def test() -> None:
    ensure_env("all,dev,docs")  # docs: tests/docs builds the site
    sh(PY, "-m", "ruff", "check", "poolkit", "tests", "benchmarks", "tools", "tasks.py")
    sh(PY, "-m", "mypy")  # files and settings in pyproject.toml
    # Whole files to a worker: a module-scoped fixture (the DL19 loop, Cranfield's pool, the
    # simulations) is then built once, not once on each worker that gets one of its tests.
    # Files go out in collection order, which tests/file_order.py makes longest first, so
    # the two workers end together (xdist's own order, by number of tests, sends a file of
    # one long test last).
    sh(PY, "-m", "pytest", "-n", "2", "--dist", "loadfile", "--no-loadscope-reorder", "-q",
       *sys.argv[2:], env=offline_env())


def bench() -> None:
    ensure_env("all,dev,bench")
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        sh(PY, script, env=offline_env())


def docs() -> None:
    """``docs``: build the site into site/ with ``mkdocs build --strict`` (a broken link, a
    missing page or picture fails it); ``docs serve``: serve it on 127.0.0.1:8000, rebuilt
    on every change. The reference pages and pictures are generated and committed
    (docs/contributing.md says how to make them again)."""
    ensure_env("docs", torch=False)  # mkdocstrings reads poolkit's source, never imports it
    # Material's notice that it ends in 2027 (the move to Zensical: docs/contributing.md)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    if sys.argv[2:3] == ["serve"]:
        sh(PY, "-m", "mkdocs", "serve", *sys.argv[3:], env=env)
    else:
        sh(PY, "-m", "mkdocs", "build", "--strict", *sys.argv[2:], env=env)


TASKS = {"sample": sample, "test": test, "bench": bench, "docs": docs}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in TASKS:
        print(f"usage: python tasks.py {{{'|'.join(TASKS)}}}", file=sys.stderr)
        sys.exit(2)
    try:
        TASKS[sys.argv[1]]()
    except subprocess.CalledProcessError as exc:
        sys.exit(exc.returncode or 1)
