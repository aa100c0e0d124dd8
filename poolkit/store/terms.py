"""Words an assessor added to a query's highlighting (HiCAL's keyword bar): remembered per
assessor and query, so they are there again in the next session."""

from __future__ import annotations

from poolkit.store.contract import StoreBackend
from poolkit.store.records import stamp


def added_terms(store: StoreBackend, assessor: str, qid: str) -> list[str]:
    """The assessor's terms for the query, in the order they were added."""
    return store.assessor_terms(assessor, qid)


def toggle_term(store: StoreBackend, assessor: str, qid: str, term: str) -> bool:
    """Add ``term`` (lowercased, spaces folded), or remove it when it is there; True when
    added."""
    term = " ".join(term.lower().split())
    if not term:
        return False
    return store.toggle_assessor_term(assessor, qid, term, stamp())
