"""Retrieval measures as value objects, with one registry that the CLI and its help read.

A :class:`Measure` is a frozen value: a family (``P``, ``R``, ``nDCG`` ...), an optional cutoff
and typed parameters. ``Measure.name`` spells it the way ir_measures does (``P@5``,
``nDCG@10``, ``nDCG(gain=exp)@10``, ``P(rel=2)@5``) and :func:`parse_measure` parses that
spelling back. Each family's formula and convention lives in the docstring of its function in
``MEASURES``; ``poolkit score --help`` prints them from there.

Conventions (from the seeds; they are tests):

* Relevant means grade >= level (1 unless an evaluation level or the measure's ``rel=`` says
  otherwise). Every family but nDCG and Judged is binary.
* A repeated id keeps its slot in the ranking but only its first occurrence can score; the
  later slots count as non-relevant.
* Negative grades (TREC's -1) are "in the pool but not judged", as in trec_eval: never
  relevant, zero gain, skipped by bpref, not counted as judged by Judged@K, and removed by
  the condensed-list variant (``judged_only=true``).
* A ranking shorter than K is padded with non-relevant slots (P@K still divides by K).

The per-query work is shared: :class:`QueryFacts` finds, once per query, the first-occurrence
rank of every judged id, and every measure is read off that sparse list, so a 1,000-deep
ranking with 20 relevant ids costs one C-speed scan of the ids and a few dozen operations per
measure (10,000 queries x 1,000 ids, five measures: about a second).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate, compress
from operator import mul

from poolkit.errors import PoolkitError, one_of
from poolkit.params import Param, ParamError
from poolkit.score.inferred import PoolSample, inferred_ap, inferred_ndcg, rbp, stat_ap

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


# ---------------------------------------------------------------------------------------------
# The families. Signature: (facts, cutoff or None, level, measure) -> float in [0, 1].
# Each docstring's first paragraph is the formula shown by `poolkit score --help`.


def _hits_at(pos: list[int], k: int | None) -> int:
    if k is None:
        return len(pos)
    # pos is short and sorted: a linear scan from the front stops early.
    c = 0
    for p in pos:
        if p >= k:
            break
        c += 1
    return c


def precision(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """P@K = hits@K / K. Divides by K even when fewer than K came back (trec_eval P_K)."""
    pos, _, _ = f.relevant(level)
    assert k is not None
    return _hits_at(pos, k) / k


def recall(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """R@K = hits@K / |Rel|, |Rel| = every judged-relevant id (trec_eval recall_K);
    R = full list."""
    pos, num_rel, _ = f.relevant(level)
    return _hits_at(pos, k) / num_rel if num_rel else 0.0


def recall_capped(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """Rcap@K = hits@K / min(|Rel|, K): the R-precision-style recall, opt-in only.

    Not the default because it silently rescales every query with more relevant ids than K
    (seed 000: q_broad reads 0.800 instead of 0.500), exactly where coverage is hard. It
    answers "how full is the top K, given what could fit", which is a ceiling-relative
    figure, not recall.
    """
    pos, num_rel, _ = f.relevant(level)
    assert k is not None
    denom = min(num_rel, k)
    return _hits_at(pos, k) / denom if denom else 0.0


def hit(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """Hit@K = 1 if any relevant id is in the top K, else 0 (trec_eval success_K)."""
    pos, _, _ = f.relevant(level)
    return 1.0 if pos and (k is None or pos[0] < k) else 0.0


def reciprocal_rank(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """RR@K = 1 / rank of the first relevant id if that rank <= K, else 0; RR = full list
    (recip_rank)."""
    pos, _, _ = f.relevant(level)
    if pos and (k is None or pos[0] < k):
        return 1.0 / (pos[0] + 1)
    return 0.0


def average_precision(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """AP@K = sum of P@i over relevant ranks i <= K, / |Rel| (trec_eval map_cut_K); AP = full
    list (map)."""
    pos, num_rel, _ = f.relevant(level)
    if not num_rel:
        return 0.0
    total = 0.0
    for i, p in enumerate(pos):
        if k is not None and p >= k:
            break
        total += (i + 1) / (p + 1)
    return total / num_rel


def context_precision(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """CP@K = sum of P@i over relevant ranks i <= K, / hits@K (RAGAS context precision); 0 if
    no hit.

    Equals AP@K only when every relevant id sits within K: it normalises by the relevant ids
    actually returned in the top K, not by |Rel|.
    """
    pos, _, _ = f.relevant(level)
    total = 0.0
    n = 0
    for i, p in enumerate(pos):
        if k is not None and p >= k:
            break
        total += (i + 1) / (p + 1)
        n += 1
    return total / n if n else 0.0


def r_precision(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """Rprec = hits@|Rel| / |Rel|: precision at rank R = |Rel| (trec_eval Rprec)."""
    pos, num_rel, _ = f.relevant(level)
    return _hits_at(pos, num_rel) / num_rel if num_rel else 0.0


def bpref(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """bpref = 1/R * sum over relevant retrieved r of (1 - min(n_r, R) / min(N, R)).

    trec_eval's definition: R = |Rel|, N = judged non-relevant ids (0 <= grade < level),
    n_r = judged non-relevant ids ranked above r. Unjudged ids (and negative grades) are
    skipped, so bpref reads only judged documents.
    """
    _, num_rel, num_nonrel = f.relevant(level)
    if not num_rel:
        return 0.0
    denom = min(num_nonrel, num_rel)
    total = 0.0
    nonrel = 0
    for p, g in f.hits:
        if k is not None and p >= k:
            break
        if g >= level:
            total += 1.0 - min(nonrel, num_rel) / denom if nonrel else 1.0
        elif g >= 0:
            nonrel += 1
    return total / num_rel


def ndcg(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """nDCG@K = DCG@K / IDCG@K, DCG = sum gain(grade_i) / log2(i + 1) (trec_eval ndcg_cut_K).

    gain = grade (linear, default) or 2^grade - 1 (``gain=exp``); negative grades gain 0.
    IDCG ranks every judged grade of the query, retrieved or not. Graded: ignores the level.
    """
    idcg = f.idcg(k, m.gain)
    return f.dcg(k, m.gain) / idcg if idcg else 0.0


def judged(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """Judged@K = share of the top K slots whose id carries a judgment (grade >= 0).

    Divides by the number of slots that came back, min(K, n), as ir_measures does; 0 for an
    empty ranking. A repeated id is as judged as its first occurrence.
    """
    shown = f.n if k is None else min(k, f.n)
    return f.judged_slots(k) / shown if shown else 0.0


def inf_ap(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """infAP = estimated AP when the qrels judge a random sample of the pool (trec_eval infAP).

    Ids in the qrels are the pool, grade -1 marks a pooled id left unjudged, ids absent from
    the qrels were never pooled (non-relevant). For a judged relevant id at rank k > 1 the
    expected precision is 1/k + (pooled ids above)/k * (rel + eps) / (judged + 2 eps) over the
    judged ids above; infAP averages it over the judged relevant ids. Equals AP when nothing
    pooled is left unjudged. Reads the grades only: a sample file's strata are xinfAP's.
    """
    return inferred_ap(f.ranking, f.grades, level)


def xinf_ap(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """xinfAP = infAP per stratum of a stratified pool sample, weighted by 1/rate, over R_est.

    Uses the sample file's strata (``poolkit score --sample``); without one, the qrels are one
    uniform stratum and xinfAP = infAP.
    """
    return inferred_ap(f.ranking, f.grades, level, f.sample)


def stat_ap_family(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """statAP = AP from Horvitz-Thompson weights 1/pi of the judged ids (Aslam et al. 2006).

    pi is each pair's inclusion probability from the sample file (else its stratum's judging
    rate); R_hat = sum 1/pi over judged relevant ids, precision at rank k = (1 + sum 1/pi over
    the judged relevant above) / k, statAP = sum precision/pi / R_hat. Equals AP when all
    pooled ids are judged.
    """
    return stat_ap(f.ranking, f.grades, level, f.sample)


def inf_ndcg(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """infNDCG@K = estimated DCG@K / estimated ideal DCG@K over a (stratified) pool sample.

    Each judged id's gain counts 1 / (its stratum's judging rate); the ideal ranking holds the
    estimated number of ids of each grade (N_s * judged-of-that-grade / n_s, rounded). Equals
    nDCG@K when all pooled ids are judged. Graded: ignores the level.
    """
    table = None if m.gain == "linear" else _GAIN_TABLE
    return inferred_ndcg(f.ranking, f.grades, k, table, f.sample)


class _ExpGains(dict[int, float]):
    def __missing__(self, g: int) -> float:
        return _GAIN_FN["exp"](g)


_GAIN_TABLE = _ExpGains()


def rbp_family(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """RBP(p) = (1 - p) * sum p^(i-1) * grade_i / max grade (Moffat and Zobel; trec_eval rbp).

    Graded as trec_eval computes it: the gain is the grade over the query's highest grade; the
    relevance level plays no part. p defaults to 0.8 (ir_measures); trec_eval's ``rbp`` is
    p=0.9.
    """
    return rbp(f.ranking[:k] if k is not None else f.ranking, f.grades, m.persistence)[0]


def rbp_residual(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
    """RBP_resid(p) = the most unjudged ids could add to RBP(p) (trec_eval rbp_resid).

    The weight (1 - p) p^(i-1) of every unjudged slot (absent from the qrels or graded -1),
    plus the weight p^n below the ranking's end when any retrieved id is unjudged; 0 for a
    fully judged ranking. RBP + RBP_resid is the best RBP the unjudged could still reach.
    """
    return rbp(f.ranking[:k] if k is not None else f.ranking, f.grades, m.persistence)[1]


#: The parameters families share; a family lists those it takes (its ``params``).
REL = Param("rel", (int,), None, "relevance level of this binary measure (grade >= rel)")
GAIN = Param("gain", (str,), "linear", "gain of a grade: linear (= grade) or exp (2^g - 1)",
             choices=GAINS)
JUDGED_ONLY = Param("judged_only", (bool,), False,
                    "score the condensed list (unjudged ids removed first)")
BINARY = (REL, JUDGED_ONLY)


def _open_unit(value: object) -> None:
    if not 0.0 < float(value) < 1.0:  # type: ignore[arg-type]
        raise ParamError(f"p must be a number strictly between 0 and 1, got {value!r}")


PERSISTENCE = Param("p", (float,), 0.8, "persistence: the chance of reading on "
                    "(0 < p < 1; ir_measures' RBP default 0.8)", validate=_open_unit)


@dataclass(frozen=True)
class Family:
    """One measure family in the registry: how it computes and which parameters it takes.

    ``params`` declares every parameter the family accepts (``P(rel=2)@5``), with type and
    default; parsing, validation, the canonical name and help text are generic over it. A new
    parameter (RBP's ``p``) is a ``Param`` here and ``Measure.param(key)`` in its function.
    """

    name: str
    fn: Callable[[QueryFacts, int | None, int, Measure], float]
    cutoff: str  # "required" | "optional" | "none"
    binary: bool = True
    aliases: tuple[str, ...] = ()
    params: tuple[Param, ...] = BINARY

    @property
    def formula(self) -> str:
        """The docstring's first paragraph on one line: the formula for help texts."""
        return " ".join((self.fn.__doc__ or "").strip().split("\n\n")[0].split())

    @property
    def doc(self) -> str:
        return (self.fn.__doc__ or "").strip()

    def param(self, key: str) -> Param | None:
        return next((p for p in self.params if p.key == key), None)


MEASURES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("P", precision, "required", aliases=("Precision",)),
        Family("R", recall, "optional", aliases=("Recall",)),
        Family("Rcap", recall_capped, "required"),
        Family("Hit", hit, "optional", aliases=("Success",)),
        Family("RR", reciprocal_rank, "optional", aliases=("MRR",)),
        Family("AP", average_precision, "optional", aliases=("MAP",)),
        Family("nDCG", ndcg, "optional", binary=False, params=(GAIN, JUDGED_ONLY)),
        Family("Rprec", r_precision, "none", aliases=("R-prec", "R-precision")),
        Family("bpref", bpref, "none", aliases=("Bpref",)),
        Family("Judged", judged, "optional", binary=False, params=()),
        Family("CP", context_precision, "optional", aliases=("ContextPrecision",)),
        Family("infAP", inf_ap, "none"),
        Family("xinfAP", xinf_ap, "none"),
        Family("statAP", stat_ap_family, "none", aliases=("StatAP",)),
        Family("infNDCG", inf_ndcg, "optional", binary=False, params=(GAIN, JUDGED_ONLY)),
        Family("RBP", rbp_family, "optional", binary=False, params=(PERSISTENCE, JUDGED_ONLY)),
        Family("RBP_resid", rbp_residual, "optional", binary=False,
               aliases=("RBPresid", "RBP-resid"), params=(PERSISTENCE, JUDGED_ONLY)),
    )
}

