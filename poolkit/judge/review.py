"""``poolkit judge --review-machine JUDGE[@VERSION]``: the pairs where a machine judge and an
assessor disagree most, for the assessor to adjudicate after the fact.

The walk is every pair both graded with different grades (the assessor's standing grade, a
``grade`` or ``import``; the judge version's latest grade), the largest |grade difference|
first, then the judge's confidence (the probability its recorded distribution gave its own
grade; pairs without a distribution after those with one), ties in the pool's judging order.

The assessor's answer is an ``adjudicate`` event, a person's (origin ``person``): nothing is
overwritten or deleted. Its ``ref`` is the assessor's earlier grade event and its ``note`` a
JSON document naming what was reviewed (``review_note``), so the log says which judge
version and which earlier grade the adjudication answered. As every adjudication it decides
its pair in people's labels under any policy (``policies.Labels``); the machine's grade it
answered enters no label unless that judge is named (``--with-machine``).

The normal judging screen never shows a machine grade; this walk may, since the assessor's
own grade came first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from poolkit.errors import PoolkitError
from poolkit.policies import counted_grade, grade_distribution, standing_readings
from poolkit.store.contract import StoreBackend

if TYPE_CHECKING:
    from poolkit.config import Config

Pair = tuple[str, str]


@dataclass(frozen=True)
class Disagreement:
    """One pair of the walk: the machine's grade and confidence, the assessor's grade and
    the event that gave it."""

    qid: str
    docid: str
    machine: int
    confidence: float | None
    mine: int
    mine_event: int

    @property
    def difference(self) -> int:
        return abs(self.machine - self.mine)


@dataclass(frozen=True)
class MachineReview:
    """A judge version's disagreements with an assessor, in review order."""

    judge: str
    version: str
    pairs: list[Disagreement]

    @property
    def label(self) -> str:
        return f"{self.judge}@{self.version}"

    def of(self, pair: Pair) -> Disagreement | None:
        return self._by_pair.get(pair)

    @property
    def _by_pair(self) -> dict[Pair, Disagreement]:
        cached: dict[Pair, Disagreement] | None = self.__dict__.get("_pairs")
        if cached is None:
            cached = {(d.qid, d.docid): d for d in self.pairs}
            object.__setattr__(self, "_pairs", cached)
        return cached

    def note(self, pair: Pair, note: str | None = None) -> str:
        """The ``note`` of the assessor's adjudication of ``pair`` (``review_note``)."""
        d = self.of(pair)
        if d is None:
            raise PoolkitError(f"{pair[0]}/{pair[1]} is not in the review of {self.label}")
        return review_note(self.judge, self.version, d, note)


def review_note(judge: str, version: str, d: Disagreement, note: str | None = None) -> str:
    """What an adjudication of a machine review records in its note: the judge version
    reviewed, its grade and confidence, the assessor's earlier grade and its event id (and
    the assessor's own note, if any)."""
    doc: dict[str, Any] = {"review_machine": {
        "judge": judge, "version": version, "machine_grade": d.machine,
        "confidence": d.confidence, "earlier_grade": d.mine, "earlier_event": d.mine_event}}
    if note:
        doc["note"] = note
    return json.dumps(doc, sort_keys=True)


def machine_review(store: StoreBackend, assessor: str, spec: str, where: str,
                   config: Config | None = None) -> MachineReview:
    """The review of machine judge ``spec`` (``NAME@VERSION``, or ``NAME``: the version
    ``config`` defines, ``machine_choice``) against ``assessor``: one line naming the store
    for an unknown judge or version, or an assessor without grades. An empty ``pairs``: they
    agree on every pair both graded."""
    from poolkit.machine_choice import MachineChoice
    from poolkit.store.judging import VOTE_KINDS, assessor_stacks

    version = MachineChoice(store, where, config).choose(spec, "--review-machine")
    mine = {pair: stack[-1] for pair, stack in assessor_stacks(store, assessor,
                                                                VOTE_KINDS).items()}
    if not mine:
        raise PoolkitError(f"{where}: --review-machine: {assessor!r} has no grades to review "
                           f"against {version.label} (judge first, or give another --assessor)")
    confidence = _confidences(store, version.judge, version.version)
    order = _pool_order(store)
    found = [Disagreement(q, d, grade, confidence.get((q, d)), mark.grade or 0, mark.id)
             for (q, d), grade in version.grades.items()
             if (mark := mine.get((q, d))) is not None and mark.grade != grade]
    found.sort(key=lambda x: (-x.difference,
                              -(x.confidence if x.confidence is not None else -1.0),
                              order.get((x.qid, x.docid), len(order)), x.qid, x.docid))
    return MachineReview(version.judge, version.version, found)


def _pool_order(store: StoreBackend) -> dict[Pair, int]:
    """Each pooled pair's place in the judging order (query order, then its order key)."""
    return {(qid, docid): i for i, (qid, docid, _v, _h) in enumerate(store.pool_rows())}


def _confidences(store: StoreBackend, judge: str, version: str) -> dict[Pair, float]:
    """The probability the judge version's standing grade of each pair had in the
    distribution it recorded (autojudge's note), where one was recorded; of several
    readings, that of the latest reading that gave the grade that counts."""
    out: dict[Pair, float] = {}
    for pair, readings in standing_readings(store, judge).get(version, {}).items():
        events = sorted(readings.values(), key=lambda e: e.id or 0)
        grade = counted_grade([e.grade or 0 for e in events])
        p = (grade_distribution([e for e in events if e.grade == grade][-1].note)
             or {}).get(grade)
        if p is not None:
            out[pair] = p
    return out


__all__ = ["Disagreement", "MachineReview", "machine_review", "review_note"]
