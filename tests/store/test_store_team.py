"""A judging team on one store, on both backends: six assessor processes judging through the
judging-session API (every passage of pool version 1: 600 grades each) while a seventh
expands the pool and an eighth imports a label file; one assessor is killed with SIGKILL
a quarter of the way and restarted. Afterwards every grade sent is in the log exactly once,
and the labels equal between the backends.

Nothing here waits on the clock: the kill happens once the store holds a quarter of that
assessor's grades, whenever that is; the time limits only stop a hung run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import store_backends
from team_worker import DOCS, QUERIES, grade_of, members, pairs

from poolkit.policies import Labels
from poolkit.store import QueryRecord
from poolkit.store.backends import open_store

WORKER = Path(__file__).with_name("team_worker.py")
ASSESSORS = [f"a{i}" for i in range(6)]
PER_ASSESSOR = QUERIES * DOCS  # all of pool version 1
KILL_AT = PER_ASSESSOR // 4
HUNG = 900  # seconds: a run this long has hung


def _spawn(location, *args: str) -> subprocess.Popen:
    # The worker imports this checkout's poolkit (not another one installed), and tests/.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKER.parents[2]),
                                                        str(WORKER.parent)])}
    return subprocess.Popen([sys.executable, str(WORKER), str(location), *args], env=env,
                            stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen) -> None:
    _, err = proc.communicate(timeout=HUNG)
    assert proc.returncode == 0, err


def _grades_by(store, assessor: str) -> int:
    return sum(1 for *_, who in store.live_marks(["grade"], assessor=assessor))


def play(location, tmp_path: Path) -> dict:
    with open_store(location) as store:
        store.upsert_queries(QueryRecord(q, f"query {q}") for q in sorted({q for q, _ in
                                                                            pairs()}))
        ms, sources = members()
        store.add_pool_version({"bm25": DOCS}, "docid", ms, sources)
    logs = {a: tmp_path / f"{a}.log" for a in ASSESSORS}
    procs = {a: _spawn(location, "judge", a, str(PER_ASSESSOR), str(logs[a]))
             for a in ASSESSORS}
    others = [_spawn(location, "pool"), _spawn(location, "import")]
    victim = ASSESSORS[3]
    deadline = time.monotonic() + HUNG
    with open_store(location, read_only=True) as watcher:
        while _grades_by(watcher, victim) < KILL_AT and procs[victim].poll() is None:
            assert time.monotonic() < deadline, f"the victim never reached {KILL_AT} grades"
            time.sleep(0.05)
    procs[victim].send_signal(signal.SIGKILL)
    procs[victim].wait(timeout=HUNG)
    with open_store(location, read_only=True) as store:
        left = PER_ASSESSOR - _grades_by(store, victim)
    procs[victim] = _spawn(location, "judge", victim, str(left), str(logs[victim]))
    for proc in [*procs.values(), *others]:
        _finish(proc)

    with open_store(location, read_only=True) as store:
        grades = [e for e in store.events(kinds=["grade"])]
        per_pair = Counter((e.assessor, e.qid, e.docid) for e in grades)
        assert max(per_pair.values()) == 1, "a grade was recorded twice"
        for a in ASSESSORS:
            mine = {(e.qid, e.docid) for e in grades if e.assessor == a}
            assert mine == set(pairs()), a  # every v1 passage, once
            sent = [line.split() for line in logs[a].read_text().splitlines()]
            ids = {e.id for e in grades if e.assessor == a}
            assert {int(i) for i, *_ in sent} <= ids  # every grade a worker saw committed
        assert all(e.grade == grade_of(e.qid, e.docid) for e in grades)
        imported = store.events(kinds=["import"])
        assert len(imported) == len(pairs())  # the import, exactly once
        assert [v["version"] for v in store.pool_versions()] == [1, 2]
        labels = Labels.as_of(store, 1, None, "latest")
        return {"grades": dict(labels.qrels.grades), "pool": len(store.pool_rows()),
                "events": len(grades) + len(imported)}


@pytest.mark.slow
def test_a_team_of_processes_loses_nothing_and_doubles_nothing(tmp_path):
    (tmp_path / "lite").mkdir()
    on_sqlite = play(tmp_path / "lite" / "store.sqlite", tmp_path / "lite")
    assert on_sqlite["events"] == len(ASSESSORS) * PER_ASSESSOR + len(pairs())
    if not os.environ.get(store_backends.ENV) and not os.environ.get("CI"):
        pytest.skip(f"PostgreSQL half (SQLite checked): no server; {store_backends.HOW}")
    (tmp_path / "pg").mkdir()
    with store_backends.fresh_database() as url:
        on_postgres = play(url, tmp_path / "pg")
    assert on_postgres == on_sqlite
