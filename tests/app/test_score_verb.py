"""The score verb: measures and cutoffs from a request, the read/score pipeline (runs read
while one is scored, the collector paused), a run's rows let go, runs and labels in memory."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from poolkit.app.score import (
    ScoreRequest,
    parse_cutoffs,
    resolve_measures,
    score_run,
    score_runs,
)
from poolkit.errors import PoolkitError
from poolkit.io import Qrels, Run
from poolkit.score.document import Settings
from poolkit.score.measures import split_measures

REPO = Path(__file__).resolve().parents[2]
GOLDEN = str(REPO / "sample_corpus" / "golden.yaml")
SEED_RUN = str(REPO / "sample_corpus" / "seed.run")


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _mixed_runs(tmp_path: Path) -> list[str]:
    """Runs of every kind: plain TREC (read as columns, ties out of doc-id order), TREC the
    line reader takes (a non-ASCII id; tabs, an exponent) and a ranked list in YAML."""
    plain = write(tmp_path, "plain.run", "".join(
        f"{q} Q0 {d} {r + 1} {s} plain\n" for q in ("q_faw", "q_milk")
        for r, (d, s) in enumerate([("m1", 2.0), ("d1", 1.0), ("x1", 1.0), ("m2", 0.5)])))
    tabbed = write(tmp_path, "tabbed.run", "q_faw\tQ0\tm2\t1\t3\tt\nq_faw Q0 m1 2 3 t\n"
                                           "q_milk Q0 d2 1 1.5e0 t\nq_milk Q0 d\u00e9 2 1 t\n")
    ranked = write(tmp_path, "ranked.yaml", "q_faw: [x1, m1]\nq_milk: [d1]\n")
    return [plain, SEED_RUN, tabbed, ranked, plain]


# --- measures and cutoffs ---------------------------------------------------------------------

def test_resolve_measures() -> None:
    names = lambda ms: [m.name for m in ms]  # noqa: E731
    ms, ks = resolve_measures([], [5, 10])
    assert ks == [5, 10] and names(ms)[:6] == ["P@5", "R@5", "Hit@5", "RR@5", "AP@5", "nDCG@5"]
    ms, ks = resolve_measures(["P@5", "nDCG@20 RR"], [])
    assert (names(ms), ks) == (["P@5", "nDCG@20", "RR"], [5, 20])
    ms, ks = resolve_measures(["P", "nDCG@K", "AP"], [3])
    assert (names(ms), ks) == (["AP", "P@3", "nDCG@3"], [3])
    ms, _ = resolve_measures(["nDCG@5", "P@5"], [], gain="exp")
    assert names(ms) == ["nDCG(gain=exp)@5", "P@5"]
    with pytest.raises(PoolkitError, match="unknown measure 'Precison'"):
        resolve_measures(["Precison@5"], [])


def test_measures_split_on_commas_like_k_and_fail_on() -> None:
    # -k 5,10 and --fail-on a,b take commas, so -m P@5,nDCG@10 must too; a comma inside
    # parentheses separates a measure's parameters.
    assert split_measures(["P@5,nDCG(gain=exp,rel=2)@10 RR", " AP , "]) == [
        "P@5", "nDCG(gain=exp,rel=2)@10", "RR", "AP"]
    ms, ks = resolve_measures(["P@5,R@5", "P(rel=2,judged_only=false)@5"], [])
    assert ([m.name for m in ms], ks) == (["P@5", "R@5", "P(rel=2)@5"], [5])


def test_parse_cutoffs() -> None:
    assert parse_cutoffs(["5,10", "20", "5"]) == [5, 10, 20]
    with pytest.raises(PoolkitError, match="-k 'x': 'x' is not an integer"):
        parse_cutoffs(["x"])
    with pytest.raises(PoolkitError, match="cutoffs must be positive"):
        parse_cutoffs(["0"])


# --- the request ----------------------------------------------------------------------------

def test_the_verb_scores_files_and_objects_in_memory_alike(tmp_path: Path,
                                                          monkeypatch) -> None:
    """Labels and runs read from files, or built in memory, give the same report; its
    means are the JSON's means, by run."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    from poolkit.io import read_labels, read_run

    qrels, run = read_labels(GOLDEN), read_run(SEED_RUN)
    request = ScoreRequest(GOLDEN, [SEED_RUN], measures=["nDCG@10", "P@5"], stages=(10, 5))
    from_files = score_runs(request)
    in_memory = score_runs(ScoreRequest(qrels, [run], measures=["nDCG@10", "P@5"],
                                        stages="10,5"))
    assert from_files.render("json") == in_memory.render("json")
    doc = json.loads(from_files.render("json"))
    assert from_files.means() == {"seed.run": {
        m: v["mean"] for m, v in doc["runs"][0]["measures"].items()}}
    memory = Qrels.from_mapping({"q1": {"a": 1}}, name="mem")
    report = score_runs(ScoreRequest(memory, [Run.from_mapping({"q1": ["a"]}, name="r"),
                                              Run.from_mapping({"q1": ["b"]}, name="r")],
                                     measures=["P@1"]))
    assert report.means() == {"r": {"P@1": 1.0}, "r#2": {"P@1": 0.0}}


