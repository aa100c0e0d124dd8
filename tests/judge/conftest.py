"""Fixtures for the judging tests (builders: tests/judge_helpers.py, shared with tests/cli)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_helpers import (
    TINY_DOCS,
    TINY_POOLS,
    TINY_QUERIES,
    TickClock,
    build_store,
    sample_collection,
)

from poolkit.store import Store


@pytest.fixture
def sample_store(tmp_path: Path) -> Iterator[Store]:
    with build_store(tmp_path / "judgments.sqlite", *sample_collection()) as store:
        yield store


@pytest.fixture
def tiny_store(tmp_path: Path) -> Iterator[Store]:
    with build_store(tmp_path / "tiny.sqlite", TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        yield store


@pytest.fixture
def six_store(tmp_path: Path) -> Iterator[Store]:
    """One query of six passages (d1..d5 and d2 again under another id)."""
    docs = {**TINY_DOCS, "d6": TINY_DOCS["d2"]}
    with build_store(tmp_path / "six.sqlite", TINY_QUERIES[:1], docs,
                     {"q1": ["d1", "d2", "d3", "d4", "d5", "d6"]}) as store:
        yield store


@pytest.fixture
def clock() -> TickClock:
    return TickClock()
