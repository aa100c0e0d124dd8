"""What every measure reads about one query: the judged slots of its ranking, and the gains.

The per-query work is shared: :class:`QueryFacts` finds, once per query, the first-occurrence
rank of every judged id, and every measure (:mod:`poolkit.score.families`) is read off that
sparse list, so a 1,000-deep ranking with 20 relevant ids costs one C-speed scan of the ids and
a few dozen operations per measure (10,000 queries x 1,000 ids, five measures: about a
second).

Gains: ``linear`` (the grade) or ``exp`` (2^grade - 1); a negative grade gains 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from itertools import accumulate, compress
from operator import mul

from poolkit.score.inferred import PoolSample

GAINS = ("linear", "exp")

# 1 / log2(rank + 1) for 0-based position i (rank i + 1), grown on demand and shared.
_DISCOUNT: list[float] = []


def discounts(n: int) -> list[float]:
    """The first ``n`` nDCG discounts ``1 / log2(i + 2)`` (a shared, growing table)."""
    if len(_DISCOUNT) < n:
        _DISCOUNT.extend(1.0 / math.log2(i + 2) for i in range(len(_DISCOUNT), n))
    return _DISCOUNT


class QueryFacts:
    """What every measure needs to know about one ranking against one query's grades.

    Built once per query; level-dependent views are cached per level. The ranking itself is
    not kept: every measure reads the *slots* holding a judged id (grade listed, negative
    included), which a scorer working on columns (:mod:`poolkit.score.columnar`) can hand
    over without a Python string per ranked id (:meth:`from_slots`). Positions are 0-based;
    a later repeat of an id is a slot but not a hit (only its first occurrence can score).
    """

    __slots__ = ("grades", "sample", "n", "hits", "slots", "_ranking", "_by_level", "_ideal",
                 "_condensed")

    def __init__(self, ranking: Sequence[str], grades: Mapping[str, int],
                 sample: PoolSample | None = None) -> None:
        n = len(ranking)
        slots: list[tuple[int, int, bool]] = []
        if n and grades:
            # Positions of judged ids, found at C speed (compress + map); touching each of
            # the n ids once is the whole per-query cost.
            at = list(compress(range(n), map(grades.__contains__, ranking)))
            if at:
                seen: set[str] = set()
                for p in at:
                    d = ranking[p]
                    first = d not in seen
                    if first:
                        seen.add(d)
                    slots.append((p, grades[d], first))
        self._setup(n, slots, grades, sample, ranking)

    @classmethod
    def from_slots(cls, n: int, slots: list[tuple[int, int, bool]],
                   grades: Mapping[str, int], sample: PoolSample | None = None,
                   ranking: Callable[[], Sequence[str]] | None = None) -> QueryFacts:
        """Facts of a ranking of ``n`` ids whose judged slots are ``slots``: (position,
        grade, first occurrence of its id?) by position. ``ranking`` makes the list itself,
        called only if a measure reads it (the estimated measures and RBP do)."""
        facts = cls.__new__(cls)
        facts._setup(n, slots, grades, sample, ranking)
        return facts

    def _setup(self, n: int, slots: list[tuple[int, int, bool]], grades: Mapping[str, int],
               sample: PoolSample | None,
               ranking: Sequence[str] | Callable[[], Sequence[str]] | None) -> None:
        self.grades = grades
        #: the query's pool sample design, for the estimated measures (None: uniform)
        self.sample = sample
        self.n = n
        #: (position, grade, first occurrence?) of every slot holding a judged id.
        self.slots = slots
        #: (position, grade) of every judged id retrieved (first occurrences), by position.
        self.hits: list[tuple[int, int]] = [(p, g) for p, g, first in slots if first]
        self._ranking = ranking
        self._by_level: dict[int, tuple[list[int], int, int]] = {}
        self._ideal: dict[str, list[float]] = {}
        self._condensed: QueryFacts | None = None

    @property
    def ranking(self) -> Sequence[str]:
        """The ranked ids (made on first use when the facts came from columns)."""
        r = self._ranking
        if r is None:
            r = []
        elif callable(r):
            r = r()
        self._ranking = r
        return r

    def relevant(self, level: int) -> tuple[list[int], int, int]:
        """(positions of relevant hits ascending, |Rel| in the qrels, |judged non-rel|)."""
        cached = self._by_level.get(level)
        if cached is None:
            pos = [p for p, g in self.hits if g >= level]
            num_rel = num_nonrel = 0
            for g in self.grades.values():
                if g >= level:
                    num_rel += 1
                elif g >= 0:
                    num_nonrel += 1
            cached = self._by_level[level] = (pos, num_rel, num_nonrel)
        return cached

    def ideal_cumulative(self, gain: str) -> list[float]:
        """Cumulative ideal DCG by depth: every judged grade, best first (retrieved or not)."""
        cached = self._ideal.get(gain)
        if cached is None:
            gains: list[float]
            if gain == "linear":
                gains = [g for g in self.grades.values() if g > 0]
            else:
                fn = _GAIN_FN[gain]
                gains = [fn(g) for g in self.grades.values() if g > 0]
            gains.sort(reverse=True)
            cached = self._ideal[gain] = list(accumulate(map(mul, gains, discounts(len(gains)))))
        return cached

    def idcg(self, k: int | None, gain: str = "linear") -> float:
        """Ideal DCG at K (K = None: every judged grade)."""
        ideal = self.ideal_cumulative(gain)
        if not ideal:
            return 0.0
        return ideal[-1] if k is None else ideal[min(k, len(ideal)) - 1]

    def dcg(self, k: int | None, gain: str = "linear") -> float:
        """DCG at K of the ranking: gain(grade) / log2(rank + 1), first occurrences only."""
        fn = None if gain == "linear" else _GAIN_FN[gain]
        disc = discounts(self.n)
        total = 0.0
        for p, g in self.hits:
            if k is not None and p >= k:
                break
            if g > 0:
                total += (g if fn is None else fn(g)) * disc[p]
        return total

    def condensed(self) -> QueryFacts:
        """The same query on the condensed list: ids without a judgment (>= 0) removed."""
        if self._condensed is None:
            kept = [(i, g, first) for i, (_, g, first) in
                    enumerate(s for s in self.slots if s[1] >= 0)]
            grades = self.grades
            self._condensed = QueryFacts.from_slots(
                len(kept), kept, grades, self.sample,
                lambda: [d for d in self.ranking if grades.get(d, -1) >= 0])
        return self._condensed

    def judged_slots(self, k: int | None) -> int:
        """Slots in the top K holding an id with a judgment (grade >= 0), repeats included."""
        return sum(1 for p, g, _ in self.slots if g >= 0 and (k is None or p < k))


class GainOverflow(ArithmeticError):
    """A grade too large for ``gain=exp`` (2^grade overflows a double); ``evaluate`` says
    which qrels line holds it."""

    def __init__(self, grade: int) -> None:
        super().__init__(grade)
        self.grade = grade


def _exp_gain(g: int) -> float:
    if g <= 0:
        return 0.0
    try:
        return 2.0 ** g - 1.0
    except OverflowError:
        raise GainOverflow(g) from None


_GAIN_FN: dict[str, Callable[[int], float]] = {
    "linear": lambda g: float(g) if g > 0 else 0.0,
    "exp": _exp_gain,
}


class _ExpGains(dict[int, float]):
    def __missing__(self, g: int) -> float:
        return _GAIN_FN["exp"](g)


#: ``exp`` gains as a grade -> gain table (computed on lookup): what the estimated nDCG takes
EXP_GAINS = _ExpGains()
