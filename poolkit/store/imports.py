"""Record an existing label file (golden.yaml or qrels) in the store as judgments by a source.

Imported grades are ``import`` events under an assessor name of the user's choosing (e.g.
``nist`` or ``golden``). Importing the same file twice adds nothing; importing a changed
file appends only the pairs whose grade differs, so history is kept, never overwritten.
"""

from __future__ import annotations

from pathlib import Path

from poolkit.errors import InputError
from poolkit.io.qrels import Qrels
from poolkit.io.validate import UNJUDGED, grade_problem
from poolkit.store.contract import StoreBackend
from poolkit.store.records import Event, now


def split_unjudged(qrels: Qrels) -> tuple[Qrels, int]:
    """The grades to import and how many pairs were marked -1 ("pooled, not judged").

    A grade off poolkit's scale (``poolkit.io.validate``) is an InputError naming its file
    and line: an import must not record what ``export`` would then write and ``score``
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
            problem = grade_problem(grade, allow_unjudged=True)
            if problem is not None:
                raise InputError(qrels.path or qrels.name, qrels.source_lines.get((qid, docid)),
                                 f"query {qid!r} doc {docid!r}: {problem}")
            graded.setdefault(qid, {})[docid] = grade
    return Qrels(graded, name=qrels.name, sha256=qrels.sha256, path=qrels.path,
                 source_lines=qrels.source_lines), unjudged


def import_labels(store: StoreBackend, qrels: Qrels, assessor: str,
                  source: str | None = None) -> int:
    """Append import events for every grade not already standing; returns how many.

    What stands is read inside the write transaction that appends, so concurrent imports of
    one file queue and the later ones find everything standing: importing the same file
    again adds nothing, however many processes do it at once.
    """
    source = source or (Path(qrels.path).name if qrels.path else qrels.name)
    stamp = now()
    with store.transaction():
        standing = store.current_grades()
        events = []
        for qid, docs in qrels.grades.items():
            for docid, grade in docs.items():
                current = standing.get((qid, docid), {}).get(assessor)
                if current is not None and current.grade == grade:
                    continue
                events.append(Event(qid=qid, docid=docid, assessor=assessor, kind="import",
                                    grade=grade, judged_at=stamp, source=source))
        return store.record_events(events)
