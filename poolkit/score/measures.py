"""The measure registry: every family with what it takes and how it is read, and ``Measure``.

Where a reader looks for the parts:

* :mod:`poolkit.score.facts`: what one ranking holds against one query's grades
  (:class:`QueryFacts`, built once per query) and the gains;
* :mod:`poolkit.score.families`: one function per family, its docstring the formula
  (``poolkit score --help`` prints them) and the conventions;
* here: :data:`MEASURES`, one :class:`Family` per line with its parameters, the interval its
  mean gets (Wilson for a 0/1 value, bootstrap otherwise), whether it has a condensed-list
  form (``P'``, ``nDCG'``...) and its trec_eval names; :data:`PARAMS`, every parameter a
  family may take; :class:`Measure` and its spelling (:func:`parse_measure`);
* :mod:`poolkit.score.families_trec`: trec_eval's measures beyond poolkit's own families
  (iprec_at_recall, set_F, G, unj, gm_map's geometric term...), one function each with its
  formula; each is a family here too, with its trec_eval parameters (``trec_family``), so
  that ``poolkit score -m NAME`` takes every measure ``poolkit trec-eval`` prints but
  relstring (a string); :data:`TREC_FAMILIES` lists them by trec_eval name.

A :class:`Measure` is a frozen value: a family (``P``, ``R``, ``nDCG`` ...), an optional cutoff
and typed parameters. ``Measure.name`` spells it the way ir_measures does (``P@5``,
``nDCG@10``, ``nDCG(gain=exp)@10``, ``P(rel=2)@5``) and :func:`parse_measure` parses that
spelling back, and trec_eval's (``P_5``, ``ndcg_cut_10``, ``map``) too.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace

import poolkit.score.families_trec as ft
from poolkit.errors import PoolkitError, one_of
from poolkit.params import Param, ParamError
from poolkit.score.facts import GAINS, GainOverflow, QueryFacts, discounts
from poolkit.score.families import (
    average_precision,
    bpref,
    context_precision,
    hit,
    inf_ap,
    inf_ndcg,
    judged,
    ndcg,
    precision,
    r_precision,
    rbp_family,
    rbp_residual,
    recall,
    recall_capped,
    reciprocal_rank,
    stat_ap_family,
    xinf_ap,
)

__all__ = ["GAINS", "MEASURES", "PARAMS", "TREC_FAMILIES", "Family", "GainOverflow", "Measure",
           "QueryFacts", "TrecName", "aggregate", "discounts", "parse_measure", "parse_measures",
           "split_measures"]


def _open_unit(value: object) -> None:
    if not 0.0 < float(value) < 1.0:  # type: ignore[arg-type]
        raise ParamError(f"p must be a number strictly between 0 and 1, got {value!r}")


#: Every parameter a measure family may take, with what a family that does not take it says
#: when given it. A new parameter is one entry here, named in the ``params`` of the families
#: that take it (``Measure.param(key)`` reads it in their functions; its value travels in
#: ``Measure.extra``, parsed, checked, spelled and refused with no other code).
PARAMS: dict[str, tuple[Param, str]] = {param.key: (param, refusal) for param, refusal in (
    (Param("rel", (int,), None, "relevance level of this binary measure (grade >= rel)"),
     "is graded and takes no rel= level"),
    (Param("gain", (str,), "linear", "gain of a grade: linear (= grade) or exp (2^g - 1)",
           choices=GAINS),
     "takes no gain (only nDCG and infNDCG do)"),
    (Param("judged_only", (bool,), False,
           "score the condensed list (unjudged ids removed first)"),
     "takes no judged_only (its condensed list is all judged)"),
    (Param("p", (float,), 0.8, "persistence: the chance of reading on "
           "(0 < p < 1; ir_measures' RBP default 0.8)", validate=_open_unit),
     "takes no p= (only RBP, RBP_resid do)"),
    (Param("x", (float,), None, "a fraction (or multiple) of R: iprec_at_recall's recall "
           "point, Rprec_mult's rank x R"),
     "takes no x= (only iprec_at_recall and Rprec_mult do)"),
    (Param("beta", (float,), 1.0, "set_F's weight of recall against precision"),
     "takes no beta= (only set_F does)"),
    *((Param(key, (float,), default, f"utility's worth of each document {what}"),
       "takes no utility weights (only utility does)")
      for key, default, what in (("rel_ret", 1.0, "relevant and retrieved"),
                                 ("nonrel_ret", -1.0, "non-relevant and retrieved"),
                                 ("rel_missed", 0.0, "relevant, not retrieved"),
                                 ("nonrel_missed", 0.0, "non-relevant, not retrieved "
                                  "(of a collection of 0 documents: trec-eval's -N)")))
)}
REL, GAIN, JUDGED_ONLY, PERSISTENCE = (PARAMS[k][0] for k in ("rel", "gain", "judged_only", "p"))
BINARY = (REL, JUDGED_ONLY)
UTILITY = tuple(PARAMS[k][0] for k in ("rel_ret", "nonrel_ret", "rel_missed", "nonrel_missed"))

#: How a family's mean gets its interval (:func:`poolkit.score.intervals.intervals`): a
#: Wilson score interval when each query's value is 0 or 1, a percentile bootstrap otherwise.
INTERVAL_METHODS = ("wilson", "bootstrap")
#: trec_eval's default cutoffs for a measure printed per cutoff (``P_5`` ... ``P_1000``)
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class TrecName:
    """One of trec_eval's names for a family, for ``poolkit trec-eval`` and for people who type
    it to ``poolkit score``.

    A name with ``cutoffs`` prints one value per cutoff as ``NAME_K`` (those are trec_eval's
    defaults; ``-m NAME.5,10`` sets others, ``NAME_10`` reads as the family at 10); one
    without is the full list. ``settings`` are trec_eval's defaults where they are not
    poolkit's (its rbp reads on with p = 0.9), and the ``NAME.key=value`` parameters it
    takes. ``score``: ``poolkit score -m NAME`` reads it too (``set_recall`` is
    trec-eval's alone; ``poolkit score`` spells it ``R``).
    """

    name: str
    cutoffs: tuple[int, ...] = ()
    settings: tuple[tuple[str, float], ...] = ()
    score: bool = True
    #: the parameter a number after the name sets (``iprec_at_recall_0.50``: x = 0.5)
    suffix: str | None = None


def _cut(name: str, cutoffs: tuple[int, ...] = TREC_CUTOFFS) -> TrecName:
    return TrecName(name, cutoffs)


_TREC_RBP = (("p", 0.9),)  # trec_eval's rbp and rbp_resid default persistence


@dataclass(frozen=True)
class Family:
    """One measure family in the registry: how it computes, which parameters it takes, how
    its mean's interval is made, whether it has a condensed form, and its trec_eval names.

    ``params`` declares every parameter the family accepts (``P(rel=2)@5``), with type and
    default; parsing, validation, the canonical name and help text are generic over it (a
    new parameter: :data:`PARAMS`). ``interval`` is one of :data:`INTERVAL_METHODS`.
    ``condensed``: the family has a condensed-list variant ``X'`` (``judged_only=true``)
    that can differ from it, which compare shows beside it (bpref reads judged ids only
    already; Judged has no condensed list).
    """

    name: str
    fn: Callable[[QueryFacts, int | None, int, Measure], float]
    cutoff: str  # "required" | "optional" | "none"
    binary: bool = True
    aliases: tuple[str, ...] = ()
    params: tuple[Param, ...] = BINARY
    interval: str = "bootstrap"
    condensed: bool = True
    trec: tuple[TrecName, ...] = ()
    #: how the per-query values make the figure: ``mean``, or ``geometric``:
    #: exp(mean of log(max(value, 0.00001))) (gm_map, gm_bpref), its interval the bootstrap
    #: interval of that mean of logs, exponentiated
    aggregate: str = "mean"
    #: trec_eval's parameters of a measure it has and poolkit's own families do not
    #: (:mod:`poolkit.score.families_trec`); ``poolkit trec-eval`` prints it by them
    trec_family: ft.TrecFamily | None = None
    #: parameters without a default that must be given (iprec_at_recall's x)
    needs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        assert self.interval in INTERVAL_METHODS, self.interval
        assert self.aggregate in ("mean", "geometric"), self.aggregate
        assert not self.condensed or JUDGED_ONLY in self.params, \
            f"{self.name}: a condensed form needs the judged_only parameter"

    @property
    def formula(self) -> str:
        """The docstring's first paragraph on one line: the formula for help texts."""
        return " ".join((self.fn.__doc__ or "").strip().split("\n\n")[0].split())

    @property
    def doc(self) -> str:
        return (self.fn.__doc__ or "").strip()

    def param(self, key: str) -> Param | None:
        return next((p for p in self.params if p.key == key), None)


def _on_trec(fn: Callable[..., object],
             arg: Callable[[int | None, Measure], object] = lambda k, m: ()
             ) -> Callable[[QueryFacts, int | None, int, Measure], float]:
    """A :mod:`~poolkit.score.families_trec` function as a family function: the query read as
    trec_eval reads it (a repeated id's later slots unjudged, so only its first can score),
    its parameter from the cutoff or the measure (``arg``); the docstring stays the formula."""
    @functools.wraps(fn)
    def family(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
        seen: set[str] = set()
        ranking = [d if d not in seen and not seen.add(d) else f"\0repeat {i}"  # type: ignore[func-returns-value]
                   for i, d in enumerate(f.ranking)]
        return fn(ft.TrecQuery(ranking, f.grades, level), arg(k, m))  # type: ignore[return-value]

    return family


def _x(k: int | None, m: Measure) -> float:
    return float(m.param("x"))  # type: ignore[arg-type]


def _weights(k: int | None, m: Measure) -> tuple[float, ...]:
    return tuple(float(m.param(p.key)) for p in UTILITY)  # type: ignore[arg-type]


def _geometric(name: str, fn: Callable[[QueryFacts, int | None, int, Measure], float],
               of: str) -> Callable[[QueryFacts, int | None, int, Measure], float]:
    """``of``'s function under a geometric mean's formula (gm_map: AP's values)."""
    def family(f: QueryFacts, k: int | None, level: int, m: Measure) -> float:
        return fn(f, k, level, m)

    family.__doc__ = (f"{name} = exp(sum over queries of log(max({of}, 0.00001)) / queries): "
                      f"the geometric mean of {of}, which weighs the hardest queries more "
                      f"(trec_eval {name}). Per query {name} is {of}; its figure is that "
                      f"geometric mean, and its interval the bootstrap interval of the "
                      f"mean of the logs, exponentiated.")
    return family


def _trec_only(tf: ft.TrecFamily, cutoff: str = "none", arg: Callable[[int | None, Measure],
               object] | None = None, params: tuple[Param, ...] = (REL,),
               binary: bool = True, trec: tuple[TrecName, ...] | None = None,
               needs: tuple[str, ...] = ()) -> Family:
    """A Family for one of trec_eval's measures that poolkit's own families do not cover."""
    fixed = tf.defaults if tf.params == "list" else ()
    return Family(tf.name, _on_trec(tf.fn, arg or (lambda k, m: fixed)), cutoff,
                  binary=binary, params=params, condensed=False,
                  trec=trec if trec is not None else (TrecName(tf.name),), trec_family=tf,
                  needs=needs)


def _trec_families() -> tuple[Family, ...]:
    """trec_eval's measures beyond poolkit's own families, with its parameters
    (:class:`~poolkit.score.families_trec.TrecFamily`), in the order it lists them."""
    T = ft.TrecFamily
    long_ = dict(cutoff="required", arg=lambda k, m: k)
    graded = dict(params=(), binary=False)
    return (
        Family("gm_map", _geometric("gm_map", average_precision, "AP"), "none",
               condensed=False, params=(REL,), aggregate="geometric"),
        Family("gm_bpref", _geometric("gm_bpref", bpref, "bpref"), "none",
               condensed=False, params=(REL,), aggregate="geometric"),
        _trec_only(T("relstring", ft.relstring, "list", (10.0,), zero_when_missing=True,
                     text=True), trec=(TrecName("relstring", score=False),)),
        _trec_only(T("iprec_at_recall", ft.iprec_at_recall, "double", ft.TENTHS), arg=_x,
                   params=(REL, PARAMS["x"][0]), needs=("x",),
                   trec=(TrecName("iprec_at_recall", suffix="x"),)),
        _trec_only(T("Rprec_mult", ft.rprec_mult, "double", ft.R_MULTIPLES), arg=_x,
                   params=(REL, PARAMS["x"][0]), needs=("x",),
                   trec=(TrecName("Rprec_mult", suffix="x"),)),
        _trec_only(T("utility", ft.utility, "list", (1.0, -1.0, 0.0, 0.0),
                     zero_when_missing=True), arg=_weights, params=(REL, *UTILITY)),
        _trec_only(T("11pt_avg", ft.eleven_point_average, "list", ft.TENTHS)),
        _trec_only(T("binG", ft.bin_g)),
        _trec_only(T("G", ft.g_measure, "gains"), **graded),  # type: ignore[arg-type]
        _trec_only(T("ndcg_rel", ft.ndcg_rel, "gains"), **graded),  # type: ignore[arg-type]
        _trec_only(T("Rndcg", ft.r_ndcg, "gains"), **graded),  # type: ignore[arg-type]
        _trec_only(T("relative_P", ft.relative_precision, "long", ft.P_CUTOFFS),
                   trec=(TrecName("relative_P", ft.P_CUTOFFS),), **long_),  # type: ignore[arg-type]
        _trec_only(T("dcg", ft.dcg, "gains"), **graded),  # type: ignore[arg-type]
        _trec_only(T("ideal_dcg", ft.ideal_dcg, "gains"), **graded),  # type: ignore[arg-type]
        _trec_only(T("yaap", ft.yaap)),
        _trec_only(T("set_P", ft.set_precision)),
        _trec_only(T("set_relative_P", ft.set_relative_precision)),
        _trec_only(T("set_map", ft.set_map)),
        _trec_only(T("set_F", ft.set_f, "list", (1.0,)),
                   arg=lambda k, m: (float(m.param("beta")),),  # type: ignore[arg-type]
                   params=(REL, PARAMS["beta"][0]), trec=(TrecName("set_F", suffix="beta"),)),
        _trec_only(T("unj", ft.unjudged, "long", (5, 10, 20), zero_when_missing=True),
                   trec=(TrecName("unj", (5, 10, 20)),), **long_),  # type: ignore[arg-type]
    )


MEASURES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("P", precision, "required", aliases=("Precision",), trec=(_cut("P"),)),
        Family("R", recall, "optional", aliases=("Recall",),
               trec=(_cut("recall"), TrecName("set_recall", score=False))),
        Family("Rcap", recall_capped, "required"),
        Family("Hit", hit, "optional", aliases=("Success",), interval="wilson",
               trec=(_cut("success", (1, 5, 10)),)),
        Family("RR", reciprocal_rank, "optional", aliases=("MRR",),
               trec=(TrecName("recip_rank"),)),
        Family("AP", average_precision, "optional", aliases=("MAP",),
               trec=(TrecName("map"), _cut("map_cut"))),
        Family("nDCG", ndcg, "optional", binary=False, params=(GAIN, JUDGED_ONLY),
               trec=(TrecName("ndcg"), _cut("ndcg_cut"))),
        Family("Rprec", r_precision, "none", aliases=("R-prec", "R-precision"),
               trec=(TrecName("Rprec"),)),
        Family("bpref", bpref, "none", aliases=("Bpref",), condensed=False,
               trec=(TrecName("bpref"),)),
        Family("Judged", judged, "optional", binary=False, params=(), condensed=False),
        Family("CP", context_precision, "optional", aliases=("ContextPrecision",)),
        Family("infAP", inf_ap, "none", trec=(TrecName("infAP"),)),
        Family("xinfAP", xinf_ap, "none"),
        Family("statAP", stat_ap_family, "none", aliases=("StatAP",)),
        Family("infNDCG", inf_ndcg, "optional", binary=False, params=(GAIN, JUDGED_ONLY)),
        Family("RBP", rbp_family, "optional", binary=False, params=(PERSISTENCE, JUDGED_ONLY),
               trec=(TrecName("rbp", settings=_TREC_RBP),)),
        Family("RBP_resid", rbp_residual, "optional", binary=False,
               aliases=("RBPresid", "RBP-resid"), params=(PERSISTENCE, JUDGED_ONLY),
               trec=(TrecName("rbp_resid", settings=_TREC_RBP),)),
        *_trec_families(),
    )
}

