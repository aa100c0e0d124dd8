"""The store verbs of ``poolkit.app`` (pool, status, import, export, notes, store copy,
judge) called as a script would call them: typed requests in, registered reports out."""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

import pytest

from poolkit.reports import REPORTS

#: command -> (cli module, report kind) of every store verb with a --format report
STORE_REPORTS = {"pool": ("pool", "pool"), "status": ("status", "status"),
                 "import": ("import_labels", "import"), "notes": ("notes", "notes")}


@pytest.mark.parametrize("command", list(STORE_REPORTS))
def test_format_choices_come_from_the_registered_report(command):
    module, kind = STORE_REPORTS[command]
    cli = importlib.import_module(f"poolkit.cli.{module}")
    sub = argparse.ArgumentParser().add_subparsers()
    cli.register(sub)
    [action] = [a for a in sub.choices[command]._actions if a.dest == "format"]
    assert tuple(action.choices) == REPORTS[kind].formats and action.default == "table"
    assert REPORTS[kind].kind == kind


def test_store_copy_report_is_registered_under_its_schema_name():
    from poolkit.app.store import StoreCopyReport
    from poolkit.schemas import schema_names

    assert REPORTS["store-copy"] is StoreCopyReport
    assert {"pool", "status", "import", "notes", "store-copy"} <= set(schema_names())


def test_pool_report_holds_what_a_run_added_as_a_typed_record():
    from poolkit.pool.report import PoolAdded, PoolReport

    added = PoolAdded(version=2, latest=2, new_docs=3, queries=1, new_provenance=4,
                      depths={"bm25": 10}, order="shuffle")
    report = PoolReport(store="s.sqlite", version=None, versions=[], systems={}, queries={},
                        overall={}, config="/c/configs/x.yaml", added=added, warnings=[])
    doc = json.loads(report.render("json"))
    assert list(doc)[-3:] == ["config", "added", "warnings"]
    assert doc["added"] == {"version": 2, "latest": 2, "new_docs": 3, "queries": 1,
                            "new_provenance": 4, "depths": {"bm25": 10}, "order": "shuffle",
                            "asked": {}}
    assert "config" not in PoolReport("s", None, [], {}, {}, {}).to_dict()
    assert added.sentence() == ("added pool version 2: 3 new documents across 1 query; "
                                "nothing judged was touched")
    assert PoolAdded(None, 2, 0, 0, 0, {}, "docid").sentence().startswith(
        "nothing new: the pool is unchanged at version 2")


def test_the_pool_request_is_checked_before_anything_runs(tmp_path):
    from poolkit.app.pool import PoolRequest, pool
    from poolkit.errors import PoolkitError

    with pytest.raises(PoolkitError, match="needs --report-only"):
        pool(PoolRequest(tmp_path / "none.yaml", pool_version=1))
    with pytest.raises(PoolkitError, match="contains a control character"):
        pool(PoolRequest(tmp_path / "none.yaml", note="a\tb"))


def test_store_copy_verb_copies_and_proves_it(tmp_path):
    from poolkit.app.store import copy_store
    from poolkit.store import Event, NewMember
    from poolkit.store.backends import open_store

    source = tmp_path / "a.sqlite"
    with open_store(source, create=True) as store:
        store.add_pool_version({"r": 1}, "docid", [NewMember("q1", "d1", "", "x", 0.0)],
                               [("q1", "d1", "r", 1, 1.0)])
        store.record_event(Event("q1", "d1", "alice", "grade", grade=2))
    report = copy_store(str(source), str(tmp_path / "b.sqlite"))
    assert report.identical and report.counts["events"] == 1
    assert report.source == str(source) and report.destination == str(tmp_path / "b.sqlite")
    assert report.render("table").splitlines()[-1] == (
        f"content sha256 {report.hash} (source and copy identical)")
    assert json.loads(report.render("json"))["command"] == "store copy"


def test_store_init_of_a_sqlite_file_names_its_schema_version(tmp_path):
    from poolkit.app.store import init_store

    done = init_store(str(tmp_path / "new.sqlite"))
    assert done.next_sql is None and done.granted == []
    assert done.render_table() == (f"store {tmp_path / 'new.sqlite'}: schema version "
                                   f"{done.schema_version}\n")


def test_judge_request_refuses_show_names_outside_adjudication():
    from poolkit.app.judge import JudgeRequest
    from poolkit.errors import PoolkitError

    with pytest.raises(PoolkitError, match="--show-names only applies with --adjudicate"):
        JudgeRequest(Path("c.yaml"), "alice", show_names=True)
    assert JudgeRequest(Path("c.yaml"), "alice", "adjudicate", show_names=True).show_names
