"""What any store backend must guarantee, as tests a PostgreSQL port can run too.

Nothing wrong gets written (a foreign or damaged file is refused and left byte-identical),
nothing written gets lost (a full disk at COMMIT keeps the log as it was), readers never wait
for writers and work without write access, and an import decided twice at once adds once.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import sqlite3
from pathlib import Path

import pytest
from mounts import fill, remount_read_only, tmpfs, unfill

from poolkit.errors import StoreError
from poolkit.io.qrels import Qrels
from poolkit.store import Event, NewMember, Store
from poolkit.store.backends import open_store
from poolkit.store.imports import import_labels
from poolkit.store.schema import SCHEMA_VERSION


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def small_store(path):
    """A store (a file path or a database URL) with one pooled pair and alice's grade."""
    with open_store(path) as store:
        store.add_pool_version({"s": 1}, "docid", [NewMember("q1", "d1", "", "text", 0.0)],
                               [("q1", "d1", "s", 1, 1.0)])
        store.record_event(Event("q1", "d1", "alice", "grade", grade=2))
    return path


# -- refusing what is not a poolkit store --------------------------------------------------

def test_an_sqlite_file_of_someone_else_is_refused_and_left_unchanged(tmp_path):
    path = tmp_path / "mine.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER, total REAL)")
    conn.execute("INSERT INTO invoices VALUES (1, 9.5)")
    conn.commit()
    conn.close()
    before = digest(path)
    for read_only in (False, True):
        with pytest.raises(StoreError, match=r"mine.db: an SQLite database but not a poolkit "
                                             r"store .*invoices.*left unchanged"):
            Store(path, read_only=read_only)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.db"]


@pytest.mark.parametrize("tamper, says", [
    ("UPDATE meta SET value='x' WHERE key='schema_version'", "no valid schema_version ('x')"),
    ("DELETE FROM meta WHERE key='schema_version'", "no valid schema_version (None)"),
    ("UPDATE meta SET value='0' WHERE key='schema_version'", "no valid schema_version ('0')"),
    ("UPDATE meta SET value='99' WHERE key='schema_version'", "schema version 99 is newer"),
    ("DROP TABLE events",
     f"damaged store: schema version {SCHEMA_VERSION} but table(s) events missing"),
])
def test_a_tampered_meta_or_schema_is_refused_and_left_unchanged(tmp_path, tamper, says):
    path = small_store(tmp_path / "s.sqlite")
    conn = sqlite3.connect(path)
    conn.execute(tamper)
    conn.commit()
    conn.close()
    before = digest(path)
    for read_only in (False, True):
        with pytest.raises(StoreError, match=str(path) + ": .*" + _re(says)):
            Store(path, read_only=read_only)
    assert digest(path) == before


def _re(text: str) -> str:
    import re

    return re.escape(text)


@pytest.mark.parametrize("target", ["/dev/null", "folder"])
def test_a_path_that_is_not_a_regular_file_is_refused(tmp_path, target):
    path = Path(target) if target.startswith("/") else tmp_path
    for read_only in (False, True):
        with pytest.raises(StoreError, match="not a store file"):
            Store(path, read_only=read_only)


def test_a_file_that_is_not_sqlite_is_refused(tmp_path):
    path = tmp_path / "labels.txt"
    path.write_text("q1 0 d1 1\n" * 100)
    before = digest(path)
    with pytest.raises(StoreError, match="labels.txt: store is not a poolkit store"):
        Store(path)
    assert digest(path) == before


def test_a_store_damaged_in_the_middle_is_one_error_naming_it(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.record_events(Event("q1", f"d{i}", "alice", "grade", grade=i % 4, note="x" * 200)
                            for i in range(2000))
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 8192] = b"\xff" * 8192
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=r"s.sqlite: store (is damaged|cannot)"):
        with Store(path, read_only=True) as store:
            store.events()
            store.current_grades()


# -- readers ---------------------------------------------------------------------------------

# (the tests taking ``store_location`` run on every backend: SQLite and PostgreSQL)

def test_a_reader_does_not_wait_for_a_writer(store_location):
    path = small_store(store_location)
    writer = open_store(path)
    with writer.transaction() as c:  # a long write transaction, held open
        c.execute("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at) "
                  "VALUES ('q1', 'd1', 'bob', 'grade', 1, 'now')")
        # busy_timeout=0 (SQLite): a reader that needed the write lock would fail at once
        # here; PostgreSQL readers never take it.
        reader = (Store(path, busy_timeout=0, read_only=True) if isinstance(path, Path)
                  else open_store(path, read_only=True))
        with reader:
            assert [e.assessor for e in reader.events()] == ["alice"]
    writer.close()


def test_a_read_only_handle_never_writes(store_location):
    path = small_store(store_location)
    with open_store(path, read_only=True) as store:
        with pytest.raises(StoreError, match="opened read-only, cannot write"):
            store.record_event(Event("q1", "d1", "bob", "grade", grade=1))


