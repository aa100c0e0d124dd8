"""Where the repository and ../shared are, and how tests that need ../shared skip.

A module of its own (not conftest.py) so tests in any folder can import it by a unique name.
"""

from __future__ import annotations

import os
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
        pytest.skip(f"{path} not present (../shared is only beside the repository in CI/dev)")
    return path
