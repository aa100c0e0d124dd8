"""``poolkit trec-eval``: trec_eval's command line and output, byte for byte, for every measure
trec_eval computes from qrels and a run.

The values come from poolkit's own measures, each family listing its trec_eval names in the
registry (:data:`poolkit.score.measures.MEASURES`), and from the measures only trec_eval
prints (:data:`poolkit.score.measures.TREC_FAMILIES`: iprec_at_recall, set_F, G, ...);
this module adds trec_eval's counts and geometric means (gm_map, gm_bpref) and reproduces
its conventions around them, which differ from ``poolkit score``'s:

* Queries: those in both the qrels and the run, in byte order of their ids (``-c``: every
  query of the qrels, a missing one scoring 0). A query whose judgments hold no relevant
  document is evaluated and averaged as 0; ``poolkit score`` excludes and counts it.
* Ranking: score descending, ties by doc id descending (the run's rank column is ignored);
  ``-M N`` keeps the top N, then ``-J`` drops every document without a judgment >= 0.
  A document listed twice for a query is an error, as in trec_eval.
* Means: a plain sum over the queries in order, divided by their number; counts
  (``num_ret``, ``num_rel``, ``num_rel_ret``) are summed; ``runid`` is the run tag of the
  file's last line.
* Lines: ``%-22s\\t%s\\t%6.4f`` (counts ``%ld``; 0 / 0 printed ``-nan`` as C's printf
  prints x86's NaN; relstring ``'%s'`` per query only), measures in trec_eval's table order.
  With -c the summary ``num_rel`` is trec_eval's: every qrels line graded above 0.
* Parameters: ``-m NAME.5,10`` sets a measure's cutoffs; ``-m rbp.p=0.8`` (and
  ``rbp_resid.p=``) its persistence, printed under trec_eval's name for it, ``rbp_p=0.8``
  as typed; ``-m ndcg.1=0.5,2=3`` a gain per grade for ndcg, dcg, ideal_dcg, ndcg_rel,
  Rndcg and G (:meth:`~poolkit.score.families_trec.TrecQuery.gains`). The first ``-m``
  with parameters for a name wins, as in trec_eval. ``-N``: the collection's size, for
  utility.
* With ``-c``, trec_eval scores a query the run lacks as a ranking of one unjudged document
  and then zeroes a few measures by name (num_ret, utility, unj_*, rbp_resid; relstring
  is emptied); ``rbp_resid_p=X`` is not among them (only
  ``rbp_resid`` is), so it prints that ranking's residual, 1, and so does this.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from poolkit.errors import PoolkitError, did_you_mean
from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.score.facts import QueryFacts
from poolkit.score.families_trec import (
    TrecFamily,
    TrecQuery,
    geometric_term,
    ndcg_gains,
)
from poolkit.score.measures import (
    TREC_CUTOFFS,
    TREC_FAMILIES,
    Family,
    Measure,
    TrecName,
    measure_of,
    trec_names,
)

DEFAULT_CUTOFFS = TREC_CUTOFFS

#: Every measure name trec_eval knows, in its measure table's order (the order its lines print
#: in), so that one it computes and poolkit does not is told apart from a typo. Which of them
#: poolkit computes: the counts below and the trec_eval names of the measure families
#: (:data:`poolkit.score.measures.MEASURES`).
TREC_EVAL_NAMES = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "prefs_num_prefs_poss",
    "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp",
    "rbp_resid", "unj",
)


class QueryView:
    """One query as trec_eval sees it: the ranking after -M/-J and its shared facts."""

    __slots__ = ("ranking", "facts", "level", "coll_size", "_trec")

    def __init__(self, ranking: Sequence[str], facts: QueryFacts, level: int,
                 coll_size: int = 0) -> None:
        self.ranking = ranking
        self.facts = facts
        self.level = level
        self.coll_size = coll_size
        self._trec: TrecQuery | None = None

    def value(self, measure: Measure) -> float:
        return measure.from_facts(self.facts, self.level)

    @property
    def trec(self) -> TrecQuery:
        """The query as :mod:`poolkit.score.families_trec`'s measures read it."""
        if self._trec is None:
            self._trec = TrecQuery(self.ranking, self.facts.grades, self.level,
                                   self.coll_size)
        return self._trec