#: why a family refuses a shared parameter, when there is more to say than "it takes none"
_REFUSALS = {"rel": "is graded and takes no rel= level",
             "gain": "takes no gain (only nDCG and infNDCG do)",
             "judged_only": "takes no judged_only (its condensed list is all judged)",
             "p": "takes no p= (only RBP, RBP_resid do)"}


# trec_eval's measure names, for people who type them: prefix -> family (prefix_K -> @K).
TREC_NAMES = {
    "P": "P", "recall": "R", "success": "Hit", "map_cut": "AP", "ndcg_cut": "nDCG",
}
TREC_PLAIN = {"map": "AP", "recip_rank": "RR", "ndcg": "nDCG", "Rprec": "Rprec", "bpref": "bpref",
              "infAP": "infAP"}
#: Families taking a persistence p, with their default (ir_measures' RBP default, 0.8).
PERSISTENCE_FAMILIES = {f.name: f.param("p").default  # type: ignore[union-attr]
                        for f in MEASURES.values() if f.param("p") is not None}
#: trec_eval's rbp / rbp_resid default to p = 0.9; rbp_p=0.8 (its output name) sets it.
_TREC_RBP = re.compile(r"^(?P<name>rbp|rbp_resid)(?:[_.]p=(?P<p>[0-9.eE+-]+))?$")
_TREC_RBP_FAMILY = {"rbp": "RBP", "rbp_resid": "RBP_resid"}

