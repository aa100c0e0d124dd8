"""PostgreSQL: an assessor's own SQL gives gold away in no way (issue 43, theme 6).

The adversary is an assessor (a member of ``poolkit_assessor``) with her own connection. She
may know which pairs are gold (the judging screen mixes them in), never their grades. So:
two stores that differ only in their gold file -- its name, its order, its grades, and so
the answers bob gave to match them -- look the same to her in everything she may read:
every table's and view's readable columns (system columns too) in the server's own row
order, every sequence, the planner's statistics. She cannot tell the files apart, so what
she reads says nothing of the grades. What she is refused is then named column by column.
"""

from __future__ import annotations

import re

import pytest
import store_backends
from test_postgres_security import (  # noqa: F401 (team: the fixture)
    EVENT,
    PASSWORDS,
    sql_as,
    store_as,
    team,
    url_of,
)

from poolkit.cli import main
from poolkit.store.gold_sql import GoldSet

psycopg = pytest.importorskip("psycopg")

#: One set of pairs (two pooled: q1/d2, q2/d4), as two files: other names, orders, grades.
GOLD_FILES = {"gold.qrels": "q1 0 d6 3\nq2 0 d3 0\nq1 0 d2 1\nq2 0 d6 2\nq1 0 d5 0\n"
                            "q2 0 d4 3\n",
              "lead-graded-2026.qrels": "q2 0 d4 0\nq1 0 d5 3\nq2 0 d6 1\nq1 0 d2 2\n"
                                        "q2 0 d3 3\nq1 0 d6 0\n"}
#: when the gold set was recorded: no secret, and different in every run
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00")


def collection(folder, url: str, name: str) -> str:
    """A config of six docs, two queries, one run pooled at depth 2 (the same data files
    for every config in ``folder``, so the systems' paths are the same)."""
    (folder / "corpus.jsonl").write_text("".join(
        f'{{"id": "d{i}", "text": "passage {i} on armyworms"}}\n' for i in range(1, 7)))
    (folder / "queries.jsonl").write_text('{"id": "q1", "text": "armyworm"}\n'
                                          '{"id": "q2", "text": "milk"}\n')
    (folder / "r.run").write_text("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\n"
                                  "q2 Q0 d1 1 2.0 r\nq2 Q0 d4 2 1.0 r\n")
    config = folder / f"{name}.yaml"
    config.write_text(f"corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: {url}\n"
                      f"systems:\n  r: {{kind: run, path: r.run}}\npool: {{depth: 2}}\n")
    return str(config)


def grades_of(text: str) -> dict[tuple[str, str], int]:
    return {(q, d): int(g) for q, _, d, g in map(str.split, text.splitlines())}


def pool(team, folder, monkeypatch, capsys) -> None:  # noqa: F811
    """As the lead, pool the collection (six docs, two queries: q1/d2 and q2/d4 are gold)."""
    monkeypatch.setenv("PGPASSWORD", PASSWORDS["lead"])
    assert main(["pool", collection(folder, url_of(team, "lead"), "pool"), "--quiet"]) == 0, \
        capsys.readouterr().err


def record_gold(team, folder, gold_file: str, monkeypatch, capsys) -> None:  # noqa: F811
    """As the lead, record ``gold_file`` as the gold set; bob answers every gold pair with
    its grade, alice answers one pair the same in every store."""
    config = collection(folder, url_of(team, "lead"), gold_file)
    (folder / gold_file).write_text(GOLD_FILES[gold_file])
    monkeypatch.setenv("PGPASSWORD", PASSWORDS["lead"])
    assert main(["gold", config, str(folder / gold_file), "--rate", "0.5", "--seed", "7"]) == 0, \
        capsys.readouterr().err
    capsys.readouterr()
    with sql_as(team, "bob") as conn:
        for (qid, docid), grade in sorted(grades_of(GOLD_FILES[gold_file]).items()):
            conn.execute(f"INSERT INTO events {EVENT} VALUES (%s, %s, %s, 'gold', %s, 't')",
                         (qid, docid, team["bob"], grade))
    with sql_as(team, "alice") as conn:
        conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd5', %s, 'gold', 2, 't')",
                     (team["alice"],))
    with store_backends.admin_connect(team["url"]) as admin:
        admin.execute("ANALYZE")  # the planner's statistics, which anyone may look up


def readable(conn, relation: str) -> list[str]:
    """The columns of ``relation`` this connection may read, system columns included."""
    return [r[0] for r in conn.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND NOT attisdropped "
        "AND has_column_privilege(attrelid, attnum, 'SELECT') ORDER BY attnum", (relation,))]


