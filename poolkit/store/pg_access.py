"""Who may do what in a PostgreSQL judging store: the write lock, row-level security, grants.

Everything here is enforced by the server, so it holds for an assessor's own SQL as much as
for poolkit:

- **The write lock is a table lock** (``LOCK TABLE write_lock IN EXCLUSIVE MODE``), which
  needs UPDATE on ``write_lock``: only poolkit's two group roles (and the owner) hold it. An
  advisory lock can be taken by any role that may connect, and so stall every writer.
- **Every table an assessor may write is under row-level security by her own name**:
  ``events`` (append only), ``shown_passages``, ``session_claims``, ``assessor_terms``.
  Everybody reads everything but others' assignment slots (``assignments``: an assessor
  reads her own and the open ones, and may only take an open one for herself) and what
  would give gold away (below); members of ``poolkit_admin`` write under any name.
- **Assessors record ``grade``, ``undo``, ``skip``, ``note``, ``cant_judge`` and ``gold``
  (an answer on a gold pair) events only, as a person**; ``import`` and ``adjudicate``
  events, and a machine judge's events (``origin`` ``machine``), are for members of
  ``poolkit_admin`` (the README: leads import and adjudicate). The row-level policy on
  ``events`` enforces it.
- **The plan is the server's rule too**: an assessor's grade or can't-judge on a pair of the
  current assignment plan needs a slot of it in her name (``AssignSql.claim_slot`` takes an
  open one first, in the same transaction); a pair outside the plan is anyone's, as in
  poolkit. So her own SQL cannot grade a pair assigned to others.
- **Gold stays the lead's** (``ASSESSOR_READS``): an assessor reads which pairs are gold (the
  judging screen mixes them in) and the set's rate and seed, not their grades, the file's
  name or sha256 (hashing candidate files would find the grades of a small set), nor any
  column that keeps the order rows were inserted in (``rowid``, and ``ctid``/``xmin``/
  ``cmin``, which a column-level grant withholds too); ``GoldSql.replace_gold`` inserts in
  (qid, docid) order, so not even a table's physical order is the file's. Others' answers on
  gold pairs (``gold`` events) are hidden from her too: a majority of them would be gold.
- **Accounts are the lead's** (``ADMIN_ONLY``): the accounts of ``poolkit serve``, their
  password hashes, invites and the key its cookies are signed with are granted to
  poolkit_admin only; an assessor can neither read a hash (to guess it offline) nor the key
  (to sign a cookie in someone else's name).
- **Ids are the server's**: no role but the owner holds INSERT on ``events.id`` (or any
  ``rowid``), so no client can plant an id (``--policy latest`` orders by it) or take one
  another writer would be given.

The functions take a psycopg connection (``PgStore.pg.raw``) and run inside the caller's
transaction, which holds the write lock: schema creation and grants never race.
"""

from __future__ import annotations

from typing import Any

from poolkit.errors import StoreError
from poolkit.store.log_sql import SETTLING_KINDS

ADMIN_ROLE = "poolkit_admin"
ASSESSOR_ROLE = "poolkit_assessor"
LOCK_TABLE = "write_lock"
#: What an assessor may record under her own name; the rest is an admin's (see the docstring).
ASSESSOR_KINDS = ("grade", "undo", "skip", "note", "cant_judge", "gold")
#: Tables an assessor writes, each under row-level security by its ``assessor`` column, with
#: what she may do there (the session tables only where the schema has them).
ASSESSOR_WRITES = {"events": "INSERT", "shown_passages": "INSERT, UPDATE",
                   "session_claims": "INSERT, UPDATE, DELETE",
                   "assessor_terms": "INSERT, UPDATE, DELETE",
                   "assignments": "UPDATE"}
