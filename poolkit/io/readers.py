"""Reader dispatch: any run file, any label file, its format told from its content.

The formats and how each is recognised are ``io/formats``' registries; these two entry points
are kept apart from the readers themselves so ``io/run`` and the format modules do not import
each other (the old ``io/run.read_any_run`` <-> ``io/ranked`` cycle).
"""

from __future__ import annotations

from pathlib import Path

from poolkit.io.formats import read_labels_as, read_run_as
from poolkit.io.qrels import Qrels
from poolkit.io.run import Run


def read_any_run(path: str | Path, order: str = "score", fmt: str | None = None) -> Run:
    """A run in any accepted format (see :mod:`poolkit.io.formats`), told from its content
    unless ``fmt`` names it; ``order`` applies to TREC run files."""
    return read_run_as(path, fmt, order)[0]


def read_labels(path: str | Path, fmt: str | None = None) -> Qrels:
    """Qrels from ``path`` in format ``fmt`` (None: detected from the content)."""
    return read_labels_as(path, fmt)