def what_one_reads(team, who: str) -> str:  # noqa: F811
    """Everything ``who`` may read in the store's schema, timestamps blanked: each table's
    and view's readable columns in the server's row order (no ORDER BY: the physical order
    is a reading too), transaction ids as their rank (they count the whole server's
    transactions), each sequence's state, the planner's statistics and any function."""
    out: dict[str, object] = {}
    with sql_as(team, who) as conn:
        relations = conn.execute(
            "SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = "
            "c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN "
            "('r', 'v', 'm', 'p', 'f', 'S') ORDER BY c.relname").fetchall()
        for name, kind in relations:
            if kind == "S":
                if conn.execute("SELECT has_sequence_privilege(%s, 'SELECT')",
                                (name,)).fetchone()[0]:
                    out[name] = conn.execute(f"SELECT last_value, is_called FROM {name}"
                                             ).fetchall()
                continue
            columns = [c for c in readable(conn, name) if c != "tableoid"]
            if not columns:
                continue
            rows = conn.execute(f"SELECT {', '.join(c + '::text' for c in columns)} "
                                f"FROM {name}").fetchall()
            for i in (i for i, c in enumerate(columns) if c in ("xmin", "xmax")):
                rank = {x: n for n, x in enumerate(sorted({int(r[i]) for r in rows}))}
                rows = [(*r[:i], rank[int(r[i])], *r[i + 1:]) for r in rows]
            out[name] = (columns, rows)
        out["pg_stats"] = conn.execute(
            "SELECT tablename, attname, null_frac, avg_width, n_distinct, "
            "most_common_vals::text, most_common_freqs, histogram_bounds::text, correlation "
            "FROM pg_stats WHERE schemaname = current_schema() ORDER BY 1, 2").fetchall()
        out["functions"] = conn.execute(
            "SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = current_schema()").fetchall()
    return TIME.sub("<time>", repr(out))


def test_two_gold_files_look_the_same_to_an_assessor(team, tmp_path, monkeypatch,  # noqa: F811
                                                     capsys):
    """Two copies of one pooled store (a byte copy: the same rows in the same places), each
    given one of the files."""
    pool(team, tmp_path, monkeypatch, capsys)
    with store_backends.fresh_database(template=team["url"]) as copy:
        other = {**team, "url": copy}
        record_gold(team, tmp_path, "gold.qrels", monkeypatch, capsys)
        record_gold(other, tmp_path, "lead-graded-2026.qrels", monkeypatch, capsys)
        seen = {who: (what_one_reads(team, who), what_one_reads(other, who))
                for who in ("alice", "lead")}
    assert seen["alice"][0] == seen["alice"][1]
    assert seen["lead"][0] != seen["lead"][1]  # the stores do differ, for whom may read it
    assert "d6" in seen["alice"][0] and "q2" in seen["alice"][0]  # (and she reads a lot)


def test_what_gives_gold_away_is_refused_column_by_column(team, monkeypatch):  # noqa: F811
    with store_as(team, "lead", monkeypatch) as store:
        store.replace_gold(GoldSet("gold.qrels", "a" * 64, 0.5, 7),
                           [("q1", "d2", 3, "T", "two"), ("q1", "d1", 0, "T", "one")])
    with sql_as(team, "bob") as conn:
        conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd2', %s, 'gold', 3, 't')",
                     (team["bob"],))
    with store_backends.admin_connect(team["url"]) as admin:
        admin.execute("ANALYZE")
    with sql_as(team, "alice") as conn:
        conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd1', %s, 'gold', 1, 't')",
                     (team["alice"],))
        for sql in ["SELECT * FROM gold_sets", "SELECT path FROM gold_sets",
                    "SELECT sha256 FROM gold_sets", "SELECT * FROM gold_pairs",
                    "SELECT qid FROM gold_pairs WHERE grade = 3", "SELECT * FROM texts",
                    *(f"SELECT {c} FROM {t}" for t in ("gold_pairs", "texts", "gold_sets")
                      for c in ("rowid", "ctid", "xmin", "cmin"))]:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)
        assert readable(conn, "gold_pairs") == ["qid", "docid", "text_hash", "gset"]
        assert readable(conn, "gold_sets") == ["gset", "made_at", "rate", "seed"]
        assert readable(conn, "texts") == ["hash", "title", "body"]
        # bob's answer on a gold pair is hidden from her (a majority of them is gold); hers not
        assert conn.execute("SELECT assessor, kind FROM events").fetchall() == [
            (team["alice"], "gold")]
        stats = conn.execute("SELECT tablename, attname FROM pg_stats WHERE tablename IN "
                             "('gold_pairs', 'gold_sets', 'events')").fetchall()
        assert ("gold_pairs", "docid") in stats and ("gold_pairs", "grade") not in stats
        assert not {("gold_sets", "sha256"), ("gold_sets", "path")} & set(stats)
        assert not [t for t, _ in stats if t == "events"]  # row-level security: none at all
        # nothing to call or look through on her behalf: poolkit's schema has no function
        # (a SECURITY DEFINER one would read as its owner) and no view
        assert conn.execute("SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = "
                            "p.pronamespace WHERE n.nspname = current_schema()").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM pg_views WHERE schemaname = "
                            "current_schema()").fetchone() == (0,)
        assert conn.execute("SELECT qid, docid FROM gold_pairs").fetchall() == [
            ("q1", "d1"), ("q1", "d2")]  # stored in pair order, not the file's
    with store_as(team, "alice", monkeypatch) as store:  # what judging needs, she reads
        gold = store.gold_set()
        assert (gold.path, gold.sha256, gold.rate, gold.seed) == (None, None, 0.5, 7)
        assert list(store.gold_queue()) == [("q1", "d1"), ("q1", "d2")]
    with store_as(team, "lead", monkeypatch) as store:  # the lead reads it all
        gold = store.gold_set()
        assert (gold.path, gold.sha256) == ("gold.qrels", "a" * 64)
        assert {(e.assessor, e.kind) for e in store.events()} == {
            (team["alice"], "gold"), (team["bob"], "gold")}