#: Tables an assessor reads only some columns of (the rest, and with them the rows' insertion
#: order, are the lead's: see the docstring): which pairs are gold and their texts, for the
#: judging screen to mix in, and the gold set's rate and seed, not its file, sha256 or grades.
ASSESSOR_READS = {"gold_pairs": ("qid", "docid", "text_hash", "gset"),
                  "gold_sets": ("gset", "made_at", "rate", "seed"),
                  "texts": ("hash", "title", "body")}
#: Tables only admins (and the owner) read or write: the accounts of ``poolkit serve``, with
#: their password hashes, the sha256 of their invites and the key cookies are signed with
#: (an assessor reading them could sign a cookie in anyone's name, or guess passwords offline).
ADMIN_ONLY = ("accounts", "invites", "server_secrets")
#: Columns nobody but the owner writes: the server assigns them.
SERVER_COLUMNS = ("id", "rowid")

_IS_ADMIN = (f"pg_has_role(current_user, (SELECT oid FROM pg_roles WHERE rolname = "
             f"'{ADMIN_ROLE}'), 'MEMBER')")
_OWN_NAME = f"(assessor = current_user OR {_IS_ADMIN})"
_KINDS = ", ".join(f"'{k}'" for k in ASSESSOR_KINDS)
#: an assessor records her own events; a machine judge's are an admin's (schema 7 on)
_AS_PERSON = "origin = 'person'"
#: an assessor settles a pair of the current plan only in a slot of her own (schema 9 on)
_IN_HER_SLOT = ("(kind NOT IN ({settling}) OR NOT EXISTS (SELECT 1 FROM assigned_pairs p WHERE "
                "p.qid = events.qid AND p.docid = events.docid) OR EXISTS (SELECT 1 FROM "
                "assignments a WHERE a.qid = events.qid AND a.docid = events.docid AND "
                "a.assessor = current_user))").format(
                    settling=", ".join(f"'{k}'" for k in SETTLING_KINDS))


def lock_exists(raw: Any) -> bool:
    row = raw.execute("SELECT to_regclass(%s)", (LOCK_TABLE,)).fetchone()
    return row is not None and row[0] is not None


def create_lock_table(raw: Any) -> None:
    """The table whose lock serialises writers (no columns, no rows: only its lock counts)."""
    raw.execute(f"CREATE TABLE {LOCK_TABLE} ()")
    raw.execute(f"ALTER TABLE {LOCK_TABLE} ENABLE ROW LEVEL SECURITY")


def take_write_lock(raw: Any) -> None:
    raw.execute(f"LOCK TABLE {LOCK_TABLE} IN EXCLUSIVE MODE")


def owns_store(raw: Any) -> bool:
    """Whether this role owns the store's tables (or is a superuser): who may upgrade the
    schema and grant access."""
    row = raw.execute(
        "SELECT pg_has_role(current_user, tableowner, 'MEMBER') FROM pg_tables "
        "WHERE tablename = 'meta' AND schemaname = current_schema()").fetchone()
    return bool(row and row[0])


def store_owner(raw: Any) -> str | None:
    row = raw.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'meta' AND "
                      "schemaname = current_schema()").fetchone()
    return str(row[0]) if row else None


def may_read(raw: Any) -> bool:
    row = raw.execute("SELECT has_table_privilege('meta', 'SELECT')").fetchone()
    return bool(row and row[0])


def may_read_column(raw: Any, table: str, column: str) -> bool:
    """Whether this role may read ``table.column`` (an assessor may not read some of gold's:
    ``ASSESSOR_READS``)."""
    row = raw.execute("SELECT has_column_privilege(%s, %s, 'SELECT')", (table, column)
                      ).fetchone()
    return bool(row and row[0])


def is_admin(raw: Any) -> bool:
    row = raw.execute(f"SELECT COALESCE({_IS_ADMIN}, false)").fetchone()
    return bool(row and row[0])


