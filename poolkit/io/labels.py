"""Any label file: golden.yaml (by .yaml/.yml/.json extension) or TREC qrels (anything else)."""

from __future__ import annotations

from pathlib import Path

from poolkit.io.golden import read_golden
from poolkit.io.qrels import Qrels, read_qrels


def read_labels(path: str | Path) -> Qrels:
    if Path(path).suffix.lower() in (".yaml", ".yml", ".json"):
        return read_golden(path)
    return read_qrels(path)
