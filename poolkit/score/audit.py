"""The audit printed beside every figure: what each number can mean, per query and overall.

For each scored query and each cutoff K: |Rel| (judged-relevant ids at the relevance level),
the ceiling min(1, K/|Rel|) that R@K can never beat and R@K as a share of it, Judged@K (the
share of the top K that carries any judgment), and positional vs distinct hits (a repeated
relevant id counted at each of its slots vs once). Per query: label coverage (judged ids
for the query / corpus size), repeated ids in the ranking, and no results. Overall: the
excluded queries (no judged-relevant id: never averaged), the queries with no results, the
run's queries the qrels do not know, and the same facts summed up.

``--fail-on`` conditions (``FAIL_ON``) turn chosen audit facts into a non-zero exit for CI
gates; :func:`parse_fail_on` reads them and :func:`check_fail_on` tests them.

R@K and Judged@K come from the evaluation (``audit_measures`` names the ones the audit
needs), so the audit never disagrees with the measures printed beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from poolkit.errors import PoolkitError, one_of
from poolkit.io import Qrels, Run
from poolkit.io.sample import PoolSample
from poolkit.score.inferred import RelEstimate, estimate_relevant
from poolkit.score.measures import Measure, parse_measure


def audit_measures(ks: Iterable[int]) -> list[Measure]:
    """The measures the audit reads from the evaluation: R@K and Judged@K for every K."""
    out: list[Measure] = []
    for k in ks:
        out += [parse_measure(f"R@{k}"), parse_measure(f"Judged@{k}")]
    return out


@dataclass
class AtK:
    """One query's audit at one cutoff."""

    k: int
    ceiling: float
    recall: float
    share: float
    judged: float
    positional_hits: int
    distinct_hits: int
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "ceiling": self.ceiling, "recall": self.recall,
                "share_of_ceiling": self.share, "judged": self.judged,
                "positional_hits": self.positional_hits, "distinct_hits": self.distinct_hits,
                "warnings": list(self.warnings)}


@dataclass
class QueryAudit:
    """One scored query's audit: facts of the query, then one :class:`AtK` per cutoff."""

    qid: str
    rel: int
    judged: int
    results: int
    labels: float | None
    repeats: int
    repeated_ids: list[str]
    at: dict[int, AtK]
    warnings: list[str] = field(default_factory=list)
    #: R_est with its 95% interval when the labels are a sample of the pool (else None)
    rel_est: RelEstimate | None = None

    def to_dict(self) -> dict[str, Any]:
        est = self.rel_est
        return {"rel": self.rel, "judged": self.judged, "results": self.results,
                "rel_est": None if est is None else {
                    "value": est.value, "low": est.low, "high": est.high,
                    "judged": est.judged, "pooled": est.pooled},
                "labels": self.labels, "repeats": self.repeats,
                "repeated_ids": list(self.repeated_ids), "warnings": list(self.warnings),
                "at": {str(k): a.to_dict() for k, a in self.at.items()}}

    @property
    def all_warnings(self) -> list[str]:
        return self.warnings + [w for a in self.at.values() for w in a.warnings]


@dataclass
class Audit:
    """A run's audit against one qrels at the cutoffs ``ks``."""

    ks: list[int]
    queries: dict[str, QueryAudit]
    excluded: list[str]
    missing: list[str]
    unknown: list[str]
    corpus_size: int | None

    def summary(self) -> dict[str, Any]:
        qs = list(self.queries.values())
        n = len(qs)
        labels = [q.labels for q in qs if q.labels is not None]
        at: dict[str, Any] = {}
        for k in self.ks:
            rows = [q.at[k] for q in qs]
            at[str(k)] = {
                "rel_lt_k": [q.qid for q in qs if q.rel < k],
                "rel_gt_k": [q.qid for q in qs if q.rel > k],
                "mean_ceiling": _mean(a.ceiling for a in rows),
                "mean_recall": _mean(a.recall for a in rows),
                "mean_share_of_ceiling": _mean(a.share for a in rows),
                "mean_judged": _mean(a.judged for a in rows),
                "unjudged_in_top_k": [q.qid for q in qs if q.results and q.at[k].judged < 1.0],
                "positional_hits": sum(a.positional_hits for a in rows),
                "distinct_hits": sum(a.distinct_hits for a in rows),
            }
        return {
            "scored": n,
            "excluded": list(self.excluded),
            "missing": list(self.missing),
            "unknown": list(self.unknown),
            "repeats": {"queries": [q.qid for q in qs if q.repeats],
                        "slots": sum(q.repeats for q in qs)},
            "corpus_size": self.corpus_size,
            "labels": ({"mean": _mean(labels), "min": min(labels), "max": max(labels)}
                       if labels else None),
            "at": at,
        }

    def to_dict(self) -> dict[str, Any]:
        return {"k": list(self.ks), "summary": self.summary(),
                "queries": {q: a.to_dict() for q, a in self.queries.items()}}


