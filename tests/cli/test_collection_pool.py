"""A BEIR-layout copy of the sample pools to the same pool as configs/sample.yaml."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from beir_sample import beir_copy
from shared_data import REPO

from poolkit.cli import main

pytestmark = pytest.mark.slow  # runs the dense model twice


def pool_json(capsys: pytest.CaptureFixture[str], cfg: Path) -> dict:
    code = main(["pool", str(cfg), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def pooled(store: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(store) as c:
        return sorted(c.execute("SELECT qid, docid FROM pool_members").fetchall())


def test_a_beir_copy_of_the_sample_pools_like_the_sample(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / "configs").mkdir(parents=True)
    shutil.copy(REPO / "configs" / "sample.yaml", plain / "configs" / "sample.yaml")
    shutil.copytree(REPO / "sample_corpus", plain / "sample_corpus",
                    ignore=shutil.ignore_patterns("judgments.sqlite*", ".poolkit", ".cache"))
    beir = tmp_path / "beir"
    beir_copy(beir / "sample-beir")
    (beir / "configs").mkdir()
    text = (REPO / "configs" / "sample.yaml").read_text()
    text = re.sub(r"corpus: \S+\nqueries: \S+\n", "collection: beir:../sample-beir\n", text)
    text = text.replace("../sample_corpus/judgments.sqlite", "../judgments.sqlite")
    assert "collection: beir:" in text
    (beir / "configs" / "sample.yaml").write_text(text)

    want = pool_json(capsys, plain / "configs" / "sample.yaml")
    got = pool_json(capsys, beir / "configs" / "sample.yaml")
    assert got["queries"] == want["queries"]
    assert pooled(beir / "judgments.sqlite") == pooled(plain / "sample_corpus" /
                                                       "judgments.sqlite")
    for name in ("bm25", "dense", "rerank"):
        assert (beir / ".poolkit" / "runs" / f"{name}.run").read_text() == \
            (plain / "sample_corpus" / ".poolkit" / "runs" / f"{name}.run").read_text()