def protect_tables(raw: Any, tables: list[str]) -> None:
    """Row-level security on every table an assessor writes (idempotent: policies are made
    anew, so a store set up by an older poolkit gets today's rules)."""
    for table in (t for t in ASSESSOR_WRITES if t in tables):
        raw.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        for policy in (f"{table}_read", f"{table}_own_name"):  # poolkit's own, not others'
            raw.execute(f"DROP POLICY IF EXISTS {policy} ON {table}")
        if table == "assignments":
            _protect_assignments(raw)
            continue
        if table == "events":  # append only: no UPDATE or DELETE policy, nor grant
            _protect_events(raw, tables)
        else:
            raw.execute(f"CREATE POLICY {table}_read ON {table} FOR SELECT USING (true)")
            raw.execute(f"CREATE POLICY {table}_own_name ON {table} FOR ALL "
                        f"USING {_OWN_NAME} WITH CHECK {_OWN_NAME}")
    if LOCK_TABLE in tables or lock_exists(raw):
        raw.execute(f"ALTER TABLE {LOCK_TABLE} ENABLE ROW LEVEL SECURITY")


def _protect_events(raw: Any, tables: list[str]) -> None:
    """An assessor reads every event but others' answers on gold pairs, and appends her own
    events of ``ASSESSOR_KINDS`` as a person, settling a planned pair only in her own slot
    (the parts a store of an older schema has: it may lack ``origin`` or the plan)."""
    raw.execute(f"CREATE POLICY events_read ON events FOR SELECT USING (kind <> 'gold' OR "
                f"assessor = current_user OR {_IS_ADMIN})")
    rules = [f"kind IN ({_KINDS})"]
    if _has_column(raw, "events", "origin"):
        rules.append(_AS_PERSON)
    if "assigned_pairs" in tables:
        rules.append(_IN_HER_SLOT)
    raw.execute(f"CREATE POLICY events_own_name ON events FOR INSERT WITH CHECK ({_IS_ADMIN} "
                f"OR (assessor = current_user AND {' AND '.join(rules)}))")


def _protect_assignments(raw: Any) -> None:
    """An assessor reads only her own slots and the open ones (no other name), and may only
    take an open slot for herself; making and moving a plan is an admin's."""
    for policy in ("assignments_admin", "assignments_claim"):  # (_read: dropped already)
        raw.execute(f"DROP POLICY IF EXISTS {policy} ON assignments")
    raw.execute(f"CREATE POLICY assignments_read ON assignments FOR SELECT USING ("
                f"assessor = current_user OR assessor IS NULL OR {_IS_ADMIN})")
    raw.execute(f"CREATE POLICY assignments_claim ON assignments FOR UPDATE USING ("
                f"assessor IS NULL OR {_IS_ADMIN}) WITH CHECK ({_OWN_NAME})")
    raw.execute(f"CREATE POLICY assignments_admin ON assignments FOR ALL USING ({_IS_ADMIN}) "
                f"WITH CHECK ({_IS_ADMIN})")


def _has_column(raw: Any, table: str, column: str) -> bool:
    """Whether the store's ``table`` has ``column`` (a store of an older schema may not)."""
    return raw.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = "
                       "current_schema() AND table_name = %s AND column_name = %s",
                       (table, column)).fetchone() is not None


def groups_exist(raw: Any) -> bool:
    rows = raw.execute("SELECT count(*) FROM pg_roles WHERE rolname IN (%s, %s)",
                       (ADMIN_ROLE, ASSESSOR_ROLE)).fetchone()
    return bool(rows and rows[0] == 2)


def create_groups(raw: Any) -> list[str]:
    """The two group roles, made if missing. Roles belong to the whole server, so another
    database's ``store init`` may make one at the same moment: that one is then taken."""
    import psycopg

    done = []
    for role in (ADMIN_ROLE, ASSESSOR_ROLE):
        if raw.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
            continue
        try:
            with raw.transaction():  # a savepoint: a lost race leaves the outer one intact
                raw.execute(f"CREATE ROLE {role} NOLOGIN")
            done.append(f"created role {role}")
        except (psycopg.errors.DuplicateObject, psycopg.errors.UniqueViolation):
            pass
    return done


