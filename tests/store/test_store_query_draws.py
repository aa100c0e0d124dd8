"""Schema 8: the human query sample's draws, recorded once each on both backends, read back
as drawn; the schema refuses an impossible probability; a schema-7 store gains the tables and
keeps its content hash."""

from __future__ import annotations

import pytest

from poolkit.io.sample import QueryDraw, SampledQuery
from poolkit.store.backends import open_store
from poolkit.store.copy import content_hash


@pytest.fixture
def store(store_location):
    with open_store(store_location) as s:
        yield s


def draw(*queries: tuple[str, str, float], design: str = "uniform") -> QueryDraw:
    return QueryDraw(7, len(queries), 4, design, tuple(SampledQuery(*q) for q in queries))


def test_draws_are_numbered_and_read_back_as_drawn(store):
    assert store.query_draws() == []
    first = draw(("q3", "all", 0.5), ("q1", "all", 0.5))
    second = QueryDraw(8, 2, 4, "stratified", (SampledQuery("q2", "1: 0.1-0.2", 0.5),
                                                SampledQuery("q4", "2: 0.5-0.9", 0.5)),
                       "llm", "abc123", "nDCG@10")
    assert store.record_query_draw(first) == 1
    assert store.record_query_draw(second) == 2
    got = store.query_draws()
    assert [d.draw for d in got] == [1, 2] and all(d.drawn_at for d in got)
    assert [q.qid for q in got[0].queries] == ["q3", "q1"]  # drawn order
    assert got[1].inclusion == {"q2": 0.5, "q4": 0.5}
    assert (got[1].machine, got[1].judge_version, got[1].measure) == ("llm", "abc123",
                                                                      "nDCG@10")


def test_an_impossible_probability_is_refused_and_nothing_is_recorded(store):
    with pytest.raises(Exception, match="(?i)check"):
        store.record_query_draw(draw(("q1", "all", 0.5), ("q2", "all", 1.5)))
    assert store.query_draws() == []


def test_a_schema_7_store_gains_the_draw_tables_and_keeps_its_hash(tmp_path, monkeypatch):
    import poolkit.store.store as sqlite_store
    from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION

    path = tmp_path / "v7.sqlite"
    with monkeypatch.context() as at_7:
        at_7.setattr(sqlite_store, "MIGRATIONS", MIGRATIONS[:7])
        at_7.setattr(sqlite_store, "SCHEMA_VERSION", 7)
        with sqlite_store.Store(path) as old:
            old.conn.execute("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at) "
                             "VALUES ('q1', 'd1', 'alice', 'grade', 2, 't')")
            before = content_hash(old)
    with open_store(path) as new:
        assert new.schema_version == SCHEMA_VERSION >= 8
        assert {"query_draws", "query_sample"} <= set(new.tables())
        assert content_hash(new) == before
        new.record_query_draw(draw(("q1", "all", 0.5), ("q2", "all", 0.5)))
        assert content_hash(new) != before


def test_a_store_with_draws_copies_to_sqlite_identically(store, tmp_path):
    from poolkit.store.copy import copy_store

    store.record_query_draw(draw(("q3", "all", 0.5), ("q1", "all", 0.5)))
    with open_store(tmp_path / "copy.sqlite") as copy:
        report = copy_store(store, copy)
        assert report.to_dict()["identical"] and report.counts["query_sample"] == 2
        assert copy.query_draws()[0].queries == store.query_draws()[0].queries


def test_an_active_draw_is_recorded_with_its_unequal_probabilities(store):
    """The f-designs migration: ``sample-queries --design active`` is a design the schema
    takes, each query with its own probability; a design it does not know is refused."""
    active = draw(("q1", "active", 1.0), ("q3", "active", 0.25), design="active")
    assert store.record_query_draw(active) == 1
    got = store.query_draws()[0]
    assert got.design == "active" and got.inclusion == {"q1": 1.0, "q3": 0.25}
    with pytest.raises(Exception, match="(?i)check"):
        store.record_query_draw(draw(("q1", "all", 0.5), ("q2", "all", 0.5), design="lucky"))
    assert len(store.query_draws()) == 1


def test_a_store_before_the_active_design_keeps_its_draws_and_takes_active(tmp_path,
                                                                          monkeypatch):
    import poolkit.store.store as sqlite_store
    from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION

    path = tmp_path / "old.sqlite"
    step = next(i for i, m in enumerate(MIGRATIONS) if "query_draws_new" in m.sqlite)
    with monkeypatch.context() as before_it:
        before_it.setattr(sqlite_store, "MIGRATIONS", MIGRATIONS[:step])
        before_it.setattr(sqlite_store, "SCHEMA_VERSION", step)
        with sqlite_store.Store(path) as old:
            old.record_query_draw(draw(("q3", "all", 0.5), ("q1", "all", 0.5)))
            old.record_query_draw(QueryDraw(8, 2, 4, "stratified",
                                            (SampledQuery("q2", "1: 0.1-0.2", 0.5),
                                             SampledQuery("q4", "2: 0.5-0.9", 0.5)),
                                            "llm", "abc123", "nDCG@10"))
            kept = old.query_draws()
            with pytest.raises(Exception, match="(?i)check"):
                old.record_query_draw(draw(("q1", "active", 1.0), design="active"))
    with open_store(path) as new:
        assert new.schema_version == SCHEMA_VERSION
        assert new.query_draws() == kept  # same rows, same order, same numbers
        assert new.record_query_draw(draw(("q1", "active", 1.0), design="active")) == 3
        fk = new.conn.execute("PRAGMA foreign_key_list(query_sample)").fetchall()
        assert [row[2] for row in fk] == ["query_draws"]
        assert new.conn.execute("PRAGMA foreign_key_check").fetchall() == []
