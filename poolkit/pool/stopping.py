"""Stopping rules: when a query's judging may stop, each with the promise it makes.

``STOP_RULES`` is the registry (name -> class); ``poolkit simulate --stop model,knee,target,
quant,quant-sample`` replays every rule under every order. A rule reads a query's judging
sequence so far (``Judged`` in the order given) and says where it stops (``stop``:
judgments spent and relevant passages found; the target rule and ``quant-sample`` also spend
their random sample).

- ``model`` (today's rule, ``remaining.StopRule``): stop once the rank-based relevance model
  gives probability ``stop_confidence`` that the pool recall is at least ``stop_recall``.
  Promise: none beyond the model's; it is a model-based estimate, not a guarantee.
- ``knee``: Cormack and Grossman's knee method ("Engineering quality and reliability in
  technology-assisted review", SIGIR 2016). The knee of the gain curve (relevant found
  against judged) is the point farthest above the straight line from the origin to the
  current point; stop once the slope before the knee over the slope after it (after: +1
  relevant, their smoothing) is at least ``knee_ratio``. Adapted for pools of tens of
  passages: the paper's threshold 156 - min(relevant, 150) and its 150-document floor are
  made for collections of thousands; here the threshold is ``knee_ratio`` (default 6, the
  paper's value past 150 relevant) from ``min_judged`` judgments on. Promise: none,
  heuristic.
- ``target``: the target method with QBCB's bound (Cormack and Grossman 2016; Lewis, Yang
  and Frieder, "Certifying one-phase technology-assisted reviews", CIKM 2021). A uniform
  random sample of the pool is judged first, passage by passage (seeded per query), until
  it holds r relevant passages, r the fewest for which a stopping count exists; then the
  order is followed until j of those r have been met again, j the smallest count with
  P(Binomial(r, stop_recall) >= j) <= 1 - target_confidence. Each sampled relevant passage is
  a uniform draw from the relevant ones, so if the recall were below ``stop_recall`` the
  order would have met j of them with probability at most 1 - confidence. Promise: pool
  recall at least ``stop_recall`` with probability ``target_confidence`` (over the sample's
  draw). A pool with fewer relevant passages than r is judged whole (recall 1).
- ``quant``: the quant rule (Yang, Lewis and Frieder, "Heuristic stopping rules for
  technology-assisted review", DocEng 2021): estimated recall = found / (found + the sum of
  the classifier's probabilities over the unjudged passages); stop once it reaches
  ``stop_recall``. The classifier is ``cal``'s (text, fused rank, machine grade) trained on
  every grade so far, or the rank model of ``remaining`` when there is no text. Promise:
  none, heuristic.
- ``quant-sample``: quant made less conservative and checked. The classifier (``cal``'s
  features at ``cal``'s penalty 0.01) overestimates what is left when it is trained on a
  judged set the order filled with relevant passages; so each unjudged probability is
  scaled by c = (relevant + 0.5) / (expected + 0.5) over the last ``window`` (10) judged
  passages, each passage's expectation the probability the model gave it *before* its grade
  was known (prequential calibration). A uniform random sample of 5 passages (the target
  rule's draw) is judged aside, and the rule may not fire until the order has met every
  relevant passage in it. Its 5, 10 and 0.01 were chosen on the DL 2019 replay of the README
  among a few values (sample 0/3/5/8, window 5-20 or all, penalty 0.01/1): tuned on the data
  it is measured on. Promise: none, heuristic.
- ``conformal``: one threshold for a whole collection, set on queries of that collection
  judged whole (split conformal prediction across queries). A seeded draw of m queries
  (SHA-256 of "conformal", the seed and the query id; m = ceil(log(1 - confidence) /
  log(share)), 22 at the defaults 0.9 and 0.9) is judged whole. Every other query stops at
  its first judgment k (from ``MIN_JUDGED`` on) whose dryness exceeds the threshold: the
  dryness after k judgments is g / (n - k + g), g the non-relevant passages judged in a row
  since the last relevant one (since the start if none), n the pool: the share of what was
  left at the last find that has since come up empty. The threshold is the largest
  dryness any calibration query showed before it reached ``target`` recall. A query stops
  short of the target only if its own largest such dryness exceeds every calibration
  query's, so, the draw being uniform, more than t queries fall short with probability at
  most C(Q - t, m) / C(Q, m) <= (1 - t / Q)^m. Promise: at least a share ``share`` of the
  collection's queries (the calibration queries among them) reach pool recall ``target``
  with probability >= ``confidence`` over the draw; a query outside the draw reaches it with
  probability >= m / (m + 1). It holds on any collection and under any order in which a
  query's order reads only its own grades; it is not a promise about any one query, and a
  per-query promise is out of reach here: see docs/explanation/promises.md. It
  needs every query's grades, so ``simulate --stop`` replays it and a judging session
  cannot use it (``live`` is False).
"""

