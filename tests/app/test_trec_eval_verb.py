"""The trec-eval verb: the text ``poolkit trec-eval`` prints, from a typed request."""

from __future__ import annotations

from pathlib import Path

import pytest

from poolkit.app.trec_eval import TrecEvalReport, TrecEvalRequest, trec_eval_report
from poolkit.cli import main
from poolkit.errors import PoolkitError
from poolkit.reports import REPORTS

REPO = Path(__file__).resolve().parents[2]
GOLDEN = str(REPO / "sample_corpus" / "golden.yaml")
SEED_RUN = str(REPO / "sample_corpus" / "seed.run")


def test_the_report_is_what_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    report = trec_eval_report(TrecEvalRequest(GOLDEN, SEED_RUN, measures="map",
                                              per_query=True, level=2))
    assert REPORTS["trec-eval"] is TrecEvalReport and report.formats == ("text",)
    assert main(["trec-eval", "-q", "-l", "2", "-m", "map", GOLDEN, SEED_RUN]) == 0
    assert report.render("text") == capsys.readouterr().out
    assert report.text.splitlines()[-1].split() == ["map", "all", report.text.split()[-1]]


def test_a_negative_depth_is_refused_before_any_file_is_read(tmp_path: Path) -> None:
    with pytest.raises(PoolkitError, match="-M must not be negative, got -1"):
        trec_eval_report(TrecEvalRequest(tmp_path / "missing", tmp_path / "missing", depth=-1))
