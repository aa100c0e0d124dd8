"""The test suite's own report: why tests were skipped, one line per reason with its count
(``tests/skip_reasons.py``), in a plain run and under xdist."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

SUITE = '''
import pytest

@pytest.mark.parametrize("n", range(3))
def test_needs_a_server(n):
    pytest.skip("no server: set X_URL")

@pytest.mark.skipif(True, reason="not on this platform")
def test_platform():
    pass

def test_runs():
    pass
'''


def run_suite(folder: Path, tests: str, *options: str) -> list[str]:
    """pytest's output on ``tests`` (a test file's text) with the suite's hook, ``options``
    added (it must pass)."""
    (folder / "conftest.py").write_text("from skip_reasons import pytest_terminal_summary  "
                                        "# noqa: F401\n")
    (folder / "test_some.py").write_text(tests)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--rootdir", str(folder), "-c", os.devnull, *options, str(folder)],
                          capture_output=True, text=True, cwd=folder, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(HERE)})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "1"]], ids=["plain", "xdist"])
def test_skips_are_summed_up_by_reason(tmp_path, workers):
    lines = run_suite(tmp_path, SUITE, *workers)
    at = next(i for i, line in enumerate(lines) if "why tests were skipped" in line)
    assert lines[at + 1:at + 3] == ["skipped: 3 — no server: set X_URL",
                                    "skipped: 1 — not on this platform"]
    assert "1 passed, 4 skipped" in lines[at + 3]


def test_a_run_without_skips_says_nothing_of_them(tmp_path):
    assert not any("skipped" in line
                   for line in run_suite(tmp_path, "def test_runs():\n    pass\n"))
