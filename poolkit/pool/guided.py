"""The orders guided by more than the runs' ranks: ``judge`` (a machine judge's grades) and
``cal`` (continuous active learning over the passages' text).

``judge``: the machine judge's grade first, highest first (its expected grade when it
recorded a distribution), ties by ``priority``'s fused order; passages the judge has not
graded go after the graded ones, by the fused order. A fixed order (``keys``), not a learner:
on TREC DL 2019 plain sorting by the 70B judge's grade already saves 12% of the judgments to
recall 0.9 over ``priority``.

``cal``: continuous active learning in the manner of BMI (Cormack and Grossman, the TREC
Total Recall baseline) and HiCAL. Per query a logistic regression over the pooled passages'
TF-IDF (``text_model``), with the runs' fused rank and the machine judge's grade as two more
features when present, is trained on every assessor's grades so far and names the likeliest
pending passage. It is retrained in growing batches: after grades 1, 2, ..., B_(k+1) = B_k +
ceil(B_k / 10) (BMI's schedule), so the order is a pure function of the grades and a model
is trained only when a batch boundary is crossed, once per boundary (``cache``). Until the
grades hold a relevant and a non-relevant passage it follows ``judge``'s order (with a
machine judge) or the fused order.

The L2 penalty (``cal_l2``, default 0.01) was chosen on the two replays of the README
(judgments to recall 0.9 in every query, no machine judge): Cranfield 4,281 at 1, 3,410 at
0.1, 3,356 at 0.03, 3,355 at 0.01 (``mm-ns``: 3,785); DL 2019 cut to NIST-judged passages
1,464 at 1, 1,418 at 0.1, 1,407 at 0.01 (``mm-ns``: 1,506). A strong penalty shrinks the
fused-rank feature with the text, and on Cranfield's few relevant passages per query the
rank is what a new model most needs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from poolkit.params import Param
from poolkit.pool.learners import RRF_K, is_relevant, rrf_keys
from poolkit.pool.mtf import MIN_RELEVANT_GRADE
from poolkit.pool.order_base import OrderStrategy
from poolkit.pool.text_model import RelevanceModel, SparseRows, TextVectorizer
from poolkit.pool.view import QueryPool

JUDGE_ORDER = Param("judge_order", (str,), "", "the machine judge whose grades order judge "
                    "and feed cal (store form; simulate takes them with --machine)")


def judge_keys(pool: QueryPool, rrf_k: int) -> dict[str, float]:
    """Machine grade first (highest first), then the fused order; ungraded passages last."""
    fused = rrf_keys(pool, rrf_k)
    top = max(pool.machine.values(), default=0.0) + 1.0
    # fused keys lie in (-1, 0]: shift each grade band by 2 so bands never overlap
    return {d: 2.0 * (top - pool.machine.get(d, -1.0)) + fused[d] for d in pool.docs}


@dataclass(frozen=True)
class JudgeGradeOrder(OrderStrategy):
    judge: str = ""
    rrf_k: int = RRF_K.default
    name: ClassVar[str] = "judge"
    summary: ClassVar[str] = ("a machine judge's grade first, ties by the runs' fused order "
                              "(blind: nothing shown)")
    params: ClassVar[tuple[Param, ...]] = (
        Param(JUDGE_ORDER.key, JUDGE_ORDER.types, "", JUDGE_ORDER.help, attr="judge"), RRF_K)
    #: asked for every passage: the store's pool is stored before the judge has graded it
    #: (``autojudge`` grades a pool that exists), so the live order is the keys of the
    #: machine grades the judging session reads, not the stored ones
    adaptive: ClassVar[bool] = True

    def keys(self, pool: QueryPool) -> dict[str, float]:
        return judge_keys(pool, self.rrf_k)

    def next(self, pool: QueryPool, grades: Mapping[str, int],
             pending: Sequence[str]) -> str | None:
        if not pending:
            return None
        keys = judge_keys(pool, self.rrf_k)
        return min(pending, key=lambda d: keys[d])  # ties: the stored order (min: first)


def batch_boundary(n: int) -> int:
    """The largest batch boundary <= n (1, 2, 3, ..., B + ceil(B / 10), ...), 0 if n < 1."""
    b, last = 1, 0
    while b <= n:
        last, b = b, b + math.ceil(b / 10)
    return last


@dataclass(frozen=True)
class ContinuousActiveLearning(OrderStrategy):
    level: int = 1
    judge: str = ""
    rrf_k: int = RRF_K.default
    l2: float = 0.01
    name: ClassVar[str] = "cal"
    summary: ClassVar[str] = ("continuous active learning: a text classifier retrained on the "
                              "grades names the likeliest relevant passage (blind)")
    params: ClassVar[tuple[Param, ...]] = (
        MIN_RELEVANT_GRADE,
        Param(JUDGE_ORDER.key, JUDGE_ORDER.types, "", JUDGE_ORDER.help, attr="judge"), RRF_K,
        Param("cal_l2", (float,), 0.01, "the classifier's L2 penalty", minimum=1e-9,
              attr="l2"))
    adaptive: ClassVar[bool] = True
    #: (qid, grades up to the batch boundary) -> scores; features per qid
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def keys(self, pool: QueryPool) -> dict[str, float]:
        return judge_keys(pool, self.rrf_k) if pool.machine else rrf_keys(pool, self.rrf_k)

    def features(self, pool: QueryPool) -> tuple[dict[str, int], SparseRows, np.ndarray]:
        """Row of each passage, its TF-IDF rows, and the extra features (fused rank score,
        machine grade / 3 when there is a machine judge)."""
        key = ("features", pool.qid, pool.docs)
        if key not in self.cache:
            docs = sorted(pool.docs)
            texts = [pool.texts.get(d, "") for d in docs]
            X = TextVectorizer.fit([pool.query, *texts]).transform(texts)
            fused = rrf_keys(pool, self.rrf_k)
            columns = [[-fused[d] * self.rrf_k for d in docs]]
            if pool.machine:
                columns.append([pool.machine.get(d, 0.0) / 3.0 for d in docs])
            self.cache[key] = ({d: i for i, d in enumerate(docs)}, X, np.array(columns).T)
        return self.cache[key]  # type: ignore[no-any-return]

    def scores(self, pool: QueryPool, grades: Mapping[str, int]) -> np.ndarray | None:
        """Every passage's log-odds under the model of the last batch, None before a
        relevant and a non-relevant grade."""
        trained = list(grades.items())[:batch_boundary(len(grades))]
        labels = [int(is_relevant(g, self.level)) for _, g in trained]
        if len(set(labels)) < 2:
            return None
        key = ("scores", pool.qid, pool.docs, tuple(trained))
        if key not in self.cache:
            row, X, extra = self.features(pool)
            idx = [row[d] for d, _ in trained if d in row]
            y = [lab for (d, _), lab in zip(trained, labels) if d in row]
            model = RelevanceModel.fit(X.rows(idx), y, extra[idx], l2=self.l2)
            self.cache[key] = model.score(X, extra)
        return self.cache[key]  # type: ignore[no-any-return]

    def next(self, pool: QueryPool, grades: Mapping[str, int],
             pending: Sequence[str]) -> str | None:
        if not pending:
            return None
        scores = self.scores(pool, grades)
        if scores is None:
            return pending[0]
        row = self.features(pool)[0]
        # ties by the stored order: max keeps the first of equals
        return max(pending, key=lambda d: scores[row[d]])
