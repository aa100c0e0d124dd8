"""PostgreSQL: nobody writes where they don't belong (issue 22, items 7-11).

Every case runs as a real login role on the test server: an assessor (``poolkit_assessor``),
a lead (``poolkit_admin``) and an outsider with no grants at all, each issuing its own SQL
where the point is what the server refuses, and poolkit's commands where the point is what
the user reads.
"""

from __future__ import annotations

import uuid

import pytest
import store_backends

from poolkit.cli import main
from poolkit.policies import Labels
from poolkit.store import Event
from poolkit.store.backends import open_store
from poolkit.store.postgres import PgStore
from poolkit.store.schema import SCHEMA_VERSION

psycopg = pytest.importorskip("psycopg")

PASSWORDS = {"alice": "pw-alice", "bob": "pw-bob", "lead": "pw-lead", "mallory": "pw-mal"}
GROUPS = {"alice": "poolkit_assessor", "bob": "poolkit_assessor", "lead": "poolkit_admin",
          "mallory": None}
EVENT = "(qid, docid, assessor, kind, grade, judged_at)"
#: An explicit id: no column privilege (OVERRIDING ...), or GENERATED ALWAYS (plain INSERT).
REFUSED_ID = (psycopg.errors.InsufficientPrivilege, psycopg.errors.GeneratedAlways)


@pytest.fixture
def team(initialised, monkeypatch):
    """A copy of the store ``poolkit store init`` made (``initialised``) and four login
    roles: assessors alice and bob, lead, and mallory, who was granted nothing."""
    with store_backends.fresh_database(template=initialised) as url:
        suffix = uuid.uuid4().hex[:8]
        roles = {who: f"{who}_{suffix}" for who in PASSWORDS}
        with store_backends.admin_connect(url) as admin:
            for who, role in roles.items():
                group = f" IN ROLE {GROUPS[who]}" if GROUPS[who] else ""
                admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{PASSWORDS[who]}'{group}")
        yield {"url": url, **roles}
        with store_backends.admin_connect(url) as admin:
            for role in roles.values():
                admin.execute(f"DROP OWNED BY {role}")
                admin.execute(f"DROP ROLE IF EXISTS {role}")


def url_of(team, who: str) -> str:
    return store_backends.with_database(team["url"], team["url"].rsplit("/", 1)[1],
                                        user=team[who])


def sql_as(team, who: str):
    """A plain autocommit psycopg connection as ``who``: her own SQL, not poolkit's."""
    return psycopg.connect(url_of(team, who), autocommit=True, password=PASSWORDS[who])


def store_as(team, who: str, monkeypatch, **kwargs) -> PgStore:
    monkeypatch.setenv("PGPASSWORD", PASSWORDS[who])
    store = open_store(url_of(team, who), **kwargs)
    assert isinstance(store, PgStore)
    return store


def dump(url: str) -> dict[str, list]:
    """Every row of every table, as the owner sees it (the store byte for byte)."""
    with store_backends.admin_connect(url) as admin:
        tables = [r[0] for r in admin.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
            "AND tablename != 'write_lock' ORDER BY tablename")]  # (no columns, no rows)
        return {t: admin.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables}


# -- 7: ids are the server's ------------------------------------------------------------------
@pytest.mark.parametrize("insert", [
    f"INSERT INTO events (id, {EVENT[1:]} VALUES (1000000, 'q1', 'd1', '{{me}}', 'grade', 3, 't')",
    f"INSERT INTO events (id, {EVENT[1:]} OVERRIDING SYSTEM VALUE "
    f"VALUES (1000000, 'q1', 'd1', '{{me}}', 'grade', 3, 't')",
    f"INSERT INTO events (id, {EVENT[1:]} OVERRIDING USER VALUE "
    f"VALUES (1000000, 'q1', 'd1', '{{me}}', 'grade', 3, 't')",
    f"INSERT INTO events (rowid, {EVENT[1:]} VALUES (1000000, 'q1', 'd1', '{{me}}', 'grade', 3, "
    f"'t')",
], ids=["id", "overriding-system", "overriding-user", "rowid"])
@pytest.mark.parametrize("who", ["alice", "lead"])
def test_no_role_chooses_an_event_id(team, who, insert):
    with sql_as(team, who) as conn:
        with pytest.raises(REFUSED_ID):
            conn.execute(insert.format(me=team[who]))
        # her own event, the server's id, is fine
        conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd1', %s, 'grade', 1, 't')",
                     (team[who],))
        assert conn.execute("SELECT max(id) FROM events").fetchone()[0] == 1