_LOOKUP: dict[str, str] = {}
for _fam in MEASURES.values():
    for _n in (_fam.name, *_fam.aliases):
        _LOOKUP[_n.lower()] = _fam.name


@dataclass(frozen=True)
class Measure:
    """One measure with its parameters, e.g. ``Measure("nDCG", 10)`` is ``nDCG@10``.

    ``rel`` overrides the evaluation's relevance level for a binary family; ``gain`` is
    nDCG's gain ("linear" = grade, "exp" = 2^grade - 1); ``judged_only`` scores the condensed
    list (ids without a judgment removed before ranking positions are counted); ``p`` is RBP's
    persistence (0 < p < 1; the family's default when not given).
    """

    family: str
    cutoff: int | None = None
    rel: int | None = None
    gain: str = "linear"
    judged_only: bool = False
    p: float | None = None
    #: values of the family's other declared parameters, as (key, value) pairs
    extra: tuple[tuple[str, object], ...] = ()
    _family: Family = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        fam = MEASURES.get(self.family)
        if fam is None:
            raise PoolkitError(one_of(self.family, MEASURES, "measure"))
        object.__setattr__(self, "_family", fam)
        if self.cutoff is not None:
            if isinstance(self.cutoff, bool) or not isinstance(self.cutoff, int) or self.cutoff < 1:
                raise PoolkitError(f"{self.family}: cutoff must be a positive integer, "
                                   f"got {self.cutoff!r}")
            if fam.cutoff == "none":
                raise PoolkitError(f"{self.family} takes no cutoff (got @{self.cutoff})")
        elif fam.cutoff == "required":
            raise PoolkitError(f"{self.family} needs a cutoff, e.g. {self.family}@10")
        for key, value in self.settings().items():
            param = fam.param(key)
            if param is None:
                reason = _REFUSALS.get(key, f"takes no parameter {key!r}")
                raise PoolkitError(f"{self.family} {reason}")
            try:
                param.check(value, self.family)
            except ParamError as exc:
                why = str(exc).split(": ", 1)[-1]
                raise PoolkitError(f"{self.family}: {why}" if why.startswith(f"{key} ")
                                   else why) from None
        persistence = fam.param("p")
        if persistence is not None and self.p is None:  # RBP's p: its default, named
            object.__setattr__(self, "p", persistence.default)

    def settings(self) -> dict[str, object]:
        """The parameters set away from their defaults, in declaration order."""
        out: dict[str, object] = {}
        if self.rel is not None:
            out["rel"] = self.rel
        if self.gain != "linear":
            out["gain"] = self.gain
        if self.judged_only:
            out["judged_only"] = self.judged_only
        if self.p is not None:
            out["p"] = self.p
        out.update(self.extra)
        return out

    def param(self, key: str) -> object:
        """A parameter's value: as set, else the family's declared default."""
        settings = self.settings()
        if key in settings:
            return settings[key]
        declared = self._family.param(key)
        if declared is None:
            raise PoolkitError(f"{self.family} has no parameter {key!r}")
        return declared.default

    @property
    def name(self) -> str:
        """Canonical spelling, parsed back by :func:`parse_measure`: ``nDCG(gain=exp)@10``."""
        params = [f"{k}={_spell(v)}" for k, v in self.settings().items()]
        text = self.family + (f"({','.join(params)})" if params else "")
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")

    @property
    def persistence(self) -> float:
        """RBP's p (only the persistence families have one)."""
        assert self.p is not None, f"{self.family} has no persistence"
        return float(self.p)

    @property
    def binary(self) -> bool:
        return self._family.binary

    @property
    def doc(self) -> str:
        return self._family.doc

    def at(self, cutoff: int | None) -> Measure:
        """The same measure at another cutoff."""
        return replace(self, cutoff=cutoff)

    def level(self, default: int) -> int:
        """The relevance level this measure uses under an evaluation at ``default``."""
        return default if self.rel is None else self.rel

    def from_facts(self, facts: QueryFacts, level: int = 1) -> float:
        """The value for one query whose shared facts are already built (see evaluate)."""
        if self.judged_only:
            facts = facts.condensed()
        lvl = level if self.rel is None else self.rel
        return self._family.fn(facts, self.cutoff, lvl, self)

    def compute(self, ranking: Sequence[str], grades: Mapping[str, int], level: int = 1) -> float:
        """The value for one query: ``ranking`` in rank order (repeats kept), its grades."""
        return self.from_facts(QueryFacts(ranking, grades), level)

    def __str__(self) -> str:
        return self.name


