"""`poolkit notes`, notes in golden.yaml, `status` flags for fast assessors, and the one
live session per assessor (claims)."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timedelta, timezone

import pytest
import yaml
from judge_helpers import (
    TINY_DOCS,
    TINY_POOLS,
    TINY_QUERIES,
    TickClock,
    build_store,
    write_config,
)

from poolkit.cli import main
from poolkit.judge.session import JudgingSession
from poolkit.store import Event, Store
from poolkit.store.claims import (
    CLAIM_TTL,
    AssessorBusy,
    claim,
    current_claim,
    holds,
    release,
    renew,
)

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def config(tmp_path):
    store_path = tmp_path / "tiny.sqlite"
    with build_store(store_path, TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        alice = JudgingSession(store, "alice", clock=TickClock(step=5))
        alice.note("mentions armyworm only in passing")
        alice.grade(1)
        alice.grade(3)
        bob = JudgingSession(store, "bob", clock=TickClock(step=0.5))
        bob.grade(2)
        bob.note("second look: on topic after all")
        bob.grade(0)
        bob.grade(0)
        store.record_event(Event("q1", "d1", "carol", "adjudicate", grade=2))
        store.record_event(Event("q1", "d1", "carol", "note", note="the advice is specific"))
    return write_config(tmp_path / "cfg", store_path)


def test_notes_table_per_assessor_and_query(config, capsys):
    assert main(["notes", str(config)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "alice" and out[1] == "  query q1"
    assert out[2].startswith("    d1  grade 1  2026-01-05T09:00")
    assert out[2].endswith("mentions armyworm only in passing")
    assert out[3:5] == ["bob", "  query q1"]
    assert out[5].startswith("    d2  grade 0") and out[5].endswith("on topic after all")
    assert out[6:8] == ["carol", "  query q1"]
    assert "grade 2 (adjudicated)" in out[8]


def test_notes_json_filters_by_assessor_and_query(config):
    from poolkit.app.notes import list_notes
    from poolkit.collection import Collection

    with Collection.open(config) as collection:
        doc = json.loads(list_notes(collection, ["bob"]).render("json"))
        assert [(n["assessor"], n["query"], n["doc"], n["grade"], n["note"])
                for n in doc["notes"]] == [("bob", "q1", "d2", 0,
                                            "second look: on topic after all")]
        assert list_notes(collection, queries=["q2"]).notes == []


def test_notes_name_an_unknown_assessor_or_query_with_the_flag(config, capsys):
    assert main(["notes", str(config), "--assessor", "bbo"]) == 2
    assert capsys.readouterr().err == (
        f"poolkit notes: error: {config.parent.parent / 'tiny.sqlite'}: --assessor: unknown "
        f"assessor 'bbo'; valid: alice, bob, carol (did you mean 'bob'?)\n")


def test_golden_export_carries_each_note_beside_its_grade(config, tmp_path, capsys):
    out = tmp_path / "golden.yaml"
    assert main(["export", str(config), "--format", "golden", "-o", str(out),
                 "--policy", "latest"]) == 0
    [q1] = [e for e in yaml.safe_load(out.read_text()) if e["query"] == "q1"]
    assert list(q1)[:4] == ["query", "text", "grades", "notes"]
    assert q1["notes"] == {"d1": ["alice (1): mentions armyworm only in passing",
                                  "carol (2 adjudicated): the advice is specific"],
                           "d2": ["bob (0): second look: on topic after all"]}
    # A golden.yaml with notes reads back (import, score).
    assert main(["import", str(config), str(out), "--as", "again"]) == 0


def test_status_flags_fast_assessors(config, capsys):
    assert main(["status", str(config), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["min_display"] == 0.25
    alice, bob = doc["assessors"]["alice"], doc["assessors"]["bob"]
    assert (alice["fast"], alice["under_min_display"]) == (False, 0)
    assert (bob["fast"], bob["median_seconds"], bob["under_min_display"]) == (True, 0.5, 0)
    assert main(["status", str(config)]) == 0
    table = capsys.readouterr().out
    assert "bob: median 0.5 s per judgment, under 1 s: check that the passages are being read" \
        in table
    assert "alice: median" not in table


def test_status_counts_judgments_faster_than_the_minimum(tmp_path):
    from poolkit.app.status import status
    from poolkit.collection import Collection

    store_path = tmp_path / "s.sqlite"
    with build_store(store_path, TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        quick = JudgingSession(store, "quick", clock=TickClock(step=0.1))
        for _ in range(3):
            quick.grade(1)
    config = write_config(tmp_path / "cfg", store_path)
    with Collection.open(config) as collection:
        assert status(collection)["assessors"]["quick"]["under_min_display"] == 3


def test_a_second_live_session_of_one_assessor_is_refused(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        first = claim(store, "alice", host="box1", pid=101, now=T0)
        claim(store, "bob", host="box1", pid=102, now=T0)  # another assessor: fine
        with pytest.raises(AssessorBusy, match=r"alice is already judging on this store "
                                               r"\(box1 pid 101 since 2026-01-05 09:00:00 UTC\)"
                                               r"; close that session, or open this one with "
                                               r"--take-over"):
            claim(store, "alice", host="box2", pid=7, now=T0 + timedelta(seconds=5))
        # The first session renews its heartbeat; much later without one, the claim expires.
        assert renew(store, first, now=T0 + timedelta(seconds=30))
        late = T0 + timedelta(seconds=30 + CLAIM_TTL + 1)
        second = claim(store, "alice", host="box2", pid=7, now=late)
        assert not holds(store, first) and holds(store, second)
        assert not renew(store, first)  # the first learns it lost the claim
        # Taking over a live claim, and releasing only one's own.
        third = claim(store, "alice", host="box3", pid=8, now=late, take_over=True)
        release(store, second)
        assert current_claim(store, "alice") == third
        release(store, third)
        assert current_claim(store, "alice") is None


def test_a_crashed_sessions_claim_on_this_host_expires_at_once(tmp_path):
    import socket
    import subprocess

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    with Store(tmp_path / "s.sqlite") as store:
        claim(store, "alice", host=socket.gethostname(), pid=gone.pid, now=T0)
        mine = claim(store, "alice", now=T0 + timedelta(seconds=1))
        assert mine.pid == os.getpid()


def test_judge_cli_refuses_a_second_session(config, capsys, monkeypatch):
    import poolkit.cli.judge as judge_cli

    monkeypatch.setattr(judge_cli, "_require_terminal", lambda: None)  # never reaches the UI
    with Store(config.parent.parent / "tiny.sqlite") as store:
        claim(store, "alice", host="elsewhere", pid=1)
    code = main(["judge", str(config), "--assessor", "alice"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("poolkit judge: error: alice is already judging on this store (elsewhere "
                          "pid 1 since ")
    assert err.count("\n") == 1
