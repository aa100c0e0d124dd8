"""The PostgreSQL store: what is particular to it (the contract itself is tested on both
backends by the parametrised ``store_location`` fixture).

Runs against the server named by POOLKIT_TEST_POSTGRES (CI starts one); elsewhere skips with
one line saying how to run it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid

import pytest
import store_backends

from poolkit.errors import StoreError
from poolkit.io.qrels import Qrels
from poolkit.store import Event, NewMember, Store
from poolkit.store.backends import open_store
from poolkit.store.copy import content_hash
from poolkit.store.imports import import_labels
from poolkit.store.postgres import PgStore, redact
from poolkit.store.schema import MIGRATIONS, migration_sql


# -- the SQL PostgreSQL runs, stated for it (no server needed) ------------------------------
def test_every_migration_step_is_stated_for_postgresql_with_its_types_and_collation():
    for step in MIGRATIONS:
        sql = migration_sql(step, "postgresql")
        assert sql.strip() and sql != migration_sql(step, "sqlite")
        assert "?" not in sql and not re.search(r"\b(INTEGER|REAL|AUTOINCREMENT)\b", sql)
        for match in re.finditer(r"\bTEXT\b(?! COLLATE \"C\")", sql):
            raise AssertionError(f"text without code-point collation: {sql[match.start():][:40]}")
        for table in re.finditer(r"CREATE TABLE[^(]*\((.*?)\n\);", sql, re.DOTALL):
            assert table.group(1).rstrip().endswith("rowid BIGSERIAL")  # insertion order


def test_the_postgresql_backend_translates_nothing():
    """No regex over SQLite's SQL: the backend runs the shared statements with its own
    parameter mark, and inherits nothing from the SQLite store."""
    import poolkit.store.postgres as pg

    assert not hasattr(pg, "to_postgres") and not hasattr(pg, "ddl_to_postgres")
    assert not issubclass(PgStore, Store) and PgStore.mark == "%s" and Store.mark == "?"


def test_messages_never_show_a_password():
    assert redact("postgresql://alice:s3cret@db:5432/judging") == \
        "postgresql://alice@db:5432/judging"


# -- against a server --------------------------------------------------------------------------
@pytest.fixture
def pg_url():
    with store_backends.fresh_database() as url:
        yield url


def _role(admin_url: str, name: str, password: str, group: str) -> str:
    with store_backends.admin_connect(admin_url) as admin:
        admin.execute(f"DROP ROLE IF EXISTS {name}")
        admin.execute(f"CREATE ROLE {name} LOGIN PASSWORD '{password}' IN ROLE {group}")
    return name


@pytest.fixture
def team(initialised, monkeypatch):
    """A copy of a store set up by `poolkit store init`, and two login roles: an assessor
    and a lead."""
    with store_backends.fresh_database(template=initialised) as url:
        suffix = uuid.uuid4().hex[:8]
        alice = _role(url, f"alice_{suffix}", "pw-alice", "poolkit_assessor")
        lead = _role(url, f"lead_{suffix}", "pw-lead", "poolkit_admin")
        yield {"url": url, "alice": alice, "lead": lead}
        with store_backends.admin_connect(url) as admin:
            for role in (alice, lead):
                admin.execute(f"DROP OWNED BY {role}")
                admin.execute(f"DROP ROLE IF EXISTS {role}")


def _as(team, role, password, monkeypatch) -> PgStore:
    monkeypatch.setenv("PGPASSWORD", password)
    store = open_store(store_backends.with_database(team["url"], team["url"].rsplit("/", 1)[1],
                                                    user=role))
    assert isinstance(store, PgStore)
    return store


def test_an_assessor_writes_only_under_its_own_name(team, monkeypatch):
    with _as(team, team["alice"], "pw-alice", monkeypatch) as store:
        assert store.current_role() == team["alice"]
        store.record_event(Event("q1", "d1", team["alice"], "grade", grade=2))
        with pytest.raises(StoreError, match="not allowed: new row violates row-level security"):
            store.record_event(Event("q1", "d1", "bob", "grade", grade=0))
        assert [e.assessor for e in store.events()] == [team["alice"]]


def test_an_assessor_may_not_record_a_machine_judges_events_and_an_admin_may(team,
                                                                            monkeypatch):
    machine = Event("q1", "d1", team["alice"], "grade", grade=2, origin="machine",
                    judge_version="echo/1")
    with _as(team, team["alice"], "pw-alice", monkeypatch) as store:
        with pytest.raises(StoreError, match="not allowed: new row violates row-level security"):
            store.record_event(machine)
        assert store.events(machine=team["alice"]) == []
    with _as(team, team["lead"], "pw-lead", monkeypatch) as store:
        store.record_event(Event("q1", "d1", "echo", "grade", grade=1, origin="machine",
                                 judge_version="echo/1"))
        assert store.events() == [] and store.machine_judges() == ["echo"]


def test_an_assessor_cannot_alter_or_delete_events(team, monkeypatch):
    import psycopg

    with _as(team, team["alice"], "pw-alice", monkeypatch) as store:
        store.record_event(Event("q1", "d1", team["alice"], "grade", grade=2))
    url = store_backends.with_database(team["url"], team["url"].rsplit("/", 1)[1],
                                       user=team["alice"])
    with psycopg.connect(url, autocommit=True, password="pw-alice") as conn:
        for sql in ("UPDATE events SET grade = 3", "DELETE FROM events",
                    "TRUNCATE events", "INSERT INTO pool_versions VALUES (9, 'x', '{}', 'x')"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)


def test_an_admin_may_import_under_a_source_name(team, monkeypatch):
    with _as(team, team["lead"], "pw-lead", monkeypatch) as store:
        q = Qrels.from_mapping({"q1": {"a": 1, "b": 0}}, name="nist.qrels")
        assert import_labels(store, q, "nist") == 2
        store.record_event(Event("q1", "a", "adjudicator", "adjudicate", grade=1))
        assert {e.assessor for e in store.events()} == {"nist", "adjudicator"}


def test_a_wrong_password_is_one_line_without_the_password(team, tmp_path):
    config = tmp_path / "c.yaml"
    (tmp_path / "corpus.jsonl").write_text('{"id": "d1", "text": "x"}\n')
    (tmp_path / "queries.jsonl").write_text('{"id": "q1", "text": "x"}\n')
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1.0 r\n")
    db = team["url"].rsplit("/", 1)[1]
    url = store_backends.with_database(team["url"], db, user=team["alice"])
    config.write_text(f"corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: {url}\n"
                      f"systems:\n  r: {{kind: run, path: r.run}}\n")
    env = {**_clean_env(), "PGPASSWORD": "not-the-password"}
    proc = subprocess.run([sys.executable, "-m", "poolkit", "status", str(config)],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0] == (f"poolkit status: error: {url}: password authentication failed for "
                        f"user \"{team['alice']}\"")
    assert "not-the-password" not in proc.stderr + proc.stdout


def test_a_url_with_a_password_is_refused_in_the_config(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("corpus: c.jsonl\nqueries: q.jsonl\n"
                      "store: postgresql://alice:hunter2@127.0.0.1:5432/judging\n"
                      "systems:\n  r: {kind: run, path: r.run}\n")
    (tmp_path / "c.jsonl").write_text('{"id": "d1", "text": "x"}\n')
    (tmp_path / "q.jsonl").write_text('{"id": "q1", "text": "x"}\n')
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1.0 r\n")
    proc = subprocess.run([sys.executable, "-m", "poolkit", "status", str(config)],
                          capture_output=True, text=True, env=_clean_env())
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "a store URL must not carry a password" in proc.stderr
    assert "hunter2" not in proc.stderr


def test_read_only_opening_refuses_writes(pg_url):
    open_store(pg_url).close()
    with open_store(pg_url, read_only=True) as store:
        with pytest.raises(StoreError, match="read-only"):
            store.record_event(Event("q1", "a", "x", "grade", grade=1))


def test_a_missing_store_is_the_one_no_store_error(pg_url):
    from poolkit.errors import NoStoreError

    with pytest.raises(NoStoreError):
        open_store(pg_url, create=False, missing_hint="run `poolkit pool` first")


def _fill(store) -> None:
    store.upsert_queries([])
    store.register_system("bm25", "bm25", {"k1": 0.9})
    store.add_pool_version(
        {"bm25": 3}, "shuffle",
        [NewMember("q2", "b", "T", "body b ü", 0.5), NewMember("q1", "a", "", "body a", 0.25)],
        [("q2", "b", "bm25", 1, 9.227098465), ("q1", "a", "bm25", 2, 9.227097511)])
    g = store.record_event(Event("q1", "a", "alice", "grade", grade=2, note="ok"))
    store.record_event(Event("q1", "a", "alice", "undo", ref=g))
    store.record_event(Event("q2", "b", "bob", "grade", grade=3, shown_at="t0"))


@pytest.mark.parametrize("direction", ["sqlite->postgresql", "postgresql->sqlite"])
def test_store_copy_is_lossless_both_ways(direction, pg_url, tmp_path):
    from poolkit.cli import main

    sqlite_path = tmp_path / "s.sqlite"
    src, dst = (sqlite_path, pg_url) if direction.startswith("sqlite") else (pg_url, sqlite_path)
    with open_store(src) as store:
        _fill(store)
        want_hash, want_counts = content_hash(store)
        want_events = store.events()
        want_pool = store.pool()
        want_sources = store.sources()
    out = tmp_path / "out.json"
    with open(out, "w") as fh:
        sys.stdout, saved = fh, sys.stdout
        try:
            assert main(["store", "copy", str(src), str(dst), "--format", "json"]) == 0
        finally:
            sys.stdout = saved
    report = json.loads(out.read_text())
    assert report["identical"] is True and report["hash"] == want_hash
    assert report["counts"]["events"] == 3
    with open_store(dst, create=False) as copy:
        assert copy.events() == want_events
        assert copy.pool() == want_pool
        assert copy.sources() == want_sources
        assert content_hash(copy) == (want_hash, want_counts)
        # ids continue after the copied ones
        new = copy.record_event(Event("q1", "a", "carol", "grade", grade=1))
        assert new == max(e.id for e in want_events) + 1


def test_store_copy_refuses_a_destination_with_data(pg_url, tmp_path):
    from poolkit.cli import main

    with open_store(pg_url) as store:
        store.record_event(Event("q1", "a", "x", "grade", grade=1))
    src = tmp_path / "s.sqlite"
    Store(src).close()
    assert main(["store", "copy", str(src), pg_url]) == 2
    with open_store(pg_url) as store:
        assert len(store.events()) == 1


def _clean_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PGPASSWORD"}