_SYNTAX = re.compile(
    r"^\s*(?P<family>[A-Za-z][A-Za-z_\-]*?)\s*(?:\((?P<params>[^)]*)\))?\s*"
    r"(?:@\s*(?P<cutoff>[^\s]+))?\s*$"
)
_TREC_CUT = re.compile(r"^(?P<prefix>P|recall|success|map_cut|ndcg_cut)_(?P<cutoff>\d+)$")
_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")
_TYPE_WORDS = {int: "an integer", float: "a number", bool: "true or false"}


def _read_value(text: str, param: Param, value: str) -> object:
    """A parameter's text read as its declared type (the first that fits)."""
    for kind in param.types:
        if kind is bool:
            if value.lower() in _TRUE + _FALSE:
                return value.lower() in _TRUE
        elif kind in (int, float):
            try:
                return kind(value)
            except ValueError:
                continue
        elif kind is str:
            return value.lower() if param.choices else value
    wanted = " or ".join(_TYPE_WORDS.get(k, k.__name__) for k in param.types)
    raise PoolkitError(f"measure {text!r}: {param.key} must be {wanted}, got {value!r}")


def _spell(value: object) -> str:
    """A parameter value as the canonical name writes it (parsed back by parse_measure)."""
    return str(value).lower() if isinstance(value, bool) else f"{value:g}" \
        if isinstance(value, float) else str(value)


