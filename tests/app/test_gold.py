"""``poolkit gold`` on SQLite and PostgreSQL: the gold set is recorded, mixed into the
judging, never counted as labels, and ``status`` shows each assessor's agreement with it; a
replay of three simulated assessors with known error rates flags the lenient one. Bad input
is one line naming file:line, exit 2, the store and the user's files unchanged."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import jsonschema
import pytest
from judge_helpers import TickClock
from shared_data import REPO, SAMPLE
from store_backends import BACKENDS, store_location
from test_assign import world  # noqa: F401 (the sample pooled, on each backend)

from poolkit.analysis.gold import DRIFT_WINDOW, agreement_with_gold
from poolkit.cli import main
from poolkit.judge.session import JudgingSession
from poolkit.schemas import load_schema
from poolkit.store.backends import open_store
from poolkit.store.copy import content_hash


def call(*args: object) -> int:
    return main([str(a) for a in args])


def as_json(capsys, *args):
    assert call(*args, "--format", "json") == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_gold_is_recorded_and_its_answers_are_never_labels(world, tmp_path, capsys):  # noqa: F811
    config, store = world
    doc = as_json(capsys, "gold", config, SAMPLE / "truth.qrels", "--rate", "0.5", "--seed", "3")
    jsonschema.validate(doc, load_schema("gold"))
    assert doc["pairs"] == 21 and doc["queries"] == 4 and doc["rate"] == 0.5
    assert doc["gold_set"] == 1 and doc["seed"] == 3
    status = as_json(capsys, "status", config)
    jsonschema.validate(status, load_schema("status"))
    assert status["gold_set"] == {"gold_set": 1, "labels": str(SAMPLE / "truth.qrels"),
                                  "pairs": 21, "rate": 0.5, "seed": 3}
    with open_store(store) as s:
        session = JudgingSession(s, "alice", clock=TickClock())
        while session.current is not None:
            session.grade(1)
        gold = [e for e in s.events() if e.kind == "gold"]
        graded = [e for e in s.events() if e.kind == "grade"]
    assert gold and graded
    after = tmp_path / "after.qrels"
    capsys.readouterr()
    assert call("export", config, "--format", "qrels", "--policy", "latest", "-o", after) == 0
    exported = {tuple(line.split()[::2]) for line in after.read_text().splitlines()}
    assert not {(e.qid, e.docid) for e in gold} & exported  # gold answers: no label
    assert len(exported) == len(graded)
    status = as_json(capsys, "status", config)
    jsonschema.validate(status, load_schema("status"))
    alice = status["assessors"]["alice"]
    assert alice["judged"] == len(graded) == status["judged"]
    assert alice["gold"]["n"] == len(gold)
    assert sum(alice["grades"].values()) == len(graded)


@pytest.mark.parametrize("content, args, message", [
    ("q_faw 0 m1 1\nq_faw 0 nope 2\n", [], "gold.qrels:2: doc 'nope' is not in corpus.jsonl"),
    ("q_faw 0 m1 1\nq_nope 0 m1 2\n", [], "gold.qrels:2: query 'q_nope' is not in queries"),
    ("q_faw 0 m1 1\nq_faw 0 m2 4\n", [], "gold.qrels:2: query 'q_faw' doc 'm2': grade 4 is off "
                                         "the scale 0-3"),
    ("- query: q_faw\n  grades: {m1: 3}\n- query: q_milk\n  grades: {k1: 5}\n", [],
     "gold.qrels:4: grade '5' for query 'q_milk' doc 'k1' must be an integer 0-3"),  # golden
    ("- query: q_faw\n  grades: {m1: 3}\n- query: q_milk\n  grades: {nope: 1}\n", [],
     "gold.qrels:4: doc 'nope' is not in corpus.jsonl"),
    ("q_faw 0 m1 1\n", ["--rate", "0"], "--rate 0: gold passages per passage must be in (0, 1]"),
    ("q_faw 0 m1 1\n", ["--rate", "1.5"], "--rate 1.5: gold passages per passage must be in"),
])
def test_bad_input_is_one_line_exit_2_and_the_store_unchanged(world, capsys, content,  # noqa: F811
                                                               args, message):
    config, store = world
    labels = config.parent / "gold.qrels"
    labels.write_text(content)
    assert call("gold", config, SAMPLE / "golden.yaml") == 0  # a set to keep, byte for byte
    with open_store(store) as s:
        before = content_hash(s)
    files = {p: p.read_bytes() for p in config.parent.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert call("gold", config, labels, *args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert {p: p.read_bytes() for p in config.parent.rglob("*") if p.is_file()} == files
    with open_store(store) as s:
        assert content_hash(s) == before


def test_drift_compares_the_last_answers_with_those_before():
    steady = [(2, 2)] * (2 * DRIFT_WINDOW)
    tired = [(2, 2)] * DRIFT_WINDOW + [(0, 2)] * DRIFT_WINDOW
    assert agreement_with_gold(steady, range(4)).drift.flagged is False
    late = agreement_with_gold(tired, range(4))
    assert late.drift.recent == 0.0 and late.drift.earlier == 1.0
    assert "drift" in late.flags
    assert agreement_with_gold(tired[:-1], range(4)).drift is None  # too few answers yet


# -- the replay: three simulated assessors with known error rates ----------------------------

QUERIES, POOLED, GOLD = 8, 25, 5  # per query: pooled docs, gold docs (not pooled)


def truth(docid: str) -> int:
    return hashlib.sha256(docid.encode()).digest()[0] % 4


def replay_collection(directory: Path, store: str | Path) -> Path:
    docs = [f"q{q}d{d}" for q in range(QUERIES) for d in range(POOLED + GOLD)]
    (directory / "corpus.jsonl").write_text("".join(
        json.dumps({"id": d, "title": f"Passage {d}", "text": f"Text of passage {d}."}) + "\n"
        for d in docs))
    (directory / "queries.jsonl").write_text("".join(
        json.dumps({"id": f"q{q}", "text": f"query number {q}"}) + "\n" for q in range(QUERIES)))
    (directory / "r.run").write_text("".join(
        f"q{q} Q0 q{q}d{d} {d + 1} {100 - d} r\n" for q in range(QUERIES) for d in range(POOLED)))
    (directory / "gold.qrels").write_text("".join(
        f"q{q} 0 q{q}d{d} {truth(f'q{q}d{d}')}\n"
        for q in range(QUERIES) for d in range(POOLED, POOLED + GOLD)))
    config = directory / "c.yaml"
    config.write_text(f"corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: {store}\n"
                      f"systems:\n  r: {{kind: run, path: r.run}}\n"
                      f"pool: {{depth: {POOLED}, order: docid}}\n")
    return config


ASSESSORS = {  # name -> how she grades a passage whose true grade is g
    "ann": lambda g, rng: g if rng.random() > 0.05 else min(3, max(0, g + rng.choice((-1, 1)))),
    "ben": lambda g, rng: g if rng.random() > 0.25 else min(3, max(0, g + rng.choice((-1, 1)))),
    "cal": lambda g, rng: min(3, g + 1),  # lenient: a grade above the truth
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_replay_three_assessors_with_gold_mixed_in_flags_the_lenient_one(backend, tmp_path,
                                                                         capsys):
    with store_location(backend, tmp_path) as store:
        config = replay_collection(tmp_path, store)
        assert call("pool", config, "--quiet") == 0
        assert call("gold", config, tmp_path / "gold.qrels", "--rate", "0.25", "--seed",
                    "11") == 0
        with open_store(store) as s:
            for name, grade in ASSESSORS.items():
                rng = random.Random(name)
                session = JudgingSession(s, name, clock=TickClock(step=9.0))
                while session.current is not None:
                    session.grade(grade(truth(session.current.docid), rng))
        capsys.readouterr()
        doc = as_json(capsys, "status", config)
        jsonschema.validate(doc, load_schema("status"))
        gold = {name: doc["assessors"][name]["gold"] for name in ASSESSORS}
        assert {n: g["flags"] for n, g in gold.items()} == {"ann": [], "ben": [],
                                                            "cal": ["lenient"]}
        assert all(g["n"] >= 20 for g in gold.values())
        assert gold["ann"]["exact"] > gold["ben"]["exact"] > gold["cal"]["exact"]
        assert gold["cal"]["bias"] > 0.5 > abs(gold["ann"]["bias"])
        assert all(g["low"] <= g["kappa"] <= g["high"] for g in gold.values())
        assert all(doc["assessors"][n]["judged"] == QUERIES * POOLED for n in ASSESSORS)
        agreement = as_json(capsys, "agreement", config)  # between people: no gold pair
        assert {p["shared"] for p in agreement["pairs"]} == {QUERIES * POOLED}
        assert call("status", config) == 0
        table = capsys.readouterr().out.replace(str(tmp_path) + "/", "")
        shown = table[table.index("gold checks:"):]
        assert f"cal: grades {gold['cal']['bias']:.2f} above gold on average" in shown
        assert shown in (REPO / "docs" / "how-to" / "assignments-gold.md").read_text()  # gold


def test_a_store_with_gold_copies_whole(world, tmp_path, capsys):  # noqa: F811
    config, store = world
    assert call("gold", config, SAMPLE / "truth.qrels", "--rate", "1") == 0
    with open_store(store) as s:
        session = JudgingSession(s, "alice", clock=TickClock())
        for grade in (2, 1, 3):
            session.grade(grade)
    copy = tmp_path / "copy.sqlite"
    capsys.readouterr()
    doc = as_json(capsys, "store", "copy", store, copy)
    assert doc["identical"] and doc["counts"]["gold_pairs"] == 21
    with open_store(copy) as c:
        assert len(c.gold_queue()) == 21 and [e.kind for e in c.events()].count("gold") >= 1


def test_status_before_anyone_answered_gold_says_so(world, capsys):  # noqa: F811
    """A gold set and nobody judging yet: the table status prints says there is nothing to
    compare (it raised a TypeError building an empty table)."""
    config, _store = world
    assert call("gold", config, SAMPLE / "truth.qrels") == 0
    capsys.readouterr()
    assert call("status", config) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.rstrip().endswith(
        "nobody has judged yet: no answer to hold against gold")
