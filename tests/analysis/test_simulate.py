"""``poolkit simulate``: the replay, its JSON keys, both forms, budgets and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from poolkit.analysis.stats import kendall_tau
from poolkit.app.simulate import SimulateRequest, simulate_judging
from poolkit.cli import main
from poolkit.errors import PoolkitError
from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.pool.order import order_strategy
from poolkit.pool.provenance import pool_from_ranks
from poolkit.pool.simulate import budget_count, parse_budgets, replay, simulate

RUNS = {
    "good": "q1 Q0 r1 1 9 good\nq1 Q0 r2 2 8 good\nq1 Q0 n1 3 7 good\n"
            "q2 Q0 r3 1 9 good\nq2 Q0 n2 2 8 good\n",
    "poor": "q1 Q0 n3 1 9 poor\nq1 Q0 n4 2 8 poor\nq1 Q0 r1 3 7 poor\n"
            "q2 Q0 n2 1 9 poor\nq2 Q0 n5 2 8 poor\n",
}
QRELS = "q1 0 r1 2\nq1 0 r2 1\nq1 0 n1 0\nq2 0 r3 3\nq2 0 n2 0\nq2 0 x9 1\n"


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, list[Path]]:
    runs = []
    for name, text in RUNS.items():
        p = tmp_path / f"{name}.run"
        p.write_text(text)
        runs.append(p)
    qrels = tmp_path / "full.qrels"
    qrels.write_text(QRELS)
    return qrels, runs


def simulated(qrels: Path, *inputs: Path, budgets: str | None = None, **request) -> dict:
    """The simulate verb's JSON document."""
    if budgets is not None:
        request["budgets"] = parse_budgets(budgets)
    report = simulate_judging(SimulateRequest(str(qrels), [str(i) for i in inputs], **request))
    return json.loads(report.render("json"))


def test_budgets_parse_as_typed_and_round_half_up():
    assert parse_budgets("0.25,0.5,1") == [("0.25", 0.25), ("0.5", 0.5), ("1", 1.0)]
    assert [budget_count(0.5, n) for n in (1, 2, 3, 5)] == [1, 1, 2, 3]
    assert budget_count(0.25, 6) == 2 and budget_count(0.1, 4) == 0
    for bad, message in (("0", "not a fraction"), ("1.5", "not a fraction"),
                         ("x", "not a number"), ("0.5,0.5", "given twice")):
        with pytest.raises(PoolkitError, match=message):
            parse_budgets(bad)


def test_file_form_json_has_the_issue_keys(files):
    qrels, runs = files
    doc = simulated(qrels, *runs, depth=3, budgets="0.25,0.5,1",
                    strategies=["mm-ns", "priority"])
    assert doc["command"] == "simulate" and doc["level"] == 1
    assert doc["budgets"] == [0.25, 0.5, 1.0]
    assert list(doc["strategies"]) == ["mm-ns", "priority"]
    s = doc["strategies"]["mm-ns"]
    assert list(s["budgets"]) == ["0.25", "0.5", "1"]
    b = s["budgets"]["0.5"]
    assert {"judged", "relevant_found", "recall", "tau"} <= set(b)
    assert set(b["tau"]) == {"nDCG@10", "AP"}
    assert {"judged", "relevant_found", "recall"} <= set(s["stop"])
    q1 = s["per_query"]["q1"]
    # q1's pool: r1 r2 n1 n3 n4 (5 docs), relevant r1 r2; q2: r3 n2 n5, relevant r3 (x9 unpooled)
    assert (q1["pool"], q1["relevant"]) == (5, 2)
    assert s["per_query"]["q2"]["relevant"] == 1
    cell = q1["budgets"]["0.5"]
    assert cell["judged"] == 3
    assert set(cell["remaining_estimate"]) == {"value", "low", "high"}
    assert cell["remaining_true"] == 2 - cell["relevant_found"]
    # At budget 1 everything is judged: full recall and tau 1.
    assert s["budgets"]["1"]["recall"] == 1.0 and s["budgets"]["1"]["judged"] == 8
    assert s["budgets"]["1"]["tau"] == {"nDCG@10": 1.0, "AP": 1.0}


def test_replay_follows_the_strategy_and_grades_absent_documents_zero():
    pool = pool_from_ranks("q", {"A": {"a": 1, "b": 2}, "B": {"c": 1}})
    seq = replay(order_strategy("mtf"), pool, {"a": 0, "c": 2})
    assert [(j.docid, j.grade) for j in seq] == [("a", 0), ("c", 2), ("b", 0)]


