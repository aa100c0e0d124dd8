"""Any label file, its format told from its content (see :mod:`poolkit.io.formats`): TREC
qrels, BEIR qrels, golden.yaml or a JSON qrels dictionary, compressed or not."""

from __future__ import annotations

from pathlib import Path

from poolkit.io.qrels import Qrels


def read_labels(path: str | Path, fmt: str | None = None) -> Qrels:
    """Qrels from ``path`` in format ``fmt`` (None: detected from the content)."""
    from poolkit.io.formats import read_labels_as

    return read_labels_as(path, fmt)
