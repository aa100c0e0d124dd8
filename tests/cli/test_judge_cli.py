"""`poolkit judge` argument checks (before any UI opens) and `poolkit status` output."""

from __future__ import annotations

import json
import sys

import pytest
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
from poolkit.store import Event


@pytest.fixture
def config(tmp_path):
    store_path = tmp_path / "tiny.sqlite"
    with build_store(store_path, TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        alice = JudgingSession(store, "alice", clock=TickClock(step=5))
        for g in (3, 2, 0):
            alice.grade(g)
        store.record_event(Event("q1", "d1", "bob", "grade", grade=1,
                                 shown_at="2026-01-05T09:00:00+00:00",
                                 judged_at="2026-01-05T09:00:12+00:00"))
    return write_config(tmp_path / "cfg", store_path)


def test_judge_needs_an_assessor_on_a_sqlite_store(config, capsys):
    """A file knows no users (on PostgreSQL the name defaults to the database role)."""
    assert main(["judge", str(config)]) == 2
    assert capsys.readouterr().err == ("poolkit judge: error: --assessor NAME is required "
                                       "(who is judging)\n")


def test_judge_modes_are_exclusive(config, capsys):
    with pytest.raises(SystemExit):
        main(["judge", str(config), "--assessor", "a", "--agreement", "--adjudicate"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_show_names_only_with_adjudicate(config, capsys):
    assert main(["judge", str(config), "--assessor", "a", "--show-names"]) == 2
    assert capsys.readouterr().err.strip() == (
        "poolkit judge: error: --show-names only applies with --adjudicate")


def test_unknown_query_is_refused_before_the_ui_opens(config, capsys):
    assert main(["judge", str(config), "--assessor", "carol", "--query", "q3"]) == 2
    assert "unknown query 'q3'; valid: q1, q2" in capsys.readouterr().err


def test_an_unknown_query_among_hundreds_names_the_closest_few(tmp_path, capsys):
    """Cranfield's 225 queries: `--query 9999` names the nearest ids, not all 225."""
    from poolkit.store import QueryRecord

    ids = [str(i) for i in range(1, 226)]
    queries = [QueryRecord(q, f"query {q}") for q in ids]
    store_path = tmp_path / "many.sqlite"
    with build_store(store_path, queries, {"d1": ("t", "x")}, {q: ["d1"] for q in ids}):
        pass
    config = write_config(tmp_path / "cfg", store_path)
    assert main(["judge", str(config), "--assessor", "carol", "--query", "9999"]) == 2
    err = capsys.readouterr().err
    assert err == ("poolkit judge: error: unknown query '9999'; 225 are valid, the closest: "
                   "225, 224, 223, 222, 221 (did you mean '99'?)\n")
    assert main(["judge", str(config), "--assessor", "carol", "--query", "q17"]) == 2
    assert "225 are valid, the closest: 17, 1" in capsys.readouterr().err


def test_judge_without_a_store_says_what_to_run(tmp_path, capsys):
    bare = write_config(tmp_path / "bare", tmp_path / "missing.sqlite")
    assert main(["judge", str(bare), "--assessor", "a"]) == 2
    assert "no judging store yet; run `poolkit pool" in capsys.readouterr().err


def test_judge_without_textual_says_which_extra_to_install(config, capsys, monkeypatch):
    # `pip install -e .` (the core) has no Textual: a one-line error, not a traceback.
    monkeypatch.delitem(sys.modules, "poolkit.judge.app", raising=False)
    for name in [m for m in sys.modules if m.split(".")[0] == "textual"] + ["textual"]:
        monkeypatch.setitem(sys.modules, name, None)
    assert main(["judge", str(config), "--assessor", "carol"]) == 2
    assert capsys.readouterr().err.strip() == (
        "poolkit judge: error: the judging UI needs Textual: pip install 'poolkit[judge]'")


@pytest.mark.parametrize("mode, says", [
    ("--adjudicate", "nothing to adjudicate: no two assessors disagree on a pair"),
    ("--agreement", "nothing to double-judge: no one but carol has judged a passage")])
def test_a_mode_with_nothing_to_show_says_so_without_opening_the_ui(tmp_path, capsys, mode,
                                                                    says):
    build_store(tmp_path / "s.sqlite", TINY_QUERIES, TINY_DOCS, TINY_POOLS).close()
    config = write_config(tmp_path / "cfg", tmp_path / "s.sqlite")
    assert main(["judge", str(config), "--assessor", "carol", mode]) == 0
    assert capsys.readouterr().err.strip() == f"poolkit judge: {says}"


def test_status_json(config):
    from poolkit.app.status import status
    from poolkit.collection import Collection

    with Collection.open(config) as collection:
        report = json.loads(status(collection).render("json"))
    assert (report["pooled"], report["judged"], report["doubly_judged"]) == (5, 3, 1)
    q1 = report["queries"]["q1"]
    assert q1["assessors"]["alice"] == {"judged": 3, "pooled": 3, "median_seconds": 5.0,
                                        "grades": {"0": 1, "1": 0, "2": 1, "3": 1}}
    assert q1["assessors"]["bob"]["median_seconds"] == 12.0
    q2 = report["queries"]["q2"]
    left = q2.pop("remaining_estimate")
    assert q2 == {"pooled": 2, "judged": 0, "doubly_judged": 0, "assessors": {},
                  "budget": None, "relevant_found": 0, "closed": None}
    assert 0 <= left["low"] <= left["value"] <= left["high"] <= 2
    # q1 is judged through: bob's 1 stands on d1 (latest), alice's 2 on d2, her 0 on d3.
    assert q1["relevant_found"] == 2
    assert q1["remaining_estimate"] == {"value": 0.0, "low": 0.0, "high": 0.0}
    assert report["order"] == "shuffle" and report["budget"] is None


def test_status_table(config, capsys):
    assert main(["status", str(config), "--verbose"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("pool version 1")
    assert lines[1].split() == ["query", "assessor", "judged/pooled", "g0", "g1", "g2", "g3",
                                "med", "s", "double", "judged/budget", "rel", "left", "est",
                                "(95%)"]
    assert lines[2].split() == ["q1", "(any)", "3/3", "1", "3/-", "2", "0.0", "(0-0)"]
    assert lines[3].split() == ["q1", "alice", "3/3", "1", "0", "1", "1", "5.0"]
    assert lines[4].split() == ["q1", "bob", "1/3", "0", "1", "0", "0", "12.0"]
    assert lines[5].split()[:6] == ["q2", "(any)", "0/2", "0", "0/-", "0"]
    assert lines[6].split() == ["all", "(any)", "3/5", "1"]
    assert main(["status", str(config), "--pool-version", "2"]) == 2


def test_status_table_fits_80_columns_by_default(config, capsys, monkeypatch):
    """A row per query, then one per assessor over every query; the judged/budget column
    only with a budget (without one it repeats judged/pooled)."""
    monkeypatch.chdir(config.parent.parent)  # the store is shown relative to here
    assert main(["status", str(config)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].endswith("pool version 1")
    assert [line.split() for line in lines[1:5]] == [
        ["query", "judged/pooled", "double", "rel", "left", "est", "(95%)"],
        ["q1", "3/3", "1", "2", "0.0", "(0-0)"], ["q2", "0/2", "0", "0", "1.1", "(0-2)"],
        ["all", "3/5", "1"]]
    at = lines.index(next(line for line in lines if line.startswith("assessor  judged/")))
    assert [line.split() for line in lines[at:at + 3]] == [
        ["assessor", "judged/pooled", "g0", "g1", "g2", "g3", "med", "s"],
        ["alice", "3/5", "1", "0", "1", "1", "5.0"], ["bob", "1/5", "0", "1", "0", "0", "12.0"]]
    assert max(map(len, lines)) <= 80


def test_status_counts_the_budget_overall(tmp_path, capsys):
    """With ``budget: 2`` the overall figure is judged of what the budget allows (q1's three
    judgments count two), in the table's ``all`` row and in the JSON (issue 28)."""
    import jsonschema

    from poolkit.schemas import load_schema

    store_path = tmp_path / "tiny.sqlite"
    with build_store(store_path, TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        alice = JudgingSession(store, "alice", clock=TickClock(step=5))
        for g in (3, 2, 0):
            alice.grade(g)
    config = write_config(tmp_path / "cfg", store_path, "pool:\n  budget: 2\n")
    assert main(["status", str(config), "--verbose"]) == 0
    lines = capsys.readouterr().out.splitlines()
    all_row = next(line.split() for line in lines if line.startswith("all "))
    assert all_row == ["all", "(any)", "3/5", "0", "2/4"]
    assert main(["status", str(config), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["budget"] == "2" and report["judged"] == 3     # the keys as they were
    assert report["budget_progress"] == {"judged": 2, "allowed": 4}
    jsonschema.validate(report, load_schema("status"))
