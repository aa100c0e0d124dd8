"""Shared fixtures: where the repository and ../shared are, and how tests that need it skip."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_data import REPO, SAMPLE, SHARED, shared_path  # noqa: F401


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return shared_path()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may reach a model hub."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