def test_adaptive_strategies_find_more_when_one_run_is_better():
    # 30 queries: run "good" ranks relevant documents first, "poor" ranks them last; the
    # fixed orders cannot tell the runs apart, the adaptive ones learn to follow "good".
    rankings: dict[str, dict[str, list[str]]] = {"good": {}, "poor": {}}
    grades: dict[str, dict[str, int]] = {}
    for q in range(30):
        rel = [f"q{q}r{i}" for i in range(5)]
        non = [f"q{q}n{i}" for i in range(10)]
        rankings["good"][f"q{q}"] = rel + non[:5]
        rankings["poor"][f"q{q}"] = non[5:] + non[:5]
        grades[f"q{q}"] = {d: 1 for d in rel}
    runs = {n: Run.from_mapping(r, name=n) for n, r in rankings.items()}
    from poolkit.pool.simulate import pools_from_runs

    pools = pools_from_runs(runs, 10)
    doc = simulate(pools, Qrels.from_mapping(grades), {n: order_strategy(n) for n in
                   ("mtf", "mm-ns", "shuffle", "docid")}, parse_budgets("0.25"), runs,
                   tau=kendall_tau)
    found = {n: s["budgets"]["0.25"]["relevant_found"] for n, s in doc["strategies"].items()}
    assert found["mtf"] > found["shuffle"] and found["mm-ns"] > found["shuffle"]
    assert found["mtf"] > found["docid"] and found["mm-ns"] > found["docid"]


def test_config_form_reads_the_pool_and_runs_from_the_store(tmp_path, capsys):
    runs = tmp_path / "ext"
    runs.mkdir()
    for name, text in RUNS.items():
        (runs / f"{name}.run").write_text(text)
    corpus = tmp_path / "corpus.jsonl"
    ids = sorted({line.split()[2] for text in RUNS.values() for line in text.splitlines()})
    corpus.write_text("".join(json.dumps({"id": d, "title": "", "text": f"text {d}"}) + "\n"
                              for d in ids))
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"id": "q1", "text": "one"}\n{"id": "q2", "text": "two"}\n')
    cfg = tmp_path / "collection.yaml"
    cfg.write_text(f"corpus: {corpus}\nqueries: {queries}\nstore: judgments.sqlite\n"
                   f"runs_dir: runs\nsystems:\n"
                   f"  good: {{kind: run, path: {runs / 'good.run'}}}\n"
                   f"  poor: {{kind: run, path: {runs / 'poor.run'}}}\n"
                   "pool:\n  depth: 3\n  order: mm-ns\n  stop_recall: 0.8\n"
                   "  mm_ns_discount: 1.0\n")
    qrels = tmp_path / "full.qrels"
    qrels.write_text(QRELS)
    assert main(["pool", str(cfg)]) == 0
    capsys.readouterr()
    doc = simulated(qrels, cfg, budgets="0.5")
    assert doc["queries"] == 2 and doc["pool"] == 8 and doc["relevant"] == 3
    assert doc["stop_rule"]["target"] == 0.8
    assert doc["strategies"]["mm-ns"]["params"]["mm_ns_discount"] == 1.0
    files = simulated(qrels, runs / "good.run", runs / "poor.run", depth=3, budgets="0.5",
                      stop_recall=0.8)
    for name in ("shuffle", "docid", "priority", "mtf"):
        assert (doc["strategies"][name]["budgets"] == files["strategies"][name]["budgets"])
        # the store lists the pool in judging order, the file form in docid order: the
        # stopping rule must not see the difference (tests/pool/test_remaining.py)
        assert doc["strategies"][name]["stop"] == files["strategies"][name]["stop"]


