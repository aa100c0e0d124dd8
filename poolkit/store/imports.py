"""Record an existing label file (golden.yaml or qrels) in the store as judgments by a source.

Imported grades are ``import`` events under an assessor name of the user's choosing (e.g.
``nist`` or ``golden``). Importing the same file twice adds nothing; importing a changed
file appends only the pairs whose grade differs, so history is kept, never overwritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from poolkit.errors import InputError
from poolkit.io.qrels import Qrels
from poolkit.io.scale import DEFAULT_SCALE, GradeScale
from poolkit.io.validate import UNJUDGED, grade_problem
from poolkit.store.contract import StoreBackend
from poolkit.store.records import MACHINE, PERSON, Event, now


def split_unjudged(qrels: Qrels, scale: GradeScale = DEFAULT_SCALE) -> tuple[Qrels, int]:
    """The grades to import and how many pairs were marked -1 ("pooled, not judged").

    A grade off the collection's ``scale`` (``poolkit.io.validate``) is an InputError naming
    its file and line: an import must not record what ``export`` would then write and ``score``
    refuse. -1 is TREC's mark for a pooled pair nobody judged: it is not a grade, so it is
    counted and left out, never recorded as one.
    """
    graded: dict[str, dict[str, int]] = {}
    unjudged = 0
    for qid, docs in qrels.grades.items():
        for docid, grade in docs.items():
            if grade == UNJUDGED:
                unjudged += 1
                continue
            problem = grade_problem(grade, allow_unjudged=True, scale=scale)
            if problem is not None:
                raise InputError(qrels.path or qrels.name, qrels.source_lines.get((qid, docid)),
                                 f"query {qid!r} doc {docid!r}: {problem}")
            graded.setdefault(qid, {})[docid] = grade
    return Qrels(graded, name=qrels.name, sha256=qrels.sha256, path=qrels.path,
                 source_lines=qrels.source_lines), unjudged


def machine_import_version(model: str) -> str:
    """The judge version of a machine judge's imported labels: 16 hex digits of a hash of
    ("import", MODEL), so labels of another model are another version."""
    text = json.dumps(["import", model])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def import_labels(store: StoreBackend, qrels: Qrels, assessor: str,
                  source: str | None = None, machine: str | None = None,
                  notes: Mapping[tuple[str, str], str] | None = None) -> int:
    """Append import events for every grade not already standing; returns how many.

    ``machine`` (a model id) records them as machine judge ``assessor``'s events (origin
    ``machine``, ``machine_import_version(machine)`` as their judge version, the model in
    the note), compared with what that judge has standing, never with people's grades.
    ``notes``: a note for some pairs' events (a person's grade the file said was a machine
    judge's, taken all the same: ``app.machine_files.accepted_note``).

    What stands is read inside the write transaction that appends, so concurrent imports of
    one file queue and the later ones find everything standing: importing the same file
    again adds nothing, however many processes do it at once.
    """
    source = source or (Path(qrels.path).name if qrels.path else qrels.name)
    stamp = now()
    origin, version, note = PERSON, None, None
    if machine is not None:
        origin, version = MACHINE, machine_import_version(machine)
        note = json.dumps({"kind": "import", "model": machine})
    with store.transaction():
        standing = store.current_grades(machine=assessor if machine is not None else None)
        events = []
        for qid, docs in qrels.grades.items():
            for docid, grade in docs.items():
                current = standing.get((qid, docid), {}).get(assessor)
                if current is not None and current.grade == grade:
                    continue
                events.append(Event(qid=qid, docid=docid, assessor=assessor, kind="import",
                                    grade=grade, judged_at=stamp, source=source,
                                    origin=origin, judge_version=version,
                                    note=(notes or {}).get((qid, docid), note)))
        return store.record_events(events)
