"""Export formats: how ``poolkit export`` writes the store's current labels.

``EXPORT_FORMATS`` is the registry (name -> ``ExportFormat``); the CLI's choices and help come
from it. Adding a format is one render function here (or in io/, with its reader) and one
entry: a render function gets the resolved labels (``ExportInput``) and returns the text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from poolkit.policies import Labels, provenance
from poolkit.store.contract import StoreBackend


@dataclass(frozen=True)
class ExportInput:
    """What a format renders: the labels (doc ids sorted within each query, so two exports of
    one store diff cleanly) and where they came from."""

    labels: Labels
    grades: dict[str, dict[str, int]]
    store: StoreBackend
    policy: str
    pool_version: int | None
    now: datetime
    store_name: str = ""  # how the header names the store (a file name, or a URI without secrets)
    #: ``{qid: {docid: ["alice (2): why"]}}``: assessors' notes, written beside their grades
    notes: dict[str, dict[str, list[str]]] = field(default_factory=dict)


@dataclass(frozen=True)
class ExportFormat:
    name: str
    summary: str
    render: Callable[[ExportInput], str]


def _qrels(data: ExportInput) -> str:
    from poolkit.io.qrels import qrels_text

    return qrels_text(data.grades)


def _golden(data: ExportInput) -> str:
    from poolkit.io.golden import golden_text

    prov = provenance(data.store, data.labels, data.pool_version, data.now.date().isoformat())
    texts = {q: r.text for q, r in data.store.queries().items()}
    left_out = len(data.labels.unresolved)
    header = [f"poolkit export from {data.store_name}: policy {data.policy}, "
              f"{len(data.labels)} labels, " + (
                  f"{left_out} unresolved pair{'s' if left_out > 1 else ''} left out, "
                  if left_out else "") + data.now.isoformat(timespec="seconds")]
    return golden_text(data.grades, texts, prov, header, notes=data.notes)


#: name -> format: the one registry of export formats
EXPORT_FORMATS: dict[str, ExportFormat] = {f.name: f for f in (
    ExportFormat("qrels", "TREC qrels (query 0 doc grade)", _qrels),
    ExportFormat("golden", "golden.yaml with per-query provenance and the query texts", _golden),
)}


def export_text(name: str, data: ExportInput) -> str:
    return EXPORT_FORMATS[name].render(data)
