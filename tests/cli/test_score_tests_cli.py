"""``poolkit score`` with several runs: paired tests in the table and under JSON ``tests``."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from poolkit.cli import main

# Four queries; q4 has no relevant label, so it is excluded from the means and the tests.
QRELS = "q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\nq4 0 d4 0\n"
# P@1 per scored query: a = 1, 1, 1; b = 0, 0, 1 -> differences 1, 1, 0 (mean 2/3)
RUN_A = "q1 Q0 d1 1 3 a\nq2 Q0 d2 1 3 a\nq3 Q0 d3 1 3 a\nq4 Q0 d4 1 3 a\n"
RUN_B = "q1 Q0 x 1 3 b\nq2 Q0 x 1 3 b\nq3 Q0 d3 1 3 b\nq4 Q0 d4 1 3 b\n"
# By hand, on d = (1, 1, 0):
#   t: mean 2/3, sd sqrt(1/3), t = 2 on 2 df -> p = 1 - 2/sqrt(6)
#   randomization: the 8 sign flips give sums 2, 0, 0, -2 (twice each); |sum| >= 2 in 4 -> 0.5
#   Wilcoxon: zero dropped, ranks 1.5, 1.5; R+ = 3 of {0, 1.5, 1.5, 3} -> p = 2 * 1/4 = 0.5
P_T = 1 - 2 / math.sqrt(6)


def files(tmp_path: Path) -> list[str]:
    out = []
    for name, text in (("qrels.txt", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)):
        (tmp_path / name).write_text(text)
        out.append(str(tmp_path / name))
    return out


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["score", *args])
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def test_json_tests_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = as_json(capsys, *files(tmp_path), "-m", "P@1")
    (entry,) = doc["tests"]["P@1"]
    assert (entry["a"], entry["b"], entry["n"]) == ("a.run", "b.run", 3)   # q4 excluded
    assert entry["diff"] == pytest.approx(2 / 3)
    assert entry["p"] == pytest.approx({"t": P_T, "randomization": 0.5, "wilcoxon": 0.5},
                                       abs=1e-12)
    assert entry["p_adjusted"] == {"holm": 0.5, "bh": 0.5}   # a family of one
    assert entry["significant"] is False
    low, high = entry["ci"]
    assert 0 <= low <= 2 / 3 <= high <= 1
    jsonschema = pytest.importorskip("jsonschema")
    from poolkit.schemas import load_schema

    jsonschema.validate(doc, load_schema("score"), cls=jsonschema.Draft202012Validator)
    assert doc["settings"]["tests"] == {
        "test": "randomization", "alpha": 0.05, "correction": "holm", "permutations": 10000,
        "seed": 2007, "family": 1,
        "ci": {"level": 0.95, "method": "bootstrap", "resamples": 1000, "seed": 1979}}


def test_table_matrix_and_readings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *files(tmp_path), "-m", "P@1", "--verbose")
    assert code == 0
    block = out[out.index("Paired tests:"):out.index("\nrun ")]
    assert block.splitlines() == [
        "Paired tests: paired randomization test (10,000 sign flips, seed 2007), Holm-adjusted "
        "over 1 test (every pair and measure), alpha 0.05",
        "  cell: mean difference row - column over 3 paired queries, p_holm, * = significant",
        "",
        "  P@1             b.run",
        "  a.run  +0.667 0.500",
        "  0 of 1 differences significant on P@1",
    ]
    # the t-test, unadjusted, at 0.2: significant, with its reading
    code, out, _ = run(capsys, *files(tmp_path), "-m", "P@1", "--test", "t",
                       "--correction", "none", "--alpha", "0.2", "--verbose")
    assert "  a.run  +0.667 0.184 *" in out
    assert "    a.run > b.run on P@1: +0.667, p = 0.184" in out


def test_options_pick_the_marked_p(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = as_json(capsys, *files(tmp_path), "-m", "P@1", "--test", "t", "--correction", "bh",
                  "--alpha", "0.19")
    (entry,) = doc["tests"]["P@1"]
    assert entry["p_adjusted"]["bh"] == pytest.approx(P_T) and entry["significant"] is True
    assert doc["settings"]["tests"]["test"] == "t"


def test_one_run_has_no_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, a, _ = files(tmp_path)
    doc = as_json(capsys, qrels, a, "-m", "P@1")
    assert doc["tests"] == {} and doc["settings"]["tests"] is None
    code, out, _ = run(capsys, qrels, a, "-m", "P@1")
    assert code == 0 and "Paired tests" not in out


def test_markdown_has_the_matrix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *files(tmp_path), "-m", "P@1", "--format", "markdown")
    assert code == 0
    assert "## paired tests" in out and "| a.run | +0.667 0.500   |" in out


def test_runs_named_alike_are_told_apart(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    qrels, a, _ = files(tmp_path)
    (tmp_path / "other").mkdir()
    twin = tmp_path / "other" / "a.run"
    twin.write_text(RUN_B)
    doc = as_json(capsys, qrels, a, str(twin), "-m", "P@1")
    assert [(t["a"], t["b"]) for t in doc["tests"]["P@1"]] == [("a.run", "a.run#2")]


@pytest.mark.parametrize("args, message", [
    (["--alpha", "0"], "poolkit score: error: --alpha must be between 0 and 1 (exclusive), "
                       "got 0\n"),
    (["--plot-pair", "a.run,c.run", "--plot", "x.png"],
     "poolkit score: error: --plot-pair: unknown run 'c.run'; valid: a.run, b.run "
     "(did you mean 'b.run'?)\n"),
    (["--plot-pair", "a.run", "--plot", "x.png"],
     "poolkit score: error: --plot-pair 'a.run': give two different run names, A,B\n"),
    (["--plot-measure", "P@5", "--plot", "x.png"],
     "poolkit score: error: --plot-measure: unknown measure in the report 'P@5'; valid: P@1 "
     "(did you mean 'P@1'?)\n"),
])
def test_bad_test_options(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                          message: str) -> None:
    code, out, err = run(capsys, *files(tmp_path), "-m", "P@1", *args)
    assert (code, out, err) == (2, "", message)
    assert not (tmp_path / "x.png").exists()


def test_plot_needs_two_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, a, _ = files(tmp_path)
    code, _, err = run(capsys, qrels, a, "--plot", str(tmp_path / "x.png"))
    assert code == 2 and err == ("poolkit score: error: --plot draws the differences between "
                                 "two runs: give two RUNs or more\n")


def test_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "diff.png"
    code, _, err = run(capsys, *files(tmp_path), "-m", "P@1", "--plot", str(out),
                       "--plot-pair", "b.run,a.run")
    assert code == 0, err
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_pair_takes_run_names_with_or_without_extension(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--plot-pair a,b` names the runs a.run and b.run, as compare and reusability read run
    names; a name two runs could answer to is refused, not guessed."""
    pytest.importorskip("matplotlib")
    qrels, a, b = files(tmp_path)
    drawn = []
    for i, pair in enumerate(["b,a", "b.run,a", "b,a.run"]):
        out = tmp_path / f"diff{i}.png"
        code, _, err = run(capsys, qrels, a, b, "-m", "P@1", "--plot", str(out),
                           "--plot-pair", pair)
        assert code == 0, err
        drawn.append(out.read_bytes()[:8])
    assert drawn == [b"\x89PNG\r\n\x1a\n"] * 3
    twin = tmp_path / "a.trec"
    twin.write_text(Path(b).read_text())
    code, out, err = run(capsys, qrels, a, str(twin), "-m", "P@1", "--plot",
                         str(tmp_path / "x.png"), "--plot-pair", "a,b")
    assert (code, out) == (2, "")
    assert err == ("poolkit score: error: --plot-pair: run 'a' could be any of a.run, a.trec; "
                   "give its whole name\n")


def test_plot_without_matplotlib_names_the_extra(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import matplotlib -> ImportError
    code, out, err = run(capsys, *files(tmp_path), "--plot", str(tmp_path / "x.png"))
    assert (code, out) == (2, "")
    assert err == "poolkit score: error: --plot needs matplotlib: pip install 'poolkit[plot]'\n"
