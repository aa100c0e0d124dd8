"""score at scale (issue 22, item 23): a small run against labels for very many queries costs
per query of the run, plus a look-up per query the run lacks; values and order unchanged;
a progress bar counts the queries. Work is counted (measure computations), not timed."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

import poolkit.progress as progress
from poolkit.cli import main
from poolkit.io import Qrels, read_qrels, read_run
from poolkit.score.evaluate import evaluate
from poolkit.score.measures import Measure, parse_measure

MEASURES = ["P@5", "R@10", "RR", "AP", "nDCG@10", "Judged@10", "Hit@3", "P(rel=2)@5",
            "nDCG(gain=exp)@10", "R"]


def _files(tmp_path: Path, queries: int, seed: int = 4) -> tuple[Path, Path]:
    rng = random.Random(seed)
    qrels_lines, run_lines = [], []
    for q in range(queries):
        for d in rng.sample(range(60), rng.randrange(1, 5)):
            qrels_lines.append(f"q{q} 0 d{d} {rng.choice((-1, 0, 0, 1, 2, 3))}\n")
    for q in range(0, queries, max(1, queries // 10)):
        for r in range(20):
            run_lines.append(f"q{q} Q0 d{rng.randrange(60)} {r + 1} {20 - r} t\n")
    run_lines.append("unknown Q0 d1 1 1 t\n")
    (tmp_path / "q.qrels").write_text("".join(qrels_lines))
    (tmp_path / "r.run").write_text("".join(run_lines))
    return tmp_path / "q.qrels", tmp_path / "r.run"


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("as_columns", [True, False])
def test_values_of_queries_the_run_lacks_are_each_querys_own(
        tmp_path: Path, level: int, as_columns: bool) -> None:
    qrels_path, run_path = _files(tmp_path, 400)
    qrels = read_qrels(qrels_path)
    run = read_run(run_path)
    if not as_columns:
        run.rankings = dict(run.rankings)  # the list path
    measures = [parse_measure(m) for m in MEASURES]
    ev = evaluate(qrels, run, measures, level=level)
    scored = [q for q, docs in qrels.grades.items() if any(g >= level for g in docs.values())]
    assert ev.scored == scored
    assert ev.missing == [q for q in scored if not run.rankings.get(q)]
    for m in measures:
        want = {q: m.compute(run.rankings.get(q, []), qrels.grades[q], level) for q in scored}
        assert ev.per_query[m.name] == want
        assert list(ev.per_query[m.name]) == scored


def test_a_small_run_costs_per_run_query_not_per_labelled_query(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels_path, run_path = _files(tmp_path, 5000)
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    calls = [0]
    real = Measure.from_facts

    def counted(self: Measure, facts: object, level: int = 1) -> float:
        calls[0] += 1
        return real(self, facts, level)  # type: ignore[arg-type]

    monkeypatch.setattr(Measure, "from_facts", counted)
    measures = [parse_measure(m) for m in MEASURES]
    ev = evaluate(qrels, run, measures)
    signatures = {tuple(sorted(d.values())) for q, d in qrels.grades.items()
                  if q not in run.rankings}
    in_run = sum(1 for q in ev.scored if q in run.rankings)
    assert len(ev.scored) > 3000 and in_run <= 10
    assert calls[0] <= (in_run + len(signatures)) * len(measures)


def test_a_sample_design_still_weighs_each_query_the_run_lacks(tmp_path: Path) -> None:
    from poolkit.score.inferred import PoolSample

    qrels = Qrels.from_mapping({"q1": {"a": 1, "b": -1}, "q2": {"a": 1, "b": -1},
                                "q3": {"a": 1}})
    run = read_run(_one_line(tmp_path))
    design = {"q1": PoolSample({"a": "s", "b": "s"}, {"a": 0.5, "b": 0.5}),
              "q2": PoolSample({"a": "s", "b": "t"}, {"a": 1.0, "b": 0.25})}
    m = [parse_measure("xinfAP"), parse_measure("AP")]
    ev = evaluate(qrels, run, m, sample=design)
    for measure in m:
        for q in ("q1", "q2", "q3"):
            single = evaluate(Qrels.from_mapping({q: qrels.grades[q]}), run, [measure],
                              sample={q: design[q]} if q in design else None)
            assert ev.per_query[measure.name][q] == single.per_query[measure.name][q]


def _one_line(tmp_path: Path) -> Path:
    path = tmp_path / "one.run"
    path.write_text("q9 Q0 a 1 1 t\n")
    return path


def test_score_shows_a_bar_over_the_queries_on_a_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path, run_path = _files(tmp_path, 9000)
    err = io.StringIO()
    monkeypatch.setattr(progress, "_is_terminal", lambda stream: True)
    monkeypatch.setattr(progress.sys, "stderr", err)
    assert main(["score", str(qrels_path), str(run_path), str(run_path), "--format",
                 "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    scored = doc["runs"][0]["queries"]["scored"]
    lines = [line.strip() for line in err.getvalue().split("\r") if line.strip()]
    assert any(f"/{2 * scored:,} queries" in line for line in lines), lines[:3]
    assert f"{2 * scored:,}/{2 * scored:,} queries" in lines[-1] and "done in" in lines[-1]
    # the bar moved through the queries of the first run, not only at each run's end
    assert any(f"4,096/{2 * scored:,}" in line for line in lines)
