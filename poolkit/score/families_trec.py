"""trec_eval's measures beyond poolkit's own families: one function per measure, its
docstring the formula, written from trec_eval's definitions (its source documents them) and
computed in the same arithmetic order, so that the printed ``%6.4f`` agrees to the last digit.

Each function takes a :class:`TrecQuery` (one query's ranking after ``-M``/``-J``, read as
trec_eval reads it) and the measure's parameter: a cutoff (``relative_P_5``), a fraction of R
(``iprec_at_recall_0.30``, ``Rprec_mult_0.20``) or the parameter list (``utility``,
``set_F``, ``11pt_avg``). :data:`poolkit.score.measures.MEASURES`, the one measure
registry, lists each with its :class:`TrecFamily` (trec_eval's parameters), so that
``poolkit score -m NAME`` reads them too; :mod:`poolkit.score.trec_eval` puts them in
trec_eval's table.

Notation: the ranking's slots i = 1..n (n = num_ret), rel_i = 1 when slot i's grade >= the
level, R = num_rel (judged grade >= level), hits@k = relevant slots among the first k,
g_i = slot i's grade as gain (0 when unjudged or negative), ideal = the query's positive
judged grades, highest first (retrieved or not). A value trec_eval leaves undefined (0 / 0)
is NaN, printed ``-nan`` as trec_eval's C library prints it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

#: trec_eval's floor for a geometric mean's terms (log(0) is undefined)
MIN_GEO_MEAN = 0.00001
NAN = float("nan")


class TrecQuery:
    """One query as trec_eval's measures read it: each retrieved slot's grade (negative:
    unjudged, whether absent from the qrels or graded below 0) and the judged grades."""

    __slots__ = ("ranking", "grades", "rels", "level", "num_rel", "judged", "coll_size",
                 "__dict__")

    def __init__(self, ranking: Sequence[str], grades: Mapping[str, int], level: int,
                 coll_size: int = 0) -> None:
        self.ranking, self.grades = ranking, grades
        self.coll_size = coll_size  # trec_eval's -N: documents in the collection
        self.rels = [grades.get(d, -1) for d in ranking]
        self.level = level
        self.judged = [g for g in grades.values() if g >= 0]
        self.num_rel = sum(1 for g in self.judged if g >= level)

    @property
    def num_ret(self) -> int:
        return len(self.rels)

    @cached_property
    def num_rel_ret(self) -> int:
        return sum(1 for g in self.rels if g >= self.level)

    @cached_property
    def ideal(self) -> list[int]:
        return sorted((g for g in self.judged if g > 0), reverse=True)

    def gain(self, i: int) -> int:
        return max(self.rels[i], 0)

    def hits(self, k: int) -> int:
        return sum(1 for g in self.rels[:k] if g >= self.level)

    def gains(self, given: Sequence[tuple[int, float]] = ()) -> Gains:
        """Each slot's gain and the ideal ranking's, at trec_eval's per-grade gains
        ``given`` (``-m ndcg.1=0.5,2=2``: (grade, gain) pairs); none given: gain = grade."""
        if not given:
            return Gains([float(self.gain(i)) for i in range(self.num_ret)],
                         [float(g) for g in self.ideal])
        return _given_gains(self, given)


class Gains(NamedTuple):
    """What the gain measures (dcg, ndcg, ndcg_rel, Rndcg, G) read: ``slots``, each retrieved
    document's gain in rank order, and ``ideal``, the gains of the ideal ranking, best first,
    down to its first gain that is not positive."""

    slots: list[float]
    ideal: list[float]


#: the grade trec_eval gives a retrieved document absent from the qrels, and one the qrels
#: list with a negative grade (in the pool, not judged); ``-m ndcg.-1=X`` gains the first
NOT_IN_QRELS, IN_POOL_UNJUDGED = -1, -2


def _merge_sorted(items: list[tuple[int, float, int]]) -> list[tuple[int, float, int]]:
    """Sort (grade, gain, count) by gain as trec_eval's C library sorts them: a top-down
    merge sort (glibc's qsort for small records), comparing gains by their difference cast to
    an int, so two gains less than 1 apart compare equal and keep their order."""
    if len(items) <= 1:
        return items
    half = len(items) // 2
    left, right = _merge_sorted(items[:half]), _merge_sorted(items[half:])
    out: list[tuple[int, float, int]] = []
    while left and right:
        out.append(left.pop(0) if int(left[0][1] - right[0][1]) <= 0 else right.pop(0))
    return out + left + right


def _given_gains(q: TrecQuery, given: Sequence[tuple[int, float]]) -> Gains:
    """trec_eval's gain table: the given (grade, gain) pairs first, then every judged grade 0..G
    not given at gain = grade, each with its number of judged documents, sorted by gain; a
    slot's gain is the first entry of its grade (0 when none); the ideal ranking takes each
    entry's documents from the highest gain down, skipping empty entries, until a gain is not
    positive (or the top entry's gain is not)."""
    counts = Counter(g for g in q.judged)
    top = max((g for g, n in counts.items() if n), default=-1)
    table = [(grade, gain, 0) for grade, gain in given]
    for grade in range(top + 1):
        at = next((i for i, row in enumerate(table) if row[0] == grade), None)
        if at is None:
            table.append((grade, float(grade), counts[grade]))
        else:
            table[at] = (grade, table[at][1], counts[grade])
    table = _merge_sorted(table)
    gain_of: dict[int, float] = {}
    for grade, gain, _ in table:
        gain_of.setdefault(grade, gain)
    slots = [gain_of.get(_slot_grade(q, doc), 0.0) for doc in q.ranking]
    ideal: list[float] = []
    if table and table[-1][1] > 0:
        for _, gain, count in reversed(table):
            if not count:
                continue
            if gain <= 0:
                break
            ideal += [gain] * count
    return Gains(slots, ideal)


def _slot_grade(q: TrecQuery, doc: str) -> int:
    grade = q.grades.get(doc)
    return NOT_IN_QRELS if grade is None else IN_POOL_UNJUDGED if grade < 0 else grade


def _div(a: float, b: float) -> float:
    """C's a / b for doubles: 0 / 0 is NaN (trec_eval prints ``-nan``)."""
    return a / b if b else (NAN if a == 0 or a != a else math.copysign(math.inf, a))


def _c_log2(x: float) -> float:
    """C's log2: -inf at 0 and NaN below (G's cost less gain goes below -1 where the gains
    per grade put a document above the ideal ranking's); a division by it then follows C."""
    return math.log2(x) if x > 0 else -math.inf if x == 0 else NAN


def _lround(x: float) -> int:
    """C's lround: halves away from zero (Python's round() goes to even)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def iprec_at_recall(q: TrecQuery, x: float) -> float:
    """iprec_at_recall_x = max over ranks r >= r_x of P@r, r_x = the rank of the c-th relevant
    document, c = round(x * R); the highest precision at or after recall x. 0 when fewer
    than c relevant documents were retrieved; for c = 0, the best precision anywhere
    (num_rel_ret / num_ret at the bottom, 0 / 0 for an empty ranking).
    trec_eval: ``-m iprec_at_recall.0,.1,...,1`` (defaults 0.0, 0.1, ..., 1.0)."""
    c = _lround(x * q.num_rel)
    if c > q.num_rel_ret:
        return 0.0
    best = _div(q.num_rel_ret, q.num_ret)
    rel = q.num_rel_ret
    for i in range(q.num_ret, 0, -1):
        if rel <= 0:
            break
        precision = rel / i
        if best < precision:
            best = precision
        if q.rels[i - 1] >= q.level:
            if rel == c:
                return best
            rel -= 1
    return best


def eleven_point_average(q: TrecQuery, xs: Sequence[float]) -> float:
    """11pt_avg = the mean of iprec_at_recall_x over the recall points x (summed from the
    highest x down, as trec_eval adds them). trec_eval: ``-m 11pt_avg.0.2,0.5,0.8`` (default
    0.0, 0.1, ..., 1.0; printed ``11pt_avg`` then, ``11pt_avg_PARAMS`` when given)."""
    total = 0.0
    for x in sorted(xs, reverse=True):
        total += iprec_at_recall(q, x)
    return total / len(xs)


def rprec_mult(q: TrecQuery, x: float) -> float:
    """Rprec_mult_x = hits@c / c, c = floor(x * R + 0.9): precision at a multiple of R (0 for
    c = 0). trec_eval: ``-m Rprec_mult.0.2,0.4,...,2.0`` (its defaults)."""
    c = int(x * q.num_rel + 0.9)
    return q.hits(c) / c if c > 0 else 0.0


def relative_precision(q: TrecQuery, k: int) -> float:
    """relative_P_k = hits@k / min(k, R): precision at k over the best possible (precision up
    to R, recall after); 0 when R = 0. trec_eval: ``-m relative_P.5,10`` (P's defaults)."""
    if q.num_rel == 0:
        return 0.0
    return q.hits(k) / min(k, q.num_rel)


def unjudged(q: TrecQuery, k: int) -> float:
    """unj_k = unjudged documents in the top k / k (a document absent from the qrels or graded
    below 0 is unjudged). trec_eval: ``-m unj.5,10,20`` (its defaults)."""
    return sum(1 for g in q.rels[:k] if g < 0) / k


def utility(q: TrecQuery, p: Sequence[float]) -> float:
    """utility = p1 a + p2 b + p3 c + p4 d over the contingency table: a = relevant retrieved,
    b = non-relevant retrieved, c = relevant not retrieved, d = N + a - num_ret - R, the rest
    of a collection of N documents (trec_eval's ``-N``, 0 when not given). trec_eval:
    ``-m utility.1,-1,0,0`` (its default)."""
    a, n, r = q.num_rel_ret, q.num_ret, q.num_rel
    return p[0] * a + p[1] * (n - a) + p[2] * (r - a) + p[3] * (q.coll_size + a - n - r)


def set_precision(q: TrecQuery, _: object = None) -> float:
    """set_P = num_rel_ret / num_ret: precision of the whole retrieved set (0 if empty)."""
    return q.num_rel_ret / q.num_ret if q.num_ret else 0.0


def set_relative_precision(q: TrecQuery, _: object = None) -> float:
    """set_relative_P = num_rel_ret / min(num_ret, R) (0 when either is 0)."""
    if not (q.num_ret and q.num_rel):
        return 0.0
    return q.num_rel_ret / min(q.num_ret, q.num_rel)


def set_map(q: TrecQuery, _: object = None) -> float:
    """set_map = set_P * set_recall = num_rel_ret^2 / (num_ret * R) (0 when either is 0)."""
    if not (q.num_ret and q.num_rel):
        return 0.0
    return (q.num_rel_ret * q.num_rel_ret) / (q.num_ret * q.num_rel)


def set_f(q: TrecQuery, p: Sequence[float]) -> float:
    """set_F = (beta + 1) P R / (beta P + R), P = set_P, R = set_recall, beta = the parameter
    (0 when nothing relevant was retrieved). trec_eval: ``-m set_F.0.5`` (default 1.0)."""
    if not q.num_rel_ret:
        return 0.0
    precision = q.num_rel_ret / q.num_ret
    recall = q.num_rel_ret / q.num_rel
    beta = p[0]
    return (beta + 1.0) * precision * recall / (beta * precision + recall)


def bin_g(q: TrecQuery, _: object = None) -> float:
    """binG = sum over relevant slots i of 1 / log2(2 + nonrel_i) / R, nonrel_i = the
    non-relevant slots above i: binary gain discounted by the non-relevant documents read."""
    total, rel = 0.0, 0
    for i, g in enumerate(q.rels):
        if g >= q.level:
            rel += 1
            total += 1.0 / math.log2(3 + i - rel)
    return total / q.num_rel if rel else 0.0


def _ideal_at(ideal: Sequence[float], i: int) -> float:
    return ideal[i] if i < len(ideal) else 0


#: the gain measures' parameter: trec_eval's (grade, gain) pairs (``-m G.1=0.5,2=3``)
GainPairs = Sequence[tuple[int, float]]


def g_measure(q: TrecQuery, given: GainPairs = ()) -> float:
    """G = sum over slots i with g_i != 0 of g_i / log2(2 + cost_i - gain_i) / sum(ideal):
    gain_i = g_1 + ... + g_i, cost_i = sum over j <= i of max(ideal_j, 1) (ideal_j = 0 past
    the ideal list). Graded: the level plays no part. trec_eval: gains per grade
    ``-m G.1=0.5,2=3`` (default gain = grade)."""
    slots, ideal = q.gains(given)
    total, gained, cost = 0.0, 0.0, 0.0
    for i, g in enumerate(slots):
        gained += g
        cost += max(_ideal_at(ideal, i), 1)
        if g:
            total += _div(g, _c_log2(2 + cost - gained))
    best = float(sum(ideal))
    return total / best if best > 0 else 0.0


def _ideal_dcg(ideal: Sequence[float], upto: int) -> float:
    dcg = 0.0
    for i in range(min(upto, len(ideal))):
        dcg += ideal[i] / math.log2(i + 2)
    return dcg


def ndcg_rel(q: TrecQuery, given: GainPairs = ()) -> float:
    """ndcg_rel = the mean of nDCG@r over the ranks r of the retrieved documents with g > 0,
    each relevant document not retrieved counting nDCG at the end of the ranking:
    (sum over retrieved r of DCG@r / IDCG@min(r, L + 1) + (L - retrieved) DCG / IDCG) / L,
    L = len(ideal). Graded (linear gain); the level plays no part. trec_eval: gains per
    grade ``-m ndcg_rel.1=0.5,2=3``."""
    slots, ideal = q.gains(given)
    n_ideal = len(ideal)
    total, dcg, ideal_dcg, found = 0.0, 0.0, 0.0, 0
    for i, g in enumerate(slots):
        if g:
            dcg += g / math.log2(i + 2)
        if i <= n_ideal and _ideal_at(ideal, i) > 0:
            ideal_dcg += ideal[i] / math.log2(i + 2)
        if g > 0:
            total += _div(dcg, ideal_dcg)
            found += 1
    if n_ideal == 0:
        return 0.0
    full = _ideal_dcg(ideal, n_ideal)
    total += (n_ideal - found) * dcg / full
    return total / n_ideal if total > 0.0 else 0.0


def r_ndcg(q: TrecQuery, given: GainPairs = ()) -> float:
    """Rndcg = the mean of nDCG@r over the ranks r where the ideal ranking's gain drops (the
    ends of its grade levels, the last at r = L = len(ideal)), and once more at the end of a
    ranking longer than L; 0 when R = 0. Graded (linear gain). trec_eval: gains per grade
    ``-m Rndcg.1=0.5,2=3``."""
    if q.num_rel == 0:
        return 0.0
    slots, ideal = q.gains(given)
    n = len(slots)
    total, count, dcg, ideal_dcg = 0.0, 0, 0.0, 0.0
    previous = current = _ideal_at(ideal, 0)

    def point() -> None:  # nDCG here counts toward the mean
        nonlocal total, count
        if ideal_dcg > 0.0:
            total += dcg / ideal_dcg
            count += 1

    def ideal_slot(i: int) -> None:  # the ideal ranking's slot i: a point where its gain drops
        nonlocal previous, current, ideal_dcg
        current = _ideal_at(ideal, i)
        if previous != current:
            point()
            previous = current
        if current > 0:
            ideal_dcg += current / math.log2(i + 2)

    i = 0
    while i < n and current > 0:
        ideal_slot(i)
        g = slots[i]
        if g:
            dcg += g / math.log2(i + 2)
        i += 1
    if i < n:
        for j in range(i, n):
            g = slots[j]
            if g:
                dcg += g / math.log2(j + 2)
        i = n
        point()
    while current > 0:
        ideal_slot(i)
        i += 1
    return _div(total, count)


def dcg(q: TrecQuery, given: GainPairs = ()) -> float:
    """dcg = sum over slots i of g_i / log2(i + 1): the numerator of trec_eval's ndcg (linear
    gain), summed in its order (a division per slot, which a table of 1 / log2 factors
    would round differently). trec_eval: gains per grade ``-m dcg.1=0.5,2=3``."""
    total = 0.0
    for i, g in enumerate(q.gains(given).slots):
        if g:
            total += g / math.log2(i + 2)
    return total


def ideal_dcg(q: TrecQuery, given: GainPairs = ()) -> float:
    """ideal_dcg = sum over j of ideal_j / log2(j + 1): the denominator of trec_eval's ndcg,
    every positive judged grade ranked best first. trec_eval: gains per grade
    ``-m ideal_dcg.1=0.5,2=3``."""
    ideal = q.gains(given).ideal
    return _ideal_dcg(ideal, len(ideal))


def ndcg_gains(q: TrecQuery, given: GainPairs = ()) -> float:
    """ndcg = dcg / ideal_dcg at trec_eval's per-grade gains (0 when ideal_dcg is not
    positive): trec_eval's ``-m ndcg.1=0.5,2=3``; at gain = grade it is poolkit's nDCG."""
    best = ideal_dcg(q, given)
    return dcg(q, given) / best if best > 0.0 else 0.0


def yaap(q: TrecQuery, _: object = None) -> float:
    """yaap = log((1 + s) / (1 + R - s)), s = sum over relevant slots of P@rank (AP * R):
    Robertson's "yet another average precision", smoother to average than AP."""
    total, rel = 0.0, 0
    for i, g in enumerate(q.rels):
        if g >= q.level:
            rel += 1
            total += rel / (i + 1)
    return math.log((1.0 + total) / (1.0 + q.num_rel - total))


def relstring(q: TrecQuery, p: Sequence[float]) -> str:
    """relstring = the grades of the top n documents as characters, n = the parameter
    (default 10): the digit of a grade 0-9, ``>`` above 9, ``-`` for a document absent from
    the qrels, ``.`` for one graded below 0. Per query only, no summary. trec_eval:
    ``-m relstring.20``."""
    out = []
    for doc in q.ranking[:max(int(p[0]), 0)]:
        g = q.grades.get(doc)
        out.append("-" if g is None else "." if g < 0 else ">" if g > 9 else str(g))
    return "".join(out)


def geometric_term(value: float) -> float:
    """A query's term of a geometric mean (gm_map, gm_bpref): log(max(value, 0.00001)); the
    mean is exp(sum / number of queries)."""
    return math.log(max(value, MIN_GEO_MEAN))


Compute = Callable[[TrecQuery, Any], Any]


@dataclass(frozen=True)
class TrecFamily:
    """One of trec_eval's measures computed here, as trec_eval parameterises it.

    ``params``: ``long`` (integer cutoffs, one value each, printed ``NAME_5``), ``double``
    (fractional cutoffs, printed ``NAME_0.20``), ``list`` (one value from a parameter list,
    printed ``NAME_PARAMS`` when given), ``gains`` (a gain per grade, ``-m G.1=0.5,2=3``,
    printed ``G_1=0.5,2=3``) or ``none``. ``defaults``: trec_eval's.
    ``zero_when_missing``: the measures trec_eval zeroes by name for a query the run lacks
    (-c; relstring is emptied); the others are scored on its stand-in ranking of one
    unjudged document. ``text``: the value is a string, printed per query only.
    """

    name: str
    fn: Compute
    params: str = "none"
    defaults: tuple[float, ...] = ()
    zero_when_missing: bool = False
    text: bool = False

    @property
    def formula(self) -> str:
        return " ".join((self.fn.__doc__ or "").split())


TENTHS = tuple(i / 10 for i in range(11))
R_MULTIPLES = tuple(i / 10 for i in range(2, 21, 2))
P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
