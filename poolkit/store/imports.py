"""Record an existing label file (golden.yaml or qrels) in the store as judgments by a source.

Imported grades are ``import`` events under an assessor name of the user's choosing (e.g.
``nist`` or ``golden``). Importing the same file twice adds nothing; importing a changed
file appends only the pairs whose grade differs, so history is kept, never overwritten.
"""

from __future__ import annotations

from pathlib import Path

from poolkit.io.qrels import Qrels
from poolkit.store.contract import StoreBackend
from poolkit.store.store import Event, now


def import_labels(store: StoreBackend, qrels: Qrels, assessor: str,
                  source: str | None = None) -> int:
    """Append import events for every grade not already standing; returns how many."""
    standing = store.current_grades()
    source = source or (Path(qrels.path).name if qrels.path else qrels.name)
    stamp = now()
    events = []
    for qid, docs in qrels.grades.items():
        for docid, grade in docs.items():
            current = standing.get((qid, docid), {}).get(assessor)
            if current is not None and current.grade == grade:
                continue
            events.append(Event(qid=qid, docid=docid, assessor=assessor, kind="import",
                                grade=grade, judged_at=stamp, source=source))
    return store.record_events(events)