Compute = Callable[[QueryView, Any], float]


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure: how a query's value is computed and how the summary reads.

    ``kind``: ``runid`` (summary line only), ``count`` (an integer per query, summed),
    ``value`` (a number per query, averaged), ``string`` (relstring: text per query, no
    summary), ``geometric`` (a query's term
    log(max(value, 0.00001)), the summary exp(mean); no per-query line) or ``cutoffs`` (one
    ``value`` per cutoff, named ``NAME_K``, or ``NAME_0.20`` for ``fractional`` cutoffs;
    ``-m NAME.5,10`` sets them). ``params``: trec_eval's parameter list, for a measure
    that takes one (``-m set_F.0.5``: printed ``set_F_0.5``).
    """

    name: str
    kind: str
    compute: Compute | None = None
    cutoffs: tuple[float, ...] = ()
    per_query: bool = True
    fractional: bool = False
    params: tuple[float, ...] = ()
    with_params: Callable[[tuple[float, ...]], Compute] | None = None
    #: trec_eval zeroes it by name for a query the run lacks (-c)
    zero_when_missing: bool = False
    #: trec_eval's ``NAME.key=value`` parameters this measure takes with their defaults, and
    #: the computation with them (``{"p": 0.8}`` -> compute)
    pair_defaults: tuple[tuple[str, float], ...] = ()
    with_pairs: Callable[[dict[str, float]], Compute] | None = None
    #: scored on trec_eval's stand-in ranking (one unjudged document) for a query the run
    #: lacks under -c, where trec_eval does not zero it afterwards
    scores_missing_query: bool = False
    #: the computation at trec_eval's gain per grade (``-m ndcg.1=0.5,2=3``: ((1, 0.5), (2,
    #: 3.0))), for the measures that take one
    with_gains: Callable[[tuple[tuple[int, float], ...]], Compute] | None = None

    @property
    def pair_keys(self) -> tuple[str, ...]:
        return tuple(key for key, _ in self.pair_defaults)

    def label(self, cutoff: float) -> str:
        """The printed name at one cutoff: ``P_5``, ``iprec_at_recall_0.20``."""
        return f"{self.name}_{cutoff:3.2f}" if self.fractional else f"{self.name}_{cutoff}"


def _family(family: str) -> Compute:
    """A value from poolkit's measure ``family`` (at the cutoff when there is one)."""
    cache: dict[int | None, Measure] = {}

    def compute(q: QueryView, k: int | None) -> float:
        m = cache.get(k)
        if m is None:
            m = cache[k] = Measure(family, k)
        return q.value(m)

    return compute


def _num_q(q: QueryView, k: int | None) -> float:
    return 1.0


def _num_ret(q: QueryView, k: int | None) -> float:
    return float(len(q.ranking))


def _num_rel(q: QueryView, k: int | None) -> float:
    return float(q.facts.relevant(q.level)[1])


def _num_rel_ret(q: QueryView, k: int | None) -> float:
    return float(len(q.facts.relevant(q.level)[0]))


def _num_nonrel_judged_ret(q: QueryView, k: int | None) -> float:
    return float(sum(1 for _, g in q.facts.hits if 0 <= g < q.level))


#: trec_eval's measures that are not a measure family's: the run tag and counts
_COUNTS: dict[str, TrecMeasure] = {
    m.name: m
    for m in (
        TrecMeasure("runid", "runid", per_query=False),
        TrecMeasure("num_q", "count", _num_q, per_query=False),
        TrecMeasure("num_ret", "count", _num_ret),
        TrecMeasure("num_rel", "count", _num_rel),
        TrecMeasure("num_rel_ret", "count", _num_rel_ret),
        TrecMeasure("num_nonrel_judged_ret", "count", _num_nonrel_judged_ret),
    )
}


def _with_settings(family: str, trec: TrecName) -> Callable[[dict[str, float]], Compute]:
    """The family at trec_eval's ``NAME.key=value`` parameters, its defaults for the others
    (rbp's p = 0.9 when not given)."""
    def with_pairs(pairs: dict[str, float]) -> Compute:
        measure = measure_of(family, None, {**dict(trec.settings), **pairs})
        return lambda q, k: q.value(measure)

    return with_pairs


