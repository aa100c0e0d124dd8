"""A store records its grade scale (``meta.grades``) and holds every grade written to it to
that scale, on both backends; a store without one is on the 0-3 scale, as every store was
before scales. The copy carries the scale."""

from __future__ import annotations

import pytest

from poolkit.errors import StoreError
from poolkit.io.scale import DEFAULT_SCALE, GradeScale
from poolkit.store import Event, NewMember
from poolkit.store.backends import open_store

BINARY = GradeScale(("not relevant", "relevant"))
FIVE = GradeScale(("none", "weak", "fair", "good", "perfect"))


def pooled(store):
    store.add_pool_version({"s": 1}, "docid", [NewMember("q1", "d1", "", "text", 0.0)],
                           [("q1", "d1", "s", 1, 1.0)])


def test_a_store_without_a_recorded_scale_is_on_0_to_3(store_location):
    with open_store(store_location) as store:
        pooled(store)
        assert store.recorded_scale() is None and store.grade_scale == DEFAULT_SCALE
        assert store.top_grade_given() is None
        store.record_event(Event("q1", "d1", "alice", "grade", grade=3))
        with pytest.raises(StoreError, match="grade 4 is off the scale 0-3"):
            store.record_event(Event("q1", "d1", "alice", "grade", grade=4))
        assert store.top_grade_given() == 3


@pytest.mark.parametrize("scale, top", [(BINARY, 1), (FIVE, 4)])
def test_a_recorded_scale_holds_every_grade_written(store_location, scale, top):
    with open_store(store_location) as store:
        pooled(store)
        store.record_scale(scale)
        store.record_events([Event("q1", "d1", "alice", "grade", grade=top),
                             Event("q1", "d1", "nist", "import", grade=0)])
        with pytest.raises(StoreError, match=f"grade {top + 1} is off the scale 0-{top} "):
            store.record_events([Event("q1", "d1", "bob", "grade", grade=0),
                                 Event("q1", "d1", "bob", "adjudicate", grade=top + 1)])
        assert [e.assessor for e in store.events()] == ["alice", "nist"]
    with open_store(store_location, read_only=True) as store:  # read back by a new handle
        assert store.recorded_scale() == scale and store.grade_scale == scale
        assert store.top_grade_given() == top


def test_a_copy_keeps_the_scale(store_location, tmp_path):
    from poolkit.store.copy import copy_to_new_file

    with open_store(store_location) as store:
        pooled(store)
        store.record_scale(FIVE)
        store.record_event(Event("q1", "d1", "alice", "grade", grade=4))
        copy_to_new_file(store, tmp_path / "copy.sqlite")
    with open_store(tmp_path / "copy.sqlite", read_only=True) as copy:
        assert copy.recorded_scale() == FIVE and copy.top_grade_given() == 4


def test_a_schema_8_store_upgrades_keeping_its_hash_and_its_0_to_3_scale(tmp_path,
                                                                        monkeypatch):
    """Schema 10 widens the schema's bound to 0-9 only: an older store keeps its rows, its
    content hash and (having recorded no scale) the 0-3 scale its grades were given on."""
    import sqlite3

    import poolkit.store.store as sqlite_store
    from poolkit.store.copy import content_hash
    from poolkit.store.schema import MIGRATIONS, SCHEMA_VERSION

    path = tmp_path / "v8.sqlite"
    with monkeypatch.context() as at_8:
        at_8.setattr(sqlite_store, "MIGRATIONS", MIGRATIONS[:8])
        at_8.setattr(sqlite_store, "SCHEMA_VERSION", 8)
        # schema 8 has no assignment slots (9) to take: today's code writes as it would then
        at_8.setattr(sqlite_store.Store, "_take_slot", lambda self, event: None)
        with sqlite_store.Store(path) as old:
            pooled(old)
            old.record_event(Event("q1", "d1", "alice", "grade", grade=3))
            before = content_hash(old)
            with pytest.raises(sqlite3.IntegrityError):
                old.conn.execute("UPDATE events SET grade = 4")
    with open_store(path) as new:
        assert new.schema_version == SCHEMA_VERSION == len(MIGRATIONS)
        assert content_hash(new) == before
        assert new.recorded_scale() is None and new.grade_scale == DEFAULT_SCALE
        with pytest.raises(StoreError, match="grade 4 is off the scale 0-3"):
            new.record_event(Event("q1", "d1", "alice", "grade", grade=4))
