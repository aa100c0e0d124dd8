"""What a pooling or judging-order strategy sees of one query's pool.

``Hit``: one run's reason for pooling a document (it ranked it ``rank`` with ``score``).
``Candidate``: a document a pooling strategy selects, with every hit that brought it and,
for sampled pools, its design record (``io.sample.SampledPair``: stratum, inclusion
probability, drawn or not). ``QueryPool``: a query's pool as a
judging-order strategy sees it, with provenance (which run brought which document at which
rank), in the stored judging order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from poolkit.io.sample import SampledPair


@dataclass(frozen=True)
class Hit:
    system: str
    rank: int
    score: float | None = None


@dataclass(frozen=True)
class Candidate:
    """A pooled document as a pooling strategy selected it.

    ``design`` is its record in a sampled pool (None for depth-k: every pooled document is
    judged); the properties read it: ``stratum`` names its stratum, ``inclusion`` is the
    probability the design gave it of being judged (1.0 without a design), ``sampled`` is
    False for a pooled document the sample left unjudged (recorded so the estimators know
    the pool, not only the sample).
    """

    docid: str
    hits: tuple[Hit, ...]
    design: SampledPair | None = None

    @property
    def stratum(self) -> str | None:
        return self.design.stratum if self.design is not None else None

    @property
    def inclusion(self) -> float:
        return self.design.inclusion if self.design is not None else 1.0

    @property
    def sampled(self) -> bool:
        return self.design.sampled if self.design is not None else True

    @property
    def ranks(self) -> list[int]:
        return [h.rank for h in self.hits]


@dataclass(frozen=True)
class QueryPool:
    """One query's pool: documents in stored judging order and the hits behind each.

    What the guided orders read besides the runs, empty unless the caller has it: ``query``
    (the query's text), ``texts`` (each pooled passage's text; ``cal``) and ``machine`` (a
    machine judge's grade per passage, its expected grade when it gave a distribution;
    ``judge`` and ``cal``). A strategy never shows them on the screen."""

    qid: str
    docs: tuple[str, ...]
    hits: Mapping[str, tuple[Hit, ...]] = field(default_factory=dict)
    query: str = ""
    texts: Mapping[str, str] = field(default_factory=dict)
    machine: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, qid: str, candidates: Sequence[Candidate]) -> QueryPool:
        return cls(qid, tuple(c.docid for c in candidates),
                   {c.docid: c.hits for c in candidates})

    def ranks(self, docid: str) -> list[int]:
        return [h.rank for h in self.hits.get(docid, ())]

    def systems(self) -> list[str]:
        """Every run that brought something in, in first-seen order."""
        seen: dict[str, None] = {}
        for d in self.docs:
            for h in self.hits.get(d, ()):
                seen.setdefault(h.system, None)
        return list(seen)

    def run_lists(self) -> dict[str, list[str]]:
        """Each run's pooled documents, best rank first (what MTF and bandits walk)."""
        lists: dict[str, list[tuple[int, str]]] = {}
        for d in self.docs:
            for h in self.hits.get(d, ()):
                lists.setdefault(h.system, []).append((h.rank, d))
        return {s: [d for _, d in sorted(pairs)] for s, pairs in lists.items()}
