"""``poolkit estimate``'s file form: PPI++ on ``score``'s per-query values, the pairs with
their adjusted p-values, the orderings' taus, the judge's agreement and the honesty lines;
bad input is one stderr line, exit 2, every file unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from shared_data import SAMPLE, shared_path
from strict_json import report_json

from poolkit.app.estimate import EstimateRequest, estimate
from poolkit.app.score import ScoreRequest, score_runs
from poolkit.cli import main
from poolkit.schemas import load_schema
from poolkit.score.ppi import ppi_mean
from poolkit.score.significance import CORRECTIONS

DL19 = ("collections", "dl19-passage-pool")


def first_queries(qrels: Path, n: int, out: Path) -> Path:
    """The qrels of ``qrels``'s first ``n`` queries (sorted ids): people judged only those."""
    lines = qrels.read_text().splitlines()
    keep = sorted({line.split()[0] for line in lines})[:n]
    out.write_text("".join(f"{line}\n" for line in lines if line.split()[0] in keep))
    return out


@pytest.fixture(scope="module")
def dl19(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = shared_path(*DL19)
    human = first_queries(root / "qrels.txt", 10, tmp_path_factory.mktemp("est") / "h.qrels")
    return {"machine": root / "judges" / "llama-3.3-70b.4prompts.qrels", "human": human,
            "nist": root / "qrels.txt", "runs": sorted((root / "runs").glob("*.run"))}


def run_json(capsys: pytest.CaptureFixture[str], *args: object) -> dict:
    assert main([str(a) for a in args]) == 0
    return json.loads(capsys.readouterr().out)


def test_dl19_file_form_is_ppi_on_scores_per_query_values(dl19, capsys):
    doc = run_json(capsys, "estimate", "--machine", dl19["machine"], "--human", dl19["human"],
                   *dl19["runs"], "-m", "nDCG@10,AP", "--level", "2", "--format", "json")
    jsonschema.validate(doc, load_schema("estimate"), cls=jsonschema.Draft202012Validator)
    assert doc["queries"]["N"] == 43 and doc["queries"]["n"] == 10
    # per-query values are score's own: recompute the estimate from `score`'s JSON
    per: dict[str, dict] = {}
    for side in ("machine", "human"):
        rep = score_runs(ScoreRequest(dl19[side], dl19["runs"], measures=["nDCG@10", "AP"],
                                      level=2)).to_dict()
        per[side] = {r["name"]: r["measures"]["nDCG@10"]["per_query"] for r in rep["runs"]}
    name = "bm25.run"
    ours = doc["runs"][name]["measures"]["nDCG@10"]
    mq, hq = per["machine"][name], per["human"][name]
    human_q = doc["queries"]["human"]
    assert sorted(human_q) == sorted(hq)
    est = ppi_mean([mq[q] for q in mq], [hq[q] for q in human_q], [mq[q] for q in human_q])
    assert ours["estimate"] == pytest.approx(est.estimate, abs=1e-12)
    assert ours["lambda"] == pytest.approx(est.lam, abs=1e-12)
    assert ours["machine"] == pytest.approx(np.mean(list(mq.values())), abs=1e-12)
    assert ours["human"] == pytest.approx(np.mean([hq[q] for q in human_q]), abs=1e-12)
    for entry in (e for r in doc["runs"].values() for e in r["measures"].values()):
        assert entry["low"] <= entry["estimate"] <= entry["high"] and 0 <= entry["lambda"] <= 1
        assert entry["interval"] == "t"  # n = 10 < 30: the small-sample interval
    # p adjusted by Holm over every pair and measure, as score adjusts
    found = [(k, m, e) for k, d in doc["pairs"].items() for m, e in d.items()]
    assert len(found) == 15 * 2
    holm = CORRECTIONS["holm"]([e["p"] for _k, _m, e in found])
    assert [e["p_adjusted"] for _k, _m, e in found] == pytest.approx(list(holm))
    assert set(doc["tau"]["AP"]) == {"estimate|machine", "estimate|human", "machine|human"}
    a = doc["agreement"]
    assert a["shared"] == sum(sum(row) for row in a["confusion"]["counts"])
    assert a["verdict"]["unweighted"] == "too noisy"  # NOTES.md: kappa 0.17 on all queries
    assert any("not drawn by poolkit's sampler" in n for n in doc["notes"])


def test_the_table_says_each_thing_on_its_own_line(dl19, capsys):
    assert main(["estimate", "--machine", str(dl19["machine"]), "--human", str(dl19["human"]),
                 *map(str, dl19["runs"][:2]), "-m", "nDCG@10", "--correction", "bh",
                 "--verbose"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("note: the human queries were not drawn by poolkit's sampler")
    assert any(line.strip().startswith("bm25-rm3.run - bm25.run") for line in out)
    assert any("p bh" in line for line in out)
    assert any(line.startswith("the judge against the people on") for line in out)


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


MACHINE = "".join(f"q{q} 0 d{d} {(q + d) % 4}\n" for q in range(1, 7) for d in range(1, 6))
RUN_A = "".join(f"q{q} Q0 d{d} {d} {10 - d} a\n" for q in range(1, 7) for d in range(1, 6))
RUN_B = "".join(f"q{q} Q0 d{d} {6 - d} {d} b\n" for q in range(1, 7) for d in range(1, 6))
HUMAN = "".join(f"q{q} 0 d{d} {(q * d) % 4}\n" for q in (1, 2, 3, 4) for d in range(1, 6))


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return {"machine": write(tmp_path / "m.qrels", MACHINE),
            "human": write(tmp_path / "h.qrels", HUMAN),
            "a": write(tmp_path / "a.run", RUN_A), "b": write(tmp_path / "b.run", RUN_B)}


def test_a_human_query_without_machine_labels_is_left_out_and_said(files):
    files["human"].write_text(HUMAN + "q9 0 d1 3\nq9 0 d2 0\n")
    report = estimate(EstimateRequest(files["machine"], files["human"],
                                      [files["a"], files["b"]], measures=["P@3"]))
    # q4's human grades are all 0: excluded as score excludes it, and said too
    assert report.queries["left_out"] == ["q9"] and report.queries["n"] == 3
    assert any("1 human query has no grade >= 1: excluded" in n for n in report.notes)
    said = [n for n in report.notes if "no machine label" in n]
    assert len(said) == 1 and "q9" in said[0] and "left out" in said[0]


def test_a_machine_equal_to_the_humans_on_every_query_gives_the_human_mean(files):
    """The machine labels exactly the people's queries with the people's grades: whatever
    lambda, the estimate is the human mean (the correction cancels the machine exactly)."""
    files["machine"].write_text(HUMAN)
    report = estimate(EstimateRequest(files["machine"], files["human"],
                                      [files["a"], files["b"]], measures=["nDCG@3"]))
    e = report.runs["a.run"]["measures"]["nDCG@3"]
    assert e["machine"] == pytest.approx(e["human"]) == pytest.approx(e["estimate"])


def digest(paths: list[Path]) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.mark.parametrize("human, message", [
    ("q7 0 d1 2\nq8 0 d2 1\n", "h.qrels:1: no query of the human labels is in the machine"),
    ("q1 0 d1 2\nq1 0 d2 7\n", "h.qrels:2: grade 7 for query 'q1' doc 'd2'"),
    ("q1 0 d1 2\nq1 0 d2\n", "h.qrels:2:"),
])
def test_bad_human_labels_are_one_line_exit_2_files_unchanged(files, capsys, human, message):
    files["human"].write_text(human)
    before = digest(list(files.values()))
    code = main(["estimate", "--machine", str(files["machine"]), "--human",
                 str(files["human"]), str(files["a"]), str(files["b"])])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err
    assert err.startswith("poolkit estimate: error: ")
    assert digest(list(files.values())) == before
    assert sorted(p.name for p in files["a"].parent.iterdir()) == ["a.run", "b.run", "h.qrels",
                                                                   "m.qrels"]


def test_one_human_query_is_too_few_and_says_so(files, capsys):
    files["human"].write_text("q1 0 d1 2\nq1 0 d2 0\n")
    assert main(["estimate", "--machine", str(files["machine"]), "--human",
                 str(files["human"]), str(files["a"])]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "an estimate needs at least 2" in err


def test_the_sample_file_form_validates(capsys):
    truth = SAMPLE / "golden.yaml"
    doc = run_json(capsys, "estimate", "--machine", SAMPLE / "llm_judge.qrels", "--human",
                   truth, SAMPLE / "seed.run", "--format", "json")
    jsonschema.validate(doc, load_schema("estimate"), cls=jsonschema.Draft202012Validator)
    assert doc["pairs"] == {}


def test_the_readme_example_prints_the_readmes_figures(dl19, capsys):
    """docs/how-to/estimates.md (the README's "Estimates with a human error bar" once): the
    command's table is the page's."""
    from shared_data import REPO

    assert main(["estimate", "--machine", str(dl19["machine"]), "--human", str(dl19["human"]),
                 *map(str, dl19["runs"]), "-m", "nDCG@10", "--level", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    readme = (REPO / "docs" / "how-to" / "estimates.md").read_text()
    pairs = next(i for i, line in enumerate(out) if line.startswith("  pairs: "))
    for line in out[:pairs]:  # the notes, the queries line, the runs' table
        assert line in readme, line
    said = " ".join(" ".join(out).split())  # a sentence wrapped at 80 columns, rejoined
    assert ("estimate vs machine 0.33, estimate vs human 0.47, machine vs human 0.87" in said
            and "on 1091 pairs both graded: Cohen's kappa 0.07 [0.04, 0.10] (too noisy), "
                "binary at level 2 0.31 [0.27, 0.35] (too noisy)" in said)
    assert main(["estimate", "--machine", str(dl19["machine"]), "--human", str(dl19["nist"]),
                 *map(str, dl19["runs"]), "-m", "nDCG@10", "--level", "2",
                 "--format", "json"]) == 0
    truth = json.loads(capsys.readouterr().out)["runs"]
    assert [round(truth[r]["measures"]["nDCG@10"]["human"], 3)
            for r in ("bm25.run", "tasb.run", "repllama.run")] == [0.507, 0.724, 0.741]


def test_calibrate_is_ppi_on_the_cross_fitted_values(dl19, capsys):
    """--calibrate: the estimate is ppi_mean on ppi_calibrate's values (the path ppi-replay
    replays); the machine column stays the raw grades' mean, and a line says so."""
    from poolkit.io import read_any_run, read_labels
    from poolkit.score.measures import parse_measure
    from poolkit.score.ppi_calibrate import calibrated

    args = ["estimate", "--machine", dl19["machine"], "--human", dl19["human"], *dl19["runs"],
            "-m", "AP", "--level", "2", "--format", "json"]
    plain = run_json(capsys, *args)
    doc = run_json(capsys, *args, "--calibrate")
    jsonschema.validate(doc, load_schema("estimate"), cls=jsonschema.Draft202012Validator)
    assert doc["calibrate"] is True and plain["calibrate"] is False
    assert any("recalibrated to the people's, cross-fitted on the 10" in n
               for n in doc["notes"])
    machine, human = read_labels(dl19["machine"]), read_labels(dl19["human"])
    runs = [read_any_run(p) for p in dl19["runs"]]
    every = sorted(machine.grades)  # the 43 queries, each with a machine grade >= 2
    assert doc["queries"]["N"] == len(every)
    used = doc["queries"]["human"]
    sample = np.array([every.index(q) for q in used])
    soft, cal = calibrated(parse_measure("AP"), [r.rankings for r in runs], machine.grades,
                           human.grades, every, 2)
    values = cal.cross_fit(soft, sample)
    names = [p.name for p in dl19["runs"]]
    for i, name in enumerate(names):
        ours, raw = doc["runs"][name]["measures"]["AP"], plain["runs"][name]["measures"]["AP"]
        assert ours["human"] == pytest.approx(raw["human"], abs=1e-12)
        assert ours["machine"] == pytest.approx(raw["machine"], abs=1e-12)
        est = ppi_mean(values[i], _per_query(dl19["human"], dl19["runs"][i], used),
                       values[i][sample])
        assert ours["estimate"] == pytest.approx(est.estimate, abs=1e-12)
        assert ours["high"] - ours["low"] == pytest.approx(est.width, abs=1e-12)
    pair = doc["pairs"][f"{names[0]}|{names[1]}"]["AP"]
    assert pair["machine"] == pytest.approx(
        plain["pairs"][f"{names[0]}|{names[1]}"]["AP"]["machine"], abs=1e-12)


def _per_query(qrels: Path, run: Path, queries: list[str]) -> list[float]:
    rep = score_runs(ScoreRequest(qrels, [run], measures=["AP"], level=2)).to_dict()
    per = rep["runs"][0]["measures"]["AP"]["per_query"]
    return [per[q] for q in queries]


def test_calibrate_with_a_machine_equal_to_the_humans_gives_the_human_mean(files):
    files["machine"].write_text(HUMAN)
    report = estimate(EstimateRequest(files["machine"], files["human"],
                                      [files["a"], files["b"]], measures=["nDCG@3", "AP"],
                                      calibrate=True))
    for m in ("nDCG@3", "AP"):
        e = report.runs["a.run"]["measures"][m]
        assert e["estimate"] == pytest.approx(e["human"], abs=1e-12)


def test_calibrate_says_a_draw_with_unequal_inclusion_may_bias_it(files):
    from poolkit.app.estimate import Design, estimate_labels
    from poolkit.io import read_any_run, read_labels
    from poolkit.score.measures import parse_measure

    runs = [read_any_run(files["a"]), read_any_run(files["b"])]
    labels = read_labels(files["machine"]), read_labels(files["human"])
    for inclusion, said in (({"q1": 0.5, "q2": 0.5, "q3": 0.5}, False),
                            ({"q1": 0.5, "q2": 0.25, "q3": 0.5}, True)):
        report = estimate_labels(*labels, runs, [parse_measure("AP")], calibrate=True,
                                 design=Design(inclusion, "drawn"))
        assert any("may carry a small bias" in n for n in report.notes) is said


def test_calibrate_refuses_a_measure_without_a_soft_form(files, capsys):
    before = digest(list(files.values()))
    code = main(["estimate", "--machine", str(files["machine"]), "--human",
                 str(files["human"]), str(files["a"]), "-m", "nDCG@3,P@3", "--calibrate"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.splitlines() == ["poolkit estimate: error: -m P@3: --calibrate recalibrates "
                                "nDCG@K (linear gain) and AP only"]
    assert digest(list(files.values())) == before


def test_lambda_max_is_ppi_mean_with_that_clip(dl19, capsys):
    """--lambda-max 2 (with --calibrate, as ppi-replay's README command): every run's and
    pair's estimate is ppi_mean with lam_max 2 on the values --calibrate alone uses, a
    lambda above 1 where the people's slope on them is; the JSON and a note say the bound;
    the default is 1 (ppi-python's clip)."""
    args = ["estimate", "--machine", dl19["machine"], "--human", dl19["human"], *dl19["runs"],
            "-m", "AP", "--level", "2", "--calibrate", "--format", "json"]
    base = run_json(capsys, *args)
    doc = run_json(capsys, *args, "--lambda-max", "2")
    jsonschema.validate(doc, load_schema("estimate"), cls=jsonschema.Draft202012Validator)
    assert base["lambda_max"] == 1.0 and doc["lambda_max"] == 2.0
    assert any("tuned lambda in [0, 2]" in n for n in doc["notes"])
    assert not any("tuned lambda in" in n for n in base["notes"])
    lams = []
    for kind in ("runs", "pairs"):
        for key, by_measure in doc[kind].items():
            ours = by_measure["measures"]["AP"] if kind == "runs" else by_measure["AP"]
            old = (base[kind][key]["measures"]["AP"] if kind == "runs"
                   else base[kind][key]["AP"])
            assert 0.0 <= ours["lambda"] <= 2.0 and 0.0 <= old["lambda"] <= 1.0
            assert ours["human"] == pytest.approx(old["human"], abs=1e-12)
            if ours["lambda"] <= 1.0:  # the clip did not bind: the same estimate
                assert ours["estimate"] == pytest.approx(old["estimate"], abs=1e-12)
            lams.append(ours["lambda"])
    assert max(lams) > 1.0


@pytest.mark.parametrize("value, message", [
    ("-1", "--lambda-max -1.0: the tuned lambda's upper bound must be a finite number >= 0"),
    ("inf", "--lambda-max inf: the tuned lambda's upper bound must be a finite number >= 0"),
])
def test_a_bad_lambda_max_is_one_line_exit_2_files_unchanged(files, capsys, value, message):
    before = digest(list(files.values()))
    code = main(["estimate", "--machine", str(files["machine"]), "--human",
                 str(files["human"]), str(files["a"]), "--lambda-max", value])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.splitlines() == [f"poolkit estimate: error: {message}"]
    assert digest(list(files.values())) == before


# --- figures surer than they are: each said on a line of its own (issue 43, theme 5) -------

def estimate_cli(files: dict[str, Path], capsys: pytest.CaptureFixture[str],
                 *extra: str, measure: str = "P@3") -> tuple[int, str, list[str]]:
    """``poolkit estimate`` on the file fixture's labels and both runs: the exit code, stdout
    and stderr's lines; every file byte-identical after."""
    before = digest(list(files.values()))
    code = main(["estimate", "--machine", str(files["machine"]), "--human",
                 str(files["human"]), str(files["a"]), str(files["b"]), "-m", measure, *extra])
    out, err = capsys.readouterr()
    assert digest(list(files.values())) == before
    return code, out, err.splitlines()


def said_once(files: dict[str, Path], capsys: pytest.CaptureFixture[str],
              line: str) -> tuple[str, dict]:
    """The table and the strict, schema-valid JSON, each exit 0 with ``line`` the one line on
    stderr (and the JSON's one warning)."""
    code, table, err = estimate_cli(files, capsys)
    assert code == 0 and err == [line]
    code, out, err = estimate_cli(files, capsys, "--format", "json")
    doc = report_json(out, "estimate")
    assert code == 0 and err == [line] and doc["warnings"] == [line]
    return table, doc


def entries(doc: dict, measure: str = "P@3") -> dict[str, dict]:
    """Every run's and pair's entry of ``measure``, by run name or ``A - B``."""
    out = {name: r["measures"][measure] for name, r in doc["runs"].items()}
    out.update({key.replace("|", " - "): d[measure] for key, d in doc["pairs"].items()})
    return out


ZERO_WIDTH = ("warning: interval width 0 from 4 human queries with identical scores (a.run "
              "P@3, b.run P@3, a.run - b.run P@3): not a measure of certainty")


def test_a_zero_width_interval_from_identical_human_scores_is_said(files, capsys):
    """Four human queries with every passage relevant: P@3 is 1 on each for both runs, the
    sample variance 0 and the interval the point. Printed as computed (ppi-python's too),
    with a line that width 0 is not certainty, and ``zero_width`` in the JSON."""
    files["human"].write_text("".join(f"q{q} 0 d{d} 2\n" for q in (1, 2, 3, 4)
                                      for d in range(1, 6)))
    table, doc = said_once(files, capsys, ZERO_WIDTH)
    assert "a.run    0.722        1.000     1.000  [1.000, 1.000]" in table
    assert {k: (e["low"], e["high"], e["zero_width"]) for k, e in entries(doc).items()} == {
        "a.run": (1.0, 1.0, True), "b.run": (1.0, 1.0, True),
        "a.run - b.run": (0.0, 0.0, True)}


BEYOND = ("warning: 2 intervals reach beyond the values the measure can take (a.run P@3 "
          "[-0.182, 0.349], b.run P@3 [-0.002, 0.511]): printed as computed (estimate +- "
          "quantile x se); a mean lies in [0, 1], a difference in [-1, 1]")


def test_an_interval_beyond_the_measures_range_is_said(files, capsys):
    """P@3 near 0 on four queries: the t interval reaches below 0, which P@3 cannot; it is
    printed as computed (clipping would leave an estimate outside its own interval when PPI
    corrects below 0), one line names every such interval, ``beyond_range`` marks each."""
    files["human"].write_text("q1 0 d1 2\nq1 0 d2 0\nq2 0 d5 1\nq2 0 d1 0\nq3 0 d5 1\n"
                              "q3 0 d1 0\nq4 0 d5 1\nq4 0 d1 0\n")
    table, doc = said_once(files, capsys, BEYOND)
    assert "a.run    0.722        0.083     0.083  [-0.182, 0.349]" in table
    assert {k: e["beyond_range"] for k, e in entries(doc).items()} == {
        "a.run": True, "b.run": True, "a.run - b.run": False}
    assert not any(e["zero_width"] for e in entries(doc).values())


def test_an_undefined_kappa_is_null_in_strict_json_and_na_in_the_table(files, capsys):
    """Machine and people grade every shared pair 1: kappa has no chance disagreement to
    beat and is undefined. The JSON says null (NaN is not JSON), the table n/a and why."""
    files["machine"].write_text("".join(f"q{q} 0 d{d} {1 if q <= 3 else (q + d) % 4}\n"
                                        for q in range(1, 7) for d in range(1, 6)))
    files["human"].write_text("q1 0 d1 1\nq1 0 d2 1\nq3 0 d1 1\n"
                              + "".join(f"q2 0 d{d} 1\n" for d in range(1, 6)))
    code, out, err = estimate_cli(files, capsys, "--format", "json")
    assert code == 0 and "NaN" not in out
    doc = report_json(out, "estimate")
    assert doc["agreement"]["kappa"] == dict.fromkeys(
        ("unweighted", "linear", "quadratic", "binary"))
    assert doc["agreement"]["verdict"]["unweighted"] == "undecided"
    assert err == doc["warnings"] and len(err) == 1 and "3 intervals reach beyond" in err[0]
    code, out, _err = estimate_cli(files, capsys)
    assert code == 0
    said = " ".join(out.split())  # a sentence wrapped at 80 columns, rejoined
    assert ("on 8 pairs both graded: Cohen's kappa n/a, binary at level 1 n/a (n/a: both "
            "sides put every shared pair in one and the same class, so kappa is undefined); "
            "verdicts against the threshold 0.6") in said


def test_sure_figures_say_nothing(files, capsys):
    """The fixture's labels on nDCG@3: intervals inside [0, 1], none of width 0: no warning,
    an empty list in the JSON, every entry unflagged."""
    code, out, err = estimate_cli(files, capsys, "--format", "json", measure="nDCG@3")
    doc = report_json(out, "estimate")
    assert code == 0 and err == [] and doc["warnings"] == []
    assert not any(e["zero_width"] or e["beyond_range"]
                   for e in entries(doc, "nDCG@3").values())
    assert "unresolved" not in doc  # the file form has no policy


# --- --target-width: how many more human judgments the design expects (issue 41) ----------

def test_target_width_says_how_many_more_queries_and_judgments(dl19, capsys):
    """The JSON's target is the largest n' over runs and measures whose projected interval
    (machine term known, the rectifier's variance per query as now, t quantile below 30) is
    at most W wide; n' - 1 queries would leave that run's wider; judgments are the more
    queries times the mean pairs people judged a query; a note says it; a W every interval
    already meets needs 0 more; a W no number of the N queries reaches says so."""
    args = ["estimate", "--machine", dl19["machine"], "--human", dl19["human"], *dl19["runs"],
            "-m", "nDCG@10", "--level", "2", "--format", "json"]
    doc = run_json(capsys, *args, "--target-width", "0.2")
    jsonschema.validate(doc, load_schema("estimate"), cls=jsonschema.Draft202012Validator)
    t = doc["target"]
    assert t["n"] == 10 and t["N"] == 43 and t["queries"] > 10
    assert t["more_queries"] == t["queries"] - 10
    assert t["more_judgments"] == round(t["more_queries"] * t["judgments_per_query"])
    assert any(n.startswith("target width 0.2: about") for n in doc["notes"])
    base = run_json(capsys, *args, "--target-width", "1")["target"]
    assert base["more_queries"] == 0 and base["more_judgments"] == 0
    far = run_json(capsys, *args, "--target-width", "0.0001")["target"]
    assert far["queries"] is None and far["more_judgments"] is None
    assert "target" not in run_json(capsys, *args)


@pytest.mark.parametrize("value", ["0", "-0.1", "nan"])
def test_a_bad_target_width_is_one_line_exit_2_files_unchanged(files, capsys, value):
    before = digest(list(files.values()))
    code = main(["estimate", "--machine", str(files["machine"]), "--human",
                 str(files["human"]), str(files["a"]), "--target-width", value])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and f"--target-width {float(value)}" in err
    assert digest(list(files.values())) == before
