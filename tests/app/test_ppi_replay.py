"""ppi-replay: the truth is `poolkit score`'s, both designs report every figure (schema),
a machine equal to the truth is exact in the pair design, bad input is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from strict_json import report_json

from poolkit.app.ppi_replay import PPIReplayRequest, ppi_replay
from poolkit.app.score import ScoreRequest, score_runs
from poolkit.cli import main
from poolkit.schemas import load_schema


def _write(folder: Path, seed: int = 3, noise: float = 0.4) -> tuple[Path, Path, list[Path]]:
    """24 queries of 30 judged docs, a noisy machine, three runs of 25 docs."""
    rng = np.random.default_rng(seed)
    truth, machine = [], []
    for q in range(24):
        for d in range(30):
            g = int(rng.choice(4, p=[0.5, 0.2, 0.2, 0.1]))
            truth.append(f"q{q} 0 d{d} {g}")
            m = g if rng.random() > noise else int(rng.integers(0, 4))
            machine.append(f"q{q} 0 d{d} {m}")
    (folder / "full.qrels").write_text("\n".join(truth) + "\n")
    (folder / "machine.qrels").write_text("\n".join(machine) + "\n")
    runs = []
    for name in ("a", "b", "c"):
        lines = [f"q{q} Q0 d{d} {i + 1} {100 - i} {name}" for q in range(24)
                 for i, d in enumerate(rng.permutation(40)[:25])]
        path = folder / f"{name}.run"
        path.write_text("\n".join(lines) + "\n")
        runs.append(path)
    return folder / "full.qrels", folder / "machine.qrels", runs


def test_the_truth_is_what_poolkit_score_gives(tmp_path: Path) -> None:
    full, machine, runs = _write(tmp_path)
    report = ppi_replay(PPIReplayRequest(full, machine, runs, n="5", seeds=5))
    scored = score_runs(ScoreRequest(full, runs, measures=["nDCG@10", "AP"], level=2)).means()
    for r in report.results:
        for name, v in r["runs"].items():
            assert v["truth"] == pytest.approx(scored[name][r["measure"]], abs=1e-12)


@pytest.mark.parametrize("design", ["queries", "pairs", "active", "strat"])
def test_json_validates_and_has_every_figure(tmp_path: Path, design: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    full, machine, runs = _write(tmp_path)
    code = main(["ppi-replay", "--qrels", str(full), "--machine", str(machine),
                 *map(str, runs), "--n", "5,10", "--seeds", "8", "--design", design,
                 "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    jsonschema.validate(doc, load_schema("ppi-replay"), cls=jsonschema.Draft202012Validator)
    assert [(r["n"], r["measure"]) for r in doc["results"]] == [
        (5, "nDCG@10"), (5, "AP"), (10, "nDCG@10"), (10, "AP")]
    assert doc["results"][0]["pairs"]["of"] == 3
    main(["ppi-replay", "--qrels", str(full), "--machine", str(machine), *map(str, runs),
          "--n", "5", "--seeds", "4", "--design", design])
    assert "| nDCG@10 | 5 |" in capsys.readouterr().out


def test_calibrate_reports_every_figure_and_says_so(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    full, machine, runs = _write(tmp_path)
    code = main(["ppi-replay", "--qrels", str(full), "--machine", str(machine),
                 *map(str, runs), "--n", "5", "--seeds", "6", "--calibrate", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["calibrate"] is True
    jsonschema.validate(doc, load_schema("ppi-replay"), cls=jsonschema.Draft202012Validator)
    plain = ppi_replay(PPIReplayRequest(full, machine, runs, n="5", seeds=6))
    # the human-only side does not read the machine: the same draws, the same figures
    for r, p in zip(doc["results"], plain.results):
        assert r["summary"]["human_width"] == pytest.approx(p["summary"]["human_width"])
        assert r["pairs"]["human_width"] == pytest.approx(p["pairs"]["human_width"])
    main(["ppi-replay", "--qrels", str(full), "--machine", str(machine), *map(str, runs),
          "--n", "5", "--seeds", "2", "--calibrate"])
    assert "machine grades recalibrated (cross-fitted)" in capsys.readouterr().out


def test_lambda_max_moves_only_the_tuned_lambdas_upper_clip(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--lambda-max 1 is the default's replay to the bit; --lambda-max 2 (with and without
    --calibrate) validates, says its bound in the JSON and the table, and draws the same
    human queries (the human-only figures unchanged)."""
    full, machine, runs = _write(tmp_path)
    base = ppi_replay(PPIReplayRequest(full, machine, runs, n="5", seeds=6))
    assert base.lambda_max == 1.0
    assert ppi_replay(PPIReplayRequest(full, machine, runs, n="5", seeds=6,
                                       lambda_max=1.0)).results == base.results
    for extra in ([], ["--calibrate"]):
        code = main(["ppi-replay", "--qrels", str(full), "--machine", str(machine),
                     *map(str, runs), "--n", "5", "--seeds", "6", "--lambda-max", "2",
                     *extra, "--format", "json"])
        doc = json.loads(capsys.readouterr().out)
        assert code == 0 and doc["lambda_max"] == 2.0
        jsonschema.validate(doc, load_schema("ppi-replay"), cls=jsonschema.Draft202012Validator)
        for r, p in zip(doc["results"], base.results):
            assert r["summary"]["human_width"] == pytest.approx(p["summary"]["human_width"])
            assert r["pairs"]["human_width"] == pytest.approx(p["pairs"]["human_width"])
    main(["ppi-replay", "--qrels", str(full), "--machine", str(machine), *map(str, runs),
          "--n", "5", "--seeds", "2", "--lambda-max", "2"])
    assert "tuned lambda in [0, 2]" in capsys.readouterr().out