def _of_family(family: Family, trec: TrecName) -> TrecMeasure:
    """The trec_eval measure a family's trec_eval name stands for (:data:`MEASURES`)."""
    if trec.cutoffs:
        return TrecMeasure(trec.name, "cutoffs", _family(family.name), trec.cutoffs)
    if trec.settings:
        with_pairs = _with_settings(family.name, trec)
        return TrecMeasure(trec.name, "value", with_pairs({}),
                           pair_defaults=trec.settings,
                           with_pairs=with_pairs)
    return TrecMeasure(trec.name, "value", _family(family.name))


def _geometric(family: str) -> Compute:
    """A query's term of the geometric mean of ``family`` (gm_map: AP)."""
    value = _family(family)
    return lambda q, k: geometric_term(value(q, k))


def _of_trec_family(f: TrecFamily) -> TrecMeasure:
    """A measure of :mod:`poolkit.score.families_trec` as a trec_eval table entry."""
    def with_params(values: Any) -> Compute:  # a parameter list or gain pairs
        return lambda q, k: f.fn(q.trec, values)

    def per_cutoff(q: QueryView, k: Any) -> float:
        return f.fn(q.trec, k)

    if f.params == "gains":
        return TrecMeasure(f.name, "value", with_params(f.defaults), params=f.defaults,
                           with_gains=with_params, scores_missing_query=True,
                           zero_when_missing=f.zero_when_missing)
    if f.params in ("long", "double"):
        return TrecMeasure(f.name, "cutoffs", per_cutoff, f.defaults,
                           fractional=f.params == "double", scores_missing_query=True,
                           zero_when_missing=f.zero_when_missing)
    return TrecMeasure(f.name, "string" if f.text else "value", with_params(f.defaults),
                       params=f.defaults,
                       with_params=with_params if f.params == "list" else None,
                       scores_missing_query=True, zero_when_missing=f.zero_when_missing)


def _ndcg_at_gains(gains: tuple[tuple[int, float], ...]) -> Compute:
    return lambda q, k: ndcg_gains(q.trec, gains)


#: the geometric means: trec_eval's name -> the family whose values they combine
_GEOMETRIC = {"gm_map": "AP", "gm_bpref": "bpref"}


def _trec_measures() -> dict[str, TrecMeasure]:
    families = trec_names()
    out: dict[str, TrecMeasure] = {}
    for name in TREC_EVAL_NAMES:
        if name in _COUNTS:
            out[name] = _COUNTS[name]
        elif name in TREC_FAMILIES:
            out[name] = _of_trec_family(TREC_FAMILIES[name])
        elif name in families:
            out[name] = _of_family(*families[name])
            if name == "ndcg":  # poolkit's nDCG, or trec_eval's at other gains per grade
                out[name] = replace(out[name], with_gains=_ndcg_at_gains)
        elif name in _GEOMETRIC:
            out[name] = TrecMeasure(name, "geometric", _geometric(_GEOMETRIC[name]),
                                    per_query=False)
    return out


#: What poolkit computes of trec_eval's table, in its order (the order lines are printed in).
TREC_MEASURES: dict[str, TrecMeasure] = _trec_measures()

# trec_eval's nicknames; each stands for the measures of its list that poolkit computes.
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
}

_LEADING_INT = re.compile(r"\s*([+-]?\d+)")


@dataclass(frozen=True)
class Selection:
    """The measures asked for, in table order, with their cutoffs."""

    measures: tuple[tuple[TrecMeasure, tuple[float, ...]], ...]

    def names(self) -> list[str]:
        """The names printed, in order (``P_5``, ``map``...)."""
        out: list[str] = []
        for m, cutoffs in self.measures:
            out += [m.label(k) for k in cutoffs] if m.kind == "cutoffs" else [m.name]
        return out


def _unsupported(name: str) -> PoolkitError:
    if name in TREC_EVAL_NAMES or name in NICKNAMES:
        return PoolkitError(f"measure {name!r} is trec_eval's but poolkit does not compute it "
                            f"(it reads trec_eval's preference or judgment-group qrels, which "
                            f"poolkit does not read); supported: {', '.join(TREC_MEASURES)} "
                            f"(and the nicknames {', '.join(NICKNAMES)})")
    return PoolkitError(f"unknown trec_eval measure {name!r}; supported: "
                        f"{', '.join(TREC_MEASURES)}"
                        f"{did_you_mean(name, [*TREC_MEASURES, *NICKNAMES])}")


