"""``poolkit serve`` on a PostgreSQL store: each session acts as the assessor's own
database role (``PGOPTIONS=-c role=NAME``; the server's role is a member of each), so
row-level security holds as in a terminal. Two assessors judge at once in two browsers; an
account whose database role the server may not act as cannot open a screen."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import store_backends
from browser import Server, Tab, browser
from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, write_config

from poolkit.app.users import add_user
from poolkit.collection import Collection
from poolkit.store import NewMember
from poolkit.store.backends import open_store

pytestmark = pytest.mark.slow

QUICK = "judge:\n  min_display: 0\n  topic_card: false\n"
TITLES = ["Controlling fall armyworm", "Termites in maize fields", "Stem borers"]
WEB_PASSWORD = "pw-web-server"


@pytest.fixture
def team(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A store made by `poolkit store init` holding the tiny pool; roles alice_S and bob_S
    (assessors), mallory_S (an assessor the server was not granted), web_S (the server's:
    poolkit_admin, member of alice_S and bob_S); an account for each person."""
    suffix = uuid.uuid4().hex[:8]
    names = {n: f"{n}_{suffix}" for n in ("alice", "bob", "mallory", "web")}
    with store_backends.initialised_database() as url:
        with store_backends.admin_connect(url) as admin:
            for person in ("alice", "bob", "mallory"):
                admin.execute(f"CREATE ROLE {names[person]} IN ROLE poolkit_assessor")
            admin.execute(f"CREATE ROLE {names['web']} LOGIN PASSWORD '{WEB_PASSWORD}' "
                          f"IN ROLE poolkit_admin")
            admin.execute(f"GRANT {names['alice']}, {names['bob']} TO {names['web']}")
        with open_store(url) as store:
            store.upsert_queries(TINY_QUERIES)
            store.add_pool_version(
                {"sysA": 3}, "shuffle",
                [NewMember(q, d, *TINY_DOCS[d], float(i)) for q, ds in TINY_POOLS.items()
                 for i, d in enumerate(ds)],
                [(q, d, "sysA", i + 1, 1.0 / (i + 1)) for q, ds in TINY_POOLS.items()
                 for i, d in enumerate(ds)])
        owner = write_config(tmp_path / "owner", url)  # type: ignore[arg-type]
        with Collection.open(owner, write=True) as collection:
            for person in ("alice", "bob", "mallory"):
                add_user(collection, names[person], "assessor", f"{person}-password-1")
        db = url.rsplit("/", 1)[1]
        served = write_config(tmp_path / "served",
                              store_backends.with_database(url, db, user=names["web"]),
                              QUICK)  # type: ignore[arg-type]
        try:
            yield {"config": str(served), "url": url, **names}
        finally:
            with store_backends.admin_connect(url) as admin:
                for role in names.values():
                    admin.execute(f"DROP OWNED BY {role}")
                    admin.execute(f"DROP ROLE IF EXISTS {role}")


def test_two_assessors_judge_at_once_each_as_their_own_role(team: dict[str, str]):
    server = Server(Path(team["config"]), env={**os.environ, "PGPASSWORD": WEB_PASSWORD})
    try:
        with browser() as chromium:
            tabs = {}
            for person in ("alice", "bob"):
                tabs[person] = Tab(chromium.new_context(), server.url)
                tabs[person].login(team[person], f"{person}-password-1")
            for tab in tabs.values():
                tab.wait_for(TITLES[0])
            for key_a, key_b, shown in (("3", "0", TITLES[1]), ("2", "1", TITLES[2])):
                marks = {p: t.mark() for p, t in tabs.items()}
                tabs["alice"].press(key_a)
                tabs["bob"].press(key_b)
                for person, tab in tabs.items():
                    tab.wait_for(shown, marks[person])
            mallory = Tab(chromium.new_context(), server.url)
            mallory.login(team["mallory"], "mallory-password-1")
            mallory.wait_for("permission denied to set role")
    finally:
        assert server.stop() == 0
    with store_backends.admin_connect(team["url"]) as admin:
        rows = admin.execute("SELECT assessor, qid, docid, grade FROM events "
                             "WHERE kind = 'grade' ORDER BY assessor, id").fetchall()
        left = admin.execute("SELECT count(*) FROM session_claims").fetchone()
    assert rows == [(team["alice"], "q1", "d1", 3), (team["alice"], "q1", "d2", 2),
                    (team["bob"], "q1", "d1", 0), (team["bob"], "q1", "d2", 1)]
    assert left == (0,)
