"""The judging store's schema, as an ordered list of migrations.

``MIGRATIONS[i]`` takes a store from schema version ``i`` to ``i + 1``. A store records its
version in ``meta``; opening one applies whatever migrations it lacks, in one transaction,
and refuses a store written by a newer poolkit rather than guessing at it.

Every step is a :class:`Dialects` pair: the SQL SQLite runs, and the SQL PostgreSQL runs
(``store.schema_postgres``: the same tables in PostgreSQL's types and collation). Nothing is
translated between them.
:func:`statements` splits a migration into statements (a trigger's body stays whole).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

import poolkit.store.schema_postgres as pg
from poolkit.io.scale import TOP_LIMIT
from poolkit.io.validate import GRADE_SCALE


@dataclass(frozen=True)
class Dialects:
    """One migration step spelled for each backend (what it does is the same rule)."""

    sqlite: str
    postgresql: str


#: The kinds whose events carry a grade (``store.records.GRADING_KINDS`` is the same tuple).
_GRADING = "('grade', 'adjudicate', 'import')"
_LOW, _HIGH = GRADE_SCALE[0], GRADE_SCALE[-1]  # the 0-3 rule of schemas 6 to 8


def _grade_rule(row: str = "", high: int = _HIGH) -> str:
    """A grading event's grade is on the scale (0..``high``); any other kind's grade, if
    any, too (``row``: ``NEW.`` in a trigger)."""
    return (f"({row}grade IS NULL OR {row}grade BETWEEN {_LOW} AND {high}) AND "
            f"({row}kind NOT IN {_GRADING} OR {row}grade IS NOT NULL)")


def _grade_triggers(high: int) -> str:
    """SQLite's two triggers holding every new or changed event to ``_grade_rule``."""
    return f"""
    CREATE TRIGGER IF NOT EXISTS events_grade_on_scale BEFORE INSERT ON events
    WHEN NOT ({_grade_rule('NEW.', high)})
    BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: events_grade_on_scale'); END;

    CREATE TRIGGER IF NOT EXISTS events_grade_on_scale_update
        BEFORE UPDATE OF kind, grade ON events
    WHEN NOT ({_grade_rule('NEW.', high)})
    BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: events_grade_on_scale'); END;
    """


#: the event kinds of schemas 9 and 10 (``cant_judge``: a person cannot grade a passage)
_KINDS_9 = "'grade', 'undo', 'skip', 'note', 'adjudicate', 'import', 'cant_judge'"
#: the event kinds from schema 11 on (``gold``: an answer on a gold pair, never a label)
_KINDS_11 = _KINDS_9 + ", 'gold'"


#: the query draws' designs from the f-designs migration on (``pool.query_sample.DESIGNS``)
_QUERY_DESIGNS = "'uniform', 'stratified', 'active'"


def _events_table(kinds: str) -> str:
    """SQLite's rebuild of ``events`` whose kind is one of ``kinds`` (SQLite cannot change
    a CHECK in place): same columns, rows and ids; the self-reference is written to the new
    table's name, which the rename turns into ``events``. The grade triggers go with the old
    table: the caller makes them again."""
    return f"""
    CREATE TABLE events_new (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        qid TEXT NOT NULL,
        docid TEXT NOT NULL,
        assessor TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ({kinds})),
        grade INTEGER,
        shown_at TEXT,
        judged_at TEXT NOT NULL,
        text_hash TEXT,
        pool_version INTEGER,
        position INTEGER,
        note TEXT,
        ref INTEGER REFERENCES events_new(id),
        source TEXT,
        origin TEXT NOT NULL DEFAULT 'person' CHECK (origin IN ('person', 'machine')),
        judge_version TEXT CHECK (judge_version IS NULL OR origin = 'machine')
    );
    INSERT INTO events_new SELECT * FROM events;
    DROP TABLE events;
    ALTER TABLE events_new RENAME TO events;
    CREATE INDEX events_pair ON events (qid, docid);
    CREATE INDEX events_assessor ON events (assessor, qid);
    """


