"""The base of the typed reports (pool, status, compare, reusability, agreement).

A report is a frozen dataclass whose fields are its top-level JSON keys, typed; ``to_dict``
is the JSON-ready document (keys in field order; a field whose metadata says ``omit_none``
is left out while None). Read access by key (``report["queries"]``) is kept so a table
renderer can take the report or its dict alike. The table is always a rendering of the same
object, so the formats cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import fields
from typing import Any


class Report(Mapping[str, Any]):
    """Base of the report dataclasses: ``to_dict`` and read-only mapping access."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is None and f.metadata.get("omit_none"):
                continue
            out[f.metadata.get("key", f.name)] = value
        return out

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())