def test_an_older_schema_is_upgraded_by_a_reader_when_it_may_write(tmp_path, monkeypatch):
    import poolkit.store.store as sqlite_store
    from poolkit.store.schema import MIGRATIONS

    path = tmp_path / "s.sqlite"
    with monkeypatch.context() as at_6:  # a store of schema 6 (no events.origin yet)
        at_6.setattr(sqlite_store, "MIGRATIONS", MIGRATIONS[:6])
        at_6.setattr(sqlite_store, "SCHEMA_VERSION", 6)
        sqlite_store.Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at) "
                 "VALUES ('q1', 'd1', 'alice', 'grade', 2, 't')")
    conn.execute("DROP TABLE pool_version_systems")  # a v1 store has neither this table
    conn.execute("DROP TABLE shown_passages")        # nor this one (schema 3)
    conn.execute("DROP TABLE pool_sample")           # nor this one (schema 4)
    conn.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    with Store(path, read_only=True) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert [(e.assessor, e.origin) for e in store.events()] == [("alice", "person")]


def test_a_read_only_mount_is_readable_and_writing_says_read_only(tmp_path):
    with tmpfs(tmp_path / "ro") as where:
        path = small_store(where / "s.sqlite")
        before = digest(path)
        remount_read_only(where)
        with Store(path, read_only=True) as store:
            assert len(store.events()) == 1
        with pytest.raises(StoreError, match=r"s.sqlite: the store's folder .* is read-only"):
            Store(path)
        assert digest(path) == before


# -- nothing written gets lost ---------------------------------------------------------------

def test_a_full_disk_at_commit_is_one_error_and_the_log_is_as_it_was(tmp_path):
    with tmpfs(tmp_path / "full", size_kb=1024) as where:
        path = small_store(where / "s.sqlite")
        store = Store(path)
        fill(where)
        big = [Event("q1", "d1", "bob", "grade", grade=1, note="n" * 4000) for _ in range(200)]
        with pytest.raises(StoreError, match=r"s.sqlite: store (the disk is full|cannot be read "
                                             r"or written)"):
            store.record_events(big)
        store.close()
        unfill(where)
        with Store(path, read_only=True) as again:
            assert [(e.assessor, e.grade) for e in again.events()] == [("alice", 2)]


def _import_worker(path: str, barrier, qrels: Qrels) -> None:
    with open_store(path) as store:
        barrier.wait()
        import_labels(store, qrels, "nist", source="qrels.txt")


def test_concurrent_imports_of_one_file_add_it_once(store_location):
    path = store_location
    open_store(path).close()
    qrels = Qrels({f"q{q}": {f"d{d}": (q + d) % 4 for d in range(300)} for q in range(10)})
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(6)
    procs = [ctx.Process(target=_import_worker, args=(str(path), barrier, qrels))
             for _ in range(6)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert [p.exitcode for p in procs] == [0] * 6
    with open_store(path, read_only=True) as store:
        assert len(store.events()) == 3000


def test_a_transaction_inside_another_joins_it(store_location):
    path = small_store(store_location)
    with open_store(path) as store:
        with pytest.raises(RuntimeError):
            with store.transaction():
                store.record_event(Event("q1", "d1", "bob", "grade", grade=3))
                raise RuntimeError("the outer decision failed")
        assert [e.assessor for e in store.events()] == ["alice"]


def test_one_querys_live_marks_are_the_logs_rows_of_that_query(store_location):
    """What a learning judging order reads per decision (``live_marks(qid=...)``): the same
    rows as the whole log's for that query, an undo in another query naming nothing here."""
    path = small_store(store_location)
    with open_store(path) as store:
        first = store.record_event(Event("q1", "d2", "bob", "grade", grade=1))
        store.record_event(Event("q2", "d1", "bob", "grade", grade=3))
        store.record_event(Event("q1", "d2", "bob", "undo", ref=first))
        store.record_event(Event("q2", "d1", "alice", "undo", ref=first))  # names nothing
        store.record_event(Event("q1", "d2", "carol", "import", grade=0))
        every = list(store.live_marks(["grade", "import"]))
        for qid in ("q1", "q2", "q3"):
            assert list(store.live_marks(["grade", "import"], qid=qid)) == [
                row for row in every if row[3] == qid]
        assert [(k, g, d, a) for _, k, g, _, d, a in store.live_marks(
            ["grade", "import"], qid="q1")] == [("grade", 2, "d1", "alice"),
                                                ("import", 0, "d2", "carol")]


@pytest.mark.parametrize("kind", ["grade", "adjudicate", "import"])
@pytest.mark.parametrize("grade", [-1, 4, 5])
def test_a_grade_off_the_scale_is_never_recorded(store_location, kind, grade):
    path = small_store(store_location)
    with open_store(path) as store:
        with pytest.raises(StoreError, match=f"grade {grade} is off the scale 0-3"):
            store.record_events([Event("q1", "d1", "bob", "grade", grade=1),
                                 Event("q1", "d1", "bob", kind, grade=grade)])
        assert [e.assessor for e in store.events()] == ["alice"]


def test_a_log_not_yet_folded_in_is_refused_on_a_read_only_mount(tmp_path):
    import shutil

    path = small_store(tmp_path / "s.sqlite")
    writer = Store(path)
    writer.conn.execute("PRAGMA wal_autocheckpoint=0")
    writer.record_event(Event("q1", "d1", "bob", "grade", grade=1))
    with tmpfs(tmp_path / "ro") as where:
        for name in ("s.sqlite", "s.sqlite-wal"):  # as a writer killed mid-way leaves them
            shutil.copy(tmp_path / name, where / name)
        writer.close()
        remount_read_only(where)
        with pytest.raises(StoreError, match="write-ahead log s.sqlite-wal holds changes"):
            Store(where / "s.sqlite", read_only=True)