from __future__ import annotations

import functools
import hashlib
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, NamedTuple

import numpy as np

from poolkit.errors import PoolkitError, one_of
from poolkit.params import DEFAULT_SEED
from poolkit.pool.guided import ContinuousActiveLearning
from poolkit.pool.learners import Judged, is_relevant
from poolkit.pool.remaining import RelevanceModel, StopRule
from poolkit.pool.text_model import RelevanceModel as TextModel
from poolkit.pool.view import QueryPool

MIN_JUDGED = 5


class Stop(NamedTuple):
    judged: int
    relevant_found: int


def _found(seq: Sequence[Judged], level: int) -> int:
    return sum(1 for j in seq if is_relevant(j.grade, level))


@dataclass(frozen=True)
class StoppingRule:
    target: float = 0.9
    name: ClassVar[str]
    #: whether the rule reads the passages' text (the judging session then gives it them)
    reads_text: ClassVar[bool] = False
    #: whether a judging session can use it (``pool.stop``): it decides from one query's
    #: grades alone
    live: ClassVar[bool] = True

    def promise(self) -> str:
        return "no guarantee, heuristic"

    def fires(self, pool: QueryPool, judged: Sequence[Judged], level: int) -> bool:
        raise NotImplementedError

    def stop(self, pool: QueryPool, seq: Sequence[Judged], level: int) -> Stop:
        """Where the rule stops on the whole judging sequence ``seq`` (all of it if never)."""
        for k in range(MIN_JUDGED, len(seq)):
            if self.fires(pool, seq[:k], level):
                return Stop(k, _found(seq[:k], level))
        return Stop(len(seq), _found(seq, level))

    def stop_all(self, queries: Mapping[str, tuple[QueryPool, Sequence[Judged]]],
                 level: int) -> dict[str, Stop]:
        """``stop`` of every query (pool and whole judging sequence, by query id)."""
        return {q: self.stop(pool, seq, level) for q, (pool, seq) in queries.items()}

    def details(self, queries: Mapping[str, tuple[QueryPool, Sequence[Judged]]],
                level: int) -> dict[str, Any]:
        """What the replay reports beside the stops (keys of ``simulate``'s
        ``stops.RULE``): nothing but for rules that decide across queries."""
        return {}


@dataclass(frozen=True)
class ModelRule(StoppingRule):
    confidence: float = 0.9
    name: ClassVar[str] = "model"

    def promise(self) -> str:
        return (f"estimated pool recall >= {self.target:g} with model probability >= "
                f"{self.confidence:g} (the model's estimate, not a guarantee)")

    def fires(self, pool: QueryPool, judged: Sequence[Judged], level: int) -> bool:
        return StopRule(self.target, self.confidence, MIN_JUDGED).fires(pool, judged, level)


@dataclass(frozen=True)
class KneeRule(StoppingRule):
    ratio: float = 6.0
    name: ClassVar[str] = "knee"

    def fires(self, pool: QueryPool, judged: Sequence[Judged], level: int) -> bool:
        gains = np.cumsum([is_relevant(j.grade, level) for j in judged])
        s, total = len(gains), int(gains[-1]) if len(gains) else 0
        if s < 2 or total == 0:
            return False
        i = np.arange(1, s)
        knee = int(i[np.argmax(gains[:-1] * s - i * total)])
        before = gains[knee - 1] / knee
        after = (total - gains[knee - 1] + 1) / (s - knee)
        return bool(before / after >= self.ratio)


def _binomial_tail(r: int, p: float, j: int) -> float:
    """P(Binomial(r, p) >= j)."""
    return sum(math.comb(r, i) * p ** i * (1 - p) ** (r - i) for i in range(j, r + 1))


