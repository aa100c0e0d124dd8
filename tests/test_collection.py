"""The Collection between the CLI and the stages: one store handle (read-only or read-write,
existing or new), one pool-version resolver, labels, runs and the pool with provenance."""

from __future__ import annotations

import pytest
from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, build_store, write_config

from poolkit.cli import main
from poolkit.collection import Collection
from poolkit.errors import NoStoreError, StoreError
from poolkit.store import Event, NewMember


@pytest.fixture
def two_versions(tmp_path):
    """A config over a store with pool v1 (sysA) and v2 (sysB adds d9 to q1 and ranks d1)."""
    path = tmp_path / "tiny.sqlite"
    with build_store(path, TINY_QUERIES, {**TINY_DOCS, "d9": ("t", "b")}, TINY_POOLS) as s:
        s.record_event(Event("q1", "d1", "alice", "grade", grade=2))
        s.record_event(Event("q1", "d1", "bob", "grade", grade=0))
        s.add_pool_version({"sysB": 2}, "shuffle", [NewMember("q1", "d9", "t", "b", 0.5)],
                           [("q1", "d9", "sysB", 1, 3.0), ("q1", "d1", "sysB", 2, 2.0)])
        s.record_event(Event("q1", "d9", "alice", "grade", grade=1))
    return write_config(tmp_path / "cfg", path)


def test_a_missing_store_is_one_error_naming_the_command(tmp_path):
    config = write_config(tmp_path / "cfg", tmp_path / "none.sqlite")
    with Collection.open(config) as c, pytest.raises(NoStoreError) as err:
        c.store  # noqa: B018
    assert str(err.value) == (f"{tmp_path / 'none.sqlite'}: no judging store yet; run "
                              f"`poolkit pool {config}` (or `poolkit import`) first")
    assert not (tmp_path / "none.sqlite").exists()  # nothing was created
    with Collection.open(config, write=True, create=True) as c:
        assert c.store.latest_pool_version() is None
    assert (tmp_path / "none.sqlite").is_file()


@pytest.mark.parametrize("command", ["status", "export --format qrels", "judge --assessor a",
                                     "compare", "reusability", "agreement",
                                     "estimate --machine llm",
                                     "sample-queries --n 2 --seed 7"])
def test_every_command_gives_the_same_no_store_error(tmp_path, capsys, command):
    config = write_config(tmp_path / "cfg", tmp_path / "none.sqlite")
    name, *rest = command.split()
    assert main([name, str(config), *rest]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"poolkit {name}: error: {tmp_path / 'none.sqlite'}: no judging store yet; "
                   f"run `poolkit pool {config}` (or `poolkit import`) first"]
    assert not (tmp_path / "none.sqlite").exists()


def test_read_only_refuses_writes_and_read_write_accepts_them(two_versions):
    with Collection.open(two_versions) as c:
        assert c.store.read_only
        with pytest.raises(StoreError, match="opened read-only"):
            c.store.record_event(Event("q1", "d2", "alice", "grade", grade=1))
        assert len(c.store.events()) == 3
    with Collection.open(two_versions, write=True) as c:
        c.store.record_event(Event("q1", "d2", "alice", "grade", grade=1))
        assert len(c.store.events()) == 4


def test_version_is_resolved_and_checked_in_one_place(two_versions, tmp_path):
    with Collection.open(two_versions) as c:
        assert c.version() == 2 and c.version(None) == 2 and c.version(1) == 1
        with pytest.raises(StoreError, match="no pool version 3; the store has 1, 2"):
            c.version(3)
    empty = write_config(tmp_path / "e", tmp_path / "empty.sqlite")
    with Collection.open(empty, write=True, create=True) as c, \
            pytest.raises(StoreError, match="the store has no pool yet; run `poolkit pool`"):
        c.version()


def test_labels_as_of_a_version_under_a_policy(two_versions):
    with Collection.open(two_versions) as c:
        v1 = c.labels(1, "max")
        assert v1.qrels.grades == {"q1": {"d1": 2}}
        assert v1.origin["pool_version"] == 1 and v1.pooled == {
            ("q1", "d1"), ("q1", "d2"), ("q1", "d3"), ("q2", "d4"), ("q2", "d5")}
        latest = c.labels(policy="latest", assessors=["alice"])
        assert latest.origin["pool_version"] == 2
        assert latest.qrels.grades == {"q1": {"d1": 2, "d9": 1}}
        assert c.labels(policy="latest", assessors=["bob"]).qrels.grades == {"q1": {"d1": 0}}


def test_pool_carries_provenance_as_of_the_version(two_versions):
    with Collection.open(two_versions) as c:
        v1 = {(d.qid, d.docid): d for d in c.pool(1)}
        v2 = {(d.qid, d.docid): d for d in c.pool()}
    assert ("q1", "d9") not in v1 and v2[("q1", "d9")].version == 2
    assert [(s.system, s.rank) for s in v1[("q1", "d1")].sources] == [("sysA", 1)]
    assert [(s.system, s.rank) for s in v2[("q1", "d1")].sources] == [("sysA", 1), ("sysB", 2)]
    assert [d.docid for d in c.pool(1) if d.qid == "q1"] == ["d1", "d2", "d3"]


def test_runs_are_the_configured_systems_run_files(two_versions):
    with Collection.open(two_versions) as c:
        runs = c.runs()
    assert list(runs) == ["sysA"] and runs["sysA"].rankings == {"q1": ["d1"]}


def test_query_pools_give_strategies_the_pool_with_provenance(two_versions):
    from poolkit.pool.view import Hit

    with Collection.open(two_versions) as c:
        pools = c.query_pools()
        v1 = c.query_pools(1)
    assert pools["q1"].docs == ("d1", "d2", "d3", "d9")
    assert pools["q1"].hits["d1"] == (Hit("sysA", 1, 1.0), Hit("sysB", 2, 2.0))
    assert pools["q1"].run_lists() == {"sysA": ["d1", "d2", "d3"], "sysB": ["d9", "d1"]}
    assert v1["q1"].docs == ("d1", "d2", "d3") and v1["q1"].hits["d1"] == (Hit("sysA", 1, 1.0),)


def test_assessors_is_the_one_check_of_whose_grades_are_read(two_versions):
    with Collection.open(two_versions) as c:
        assert c.assessors(None) is None
        assert c.assessors(iter(["bob", "alice"])) == ["bob", "alice"]
        with pytest.raises(StoreError) as err:
            c.assessors(["alcie"], "--assessor")
    assert str(err.value) == (f"{c.config.store_label}: --assessor: unknown assessor 'alcie'; "
                              f"valid: alice, bob (did you mean 'alice'?)")


def test_assessor_checks_a_writers_name_before_the_store_opens(tmp_path):
    from poolkit.errors import PoolkitError

    config = write_config(tmp_path / "cfg", tmp_path / "none.sqlite")
    with Collection.open(config, write=True) as c:
        with pytest.raises(PoolkitError, match=r"^--as ' x' must be non-empty, without "):
            c.assessor(" x", "import", "--as")
        assert not (tmp_path / "none.sqlite").exists()  # refused before the store opened
    with Collection.open(config, write=True, create=True) as c:
        with pytest.raises(PoolkitError, match=r"^--assessor NAME is required \(who is judging"):
            c.assessor(None, "grade", "--assessor")
        assert c.assessor("alice") == "alice"
