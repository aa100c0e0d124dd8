"""Which files in the runs folder poolkit wrote, so that ``pool`` replaces only those.

``poolkit pool`` writes ``NAME.run``, ``NAME.json`` (and ``NAME.fetch.run``) for each system
in the runs folder (``runs_dir``). A file there of that name that poolkit did not write is a
user's (their own ``bm25.run`` in a folder they named as ``runs_dir``): ``pool`` refuses it
before any work, never writes over it. A file is poolkit's when what poolkit recorded of
its last pool says so by hash:

- ``NAME.run`` / ``NAME.fetch.run``: its sha256 is the run (or candidates) hash the store
  registered for system NAME, or that ``NAME.json`` beside it records;
- ``NAME.json``: it is the settings the store registered for NAME, or a settings file of
  poolkit's own shape for system NAME (it names the file's hash and poolkit's version).

The settings file counts on its own so that a collection whose store was deleted to start
over pools again over its old files.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

#: the run hashes a settings file (or a store registration's settings) may record
RUN_HASHES = ("run_sha256", "validated_run_sha256")
FETCH_HASHES = ("fetch_run_sha256",)


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def _settings_file(path: Path, name: str) -> dict[str, Any] | None:
    """``NAME.json`` when it is a settings file poolkit wrote for system ``name``."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("system"), dict):
        return None
    versions = doc.get("versions")
    if doc["system"].get("name") != name or not isinstance(versions, dict) \
            or "poolkit" not in versions or not isinstance(doc.get("run_sha256"), str):
        return None
    return doc


def foreign(path: Path, name: str, registered: Mapping[str, Any] | None) -> bool:
    """Whether ``path`` (one of system ``name``'s files in the runs folder) exists and
    poolkit did not write it; ``registered``: the settings the store registered for
    ``name``, if any."""
    if not path.is_file():
        return False
    settings = _settings_file(path.with_name(f"{name}.json"), name)
    if path.name == f"{name}.json":
        return settings is None
    keys = FETCH_HASHES if path.name == f"{name}.fetch.run" else RUN_HASHES
    known = {r.get(k) for r in (registered, settings) if r for k in keys} - {None}
    return _sha256(path) not in known


def foreign_files(outputs: Mapping[str, Mapping[str, Path]],
                  registered: Mapping[str, Mapping[str, Any]]) -> Iterable[tuple[str, str, Path]]:
    """(system, what, path) of every output (system -> what -> path, as
    ``run_systems.outputs_of`` gives them) that exists and that poolkit did not write."""
    for name, files in outputs.items():
        for what, path in files.items():
            if foreign(path, name, registered.get(name)):
                yield name, what, path