def test_a_later_regrade_wins_under_latest_and_nobody_else_s_write_dies(team, monkeypatch):
    with sql_as(team, "alice") as conn:  # alice tries to plant an id just ahead, and far
        for planted in (2, 3, 10**9):
            with pytest.raises(REFUSED_ID):
                conn.execute(f"INSERT INTO events (id, {EVENT[1:]} VALUES (%s, 'q1', 'd1', %s, "
                             f"'grade', 3, 't')", (planted, team["alice"]))
        conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd1', %s, 'grade', 3, 't')",
                     (team["alice"],))
    with store_as(team, "bob", monkeypatch) as store:
        store.record_event(Event("q1", "d1", team["bob"], "grade", grade=0))
    with store_as(team, "lead", monkeypatch) as store:
        store.record_events([Event("q1", "d2", "nist", "import", grade=2)])
        labels = Labels.from_store(store, "latest")
    assert labels.grades["q1"] == {"d1": 0, "d2": 2}


def _as_of_version_5(monkeypatch, pg) -> None:
    """poolkit.store.postgres as it was at schema version 5 (before this one's rules)."""
    monkeypatch.setattr(pg, "MIGRATIONS", pg.MIGRATIONS[:5])
    monkeypatch.setattr(pg, "SCHEMA_VERSION", 5)


def test_an_upgraded_store_s_ids_continue_past_every_id_already_there(monkeypatch):
    """A store made before ids were the server's may hold a planted id far ahead: the
    upgrade moves the sequence past it, so no later write collides with it."""
    import poolkit.store.postgres as pg

    with store_backends.fresh_database() as url:
        _as_of_version_5(monkeypatch, pg)
        with open_store(url) as old:
            assert old.schema_version == 5
        with store_backends.admin_connect(url) as admin:  # BY DEFAULT: an id may be given
            admin.execute("DROP TABLE write_lock")
            admin.execute(f"INSERT INTO events (id, {EVENT[1:]} VALUES (2, 'q1', 'd1', 'x', "
                          f"'grade', 3, 't')")
        monkeypatch.undo()
        with open_store(url) as store:
            assert store.schema_version == SCHEMA_VERSION
            assert store.record_event(Event("q1", "d1", "y", "grade", grade=1)) == 3
            assert store.record_event(Event("q1", "d1", "y", "grade", grade=2)) == 4
        with store_backends.admin_connect(url) as admin:
            generated = admin.execute(
                "SELECT identity_generation FROM information_schema.columns WHERE "
                "table_name = 'events' AND column_name = 'id'").fetchone()[0]
        assert generated == "ALWAYS"


# -- 8: the grade scale (0-9 since schema 9: the widest) and the kinds, in the schema ---------
@pytest.mark.parametrize("values", [
    "('q1', 'd4', '{me}', 'grade', 99, 't')",
    "('q1', 'd4', '{me}', 'grade', -1, 't')",
    "('q1', 'd4', '{me}', 'grade', NULL, 't')",
    "('q1', 'd4', '{me}', 'skip', 10, 't')",
    "('q1', 'd4', '{me}', 'vote', 1, 't')",
], ids=["99", "-1", "no-grade", "skip-with-10", "unknown-kind"])
@pytest.mark.parametrize("who", ["alice", "lead"])
def test_no_role_s_own_sql_writes_a_grade_off_the_scale_or_an_unknown_kind(team, who, values):
    # (alice's unknown kind may meet row-level security first: she records 4 kinds only)
    refused = (psycopg.errors.CheckViolation, psycopg.errors.InsufficientPrivilege) \
        if who == "alice" and "vote" in values else psycopg.errors.CheckViolation
    with sql_as(team, who) as conn:
        with pytest.raises(refused):
            conn.execute(f"INSERT INTO events {EVENT} VALUES " + values.format(me=team[who]))
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0


def test_an_export_never_writes_a_grade_the_schema_refused(team, tmp_path, capsys):
    with sql_as(team, "alice") as conn:
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd1', %s, 'grade', 99, 't')",
                         (team["alice"],))
        conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd1', %s, 'grade', 3, 't')",
                     (team["alice"],))
    config = _config(tmp_path, team["url"])
    code, err, out = _run(["export", config, "--policy", "latest", "--format", "qrels"], capsys)
    assert (code, out) == (0, "q1 0 d1 3\n"), err


