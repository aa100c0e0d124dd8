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


def two_run_config(directory: Path, store: str | Path, judge: str = "") -> Path:
    """The sample with two run systems, the seed run and its rankings reversed, pooled to
    depth 5 in docid order into ``store``; ``judge`` is an optional ``judge:`` mapping."""
    by_query: dict[str, list[str]] = {}
    for line in (SAMPLE / "seed.run").read_text().splitlines():
        by_query.setdefault(line.split()[0], []).append(line.split()[2])
    (directory / "rev.run").write_text("".join(
        f"{q} Q0 {d} {i} {100 - i} rev\n"
        for q, docs in by_query.items() for i, d in enumerate(reversed(docs), 1)))
    config = directory / "c.yaml"
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                      f"store: {store}\nruns_dir: {directory / 'pooled'}\n"
                      f"systems:\n  seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}\n"
                      f"  rev: {{kind: run, path: {directory / 'rev.run'}}}\n"
                      f"pool: {{depth: 5, order: docid}}\n"
                      + (f"judge: {judge}\n" if judge else ""))
    return config
