"""JSON Schemas of every ``--format json`` report, shipped with the package.

One file per report, ``NAME.schema.json`` in this folder; the registry is the folder, so a
report added later (``simulate``, ``tests``) adds one file and nothing else. ``poolkit schema
NAME`` prints one; the tests validate real outputs against them, so the contract of each
report is written once and checked.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from poolkit.errors import PoolkitError, one_of

SUFFIX = ".schema.json"


def schema_names() -> list[str]:
    """Every report with a schema, sorted."""
    return sorted(p.name[: -len(SUFFIX)] for p in resources.files(__package__).iterdir()
                  if p.name.endswith(SUFFIX))


def schema_text(name: str) -> str:
    """The schema of report ``name`` as shipped (JSON text)."""
    names = schema_names()
    if name not in names:
        raise PoolkitError(one_of(name, names, "report schema"))
    return (resources.files(__package__) / f"{name}{SUFFIX}").read_text(encoding="utf-8")


def load_schema(name: str) -> dict[str, Any]:
    return json.loads(schema_text(name))  # type: ignore[no-any-return]
