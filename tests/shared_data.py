"""Where the repository and ../shared are, and how tests that need ../shared skip.

A module of its own (not conftest.py) so tests in any folder can import it by a unique name.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SAMPLE = REPO / "sample_corpus"


def shared_path(*parts: str) -> Path:
    """A path under ../shared; skips the test when it is absent, unless running in CI."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing; CI must have ../shared beside the repository")
        if not SHARED.is_dir():  # one reason for every such test, not one per file
            pytest.skip(f"tests on ../shared's collections (DL19, Cranfield, trec_eval's "
                        f"source): {SHARED} is not beside the repository (CI has it)")
        pytest.skip(f"{path} is not in ../shared")
    return path


def _lasting_cache() -> Path:
    """Where tests keep what is slow to compute and safe to keep between sessions because it
    is keyed by everything it depends on (dense embeddings: the model's key and the corpus's
    hash). Outside the repository, so a new clone on a machine that has run the tests before
    does not encode Cranfield again. POOLKIT_TEST_CACHE moves it; a home that cannot be
    written (some CI runners) puts it in the temporary folder."""
    if os.environ.get("POOLKIT_TEST_CACHE"):
        return Path(os.environ["POOLKIT_TEST_CACHE"])
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "poolkit-tests"
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError:
        root = Path(tempfile.gettempdir()) / "poolkit-tests"
    return root


LASTING_CACHE = _lasting_cache()


@contextmanager
def lasting_cache(name: str) -> Iterator[Path]:
    """The folder ``name`` of LASTING_CACHE, held under an exclusive file lock: of several
    pytest-xdist workers that need the same entries, one computes them while the others
    wait, then read them."""
    folder = LASTING_CACHE / name
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: workers may both compute, atomically
        yield folder
        return
    with open(folder / ".lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        yield folder