def test_an_assessor_s_own_sql_may_not_record_a_machine_judge_s_event(team):
    with sql_as(team, "alice") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at, "
                         "origin, judge_version) VALUES ('q1', 'd1', %s, 'grade', 2, 't', "
                         "'machine', 'echo/1')", (team["alice"],))
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0
    with sql_as(team, "lead") as conn:
        conn.execute("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at, origin, "
                     "judge_version) VALUES ('q1', 'd1', 'echo', 'grade', 2, 't', 'machine', "
                     "'echo/1')")
        with pytest.raises(psycopg.errors.CheckViolation):  # a person's event has no version
            conn.execute("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at, "
                         "judge_version) VALUES ('q1', 'd1', 'x', 'grade', 2, 't', 'v')")


# -- 9: row-level security on every table an assessor writes --------------------------------
def test_every_table_an_assessor_may_write_is_under_row_level_security(team):
    with store_backends.admin_connect(team["url"]) as admin:
        rows = admin.execute(
            "SELECT c.relname, c.relrowsecurity FROM pg_class c JOIN pg_namespace n ON "
            "n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r' "
            "AND (has_any_column_privilege('poolkit_assessor', c.oid, 'INSERT') OR "
            "has_any_column_privilege('poolkit_assessor', c.oid, 'UPDATE') OR "
            "has_table_privilege('poolkit_assessor', c.oid, 'DELETE') OR "
            "has_table_privilege('poolkit_assessor', c.oid, 'TRUNCATE'))").fetchall()
    writable = dict(rows)
    assert {"events", "shown_passages", "session_claims", "assessor_terms"} <= set(writable)
    assert all(writable.values()), writable


def test_an_assessor_cannot_write_another_s_claim_terms_or_passage(team, monkeypatch):
    bob, alice = team["bob"], team["alice"]
    with store_as(team, "bob", monkeypatch) as store:
        assert store.take_session_claim(bob, "h", 1, "2026-01-01T00:00:00+00:00",
                                        lambda _: False) is None
        store.mark_shown(bob, "q1", "d1", "t")
    with sql_as(team, "bob") as conn:
        conn.execute("INSERT INTO assessor_terms VALUES (%s, 'q1', 'worm', 't')", (bob,))
    before = dump(team["url"])
    with sql_as(team, "alice") as conn:
        for sql, args in [
            ("INSERT INTO session_claims VALUES (%s, 'x', 2, 't', 't')", (bob + "2",)),
            ("INSERT INTO session_claims VALUES (%s, 'x', 2, 't', 't') ON CONFLICT (assessor) "
             "DO UPDATE SET host = 'x'", (bob,)),
            ("INSERT INTO assessor_terms VALUES (%s, 'q1', 'spam', 't')", (bob,)),
            ("INSERT INTO shown_passages VALUES (%s, 'q1', 'd9', 't')", (bob + "2",)),
            ("INSERT INTO shown_passages VALUES (%s, 'q1', 'd9', 't') ON CONFLICT (assessor) "
             "DO UPDATE SET docid = 'd9'", (bob,)),
        ]:
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level"):
                conn.execute(sql, args)
        for sql in ("UPDATE session_claims SET host = 'x'", "DELETE FROM session_claims",
                    "UPDATE shown_passages SET docid = 'd9'", "DELETE FROM assessor_terms",
                    "UPDATE assessor_terms SET term = 'spam'"):
            assert conn.execute(sql).rowcount == 0  # bob's rows are not hers to touch
        # her own rows she writes, and she still reads everyone's
        conn.execute("INSERT INTO shown_passages VALUES (%s, 'q1', 'd2', 't')", (alice,))
        conn.execute("INSERT INTO session_claims VALUES (%s, 'x', 2, 't', 't')", (alice,))
        assert conn.execute("SELECT count(*) FROM session_claims").fetchone()[0] == 2
        for table in ("session_claims", "shown_passages"):  # nor hand her own row to bob
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level"):
                conn.execute(f"UPDATE {table} SET assessor = %s", (bob + "2",))
    after = dump(team["url"])
    for table in ("shown_passages", "session_claims"):
        after[table] = [r for r in after[table] if r[0] != alice]
    assert after == before


