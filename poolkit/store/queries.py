"""The store contract's methods in the SQL both backends run, written once.

Each statement is in the common ground of SQLite and PostgreSQL (``ON CONFLICT`` rather than
``INSERT OR REPLACE``, ``RETURNING`` rather than ``lastrowid``, ``rowid`` only to order by
insertion: PostgreSQL tables have a ``rowid`` column for it) and spells a parameter with the
backend's ``mark`` (``?`` for sqlite3, ``%s`` for psycopg); nothing translates it afterwards.
What the engines do differently (opening, transactions, the schema, whole-table access) is
each backend's own: ``store.store.Store`` (SQLite) and ``store.postgres.PgStore``.

The rules every backend keeps are stated here: an append-only event log, idempotent
pooling, versioned pools with provenance. Readers of the judgment log see people's events
only, unless asked for one machine judge's (``machine=NAME``): a machine judge's grades
never mix into people's labels, agreement or status (see ``records.Event.origin``).
"""

from __future__ import annotations

from poolkit.store.accounts_sql import AccountsSql
from poolkit.store.assign_sql import AssignSql
from poolkit.store.canary_sql import CanarySql
from poolkit.store.draw_sql import DrawSql
from poolkit.store.gold_sql import GoldSql
from poolkit.store.log_sql import LogSql
from poolkit.store.pool_sql import PoolSql


class StoreQueries(PoolSql, AssignSql, LogSql, DrawSql, GoldSql, AccountsSql, CanarySql):
    """The shared half of a store backend: every contract method that is plain SQL
    (``pool_sql.PoolSql``, ``log_sql.LogSql``, ``draw_sql.DrawSql``, ``assign_sql.AssignSql``,
    ``gold_sql.GoldSql``, ``accounts_sql.AccountsSql``, ``canary_sql.CanarySql``, on
    ``sql_base.SqlBase``)."""