def target_order(pool: QueryPool) -> list[str]:
    """The pool in the target sample's random order: by SHA-256 of ("target", qid, docid),
    the one seed every replay, session and assessor of any store draws with, so the sample
    is the same wherever it is drawn and independent of the judging order."""
    return list(_target_order(pool.qid, frozenset(pool.docs)))


@functools.lru_cache(maxsize=1024)
def _target_order(qid: str, docs: frozenset[str]) -> tuple[str, ...]:
    """``target_order`` of a pool (it hangs on the query and the set of passages alone):
    the rules ask after every judgment, and the hashes were most of a replay's time."""
    def key(d: str) -> bytes:
        return hashlib.sha256(f"target\0{qid}\0{d}".encode()).digest()

    return tuple(sorted(docs, key=key))


@functools.lru_cache(maxsize=None)
def qbcb(target: float, confidence: float, r: int) -> int | None:
    """The fewest sampled relevant passages j the order must meet again, of ``r``, for
    recall >= ``target`` with probability ``confidence``; None if no j <= r suffices."""
    return next((j for j in range(r + 1)
                 if _binomial_tail(r, target, j) <= 1 - confidence), None)


@functools.lru_cache(maxsize=None)
def _sample_size(target: float, confidence: float) -> int:
    return next(r for r in range(1, 10_000) if qbcb(target, confidence, r))


@dataclass(frozen=True)
class TargetRule(StoppingRule):
    """The target rule. ``fires`` reads the judging sequence as the judging session makes
    it: the target sample first (``target_order``'s passages up to the r-th relevant), then
    the order; "the order" is the pool's stored order (``pool.docs``), and a sampled
    relevant passage counts as met once every passage before it in that order is judged.
    The stored order is fixed before the sample is drawn, so QBCB's bound holds whatever
    else the session judged; ``stop`` (the replay) walks ``fires`` over the sample followed
    by the replayed order, the stored order being that order."""

    confidence: float = 0.95
    name: ClassVar[str] = "target"

    def promise(self) -> str:
        return (f"pool recall >= {self.target:g} with probability >= {self.confidence:g} "
                f"(QBCB over a random target sample)")

    def sample_size(self) -> int:
        """r: the fewest sampled relevant passages for which QBCB has a stopping count."""
        return _sample_size(self.target, self.confidence)

    def sample(self, pool: QueryPool, judged: Sequence[Judged], level: int,
               ) -> tuple[list[str], bool]:
        """The target sample as far as ``judged`` has drawn it (the passages of
        ``target_order`` up to the first unjudged one or the r-th relevant), and whether it
        is complete (r relevant found, or the whole pool drawn)."""
        grade = {j.docid: j.grade for j in judged}
        out: list[str] = []
        found, r = 0, self.sample_size()
        for d in target_order(pool):
            if d not in grade:
                return out, False
            out.append(d)
            found += is_relevant(grade[d], level)
            if found == r:
                return out, True
        return out, True

    def fires(self, pool: QueryPool, judged: Sequence[Judged], level: int) -> bool:
        sample, complete = self.sample(pool, judged, level)
        grade = {j.docid: j.grade for j in judged}
        positives = {d for d in sample if is_relevant(grade[d], level)}
        r = self.sample_size()
        if not complete or len(positives) < r:  # fewer relevant than r: judged whole
            return False
        need = qbcb(self.target, self.confidence, r) or r
        met = 0
        for d in pool.docs:  # the order's judged prefix
            if d not in grade:
                break
            met += d in positives
        return met >= need

    def stop(self, pool: QueryPool, seq: Sequence[Judged], level: int) -> Stop:
        """The replay: ``fires`` walked over the sample (judged first) and then ``seq``'s
        passages not in it, ``seq`` being the order (the pool's stored order for ``fires``)."""
        grade = {j.docid: j.grade for j in seq}
        order = tuple(dict.fromkeys([j.docid for j in seq] + list(pool.docs)))
        drawn, _ = self.sample(pool, [Judged(d, grade.get(d, 0)) for d in order], level)
        live = [Judged(d, grade.get(d, 0)) for d in drawn]
        live += [j for j in seq if j.docid not in set(drawn)]
        ordered = replace(pool, docs=order)
        for k in range(1, len(live)):
            if self.fires(ordered, live[:k], level):
                return Stop(k, _found(live[:k], level))
        return Stop(len(live), _found(live, level))

    def due(self, pool: QueryPool, judged: Sequence[Judged], level: int) -> list[str]:
        """The sample passages to judge next, in draw order (the session serves the first it
        may): empty once the sample is complete."""
        sample, complete = self.sample(pool, judged, level)
        if complete:
            return []
        grade = {j.docid for j in judged}
        return [d for d in target_order(pool) if d not in grade]


