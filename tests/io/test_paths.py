"""Paths in reports and errors: relative to the current directory, or absolute (one rule,
``poolkit.io.paths.shown_path``), never relative to a config's folder or a bare file name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from poolkit.io.paths import shown_path
from poolkit.io.run import Run
from poolkit.pool.build import pool_runs
from poolkit.pool.report import pool_report
from poolkit.store import QueryRecord, Store


def test_a_path_under_the_current_directory_is_shown_relative_to_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    assert shown_path(tmp_path / "sub" / "s.sqlite") == str(Path("sub") / "s.sqlite")
    assert shown_path("../elsewhere/x.run") == "../elsewhere/x.run"  # typed: kept as typed
    monkeypatch.chdir(tmp_path / "sub")
    assert shown_path(tmp_path / "x.run") == str(tmp_path / "x.run")  # outside: absolute
    assert shown_path("postgresql://h/db") == "postgresql://h/db"


def test_the_pool_table_shows_paths_a_shell_here_can_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table once showed the store relative to the config's grandparent: from any other
    directory that path led nowhere."""
    collection = tmp_path / "collection"
    (collection / "configs").mkdir(parents=True)
    store_path = collection / "judgments.sqlite"
    run = Run.from_mapping({"q1": ["a", "b"]}, name="A")
    with Store(store_path) as s:
        s.upsert_queries([QueryRecord("q1", "one")])
        s.register_system("A", "bm25", {}, "a" * 64, str(collection / "runs" / "A.run"))
        pool_runs(s, {"A": run}, {"A": 2}, {d: ("", d) for d in "ab"})
        report = replace(pool_report(s), config=str(collection / "configs" / "c.yaml"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    table = report.render_table(verbose=True)
    assert f"store {store_path}" in table and str(collection / "runs" / "A.run") in table
    monkeypatch.chdir(collection)
    table = report.render_table(verbose=True)
    assert "store judgments.sqlite" in table and str(Path("runs") / "A.run") in table


def test_store_messages_name_the_store_as_every_other_path_is_shown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages about the store named it by its absolute path even when it sat under the
    current directory; they follow ``shown_path`` like every other path now."""
    from pool_helpers import two_run_config

    from poolkit.config import load_config

    config = load_config(two_run_config(tmp_path, tmp_path / "judgments.sqlite"))
    monkeypatch.chdir(tmp_path)
    assert config.store_label == "judgments.sqlite"
    monkeypatch.chdir(tmp_path.parent)
    assert config.store_label == str(Path(tmp_path.name) / "judgments.sqlite")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert config.store_label == str(tmp_path / "judgments.sqlite")
