"""``--qrels-format`` / ``--run-format`` on compare, reusability and agreement: a format named
on the command line is read as that format, and gives the same numbers as its TREC twin."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from poolkit.cli import main

FORMATS = Path(__file__).resolve().parents[1] / "data" / "formats"


def _json(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_compare_reads_forced_formats_like_their_trec_twins(capsys, tmp_path):
    # nameless copies: only the option can say what they are
    beir, msmarco = tmp_path / "labels", tmp_path / "twin"
    shutil.copy(FORMATS / "qrels.beir.tsv", beir)
    shutil.copy(FORMATS / "run.msmarco.tsv", msmarco)
    forced = _json(capsys, "compare", str(msmarco), "--before-qrels", str(beir),
                   "--after-qrels", str(beir), "--qrels-format", "beir", "--run-format",
                   "msmarco", "-m", "AP,P@2", "--format", "json")
    twin = _json(capsys, "compare", str(FORMATS / "twin.run"), "--before-qrels",
                 str(FORMATS / "twin.qrels"), "--after-qrels", str(FORMATS / "twin.qrels"),
                 "-m", "AP,P@2", "--format", "json")
    assert forced["runs"][0]["measures"] == twin["runs"][0]["measures"]
    assert forced["after"]["judged"] == twin["after"]["judged"]


def test_reusability_and_agreement_take_the_qrels_format(capsys, tmp_path):
    beir = tmp_path / "labels"
    shutil.copy(FORMATS / "qrels.beir.tsv", beir)
    forced = _json(capsys, "reusability", str(FORMATS / "twin.run"), "--qrels", str(beir),
                   "--qrels-format", "beir", "--format", "json")
    twin = _json(capsys, "reusability", str(FORMATS / "twin.run"), "--qrels",
                 str(FORMATS / "twin.qrels"), "--format", "json")
    assert forced["full"] == twin["full"] and forced["labels"]["judged"] == 6
    # agreement: the forced format applies to every --qrels file; a BEIR copy of the twin
    # agrees with the BEIR file itself on all six judged pairs
    doc = _json(capsys, "agreement", "--qrels", f"a={beir}", f"b={FORMATS / 'qrels.beir.tsv'}",
                "--qrels-format", "beir", "--format", "json")
    assert [(p["shared"], p["kappa"]["unweighted"]) for p in doc["pairs"]] == [(6, 1.0)]


def test_a_forced_format_that_does_not_fit_is_one_line(capsys, tmp_path):
    code = main(["compare", str(FORMATS / "twin.run"), "--before-qrels",
                 str(FORMATS / "twin.qrels"), "--after-qrels", str(FORMATS / "twin.qrels"),
                 "--qrels-format", "beir"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "twin.qrels" in err
