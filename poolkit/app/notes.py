"""``notes``: the assessors' notes, per assessor and query, with the grade each explains.

Light at import: the command line's parser takes ``NotesReport.formats`` from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from poolkit.reports import Report, register_report

if TYPE_CHECKING:
    from poolkit.collection import Collection
    from poolkit.store.notes import Note


@register_report
@dataclass(frozen=True)
class NotesReport(Report):
    """``poolkit notes``: every note kept by the filters, by assessor, query and time."""

    kind = "notes"

    store: str
    notes: list[Note]

    def to_dict(self) -> dict[str, Any]:
        return {"store": self.store, "notes": [n.to_dict() for n in self.notes]}

    def render_table(self) -> str:
        """An assessor's line, then per query one line per note ("" when there is none)."""
        out: list[str] = []
        last: tuple[str, str] | None = None
        for n in self.notes:
            if last is None or last[0] != n.assessor:
                out.append(f"{n.assessor}\n")
            if last != (n.assessor, n.qid):
                out.append(f"  query {n.qid}\n")
            grade = "-" if n.grade is None else str(n.grade)
            ruling = " (adjudicated)" if n.grade_kind == "adjudicate" else ""
            out.append(f"    {n.docid}  grade {grade}{ruling}  {n.at[:16]}  {n.text}\n")
            last = (n.assessor, n.qid)
        return "".join(out)


def list_notes(collection: Collection, assessors: Sequence[str] | None = None,
               queries: Sequence[str] | None = None) -> NotesReport:
    """The notes of ``assessors`` (None: everyone's) on ``queries`` (None: all); a name the
    store does not know is an error (a typo, not "no notes")."""
    from poolkit.errors import StoreError, did_you_mean
    from poolkit.store.notes import notes

    store = collection.store
    names = collection.assessors(assessors, "--assessor")
    known = store.queries()
    for qid in queries or ():
        if qid not in known:  # a store may hold thousands: no list, a suggestion
            raise StoreError(f"{collection.config.store_label}: --query: no query {qid!r} in "
                             f"the store{did_you_mean(qid, known)}")
    return NotesReport(collection.config.store_label,
                       notes(store, names, list(queries) if queries else None))
