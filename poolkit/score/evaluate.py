"""Score a run against qrels: per-query values and macro-averages, trec_eval ``-c`` style.

Which queries count:

* scored: every query in the qrels with at least one relevant id at the level. They are the
  denominator of every mean, including those the run has no results for (they score 0 and
  are listed in ``missing``), as trec_eval does with ``-c``.
* excluded: queries in the qrels with no relevant id at the level. Recall, AP and nDCG would
  be 0/0 there, so they are left out of every mean and counted.
* unknown: queries the run has but the qrels do not; ignored, and listed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from poolkit.errors import InputError, PoolkitError
from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.score.inferred import PoolSample
from poolkit.score.measures import GainOverflow, Measure, QueryFacts, aggregate


@dataclass
class Evaluation:
    """Per-query values and means of several measures for one run against one qrels."""

    measures: list[Measure]
    #: measure name -> qid -> value, scored queries only (in qrels order)
    per_query: dict[str, dict[str, float]]
    #: measure name -> mean over the scored queries (0.0 when there are none)
    means: dict[str, float]
    scored: list[str]
    excluded: list[str]
    missing: list[str]
    unknown: list[str]
    qrels: Qrels
    run: Run
    level: int = 1
    depth: int | None = None
    #: qid -> |Rel| at the level, scored queries only
    num_rel: dict[str, int] = field(default_factory=dict)
    _rankings: dict[str, tuple[int, int, list[str]]] | None = field(default=None, repr=False)
    _rows_let_go: bool = field(default=False, repr=False)

    def let_rows_go(self) -> None:
        """Drop this evaluation's hold on the run's rows, keeping every value computed: a
        process scoring N runs then holds one run's rows at a time, not N. Afterwards
        ``run`` is the run's name, path and hash only, and ``ranking_facts`` cannot answer."""
        run = self.run
        self.run = Run({}, name=run.name, sha256=run.sha256, path=run.path, tag=run.tag)
        self._rankings = None
        self._rows_let_go = True

    def ranking_facts(self, qid: str) -> tuple[int, int, list[str]]:
        """(ids ranked within the depth, repeated slots, repeated ids in first-seen order)
        for one query of the run; a run read as columns answers for all queries at once."""
        if self._rows_let_go:
            raise RuntimeError("ranking_facts after let_rows_go: the run's rows are gone")
        if self._rankings is None:
            cols = self.run.columns
            if cols is not None:
                from poolkit.score.columnar import column_repeats

                self._rankings = column_repeats(cols, self.depth)
            else:
                self._rankings = {}
        known = self._rankings.get(qid)
        if known is not None:
            return known
        if self.run.columns is not None:
            return 0, 0, []  # a query the run does not have
        from poolkit.score.audit import repeats_of

        ranking = self.run.rankings.get(qid, [])
        if self.depth is not None:
            ranking = ranking[:self.depth]
        slots, repeated = repeats_of(ranking)
        known = self._rankings[qid] = (len(ranking), slots, repeated)
        return known

    def values(self, measure: Measure | str) -> list[float]:
        """Per-query values of one measure in ``scored`` order (for intervals, tests)."""
        name = measure if isinstance(measure, str) else measure.name
        column = self.per_query[name]
        return [column[q] for q in self.scored]

    def mean(self, measure: Measure | str) -> float:
        return self.means[measure if isinstance(measure, str) else measure.name]


def require_scorable(qrels: Qrels, level: int) -> None:
    """Refuse labels in which no query has a grade >= ``level``: every measure would be a
    mean over zero queries, printed as 0.000 and easily taken for a result."""
    if not any(g >= level for docs in qrels.grades.values() for g in docs.values()):
        top = max((g for docs in qrels.grades.values() for g in docs.values()), default=None)
        raise InputError(qrels.path or qrels.name, None,
                         f"no query has a grade >= {level} (the relevance level; highest "
                         f"grade {top}): nothing can be scored (lower --level)")


def evaluate(qrels: Qrels, run: Run, measures: Sequence[Measure], *, level: int = 1,
             depth: int | None = None,
             sample: Mapping[str, PoolSample] | None = None,
             progress: Callable[[int], None] | None = None) -> Evaluation:
    """Score ``run`` against ``qrels`` with every measure in ``measures``.

    ``level`` is the relevance level of binary measures (grade >= level is relevant; a
    measure's own ``rel=`` overrides it) and decides which queries are scored. ``depth``
    cuts every ranking to its top ``depth`` first (trec_eval ``-M``). ``sample`` is the pool's
    sample design per query, read by the estimated measures (xinfAP, statAP, infNDCG).
    ``progress(n)`` is told as every n scored queries are evaluated (a progress bar).
    """
    if depth is not None and depth < 1:
        raise PoolkitError(f"depth must be a positive integer, got {depth}")
    measures = list(dict.fromkeys(measures))
    try:
        return _evaluate(qrels, run, measures, level, depth, sample, progress)
    except GainOverflow as exc:
        qid, docid = next((q, d) for q, docs in qrels.grades.items() for d, g in docs.items()
                          if g == exc.grade)
        raise InputError(qrels.path or qrels.name, qrels.source_lines.get((qid, docid)),
                         f"query {qid!r} doc {docid!r}: grade {exc.grade} is too large for "
                         f"gain=exp (2^{exc.grade} overflows); use the linear gain") from None


