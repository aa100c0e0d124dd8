"""The store's record of a sampled pool: every pooled pair with stratum, probability, draw."""

from __future__ import annotations

import sqlite3

import pytest

from poolkit.io.sample import SampledPair
from poolkit.store import NewMember, Store
from poolkit.store.backends import open_store


@pytest.fixture
def store(store_location):
    """A new store on each backend (SQLite; PostgreSQL where a server is reachable)."""
    with open_store(store_location) as s:
        yield s


def test_sampled_and_unsampled_pairs_are_recorded_only_drawn_ones_are_judged(store) -> None:
    design = [SampledPair("q1", "a", "1-10", 1.0, True),
              SampledPair("q1", "b", "11-30", 0.5, True),
              SampledPair("q1", "c", "11-30", 0.5, False)]
    members = [NewMember("q1", d, "", f"text {d}", float(i)) for i, d in enumerate("ab")]
    v = store.add_pool_version({"bm25": 30}, "shuffle", members,
                               [("q1", d, "bm25", i + 1, None) for i, d in enumerate("abc")],
                               design=design)
    assert v == 1
    assert [m.docid for m in store.pool("q1")] == ["a", "b"]
    assert store.pool_sample() == design
    # A second pooling keeps the first record of a pair and adds the new ones.
    again = [SampledPair("q1", "c", "31-100", 0.1, True),
             SampledPair("q1", "d", "31-100", 0.1, False)]
    assert store.add_pool_version({"bm25": 100}, "shuffle", [], [], design=again) == 2
    assert store.pool_sample() == [*design, again[1]]
    assert store.pool_sample(max_version=1) == design


def test_a_depth_pool_has_no_sample_rows(store) -> None:
    store.add_pool_version({"bm25": 1}, "shuffle", [NewMember("q1", "a", "", "t", 0.0)],
                           [("q1", "a", "bm25", 1, None)])
    assert store.pool_sample() == []


def test_an_impossible_probability_is_refused_by_the_schema(store) -> None:
    with pytest.raises(Exception, match="(?i)check"):
        store.add_pool_version({"bm25": 1}, "shuffle", [], [],
                               design=[SampledPair("q1", "a", "s", 0.0, False)])
    assert store.pool_sample() == []


def test_a_v2_store_gains_the_sample_table_and_keeps_its_pool(tmp_path) -> None:
    from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION

    path = tmp_path / "v2.sqlite"
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:2]:
        conn.executescript(script.sqlite)
    conn.execute("INSERT INTO meta VALUES ('schema_version', '2')")
    conn.execute("INSERT INTO pool_versions VALUES (1, 'now', '{}', 'shuffle', NULL)")
    conn.execute("INSERT INTO texts VALUES ('h', '', 'body')")
    conn.execute("INSERT INTO pool_members VALUES ('q1', 'a', 1, 'h', 0.0)")
    conn.commit()
    conn.close()
    with Store(path) as s:
        assert s.schema_version == SCHEMA_VERSION
        assert [m.docid for m in s.pool()] == ["a"]
        assert s.pool_sample() == []