@dataclass(frozen=True)
class QuantRule(StoppingRule):
    name: ClassVar[str] = "quant"
    reads_text: ClassVar[bool] = True
    #: holds the TF-IDF features per query across calls (``cal``'s cache)
    cal: ContinuousActiveLearning = field(default_factory=ContinuousActiveLearning,
                                          compare=False, repr=False)

    def fires(self, pool: QueryPool, judged: Sequence[Judged], level: int) -> bool:
        found = _found(judged, level)
        if found == 0:
            return False
        return found >= self.target * (found + self.expected_left(pool, judged, level))

    def expected_left(self, pool: QueryPool, judged: Sequence[Judged], level: int) -> float:
        done = {j.docid for j in judged}
        if not pool.texts:
            return RelevanceModel.fit(pool, judged, level).expected()
        row, X, extra = self.cal.features(pool)
        idx = [row[j.docid] for j in judged if j.docid in row]
        y = [int(is_relevant(j.grade, level)) for j in judged if j.docid in row]
        probs = TextModel.fit(X.rows(idx), y, extra[idx]).probability(X, extra)
        return float(sum(probs[row[d]] for d in pool.docs if d not in done))


def target_sample(pool: QueryPool, size: int) -> list[str]:
    """The first ``size`` passages of ``target_order`` (so both rules draw alike)."""
    return target_order(pool)[:size]


@dataclass(frozen=True)
class SampledQuantRule(StoppingRule):
    """``quant`` with its classifier calibrated on the judged sample, and a small random
    sample's veto (see the module docstring's ``quant-sample``)."""

    sample_size: int = 5
    window: int = 10
    l2: float = 0.01
    name: ClassVar[str] = "quant-sample"
    reads_text: ClassVar[bool] = True
    cal: ContinuousActiveLearning = field(default_factory=ContinuousActiveLearning,
                                          compare=False, repr=False)

    def probabilities(self, pool: QueryPool, judged: Sequence[Judged], level: int,
                      ) -> tuple[dict[str, int], np.ndarray]:
        row, X, extra = self.cal.features(pool)
        idx = [row[j.docid] for j in judged]
        y = [int(is_relevant(j.grade, level)) for j in judged]
        return row, TextModel.fit(X.rows(idx), y, extra[idx], l2=self.l2).probability(X, extra)

    def _fires_at(self, pool: QueryPool, seq: Sequence[Judged], k: int, level: int,
                  before: Sequence[float], model: tuple[dict[str, int], np.ndarray]) -> bool:
        """Whether found / (found + c x the expected relevant left) >= target after ``k``
        judgments (``model``: trained on them); ``before[i]``: the probability the model of
        the first i grades gave passage i, and c the ratio of relevant passages to that
        expectation over the last ``window`` judged (prequential: each probability was
        given before its passage's grade was known)."""
        ys = [int(is_relevant(j.grade, level)) for j in seq[:k]]
        found = sum(ys)
        if found == 0:
            return False
        lo = max(1, k - self.window)
        c = (sum(ys[lo:k]) + 0.5) / (sum(before[lo:k]) + 0.5)
        row, probs = model
        done = {j.docid for j in seq[:k]}
        left = np.clip(c * probs[[row[d] for d in pool.docs if d not in done]], 0, 1)
        return found >= self.target * (found + float(left.sum()))

    def _walk(self, pool: QueryPool, seq: Sequence[Judged], level: int,
              veto: set[str]) -> int:
        """Judgments made when the rule first fires on ``seq`` (all of it if never): once
        the order has met every passage of ``veto`` and the calibrated estimate is met."""
        before = [math.nan]
        for k in range(1, len(seq) + 1):
            model = self.probabilities(pool, seq[:k], level)
            if k >= MIN_JUDGED and veto <= {j.docid for j in seq[:k]} \
                    and self._fires_at(pool, seq, k, level, before, model):
                return k
            if k < len(seq):
                before.append(float(model[1][model[0][seq[k].docid]]))
        return len(seq)

    def promise(self) -> str:
        return ("no guarantee, heuristic (quant calibrated on the judged passages, with a "
                f"{self.sample_size}-passage random sample's veto)")

    def fires(self, pool: QueryPool, judged: Sequence[Judged], level: int) -> bool:
        """Live form: every passage of the sample judged, and the estimate met now."""
        if len(judged) < MIN_JUDGED or \
                not set(target_sample(pool, self.sample_size)) <= {j.docid for j in judged}:
            return False
        # Only the last ``window`` prequential probabilities are read (``_fires_at``), so
        # only their models are trained: a check costs window + 1 fits, not one per grade.
        k = len(judged)
        lo = max(1, k - self.window)
        before = [math.nan] * lo
        for i in range(lo, k):
            row, probs = self.probabilities(pool, judged[:i], level)
            before.append(float(probs[row[judged[i].docid]]))
        return self._fires_at(pool, judged, k, level, before,
                              self.probabilities(pool, judged, level))

    def stop(self, pool: QueryPool, seq: Sequence[Judged], level: int) -> Stop:
        """The sample is judged aside (counted once with what the order judged); its
        relevant passages are the veto the order must meet."""
        grade = {j.docid: j.grade for j in seq}
        veto = {d for d in target_sample(pool, self.sample_size)
                if is_relevant(grade.get(d, 0), level)}
        k = self._walk(pool, seq, level, veto)
        kept = {j.docid for j in seq[:k]} | set(target_sample(pool, self.sample_size))
        return Stop(len(kept), _found([j for j in seq if j.docid in kept], level))