def apply_grants(raw: Any, tables: list[str], columns: dict[str, list[str]]) -> None:
    """Grant the two groups exactly what they need, revoking whatever else they (or PUBLIC)
    held: assessors read all and write their own rows of ``ASSESSOR_WRITES``; admins also
    write pools, queries, texts and systems. Nobody but the owner writes ``meta``, updates or
    deletes an event, or writes a column the server assigns."""
    groups = f"{ASSESSOR_ROLE}, {ADMIN_ROLE}"
    everything = ", ".join(tables)
    raw.execute(f"REVOKE ALL ON {everything} FROM PUBLIC, {groups}")  # column grants too
    readable = ", ".join(t for t in tables if t != LOCK_TABLE and t not in ASSESSOR_READS
                         and t not in ADMIN_ONLY)
    raw.execute(f"GRANT SELECT ON {readable} TO {groups}")
    for table in (t for t in ASSESSOR_READS if t in tables):
        raw.execute(f"GRANT SELECT ON {table} TO {ADMIN_ROLE}")
        raw.execute(f"GRANT SELECT ({', '.join(ASSESSOR_READS[table])}) ON {table} TO "
                    f"{ASSESSOR_ROLE}")
    if LOCK_TABLE in tables:
        raw.execute(f"GRANT UPDATE ON {LOCK_TABLE} TO {groups}")  # LOCK TABLE needs it
    for table, rights in ASSESSOR_WRITES.items():
        if table not in tables:
            continue
        cols = ", ".join(c for c in columns[table] if c not in SERVER_COLUMNS)
        grants = [f"{right} ({cols})" if right in ("INSERT", "UPDATE") else right
                  for right in (r.strip() for r in rights.split(","))]
        raw.execute(f"GRANT {', '.join(grants)} ON {table} TO {groups}")
    admin_tables = [t for t in tables if t not in ASSESSOR_WRITES and t not in
                    ("meta", LOCK_TABLE, *ADMIN_ONLY)]
    if admin_tables:
        raw.execute(f"GRANT INSERT, UPDATE ON {', '.join(admin_tables)} TO {ADMIN_ROLE}")
    own = [t for t in ADMIN_ONLY if t in tables]
    if own:
        raw.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {', '.join(own)} TO {ADMIN_ROLE}")
    if "assignments" in tables:  # a new plan replaces the old one's rows
        raw.execute(f"GRANT INSERT, DELETE ON assignments, assigned_pairs TO {ADMIN_ROLE}")
    if "gold_pairs" in tables:  # a new gold set replaces the old one's pairs
        raw.execute(f"GRANT DELETE ON gold_pairs TO {ADMIN_ROLE}")
    schema = raw.execute("SELECT current_schema()").fetchone()[0]
    raw.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {groups}")


def check_may_grant(raw: Any, label: str) -> None:
    """A StoreError unless this role owns the store: PostgreSQL only warns a non-owner's
    GRANT and grants nothing, so ``store init`` would claim grants it never made."""
    if not owns_store(raw):
        me = raw.execute("SELECT current_user").fetchone()[0]
        raise StoreError(f"{label}: role {me!r} does not own this store (its owner is "
                         f"{store_owner(raw)!r}); only the owner may run `poolkit store init`")


def no_access(label: str, role: str) -> StoreError:
    return StoreError(f"{label}: role {role!r} has no access to this store; the lead makes it "
                      f"a member of {ASSESSOR_ROLE} (see `poolkit store init`)")


def needs_upgrade(label: str, current: int, wanted: int) -> StoreError:
    return StoreError(f"{label}: store schema version {current} needs upgrading to {wanted}; "
                      f"the lead must run `poolkit store init`")


def may_not_create(label: str, role: str, why: str) -> StoreError:
    return StoreError(f"{label}: role {role!r} may not create the store here ({why}); the "
                      f"lead must run `poolkit store init` first")
