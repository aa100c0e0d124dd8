"""Where infNDCG's bias comes from, over every draw of a small design: its DCG is unbiased,
its ideal DCG is not (the ideal is concave in the estimated grade counts), so the ratio leans
up where a query's relevant documents are few and some lie in a sampled stratum — Cranfield's
case in the README, not DL 2019's."""

from __future__ import annotations

import math
from itertools import combinations

import pytest

from poolkit.score.inferred import PoolSample, inferred_ndcg

# A = {a, b} judged in full; B = {c, d, e, f} sampled two at a time (6 equally likely draws).
STRATA = {"a": "A", "b": "A", "c": "B", "d": "B", "e": "B", "f": "B"}
SAMPLE = PoolSample(STRATA, {d: 1.0 if s == "A" else 0.5 for d, s in STRATA.items()})
RANKING = ["a", "c", "b", "d"]


def every_draw(truth: dict[str, int]) -> list[dict[str, int]]:
    return [{d: truth[d] if STRATA[d] == "A" or d in drawn else -1 for d in STRATA}
            for drawn in combinations("cdef", 2)]


def ndcg(truth: dict[str, int]) -> float:
    dcg = sum(truth.get(d, 0) / math.log2(i + 2) for i, d in enumerate(RANKING))
    ideal = sorted((g for g in truth.values() if g > 0), reverse=True)
    return dcg / sum(g / math.log2(i + 2) for i, g in enumerate(ideal))


def test_with_the_relevant_documents_judged_in_full_infndcg_is_exact_on_every_draw() -> None:
    truth = {"a": 1, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0}
    assert {round(inferred_ndcg(RANKING, g, 10, None, SAMPLE), 12)
            for g in every_draw(truth)} == {round(ndcg(truth), 12)}


def test_a_sampled_relevant_document_biases_it_up_through_the_ideal() -> None:
    # c relevant: drawn in half the draws. Then DCG = 1 + (1/log2 3) / (1/2) and the ideal
    # counts 1 + 4 * 1/2 = 3 relevant; otherwise DCG = 1 over an ideal of one. The DCG's
    # mean is the true DCG (1 + 1/log2 3); the ideal's mean (1 + 1/log2 3 + 1/2 + 1) / 2 is
    # less than the true ideal 1 + 1/log2 3, as a concave function of an unbiased count is.
    truth = {"a": 1, "b": 0, "c": 1, "d": 0, "e": 0, "f": 0}
    dcg = (1 + 2 / math.log2(3) + 1) / 2
    assert dcg == pytest.approx(1 + 1 / math.log2(3))
    ideal = (1 + 1 / math.log2(3) + 1 / 2 + 1) / 2
    assert ideal < 1 + 1 / math.log2(3)
    values = [inferred_ndcg(RANKING, g, 10, None, SAMPLE) for g in every_draw(truth)]
    assert ndcg(truth) == pytest.approx(1.0)
    assert sum(values) / len(values) == pytest.approx(
        ((1 + 2 / math.log2(3)) / (1 + 1 / math.log2(3) + 1 / 2) + 1) / 2)
    assert sum(values) / len(values) > ndcg(truth) + 0.03