def dryness(seq: Sequence[Judged], level: int) -> list[float]:
    """``dryness(seq)[k]`` after the first k judgments of the whole sequence ``seq`` (n
    passages): g / (n - k + g), g the non-relevant judged in a row since the last relevant
    (since the start if none): the share of what was left at the last find that has since
    been judged and found non-relevant (0 before any judgment)."""
    out, g, n = [0.0], 0, len(seq)
    for k, j in enumerate(seq, 1):
        g = 0 if is_relevant(j.grade, level) else g + 1
        out.append(g / (n - k + g) if g else 0.0)
    return out


def judgments_to_target(seq: Sequence[Judged], target: float, level: int) -> int:
    """The fewest judgments of ``seq`` that find a share ``target`` of its relevant
    passages (0 when it has none)."""
    need = math.ceil(target * _found(seq, level) - 1e-9)
    found = 0
    for k, j in enumerate(seq):
        if found >= need:
            return k
        found += is_relevant(j.grade, level)
    return len(seq)


@dataclass(frozen=True)
class ConformalRule(StoppingRule):
    """The collection's threshold, set on queries judged whole (the module docstring's
    ``conformal``)."""

    confidence: float = 0.9
    share: float = 0.9
    seed: int = DEFAULT_SEED
    name: ClassVar[str] = "conformal"
    live: ClassVar[bool] = False

    def calibration_size(self) -> int:
        """m: the fewest calibration queries with share^m <= 1 - confidence (every query
        when confidence is 1)."""
        if self.confidence >= 1:
            return sys.maxsize
        return max(1, math.ceil(math.log(1 - self.confidence) / math.log(self.share) - 1e-9))

    def promise(self) -> str:
        m = self.calibration_size()
        whole = "every query" if m == sys.maxsize else f"a seeded draw of {m} queries"
        return (f"a share >= {self.share:g} of the queries reach pool recall >= "
                f"{self.target:g} with probability >= {self.confidence:g} over {whole} "
                f"judged whole (split conformal across queries; not a promise about any one "
                f"query)")

    def calibration(self, qids: Sequence[str]) -> list[str]:
        """The queries judged whole: the m of ``qids`` first by SHA-256 of ("conformal",
        seed, qid), in that order."""
        def key(q: str) -> bytes:
            return hashlib.sha256(f"conformal\0{self.seed}\0{q}".encode()).digest()

        return sorted(qids, key=key)[:self.calibration_size()]

    def demand(self, seq: Sequence[Judged], level: int) -> float:
        """The largest dryness before the sequence reaches ``target`` recall (from
        ``MIN_JUDGED`` judgments on): the threshold the query needs not to stop short; -inf
        when it never needs one."""
        dry = dryness(seq, level)
        return max(dry[MIN_JUDGED:judgments_to_target(seq, self.target, level)],
                   default=-math.inf)

    def threshold(self, queries: Mapping[str, tuple[QueryPool, Sequence[Judged]]],
                  level: int) -> float:
        """The largest demand of the calibration queries."""
        return max(self.demand(queries[q][1], level) for q in self.calibration(list(queries)))

    def stop_at(self, seq: Sequence[Judged], level: int, threshold: float) -> Stop:
        """The first judgment from ``MIN_JUDGED`` on whose dryness exceeds ``threshold``."""
        dry = dryness(seq, level)
        k = next((k for k in range(MIN_JUDGED, len(seq)) if dry[k] > threshold), len(seq))
        return Stop(k, _found(seq[:k], level))

    def stop_all(self, queries: Mapping[str, tuple[QueryPool, Sequence[Judged]]],
                 level: int) -> dict[str, Stop]:
        whole = set(self.calibration(list(queries)))
        limit = self.threshold(queries, level)
        return {q: Stop(len(seq), _found(seq, level)) if q in whole
                else self.stop_at(seq, level, limit) for q, (_, seq) in queries.items()}

    def details(self, queries: Mapping[str, tuple[QueryPool, Sequence[Judged]]],
                level: int, draws: int = 200) -> dict[str, Any]:
        """The calibration (``calibration_queries``, ``threshold``); ``hindsight``: the
        cheapest threshold that brings a share ``share`` of the queries to the target, chosen
        knowing every query's grades (the best any threshold on dryness does here, no rule's
        to have), and what it judges; and ``draws``: the share of queries at the target and
        of the pool judged over ``draws`` other seeds' draws (seeds 0 to draws - 1), as one
        draw says little."""
        shares, judged = [], []
        pool = sum(len(seq) for _, seq in queries.values())
        for seed in range(draws):
            rule = replace(self, seed=seed)
            stops = rule.stop_all(queries, level)
            shares.append(sum(_reaches(stops[q], seq, self.target, level)
                              for q, (_, seq) in queries.items()) / len(queries))
            judged.append(sum(s.judged for s in stops.values()) / pool)
        threshold = self.threshold(queries, level)
        demands = sorted(self.demand(seq, level) for _, seq in queries.values())
        best = demands[max(0, math.ceil(self.share * len(demands) - 1e-9) - 1)]
        return {"calibration_queries": self.calibration(list(queries)),
                "threshold": _finite(threshold),
                "hindsight": {"threshold": _finite(best), "judged_share": sum(
                    self.stop_at(seq, level, best).judged for _, seq in queries.values()) / pool},
                "draws": {"count": draws,
                          "share_reaching_target": {"mean": float(np.mean(shares)),
                                                    "min": min(shares)},
                          "meeting_share": float(np.mean([s >= self.share for s in shares])),
                          "judged_share": {"mean": float(np.mean(judged)),
                                           "max": max(judged)}}}

    def fires(self, pool: QueryPool, judged: Sequence[Judged], level: int) -> bool:
        raise PoolkitError("stop: conformal sets its threshold on whole-judged queries of "
                           "the collection: poolkit simulate --stop conformal replays it; "
                           "a judging session cannot use it")


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _reaches(stop: Stop, seq: Sequence[Judged], target: float, level: int) -> bool:
    return stop.relevant_found >= target * _found(seq, level)


#: name -> rule class: the one registry of stopping rules
STOP_RULES: dict[str, type[StoppingRule]] = {
    cls.name: cls for cls in (ModelRule, KneeRule, TargetRule, QuantRule, SampledQuantRule,
                              ConformalRule)}


def parse_stops(text: str) -> list[str]:
    """``model,knee`` -> ["model", "knee"], each a registered rule."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        if n not in STOP_RULES:
            raise PoolkitError("--stop: " + one_of(n, STOP_RULES, "stopping rule"))
    if not names:
        raise PoolkitError("--stop: name at least one stopping rule")
    return names


def stopping_rule(name: str, target: float, confidence: float) -> StoppingRule:
    """The rule ``name`` at ``target`` recall (``confidence``: the model rule's and the
    conformal rule's; the target rule keeps its 0.95)."""
    if name == "model":
        return ModelRule(target, confidence)
    if name == "conformal":
        return ConformalRule(target, confidence)
    return STOP_RULES[name](target)
