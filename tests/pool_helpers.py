"""Configs over the bundled sample with the store, runs and caches in a temporary directory."""

from __future__ import annotations

import textwrap
from pathlib import Path

from shared_data import SAMPLE


def write_config(directory: Path, systems: str, pool: str = "depth: 10",
                 corpus: Path = SAMPLE / "corpus.jsonl",
                 queries: Path = SAMPLE / "queries.jsonl", cache: Path | None = None) -> Path:
    """A collection config in ``directory`` (store and runs beside it)."""
    path = directory / "collection.yaml"
    cache_line = f"cache_dir: {cache}\n" if cache else ""
    path.write_text(f"corpus: {corpus}\nqueries: {queries}\nstore: judgments.sqlite\n"
                    f"runs_dir: runs\n{cache_line}systems:\n"
                    + textwrap.indent(textwrap.dedent(systems).strip() + "\n", "  ")
                    + "pool:\n" + textwrap.indent(textwrap.dedent(pool).strip() + "\n", "  "))
    return path
