"""The tutorials and getting-started run as written: every ```sh block of those pages, in
order, in a fresh folder holding the small data set the page starts from, must exit 0.

A block right after an HTML comment ``<!-- test: skip -->`` is not run (the interactive
``poolkit judge``, an install); the page shows the non-interactive stand-in it runs instead.
``poolkit`` on the blocks' PATH is this checkout's (``python -m poolkit``)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import tutorial_data
from shared_data import REPO

DOCS = REPO / "docs"
SKIP = "<!-- test: skip -->"
FENCE = re.compile(r"^```(\S*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)


def sh_blocks(page: Path) -> list[str]:
    """The page's ```sh blocks to run, in order (those marked skip left out)."""
    text = page.read_text()
    blocks = []
    for found in FENCE.finditer(text):
        if found.group(1) != "sh":
            continue
        before = text[:found.start()].rstrip().splitlines()
        if before and before[-1].strip() == SKIP:
            continue
        blocks.append(found.group(2))
    return blocks


def poolkit_on_path(folder: Path) -> dict[str, str]:
    """An environment whose ``poolkit`` is this checkout's, offline."""
    bin_dir = folder / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "poolkit"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m poolkit "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    env = dict(os.environ)
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(REPO),
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", COLUMNS="120")
    return env


def run_page(page: Path, folder: Path, env: dict[str, str]) -> None:
    blocks = sh_blocks(page)
    assert blocks, f"{page.name} has no sh block to run"
    for number, block in enumerate(blocks, 1):
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], cwd=folder,
                              env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (
            f"{page.relative_to(REPO)}: sh block {number} of {len(blocks)} exited "
            f"{done.returncode}:\n{block}\n--- stderr ---\n{done.stderr[-3000:]}"
            f"\n--- stdout ---\n{done.stdout[-2000:]}")


def test_blocks_are_found_and_skips_honoured(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("a\n\n```sh\necho one\n```\n\n<!-- test: skip -->\n```sh\nexit 1\n```\n"
                    "```yaml\nx: 1\n```\n")
    assert sh_blocks(page) == ["echo one\n"]


@pytest.mark.slow
def test_getting_started_runs(tmp_path):
    shutil.copytree(REPO / "sample_corpus", tmp_path / "sample_corpus")
    run_page(DOCS / "getting-started.md", tmp_path, poolkit_on_path(tmp_path))


@pytest.mark.slow
def test_own_data_tutorial_runs(tmp_path):
    tutorial_data.make(tmp_path)
    run_page(DOCS / "tutorials" / "own-data.md", tmp_path, poolkit_on_path(tmp_path))


def libpq_environment(env: dict[str, str]) -> dict[str, str]:
    """The page's libpq variables for the test server (POOLKIT_TEST_POSTGRES, PGPASSWORD):
    CI must have one; elsewhere the page is skipped without one."""
    url = os.environ.get("POOLKIT_TEST_POSTGRES")
    if not url:
        if os.environ.get("CI"):
            pytest.fail("POOLKIT_TEST_POSTGRES is not set; CI must start a PostgreSQL server")
        pytest.skip("no PostgreSQL server (source .ci/postgres.sh; start_throwaway_postgres)")
    if shutil.which("createdb") is None or shutil.which("psql") is None:
        pytest.skip("PostgreSQL's client programs (createdb, psql) are not on PATH")
    server = urlsplit(url)
    return {**env, "PGHOST": server.hostname or "", "PGPORT": str(server.port or 5432),
            "PGUSER": server.username or "", "PGDATABASE": "postgres"}


def drop_team(env: dict[str, str]) -> None:
    """The page's database and roles gone (before, should a run have been cut short, and
    after)."""
    for sql in ("DROP DATABASE IF EXISTS judging WITH (FORCE)", "DROP ROLE IF EXISTS alice",
                "DROP ROLE IF EXISTS bob"):
        subprocess.run(["psql", "-q", "-c", sql], env=env, capture_output=True, check=True)


@pytest.mark.slow
def test_team_postgres_tutorial_runs(tmp_path):
    env = libpq_environment(poolkit_on_path(tmp_path))
    tutorial_data.make(tmp_path)
    drop_team(env)
    try:
        run_page(DOCS / "tutorials" / "team-postgres.md", tmp_path, env)
    finally:
        drop_team(env)


@pytest.mark.slow
def test_machine_judge_tutorial_runs(tmp_path):
    """Against the tests' loopback chat-completions server (llm_faults), the page's JUDGE_URL."""
    from llm_faults import loopback_llm

    tutorial_data.make(tmp_path)
    with loopback_llm() as (url, _script):
        env = {**poolkit_on_path(tmp_path), "JUDGE_URL": url, "OPENAI_API_KEY": "tutorial"}
        run_page(DOCS / "tutorials" / "machine-judge.md", tmp_path, env)