@pytest.mark.parametrize("design", ["pairs", "active", "strat"])
def test_a_machine_equal_to_the_truth_is_exact_in_the_pair_designs(tmp_path: Path,
                                                                   design: str) -> None:
    full, _, runs = _write(tmp_path)
    report = ppi_replay(PPIReplayRequest(full, full, runs, n="5", seeds=6, design=design))
    for r in report.results:
        assert r["summary"]["max_abs_bias"] < 1e-12
        assert r["summary"]["width"] < 1e-9
        assert r["summary"]["tau"]["estimate"] == 1.0


def test_the_pair_design_spends_the_query_designs_judgments(tmp_path: Path) -> None:
    full, machine, runs = _write(tmp_path)
    q = ppi_replay(PPIReplayRequest(full, machine, runs, n="20", seeds=5, measures="AP"))
    p = ppi_replay(PPIReplayRequest(full, machine, runs, n="20", seeds=5, measures="AP",
                                    design="pairs"))
    assert q.results[0]["judgments"] == 20 * 30 == p.results[0]["judgments"]
    for design in ("active", "strat"):  # both rounds together: the same judgments, but
        # for round 2's floor (two pairs a stratum still unjudged), a few more on these small
        # 30-pair queries (none on DL19: docs/results/ppi.md)
        two = ppi_replay(PPIReplayRequest(full, machine, runs, n="20", seeds=3, measures="AP",
                                          design=design))
        assert 20 * 30 <= two.results[0]["judgments"] <= 20 * 30 * 1.01


@pytest.mark.parametrize(("args", "message"), [
    (["--n", "1"], "--n '1': an interval needs at least 2 human queries"),
    (["--n", "5,x"], "--n '5,x': expected integers like 5,10,20"),
    (["--n", "30"], "--n 30: the truth scores only 24 queries"),
    (["--design", "pairs", "-m", "P@10"], "-m P@10: the pair design estimates nDCG@K"),
    (["--seeds", "0"], "--seeds"),
    (["--calibrate", "-m", "P@10"], "-m P@10: --calibrate recalibrates nDCG@K"),
    (["--calibrate", "--design", "pairs"], "--calibrate: the pair design already corrects"),
    (["--lambda-max", "-1"], "--lambda-max -1.0: the tuned lambda's upper bound must be a "
                             "finite number >= 0"),
    (["--lambda-max", "nan"], "--lambda-max nan: the tuned lambda's upper bound"),
    (["--lambda-max", "2", "--design", "pairs"], "--lambda-max: the pair design tunes no "
                                                 "lambda"),
    (["--design", "active", "-m", "P@10"], "-m P@10: the active design estimates nDCG@K"),
    (["--calibrate", "--design", "strat"], "--calibrate: the strat design already corrects"),
    (["--lambda-max", "2", "--design", "active"], "--lambda-max: the active design tunes no"),
])
def test_bad_options_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            args: list[str], message: str) -> None:
    full, machine, runs = _write(tmp_path)
    code = main(["ppi-replay", "--qrels", str(full), "--machine", str(machine),
                 *map(str, runs), "--seeds", "2", *args])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err