def _mean(values: Iterable[float]) -> float:
    vals = list(values)
    return sum(vals) / len(vals) if vals else 0.0


def repeats_of(ranking: Sequence[str]) -> tuple[int, list[str]]:
    """(slots holding an id already seen above, the repeated ids in first-seen order)."""
    if len(set(ranking)) == len(ranking):
        return 0, []
    seen: set[str] = set()
    again: dict[str, None] = {}
    for doc in ranking:
        if doc in seen:
            again[doc] = None
        seen.add(doc)
    return len(ranking) - len(seen), list(again)


def audit_run(qrels: Qrels, run: Run, evaluation: Any, ks: Sequence[int], *,
              level: int = 1, depth: int | None = None,
              corpus_size: int | None = None,
              corpus_ids: Container[str] | None = None,
              sample: Mapping[str, PoolSample] | None = None) -> Audit:
    """Audit ``run`` against ``qrels`` at every K in ``ks``.

    ``evaluation`` is the :class:`poolkit.score.evaluate.Evaluation` of the same run, qrels,
    level and depth, holding at least :func:`audit_measures` (R@K and Judged@K). When the
    labels are a sample of the pool (a ``sample`` design is given, or the query's qrels hold
    pooled-but-unjudged -1 grades) each query also gets R_est, the estimated |Rel| with its
    95% interval, beside the judged |Rel|. Label coverage is the query's judged ids over
    ``corpus_size``; with ``corpus_ids`` (the corpus itself), only the judged ids in it.
    """
    names = {k: (parse_measure(f"R@{k}").name, parse_measure(f"Judged@{k}").name) for k in ks}
    queries: dict[str, QueryAudit] = {}
    num_rel = evaluation.num_rel
    for qid in evaluation.scored:
        grades = qrels.grades.get(qid, {})
        results, slots, repeated = evaluation.ranking_facts(qid)
        rel = num_rel[qid]
        # Positional and distinct hits differ only when an id repeats; otherwise both are
        # the hits R@K already counted, and the relevant set is not needed.
        relevant = {d for d, g in grades.items() if g >= level} if repeated else set()
        judged = len(grades) if corpus_ids is None else sum(d in corpus_ids for d in grades)
        labels = judged / corpus_size if corpus_size else None
        warnings: list[str] = []
        if not results:
            warnings.append("no results: scores 0 on every measure")
        if repeated:
            warnings.append(f"repeated ids in the ranking: {', '.join(repeated)} "
                            f"({slots} repeated slot{'s' if slots != 1 else ''}; "
                            f"only the first occurrence scores)")
        at: dict[int, AtK] = {}
        for k in ks:
            r_name, j_name = names[k]
            recall = evaluation.per_query[r_name].get(qid, 0.0)
            judged = evaluation.per_query[j_name].get(qid, 0.0)
            if repeated:
                top = run.rankings[qid][:k if depth is None else min(k, depth)]
                positional = sum(1 for d in top if d in relevant)
                distinct = len(relevant.intersection(top))
            else:
                positional = distinct = round(recall * rel)
            ceiling = min(1.0, k / rel)
            a = AtK(k, ceiling, recall, recall / ceiling, judged, positional, distinct)
            if rel < k:
                a.warnings.append(f"|Rel|={rel} < k={k}: Precision@k can never exceed "
                                  f"{rel / k:.2f}")
            elif rel > k:
                a.warnings.append(f"|Rel|={rel} > k={k}: R@k can never exceed "
                                  f"{ceiling:.3f}")
            if positional != distinct:
                a.warnings.append(f"positional count {positional} hits vs distinct {distinct} "
                                  f"at k={k}: a repeated id would count a hit twice")
            at[k] = a
        design = sample.get(qid) if sample else None
        est = (estimate_relevant(grades, design, level)
               if design is not None or any(g < 0 for g in grades.values()) else None)
        queries[qid] = QueryAudit(qid, rel, len(grades), results, labels, slots, repeated,
                                  at, warnings, est)
    return Audit(list(ks), queries, list(evaluation.excluded), list(evaluation.missing),
                 list(evaluation.unknown), corpus_size)


