"""The runs folder is poolkit's own (``.poolkit/runs`` beside the store by default), and pool
writes over no file there that it did not write (``poolkit.pool.own_files``)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from shared_data import SAMPLE

from poolkit.cli import main

USERS_RUN = "q_faw Q0 m1 1 9.5 mine\nq_faw Q0 m2 2 8.5 mine\n"


def files(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder`` but caches."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".cache" not in p.parts}


def config(folder: Path, runs_dir: str | None = None, k1: float = 0.9) -> Path:
    path = folder / "c.yaml"
    path.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                    f"store: store.sqlite\n" + (f"runs_dir: {runs_dir}\n" if runs_dir else "")
                    + f"systems:\n  bm25: {{kind: bm25, depth: 10, k1: {k1}}}\n"
                    f"pool:\n  depth: 3\n")
    return path


def pool(capsys, cfg: Path) -> tuple[int, str]:
    code = main(["pool", str(cfg), "--quiet"])
    return code, capsys.readouterr().err


def test_the_default_runs_folder_is_poolkit_s_own_beside_the_store(tmp_path, capsys):
    """A user's own runs/ folder (the name every IR project uses) is never touched."""
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "bm25.run").write_text(USERS_RUN)
    mine = files(tmp_path / "runs")
    code, err = pool(capsys, config(tmp_path))
    assert code == 0, err
    assert files(tmp_path / "runs") == mine
    assert sorted(p.name for p in (tmp_path / ".poolkit" / "runs").iterdir()) == \
        ["bm25.json", "bm25.run"]
    assert f"-> {tmp_path / '.poolkit' / 'runs' / 'bm25.run'}" in err


@pytest.mark.parametrize("name", ["bm25.run", "bm25.json"])
def test_a_file_poolkit_did_not_write_is_never_overwritten(tmp_path, capsys, name):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / name).write_text(USERS_RUN if name.endswith(".run") else "{}\n")
    cfg = config(tmp_path, runs_dir="runs")
    before = files(tmp_path)
    assert main(["pool", str(cfg)]) == 2
    out, err = capsys.readouterr()
    what = "pool's copy of systems.bm25's run" if name.endswith(".run") else \
        "pool's settings of systems.bm25"
    assert out == "" and err.splitlines() == [
        f"poolkit pool: error: {cfg}:4: {tmp_path / 'runs' / name}: {what} would overwrite a "
        f"file poolkit did not write; poolkit never writes over a file it did not make: move "
        f"it out of {tmp_path / 'runs'} or set another runs_dir"]
    assert files(tmp_path) == before  # no store made, the user's file as it was


def test_poolkit_s_own_files_are_replaced(tmp_path, capsys):
    """What the store registered is poolkit's (a changed system pools again over it); so is
    what a settings file of poolkit's certifies (a store deleted to start over)."""
    assert pool(capsys, config(tmp_path))[0] == 0
    runs = tmp_path / ".poolkit" / "runs"
    first = (runs / "bm25.run").read_bytes()
    code, err = pool(capsys, config(tmp_path, k1=1.5))
    assert code == 0, err
    assert (runs / "bm25.run").read_bytes() != first
    assert json.loads((runs / "bm25.json").read_text())["retriever"]["k1"] == 1.5
    (tmp_path / "store.sqlite").unlink()
    code, err = pool(capsys, config(tmp_path))
    assert code == 0, err
    assert (runs / "bm25.run").read_bytes() == first


def test_a_store_pooled_into_the_old_default_runs_folder_still_finds_its_runs(tmp_path,
                                                                             capsys):
    """Before .poolkit/runs the default was runs/ beside the store: the store registered
    each run file's path there, and the commands that read the configured systems' runs
    find them there until the next pool writes the new folder."""
    cfg = config(tmp_path, runs_dir="runs")  # what the old default resolved to
    assert pool(capsys, cfg)[0] == 0
    qrels = str(SAMPLE / "truth.qrels")
    assert main(["simulate", "--qrels", qrels, str(cfg), "--format", "json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    config(tmp_path)  # the same config with no runs_dir: line
    assert not (tmp_path / ".poolkit").exists()
    assert main(["simulate", "--qrels", qrels, str(cfg), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected
