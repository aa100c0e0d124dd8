"""Stage-1 (fetch) vs stage-2 (keep) recall: one run at two depths, or a fetch and a keep run."""

from __future__ import annotations

import pytest

from poolkit.app.score import parse_stages
from poolkit.errors import PoolkitError
from poolkit.io import Qrels, Run
from poolkit.score.stages import compare_stages

QRELS = Qrels.from_mapping({
    "q_faw": {"m1": 3, "m2": 2, "m3": 1},
    "q_broad": {"m1": 3, "m2": 3, "m3": 2, "m4": 2, "m5": 1, "m6": 1, "s1": 2, "s2": 1},
    "q_none": {"z": 0},
})
RUN = Run.from_mapping({
    "q_faw": ["m2", "x3", "m1", "p1", "d2", "m3", "s1", "x1", "p3", "d5"],
    "q_broad": ["m1", "s1", "m2", "m3", "x1", "m4", "m5", "m6", "s2", "d1"],
}, name="seed")


def test_one_run_at_two_depths_seed000() -> None:
    rep = compare_stages(QRELS, RUN, RUN, 10, 5)
    r = {q: tuple(f"{v:.3f}" for v in row.values()) for q, row in rep.per_query.items()}
    assert r == {"q_faw": ("1.000", "0.667", "0.333"), "q_broad": ("1.000", "0.500", "0.500")}
    assert list(rep.per_query) == ["q_faw", "q_broad"]  # q_none has no relevant id: excluded
    assert rep.mean["loss"] == pytest.approx((1 / 3 + 0.5) / 2)
    d = rep.to_dict()
    assert d["fetch"] == {"name": "seed", "sha256": RUN.sha256, "k": 10}
    assert d["keep"]["k"] == 5


def test_fetch_and_keep_runs() -> None:
    keep = Run.from_mapping({"q_faw": ["m3", "m2"], "q_broad": ["m4"]}, name="rerank")
    rep = compare_stages(QRELS, RUN, keep, 10, 2)
    assert rep.per_query["q_faw"] == pytest.approx({"fetch": 1.0, "keep": 2 / 3, "loss": 1 / 3})
    assert rep.per_query["q_broad"] == pytest.approx({"fetch": 1.0, "keep": 1 / 8, "loss": 7 / 8})
    assert rep.keep_run.name == "rerank"


def test_depth_applies_to_both_stages() -> None:
    rep = compare_stages(QRELS, RUN, RUN, 10, 5, depth=3)
    assert rep.per_query["q_faw"]["fetch"] == pytest.approx(2 / 3)


@pytest.mark.parametrize("text, message", [
    ("100", "--stages '100': expected FETCH_K,KEEP_K, two positive integers such as 100,10"),
    ("a,b", "--stages 'a,b': expected FETCH_K,KEEP_K, two positive integers such as 100,10"),
    ("0,5", "--stages '0,5': depths must be positive"),
    ("5,10", "--stages '5,10': the fetch depth 5 is below the keep depth 10; write "
             "FETCH_K,KEEP_K"),
])
def test_parse_stages_errors(text: str, message: str) -> None:
    with pytest.raises(PoolkitError) as err:
        parse_stages(text)
    assert str(err.value) == message


def test_parse_stages() -> None:
    assert parse_stages("100, 10") == (100, 10)
    assert parse_stages("5,5") == (5, 5)
