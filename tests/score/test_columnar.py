"""The columnar scorer (run read as NumPy columns, joined with the qrels by hashes) must give
exactly what scoring the lists gives: every per-query value, every mean, the missing and
unknown queries, and the audit's results and repeats. The list path is the oracle."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import poolkit.score.columnar as columnar_mod
from poolkit.io import Qrels, Run, read_run
from poolkit.io.run_columns import bytes_hashes
from poolkit.score import evaluate, parse_measure
from poolkit.score.audit import audit_measures, audit_run

IDS = [f"d{i}" for i in range(10)] + ["D-long-id-0001", "x"]
QIDS = ["q1", "q2", "q10", "7"]
MEASURES = [parse_measure(m) for m in (
    "P@3", "R@5", "R", "Hit@2", "RR@4", "AP", "AP@5", "nDCG@3", "nDCG(gain=exp)", "Rprec",
    "bpref", "Judged@3", "Judged", "CP@4", "P(rel=2)@3", "AP(judged_only=true)",
    "nDCG(judged_only=true)@4", "bpref(judged_only=true)", "infAP", "statAP", "infNDCG@3",
    "RBP@5", "RBP_resid", "RBP(judged_only=true)")]

rows_st = st.lists(st.tuples(st.sampled_from(QIDS), st.sampled_from(IDS),
                             st.sampled_from([3.0, 2.5, 1.0, 0.0, -0.0, -1.25, 1e-3, 7.0])),
                   min_size=1, max_size=40)
qrels_st = st.dictionaries(st.sampled_from(QIDS + ["q9"]),
                           st.dictionaries(st.sampled_from(IDS + ["unretrieved"]),
                                           st.integers(-1, 3), max_size=8),
                           min_size=1, max_size=5)


def write_run(path: Path, rows: list[tuple[str, str, float]]) -> Path:
    path.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} tag\n" for i, (q, d, s) in
                            enumerate(rows)))
    return path


def list_run(run: Run) -> Run:
    """The same run as plain lists (the scorer's list path)."""
    return Run({q: list(d) for q, d in run.rankings.items()}, name=run.name)


def summary(qrels: Qrels, run: Run, depth: int | None, level: int) -> tuple:
    ev = evaluate(qrels, run, [*MEASURES, *audit_measures([3])], level=level, depth=depth)
    audit = audit_run(qrels, run, ev, [3], level=level, depth=depth)
    return (ev.per_query, ev.means, ev.scored, ev.excluded, ev.missing, ev.unknown,
            {q: (a.results, a.repeats, a.repeated_ids, a.at[3].positional_hits,
                 a.at[3].distinct_hits) for q, a in audit.queries.items()})


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=rows_st, grades=qrels_st, depth=st.sampled_from([None, 1, 2, 5]),
       level=st.integers(1, 2), order=st.sampled_from(["score", "rank", "file"]),
       chunk=st.sampled_from([1, 3, 1 << 20]), jobs=st.sampled_from([1, 3]))
def test_columns_score_exactly_as_lists(tmp_path: Path, monkeypatch, rows, grades, depth, level,
                                        order, chunk, jobs) -> None:
    """Whatever the chunks of queries joined at a time, and the threads joining them."""
    monkeypatch.setattr(columnar_mod, "_CHUNK_ROWS", chunk)
    monkeypatch.setattr(columnar_mod, "part_jobs", lambda: jobs)
    run = read_run(write_run(tmp_path / "r.run", rows), order=order)
    assert run.columns is not None
    qrels = Qrels.from_mapping(grades)
    assert summary(qrels, run, depth, level) == summary(qrels, list_run(run), depth, level)


@settings(max_examples=50, deadline=None)
@given(ids=st.lists(st.binary(min_size=1, max_size=20).map(lambda b: b.replace(b"\0", b"a")),
                    min_size=1, max_size=30),
       chunk=st.integers(1, 7))
def test_doc_id_hashes_do_not_depend_on_the_chunks(ids: list[bytes], chunk: int) -> None:
    values = np.array(ids)
    whole = bytes_hashes(values)
    assert (bytes_hashes(values, chunk=chunk) == whole).all()
    assert len(set(whole.tolist())) == len(set(ids))  # distinct ids, distinct hashes here


def test_a_hash_collision_in_the_qrels_falls_back_to_the_lists(tmp_path: Path,
                                                               monkeypatch) -> None:
    rows = [("q1", "d1", 3.0), ("q1", "d2", 2.0), ("q1", "d1", 1.0), ("q2", "d3", 1.0)]
    run = read_run(write_run(tmp_path / "r.run", rows))
    qrels = Qrels.from_mapping({"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}})
    want = summary(qrels, list_run(run), None, 1)
    monkeypatch.setattr(columnar_mod, "_CACHE", {})
    original = columnar_mod._QrelsKeys.__init__

    def colliding(self, *args) -> None:
        original(self, *args)
        self.distinct = False

    monkeypatch.setattr(columnar_mod._QrelsKeys, "__init__", colliding)
    assert columnar_mod.column_facts(qrels, run, ["q1"], None) is None
    assert summary(qrels, run, None, 1) == want


def test_qrels_keys_are_built_once_per_qrels_and_width(tmp_path: Path, monkeypatch) -> None:
    qrels = Qrels.from_mapping({"q1": {"d1": 1}})
    built = []
    original = columnar_mod._QrelsKeys.__init__
    monkeypatch.setattr(columnar_mod._QrelsKeys, "__init__",
                        lambda self, *a: built.append(1) or original(self, *a))
    runs = [read_run(write_run(tmp_path / f"r{i}.run", [("q1", "d1", 1.0), ("q1", f"d{i}", 0.5)]))
            for i in (2, 3, 4)]
    for run in runs:
        evaluate(qrels, run, MEASURES)
    assert built == [1]


@pytest.mark.parametrize("lengths", [[4, 4, 4], [1, 6, 3]])
def test_repeats_are_found_in_equal_and_ragged_queries(tmp_path: Path, lengths) -> None:
    rows = []
    for q, n in zip(["a", "b", "c"], lengths):
        docs = ["x", "y", "x", "z", "y", "x"][:n] if q == "b" else [f"{q}{i}" for i in range(n)]
        rows += [(q, d, float(-i)) for i, d in enumerate(docs)]
    run = read_run(write_run(tmp_path / "r.run", rows), order="file")
    got = columnar_mod.column_repeats(run.columns, None)
    assert got["b"][1:] == ((min(lengths[1], 6) - 3, ["x", "y"]) if lengths[1] == 6
                            else (1, ["x"]))
    assert got["a"] == (lengths[0], 0, []) and got["c"] == (lengths[2], 0, [])
