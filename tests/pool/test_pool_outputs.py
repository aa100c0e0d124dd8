"""What ``poolkit pool`` writes, and when (issue 22, items 1-5): never over one of its inputs;
registration and the pool version in one transaction; run files visible only with the commit
that records them, whatever signal arrives at whatever moment; no temporary file left by
SIGINT or SIGTERM, and a SIGKILL's swept by the next pool; no empty store left by a pool that
fails before it commits."""

from __future__ import annotations

import random
import signal
from pathlib import Path

import pytest
from killpoints import kill, run
from pool_helpers import SAMPLE
from pool_world import PoolWorld, check_runs_as_recorded, sha

from poolkit.cli import main


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file but caches and poolkit's hidden temporaries (checked on their own)."""
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".cache" not in p.parts
            and not p.name.startswith(".")}


# -- item 1: a run file given as input is never written over --------------------------------

@pytest.mark.parametrize("layout", ["default-runs-dir", "runs-dir-dot"])
def test_a_kind_run_file_where_pool_writes_its_copy_is_refused(tmp_path, capsys, layout):
    run_lines = "".join(f"q_faw Q0 {d} {r} {10 - r} mine\n"
                        for r, d in enumerate(["m1", "m2", "m3", "m4", "m5", "m6"], 1))
    if layout == "default-runs-dir":  # runs_dir defaults to .poolkit/runs beside the store
        (tmp_path / ".poolkit" / "runs").mkdir(parents=True)
        mine, runs_dir, path = (tmp_path / ".poolkit" / "runs" / "mine.run", "",
                                ".poolkit/runs/mine.run")
        line = 5
    else:
        mine, runs_dir, path = tmp_path / "mine.run", "runs_dir: .\n", "mine.run"
        line = 6
    mine.write_text(run_lines)
    config = tmp_path / "c.yaml"
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}"
                      f"\nstore: store.sqlite\n{runs_dir}systems:\n"
                      f"  mine: {{kind: run, path: {path}, depth: 2}}\npool:\n  depth: 2\n")
    before = snapshot(tmp_path)
    assert main(["pool", str(config)]) == 2
    out, err = capsys.readouterr()
    folder = mine.parent
    assert out == ""
    assert err.splitlines() == [
        f"poolkit pool: error: {config}:{line}: {mine}: pool's copy of systems.mine's run would "
        f"overwrite systems.mine's run file; poolkit never writes over an input: move it out "
        f"of {folder} or set another runs_dir"]
    assert snapshot(tmp_path) == before  # the run, and no store made