PROGRESS_EVERY = 4096  # queries evaluated between two reports to ``progress``


def _evaluate(qrels: Qrels, run: Run, measures: list[Measure], level: int,
              depth: int | None, sample: Mapping[str, PoolSample] | None,
              progress: Callable[[int], None] | None = None) -> Evaluation:
    names = [m.name for m in measures]
    per_query: dict[str, dict[str, float]] = {name: {} for name in names}
    columns = [per_query[name] for name in names]
    plan = list(zip(measures, columns))

    rankings = run.rankings
    scored: list[str] = []
    excluded: list[str] = []
    missing: list[str] = []
    num_rel: dict[str, int] = {}
    for qid, grades in qrels.grades.items():
        nrel = 0
        for g in grades.values():
            if g >= level:
                nrel += 1
        if not nrel:
            excluded.append(qid)
            continue
        scored.append(qid)
        num_rel[qid] = nrel
    # A query the run lacks (and no sample design weighs) has an empty ranking: its values
    # depend on its grades' values alone, so they are computed once per multiset of grades.
    # A 10-query run against 1M judged queries then costs ~1M dict look-ups, not 1M x
    # measures computations (the values and their order are the same).
    absent = {q for q in scored if q not in rankings and not (sample and q in sample)}
    facts = _facts(qrels, run, [q for q in scored if q not in absent] if absent else scored,
                   depth, sample)
    by_grades: dict[tuple[int, ...], list[float]] = {}
    for i, qid in enumerate(scored):
        if progress is not None and i and not i % PROGRESS_EVERY:
            progress(PROGRESS_EVERY)
        if qid in absent:
            grades = qrels.grades[qid]
            key = tuple(sorted(grades.values()))
            values = by_grades.get(key)
            if values is None:
                empty = QueryFacts([], grades)
                values = by_grades[key] = [m.from_facts(empty, level) for m, _c in plan]
            missing.append(qid)
            for (_m, column), value in zip(plan, values):
                column[qid] = value
            continue
        f = facts[qid]
        if not f.n:
            missing.append(qid)
        for measure, column in plan:
            column[qid] = measure.from_facts(f, level)
    if progress is not None and scored:
        progress((len(scored) - 1) % PROGRESS_EVERY + 1)

    means = {m.name: aggregate(m.family, list(per_query[m.name].values())) for m in measures}
    unknown = [q for q in rankings if q not in qrels.grades]
    return Evaluation(measures=measures, per_query=per_query, means=means, scored=scored,
                      excluded=excluded, missing=missing, unknown=unknown, qrels=qrels,
                      run=run, level=level, depth=depth, num_rel=num_rel)


def _facts(qrels: Qrels, run: Run, qids: list[str], depth: int | None,
           sample: Mapping[str, PoolSample] | None) -> Mapping[str, QueryFacts]:
    """QueryFacts of every query in ``qids``: for all at once when the run is held as columns
    (:mod:`poolkit.score.columnar`), else one ranking at a time."""
    cols = run.columns
    if cols is not None:
        from poolkit.score.columnar import column_facts

        facts = column_facts(qrels, run, qids, depth, sample)
        if facts is not None:
            return facts
    return _ListFacts(qrels, run, depth, sample)


class _ListFacts(Mapping[str, QueryFacts]):
    """QueryFacts built from a query's ranking list when asked for (one at a time)."""

    def __init__(self, qrels: Qrels, run: Run, depth: int | None,
                 sample: Mapping[str, PoolSample] | None) -> None:
        self._qrels, self._run, self._depth, self._sample = qrels, run, depth, sample

    def __getitem__(self, qid: str) -> QueryFacts:
        ranking = self._run.rankings.get(qid) or []
        if self._depth is not None and len(ranking) > self._depth:
            ranking = ranking[:self._depth]
        return QueryFacts(ranking, self._qrels.grades[qid],
                          self._sample.get(qid) if self._sample else None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._qrels.grades)

    def __len__(self) -> int:
        return len(self._qrels.grades)
