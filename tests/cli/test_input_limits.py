"""Resource limits through the real CLI in a subprocess (issue 22, item 20).

Under `ulimit -v` a command died with a MemoryError traceback while importing its modules;
under `ulimit -n` a store that could not be opened for want of file descriptors was said to
be a missing folder, and an import that could not open its source a traceback. Now each is
one stderr line naming the limit, exit 2, and nothing written.
"""

from __future__ import annotations

import hashlib
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from poolkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {
    "status": ["status", "config.yaml"],
    "import": ["import", "config.yaml", "l.qrels", "--as", "bob"],
    "score": ["score", "l.qrels", "sys.run"],
    "export": ["export", "config.yaml", "--format", "qrels"],
}
OUT_OF_MEMORY = ("out of memory: the address-space limit (`ulimit -v`) is {} MiB; "
                 "raise it, or give the command less to read")
TOO_MANY_FILES = ("too many open files (`ulimit -n` is {}): raise the limit and run the command "
                  "again")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, compiled_poolkit: None) -> Path:
    root = tmp_path_factory.mktemp("limits")
    (root / "corpus.jsonl").write_text('{"id": "d1", "text": "a"}\n{"id": "d2", "text": "b"}\n')
    (root / "queries.tsv").write_text("q1\tfall armyworm\n")
    (root / "sys.run").write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    (root / "l.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (root / "config.yaml").write_text("corpus: corpus.jsonl\nqueries: queries.tsv\n"
                                      "store: store.sqlite\nsystems:\n"
                                      "  s: {kind: run, path: sys.run}\n")
    assert main(["pool", str(root / "config.yaml")]) == 0
    return root


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))}


def limited(root: Path, argv: list[str], which: int, value: int) -> subprocess.CompletedProcess:
    # The limits below are where NumPy stops fitting with OpenBLAS's own thread count (a
    # thread per core, each with its buffers); conftest's OMP_NUM_THREADS=1 would move them.
    env = {**{k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"},
           "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "poolkit", *argv], cwd=root, env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          preexec_fn=lambda: resource.setrlimit(which, (value, value)))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_memory_limit_gives_success_or_one_line_naming_it(world, command):
    """Address-space limits around where importing NumPy stops fitting: each either lets the
    command run or stops it with one line naming the limit, and at least one stops it. (Near
    and below ~145 MiB, OpenBLAS, loaded with NumPy, may itself fail in C and end the process
    before Python runs another line; nothing in Python can word that.)"""
    stopped = []
    for mib in (145, 150, 155, 160, 165):
        before = snapshot(world)
        done = limited(world, COMMANDS[command], resource.RLIMIT_AS, mib << 20)
        if done.returncode == 0:
            assert "Traceback" not in done.stderr
            continue
        lines = done.stderr.splitlines()
        if lines and lines[0].startswith("OpenBLAS"):
            continue  # NumPy's BLAS gave up in C, while loading, before poolkit could speak
        assert len(lines) == 1, (mib, done.stderr)
        assert lines[0].startswith(f"poolkit {command}: error: ")
        assert lines[0].endswith(OUT_OF_MEMORY.format(mib)), (mib, lines[0])
        assert done.returncode == 2
        assert snapshot(world) == before
        stopped.append(mib)
    assert stopped, "no limit stopped the command: the sweep proves nothing"


@pytest.mark.parametrize("command", COMMANDS)
def test_any_open_file_limit_gives_success_or_one_line_naming_it(world, tmp_path, command):
    """From 5 descriptors (fewer and Python itself cannot start) up: each limit either lets
    the command run or stops it with one line that names the limit; at least one stops it,
    and a stopped command changed nothing."""
    stopped = []
    for n in range(5, 13):
        before = snapshot(world)
        done = limited(world, COMMANDS[command], resource.RLIMIT_NOFILE, n)
        if done.returncode == 0:
            assert "Traceback" not in done.stderr
            continue
        lines = done.stderr.splitlines()
        assert len(lines) == 1, (n, done.stderr)
        assert lines[0].startswith(f"poolkit {command}: error: ")
        assert lines[0].endswith(TOO_MANY_FILES.format(n)), (n, lines[0])
        assert done.returncode == 2
        assert snapshot(world) == before
        stopped.append(n)
    if command == "import":  # the others may fit in 5 (their stops are shown where they occur)
        assert stopped, "no limit stopped the command: the sweep proves nothing"


def test_a_store_that_cannot_be_opened_for_want_of_descriptors_says_so(world):
    done = limited(world, COMMANDS["import"], resource.RLIMIT_NOFILE, 5)
    assert done.stderr.splitlines() == [
        f"poolkit import: error: {world / 'store.sqlite'}: store cannot be opened: "
        + TOO_MANY_FILES.format(5)]
    assert done.returncode == 2
