"""``judge`` and ``cal``: the machine judge's grade first, and continuous active learning over
the passages' text, retrained only at BMI's batch boundaries."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.pool.guided import ContinuousActiveLearning, batch_boundary
from poolkit.pool.order import order_strategy
from poolkit.pool.provenance import pool_from_ranks
from poolkit.pool.simulate import replay

POOL = pool_from_ranks("q1", {"a": {"d1": 1, "d2": 2, "d3": 3, "d4": 4},
                              "b": {"d3": 1, "d4": 2, "d5": 3, "d6": 4}})


def test_batch_boundaries_follow_bmi():
    bounds = sorted({batch_boundary(n) for n in range(1, 40)})
    assert bounds == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 21, 24, 27, 30, 33,
                      37]
    assert batch_boundary(0) == 0


def test_judge_sorts_by_machine_grade_then_fused_order_ungraded_last():
    pool = replace(POOL, machine={"d6": 3.0, "d1": 1.0, "d2": 1.0, "d5": 2.5})
    keys = order_strategy("judge").keys(pool)
    assert sorted(pool.docs, key=lambda d: (keys[d], d)) == ["d6", "d5", "d1", "d2", "d3", "d4"]
    # no machine grades at all: the fused order, as priority stores it
    plain = order_strategy("judge").keys(POOL)
    prio = order_strategy("priority").keys(POOL)
    assert sorted(POOL.docs, key=lambda d: (plain[d], d)) == sorted(
        POOL.docs, key=lambda d: (prio[d], d))


TEXTS = {"d1": "solar panels convert sunlight", "d2": "recipes for apple pie",
         "d3": "photovoltaic solar cells and sunlight", "d4": "apple orchards in autumn",
         "d5": "sunlight energy from solar farms", "d6": "baking bread at home"}


def test_cal_learns_from_the_text():
    pool = replace(POOL, texts=TEXTS, query="solar energy")
    truth = {"d1": 2, "d3": 1, "d5": 3}
    seq = replay(order_strategy("cal"), pool, truth)
    # the fused order opens (d3 then d1 ...); once a relevant and a non-relevant passage
    # are known, the solar passages go before the baking ones
    found = [j.docid for j in seq]
    assert set(found[:4]) >= {"d1", "d3", "d5"}
    assert found[-1] in {"d2", "d4", "d6"}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(sorted(TEXTS)), unique=True, min_size=1, max_size=6),
       st.lists(st.integers(0, 3), min_size=6, max_size=6))
def test_cal_is_a_pure_function_of_the_grades_and_names_a_pending_passage(judged, grades):
    pool = replace(POOL, texts=TEXTS, query="solar energy")
    given_grades = {d: g for d, g in zip(judged, grades)}
    pending = [d for d in pool.docs if d not in given_grades]
    fresh, warm = ContinuousActiveLearning(), order_strategy("cal")
    for d, g in list(given_grades.items())[:-1]:
        warm.next(pool, {d: g}, pending)  # a warm cache changes nothing
    pick = fresh.next(pool, given_grades, pending)
    assert pick == warm.next(pool, given_grades, pending)
    assert (pick in pending) if pending else pick is None


def test_cal_trains_only_at_batch_boundaries():
    pool = replace(POOL, texts=TEXTS, query="solar energy")
    cal = ContinuousActiveLearning()
    grades = {"d1": 2, "d2": 0, "d3": 1, "d4": 0, "d5": 3, "d6": 0}
    for n in range(1, 7):
        cal.next(pool, dict(list(grades.items())[:n]), ["d6"])
    models = [k for k in cal.cache if k[0] == "scores"]
    assert len(models) == len({batch_boundary(n) for n in range(2, 7)})
