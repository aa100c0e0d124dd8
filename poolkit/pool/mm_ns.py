"""``mm-ns``: multi-armed-bandit pooling, Bayesian "maximum mean" with non-stationary
updates (Losada, Parapar and Barreiro, "Feeling lucky? Multi-armed bandits for ordering
judgements in pooling-based evaluation", ACM SAC 2016; "Multi-armed bandits for adjudicating
documents in pooling-based evaluation of information retrieval systems", Information
Processing & Management 53(5), 2017, doi:10.1016/j.ipm.2017.04.005). NIST adopted one of
these bandit methods to build the TREC 2017 Common Core judgments.

Each run is an arm. Its chance that the next document it brings is relevant has a
Beta(alpha, beta) posterior: alpha = ``prior_relevant`` + the (discounted) relevant
documents judged among the run's pooled documents, beta = ``prior_nonrelevant`` + the
(discounted) non-relevant ones. A grade is evidence for every run that pooled the document,
whoever asked for it. The arm with the highest posterior mean alpha / (alpha + beta) is
pulled (ties: the first by run name) and its best-ranked pending document is judged next.

Non-stationary: a run's precision falls as it is read deeper, so older evidence about a run
counts less: each observation of a run is weighted ``discount`` ** (the run's observations
that came after it). ``discount = 1`` is the stationary MM bandit.

Where the defaults come from (``mm_ns_*`` under ``pool:`` changes them). The papers' full
text and their research code could not be consulted when these were set (only the abstracts
were at hand), so neither value below is checked against what the papers used:

- ``prior_relevant = prior_nonrelevant = 1``, the uniform Beta(1, 1): no run is favoured
  before its first grade; the usual starting prior of Bayesian Bernoulli bandits (Granmo's
  Bayesian Learning Automaton, 2010, starts every arm there).
- ``discount = 0.9``: poolkit's choice. What the data says of it: on TREC DL 2019's six runs
  (``poolkit simulate --qrels qrels.full.txt RUNS --depth 20 --strategy mm-ns --param
  mm_ns_discount=D``) it barely matters. Relevant passages found at budgets 0.25 / 0.5, and
  judgments for recall 0.9 in every query: discount 1 (stationary) 426 / 782 / 1,588;
  0.95: 425 / 783 / 1,592; 0.9: 425 / 785 / 1,598; 0.8: 425 / 784 / 1,601; 0.7: 423 / 782 /
  1,603; 0.5: 422 / 779 / 1,610.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from poolkit.params import Param
from poolkit.pool.learners import RRF_K, first_of, is_relevant, rrf_keys, run_lists
from poolkit.pool.mtf import MIN_RELEVANT_GRADE
from poolkit.pool.order_base import OrderStrategy
from poolkit.pool.view import QueryPool


@dataclass(frozen=True)
class MaxMeanNonStationary(OrderStrategy):
    level: int = 1
    prior_relevant: float = 1.0
    prior_nonrelevant: float = 1.0
    discount: float = 0.9
    rrf_k: int = RRF_K.default  # the stored order (before any grade): priority's, at the config's k
    name: ClassVar[str] = "mm-ns"
    summary: ClassVar[str] = ("multi-armed bandit (maximum posterior mean, non-stationary): "
                              "judge from the run most likely to bring a relevant passage")
    params: ClassVar[tuple[Param, ...]] = (
        MIN_RELEVANT_GRADE,
        Param("mm_ns_prior_relevant", (float,), 1.0, "Beta prior's alpha", minimum=1e-9,
              attr="prior_relevant"),
        Param("mm_ns_prior_nonrelevant", (float,), 1.0, "Beta prior's beta", minimum=1e-9,
              attr="prior_nonrelevant"),
        Param("mm_ns_discount", (float,), 0.9, "weight kept by a run's older evidence per "
              "newer observation (1: stationary)", minimum=0.0, maximum=1.0, attr="discount"),
        RRF_K)
    blind: ClassVar[bool] = False
    adaptive: ClassVar[bool] = True

    def keys(self, pool: QueryPool) -> dict[str, float]:
        return rrf_keys(pool, self.rrf_k)

    def posteriors(self, pool: QueryPool, grades: Mapping[str, int],
                   ) -> dict[str, tuple[float, float]]:
        """Each run's (alpha, beta) after ``grades`` (in the order given)."""
        out = {}
        for run, docs in run_lists(pool).items():
            members = set(docs)
            relevant = nonrelevant = 0.0
            for docid, grade in grades.items():
                if docid in members:
                    relevant *= self.discount
                    nonrelevant *= self.discount
                    if is_relevant(grade, self.level):
                        relevant += 1.0
                    else:
                        nonrelevant += 1.0
            out[run] = (self.prior_relevant + relevant, self.prior_nonrelevant + nonrelevant)
        return out

    def next(self, pool: QueryPool, grades: Mapping[str, int],
             pending: Sequence[str]) -> str | None:
        post = self.posteriors(pool, grades)
        allowed = set(pending)
        best: tuple[float, int] | None = None
        pick = None
        for i, (run, docs) in enumerate(run_lists(pool).items()):
            doc = first_of(docs, allowed)
            if doc is None:
                continue
            alpha, beta = post[run]
            score = (alpha / (alpha + beta), -i)
            if best is None or score > best:
                best, pick = score, doc
        if pick is None:
            return pending[0] if pending else None
        return pick
