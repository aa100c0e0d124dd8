"""PostgreSQL: the accounts of ``poolkit serve`` are the lead's (issue 39).

An assessor (a member of ``poolkit_assessor``) with her own connection can neither read a
password hash (to guess it offline), an invite's hash, nor the key cookies are signed with
(to sign one in someone else's name), nor write any of them (to give herself a lead's
account or someone else's password). A lead (``poolkit_admin``) runs ``poolkit users`` and
the server; an assessor running them gets one line.
"""

from __future__ import annotations

import pytest
from account_helpers import cheap_hashes  # noqa: F401 (the fixture)
from test_postgres_security import PASSWORDS, dump, sql_as, team, url_of  # noqa: F401

from poolkit.app import users
from poolkit.cli import main
from poolkit.collection import Collection
from poolkit.store.pg_access import ADMIN_ONLY

psycopg = pytest.importorskip("psycopg")
pytestmark = pytest.mark.usefixtures("cheap_hashes")


def config_as(team, who: str, folder, monkeypatch) -> str:  # noqa: F811
    """A config naming the store as ``who`` (the password in PGPASSWORD, as a person has)."""
    (folder / "corpus.jsonl").write_text('{"id": "d1", "text": "armyworm"}\n')
    (folder / "queries.jsonl").write_text('{"id": "q1", "text": "armyworm"}\n')
    config = folder / f"{who}.yaml"
    config.write_text(f"corpus: corpus.jsonl\nqueries: queries.jsonl\n"
                      f"store: {url_of(team, who)}\nsystems:\n  r: {{kind: bm25}}\n")
    monkeypatch.setenv("PGPASSWORD", PASSWORDS[who])
    return str(config)


@pytest.fixture
def accounts(team, tmp_path, monkeypatch):  # noqa: F811
    """As the lead: alice's account, an invite for carol, and the session secret made."""
    with Collection.open(config_as(team, "lead", tmp_path, monkeypatch), write=True) as c:
        users.add_user(c, "alice", "assessor", "correct horse")
        users.invite_user(c, "carol")
        return users.session_secret(c)


@pytest.mark.parametrize("table", ADMIN_ONLY)
@pytest.mark.parametrize("who", ["alice", "mallory"])
def test_an_assessor_reads_and_writes_no_account(team, accounts, table, who):  # noqa: F811
    before = dump(team["url"])
    with sql_as(team, who) as conn:
        for sql in (f"SELECT * FROM {table}", f"SELECT count(*) FROM {table}",
                    f"DELETE FROM {table}", f"UPDATE {table} SET rowid = rowid",
                    f"TRUNCATE {table}", f"SELECT * FROM pg_stats WHERE tablename = '{table}'"):
            try:
                rows = conn.execute(sql).fetchall()
            except psycopg.errors.InsufficientPrivilege:
                continue
            assert sql.startswith("SELECT * FROM pg_stats") and rows == [], sql
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            if table == "accounts":
                conn.execute("INSERT INTO accounts (name, role, hash, created, epoch) "
                             "VALUES (%s, 'lead', NULL, 't', 1)", (team[who],))
            elif table == "invites":
                conn.execute("INSERT INTO invites (token_sha256, name, role, expires) VALUES "
                             "(%s, 'alice', 'lead', '9999')", ("0" * 64,))
            else:
                conn.execute("INSERT INTO server_secrets (key, value) VALUES ('x', 'y')")
    assert dump(team["url"]) == before


def test_the_lead_holds_the_accounts(team, accounts, tmp_path, monkeypatch):  # noqa: F811
    with sql_as(team, "lead") as conn:
        assert conn.execute("SELECT name, role FROM accounts ORDER BY name").fetchall() == [
            ("alice", "assessor"), ("carol", "assessor")]
        assert bytes.fromhex(conn.execute("SELECT value FROM server_secrets").fetchone()[0]
                             ) == accounts
    with Collection.open(config_as(team, "lead", tmp_path, monkeypatch)) as c:
        assert users.authenticate(c, "alice", "correct horse") == users.Account("alice",
                                                                                "assessor")
        assert users.session_secret(c) == accounts


@pytest.mark.parametrize("argv", [["list"], ["remove", "alice"], ["invite", "bob"]])
def test_an_assessor_running_users_gets_one_line(team, accounts, tmp_path, monkeypatch,  # noqa: F811
                                                 capsys, argv):
    config = config_as(team, "alice", tmp_path, monkeypatch)
    before = dump(team["url"])
    capsys.readouterr()
    assert main(["users", config, *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "not allowed: permission denied for table" in err, err
    assert dump(team["url"]) == before


def test_an_assessor_cannot_read_the_secret_through_poolkit(team, accounts, tmp_path,  # noqa: F811
                                                            monkeypatch):
    from poolkit.errors import StoreError

    with Collection.open(config_as(team, "alice", tmp_path, monkeypatch), write=True) as c:
        with pytest.raises(StoreError, match="not allowed: permission denied"):
            users.session_secret(c)
        with pytest.raises(StoreError, match="not allowed: permission denied"):
            users.authenticate(c, "alice", "correct horse")


def test_an_upgraded_store_keeps_its_accounts_from_assessors(team, tmp_path, monkeypatch):  # noqa: F811
    """A store of schema 12 (before accounts), upgraded by the owner's ``store init``: the
    new tables are the lead's from the start, never readable by assessors."""
    import store_backends

    import poolkit.store.postgres as pg
    from poolkit.store.schema import MIGRATIONS

    with store_backends.fresh_database() as url, monkeypatch.context() as at_12:
        at_12.setattr(pg, "MIGRATIONS", MIGRATIONS[:12])
        at_12.setattr(pg, "SCHEMA_VERSION", 12)
        at_12.setenv("PGPASSWORD", store_backends.ADMIN_PASSWORD or "")
        assert main(["store", "init", url]) == 0
        old = {**team, "url": url}
        with sql_as(old, "alice") as conn:
            assert conn.execute("SELECT to_regclass('accounts')").fetchone() == (None,)
        at_12.undo()
        monkeypatch.setenv("PGPASSWORD", store_backends.ADMIN_PASSWORD or "")
        assert main(["store", "init", url]) == 0
        with Collection.open(config_as(old, "lead", tmp_path, monkeypatch), write=True) as c:
            users.add_user(c, "alice", "assessor", "correct horse")
            users.session_secret(c)
        for table in ADMIN_ONLY:
            with sql_as(old, "alice") as conn, pytest.raises(
                    psycopg.errors.InsufficientPrivilege):
                conn.execute(f"SELECT * FROM {table}")
