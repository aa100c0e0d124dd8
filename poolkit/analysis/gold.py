"""Each assessor's agreement with the gold set (``poolkit gold``), as ``status`` shows it.

An assessor's answer on a gold pair is her standing ``gold`` event on it (the latest not
undone), compared with the pair's known grade in the current gold set:

- ``n``: gold pairs she answered; ``exact``: the share answered with the known grade;
- ``kappa``: Cohen's kappa with quadratic weights on the store's scale (a one-grade slip
  costs little, a 0 for a 3 much), with ``low``/``high`` its 95% percentile bootstrap
  interval over her gold pairs (``analysis.stats``, as ``agreement`` computes it); None
  under two answers or when kappa is undefined (every grade the same);
- ``bias``: her mean grade minus gold's: above ``BIAS_FLAG`` she is flagged ``lenient``,
  below minus it ``strict`` (from ``MIN_FLAGGED`` answers on);
- ``low``: flagged when even the interval's top is under ``LOW_KAPPA``;
- ``drift``: agreement over time. Her answers in the order given: exact agreement on the
  last ``DRIFT_WINDOW`` against all before them (from twice the window on); ``flagged``
  when the recent share is ``DRIFT_DROP`` or more below the earlier one (an assessor who
  tires or slides by the afternoon), and then ``drift`` is among the flags.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from poolkit.store.contract import StoreBackend

BIAS_FLAG = 0.5      # grades: mean distance from gold that flags lenient or strict
LOW_KAPPA = 0.4      # quadratic kappa the interval's top must reach
MIN_FLAGGED = 5      # gold answers before any flag
DRIFT_WINDOW = 10    # the recent answers drift compares with all before them
DRIFT_DROP = 0.2     # fall in exact agreement that flags drift
RESAMPLES = 1000


@dataclass(frozen=True)
class GoldDrift:
    """Exact agreement on the last ``window`` gold answers and on those before."""

    window: int
    recent: float
    earlier: float
    flagged: bool

    def to_dict(self) -> dict[str, Any]:
        return {"window": self.window, "recent": self.recent, "earlier": self.earlier,
                "flagged": self.flagged}


@dataclass(frozen=True)
class GoldAgreement:
    """One assessor against the gold set (see the module's docstring)."""

    n: int
    exact: float | None = None
    kappa: float | None = None
    low: float | None = None
    high: float | None = None
    bias: float | None = None
    flags: tuple[str, ...] = ()
    drift: GoldDrift | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "exact": self.exact, "kappa": self.kappa, "low": self.low,
                "high": self.high, "bias": self.bias, "flags": list(self.flags),
                "drift": self.drift.to_dict() if self.drift is not None else None}


def gold_answers(store: StoreBackend) -> dict[str, list[tuple[int, int]]]:
    """assessor -> (her grade, gold's) on each gold pair of the current set she answered,
    in the order of her standing answers."""
    known = {(g.qid, g.docid): g.grade for g in store.gold_pairs()}
    standing: dict[tuple[str, str, str], tuple[int, int]] = {}
    for event_id, _, grade, qid, docid, assessor in store.live_marks(["gold"]):
        if (qid, docid) in known and grade is not None:
            key = (assessor, qid, docid)
            standing.pop(key, None)  # the latest live answer stands, in its own place
            standing[key] = (event_id, grade)
    out: dict[str, list[tuple[int, int]]] = {}
    for (assessor, qid, docid), (_, grade) in sorted(standing.items(), key=lambda kv: kv[1][0]):
        out.setdefault(assessor, []).append((grade, known[(qid, docid)]))
    return out


def gold_agreement(store: StoreBackend) -> dict[str, GoldAgreement]:
    """Each assessor who answered a gold pair of the current set: her ``GoldAgreement``."""
    grades = store.grade_scale.grades
    return {name: agreement_with_gold(pairs, grades)
            for name, pairs in sorted(gold_answers(store).items())}


def agreement_with_gold(pairs: list[tuple[int, int]], grades: Sequence[int]) -> GoldAgreement:
    """The figures of (assessor's grade, gold's grade) answers, in the order given."""
    from poolkit.analysis.stats import bootstrap_kappa, cohen_kappa

    if not pairs:
        return GoldAgreement(0)
    mine, gold = [a for a, _ in pairs], [g for _, g in pairs]
    exact = _share(pairs)
    kappa = cohen_kappa(mine, gold, grades, "quadratic") if len(pairs) >= 2 else math.nan
    interval = bootstrap_kappa(mine, gold, grades, "quadratic", RESAMPLES) \
        if not math.isnan(kappa) else None
    low, high = (round(interval[0], 4), round(interval[1], 4)) if interval else (None, None)
    bias = round(sum(mine) / len(mine) - sum(gold) / len(gold), 4)
    drift = None
    if len(pairs) >= 2 * DRIFT_WINDOW:
        recent, earlier = _share(pairs[-DRIFT_WINDOW:]), _share(pairs[:-DRIFT_WINDOW])
        drift = GoldDrift(DRIFT_WINDOW, recent, earlier, earlier - recent >= DRIFT_DROP)
    flags = []
    if len(pairs) >= MIN_FLAGGED:
        flags += ["lenient"] if bias >= BIAS_FLAG else ["strict"] if bias <= -BIAS_FLAG else []
        flags += ["low"] if high is not None and high < LOW_KAPPA else []
    flags += ["drift"] if drift is not None and drift.flagged else []
    return GoldAgreement(len(pairs), exact, None if math.isnan(kappa) else round(kappa, 4),
                         low, high, bias, tuple(flags), drift)


def _share(pairs: list[tuple[int, int]]) -> float:
    return round(sum(a == g for a, g in pairs) / len(pairs), 4)