def test_one_run_or_one_measure_is_not_split_into_letters() -> None:
    alone = score_runs(ScoreRequest(GOLDEN, SEED_RUN, measures="P@5", fail_on="repeats"))
    listed = score_runs(ScoreRequest(GOLDEN, [SEED_RUN], measures=["P@5"], fail_on=["repeats"]))
    assert alone.means() == listed.means() == {"seed.run": {"P@5": 0.5}}


@pytest.mark.parametrize("request_, message", [
    (ScoreRequest(GOLDEN, [SEED_RUN], cutoffs=[0]), "-k 0: cutoffs must be positive"),
    (ScoreRequest(GOLDEN, []), "no run to score: give one RUN or more"),
    (ScoreRequest(GOLDEN, [SEED_RUN], gain="log"), "unknown nDCG gain 'log'"),
    (ScoreRequest(GOLDEN, [SEED_RUN], order="best"), "unknown run order 'best'"),
    (ScoreRequest(GOLDEN, [SEED_RUN], stages=(5, 10)), "fetch depth 5 is below"),
])
def test_a_bad_request_is_one_error_before_any_file_is_read(request_: ScoreRequest,
                                                            message: str) -> None:
    with pytest.raises(PoolkitError, match=message):
        score_runs(request_)


# --- the pipeline ---------------------------------------------------------------------------

@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_the_next_runs_are_read_while_one_is_scored(tmp_path: Path, monkeypatch,
                                                     jobs: int) -> None:
    """A pipeline: run i is scored while runs i+1 .. i+jobs-1 are read (on threads), never
    more (each read run holds its rows); --jobs 1 reads each run only once the one before
    is scored."""
    import threading

    from poolkit.app import score as score_mod

    runs = _mixed_runs(tmp_path)[:4]
    started: list[int] = []
    cond = threading.Condition()
    real_read, real_score = score_mod.read_any_run, score_mod.score_run

    def read(path, *args):  # type: ignore[no-untyped-def]
        with cond:
            started.append(runs.index(str(path)))
            cond.notify_all()
        return real_read(path, *args)

    scored: list[tuple[int, list[int]]] = []

    def score(qrels, run, *args, **kwargs):  # type: ignore[no-untyped-def]
        i = len(scored)
        want = min(i + jobs, len(runs))  # runs 0 .. i+jobs-1 read or being read
        with cond:
            assert cond.wait_for(lambda: len(started) >= want, timeout=10), started
            scored.append((i, sorted(started)))
        return real_score(qrels, run, *args, **kwargs)

    monkeypatch.setattr(score_mod, "read_any_run", read)
    monkeypatch.setattr(score_mod, "score_run", score)
    score_runs(ScoreRequest(GOLDEN, runs, jobs=jobs))
    assert [sorted(s) for _, s in scored] == [
        list(range(min(i + jobs, len(runs)))) for i in range(len(runs))]