def test_table_and_plot(files, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    qrels, runs = files
    png = tmp_path / "found.png"
    assert main(["simulate", "--qrels", str(qrels), *map(str, runs), "--depth", "3",
                 "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "relevant found (pool recall) at each budget" in out
    assert [line.split()[0] for line in out.splitlines()[3:9]] == [
        "strategy", "shuffle", "docid", "priority", "mtf", "mm-ns"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_param_sets_a_strategy_parameter_in_the_file_form(files):
    qrels, runs = files
    base = {"depth": 3, "strategies": ["mm-ns", "mtf"]}
    doc = simulated(qrels, *runs, **base)
    assert doc["strategies"]["mm-ns"]["params"]["mm_ns_discount"] == 0.9   # the default
    doc = simulated(qrels, *runs, **base, params=["mm_ns_discount=1", "mtf_step=2.5"])
    assert doc["strategies"]["mm-ns"]["params"]["mm_ns_discount"] == 1.0
    assert doc["strategies"]["mtf"]["params"]["mtf_step"] == 2.5
    # rrf_k, the fused order the learners store (as priority's), is theirs to set too
    assert {doc["strategies"][n]["params"]["rrf_k"] for n in ("mm-ns", "mtf")} == {60}
    doc = simulated(qrels, *runs, **base, params=["rrf_k=5"])
    assert {doc["strategies"][n]["params"]["rrf_k"] for n in ("mm-ns", "mtf")} == {5}


@pytest.mark.parametrize("argv, message", [
    (["--depth", "3", "--strategy", "mmns"], "unknown strategy 'mmns'.*did you mean 'mm-ns'"),
    (["--depth", "3", "--param", "mm_ns_discont=1"],
     "--param: unknown parameter .*'mm_ns_discont'.*did you mean 'mm_ns_discount'"),
    (["--depth", "3", "--strategy", "priority", "--param", "mm_ns_discount=1"],
     "--param: unknown parameter of priority 'mm_ns_discount'; valid: rrf_k"),
    (["--depth", "3", "--param", "mm_ns_discount"], "--param: expected KEY=VALUE"),
    (["--depth", "3", "--param", "mm_ns_discount=2"], "mm_ns_discount must be at most 1"),
    (["--depth", "3", "--budgets", "2"], "--budgets: 2 is not a fraction"),
    (["--depth", "0"], "--depth must be a positive integer"),
    ([], "expected a config|give one CONFIG"),
    (["--depth", "3", "--stop", "model,elbow"], "--stop: unknown stopping rule 'elbow'"),
    (["--depth", "3", "--stop", "conformall"], "--stop: unknown stopping rule 'conformall'.*"
                                                "did you mean 'conformal'"),
    (["--depth", "3", "--strategy", "cal"], "--strategy cal reads the passages' text: give "
                                            "--corpus"),
    (["--depth", "3", "--strategy", "judge", "--machine", "absent.qrels"], "absent.qrels"),
])
def test_bad_input_is_one_line_and_exit_2(files, capsys, argv, message):
    qrels, runs = files
    args = ["simulate", "--qrels", str(qrels)]
    args += [*map(str, runs), *argv] if argv else [*map(str, runs)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    import re

    assert re.search(message, err), err


def test_simulate_is_imported_only_when_asked():
    import subprocess
    import sys

    code = ("import sys; from poolkit.cli import main; main(['score', '--help']) "
            "if False else None; import poolkit.cli; print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False"


def test_budget_to_target_share_is_the_fixed_budget_that_brings_90_percent_to_target():
    """Ten queries of 10 passages: query i's last relevant passage at judgment i + 1 under
    docid order, so the fraction each needs is (i + 1) / 10; 90% of them (9) need at most
    0.9, and 0.9 of every pool is 90 judgments. A query with nothing relevant needs 0."""
    pools, grades = {}, {}
    for i in range(10):
        docs = [f"q{i}d{k}" for k in range(10)]
        pools[f"q{i}"] = pool_from_ranks(f"q{i}", {"r": {d: k + 1 for k, d in enumerate(docs)}},
                                         docs=tuple(docs))
        grades[f"q{i}"] = {docs[0]: 1, docs[i]: 1}
    run = Run.from_mapping({q: list(p.docs) for q, p in pools.items()}, name="r")
    doc = simulate(pools, Qrels.from_mapping(grades, name="g"),
                   {"docid": order_strategy("docid")}, [("1", 1.0)], {"r": run},
                   tau=kendall_tau, measures=["P@5"])
    assert doc["strategies"]["docid"]["budget_to_target_share"] == {
        "share": 0.9, "fraction": 0.9, "judged": 90, "judged_share": 0.9}
    grades["q9"] = {}                                   # nothing to find: needs nothing
    doc = simulate(pools, Qrels.from_mapping(grades, name="g"),
                   {"docid": order_strategy("docid")}, [("1", 1.0)], {"r": run},
                   tau=kendall_tau, measures=["P@5"])
    assert doc["strategies"]["docid"]["budget_to_target_share"]["fraction"] == 0.8