def test_a_system_s_settings_file_over_the_queries_is_refused(tmp_path, capsys):
    queries = tmp_path / ".poolkit" / "runs" / "b.json"
    queries.parent.mkdir(parents=True)
    queries.write_bytes((SAMPLE / "queries.jsonl").read_bytes())
    config = tmp_path / "c.yaml"
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: .poolkit/runs/b.json\n"
                      f"store: store.sqlite\nsystems:\n  b: {{kind: bm25, depth: 2}}\n"
                      f"pool:\n  depth: 2\n")
    before = snapshot(tmp_path)
    assert main(["pool", str(config)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"poolkit pool: error: {config}:5: {queries}: pool's settings of systems.b "
                   f"would overwrite the queries; poolkit never writes over an input: move it "
                   f"out of {queries.parent} or set another runs_dir"]
    assert snapshot(tmp_path) == before


# -- item 5: a pool failing before its commit leaves no store -------------------------------

def test_a_first_pool_failing_on_the_corpus_leaves_no_empty_store(tmp_path, capsys):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes((SAMPLE / "corpus.jsonl").read_bytes() + b'{"id": "z", "text": "\xff"}\n')
    config = tmp_path / "c.yaml"
    config.write_text(f"corpus: corpus.jsonl\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                      f"store: store.sqlite\nsystems:\n  b: {{kind: bm25, depth: 2}}\n"
                      f"pool:\n  depth: 2\n")
    assert main(["pool", str(config)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"poolkit pool: error: {corpus}:25: "), err
    assert not list(tmp_path.glob("store.sqlite*"))
    assert not list((tmp_path / ".poolkit" / "runs").glob("*"))


# -- items 2, 3 and 4: kills at named moments ----------------------------------------------

#: moments of a pool with a changed run after its run files are written (on main: in
#: place; now: staged), before the store commits: after registering a system, after storing
#: the queries, after adding the pool version
MOMENTS = [
    ("poolkit.store.store:Store.register_system", "after", 1),
    ("poolkit.store.store:Store.upsert_queries", "after", 1),
    ("poolkit.store.store:Store.add_pool_version", "after", 1),
]
SIGNALS = ["SIGINT", "SIGTERM", "SIGKILL"]
EXIT = {"SIGINT": 130, "SIGTERM": 143, "SIGKILL": -signal.SIGKILL}


def pool_here(world: PoolWorld, capsys: pytest.CaptureFixture[str]) -> str:
    """``poolkit pool`` in this process (its stderr): the pools around a kill check what the
    store and the folder hold, not how a process ends, so they need not start one (the
    killed pool is the end-to-end subprocess)."""
    capsys.readouterr()
    code = main(["pool", str(world.config)])
    err = capsys.readouterr().err
    assert code == 0, err
    return err


@pytest.fixture
def pooled_once(tmp_path, capsys):
    """A world pooled once (depth 3), then its user run and BM25's depth changed."""
    world = PoolWorld(tmp_path / "w", tmp_path / "w" / "store.sqlite")
    rng = random.Random(7)
    first = world.write_user_run(rng)
    pool_here(world, capsys)
    check_runs_as_recorded(world, first)
    changed = world.write_user_run(rng)
    world.write_config(b_depth=8, pool_depth=4)
    return world, first, changed


@pytest.mark.parametrize("signame", SIGNALS)
@pytest.mark.parametrize("target,when,nth", MOMENTS,
                         ids=["after-register", "after-queries", "after-add-version"])
def test_a_killed_pool_leaves_the_run_folder_as_the_store_records(pooled_once, capsys, signame,
                                                                  target, when, nth):
    world, first, changed = pooled_once
    runs_before = snapshot(world.runs)
    done = kill(signame, target, when, ["pool", str(world.config)], nth)
    assert done.returncode == EXIT[signame], done.stderr
    assert "Traceback" not in done.stderr
    assert sha(world.user_run) == changed  # the user's file: never written
    with world.store() as s:
        registered = s.systems()["user"]["run_sha256"]
        versions = len(s.pool_versions())
    # item 2: never registered without its pool version; item 3: a run no version has
    # never on disk
    assert registered == first and versions == 1  # rolled back
    assert snapshot(world.runs) == runs_before
    check_runs_as_recorded(world, first)
    if signame != "SIGKILL":  # item 4: nothing left behind
        assert world.temporaries() == []
    # The next pool settles what a kill left and leaves no temporary file.
    pool_here(world, capsys)
    assert world.temporaries() == []
    check_runs_as_recorded(world, changed)


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_a_signal_after_the_commit_waits_for_the_renames(pooled_once, signame):
    """SIGINT or SIGTERM between the commit and the renames is held until the files are in
    place: the pool's outcome is whole, then the signal's exit code."""
    world, _, changed = pooled_once
    done = kill(signame, "poolkit.io.staged:StagedOutputs.publish", "before",
                ["pool", str(world.config)])
    assert done.returncode == EXIT[signame], done.stderr
    assert "Traceback" not in done.stderr
    assert world.temporaries() == []
    check_runs_as_recorded(world, changed)


def test_a_kill_after_the_commit_is_recovered_by_the_next_pool(pooled_once, capsys):
    """SIGKILL after the commit, before any rename: the store records the new runs, the
    folder still holds the old ones; the next pool renames the staged ones into place."""
    world, _, changed = pooled_once
    done = kill("SIGKILL", "poolkit.pool.publish:PendingRuns.settle", "before",
                ["pool", str(world.config)])
    assert done.returncode == -signal.SIGKILL
    staged = world.temporaries()
    assert any(n.startswith(".poolkit-pool.") for n in staged), staged
    assert any(n.startswith(".b.run.") for n in staged), staged
    with world.store() as s:
        assert s.systems()["user"]["run_sha256"] == changed
        assert len(s.pool_versions()) == 2
    again = pool_here(world, capsys)
    assert "reused" in again  # b's staged run was recovered, so not searched again
    assert world.temporaries() == []
    check_runs_as_recorded(world, changed)


def test_registering_and_the_pool_version_are_one_transaction(pooled_once, capsys):
    """Killed after registering the changed run: the store still records the old one, so
    the analyses still refuse the changed file (item 2)."""
    world, first, changed = pooled_once
    done = kill("SIGKILL", "poolkit.store.store:Store.register_system", "after",
                ["pool", str(world.config)])
    assert done.returncode == -signal.SIGKILL
    with world.store() as s:
        assert s.systems()["user"]["run_sha256"] == first
    labels = world.folder / "labels.qrels"
    labels.write_text("".join(f"{q} 0 {d} 1\n" for q, d in sorted(world.pooled())))
    assert main(["import", str(world.config), str(labels), "--as", "nist"]) == 0, \
        capsys.readouterr().err
    refused = run(  # poolkit reusability's one end-to-end run in a process of its own
        ["reusability", str(world.config)])
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        f"poolkit reusability: error: {world.user_run}: systems.user's run file changed since "
        f"it was pooled (sha256 {changed[:12]} now, {first[:12]} then); pool again or restore "
        f"the file"]
