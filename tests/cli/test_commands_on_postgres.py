"""Every store-backed command works unchanged on PostgreSQL: the same script run on a SQLite
file and on a PostgreSQL database prints the same reports and exports the same labels.

Skips with one line where no PostgreSQL server is configured (CI starts one).
"""

from __future__ import annotations

import difflib
import re

from pool_helpers import two_run_config
from shared_data import SAMPLE
from store_backends import fresh_database

from poolkit.cli import main

SCRIPT = [
    ["pool", "{config}", "--system", "seed"],
    ["import", "{config}", str(SAMPLE / "assessor_b.yaml"), "--as", "bob"],
    ["import", "{config}", str(SAMPLE / "golden.yaml"), "--as", "seed"],
    ["pool", "{config}"],
    ["status", "{config}", "--format", "json"],
    ["export", "{config}", "--format", "qrels", "--policy", "latest", "-o", "{out}/labels.qrels"],
    ["export", "{config}", "--format", "golden", "--policy", "latest", "-o", "{out}/golden.yaml"],
    ["compare", "{config}", "--format", "json"],
    ["reusability", "{config}", "--format", "json"],
    ["agreement", "{config}", "--reference", "bob", "--format", "json"],
    ["simulate", "{config}", "--qrels", str(SAMPLE / "assessor_b.yaml"), "--format", "json",
     "--budgets", "0.5,1"],
    ["notes", "{config}", "--format", "json"],
]


def _play(tmp_path, store: str, capsys) -> list[str]:
    config = str(two_run_config(tmp_path, store))
    outputs = []
    for step in SCRIPT:
        argv = [a.format(config=config, out=tmp_path) for a in step]
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, (argv, err)
        outputs.append(_normal(out, store, tmp_path))
    outputs.append(_normal((tmp_path / "labels.qrels").read_text(), store, tmp_path))
    outputs.append(_normal((tmp_path / "golden.yaml").read_text(), store, tmp_path))
    return outputs


_STAMP = re.compile(r"\d{4}-\d\d-\d\d([ T]\d\d:\d\d(:\d\d(\.\d+)?)?([+-]\d\d:\d\d)?)?")


def _normal(text: str, store: str, tmp_path) -> str:
    """What may differ between the two runs: the store's name, folders, times."""
    text = text.replace(store, "STORE").replace(str(tmp_path), "TMP")
    text = text.replace(f"{tmp_path.name}/", "")  # the run folder, shown relative
    text = re.sub(r"(export from |store:?\s+|\"store\": \")[^\s\"]+", r"\1STORE", text)
    return _STAMP.sub("DATE", text)


def test_the_same_script_gives_the_same_reports_on_both_backends(tmp_path, capsys):
    (tmp_path / "pg").mkdir()
    (tmp_path / "lite").mkdir()
    with fresh_database() as url:
        on_postgres = _play(tmp_path / "pg", url, capsys)
    on_sqlite = _play(tmp_path / "lite", str(tmp_path / "lite" / "s.sqlite"), capsys)
    assert len(on_postgres) == len(on_sqlite)
    for step, (a, b) in enumerate(zip(on_sqlite, on_postgres)):
        what = " ".join(SCRIPT[step]) if step < len(SCRIPT) else "the exported file"
        diff = "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), "sqlite",
                                               "postgresql", lineterm=""))
        assert a == b, f"{what}:\n{diff}"