#: trec_eval's measures beyond poolkit's own families, by trec_eval name, with its
#: parameters: the registry's families that carry a :class:`~poolkit.score.families_trec.
#: TrecFamily`
TREC_FAMILIES: dict[str, ft.TrecFamily] = {f.trec_family.name: f.trec_family
                                           for f in MEASURES.values() if f.trec_family}


def aggregate(family: str, values: Sequence[float]) -> float:
    """The figure a family's per-query ``values`` make (their mean, or gm_map's geometric
    mean); 0.0 over no values."""
    if not values:
        return 0.0
    if MEASURES[family].aggregate == "geometric":
        return math.exp(math.fsum(ft.geometric_term(v) for v in values) / len(values))
    return math.fsum(values) / len(values)


def trec_names() -> dict[str, tuple[Family, TrecName]]:
    """Every trec_eval name a family carries: name -> (the family, the name's entry)."""
    return {t.name: (f, t) for f in MEASURES.values() for t in f.trec}


def family_named(text: str) -> str | None:
    """The family ``text`` names, in any case or by an alias (``map`` -> ``AP``)."""
    wanted = text.lower()
    return next((f.name for f in MEASURES.values()
                 if wanted in (n.lower() for n in (f.name, *f.aliases))), None)


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
    #: values of the family's other declared parameters (:data:`PARAMS` but the fields
    #: above), as (key, value) pairs
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
                raise PoolkitError(f"{self.family} {_refusal(key)}")
            try:
                param.check(value, self.family)
            except ParamError as exc:
                why = str(exc).split(": ", 1)[-1]
                raise PoolkitError(f"{self.family}: {why}" if why.startswith(f"{key} ")
                                   else why) from None
        for key in fam.needs:
            if key not in self.settings():
                raise PoolkitError(f"{self.family} needs {key}=, e.g. {self.family}({key}=0.5) "
                                   f"(trec_eval's spelling: {self.family}_0.50)")
        if fam.trec_family is not None and fam.trec_family.text:
            raise PoolkitError(f"{self.family} is a string per query, not a number: "
                               f"poolkit trec-eval -q -m {self.family} prints it")
        persistence = fam.param("p")
        if persistence is not None and self.p is None:  # RBP's p: its default, named
            object.__setattr__(self, "p", persistence.default)

    def settings(self) -> dict[str, object]:
        """The parameters set away from their defaults, in declaration order."""
        out: dict[str, object] = {f.name: getattr(self, f.name) for f in _PARAM_FIELDS
                                   if getattr(self, f.name) != f.default}
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

    def condensed(self) -> Measure | None:
        """The condensed-list variant ``X'`` (``judged_only=true``), or None when this is one
        or its family has none (:attr:`Family.condensed`)."""
        if self.judged_only or not self._family.condensed:
            return None
        return replace(self, judged_only=True)

    @property
    def interval(self) -> str:
        """How this measure's mean gets its interval: ``wilson`` or ``bootstrap``."""
        return self._family.interval

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


