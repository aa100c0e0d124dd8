"""The reference trec_eval binary, built once per session from ../shared/reference/trec_eval-src
into a temporary folder (never into the repository)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from shared_data import shared_path


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = shared_path("reference", "trec_eval-src")
    if not (shutil.which("cc") or shutil.which("gcc")) or not shutil.which("make"):
        if os.environ.get("CI"):
            pytest.fail("no C compiler or make: CI must be able to build trec_eval")
        pytest.skip("no C compiler or make to build the reference trec_eval")
    build = tmp_path_factory.mktemp("trec_eval") / "src"
    shutil.copytree(src, build)
    done = subprocess.run(["make", "-s", "-C", str(build)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    binary = build / "trec_eval"
    assert binary.is_file()
    return binary
