"""How far a machine judge agrees with itself: its readings of the same pairs
(``autojudge --readings K``) compared.

- **Krippendorff's alpha** among the readings, each pair a unit and each reading a value of
  it (pairs with fewer than two readings are left out): 1 is perfect agreement, 0 what
  chance gives, below 0 systematic disagreement. ``ordinal`` (the default: grades are
  ranks) or ``interval`` distances. Undefined (None) when every reading is the same grade:
  no variation to agree on.
- **Flip share**: the share of those pairs whose readings are not all one grade (the
  grade that counts, their median, could have come out otherwise with one reading).

Pure arithmetic (the ``krippendorff`` package is the tests' oracle, not a dependency).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

LEVELS = ("ordinal", "interval")


def krippendorff_alpha(units: Sequence[Sequence[float]], level: str = "ordinal",
                       ) -> float | None:
    """Alpha of ``units`` (each the values its readings gave; any number of readings per
    unit, units of fewer than two left out), or None without two distinct values."""
    if level not in LEVELS:
        from poolkit.errors import one_of

        raise ValueError(one_of(level, LEVELS, "level of measurement"))
    coincidence: dict[tuple[float, float], float] = {}
    for values in units:
        m = len(values)
        if m < 2:
            continue
        counts = Counter(values)
        for c, n_c in counts.items():
            for k, n_k in counts.items():
                same = n_c * (n_c - 1) if c == k else n_c * n_k
                if same:
                    coincidence[(c, k)] = coincidence.get((c, k), 0.0) + same / (m - 1)
    totals: dict[float, float] = {}
    for (c, _k), o in coincidence.items():
        totals[c] = totals.get(c, 0.0) + o
    if len(totals) < 2:
        return None
    n = sum(totals.values())
    delta = _distances(totals, level)
    observed = sum(o * delta[c, k] for (c, k), o in coincidence.items())
    expected = sum(totals[c] * totals[k] * delta[c, k] for c in totals for k in totals)
    return 1.0 - (n - 1) * observed / expected


def _distances(totals: Mapping[float, float], level: str) -> dict[tuple[float, float], float]:
    """The squared distance of every two values: ``interval``, their difference; ``ordinal``,
    the values' mass between them (both halves of the ends) (Krippendorff 2011)."""
    values = sorted(totals)
    if level == "interval":
        return {(c, k): (c - k) ** 2 for c in values for k in values}
    cumulative = [0.0]
    for v in values:
        cumulative.append(cumulative[-1] + totals[v])
    out = {}
    for i, c in enumerate(values):
        for j, k in enumerate(values):
            lo, hi = min(i, j), max(i, j)
            between = cumulative[hi + 1] - cumulative[lo]
            out[c, k] = (between - (totals[c] + totals[k]) / 2) ** 2
    return out


@dataclass(frozen=True)
class Repeatability:
    """A judge version's agreement with itself over its pairs' readings."""

    alpha: float | None     # Krippendorff's alpha among readings (None: undefined)
    flip_share: float | None  # share of pairs read twice or more whose grade varies
    pairs: int              # pairs with two readings or more
    readings: int           # the most readings any pair has
    level: str = "ordinal"

    @classmethod
    def of(cls, readings: Mapping[Any, Sequence[int]],
           level: str = "ordinal") -> Repeatability:
        """From each pair's readings' grades."""
        units = [list(v) for v in readings.values() if len(v) >= 2]
        flips = sum(1 for v in units if len(set(v)) > 1)
        return cls(krippendorff_alpha(units, level), flips / len(units) if units else None,
                   len(units), max((len(v) for v in readings.values()), default=0), level)

    @property
    def measured(self) -> bool:
        """Whether any pair was read twice (else there is nothing to say)."""
        return self.pairs > 0

    def as_dict(self) -> dict[str, Any]:
        return {"measured": self.measured, "alpha": _rounded(self.alpha),
                "flip_share": _rounded(self.flip_share), "pairs": self.pairs,
                "readings": self.readings, "level": self.level}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


__all__ = ["LEVELS", "Repeatability", "krippendorff_alpha"]