def coverage_warnings(qrels: Qrels, corpus_size: int | None, corpus_ids: Container[str] | None,
                      corpus: object = None) -> list[str]:
    """The stderr line when the labels cannot all be in the corpus their coverage is
    measured against (coverage would read over 100%): with ``corpus_ids`` (``--corpus``,
    named ``corpus``), the judged pairs naming a doc outside it, which coverage leaves out;
    with a size alone (``--corpus-size``), the queries holding more judged ids than it."""
    from pathlib import Path

    if corpus_ids is not None:
        outside = [d for docs in qrels.grades.values() for d in docs if d not in corpus_ids]
        if not outside:
            return []
        name = Path(str(corpus)).name if corpus is not None else "the corpus"
        return [f"warning: {len(outside)} of {qrels.name}'s {len(qrels)} judged pairs name "
                f"doc ids not in {name} (e.g. {', '.join(dict.fromkeys(outside[:3]))}); label "
                f"coverage counts only its ids: are these the qrels of that corpus?"]
    if corpus_size is None:
        return []
    over = {q: len(docs) for q, docs in qrels.grades.items() if len(docs) > corpus_size}
    if not over:
        return []
    most = max(over, key=lambda q: over[q])
    return [f"warning: {len(over)} of {qrels.name}'s {len(qrels.grades)} queries hold more "
            f"judged ids than --corpus-size {corpus_size} (query {most}: {over[most]}), so "
            f"label coverage reads over 100%: is {corpus_size} the corpus's size?"]


# --- label coverage against a fuller ("true") label set -------------------------------------

@dataclass
class TruthTable:
    """Per query: judged-relevant count in the qrels vs in the truth, and R@K against each."""

    ks: list[int]
    rows: dict[str, dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"k": list(self.ks), "per_query": self.rows}


def truth_table(qrels: Qrels, truth: Qrels, judged_eval: Any, true_eval: Any,
                ks: Sequence[int], level: int = 1) -> TruthTable:
    """Rows for every query scored under either label set (``*_eval`` hold R@K per K).

    Recall against the judged labels overstates recall against the truth whenever the
    judged set is a subset of it: the denominator is too small.
    """
    qids = list(dict.fromkeys([*judged_eval.scored, *true_eval.scored]))
    rows: dict[str, dict[str, Any]] = {}
    for qid in qids:
        recall: dict[str, dict[str, float | None]] = {}
        for k in ks:
            name = parse_measure(f"R@{k}").name
            recall[str(k)] = {"judged": judged_eval.per_query[name].get(qid),
                              "true": true_eval.per_query[name].get(qid)}
        rows[qid] = {
            "judged": len(qrels.relevant(qid, level)),
            "true": len(truth.relevant(qid, level)),
            "recall": recall,
        }
    return TruthTable(list(ks), rows)


# --- --fail-on --------------------------------------------------------------------------------

@dataclass(frozen=True)
class FailRule:
    """One ``--fail-on`` condition family: what it tests and whether it takes a threshold."""

    name: str
    help: str
    op: str | None  # '<' or '>' when the condition takes a threshold, else None
    test: Callable[[Audit, float | None], list[str]]  # -> offending query ids

    @property
    def spelling(self) -> str:
        return f"{self.name}{self.op}X" if self.op else self.name


def _rel_lt_k(a: Audit, _t: float | None) -> list[str]:
    return [q.qid for q in a.queries.values() if any(q.rel < k for k in a.ks)]


def _repeats(a: Audit, _t: float | None) -> list[str]:
    return [q.qid for q in a.queries.values() if q.repeats]


def _coverage(a: Audit, t: float | None) -> list[str]:
    if a.corpus_size is None:
        raise PoolkitError("--fail-on coverage<X needs the corpus size: give --corpus-size N "
                           "or --corpus corpus.jsonl")
    return [q.qid for q in a.queries.values() if q.labels is not None and q.labels < (t or 0)]