def test_an_unknown_design_is_refused_by_the_verb(tmp_path: Path) -> None:
    from poolkit.errors import PoolkitError

    full, machine, runs = _write(tmp_path)
    with pytest.raises(PoolkitError, match="--design.*'rows'"):
        ppi_replay(PPIReplayRequest(full, machine, runs, design="rows"))


def test_a_bad_qrels_line_names_file_and_line_and_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full, machine, runs = _write(tmp_path)
    machine.write_text(machine.read_text() + "q1 0 d1 high\n")
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    code = main(["ppi-replay", "--qrels", str(full), "--machine", str(machine),
                 *map(str, runs)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1
    assert f"{machine}:721" in err
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_queries_the_machine_never_labelled_are_said(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The machine's file lacks q0-q2: they score 0 under it, which the replay says on a
    line of its own (and in the JSON) in both designs; files unchanged."""
    full, machine, runs = _write(tmp_path)
    machine.write_text("".join(line + "\n" for line in machine.read_text().splitlines()
                               if line.split()[0] not in ("q0", "q1", "q2")))
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    said = ("warning: 3 of the 24 queries the truth scores have no machine label (q0, q1, "
            "q2): the machine's value there is 0, in its machine-only figures and as the "
            "prediction the estimate corrects")
    for design in ("queries", "pairs"):
        code = main(["ppi-replay", "--qrels", str(full), "--machine", str(machine),
                     *map(str, runs), "--n", "5", "--seeds", "2", "--design", design,
                     "--format", "json"])
        out, err = capsys.readouterr()
        doc = report_json(out, "ppi-replay")
        assert code == 0 and err.splitlines() == [said] and doc["warnings"] == [said]
        code = main(["ppi-replay", "--qrels", str(full), "--machine", str(machine),
                     *map(str, runs), "--n", "5", "--seeds", "2", "--design", design])
        out, err = capsys.readouterr()
        assert code == 0 and err.splitlines() == [said] and "| nDCG@10 | 5 |" in out
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert ppi_replay(PPIReplayRequest(full, full, runs, n="5", seeds=2)).warnings == []


def test_the_pair_design_says_its_n_is_a_budget_not_the_queries_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--n 5 in the pair design is five queries' worth of judgments spread over all 24
    queries: the table's n column and design line say so, the JSON's human_queries says 24
    (the query design's: 5)."""
    full, machine, runs = _write(tmp_path)
    for design, human_queries in (("queries", 5), ("pairs", 24)):
        assert main(["ppi-replay", "--qrels", str(full), "--machine", str(machine),
                     *map(str, runs), "--n", "5", "--seeds", "2", "--design", design,
                     "--format", "json"]) == 0
        doc = report_json(capsys.readouterr().out, "ppi-replay")
        assert [(r["n"], r["human_queries"]) for r in doc["results"]] == [(5, human_queries)] * 2
    assert main(["ppi-replay", "--qrels", str(full), "--machine", str(machine),
                 *map(str, runs), "--n", "5", "--seeds", "2", "--design", "pairs"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Design: pairs (n: a budget of n whole queries' worth of pairs, "
                             "spread over all 24 queries; judgments: the pairs drawn); ")
    assert out[2].startswith("| measure | n (queries' worth) | judgments |")
    assert main(["ppi-replay", "--qrels", str(full), "--machine", str(machine),
                 *map(str, runs), "--n", "5", "--seeds", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[2].startswith("| measure | n | judgments |")