@pytest.mark.parametrize("kind", ["import", "adjudicate"])
def test_only_a_lead_records_imports_and_adjudications(team, kind):
    with sql_as(team, "alice") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level"):
            conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd1', %s, %s, 1, 't')",
                         (team["alice"], kind))
        for own in ("grade", "skip", "note", "undo"):
            conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd1', %s, %s, %s, 't')",
                         (team["alice"], own, 1 if own == "grade" else None))
    with sql_as(team, "lead") as conn:
        conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd1', 'nist', %s, 1, 't')",
                     (kind,))


def _config(tmp_path, url: str) -> str:
    (tmp_path / "corpus.jsonl").write_text('{"id": "d1", "text": "x"}\n')
    (tmp_path / "queries.jsonl").write_text('{"id": "q1", "text": "x"}\n')
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1.0 r\n")
    (tmp_path / "labels.qrels").write_text("q1 0 d1 2\n")
    config = tmp_path / "c.yaml"
    config.write_text(f"corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: {url}\n"
                      f"systems:\n  r: {{kind: run, path: r.run}}\n")
    return str(config)


def _run(argv, capsys) -> tuple[int, list[str], str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, err.splitlines(), out


def test_an_assessor_s_import_is_one_line_and_changes_nothing(team, tmp_path, monkeypatch,
                                                              capsys):
    config = _config(tmp_path, url_of(team, "alice"))
    before = dump(team["url"])
    monkeypatch.setenv("PGPASSWORD", PASSWORDS["alice"])
    for source in (team["alice"], "nist"):
        code, err, out = _run(["import", config, str(tmp_path / "labels.qrels"), "--as",
                               source], capsys)
        assert (code, out) == (2, "")
        assert err == [f"poolkit import: error: {url_of(team, 'alice')}: role "
                       f"'{team['alice']}' may not import labels: imports and adjudications "
                       f"are recorded by members of poolkit_admin"]
    assert dump(team["url"]) == before


def test_an_assessor_s_adjudication_is_one_line(team, tmp_path, monkeypatch, capsys):
    config = _config(tmp_path, url_of(team, "alice"))
    before = dump(team["url"])
    monkeypatch.setenv("PGPASSWORD", PASSWORDS["alice"])
    code, err, out = _run(["judge", config, "--adjudicate"], capsys)
    assert (code, out) == (2, "")
    assert err == [f"poolkit judge: error: {url_of(team, 'alice')}: role '{team['alice']}' "
                   f"may not adjudicate: imports and adjudications are recorded by members of "
                   f"poolkit_admin"]
    assert dump(team["url"]) == before


# -- 10: no outsider can stall the writers ----------------------------------------------------
def test_an_outsider_with_no_grants_cannot_stall_writers(team, monkeypatch):
    with sql_as(team, "mallory") as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (0x706F6F6C,))  # the old write lock
        conn.execute("SELECT pg_advisory_lock(0)")
        for sql in ("LOCK TABLE write_lock IN EXCLUSIVE MODE",
                    "LOCK TABLE write_lock IN ACCESS EXCLUSIVE MODE",
                    "LOCK TABLE events IN SHARE MODE", "SELECT * FROM write_lock FOR UPDATE",
                    "SELECT * FROM meta FOR UPDATE"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                with conn.transaction():
                    conn.execute(sql)
        with conn.transaction():  # mallory holds her locks in an open transaction
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (0x706F6F6C,))
            for who in ("alice", "lead"):
                monkeypatch.setenv("PGPASSWORD", PASSWORDS[who])
                with PgStore(url_of(team, who), busy_timeout=5) as store:
                    store.record_event(Event("q1", "d1", team[who], "grade", grade=1))
            with store_backends.admin_connect(team["url"]) as admin:
                assert admin.execute("SELECT count(*) FROM events").fetchone()[0] == 2


# -- 11: a role without access, or without the right to act, reads one line ------------------
@pytest.mark.parametrize("command", [["status", "{config}"], ["store", "init", "{url}"],
                                     ["export", "{config}", "--format", "qrels"]])