def _unjudged(a: Audit, t: float | None) -> list[str]:
    # A query with no results has no unjudged ids; no-results is its own condition.
    return [q.qid for q in a.queries.values()
            if q.results and any(1.0 - x.judged > (t or 0) + 1e-12 for x in q.at.values())]


def _no_results(a: Audit, _t: float | None) -> list[str]:
    return list(a.missing)


def _excluded(a: Audit, _t: float | None) -> list[str]:
    return list(a.excluded)


def _unknown(a: Audit, _t: float | None) -> list[str]:
    return list(a.unknown)


FAIL_ON: dict[str, FailRule] = {r.name: r for r in (
    FailRule("rel-lt-k", "a scored query has fewer judged-relevant ids than some K "
             "(|Rel| < K: P@K can never reach 1)", None, _rel_lt_k),
    FailRule("repeats", "a ranking repeats a doc id", None, _repeats),
    FailRule("coverage", "a scored query's label coverage (judged ids / corpus size) is "
             "below X (a fraction, e.g. coverage<0.2; needs --corpus or --corpus-size)",
             "<", _coverage),
    FailRule("unjudged", "the unjudged share of a query's top K (1 - Judged@K) is above X "
             "at some K (e.g. unjudged>0.1)", ">", _unjudged),
    FailRule("no-results", "a scored query has no results in the run", None, _no_results),
    FailRule("excluded", "the qrels hold a query with no judged-relevant id", None, _excluded),
    FailRule("unknown", "the run holds a query the qrels do not know", None, _unknown),
)}

_CONDITION = re.compile(r"^\s*([a-z][a-z-]*)\s*(?:([<>])\s*(.*?))?\s*$")


@dataclass(frozen=True)
class FailCondition:
    rule: FailRule
    threshold: float | None = None

    @property
    def text(self) -> str:
        return f"{self.rule.name}{self.rule.op}{self.threshold:g}" if self.rule.op \
            else self.rule.name


def parse_fail_on(values: Iterable[str]) -> list[FailCondition]:
    """Conditions from ``--fail-on`` values (repeatable, each may be comma separated)."""
    out: list[FailCondition] = []
    for value in values:
        for part in value.split(","):
            if part.strip():
                out.append(_parse_condition(part))
    return out


def _parse_condition(text: str) -> FailCondition:
    spellings = [r.spelling for r in FAIL_ON.values()]
    m = _CONDITION.match(text)
    name = m.group(1) if m else text.strip()
    rule = FAIL_ON.get(name)
    if m is None or rule is None:
        raise PoolkitError(f"--fail-on: {one_of(text.strip(), spellings, 'condition')}")
    op, raw = m.group(2), m.group(3)
    if rule.op is None:
        if op is not None:
            raise PoolkitError(f"--fail-on: condition {name!r} takes no threshold "
                               f"(got {text.strip()!r})")
        return FailCondition(rule)
    if op != rule.op or not raw:
        raise PoolkitError(f"--fail-on: condition {name!r} needs a threshold, written "
                           f"{rule.spelling} (got {text.strip()!r})")
    try:
        threshold = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise PoolkitError(f"--fail-on: threshold {raw!r} of {name!r} is not a number") from None
    if not 0.0 <= threshold <= 1.0:
        raise PoolkitError(f"--fail-on: threshold {raw!r} of {name!r} must be a fraction "
                           f"between 0 and 1")
    return FailCondition(rule, threshold)


@dataclass(frozen=True)
class Failure:
    condition: str
    run: str
    queries: list[str]

    @property
    def message(self) -> str:
        shown = ", ".join(self.queries[:5])
        more = f" and {len(self.queries) - 5} more" if len(self.queries) > 5 else ""
        return f"{self.condition} held for run {self.run!r} on {len(self.queries)} " \
               f"quer{'y' if len(self.queries) == 1 else 'ies'}: {shown}{more}"

    def to_dict(self) -> dict[str, Any]:
        return {"condition": self.condition, "run": self.run, "queries": list(self.queries),
                "message": self.message}


def check_fail_on(conditions: Sequence[FailCondition],
                  audits: Sequence[tuple[str, Audit]]) -> list[Failure]:
    """Every (condition, run) pair that held, with the query ids that made it hold."""
    failures = []
    for cond in conditions:
        for run_name, audit in audits:
            hit = cond.rule.test(audit, cond.threshold)
            if hit:
                failures.append(Failure(cond.text, run_name, hit))
    return failures
