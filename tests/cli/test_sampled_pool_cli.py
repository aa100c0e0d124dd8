"""A sampled pool end to end: pool -> judge the draw -> status -> export -> score --sample."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from poolkit.cli import main
from poolkit.io import read_qrels
from poolkit.io.golden import read_golden
from poolkit.io.sample import read_sample
from poolkit.schemas import load_schema
from poolkit.store import Event, Store

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_corpus"


def write_runs(tmp_path: Path) -> tuple[Path, Path]:
    """Two runs over the bundled sample (tracked files only): seed.run as it is ("bm25") and
    each of its rankings reversed ("dense"), so the two agree on little at the top."""
    lines = (SAMPLE / "seed.run").read_text().split("\n")
    rows = [line.split() for line in lines if line.strip()]
    forward = tmp_path / "bm25.run"
    forward.write_text("".join(f"{q} Q0 {d} {r} {s} bm25\n" for q, _, d, r, s, _ in rows))
    by_query: dict[str, list[str]] = {}
    for q, _, d, *_ in rows:
        by_query.setdefault(q, []).append(d)
    backward = tmp_path / "dense.run"
    backward.write_text("".join(f"{q} Q0 {d} {i + 1} {100 - i} dense\n"
                                for q, docs in by_query.items()
                                for i, d in enumerate(reversed(docs))))
    return forward, backward


def write_config(tmp_path: Path, pool: str) -> Path:
    bm25, dense = write_runs(tmp_path)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
        f"store: {tmp_path / 's.sqlite'}\n"
        f"systems:\n  bm25: {{kind: run, path: {bm25}}}\n"
        f"  dense: {{kind: run, path: {dense}}}\n"
        f"pool:\n{pool}")
    return cfg


SAMPLED = ("  strategy: sample\n  depth: 10\n  strata: [[1, 2, 1.0], [3, 10, 0.3]]\n"
           "  seed: 13\n")


@pytest.fixture
def sampled(tmp_path: Path, capsys) -> Path:
    cfg = write_config(tmp_path, SAMPLED)
    assert main(["pool", str(cfg)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    return cfg


def test_only_the_draw_is_judged_and_every_pooled_pair_is_recorded(sampled, tmp_path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        design = store.pool_sample()
        members = {(m.qid, m.docid) for m in store.pool()}
    assert design and {(r.qid, r.docid) for r in design if r.sampled} == members
    assert any(not r.sampled for r in design)
    assert {r.stratum for r in design} == {"1-2", "3-10"}
    top = [r for r in design if r.stratum == "1-2"]
    assert all(r.sampled and r.inclusion == 1.0 for r in top)
    for qid in {r.qid for r in design}:
        deep = [r for r in design if r.qid == qid and r.stratum == "3-10"]
        if deep:
            drawn = sum(r.sampled for r in deep)
            assert all(r.inclusion == pytest.approx(drawn / len(deep)) for r in deep)


def test_judge_status_export_and_score_on_a_sample(sampled, tmp_path, capsys) -> None:
    truth = read_golden(SAMPLE / "golden.yaml").grades
    with Store(tmp_path / "s.sqlite") as store:
        for m in store.pool():
            grade = truth.get(m.qid, {}).get(m.docid, 0)
            store.record_event(Event(m.qid, m.docid, "alice", "grade", grade=grade))
        design = store.pool_sample()
    assert main(["status", str(sampled), "--format", "json"]) == 0
    capsys.readouterr()
    qrels, sample = tmp_path / "l.qrels", tmp_path / "l.sample"
    assert main(["export", str(sampled), "--format", "qrels", "--unjudged", "-1",
                 "-o", str(qrels), "--sample", str(sample)]) == 0
    grades = read_qrels(qrels).grades
    # A pair the design never drew is not written as if drawn and left unjudged (-1): the
    # design file lists it, drawn 0; every drawn pair is in the queue, placed 1, 2, ...
    undrawn = {(r.qid, r.docid) for r in design if not r.sampled}
    assert undrawn and not any(d in grades.get(q, {}) for q, d in undrawn)
    assert all(grades[r.qid][r.docid] >= 0 for r in design if r.sampled)
    written = read_sample(sample)
    assert sum(len(s.strata) for s in written.values()) == len(design)
    assert all(written[r.qid].inclusion[r.docid] == pytest.approx(r.inclusion) for r in design)
    assert all((written[r.qid].drawn or {})[r.docid] == 0 for r in design if not r.sampled)
    for qid, s in written.items():
        for stratum in set(s.strata.values()):
            places = sorted((s.drawn or {})[d] for d, t in s.strata.items()
                            if t == stratum and (s.drawn or {})[d])
            assert places == list(range(1, len(places) + 1))
    capsys.readouterr()
    assert main(["score", str(qrels), str(tmp_path / "bm25.run"), "--sample",
                 str(sample), "-m", "xinfAP,statAP,infNDCG@10,infAP", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (run,) = doc["runs"]
    assert set(run["measures"]) == {"xinfAP", "statAP", "infNDCG@10", "infAP"}
    assert all(0.0 <= m["mean"] <= 1.5 for m in run["measures"].values())
    assert any(q["rel_est"] for q in run["audit"]["queries"].values())


def test_export_without_sample_design_writes_one_depth_stratum(tmp_path, capsys) -> None:
    cfg = write_config(tmp_path, "  depth: 2\n")
    assert main(["pool", str(cfg)]) == 0
    capsys.readouterr()
    with Store(tmp_path / "s.sqlite") as store:
        first = store.pool()[0]
        store.record_event(Event(first.qid, first.docid, "alice", "grade", grade=2))
        pooled = len(store.pool())
    out = tmp_path / "s.tsv"
    assert main(["export", str(cfg), "--format", "qrels", "--unjudged", "-1",
                 "--sample", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    written = read_sample(out)
    assert sum(len(s.strata) for s in written.values()) == pooled
    assert all(set(s.strata.values()) == {"depth"} and set(s.inclusion.values()) == {1.0}
               for s in written.values())
    assert f"{first.qid} 0 {first.docid} 2" in printed
    assert len(printed) == pooled and sum(line.endswith(" -1") for line in printed) == pooled - 1


def test_unjudged_needs_qrels_and_strata_are_checked(tmp_path, capsys) -> None:
    cfg = write_config(tmp_path, SAMPLED)
    assert main(["export", str(cfg), "--format", "golden", "--unjudged", "-1"]) == 2
    assert "needs --format qrels" in capsys.readouterr().err
    bad = write_config(tmp_path, "  strategy: sample\n  depth: 10\n  strata: [[1, 5, 1.0]]\n")
    assert main(["pool", str(bad)]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(err) == 1 and "strata end at rank 5 but bm25, dense pool deeper" in err[0]
    gap = write_config(tmp_path, "  strategy: sample\n  depth: 10\n"
                                 "  strata: [[1, 5, 1.0], [7, 10, 0.5]]\n")
    assert main(["pool", str(gap)]) == 2
    assert "should start at 6" in capsys.readouterr().err
    none = write_config(tmp_path, "  strategy: sample\n  depth: 10\n")
    assert main(["pool", str(none)]) == 2
    assert "needs pool.strata" in capsys.readouterr().err


def test_pool_reports_the_design_per_stratum_and_what_each_run_returned(tmp_path,
                                                                        capsys) -> None:
    # Asked 12 deep; each run ranks 10 per query.
    cfg = write_config(tmp_path, SAMPLED.replace("depth: 10", "depth: 12").replace(
        "[3, 10, 0.3]", "[3, 12, 0.3]"))
    assert main(["pool", str(cfg), "--format", "json"]) == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    with Store(tmp_path / "s.sqlite") as store:
        records = store.pool_sample()
    jsonschema.Draft202012Validator(load_schema("pool")).validate(doc)
    design = doc["design"]
    assert [c["stratum"] for c in design["strata"]] == ["1-2", "3-12"]
    for cell in design["strata"]:
        mine = [r for r in records if r.stratum == cell["stratum"]]
        assert cell["pooled"] == len(mine) and cell["drawn"] == sum(r.sampled for r in mine)
        assert cell["rate"] == pytest.approx(cell["drawn"] / cell["pooled"])
    assert design["pooled"] == len(records) > design["drawn"] == doc["overall"]["size"]
    assert design["order"] == "shuffle" and design["random_order"]
    # Each system's depth is what its run returned, not the 12 asked.
    assert doc["added"]["asked"] == {"bm25": 12, "dense": 12}
    assert doc["added"]["depths"] == {"bm25": 10, "dense": 10}
    assert {n: s["depth"] for n, s in doc["systems"].items()} == doc["added"]["depths"]
    assert main(["pool", str(cfg), "--report-only"]) == 0
    table = capsys.readouterr().out
    headline = table.splitlines()[0]
    assert (f"{design['pooled']} pairs pooled, {design['drawn']} drawn to judge" in headline
            and "pooled documents" not in headline)
    assert "sample design: pairs pooled per stratum and those drawn to judge" in table
    assert "\n  judging order shuffle: random within each stratum, so any judged prefix" in table
    assert "per query: drawn pairs;" in table
    assert f"+{design['drawn']} drawn  from bm25@12, dense@12" in table


def test_a_label_outside_the_draw_is_left_out_of_the_estimate_and_said(sampled, tmp_path,
                                                                         capsys) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        undrawn = next(r for r in store.pool_sample() if not r.sampled)
        relevant = next(m for m in store.pool() if m.qid == undrawn.qid)  # query is scored
        for m in store.pool():
            grade = 2 if m == relevant else 0
            store.record_event(Event(m.qid, m.docid, "alice", "grade", grade=grade))
    qrels, sample = tmp_path / "l.qrels", tmp_path / "l.sample"

    def score() -> tuple[dict, list[str]]:
        assert main(["export", str(sampled), "--format", "qrels", "-o", str(qrels),
                     "--sample", str(sample)]) == 0
        capsys.readouterr()
        assert main(["score", str(qrels), str(tmp_path / "bm25.run"), "--sample", str(sample),
                     "-m", "xinfAP,infNDCG@10,statAP", "--format", "json"]) == 0
        out, err = capsys.readouterr()
        return json.loads(out)["runs"][0]["measures"], err.splitlines()

    before, said = score()
    assert said == []
    extra = tmp_path / "extra.qrels"
    extra.write_text(f"{undrawn.qid} 0 {undrawn.docid} 3\n")
    assert main(["import", str(sampled), str(extra), "--as", "nist"]) == 0
    after, said = score()
    assert after == before
    assert said == ["sample: 1 label(s) on pairs the design did not draw are left out of every "
                    "estimate (xinfAP, infNDCG, statAP, R_est): they are not a random sample "
                    "of the pool"]