def _cutoffs(name: str, params: str) -> tuple[int, ...]:
    """``5,10`` -> (5, 10): read as trec_eval does (each part's leading integer, sorted);
    non-positive or repeated cutoffs are refused, as trec_eval refuses them."""
    values = []
    for part in params.split(","):
        m = _LEADING_INT.match(part)
        if not m:
            raise PoolkitError(f"-m {name}.{params}: cutoff {part!r} is not an integer")
        values.append(int(m[1]))
    values.sort()
    if values[0] <= 0:
        raise PoolkitError(f"-m {name}.{params}: cutoffs must be positive")
    if len(set(values)) != len(values):
        raise PoolkitError(f"-m {name}.{params}: a cutoff is given twice")
    return tuple(values)


# what C's atof reads (a leading decimal number, inf or nan); a whole value must be one
_C_FLOAT = re.compile(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|inf(?:inity)?|nan)",
                      re.IGNORECASE)


def _numbers(text: str, params: str) -> tuple[float, ...]:
    """``0.2,0.5`` -> (0.2, 0.5), in the order given; what C's atof would read as 0 (a
    part that is not a number) is refused."""
    values = []
    for part in params.split(","):
        if not _C_FLOAT.fullmatch(part) or part != part.strip():
            raise PoolkitError(f"-m {text}: {part!r} is not a number")
        values.append(float(part))
    return tuple(values)


def _fractions(text: str, params: str) -> tuple[float, ...]:
    """Fractional cutoffs (``iprec_at_recall.0.25,0.5``), sorted as trec_eval sorts them; a
    repeated one is refused, as trec_eval refuses it."""
    values = sorted(_numbers(text, params))
    if len(set(values)) != len(values):
        raise PoolkitError(f"-m {text}: a cutoff is given twice")
    return tuple(values)


def _pairs(meas: TrecMeasure, text: str, params: str) -> TrecMeasure:
    """``p=0.8`` -> the measure at that parameter, named as trec_eval prints it
    (``rbp_p=0.8``, the parameters as typed). What trec_eval would take silently and
    print under a misleading name (an unknown key, a value atof reads as 0) is refused."""
    assert meas.with_pairs is not None
    takes = ", ".join(f"{k}=" for k in meas.pair_keys)
    values: dict[str, float] = {}
    for item in params.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise PoolkitError(f"-m {text}: expected KEY=VALUE parameters ({meas.name} takes "
                               f"{takes}, e.g. -m {meas.name}.{meas.pair_keys[0]}=0.8)")
        if key not in meas.pair_keys:
            defaults = ", ".join(f"{k}={v:g}" for k, v in meas.pair_defaults)
            raise PoolkitError(f"-m {text}: {meas.name} takes only {takes} (trec_eval would "
                               f"ignore {key!r}, use {defaults} and print it as "
                               f"{meas.name}_{params})")
        if key in values:
            raise PoolkitError(f"-m {text}: {key} is given twice")
        if not _C_FLOAT.fullmatch(value) or value != value.strip():
            prefix = _C_FLOAT.match(value)
            atof = float(prefix[0]) if prefix else 0.0
            raise PoolkitError(f"-m {text}: {key} {value!r} is not a number (trec_eval would "
                               f"read it as {atof:g})")
        values[key] = float(value)  # correctly rounded, as C's atof
    try:
        compute = meas.with_pairs(values)
    except PoolkitError as exc:
        raise PoolkitError(f"-m {text}: {str(exc).split(': ', 1)[-1]}") from None
    return replace(meas, name=f"{meas.name}_{params}", compute=compute,
                   scores_missing_query=True)


_GRADE = re.compile(r"[+-]?\d+")


def _gain_pairs(name: str, text: str, params: str) -> tuple[tuple[int, float], ...]:
    """``1=0.5,2=3`` -> ((1, 0.5), (2, 3.0)): a gain per grade, as trec_eval reads them for
    ndcg, dcg, ideal_dcg, ndcg_rel, Rndcg and G (grade -1: a document absent from the qrels,
    -2: one the qrels grade below 0). What trec_eval would skip or read as 0 (a key that is
    not a grade, a value that is not a number) and a grade given twice are refused."""
    out: dict[int, float] = {}
    for item in params.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise PoolkitError(f"-m {text}: expected GRADE=GAIN parameters (e.g. -m "
                               f"{name}.1=0.5,2=3)")
        if not _GRADE.fullmatch(key):
            raise PoolkitError(f"-m {text}: {name} takes a gain per grade, GRADE=GAIN "
                               f"(trec_eval would ignore {key!r} and print it as "
                               f"{name}_{params})")
        if not _C_FLOAT.fullmatch(value) or value != value.strip():
            raise PoolkitError(f"-m {text}: the gain {value!r} of grade {key} is not a number")
        if int(key) in out:
            raise PoolkitError(f"-m {text}: grade {int(key)} is given twice")
        out[int(key)] = float(value)
    return tuple(out.items())


