"""Fixtures the store's PostgreSQL role tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import store_backends


@pytest.fixture(scope="session")
def initialised() -> Iterator[str]:
    """The URL of a store ``poolkit store init`` made, once per session: each role test
    takes a copy (``store_backends.fresh_database(template=...)``)."""
    with store_backends.initialised_database() as url:
        yield url