_GOLD_TABLES = """
    CREATE TABLE gold_sets (
        gset INTEGER PRIMARY KEY,
        made_at TEXT NOT NULL,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        rate REAL NOT NULL CHECK (rate > 0 AND rate <= 1),
        seed INTEGER NOT NULL
    );

    CREATE TABLE gold_pairs (
        qid TEXT NOT NULL,
        docid TEXT NOT NULL,
        grade INTEGER NOT NULL CHECK (grade BETWEEN 0 AND 9),
        text_hash TEXT NOT NULL REFERENCES texts(hash),
        gset INTEGER NOT NULL REFERENCES gold_sets(gset),
        PRIMARY KEY (qid, docid)
    );
    """


#: gold's rows rewritten in (qid, docid) order (migration 12): SQL both backends speak
_GOLD_IN_PAIR_ORDER = """
    CREATE TEMP TABLE gold_pairs_sorted AS
        SELECT qid, docid, grade, text_hash, gset FROM gold_pairs;
    DELETE FROM gold_pairs;
    INSERT INTO gold_pairs (qid, docid, grade, text_hash, gset)
        SELECT qid, docid, grade, text_hash, gset FROM gold_pairs_sorted ORDER BY qid, docid;
    DROP TABLE gold_pairs_sorted;
    """


