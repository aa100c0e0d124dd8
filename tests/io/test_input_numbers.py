"""Numbers in input files read as trec_eval reads them, or refused with file and line.

trec_eval reads a run's score with C's ``atof`` and a qrels grade with ``atol``; Python's
``float``/``int`` also take ``1_000`` (1000, where atof reads 1) and non-ASCII digits
(``１００``: 100, where atof reads 0). poolkit accepts only the grammar both read to the same
value (``poolkit.io.validate.NUMBER``) and refuses the rest, on every reading path (the
columnar one, the block one, the careful one) alike.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import poolkit.io.run as run_mod
import poolkit.io.run_columns as columns_mod
from poolkit.cli import main
from poolkit.errors import InputError
from poolkit.io import read_run
from poolkit.io.beir import read_beir_qrels
from poolkit.io.golden import read_golden
from poolkit.io.qrels import read_qrels
from poolkit.io.sample import read_sample

REFUSED_SCORES = ["1_000", "1_0.5", "1e1_0", "\uff11\uff10\uff10", "\u0663", "0x10", "nan",
                  "-NaN", "1.5abc", "1e", "--1", "1.2.3", "infinit", "\u00b2"]
ACCEPTED_SCORES = ["1e3", ".5", "5.", "+1", "-2.5E-1", "inf", "-Infinity", "INF", "1e400",
                   "1E-400", "007", "-0", "4.9e-324", "1.7976931348623157e308"]
# where the run sends a line: the columnar reader (plain lines), the block reader (tabs,
# which the block parser takes), the careful reader (a blank line in the block)
LAYOUTS = {"columns": "{} Q0 {} 1 {} t\n", "tabs": "{}\tQ0\t{}\t1\t{}\tt\n",
           "careful": "{} Q0 {} 1 {} t\n\n"}


def _run(tmp_path: Path, layout: str, score: str) -> Path:
    line = LAYOUTS[layout]
    path = tmp_path / "r.run"
    path.write_text(line.format("q1", "d1", "3") + line.format("q1", "d2", score)
                    + line.format("q1", "d3", "1"), encoding="utf-8")
    return path


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("score", REFUSED_SCORES)
def test_a_score_trec_eval_reads_otherwise_is_refused_naming_its_line(tmp_path, layout, score):
    path = _run(tmp_path, layout, score)
    line = 3 if layout == "careful" else 2
    with pytest.raises(InputError) as err:
        read_run(path)
    assert str(err.value) == f"{path}:{line}: score {score!r} is not a number"


@pytest.mark.parametrize("rank", ["1_0", "\uff11", "\u0661", "1.0", "0x1"])
@pytest.mark.parametrize("order", ["score", "rank"])
def test_a_rank_that_is_not_an_ascii_integer_is_refused(tmp_path, rank, order):
    path = tmp_path / "r.run"
    path.write_text(f"q1 Q0 d1 1 3 t\nq1 Q0 d2 {rank} 2 t\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_run(path, order=order)
    assert str(err.value) == f"{path}:2: rank {rank!r} is not an integer"


@pytest.mark.parametrize("score", ACCEPTED_SCORES)
def test_every_reading_path_gives_the_same_accepted_score(tmp_path, monkeypatch, score):
    got = {}
    for layout in LAYOUTS:
        run = read_run(_run(tmp_path, layout, score), order="file")
        got[layout] = run.scores["q1"]
    monkeypatch.setattr(columns_mod, "read_run_columns", lambda *a: None)
    monkeypatch.setattr(run_mod, "_fast_block", lambda *a: None)
    got["lines"] = read_run(_run(tmp_path, "columns", score), order="file").scores["q1"]
    assert all(v == [3.0, float(score), 1.0] for v in got.values()), got


@pytest.mark.shared
@pytest.mark.parametrize("score", ACCEPTED_SCORES)
def test_accepted_scores_rank_as_trec_eval_ranks_them(tmp_path, capsys, trec_eval_binary,
                                                      score):
    """Differential: a score between two others, the relevant doc placed by it."""
    run = tmp_path / "r.run"
    lines = [f"q{i} Q0 {d} 1 {s} t\n" for i in (1, 2)
             for d, s in (("hi", "1e300"), ("mid", score), ("lo", "-1e300"), ("z", "2"))]
    run.write_text("".join(lines))
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 mid 1\nq2 0 z 1\nq2 0 lo 1\n")
    args = ["-q", "-m", "all_trec", str(qrels), str(run)]
    want = subprocess.run([str(trec_eval_binary), *args], capture_output=True, text=True,
                          check=True).stdout
    assert main(["trec-eval", *args]) == 0
    out = capsys.readouterr().out
    names = {line.split("\t")[0].rstrip() for line in out.splitlines()}
    assert out == "".join(line + "\n" for line in want.splitlines()
                          if line.split("\t")[0].rstrip() in names)
    assert {"map", "recip_rank", "P_5"} <= names


@pytest.mark.parametrize("grade", ["1_0", "\uff11", "\u0661", "1.0", "0x1", "1e0"])
def test_a_grade_that_is_not_an_ascii_integer_is_refused_in_every_qrels_format(tmp_path,
                                                                                 grade):
    trec = tmp_path / "q.qrels"
    trec.write_text(f"q1 0 d1 1\nq1 0 d2 {grade}\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{trec}:2: grade .* is not an integer$"):
        read_qrels(trec)
    beir = tmp_path / "q.tsv"
    beir.write_text(f"query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t{grade}\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{beir}:3: score .* is not an integer grade$"):
        read_beir_qrels(beir)
    golden = tmp_path / "golden.yaml"
    golden.write_text(f"- query: q1\n  grades:\n    d1: 1\n    d2: {grade}\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{golden}:4: grade .* must be an integer 0-3$"):
        read_golden(golden)


@pytest.mark.parametrize("prob", ["0.1_5", "\uff11", "0x1", "nan"])
def test_a_sample_probability_is_read_by_the_same_rule(tmp_path, prob):
    path = tmp_path / "s.tsv"
    path.write_text(f"q1 d1 s0 0.5\nq1 d2 s0 {prob}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_sample(path)
    assert str(err.value) == f"{path}:2: inclusion probability {prob!r} is not a number"
