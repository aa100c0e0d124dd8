"""The judging-store backends the contract tests run against: SQLite always, PostgreSQL where a
server is reachable (CI starts one; see .ci/postgres.sh).

A module of its own (not conftest.py) so tests in any folder can import it by a unique name.
Each PostgreSQL test gets a database of its own, dropped afterwards, so tests running on
several workers never see each other's rows.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ENV = "POOLKIT_TEST_POSTGRES"
#: what a skip says to do: the URL (postgresql://USER@127.0.0.1:PORT/postgres, of a role that
#: may create databases and roles) and its password, or the server CI starts
HOW = (f"set {ENV} and PGPASSWORD, or `source .ci/postgres.sh && start_throwaway_postgres` "
       f"(as CI does)")
BACKENDS = ("sqlite", "postgresql")
#: The test server's password as the run started (tests may set PGPASSWORD to log in as
#: other roles; the fixtures' own connections keep using this one).
ADMIN_PASSWORD = os.environ.get("PGPASSWORD")


def admin_url() -> str:
    """The URL of a PostgreSQL server the tests may create databases on; skips without one
    (fails in CI, which must have one)."""
    url = os.environ.get(ENV)
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"{ENV} is not set; CI must start a PostgreSQL server (.ci/postgres.sh)")
        pytest.skip(f"PostgreSQL store tests: no server; {HOW}")
    pytest.importorskip("psycopg", reason="PostgreSQL store tests: psycopg is not installed "
                                          "(pip install 'poolkit[postgres]')")
    return url


def with_database(url: str, database: str, user: str | None = None) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if user is not None:
        netloc = f"{user}@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(path=f"/{database}", netloc=netloc))


def admin_connect(url: str | None = None):
    """An autocommit connection to the test server as its admin role."""
    import psycopg

    return psycopg.connect(url or admin_url(), autocommit=True, password=ADMIN_PASSWORD)


@contextmanager
def fresh_database(template: str | None = None) -> Iterator[str]:
    """A new database on the test server, dropped afterwards; yields its URL. Empty, or a
    copy of the database at URL ``template`` (nobody may be connected to it): a store built
    once and copied per test costs one file copy on the server instead of every migration."""
    url = admin_url()
    name = f"poolkit_t_{uuid.uuid4().hex[:12]}"
    copy = f" TEMPLATE {urlsplit(template).path.strip('/')} STRATEGY FILE_COPY" if template else ""
    with admin_connect(url) as admin:
        admin.execute(f"CREATE DATABASE {name}{copy}")
    try:
        yield with_database(url, name)
    finally:
        with admin_connect(url) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def store_location(backend: str, tmp_path: Path) -> Iterator[str | Path]:
    """Where a new, empty store of ``backend`` lives: a file path or a database URL."""
    if backend == "sqlite":
        yield tmp_path / "store.sqlite"
    else:
        with fresh_database() as url:
            yield url


@contextmanager
def initialised_database() -> Iterator[str]:
    """A new database holding a store made by ``poolkit store init`` (as the server's
    admin, its owner), dropped afterwards; yields its URL. Built once per session by the
    tests of the roles, each of which takes a copy (``fresh_database(template=...)``): the
    grants are to the group roles and live in the database, so the copy has them."""
    from poolkit.cli import main

    with fresh_database() as url:
        assert main(["store", "init", url]) == 0
        yield url