def parse_measure(text: str) -> Measure:
    """``"nDCG@10"`` -> ``Measure("nDCG", 10)``; the inverse of ``Measure.name``.

    Accepts ir_measures' spelling (``P@5``, ``R@100``, ``RR@10``, ``AP``, ``nDCG@10``,
    ``P(rel=2)@5``, ``nDCG(gain=exp)@10``, ``AP(judged_only=true)``), family names in any
    case and a few aliases (``MRR``, ``MAP``, ``Success``), and trec_eval's names
    (``P_5``, ``recall_100``, ``ndcg_cut_10``, ``map``, ``map_cut_10``, ``recip_rank``,
    ``success_5``). Anything else raises PoolkitError listing the families.
    """
    raw = text.strip()
    trec = _TREC_CUT.match(raw)
    if trec:
        return Measure(TREC_NAMES[trec["prefix"]], int(trec["cutoff"]))
    if raw in TREC_PLAIN:
        return Measure(TREC_PLAIN[raw])
    trec_rbp = _TREC_RBP.match(raw)
    if trec_rbp:
        return Measure(_TREC_RBP_FAMILY[trec_rbp["name"]],
                       p=_number(text, "p", trec_rbp["p"]) if trec_rbp["p"] else 0.9)
    m = _SYNTAX.match(raw)
    if not m:
        raise PoolkitError(f"cannot read measure {text!r}; expected e.g. P@5, nDCG@10, "
                           f"P(rel=2)@5; families: {', '.join(MEASURES)}")
    family = _LOOKUP.get(m["family"].lower())
    if family is None:
        raise PoolkitError(one_of(m["family"], MEASURES, "measure"))
    kwargs: dict[str, object] = {}
    extra: list[tuple[str, object]] = []
    fam = MEASURES[family]
    if m["params"] is not None and m["params"].strip():
        for item in m["params"].split(","):
            key, sep, value = (s.strip() for s in item.partition("="))
            if not sep or not value:
                raise PoolkitError(f"measure {text!r}: parameter {item.strip()!r} must be "
                                   f"key=value")
            param = fam.param(key)
            if param is None:
                if key in _REFUSALS:  # a shared parameter this family does not take
                    raise PoolkitError(f"{family} {_REFUSALS[key]}")
                raise PoolkitError(f"measure {text!r}: "
                                   + one_of(key, [p.key for p in fam.params], "parameter"))
            parsed = _read_value(text, param, value.strip("'\""))
            if key in ("rel", "gain", "judged_only", "p"):
                kwargs[key] = parsed
            else:
                extra.append((key, parsed))
    if extra:
        kwargs["extra"] = tuple(extra)
    cutoff: int | None = None
    if m["cutoff"] is not None:
        try:
            cutoff = int(m["cutoff"])
        except ValueError:
            raise PoolkitError(f"measure {text!r}: cutoff {m['cutoff']!r} is not an "
                               f"integer") from None
    return Measure(family, cutoff, **kwargs)  # type: ignore[arg-type]


def _number(text: str, key: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise PoolkitError(f"measure {text!r}: {key} must be a number, got {value!r}") from None


def parse_measures(texts: Sequence[str]) -> list[Measure]:
    """Measure names in order, duplicates dropped; one text may hold several separated by spaces."""
    out: list[Measure] = []
    for text in texts:
        for part in text.split():
            meas = parse_measure(part)
            if meas not in out:
                out.append(meas)
    return out


def split_measures(texts: Sequence[str]) -> list[str]:
    """The measure names in ``-m`` values: split on spaces and on commas outside parentheses
    (``P@5,nDCG(gain=exp,rel=2)@10`` is two measures), as ``-k`` and ``--fail-on`` split."""
    out: list[str] = []
    for text in texts:
        before = len(out)
        depth = 0
        cur: list[str] = []
        for ch in text + ",":
            depth += (ch == "(") - (ch == ")")
            if depth <= 0 and (ch == "," or ch.isspace()):
                if cur:
                    out.append("".join(cur))
                cur = []
            else:
                cur.append(ch)
        if len(out) == before:  # `-m ''` would silently mean the default measures
            raise PoolkitError(f"-m {text!r}: no measure named (e.g. -m nDCG@10)")
    return out