def test_an_outsider_reads_one_line_not_a_traceback(team, tmp_path, monkeypatch, capsys,
                                                    command):
    url = url_of(team, "mallory")
    config = _config(tmp_path, url)
    before = dump(team["url"])
    monkeypatch.setenv("PGPASSWORD", PASSWORDS["mallory"])
    argv = [a.format(config=config, url=url) for a in command]
    code, err, out = _run(argv, capsys)
    assert (code, out) == (2, "")
    name = command[0]
    assert err == [f"poolkit {name}: error: {url}: role '{team['mallory']}' has no access to "
                   f"this store; the lead makes it a member of poolkit_assessor (see `poolkit "
                   f"store init`)"]
    assert dump(team["url"]) == before


@pytest.mark.parametrize("who", ["alice", "lead"])
def test_store_init_by_a_role_that_does_not_own_the_store_grants_nothing_and_says_so(
        team, monkeypatch, capsys, who):
    url = url_of(team, who)
    with store_backends.admin_connect(team["url"]) as admin:
        owner = admin.execute("SELECT current_user").fetchone()[0]
    before = dump(team["url"])
    monkeypatch.setenv("PGPASSWORD", PASSWORDS[who])
    code, err, out = _run(["store", "init", url], capsys)
    assert (code, out) == (2, "")
    assert err == [f"poolkit store: error: {url}: role '{team[who]}' does not own this "
                   f"store (its owner is '{owner}'); only the owner may run `poolkit store "
                   f"init`"]
    assert dump(team["url"]) == before


def test_after_an_upgrade_an_assessor_is_told_the_lead_must_run_store_init(
        tmp_path, monkeypatch, capsys):
    import poolkit.store.postgres as pg

    with store_backends.fresh_database() as url:
        _as_of_version_5(monkeypatch, pg)
        assert main(["store", "init", url]) == 0  # a store as the previous poolkit made it
        capsys.readouterr()
        with store_backends.admin_connect(url) as admin:
            admin.execute("DROP TABLE write_lock")
        monkeypatch.undo()
        role = f"alice_{uuid.uuid4().hex[:8]}"
        with store_backends.admin_connect(url) as admin:
            admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw' IN ROLE poolkit_assessor")
        try:
            alice = store_backends.with_database(url, url.rsplit("/", 1)[1], user=role)
            config = _config(tmp_path, alice)
            before = dump(url)
            monkeypatch.setenv("PGPASSWORD", "pw")
            for argv in (["status", config], ["judge", config]):
                code, err, out = _run(argv, capsys)
                assert (code, out) == (2, "")
                assert err == [f"poolkit {argv[0]}: error: {alice}: store schema version 5 "
                               f"needs upgrading to {SCHEMA_VERSION}; the lead must run "
                               f"`poolkit store init`"]
            assert dump(url) == before
            monkeypatch.setenv("PGPASSWORD", store_backends.ADMIN_PASSWORD or "")
            assert main(["store", "init", url]) == 0  # the lead upgrades; alice reads again
            monkeypatch.setenv("PGPASSWORD", "pw")
            assert main(["status", config]) == 0
        finally:
            with store_backends.admin_connect(url) as admin:
                admin.execute(f"DROP OWNED BY {role}")
                admin.execute(f"DROP ROLE {role}")


@pytest.mark.parametrize("command", [["store", "init", "{url}"], ["import", "{config}",
                                                                   "{labels}", "--as", "x"]])
def test_a_role_that_may_not_create_tables_is_told_the_lead_sets_the_store_up(
        tmp_path, monkeypatch, capsys, command):
    with store_backends.fresh_database() as url:
        role = f"mallory_{uuid.uuid4().hex[:8]}"
        with store_backends.admin_connect(url) as admin:
            admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw'")
        try:
            mallory = store_backends.with_database(url, url.rsplit("/", 1)[1], user=role)
            config = _config(tmp_path, mallory)
            monkeypatch.setenv("PGPASSWORD", "pw")
            argv = [a.format(url=mallory, config=config, labels=tmp_path / "labels.qrels")
                    for a in command]
            code, err, out = _run(argv, capsys)
            assert (code, out) == (2, "")
            assert err == [f"poolkit {command[0]}: error: {mallory}: role '{role}' may not "
                           f"create the store here (permission denied for schema public); "
                           f"the lead must run `poolkit store init` first"]
            assert dump(url) == {}
        finally:
            with store_backends.admin_connect(url) as admin:
                admin.execute(f"DROP OWNED BY {role}")
                admin.execute(f"DROP ROLE {role}")
