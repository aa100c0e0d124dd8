"""A small collection for pool kill tests: the bundled sample corpus, a BM25 system and a
``kind: run`` system whose file the test writes (and poolkit must never change), on SQLite
or PostgreSQL; and the check that the run folder is what the store records."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from pool_helpers import SAMPLE

from poolkit.errors import NoStoreError
from poolkit.store.backends import open_store

QUERIES = ("q_faw", "q_store", "q_milk", "q_broad")
DOCS = ("m1 m2 m3 m4 m5 m6 s1 s2 s3 s4 d1 d2 d3 d4 d5 p1 p2 p3 p4 p5 x1 x2 x3 x4").split()


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class PoolWorld:
    """``folder/c.yaml`` with systems ``user`` (kind: run, file ``folder/user/user.run``)
    and ``b`` (bm25), the store at ``location``, runs in ``folder/runs``."""

    def __init__(self, folder: Path, location: str | Path, b_depth: int = 5) -> None:
        self.folder = folder
        self.location = location
        self.runs = folder / "runs"
        self.user_run = folder / "user" / "user.run"
        self.user_run.parent.mkdir(parents=True, exist_ok=True)
        self.config = folder / "c.yaml"
        self.write_config(b_depth, 3)

    def write_config(self, b_depth: int, pool_depth: int) -> None:
        store = self.location if isinstance(self.location, str) else "store.sqlite"
        self.config.write_text(
            f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
            f"store: {store}\nruns_dir: runs\ncache_dir: .cache\nsystems:\n"
            f"  user: {{kind: run, path: user/user.run, depth: 5}}\n"
            f"  b: {{kind: bm25, depth: {b_depth}}}\n"
            f"pool:\n  depth: {pool_depth}\n  order: docid\n")

    def write_user_run(self, rng: random.Random, fresh_first: bool = True) -> str:
        """A new ranking for ``user`` (5 docs per query; with ``fresh_first`` each query's
        first doc one the pool does not hold yet, so pooling it always makes a version)."""
        pooled = self.pooled()
        lines = []
        for q in QUERIES:
            docs = rng.sample(DOCS, len(DOCS))
            if fresh_first:
                fresh = [d for d in docs if (q, d) not in pooled]
                if fresh:
                    docs.remove(fresh[0])
                    docs.insert(0, fresh[0])
            lines += [f"{q} Q0 {d} {r} {10.0 - r} user\n" for r, d in enumerate(docs[:5], 1)]
        self.user_run.write_text("".join(lines))
        return sha(self.user_run)

    def store(self, read_only: bool = True) -> Any:
        where = self.location if isinstance(self.location, str) else self.folder / \
            "store.sqlite"
        return open_store(where, create=False, read_only=read_only)

    def has_store(self) -> bool:
        """Whether a store is there (a database may be empty: no schema yet)."""
        if not isinstance(self.location, str) and not (self.folder / "store.sqlite").exists():
            return False
        try:
            with self.store():
                return True
        except NoStoreError:
            return False

    def pooled(self) -> set[tuple[str, str]]:
        if not self.has_store():
            return set()
        with self.store() as s:
            return {(m.qid, m.docid) for m in s.pool()}

    def temporaries(self) -> list[str]:
        return sorted(p.name for p in self.folder.rglob(".*.tmp*"))


def check_runs_as_recorded(world: PoolWorld, user_sha: str | None) -> None:
    """What the store records of every system is what the run folder holds: the latest
    registration's settings are ``NAME.json``, its run hash that of ``NAME.run`` (for the
    user's run: of the user's file, which is ``user_sha``, and poolkit's copy has the
    validated hash); and the latest pool version's record of each system names the run of
    its registration (a pool registering a changed run here always adds documents, so the
    run is never registered without a version of it)."""
    if not world.has_store():
        assert not world.runs.exists() or not list(world.runs.glob("*.run"))
        return
    with world.store() as s:
        systems = s.systems()
        history = s.pool_version_systems()
    latest: dict[str, dict[str, Any]] = {}
    for version in sorted(history):
        latest.update(history[version])
    assert set(latest) == set(systems)
    for name, record in systems.items():
        settings = json.loads((world.runs / f"{name}.json").read_text())
        assert settings == record["settings"], name
        copy = sha(world.runs / f"{name}.run")
        if record["kind"] == "run":
            assert record["run_sha256"] == user_sha  # the file it pooled
            assert copy == settings["validated_run_sha256"]
        else:
            assert copy == record["run_sha256"], name
        assert latest[name]["run_sha256"] == record["run_sha256"], name
