"""Fixtures for pool tests (helpers that tests import live in tests/pool_helpers.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def embedding_cache(tmp_path_factory):
    """One dense-embedding cache for the session: the sample is encoded once."""
    return tmp_path_factory.mktemp("embedding-cache")