MIGRATIONS: list[Dialects] = [
    # 0 -> 1: the first schema.
    Dialects(
        sqlite="""
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    CREATE TABLE queries (
        qid TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        description TEXT,
        narrative TEXT
    );

    -- What a passage said when it was pooled, addressed by content: what an assessor saw
    -- can always be shown again, even if the corpus changes later.
    CREATE TABLE texts (
        hash TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        body TEXT NOT NULL
    );

    CREATE TABLE systems (
        name TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        grp TEXT,
        settings TEXT NOT NULL,          -- JSON
        run_sha256 TEXT,
        run_path TEXT,
        registered_at TEXT NOT NULL
    );

    CREATE TABLE pool_versions (
        version INTEGER PRIMARY KEY,
        created_at TEXT NOT NULL,
        depths TEXT NOT NULL,            -- JSON: system -> depth taken into the pool
        order_strategy TEXT NOT NULL,
        note TEXT
    );

    -- One row per pooled (query, doc): the version that first pooled it, the text it had
    -- then, and its place in the judging order.
    CREATE TABLE pool_members (
        qid TEXT NOT NULL,
        docid TEXT NOT NULL,
        version INTEGER NOT NULL REFERENCES pool_versions(version),
        text_hash TEXT NOT NULL REFERENCES texts(hash),
        order_key REAL NOT NULL,
        PRIMARY KEY (qid, docid)
    );

    -- Every (system, rank, score) that brought a pooled doc in, and in which version.
    CREATE TABLE pool_sources (
        qid TEXT NOT NULL,
        docid TEXT NOT NULL,
        system TEXT NOT NULL,
        rank INTEGER NOT NULL,
        score REAL,
        version INTEGER NOT NULL REFERENCES pool_versions(version),
        PRIMARY KEY (qid, docid, system)
    );

    -- The append-only judgment log. Nothing here is ever updated or deleted: undo and
    -- regrade are new rows. Current labels are derived (see Store.current_grades).
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        qid TEXT NOT NULL,
        docid TEXT NOT NULL,
        assessor TEXT NOT NULL,
        kind TEXT NOT NULL
            CHECK (kind IN ('grade', 'undo', 'skip', 'note', 'adjudicate', 'import')),
        grade INTEGER,
        shown_at TEXT,
        judged_at TEXT NOT NULL,
        text_hash TEXT,
        pool_version INTEGER,
        position INTEGER,
        note TEXT,
        ref INTEGER REFERENCES events(id),
        source TEXT
    );
    CREATE INDEX events_pair ON events (qid, docid);
    CREATE INDEX events_assessor ON events (assessor, qid);
    CREATE INDEX pool_members_order ON pool_members (qid, version, order_key);
    """,
        postgresql=pg.FIRST_SCHEMA),

    # 1 -> 2: per pool version, the systems it pooled as they were then (``systems`` keeps
    # only the latest registration, so an old version's run hashes were lost on re-pooling).
    # A v1 store is backfilled from its ``systems`` rows, the best record it kept: those rows
    # are marked ``backfilled`` since an older version may have used an earlier run.
    Dialects(
        sqlite="""
    CREATE TABLE pool_version_systems (
        version INTEGER NOT NULL REFERENCES pool_versions(version),
        system TEXT NOT NULL,
        kind TEXT NOT NULL,
        grp TEXT,
        settings TEXT NOT NULL,          -- JSON
        run_sha256 TEXT,
        run_path TEXT,
        backfilled INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (version, system)
    );

    INSERT INTO pool_version_systems
        SELECT v.version, s.name, s.kind, s.grp, s.settings, s.run_sha256, s.run_path, 1
        FROM pool_versions v, json_each(v.depths) j JOIN systems s ON s.name = j.key
    """,
        postgresql=pg.POOL_VERSION_SYSTEMS),

    # 2 -> 3: the passage each assessor is looking at, so an adaptive judging order gives two
    # assessors on one query different passages. One row per assessor (a new passage replaces
    # the old); not part of the judgment log: nothing is judged by being shown.
    Dialects(
        sqlite="""
    CREATE TABLE shown_passages (
        assessor TEXT PRIMARY KEY,
        qid TEXT NOT NULL,
        docid TEXT NOT NULL,
        shown_at TEXT NOT NULL
    );
    """,
        postgresql=pg.SHOWN_PASSAGES),

    # 3 -> 4: a sampled pool's design (pool.strategy: sample). Every pair the pooling strategy
    # selected, drawn for judging or not, with its stratum and inclusion probability; the
    # estimators (xinfAP, statAP, infNDCG, R_est) need the whole pool, not only the sample.
    # Only the drawn pairs are pool_members (the judging queue); a depth-k pool has no rows.
    Dialects(
        sqlite="""
    CREATE TABLE pool_sample (
        qid TEXT NOT NULL,
        docid TEXT NOT NULL,
        version INTEGER NOT NULL REFERENCES pool_versions(version),
        stratum TEXT NOT NULL,
        inclusion REAL NOT NULL CHECK (inclusion > 0 AND inclusion <= 1),
        sampled INTEGER NOT NULL CHECK (sampled IN (0, 1)),
        PRIMARY KEY (qid, docid)
    );
    """,
        postgresql=pg.POOL_SAMPLE),

    # 4 -> 5: judging sessions. ``session_claims``: which process judges as an assessor (one
    # live session per assessor and store; a claim whose heartbeat is old has expired).
    # ``assessor_terms``: words an assessor added to a query's highlighting.
    Dialects(
        sqlite="""
    CREATE TABLE IF NOT EXISTS session_claims (
        assessor TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        since TEXT NOT NULL,
        heartbeat TEXT NOT NULL
    );

    CREATE TABLE IF NOT EXISTS assessor_terms (
        assessor TEXT NOT NULL,
        qid TEXT NOT NULL,
        term TEXT NOT NULL,
        added_at TEXT NOT NULL,
        PRIMARY KEY (assessor, qid, term)
    );
    """,
        postgresql=pg.SESSIONS),

    # 5 -> 6: the schema itself keeps the judgment log's rules, whoever writes to it (another
    # tool, or on PostgreSQL an assessor's own SQL): a grade on the scale, and on PostgreSQL
    # event ids the server assigns (GENERATED ALWAYS; ``store.postgres`` grants no role the
    # id column), its sequence moved past every id already there so no insert collides.
    # Rows already in a store are not re-checked (NOT VALID; SQLite triggers see new rows).
    Dialects(
        sqlite=_grade_triggers(_HIGH),
        postgresql=f"""
    ALTER TABLE events ADD CONSTRAINT events_grade_on_scale CHECK ({_grade_rule()}) NOT VALID;
    ALTER TABLE events ALTER COLUMN id SET GENERATED ALWAYS;
    SELECT setval(pg_get_serial_sequence('events', 'id'),
                  COALESCE((SELECT MAX(id) FROM events), 0) + 1, false)
    """),
    # 6 -> 7: who made an event: ``origin`` is ``person`` (every event before this version,
    # and every event of the judging screen and of imports) or ``machine``, a machine judge
    # (``poolkit.judges``) whose name is the event's assessor and whose version is
    # ``judge_version``. Readers of people's labels leave machine events out; on PostgreSQL an
    # assessor may not record one (``store.pg_access``).
    Dialects(
        sqlite="""
    ALTER TABLE events ADD COLUMN origin TEXT NOT NULL DEFAULT 'person'
        CHECK (origin IN ('person', 'machine'));

    ALTER TABLE events ADD COLUMN judge_version TEXT
        CHECK (judge_version IS NULL OR origin = 'machine');
    """,
        postgresql=pg.EVENT_ORIGIN),
    # 7 -> 8: which queries people are to judge (``poolkit sample-queries``). Each draw is a
    # row of ``query_draws`` (seed, size, design, the machine judge version that stratified
    # it); ``query_sample`` holds its queries with their stratum and inclusion probability,
    # which ``estimate`` weights by. A draw is never changed; a new one is a new row.
    Dialects(
        sqlite="""
    CREATE TABLE query_draws (
        draw INTEGER PRIMARY KEY,
        drawn_at TEXT NOT NULL,
        seed INTEGER NOT NULL,
        n INTEGER NOT NULL CHECK (n > 0),
        population INTEGER NOT NULL CHECK (population >= n),
        design TEXT NOT NULL CHECK (design IN ('uniform', 'stratified')),
        machine TEXT,
        judge_version TEXT,
        measure TEXT
    );

    CREATE TABLE query_sample (
        draw INTEGER NOT NULL REFERENCES query_draws(draw),
        qid TEXT NOT NULL,
        stratum TEXT NOT NULL,
        inclusion REAL NOT NULL CHECK (inclusion > 0 AND inclusion <= 1),
        PRIMARY KEY (draw, qid)
    );
    """,
        postgresql=pg.QUERY_SAMPLE),

    # ---- 8 -> 9 (branch s34-team, issue 28): assignments with controlled overlap, and the
    # ``cant_judge`` event. One migration, kept apart so that it can be renumbered.
    #
    # ``assignments`` has one row per (pair, slot): a pair of the plan has exactly ``overlap``
    # slots, each empty (``assessor`` NULL: open work) or held by one assessor, and no
    # assessor holds two slots of a pair (UNIQUE). So the schema itself caps a pair at its
    # overlap: a claim is an UPDATE of an open slot, and two claims of the last slot cannot
    # both succeed, whichever backend or client writes. ``assignment_plans`` keeps every
    # ``poolkit assign`` (overlap, unit, seed, assessors as JSON); the newest is the current.
    # ``assigned_pairs`` names the current plan's pairs without saying who holds them: under
    # PostgreSQL's row-level security an assessor reads only her own slots and open ones, yet
    # must know that a pair she cannot see a slot of is full, not unplanned.
    #
    # ``cant_judge`` (a person cannot grade a passage: its reason in ``note``) joins the
    # event kinds. SQLite cannot change a CHECK in place: ``events`` is rebuilt with the same
    # columns, rows and ids; its self-reference is written to the new table's name, which the
    # rename turns into ``events`` (so no row of the old table is ever a child of the new).
    Dialects(
        sqlite=_events_table(_KINDS_9) + _grade_triggers(_HIGH) + """
    CREATE TABLE assignment_plans (
        plan INTEGER PRIMARY KEY,
        made_at TEXT NOT NULL,
        overlap INTEGER NOT NULL CHECK (overlap > 0),
        unit TEXT NOT NULL CHECK (unit IN ('query', 'pair')),
        seed INTEGER NOT NULL,
        assessors TEXT NOT NULL
    );

    CREATE TABLE assignments (
        qid TEXT NOT NULL,
        docid TEXT NOT NULL,
        slot INTEGER NOT NULL CHECK (slot >= 0),
        assessor TEXT,
        plan INTEGER NOT NULL REFERENCES assignment_plans(plan),
        PRIMARY KEY (qid, docid, slot),
        UNIQUE (qid, docid, assessor)
    );
    CREATE INDEX assignments_assessor ON assignments (assessor, qid);

    CREATE TABLE assigned_pairs (
        qid TEXT NOT NULL,
        docid TEXT NOT NULL,
        plan INTEGER NOT NULL REFERENCES assignment_plans(plan),
        PRIMARY KEY (qid, docid)
    );
    """,
        postgresql=pg.ASSIGNMENTS),
    # 9 -> 10: a collection's grade scale is any 0..G (``io.scale``, G at most 9), recorded in
    # ``meta.grades`` (none: the 0-3 scale of every store before). The schema's rule on an
    # event's grade widens from 0-3 to the widest scale, 0-9; that a grade is on the store's
    # own scale is checked where events are written (``store.records.event_row``).
    Dialects(
        sqlite="""
    DROP TRIGGER IF EXISTS events_grade_on_scale;
    DROP TRIGGER IF EXISTS events_grade_on_scale_update;
    """ + _grade_triggers(TOP_LIMIT),
        postgresql=f"""
    ALTER TABLE events DROP CONSTRAINT events_grade_on_scale;
    ALTER TABLE events ADD CONSTRAINT events_grade_on_scale
        CHECK ({_grade_rule(high=TOP_LIMIT)}) NOT VALID
    """),
    # ---- 10 -> 11 (branch s35-gold, issue 28): gold checks. ``gold_sets`` keeps every
    # ``poolkit gold`` (the file, its sha256, the rate and seed of mixing); the newest is the
    # current one, and ``gold_pairs`` holds its pairs with their known grade and the text an
    # assessor is shown (in ``texts``: a gold pair need not be pooled). An assessor's answer
    # on a gold pair is a ``gold`` event (the new kind, grade on the scale): never a label.
    # SQLite rebuilds ``events`` for the new kind as migration 9 did.
    Dialects(
        sqlite=_events_table(_KINDS_11) + _grade_triggers(TOP_LIMIT) + _GOLD_TABLES,
        postgresql=pg.GOLD),
    # ---- 11 -> 12 (branch r6-postgres, issue 43): gold stays the lead's. ``gold_pairs`` is
    # rewritten in (qid, docid) order, as ``GoldSql.replace_gold`` now inserts: a set recorded
    # before kept its file's order in its rows, which with the file's sha256 gives a small
    # set's grades away (hash every candidate file). On PostgreSQL ``texts`` is rewritten in
    # hash order too, and the grants and policies every migration re-applies
    # (``store.pg_access``) then hide the file, its sha256, gold's grades and others' gold
    # answers from assessors, and hold an assessor's grades to her slots of the plan.
    Dialects(sqlite=_GOLD_IN_PAIR_ORDER,
             postgresql=_GOLD_IN_PAIR_ORDER + pg.TEXTS_IN_HASH_ORDER),
    # ---- 12 -> 13 (issue 39): the accounts of ``poolkit serve``. One row of
    # ``accounts`` per person who may log in from a browser: a role (``assessor`` or
    # ``lead``), a salted memory-hard hash of the password (``poolkit.passwords``; NULL until
    # an invite is redeemed) and an ``epoch`` that changes with the password and dies with the
    # account, which the server's signed cookies carry (a cookie of another epoch is void).
    # ``invites`` keeps only the sha256 of each one-time link's token. ``server_secrets``
    # holds the key the server signs cookies with, made once per store. On PostgreSQL none of
    # the three is granted to assessors (``store.pg_access.ADMIN_ONLY``).
    Dialects(
        sqlite="""
    CREATE TABLE accounts (
        name TEXT PRIMARY KEY,
        role TEXT NOT NULL CHECK (role IN ('assessor', 'lead')),
        hash TEXT,
        created TEXT NOT NULL,
        epoch INTEGER NOT NULL
    );

    CREATE TABLE invites (
        token_sha256 TEXT PRIMARY KEY CHECK (length(token_sha256) = 64),
        name TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('assessor', 'lead')),
        expires TEXT NOT NULL,
        used TEXT
    );

    CREATE TABLE server_secrets (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
        postgresql=pg.ACCOUNTS),
    # ---- 13 -> 14 (issue 40): ``poolkit check-judge``. ``judge_checks``
    # keeps each check of one machine judge version (its seed, canaries per kind, the
    # fooled-rate limit and the verdict: ``trusted``); ``canaries`` every canary it planted
    # (the passage as sent, the grade or the unreadable answer). A canary is never an event,
    # so never a label, an export, an estimate or an agreement figure.
    Dialects(sqlite="""
    CREATE TABLE judge_checks (
        id INTEGER PRIMARY KEY,
        judge TEXT NOT NULL,
        version TEXT NOT NULL,
        made_at TEXT NOT NULL,
        seed INTEGER NOT NULL,
        per_kind INTEGER NOT NULL CHECK (per_kind > 0),
        max_fooled REAL NOT NULL CHECK (max_fooled >= 0 AND max_fooled <= 1),
        level INTEGER NOT NULL,
        trusted INTEGER NOT NULL CHECK (trusted IN (0, 1)),
        summary TEXT NOT NULL
    );
    CREATE INDEX judge_checks_version ON judge_checks (judge, version);

    CREATE TABLE canaries (
        check_id INTEGER NOT NULL REFERENCES judge_checks(id),
        kind TEXT NOT NULL CHECK (kind IN ('terms', 'instruction', 'both')),
        qid TEXT NOT NULL,
        docid TEXT NOT NULL,
        text_hash TEXT NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        grade INTEGER,
        answer TEXT NOT NULL,
        model TEXT NOT NULL
    );
    CREATE INDEX canaries_check ON canaries (check_id);
    """, postgresql=pg.CANARIES),
    # ---- 14 -> 15 (issue 41): ``sample-queries --design active``, a query draw
    # with probability proportional to the spread of the runs' machine scores, joins the
    # designs ``query_draws`` records (its per-query probabilities go in ``query_sample``
    # as every draw's do). SQLite cannot change a CHECK in place: both tables are rebuilt
    # with the same columns and rows in the same order (``query_sample`` references
    # ``query_draws``, so it is copied under a new name first and the old one dropped
    # before its parent); PostgreSQL changes the CHECK in place.
    Dialects(sqlite=f"""
    CREATE TABLE query_draws_new (
        draw INTEGER PRIMARY KEY,
        drawn_at TEXT NOT NULL,
        seed INTEGER NOT NULL,
        n INTEGER NOT NULL CHECK (n > 0),
        population INTEGER NOT NULL CHECK (population >= n),
        design TEXT NOT NULL CHECK (design IN ({_QUERY_DESIGNS})),
        machine TEXT,
        judge_version TEXT,
        measure TEXT
    );
    CREATE TABLE query_sample_new (
        draw INTEGER NOT NULL REFERENCES query_draws_new(draw),
        qid TEXT NOT NULL,
        stratum TEXT NOT NULL,
        inclusion REAL NOT NULL CHECK (inclusion > 0 AND inclusion <= 1),
        PRIMARY KEY (draw, qid)
    );
    INSERT INTO query_draws_new SELECT * FROM query_draws ORDER BY draw;
    INSERT INTO query_sample_new SELECT * FROM query_sample ORDER BY rowid;
    DROP TABLE query_sample;
    DROP TABLE query_draws;
    ALTER TABLE query_draws_new RENAME TO query_draws;
    ALTER TABLE query_sample_new RENAME TO query_sample;
    """, postgresql=f"""
    ALTER TABLE query_draws DROP CONSTRAINT IF EXISTS query_draws_design_check;
    ALTER TABLE query_draws ADD CONSTRAINT query_draws_design_check
        CHECK (design IN ({_QUERY_DESIGNS}));
    """),
]

SCHEMA_VERSION = len(MIGRATIONS)


def migration_sql(step: Dialects, dialect: str) -> str:
    """The SQL of one migration step for ``dialect`` (``sqlite`` or ``postgresql``)."""
    return str(getattr(step, dialect))


def statements(sql: str) -> Iterator[str]:
    """The statements of a migration's SQL, each whole (``;`` inside a trigger's body does
    not end it), blank ones left out."""
    pending = ""
    for piece in sql.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \t\n;"):
                yield pending.strip().rstrip(";")
            pending = ""
    if pending.strip(" \t\n;"):
        yield pending.strip().rstrip(";")
