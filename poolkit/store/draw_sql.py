"""The human query sample's draws in the SQL both backends run (``query_draws`` and
``query_sample``, schema 8): recorded once each, in one transaction, never changed."""

from __future__ import annotations

from poolkit.io.sample import QueryDraw, SampledQuery
from poolkit.store.records import now
from poolkit.store.sql_base import SqlBase

_DRAW_COLUMNS = "draw, drawn_at, seed, n, population, design, machine, judge_version, measure"


class DrawSql(SqlBase):
    def record_query_draw(self, draw: QueryDraw) -> int:
        """Record ``draw`` and its queries as the next draw; its number."""
        with self.transaction() as c:
            number = int(c.execute("SELECT COALESCE(MAX(draw), 0) FROM query_draws")
                         .fetchone()[0]) + 1
            c.execute(f"INSERT INTO query_draws ({_DRAW_COLUMNS}) VALUES ({self._marks(9)})",
                      (number, now(), draw.seed, draw.n, draw.population, draw.design,
                       draw.machine, draw.judge_version, draw.measure))
            c.executemany(f"INSERT INTO query_sample (draw, qid, stratum, inclusion) VALUES "
                          f"({self._marks(4)})",
                          [(number, q.qid, q.stratum, q.inclusion) for q in draw.queries])
        return number

    def query_draws(self) -> list[QueryDraw]:
        """Every recorded draw, oldest first, each with its queries in drawn order."""
        draws = self.conn.execute(f"SELECT {_DRAW_COLUMNS} FROM query_draws ORDER BY draw")
        rows = self.conn.execute("SELECT draw, qid, stratum, inclusion FROM query_sample "
                                 "ORDER BY draw, rowid").fetchall()
        out = []
        for number, at, seed, n, population, design, machine, version, measure in draws:
            queries = tuple(SampledQuery(q, s, float(p)) for d, q, s, p in rows if d == number)
            out.append(QueryDraw(int(seed), int(n), int(population), design, queries, machine,
                                 version, measure, int(number), at))
        return out
