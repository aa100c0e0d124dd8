"""PostgreSQL, a fresh database, several first writers at once (issue 22, item 13): two
``store copy`` into one empty database, four ``store init``, three first ``import`` s. Each
process either waits for the one creating the schema or, where only one may win (a copy into
an empty store), says one line; none dies with a traceback.

The race is made by state, not by timing: the test itself takes the place of the first
process to create the store (it creates the write lock's table, uncommitted, and locks it),
starts the commands, waits until every one of them is blocked on that lock in the server,
and only then commits (the schema is the commands' to make) or rolls back (they race for
it among themselves).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import store_backends

from poolkit.store import Event, Store
from poolkit.store.backends import open_store
from poolkit.store.copy import content_hash
from poolkit.store.schema import SCHEMA_VERSION

HUNG = 120  # seconds: only stops a hung run; nothing below waits on the clock otherwise


@pytest.fixture
def url():
    with store_backends.fresh_database() as fresh:
        yield fresh


def _spawn(argv: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "poolkit", *argv], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PGPASSWORD": store_backends.ADMIN_PASSWORD or ""})


def _waiting(admin, database: str) -> int:
    return admin.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = "
        "'poolkit' AND wait_event_type = 'Lock'", (database,)).fetchone()[0]


@contextmanager
def _first_creator(url: str, outcome: str):
    """Be the first process creating the store: the write lock's table made and locked in
    an open transaction; at the end, commit it (``commit``) or give up (``rollback``)."""
    with store_backends.admin_connect(url) as conn:
        conn.execute("BEGIN")
        conn.execute("CREATE TABLE write_lock ()")
        conn.execute("LOCK TABLE write_lock IN EXCLUSIVE MODE")
        yield
        conn.execute(outcome.upper())


def race(url: str, commands: list[list[str]], cwd: Path, outcome: str
         ) -> list[tuple[int, str, str]]:
    """Run ``commands`` at once against the fresh database at ``url``, each released only
    once all of them are blocked behind the first creator; (exit code, stdout, stderr)."""
    database = url.rsplit("/", 1)[1]
    with _first_creator(url, outcome), store_backends.admin_connect(url) as watch:
        procs = [_spawn(argv, cwd) for argv in commands]
        deadline = time.monotonic() + HUNG
        while _waiting(watch, database) < len(procs):
            finished = [p for p in procs if p.poll() is not None]
            if finished:
                for p in procs:
                    p.kill()
                out, err = finished[0].communicate()
                pytest.fail(f"a command ran without waiting for the store's lock: exit "
                            f"{finished[0].returncode}\n{out}{err}")
            assert time.monotonic() < deadline, "the commands never reached the lock"
            time.sleep(0.01)  # polling the server's state, not waiting for a moment
    results = []
    for p in procs:
        out, err = p.communicate(timeout=HUNG)
        results.append((p.returncode, out, err))
    return results


@pytest.mark.parametrize("outcome", ["commit", "rollback"])
@pytest.mark.parametrize("n", [2, 4])
def test_store_init_at_once_on_a_fresh_database(url, tmp_path, outcome, n):
    results = race(url, [["store", "init", url]] * n, tmp_path, outcome)
    for code, out, err in results:
        assert (code, err) == (0, ""), out
        assert f"store {url}: schema version {SCHEMA_VERSION}\n" in out
        assert "granted poolkit_assessor" in out
    with store_backends.admin_connect(url) as admin:
        assert admin.execute("SELECT value FROM meta WHERE key = 'schema_version'"
                             ).fetchall() == [(str(SCHEMA_VERSION),)]
        assert admin.execute("SELECT has_table_privilege('poolkit_assessor', 'events', "
                             "'SELECT'), has_table_privilege('poolkit_assessor', "
                             "'write_lock', 'UPDATE')").fetchone() == (True, True)


@pytest.mark.parametrize("outcome", ["commit", "rollback"])
def test_two_store_copies_into_one_empty_database(url, tmp_path, outcome):
    source = tmp_path / "s.sqlite"
    with Store(source) as store:
        for i in range(5):
            store.record_event(Event("q1", f"d{i}", "alice", "grade", grade=i % 4))
        want, counts = content_hash(store)
    results = sorted(race(url, [["store", "copy", str(source), url]] * 2, tmp_path, outcome))
    (won, out, err), (lost, lost_out, lost_err) = results
    assert (won, err) == (0, "") and f"content sha256 {want}" in out
    assert (lost, lost_out) == (2, "")
    assert lost_err == (f"poolkit store: error: {url}: is not empty (events hold rows); copy "
                        f"into a new store\n")
    with open_store(url, create=False) as copy:
        assert content_hash(copy) == (want, counts)


@pytest.mark.parametrize("outcome", ["commit", "rollback"])
def test_three_first_imports_at_once(url, tmp_path, outcome):
    (tmp_path / "corpus.jsonl").write_text("".join(
        f'{{"id": "d{i}", "text": "doc {i}"}}\n' for i in range(4)))
    (tmp_path / "queries.jsonl").write_text('{"id": "q1", "text": "x"}\n')
    (tmp_path / "labels.qrels").write_text("".join(f"q1 0 d{i} {i % 4}\n" for i in range(4)))
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1.0 r\n")
    (tmp_path / "c.yaml").write_text(f"corpus: corpus.jsonl\nqueries: queries.jsonl\n"
                                     f"store: {url}\nsystems:\n  r: {{kind: run, path: r.run}}\n")
    argv = ["import", "c.yaml", "labels.qrels", "--as", "nist"]
    results = race(url, [argv] * 3, tmp_path, outcome)
    assert [(code, err) for code, _, err in results] == [(0, "")] * 3
    with open_store(url, create=False) as store:
        events = store.events()
    assert sorted((e.docid, e.grade) for e in events) == [(f"d{i}", i % 4) for i in range(4)]
