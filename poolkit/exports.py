"""Export formats: how ``poolkit export`` writes the store's current labels, and the files
written beside them (the unresolved pairs, the sample design).

``EXPORT_FORMATS`` is the registry (name -> ``ExportFormat``); the CLI's choices and help come
from it. Adding a format is one render function here (or in io/, with its reader) and one
entry: a render function gets the resolved labels (``ExportInput``) and returns the text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
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
    """TREC qrels; a machine judge's line names the judge in column 2 (``JUDGE@VERSION``, where
    people's lines have ``0``), so the file says which grades are a machine's."""
    from poolkit.io.qrels import machine_mark, qrels_text

    marks = {q: {d: machine_mark(*by) for d, by in docs.items()}
             for q, docs in data.labels.machine.items()}
    return qrels_text(data.grades, marks)


def _golden(data: ExportInput) -> str:
    from poolkit.io.golden import golden_text

    prov = provenance(data.store, data.labels, data.pool_version, data.now.date().isoformat())
    texts = {q: r.text for q, r in data.store.queries().items()}
    left_out = len(data.labels.unresolved)
    header = [f"poolkit export from {data.store_name}: policy {data.policy}, "
              f"{len(data.labels)} labels, " + (
                  f"{left_out} unresolved pair{'s' if left_out > 1 else ''} left out, "
                  if left_out else "") + data.now.isoformat(timespec="seconds")]
    if "machine" in data.labels.origin:
        header.append("machine judges " + ", ".join(data.labels.origin["machine"]) +
                      " grade the pairs no person graded (a person's grade wins); provenance "
                      "names each machine-graded doc")
    return golden_text(data.grades, texts, prov, header, notes=data.notes)


#: name -> format: the one registry of export formats
EXPORT_FORMATS: dict[str, ExportFormat] = {f.name: f for f in (
    ExportFormat("qrels", "TREC qrels (query 0 doc grade)", _qrels),
    ExportFormat("golden", "golden.yaml with per-query provenance and the query texts", _golden),
)}


def export_text(name: str, data: ExportInput) -> str:
    return EXPORT_FORMATS[name].render(data)


def notes_by_pair(store: StoreBackend, assessors: Sequence[str] | None,
                  ) -> dict[str, dict[str, list[str]]]:
    """``{qid: {docid: ["alice (2): why"]}}``: each note with whose grade it explains."""
    from poolkit.store.notes import notes

    out: dict[str, dict[str, list[str]]] = {}
    for n in notes(store, list(assessors) if assessors else None):
        ruled = " adjudicated" if n.grade_kind == "adjudicate" else ""
        grade = "" if n.grade is None else f" ({n.grade}{ruled})"
        out.setdefault(n.qid, {}).setdefault(n.docid, []).append(f"{n.assessor}{grade}: {n.text}")
    return out


def design_rows(store: StoreBackend,
                max_version: int | None) -> list[tuple[str, str, str, float, int]]:
    """(qid, docid, stratum, inclusion probability, drawn) of every pooled pair: a sampled
    pool's recorded design, and any pair pooled outside it (depth-k) as stratum 'depth',
    judged with probability 1 (what ``--sample`` writes and ``--unjudged -1`` reads).

    ``drawn`` is 0 for a pair the design did not draw (it is not in the judging queue), else
    the pair's place in its stratum's part of the judging queue (1 first): the order in which
    the queue offers them, so a reader can tell a judged prefix from a pick."""
    pooled = store.pool_rows(max_version)
    rows = [(r.qid, r.docid, r.stratum, r.inclusion) for r in store.pool_sample(max_version)]
    stratum_of = {(q, d): s for q, d, s, _ in rows}
    queued: dict[tuple[str, str], int] = {}
    placed: dict[tuple[str, str], int] = {}
    for q, d, _, _ in pooled:
        key = (q, stratum_of.get((q, d), "depth"))
        placed[key] = queued[(q, d)] = placed.get(key, 0) + 1
    out = [(q, d, s, p, queued.get((q, d), 0)) for q, d, s, p in rows]
    out += [(q, d, "depth", 1.0, queued[(q, d)]) for q, d, _, _ in pooled
            if (q, d) not in stratum_of]
    return sorted(out)


def unresolved_json(labels: Labels, policy: str) -> str:
    """The ``--unresolved`` file: the pairs ``policy`` left out, with their grades."""
    return json.dumps({"policy": policy, "unresolved": [
        {"query": u.qid, "doc": u.docid, "grades": u.grades, "reason": u.reason}
        for u in labels.unresolved]}, indent=2) + "\n"

