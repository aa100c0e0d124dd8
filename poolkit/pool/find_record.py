"""What ``poolkit pool --find N`` writes: the passages the classifier found as a new pool
version, their provenance naming the classifier (``io.provenance.CLASSIFIER``), not a run.

The classifier is registered as a system of kind ``classifier`` (its settings: the model,
the grades it was trained on, N), so the version records it as it was, as a run's version
records the run (its "run sha256" the hash of the found rows). Each found pair's source row
carries its rank among the passages outside the pool and its score; the round is the
find's number among the classifier's versions (``PoolProvenance.found``). In the new
version a query's found passages are judged in the classifier's order, best first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from poolkit.io.provenance import CLASSIFIER
from poolkit.store.contract import StoreBackend
from poolkit.store.records import NewMember

#: the judging order the store records for a find's version (best score first)
FIND_ORDER = "classifier"


def record_found(store: StoreBackend, found: Mapping[str, Sequence[tuple[str, float]]],
                 docs: Mapping[str, tuple[str, str]], n: int, settings: Mapping[str, Any],
                 note: str | None = None) -> int | None:
    """Add ``found`` (qid -> [(docid, score)], best first) as a pool version, in one
    transaction with the classifier's registration; the version (None: nothing new)."""
    members, sources = [], []
    for qid, hits in found.items():
        for rank, (docid, score) in enumerate(hits, 1):
            title, body = docs[docid]
            members.append(NewMember(qid, docid, title, body, float(rank)))
            sources.append((qid, docid, CLASSIFIER, rank, float(score)))
    if not members:
        return None  # nothing beyond the pool: the store is left as it was
    # the found ranking's hash stands where a run's file hash stands (the pool report's
    # "run sha256" per version): what this round found, row by row
    text = "".join(f"{q} {d} {r} {sc!r}\n" for q, d, _, r, sc in sources)
    with store.transaction():
        store.register_system(CLASSIFIER, "classifier", dict(settings),
                              hashlib.sha256(text.encode()).hexdigest())
        return store.add_pool_version({CLASSIFIER: n}, FIND_ORDER, members, sources, note=note)
