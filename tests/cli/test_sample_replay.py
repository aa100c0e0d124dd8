"""``poolkit sample-replay``: bad input is one line (the analysis: tests/app)."""

from __future__ import annotations

from pathlib import Path

from poolkit.cli import main


def test_the_command_reports_bad_input_in_one_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    assert main(["sample-replay", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().endswith("no *.run files")
    assert main(["sample-replay", str(tmp_path), "--rates", "0.1,x"]) == 2
    assert "expected numbers" in capsys.readouterr().err
