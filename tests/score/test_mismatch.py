"""A run whose queries hardly match the labels' is said on stderr by score, compare and
trec-eval: one line with both counts and ids from each side, exit 0 (issue 27, part 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolkit.cli import main
from poolkit.score.mismatch import query_mismatch, shared_phrase

QRELS = "".join(f"{q} 0 d{q} 1\n{q} 0 e{q} 0\n" for q in range(1, 11))
# ids written 001.. (the qrels say 1..): 9 of the run's 10 queries are not labelled
PADDED = "".join(f"{q:03d} Q0 d{q} 1 2.0 t\n" for q in range(1, 10)) + "10 Q0 d10 1 1.0 t\n"
WARNING = ("warning: run r.run has 9 of 10 queries the qrels lack (001, 002, 003); qrels ids "
           "look like 1, 2, 3 (9 of 10 not in the run)\n")


def files(tmp_path: Path, run: str = PADDED) -> tuple[str, str]:
    (tmp_path / "q.qrels").write_text(QRELS)
    (tmp_path / "r.run").write_text(run)
    return str(tmp_path / "q.qrels"), str(tmp_path / "r.run")


def test_the_counts_and_the_examples() -> None:
    m = query_mismatch(["1", "2", "3", "4"], ["3", "4", "x", "y", "z", "w"], run_name="r")
    assert (m.labelled, m.in_run, m.shared) == (4, 6, 2)
    assert m.run_only == ("w", "x", "y") and m.labels_only == ("1", "2")
    assert m.warning == ("warning: run r has 4 of 6 queries the qrels lack (w, x, y); qrels "
                         "ids look like 1, 2 (2 of 4 not in the run)")


def test_a_run_of_few_labelled_queries_is_said_from_the_labels_side() -> None:
    m = query_mismatch([str(i) for i in range(10)], ["1"], run_name="r")
    assert m.warning == ("warning: run r has 1 queries, 1 of them in the qrels; qrels ids "
                         "look like 0, 2, 3 (9 of 10 not in the run)")


def test_half_is_not_loud_and_the_same_sets_say_nothing() -> None:
    assert query_mismatch(["1", "2"], ["1", "3"], run_name="r").warning is None
    same = query_mismatch(["1", "2"], ["2", "1"], run_name="r")
    assert not same.differs and shared_phrase(2, 2, 2) == ""
    assert shared_phrase(1, 2, 3) == "1 shared by the qrels' 2 and the run's 3 queries"


@given(st.sets(st.integers(0, 12)), st.sets(st.integers(0, 12)))
def test_loud_exactly_when_fewer_than_half_of_either_side_is_shared(a: set[int],
                                                                     b: set[int]) -> None:
    m = query_mismatch([str(i) for i in a], [str(i) for i in b], run_name="r")
    shared = len(a & b)
    assert m.shared == shared
    assert (m.warning is not None) == (shared < len(a) / 2 or shared < len(b) / 2)
    assert m.differs == (a != b)
    if m.warning:
        assert "\n" not in m.warning and str(len(b)) in m.warning and str(len(a)) in m.warning


def test_score_says_it_once_on_stderr_and_exits_0(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = files(tmp_path)
    assert main(["score", qrels, run, "-m", "nDCG@10"]) == 0
    out, err = capsys.readouterr()
    assert err == WARNING
    assert "\n  shared: 1 shared by the qrels' 10 and the run's 10 queries\n" in out
    assert main(["score", qrels, run, "-m", "nDCG@10", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == WARNING
    queries = json.loads(out)["runs"][0]["queries"]
    assert (queries["in_run"], queries["shared"]) == (10, 1)


def test_score_fails_only_when_fail_on_says_so(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = files(tmp_path)
    assert main(["score", qrels, run, "-m", "P@5", "--fail-on", "unknown"]) == 3
    assert capsys.readouterr().err.startswith(WARNING)


def test_a_matching_run_says_nothing(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = files(tmp_path, "".join(f"{q} Q0 d{q} 1 2.0 t\n" for q in range(1, 9)))
    assert main(["score", qrels, run, "-m", "P@5"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "8 shared by the qrels' 10 and the run's 8 queries" in out
    assert main(["trec-eval", qrels, run]) == 0
    assert capsys.readouterr().err == ""


def test_trec_eval_says_it_after_its_output(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = files(tmp_path)
    assert main(["trec-eval", qrels, run]) == 0
    out, err = capsys.readouterr()
    assert err == WARNING and out.startswith("runid")


def test_compare_says_it_and_its_header_counts(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = files(tmp_path)
    assert main(["compare", "--before-qrels", qrels, "--after-qrels", qrels, run]) == 0
    out, err = capsys.readouterr()
    assert err == WARNING.replace("the qrels lack", "the after labels lack").replace(
        "qrels ids", "after labels ids").replace("run r.run", "run r")  # compare's run name
    assert ("queries of r: 1 shared by the after labels' 10 and the run's 10 queries"
            in out)


def test_estimate_says_it_against_the_machine_labels_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The people's labels cover a few queries by design: only the machine's are checked."""
    qrels, run = files(tmp_path)
    human = tmp_path / "h.qrels"
    human.write_text("".join(f"{q} 0 d{q} 1\n{q} 0 e{q} 0\n" for q in (1, 2, 3)))
    # the run finds each human query's one relevant doc first: every score 1, said too
    flat = ("warning: interval width 0 from 3 human queries with identical scores (r.run "
            "nDCG@10, r.run AP): not a measure of certainty\n")
    assert main(["estimate", "--machine", qrels, "--human", str(human), run]) == 0
    out, err = capsys.readouterr()
    assert err == WARNING.replace("the qrels lack", "the machine labels lack").replace(
        "qrels ids", "machine labels ids") + flat
    _qrels, matching = files(tmp_path, run=QRELS.replace(" 0 d", " Q0 d").replace(
        " 0 e", " Q0 e").replace(" 1\n", " 1 2.0 t\n").replace(" 0\n", " 2 1.0 t\n"))
    assert main(["estimate", "--machine", qrels, "--human", str(human), matching]) == 0
    assert capsys.readouterr().err == flat