#: the measures of trec_eval that share one gain table (one source file, one parameter block)
_SHARED_GAINS = ("dcg", "ideal_dcg", "ndcg")


def _one_gain_table(marked: set[str], given: dict[str, TrecMeasure]) -> None:
    """Refuse gains for one of dcg, ideal_dcg and ndcg beside another of them: trec_eval
    computes all three with the gains last given to any, prints them under names that say
    otherwise, and with gains given twice frees the table twice and aborts."""
    gained = [n for n in _SHARED_GAINS if n in given]
    others = [n for n in _SHARED_GAINS if n in marked and n != (gained or [""])[0]]
    if gained and others:
        raise PoolkitError(f"-m {gained[0]} with gains beside -m {others[0]}: trec_eval "
                           f"scores dcg, ideal_dcg and ndcg with one gain table (the last "
                           f"given) whatever each is named; ask for them in separate runs")


def select_measures(texts: Sequence[str]) -> Selection:
    """What ``-m`` asked for (default ``official``), as trec_eval reads it: ``NAME``,
    ``NAME.P1,P2`` (cutoffs), ``NAME.key=value`` (rbp's ``p``) or a nickname; a nickname's
    measures poolkit does not compute are left out, a measure named on its own that poolkit
    does not compute is an error."""
    marked: set[str] = set()
    params: dict[str, tuple[float, ...]] = {}
    with_pairs: dict[str, TrecMeasure] = {}
    for text in texts or ["official"]:
        name, dot, rest = text.partition(".")
        if dot:
            if not rest:
                raise PoolkitError(f"-m {text}: no parameters after the '.'")
            if name in NICKNAMES:
                raise PoolkitError(f"-m {text}: the nickname {name!r} takes no parameters")
            meas = TREC_MEASURES.get(name)
            if meas is None:
                raise _unsupported(name)
            if meas.with_gains is not None:
                if name not in with_pairs:  # the first one wins, as in trec_eval
                    with_pairs[name] = replace(
                        meas, name=f"{name}_{rest}", scores_missing_query=True,
                        compute=meas.with_gains(_gain_pairs(meas.name, text, rest)))
            elif meas.with_pairs is not None:
                if name not in with_pairs:  # the first one wins, as in trec_eval
                    with_pairs[name] = _pairs(meas, text, rest)
            elif meas.with_params is not None:
                if name not in with_pairs:
                    with_pairs[name] = replace(meas, name=f"{name}_{rest}",
                                               compute=meas.with_params(_numbers(text, rest)))
            elif meas.fractional:
                params.setdefault(name, _fractions(text, rest))
            elif meas.kind != "cutoffs":
                raise PoolkitError(f"-m {text}: poolkit computes {name} only with its default "
                                   f"parameters (none)")
            else:
                params.setdefault(name, _cutoffs(name, rest))  # the first one wins
        if name in NICKNAMES:
            marked.update(n for n in NICKNAMES[name] if n in TREC_MEASURES)
        elif name in TREC_MEASURES:
            marked.add(name)
        else:
            raise _unsupported(name)
    _one_gain_table(marked, with_pairs)
    return Selection(tuple((with_pairs.get(m.name, m), params.get(m.name, m.cutoffs))
                           for m in TREC_MEASURES.values() if m.name in marked))


@dataclass(frozen=True)
class Options:
    """trec_eval's switches that change values: -c, -l, -M, -J."""

    complete: bool = False
    level: int = 1
    depth: int | None = None
    judged_only: bool = False
    #: -N: documents in the collection (utility's fourth term; 0 as trec_eval's default)
    num_docs: int = 0


#: the one document of trec_eval's stand-in ranking for a query the run lacks (-c)
MISSING_QUERY_DOC = "ceci_nest_pas_un_docno"


