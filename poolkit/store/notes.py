"""Assessors' notes on passages, as ``poolkit notes`` and ``poolkit export`` read them.

A note is a ``note`` event (never undone: a later note adds to it). Each is listed with the
grade it explains: the assessor's standing grade on the pair (``adjudicate`` events for an
adjudicator), or None when they have none.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from poolkit.store.contract import StoreBackend
from poolkit.store.judging import VOTE_KINDS, standing_votes


@dataclass(frozen=True)
class Note:
    assessor: str
    qid: str
    docid: str
    text: str
    at: str
    grade: int | None     # the assessor's standing grade on the pair, if any
    grade_kind: str | None  # "grade", "import" or "adjudicate"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["query"], out["doc"], out["note"] = out.pop("qid"), out.pop("docid"), out.pop("text")
        return out


def notes(store: StoreBackend, assessors: list[str] | None = None,
          queries: list[str] | None = None) -> list[Note]:
    """Every note, by assessor, then query in store order, then when it was written."""
    votes = standing_votes(store, VOTE_KINDS)
    rulings = standing_votes(store, ("adjudicate",))
    query_rank = {q: i for i, q in enumerate(store.queries())}
    out = []
    for e in store.events(kinds=["note"]):
        qid, docid, assessor, text, at = e.qid, e.docid, e.assessor, e.note, e.judged_at
        if (assessors and assessor not in assessors) or (queries and qid not in queries):
            continue
        mark = (rulings.get((qid, docid), {}).get(assessor)
                or votes.get((qid, docid), {}).get(assessor))
        out.append(Note(assessor, qid, docid, text or "", at,
                        mark.grade if mark else None, mark.kind if mark else None))
    out.sort(key=lambda n: (n.assessor, query_rank.get(n.qid, len(query_rank)), n.qid))
    return out