#: The rules of schema 11 this test needs, as the previous poolkit left them (today's
#: ``store init`` at schema 11 already grants today's): gold's file, hash and every text's
#: insertion order readable, every event readable, any grade in her own name.
SCHEMA_11_RULES = [
    "GRANT SELECT ON gold_sets, texts TO poolkit_assessor",
    "GRANT SELECT (rowid) ON gold_pairs TO poolkit_assessor",
    "DROP POLICY events_read ON events",
    "CREATE POLICY events_read ON events FOR SELECT USING (true)",
    "DROP POLICY events_own_name ON events",
    "CREATE POLICY events_own_name ON events FOR INSERT WITH CHECK (assessor = current_user)",
]


def test_a_schema_11_store_upgrades_to_gold_kept_and_the_plan_enforced(team, monkeypatch):  # noqa: F811
    """A store the previous poolkit made: the gold file's order in its rows (the order its
    passages were stored in, too) and the old rules. The owner's upgrade (``store init``)
    rewrites the rows in pair order and brings today's rules; nothing else changes."""
    import poolkit.store.postgres as pg
    from poolkit.store.assign_sql import AssignmentPlan
    from poolkit.store.backends import open_store
    from poolkit.store.copy import content_hash
    from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION

    alice, bob = team["alice"], team["bob"]
    in_file_order = [("q2", "d9", 3), ("q1", "d8", 0), ("q1", "d7", 2)]
    with store_backends.fresh_database() as url, monkeypatch.context() as at_11:
        at_11.setattr(pg, "MIGRATIONS", MIGRATIONS[:11])
        at_11.setattr(pg, "SCHEMA_VERSION", 11)
        at_11.setenv("PGPASSWORD", store_backends.ADMIN_PASSWORD or "")
        assert main(["store", "init", url]) == 0
        with store_backends.admin_connect(url) as admin:
            for rule in SCHEMA_11_RULES:
                admin.execute(rule)
            admin.execute("INSERT INTO gold_sets VALUES (1, 't', 'gold.qrels', %s, 1, 0)",
                          ("f" * 64,))
            for qid, docid, grade in in_file_order:  # as replace_gold stored them then
                admin.execute("INSERT INTO texts (hash, title, body) VALUES (%s, '', %s)",
                              (f"h-{docid}", f"passage {docid}"))
                admin.execute("INSERT INTO gold_pairs (qid, docid, grade, text_hash, gset) "
                              "VALUES (%s, %s, %s, %s, 1)", (qid, docid, grade, f"h-{docid}"))
            admin.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd8', %s, 'gold', 0, 't')",
                          (bob,))
        with open_store(url) as store:
            assert store.schema_version == 11
            store.replace_assignment(AssignmentPlan(1, "pair", 0, (alice, bob)),
                                     lambda current, settled: {("q1", "d1"): [bob]})
            before = content_hash(store)
        at_11.undo()
        old = {**team, "url": url}
        with sql_as(old, "alice") as conn:  # the old leaks, as they were
            assert conn.execute("SELECT sha256 FROM gold_sets").fetchone() == ("f" * 64,)
            assert conn.execute("SELECT docid FROM gold_pairs").fetchall() == [
                ("d9",), ("d8",), ("d7",)]
            assert conn.execute("SELECT count(*) FROM events").fetchone() == (1,)

        assert main(["store", "init", url]) == 0  # the owner upgrades
        with open_store(url) as store:
            assert store.schema_version == SCHEMA_VERSION
            assert content_hash(store) == before  # the same rows, in another order
            assert [(g.qid, g.docid, g.grade) for g in store.gold_pairs()] == sorted(
                in_file_order)
        with sql_as(old, "alice") as conn:
            for sql in ("SELECT sha256 FROM gold_sets", "SELECT path FROM gold_sets",
                        "SELECT rowid FROM texts", "SELECT rowid FROM gold_pairs"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(sql)
            # the rows and the passages in pair and hash order now, not the file's
            assert conn.execute("SELECT docid FROM gold_pairs").fetchall() == [
                ("d7",), ("d8",), ("d9",)]
            assert conn.execute("SELECT hash FROM texts").fetchall() == [
                ("h-d7",), ("h-d8",), ("h-d9",)]
            assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)  # bob's
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level"):
                conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd1', %s, 'grade', 1, "
                             f"'t')", (alice,))  # bob's pair
            conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd2', %s, 'grade', 1, 't')",
                         (alice,))  # a pair of no plan
