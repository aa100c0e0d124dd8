"""Reusing a system's stored run when nothing that makes it has changed.

``poolkit pool`` writes ``NAME.run`` and ``NAME.json`` for every system. Pooling again with
the same config would search again for the same answer: at a million passages and depth
1,000 that is the slow part of a re-pool. A system whose kind declares its run a function of
what it records (``SystemKind.reusable``: BM25, whose settings name the corpus content hash)
is not searched again when its settings file records exactly the same system config,
retriever settings, queries (by content hash) and package versions, and its run file still
has the hash recorded; anything else, or any doubt, searches again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from poolkit.io.corpus import QueryRecord
from poolkit.io.run import Run

#: what a stored settings file must record, exactly, for its run to be reused
IDENTITY = ("system", "retriever", "queries_sha256", "versions")


def queries_sha256(queries: Sequence[QueryRecord]) -> str:
    """Hash of the queries a run answers (ids and texts, in order)."""
    h = hashlib.sha256()
    for q in queries:
        h.update(json.dumps([q.qid, q.text], ensure_ascii=False).encode() + b"\n")
    return h.hexdigest()


def _normal(value: Any) -> Any:
    """As the settings file holds it (JSON, unknown types as text)."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def stored_run(runs_dir: Path, name: str, identity: Mapping[str, Any],
               ) -> tuple[Run, dict[str, Any]] | None:
    """System ``name``'s run and settings as last written, if they are what ``identity``
    (the ``IDENTITY`` keys) would make now; else None."""
    from poolkit.errors import PoolkitError
    from poolkit.io.run import read_run

    settings_path, run_path = runs_dir / f"{name}.json", runs_dir / f"{name}.run"
    if not settings_path.is_file() or not run_path.is_file():
        return None
    try:
        settings = json.loads(settings_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(settings, dict) or any(
            settings.get(key) != _normal(identity[key]) for key in IDENTITY):
        return None
    try:
        run = read_run(run_path)
    except (OSError, PoolkitError):
        return None
    if run.sha256 != settings.get("run_sha256"):
        return None  # edited or replaced since it was written
    run.name = run.tag = name
    return run, settings
