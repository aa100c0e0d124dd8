"""What a sample design says of the labels an estimate reads: the caveats the score prints.

A sampled pool's estimators (xinfAP, infNDCG, statAP, R_est) are unbiased only over a random
sample of each stratum. Three things break that, and each is said on its own line beside the
estimates (stderr, and the score report's ``sample`` key):

* labels on pairs the design did not draw (an import, a judgment outside the sample): the
  estimators leave them out (:func:`poolkit.score.inferred.drawn_labels`); the line says how
  many;
* a small judged share of the drawn pairs: the estimate rests on few judgments;
* judged drawn pairs that are not the first of their stratum's judging order. The law this
  rests on: a sampled pool's drawn pairs are queued in an order that is random within each
  stratum (the draw is the first n of a seeded hash order, and the default judging order,
  ``shuffle``, is a seeded hash blind to rank), so the first m of a stratum's queue are a
  simple random sample of it for every m. A judged set that is not such a prefix was picked
  (labels imported, or judged out of queue), and nothing says it is random. Under a judging
  order that is not random (``priority``, ``mtf``) a prefix is no random sample either;
  ``poolkit pool`` says so of the design (``pool.report.sample_design``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from poolkit.io.sample import PoolSample

#: Below this judged share of the drawn pairs an estimate is said to rest on few judgments.
SMALL_SHARE = 0.5


@dataclass(frozen=True)
class SampleCheck:
    """Counts over every query the labels and the design share."""

    drawn: int
    judged: int
    #: labels on pairs the design did not draw (left out of every estimate)
    undrawn_labels: int
    #: (query, stratum) cells whose judged drawn pairs are not a prefix of the queue
    picked: int
    cells: int
    marked: bool

    @property
    def share(self) -> float:
        return self.judged / self.drawn if self.drawn else 0.0

    def lines(self) -> list[str]:
        """One line per caveat that holds (none for a design judged in order, in full)."""
        if not self.marked:
            return ["sample: the design file does not mark which pairs were drawn (4 columns): "
                    "every label is read as drawn; re-export it with poolkit export --sample"]
        out = []
        if self.undrawn_labels:
            out.append(f"sample: {self.undrawn_labels} label(s) on pairs the design did not "
                       f"draw are left out of every estimate (xinfAP, infNDCG, statAP, R_est): "
                       f"they are not a random sample of the pool")
        if self.share < SMALL_SHARE:
            out.append(f"sample: only {self.judged} of {self.drawn} drawn pairs are judged "
                       f"({self.share:.0%}): the estimates rest on few judgments")
        if self.picked:
            out.append(f"sample: in {self.picked} of {self.cells} query strata the judged drawn "
                       f"pairs are not the first of the judging queue: they were picked, not "
                       f"drawn at random, and the estimates may be biased")
        return out

    def to_dict(self) -> dict[str, object]:
        return {"drawn": self.drawn, "judged": self.judged,
                "undrawn_labels": self.undrawn_labels, "picked_strata": self.picked,
                "strata": self.cells, "marked": self.marked, "caveats": self.lines()}


def check_sample(grades: Mapping[str, Mapping[str, int]],
                 sample: Mapping[str, PoolSample]) -> SampleCheck:
    """The design's caveats for these labels (queries of the labels the design covers)."""
    drawn = judged = undrawn = picked = cells = 0
    marked = all(s.drawn is not None for s in sample.values())
    for qid, design in sample.items():
        labels = grades.get(qid, {})
        places = design.drawn or dict.fromkeys(design.strata, 1)
        undrawn += sum(1 for d, g in labels.items() if g >= 0 and places.get(d, 0) == 0)
        judged_at: dict[str, list[int]] = {}
        for d, place in places.items():
            if place:
                drawn += 1
                at = judged_at.setdefault(design.strata[d], [])
                if labels.get(d, -1) >= 0:
                    at.append(place)
        for at in judged_at.values():
            cells += 1
            judged += len(at)
            picked += sorted(at) != list(range(1, len(at) + 1))
    return SampleCheck(drawn, judged, undrawn, picked, cells, marked)
