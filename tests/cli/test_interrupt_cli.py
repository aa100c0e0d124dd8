"""Ctrl-C (SIGINT) or SIGTERM in a long command: exit 130 (143), one line saying what was
kept and how to resume (``poolkit.interrupt``), and nothing else changed. Each command runs
in a subprocess signalled at a named moment (``tests/killpoints.py``), never on a timer."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from killpoints import HERE, REPO, kill, run
from shared_data import SAMPLE

from poolkit.cli import SUBCOMMANDS
from poolkit.interrupt import KEPT


def files(root: Path) -> dict[str, str]:
    """Every file's sha256 (SQLite's transient companions aside)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))}


def events(store: Path) -> list[tuple]:
    with sqlite3.connect(store) as conn:
        return conn.execute("SELECT * FROM events ORDER BY id").fetchall()


def collection(root: Path, systems: str = "  bm25: {kind: bm25, depth: 10}\n") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    config = root / "c.yaml"
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                      f"store: store.sqlite\ncache_dir: cache\nsystems:\n{systems}"
                      f"pool:\n  depth: 3\n")
    return config


@pytest.fixture(scope="module")
def pooled(tmp_path_factory) -> Path:
    """A pooled collection with the sample's truth imported, to copy for each test."""
    root = tmp_path_factory.mktemp("pooled")
    config = collection(root)
    for argv in (["pool", str(config)],
                 ["import", str(config), str(SAMPLE / "truth.qrels"), "--as", "nist"]):
        done = run(argv, cwd=root)
        assert done.returncode == 0, done.stderr
    return root


def copy_of(pooled: Path, root: Path) -> Path:
    import shutil

    shutil.copytree(pooled, root)
    return root / "c.yaml"


def interrupted(done: subprocess.CompletedProcess[str], line: str, code: int = 130) -> None:
    """Ended by the signal, its last word on stderr ``line`` (pool's log of what it ran
    comes before), and no traceback."""
    assert done.returncode == code, done.stderr
    assert done.stderr.splitlines()[-1] == line and "Traceback" not in done.stderr


AGAIN = "run the same command again"


@pytest.mark.parametrize("signame, code, how", [("SIGINT", 130, "interrupted"),
                                                ("SIGTERM", 143, "terminated")])
def test_a_first_pool_stopped_before_its_commit_records_nothing(tmp_path, signame, code, how):
    config = collection(tmp_path)
    before = files(tmp_path)
    done = kill(signame, "poolkit.pool.run_systems:run_systems", "after",
                ["pool", str(config), "--quiet"], cwd=tmp_path)
    interrupted(done, f"poolkit pool: {how}; nothing recorded, the store is as it was: {AGAIN}",
                code)
    assert done.stdout == ""
    assert {k: v for k, v in files(tmp_path).items() if not k.startswith("cache/")} == before
    assert run(["pool", str(config), "--quiet"], cwd=tmp_path).returncode == 0


def test_a_pool_stopped_after_its_commit_says_what_it_recorded(pooled, tmp_path):
    config = copy_of(pooled, tmp_path / "c")
    done = kill("SIGINT", "poolkit.pool.publish:PendingRuns.settle", "after",
                ["pool", str(config), "--depth", "5", "--quiet"], cwd=config.parent)
    interrupted(done, f"poolkit pool: interrupted; pool version 2 recorded with its run files: "
                      f"{AGAIN}")
    with sqlite3.connect(config.parent / "store.sqlite") as conn:
        assert conn.execute("SELECT max(version) FROM pool_versions").fetchone() == (2,)


def test_an_interrupted_import_records_no_label(pooled, tmp_path):
    config = copy_of(pooled, tmp_path / "c")
    store = config.parent / "store.sqlite"
    before = events(store)
    done = kill("SIGINT", "poolkit.store.imports:import_labels", "before",
                ["import", str(config), str(SAMPLE / "golden.yaml"), "--as", "bob"],
                cwd=config.parent)
    interrupted(done, f"poolkit import: interrupted; no label recorded: {AGAIN}")
    assert events(store) == before


def test_an_interrupted_export_writes_nothing(pooled, tmp_path):
    config = copy_of(pooled, tmp_path / "c")
    (config.parent / "labels.qrels").write_text("mine\n")
    before = files(config.parent)
    done = kill("SIGINT", "poolkit.io.staged:StagedOutputs.write", "after",
                ["export", str(config), "--format", "qrels", "--policy", "latest", "-o",
                 "labels.qrels", "--sample", "pool.sample"], cwd=config.parent)
    interrupted(done, "poolkit export: interrupted; nothing written (every output is replaced "
                      f"whole or not at all): {AGAIN}")
    assert files(config.parent) == before


@pytest.mark.parametrize("argv, target, says", [
    (["score", str(SAMPLE / "truth.qrels"), str(SAMPLE / "seed.run")],
     "poolkit.app.score:score_runs", "poolkit score: interrupted; nothing written"),
    (["store", "copy", "store.sqlite", "copy.sqlite"], "poolkit.store.copy:copy_store",
     "poolkit store copy: interrupted; nothing copied (a new file appears only once "
     "verified, a database gets every row or none)"),
], ids=["score", "store-copy"])
def test_other_commands_say_what_they_kept(pooled, tmp_path, argv, target, says):
    config = copy_of(pooled, tmp_path / "c")
    before = files(config.parent)
    done = kill("SIGINT", target, "before", argv, cwd=config.parent)
    interrupted(done, f"{says}: {AGAIN}")
    assert done.stdout == "" and files(config.parent) == before


def test_every_command_says_what_an_interrupt_keeps():
    """A new command states what Ctrl-C leaves of its work (None: it says so itself)."""
    commands = {c for c in SUBCOMMANDS if c != "store"} | {"store init", "store copy"}
    assert set(KEPT) == commands


@pytest.mark.slow  # loads MiniLM in two processes
def test_an_interrupted_dense_encode_is_resumed_by_the_same_command(tmp_path):
    """Chunks of 8 passages in batches of 4: SIGINT once two chunks are kept. The line says
    so; the same command then encodes the rest only and pools."""
    config = collection(tmp_path, "  dense: {kind: dense, depth: 10, batch_size: 4}\n")
    script = ("import sys; import poolkit.retrieve.dense as d; d.CHUNK_PASSAGES = 8; "
              "import killpoints; killpoints.arm('SIGINT', "
              "'poolkit.retrieve.dense:EncodedChunks.keep', 'after', 2); "
              "from poolkit.cli import main; sys.exit(main(sys.argv[1:]))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)])}
    done = subprocess.run([sys.executable, "-c", script, "pool", str(config), "--quiet"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    interrupted(done, "poolkit pool: interrupted; nothing recorded, the store is as it was; "
                      "dense embeddings of 16 of 24 passages kept in the cache: run the same "
                      "command to resume")
    parts = list((tmp_path / "cache").glob("dense-*.parts/*.npy"))
    assert len(parts) == 2 and not (tmp_path / "store.sqlite").exists()
    # Armed again at a second chunk kept: the rerun keeps only the third, so it never fires.
    resumed = subprocess.run([sys.executable, "-c", script.replace("'after', 2", "'before', 2"),
                              "pool", str(config), "--quiet"], capture_output=True, text=True,
                             cwd=tmp_path, env=env, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "dense [dense]: 40 results for 4 queries" in resumed.stderr
    assert not list((tmp_path / "cache").glob("dense-*.parts"))
