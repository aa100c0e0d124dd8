"""A property of pooling under kills, on both backends (issue 22, acceptance): random
interleavings of pools (a changed user run each time, deeper depths), imports and grades,
with kills at random named moments by random signals. After every step no user input file
has changed and every run file in the runs folder is a ranking the store records; after every
pool that finished (a killed one is settled by the next), what the store records of each
system is what the runs folder holds and its latest pool version names the run registered.
"""

from __future__ import annotations

import hashlib
import random
import signal
from pathlib import Path

import pytest
from killpoints import kill, run
from pool_helpers import SAMPLE
from pool_world import PoolWorld, check_runs_as_recorded, sha
from store_backends import BACKENDS, store_location

from poolkit.store.records import Event

POOL_MOMENTS = [
    ("poolkit.pool.publish:PendingRuns.seal", "after", 1),      # staged, nothing committed
    ("poolkit.store.store:Store.register_system", "after", 1),  # mid-transaction
    ("poolkit.store.store:Store.register_system", "after", 2),
    ("poolkit.store.store:Store.upsert_queries", "after", 1),
    ("poolkit.store.store:Store.add_pool_version", "after", 1),
    ("poolkit.io.staged:StagedOutputs.publish", "before", 1),   # committed, not renamed
    ("os:replace", "after", 1),                                 # one file renamed
]
IMPORT_MOMENTS = [("poolkit.store.store:Store.record_events", "before", 1),
                  ("poolkit.store.store:Store.record_events", "after", 1)]
SIGNALS = ["SIGINT", "SIGTERM", "SIGKILL"]
EXIT = {"SIGINT": 130, "SIGTERM": 143, "SIGKILL": -signal.SIGKILL}
STEPS = 10


def digest(paths: list[Path]) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def recorded_runs(world: PoolWorld) -> dict[str, set[str]]:
    """Per system, every hash of poolkit's run file the store records (every pool
    version's record and the latest registration)."""
    with world.store() as s:
        records = [r for v in s.pool_version_systems().values() for r in v.items()]
        records += list(s.systems().items())
    out: dict[str, set[str]] = {}
    for name, record in records:
        own = record["settings"].get("validated_run_sha256", record["run_sha256"])
        out.setdefault(name, set()).add(own)
    return out


def check_no_unrecorded_ranking(world: PoolWorld) -> None:
    if not world.has_store():
        assert not list(world.runs.glob("*.run"))
        return
    recorded = recorded_runs(world)
    for path in world.runs.glob("*.run"):
        assert sha(path) in recorded.get(path.stem, set()), path.name


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [3, 11])
def test_pools_imports_and_kills_keep_runs_as_recorded(tmp_path, backend, seed):
    rng = random.Random(seed)
    with store_location(backend, tmp_path) as location:
        world = PoolWorld(tmp_path / "w", location if isinstance(location, str)
                          else tmp_path / "w" / "store.sqlite")
        inputs = [SAMPLE / "corpus.jsonl", SAMPLE / "queries.jsonl"]
        user_sha = world.write_user_run(rng)
        registered = None  # the user run the store has registered
        b_depth, pool_depth = 5, 3
        labels = world.folder / "labels.qrels"
        for step in range(STEPS):
            kind = rng.choice(["pool", "pool", "pool", "import", "grade"]) if step else "pool"
            if kind in ("import", "grade") and not world.pooled():
                kind = "pool"
            kept = digest([*inputs, world.user_run, world.config])
            if kind == "pool":
                argv = ["pool", str(world.config)]
                moment = rng.choice(POOL_MOMENTS) if rng.random() < 0.7 else None
            elif kind == "import":
                pairs = sorted(world.pooled())
                labels.write_text("".join(f"{q} 0 {d} {rng.randint(0, 3)}\n"
                                          for q, d in rng.sample(pairs, min(5, len(pairs)))))
                kept.update(digest([labels]))
                argv = ["import", str(world.config), str(labels), "--as", "nist"]
                moment = rng.choice(IMPORT_MOMENTS) if rng.random() < 0.5 else None
            else:
                with world.store(read_only=False) as s:
                    q, d = rng.choice(sorted(world.pooled()))
                    s.record_event(Event(q, d, "alice", "grade", grade=rng.randint(0, 3)))
                assert digest([*inputs, world.user_run, world.config]) == kept
                continue
            signame = rng.choice(SIGNALS)
            done = (kill(signame, *moment[:2], argv, moment[2]) if moment else run(argv))
            said = f"step {step}: {kind} {signame if moment else ''} {moment}: {done.stderr}"
            assert "Traceback" not in done.stderr, said
            assert done.returncode in ((0, EXIT[signame]) if moment else (0,)), said
            assert digest([*inputs, world.user_run, world.config, *(
                [labels] if kind == "import" else [])]) == kept, "an input changed"
            check_no_unrecorded_ranking(world)
            if kind != "pool":
                continue
            if done.returncode == 0:
                registered = user_sha
                check_runs_as_recorded(world, registered)
            else:
                now = None
                if world.has_store():  # a first pool killed before its commit made none
                    with world.store() as s:
                        now = s.systems().get("user", {}).get("run_sha256")
                assert now in {registered, user_sha}
                registered = now
                if signame != "SIGKILL":  # handled: nothing left behind
                    assert world.temporaries() == []
            # the next pool: a changed run that brings new documents, perhaps deeper
            user_sha = world.write_user_run(rng)
            b_depth += rng.choice([0, 1])
            pool_depth = min(pool_depth + rng.choice([0, 1]), 5)
            world.write_config(b_depth, pool_depth)
        done = run(["pool", str(world.config)])  # settles whatever the last kill left
        assert done.returncode == 0, done.stderr
        assert world.temporaries() == []
        check_runs_as_recorded(world, user_sha)