@pytest.mark.parametrize("jobs", [2, 3, 8])
def test_jobs_change_nothing_in_the_report(tmp_path: Path, monkeypatch, jobs: int) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    runs = _mixed_runs(tmp_path)

    def report(**options: object) -> str:
        return score_runs(ScoreRequest(
            GOLDEN, runs, cutoffs=[5], truth=str(REPO / "sample_corpus" / "truth.qrels"),
            stages="10,5", prepare_format="json", **options)).render(  # type: ignore[arg-type]
            "json", per_query=True)

    one, many, default = report(jobs=1), report(jobs=jobs), report()
    assert one == many == default
    names = [r["name"] for r in json.loads(one)["runs"]]
    assert names == ["plain.run", "seed.run", "tabbed.run", "ranked.yaml", "plain.run"]


@pytest.mark.parametrize("jobs", [1, 3])
def test_runs_written_ahead_on_threads_are_the_whole_documents_json(
        tmp_path: Path, monkeypatch, jobs: int) -> None:
    """Past the compact limit each run's JSON is written on its scoring thread and spliced:
    the output is ``json.dumps`` of the whole document to the byte, for any jobs."""
    from poolkit.score import render

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr(render, "JSON_INDENT_LIMIT", 2)
    runs = _mixed_runs(tmp_path)
    request = ScoreRequest(GOLDEN, runs, cutoffs=[5], prepare_format="json",
                           truth=str(REPO / "sample_corpus" / "truth.qrels"))
    out = score_runs(replace(request, jobs=jobs)).render("json")
    assert out.count("\n") == 1
    assert out == json.dumps(json.loads(out), separators=(",", ":")) + "\n"
    monkeypatch.setattr(render, "JSON_INDENT_LIMIT", 10**9)
    indented = score_runs(request).render("json")
    assert json.loads(indented) == json.loads(out)


def test_the_collector_is_paused_only_while_the_verb_runs(tmp_path: Path,
                                                          monkeypatch) -> None:
    """The cyclic collector is off while runs are scored; what the caller had is frozen
    first, uncollected, then the labels and each finished run are collected once and
    frozen out of later passes; the verb gives the collector back as it found it, and
    leaves it alone when its caller froze objects or turned it off."""
    import gc

    settled: list[tuple[bool, int]] = []
    real_freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (settled.append((gc.isenabled(), 1)),
                                               real_freeze())[0])
    runs = _mixed_runs(tmp_path)[:3]
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    score_runs(ScoreRequest(GOLDEN, runs, jobs=2))
    # the caller's objects, the labels, then 3 runs, with the collector off
    assert settled == [(False, 1)] * 5
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    real_freeze()
    try:
        settled.clear()
        score_runs(ScoreRequest(GOLDEN, runs))
        assert settled == [] and gc.get_freeze_count() > 0  # not unfrozen by the verb
    finally:
        gc.unfreeze()
    gc.disable()
    try:
        score_runs(ScoreRequest(GOLDEN, runs))
        assert settled == [] and not gc.isenabled()  # not turned on by the verb
    finally:
        gc.enable()


def test_the_collector_comes_back_after_an_error(tmp_path: Path) -> None:
    import gc

    bad = write(tmp_path, "bad.run", "q_faw Q0 d1 one 2.0 t\n")
    with pytest.raises(PoolkitError, match="bad.run:1: rank 'one' is not an integer"):
        score_runs(ScoreRequest(GOLDEN, [SEED_RUN, bad]))
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_scored_run_lets_its_rows_go(tmp_path: Path) -> None:
    """N runs in one process hold one run's rows at a time: once scored, nothing the result
    keeps refers to the run's columns."""
    import gc
    import weakref

    from poolkit.io import read_labels, read_run

    run = read_run(write(tmp_path, "r.run", "".join(
        f"q_faw Q0 d{i} {i + 1} {10 - i} t\n" for i in range(8))))
    columns = run.columns
    assert columns is not None
    gone = weakref.ref(columns)
    shown, ks = resolve_measures(["AP", "P@5"], [])
    result = score_run(read_labels(GOLDEN), run, shown, Settings(ks=ks),
                       truth=read_labels(str(REPO / "sample_corpus" / "truth.qrels")))
    del run, columns
    gc.collect()
    assert gone() is None
    assert (result.run.name, result.run.queries) == ("r.run", 1)
    assert result.evaluation.run.rankings == {}
    with pytest.raises(RuntimeError, match="rows are gone"):
        result.evaluation.ranking_facts("q_faw")