def _ranking(run: Run, qid: str, opts: Options, grades: dict[str, int],
             ranking: list[str] | None = None) -> list[str]:
    """The run's ranking for ``qid`` (or ``ranking``) after -M and -J."""
    ranking = run.rankings.get(qid, []) if ranking is None else ranking
    if opts.depth is not None:
        ranking = ranking[:max(opts.depth, 0)]
    if len(set(ranking)) != len(ranking):
        dup = next(d for d, n in Counter(ranking).items() if n > 1)
        raise PoolkitError(f"{run.path or run.name}: query {qid!r} lists doc {dup!r} twice "
                           f"(trec_eval refuses duplicate docs too)")
    if opts.judged_only:
        ranking = [d for d in ranking if grades.get(d, -1) >= 0]
    return ranking


def _fmt_value(name: str, qid: str, value: float) -> str:
    if value != value:  # 0 / 0 in trec_eval: C's printf writes the sign of x86's NaN
        return f"{name:<22}\t{qid}\t{'-nan':>6}\n"
    return f"{name:<22}\t{qid}\t{value:6.4f}\n"


def _fmt_count(name: str, qid: str, value: float) -> str:
    return f"{name:<22}\t{qid}\t{int(value)}\n"


def trec_eval(qrels: Qrels, run: Run, selection: Selection, opts: Options, *,
              per_query: bool = False, summary: bool = True, runid: str | None = None) -> str:
    """trec_eval's stdout for ``run`` against ``qrels``."""
    in_run = set(run.rankings)
    qids = sorted(q for q in qrels.grades if opts.complete or q in in_run)
    if not qids:
        raise PoolkitError("no query has both results and relevance judgments "
                           "(trec_eval stops here too)")
    # (measure, cutoff or None, printed name, summed value)
    slots: list[tuple[TrecMeasure, float | None, str]] = []
    for m, cutoffs in selection.measures:
        if m.kind == "cutoffs":
            slots.extend((m, k, m.label(k)) for k in cutoffs)
        elif m.kind != "runid":
            slots.append((m, None, m.name))
    totals = [0.0] * len(slots)
    out: list[str] = []
    for qid in qids:
        grades = qrels.grades[qid]
        ranking = _ranking(run, qid, opts, grades)
        view = stand_in = QueryView(ranking, QueryFacts(ranking, grades), opts.level,
                                    opts.num_docs)
        if qid not in in_run and any(m.scores_missing_query for m, _, _ in slots):
            ranking = _ranking(run, qid, opts, grades, [MISSING_QUERY_DOC])
            stand_in = QueryView(ranking, QueryFacts(ranking, grades), opts.level,
                                 opts.num_docs)
        missing = qid not in in_run
        for i, (m, k, name) in enumerate(slots):
            assert m.compute is not None
            if m.kind == "string":
                if per_query:
                    text = "" if missing else m.compute(stand_in, k)
                    out.append(f"{name:<22}\t{qid}\t'{text}'\n")
                continue
            value = (0.0 if missing and m.zero_when_missing else
                     m.compute(stand_in if m.scores_missing_query else view, k))
            totals[i] += value
            if per_query and m.per_query:
                fmt = _fmt_count if m.kind == "count" else _fmt_value
                out.append(fmt(name, qid, value))
    if summary:
        n = len(qids)
        tag = runid if runid is not None else (run.tag or run.name)
        totals_by_slot = iter(zip(slots, totals))
        for m, cutoffs in selection.measures:
            if m.kind == "runid":
                out.append(f"{'runid':<22}\tall\t{tag}\n")
                continue
            if m.kind == "string":
                next(totals_by_slot)
                continue
            if m.name == "num_rel" and opts.complete:
                # trec_eval -c: every qrels line graded above 0, whatever the level
                out.append(_fmt_count(m.name, "all", sum(
                    1 for docs in qrels.grades.values() for g in docs.values() if g > 0)))
                next(totals_by_slot)
                continue
            for _ in (cutoffs if m.kind == "cutoffs" else (None,)):
                (_m, _k, name), total = next(totals_by_slot)
                if m.kind == "count":
                    out.append(_fmt_count(name, "all", total))
                elif m.kind == "geometric":
                    out.append(_fmt_value(name, "all", math.exp(total / n)))
                else:
                    out.append(_fmt_value(name, "all", total / n))
    return "".join(out)