#: The parameters that are fields of Measure (the others travel in ``extra``), in order.
_PARAM_FIELDS = tuple(f for f in fields(Measure) if f.name in PARAMS)
_FIELD_NAMES = frozenset(f.name for f in _PARAM_FIELDS)


def _refusal(key: str) -> str:
    """Why a family refuses the parameter ``key``."""
    shared = PARAMS.get(key)
    return shared[1] if shared is not None else f"takes no parameter {key!r}"


def measure_of(family: str, cutoff: int | None = None,
               values: Mapping[str, object] | None = None) -> Measure:
    """``Measure(family, cutoff)`` with parameter ``values`` by key: a field's as the field,
    any other in ``extra`` (in the order given)."""
    kwargs: dict[str, object] = {}
    extra: list[tuple[str, object]] = []
    for key, value in (values or {}).items():
        if key in _FIELD_NAMES:
            kwargs[key] = value
        else:
            extra.append((key, value))
    if extra:
        kwargs["extra"] = tuple(extra)
    return Measure(family, cutoff, **kwargs)  # type: ignore[arg-type]


_SYNTAX = re.compile(
    r"^\s*(?P<family>[A-Za-z][A-Za-z_\-]*?)\s*(?:\((?P<params>[^)]*)\))?\s*"
    r"(?:@\s*(?P<cutoff>[^\s]+))?\s*$"
)
#: a trec_eval name at a cutoff (``map_cut_10``), and a full-list one with a parameter set
#: the way trec_eval prints it or -m sets it (``rbp_p=0.8``, ``rbp.p=0.8``)
_TREC_CUT = re.compile(r"(?P<name>\w+)_(?P<cutoff>\d+)")
_TREC_NUMBER = re.compile(r"_(?P<value>[0-9]*\.?[0-9]+)")
_TREC_SETTING = re.compile(r"[_.](?P<key>\w+)=(?P<value>[0-9.eE+-]+)")
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
    trec = _from_trec_name(text, raw)
    if trec is not None:
        return trec
    m = _SYNTAX.match(raw)
    if not m:
        raise PoolkitError(f"cannot read measure {text!r}; expected e.g. P@5, nDCG@10, "
                           f"P(rel=2)@5; families: {', '.join(MEASURES)}")
    family = family_named(m["family"])
    if family is None:
        raise PoolkitError(one_of(m["family"], MEASURES, "measure"))
    values: dict[str, object] = {}
    fam = MEASURES[family]
    if m["params"] is not None and m["params"].strip():
        for item in m["params"].split(","):
            key, sep, value = (s.strip() for s in item.partition("="))
            if not sep or not value:
                raise PoolkitError(f"measure {text!r}: parameter {item.strip()!r} must be "
                                   f"key=value")
            param = fam.param(key)
            if param is None:
                if key in PARAMS:  # a shared parameter this family does not take
                    raise PoolkitError(f"{family} {_refusal(key)}")
                raise PoolkitError(f"measure {text!r}: "
                                   + one_of(key, [p.key for p in fam.params], "parameter"))
            values[key] = _read_value(text, param, value.strip("'\""))
    cutoff: int | None = None
    if m["cutoff"] is not None:
        try:
            cutoff = int(m["cutoff"])
        except ValueError:
            raise PoolkitError(f"measure {text!r}: cutoff {m['cutoff']!r} is not an "
                               f"integer") from None
    return measure_of(family, cutoff, values)


def _from_trec_name(text: str, raw: str) -> Measure | None:
    """The measure a trec_eval name stands for (``P_5``, ``map``, ``rbp_p=0.8``), or None
    when ``raw`` is not one ``poolkit score`` reads."""
    names = {name: entry for name, entry in trec_names().items() if entry[1].score}
    cut = _TREC_CUT.fullmatch(raw)
    if cut and cut["name"] in names and names[cut["name"]][1].cutoffs:
        return Measure(names[cut["name"]][0].name, int(cut["cutoff"]))
    for name, (family, trec) in names.items():
        if trec.cutoffs or not raw.startswith(name):
            continue
        values: dict[str, object] = dict(trec.settings)
        if trec.suffix is not None and raw != name:
            number = _TREC_NUMBER.fullmatch(raw, len(name))
            if not number:
                continue
            values[trec.suffix] = _number(text, trec.suffix, number["value"])
        elif raw != name:
            setting = _TREC_SETTING.fullmatch(raw, len(name))
            if not setting or setting["key"] not in values:
                continue
            values[setting["key"]] = _number(text, setting["key"], setting["value"])
        return measure_of(family.name, None, values)
    return None


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
