"""``poolkit assign`` on the bundled sample, on SQLite and PostgreSQL: every pair to exactly
--overlap assessors, balanced; re-assigning keeps what was judged; --replace moves only the
leaver's unjudged pairs; bad input is one line, exit 2, the store unchanged."""

from __future__ import annotations

import json
from collections import Counter

import jsonschema
import pytest
from store_backends import BACKENDS, store_location
from test_estimate_store import sample_config

from poolkit.cli import main
from poolkit.schemas import load_schema
from poolkit.store import Event
from poolkit.store.backends import open_store
from poolkit.store.copy import content_hash


def call(*args: object) -> int:
    return main([str(a) for a in args])


@pytest.fixture(params=BACKENDS)
def world(request, tmp_path):
    with store_location(request.param, tmp_path) as store:
        config = sample_config(tmp_path, store)
        assert call("pool", config, "--quiet") == 0
        yield config, store


def assign_json(capsys, config, *args):
    assert call("assign", config, *args, "--format", "json") == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_schema("assign"))
    return doc


@pytest.mark.parametrize("unit", ["query", "pair"])
def test_every_pair_to_exactly_overlap_people_balanced(world, capsys, unit):
    config, store = world
    doc = assign_json(capsys, config, "--assessors", "alice,bob,carol", "--overlap", "2",
                      "--unit", unit, "--seed", "3")
    with open_store(store) as s:
        slots = s.assignment_slots()
        pooled = {(m.qid, m.docid) for m in s.pool()}
    assert set(slots) == pooled and doc["pairs"] == len(pooled)
    assert all(len(set(h)) == 2 and None not in h for h in slots.values())
    load = Counter(h for hs in slots.values() for h in hs)
    assert {a: v["assigned"] for a, v in doc["assessors"].items()} == dict(load)
    spread = max(load.values()) - min(load.values())
    assert spread <= (1 if unit == "pair" else max(Counter(q for q, _ in pooled).values()))


def test_reassigning_keeps_judged_and_replace_moves_only_the_leavers_open_pairs(world, capsys):
    config, store = world
    assign_json(capsys, config, "--assessors", "alice,bob,carol", "--overlap", "2",
                "--unit", "pair")
    with open_store(store) as s:
        before = s.assignment_slots()
        bobs = sorted(p for p, h in before.items() if "bob" in h)
        s.record_event(Event(*bobs[0], "bob", "grade", grade=2))
    doc = assign_json(capsys, config, "--replace", "bob=dave")
    assert doc["assessors"]["bob"] == {"assigned": 1, "judged": 1}
    with open_store(store) as s:
        after = s.assignment_slots()
    assert sorted(after[bobs[0]]) == sorted(before[bobs[0]])
    for pair in bobs[1:]:
        assert sorted(after[pair]) == sorted("dave" if h == "bob" else h for h in before[pair])
    assert all(sorted(after[p]) == sorted(h) for p, h in before.items() if "bob" not in h)


@pytest.mark.parametrize("args, message", [
    (["--assessors", "alice,bob", "--overlap", "3"],
     "--overlap 3: each pair needs that many distinct assessors, and 2 are named"),
    (["--assessors", "alice,alice", "--overlap", "1"], "--assessors names someone twice"),
    (["--assessors", "alice", "--overlap", "1", "--queries", "nope"], "--queries: nope not pooled"),
    (["--replace", "bob=dave"], "--replace needs a plan to change"),
    (["--assessors", "alice", "--overlap", "1", "--replace", "bob"],
     "--replace 'bob': write OLD=NEW"),
])
def test_bad_input_is_one_line_exit_2_and_the_store_unchanged(world, capsys, args, message):
    config, store = world
    with open_store(store) as s:
        before = content_hash(s)
    files = {p: p.read_bytes() for p in config.parent.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert call("assign", config, *args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert {p: p.read_bytes() for p in config.parent.rglob("*") if p.is_file()} == files
    with open_store(store) as s:
        assert content_hash(s) == before



def test_status_shows_each_assessor_against_the_assignment(world, capsys):
    config, store = world
    assign_json(capsys, config, "--assessors", "alice,bob,carol", "--overlap", "2",
                "--unit", "pair")
    with open_store(store) as s:
        slots = s.assignment_slots()
        shared = sorted(p for p, h in slots.items() if {"alice", "bob"} <= set(h))[:2]
        t0 = "2026-01-01T00:00:00.000000+00:00"
        for i, pair in enumerate(shared):
            for who, grade in (("alice", i), ("bob", i)):
                s.record_event(Event(*pair, who, "grade", grade=grade, shown_at=t0,
                                     judged_at=f"2026-01-01T00:0{1 + i}:00.000000+00:00"))
        carols = next(p for p, h in slots.items() if "carol" in h)
        s.record_event(Event(*carols, "carol", "cant_judge", note="broken text"))
    assert call("status", config, "--format", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_schema("status"))
    assert doc["assignment"] == {"plan": 1, "overlap": 2, "unit": "pair",
                                 "pairs": len(slots), "open_slots": 0}
    alice, carol = doc["assessors"]["alice"], doc["assessors"]["carol"]
    assert alice["assigned"] == sum("alice" in h for h in slots.values())
    assert alice["assigned_judged"] == 2 and alice["judged"] == 2
    assert alice["pace_median_s"] == 90.0  # 60 s and 120 s
    assert alice["active_s"] == 180.0
    assert alice["peers"] == {"n": 2, "kappa": 1.0}
    assert carol["cant_judge"] == 1 and carol["judged"] == 0 and carol["assigned_judged"] == 1
    assert call("status", config) == 0
    out = capsys.readouterr().out
    assert f"team: plan 1, {len(slots)} pairs, each to 2 assessors by pair:" in out


def test_the_readme_shows_what_assign_prints_on_dl19(tmp_path, capsys):
    """configs/dl19.yaml as docs/how-to/assignments-gold.md runs it, on a store of its own."""
    from shared_data import REPO, shared_path

    base = shared_path("collections", "dl19-passage-pool")
    text = (REPO / "configs" / "dl19.yaml").read_text()
    text = text.replace("../../shared/collections/dl19-passage-pool", str(base))
    text = text.replace("../dl19.sqlite", str(tmp_path / "dl19.sqlite"))
    config = tmp_path / "dl19.yaml"
    config.write_text(text.replace("../dl19-runs", str(tmp_path / "runs")))
    assert call("pool", config, "--quiet") == 0
    capsys.readouterr()
    assert call("assign", config, "--assessors", "alice,bob,carol", "--overlap", "2",
                "--seed", "7") == 0
    printed = capsys.readouterr().out.replace(str(tmp_path) + "/", "")
    assert printed in (REPO / "docs" / "how-to" / "assignments-gold.md").read_text()
    replaced = assign_json(capsys, config, "--replace", "carol=dave")
    assert {a: v["assigned"] for a, v in replaced["assessors"].items()} == \
        {"alice": 790, "bob": 790, "dave": 776}
    by_pair = assign_json(capsys, config, "--assessors", "alice,bob,carol", "--overlap", "2",
                          "--seed", "7", "--unit", "pair")
    assert [v["assigned"] for v in by_pair["assessors"].values()] == [785, 786, 785]
