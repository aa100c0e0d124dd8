"""ppi-replay on TREC DL 2019 (NIST's qrels as the truth, the two shared LLM judges): the
issue's acceptance thresholds that the data meets, asserted on the README's own command
(query design, n = 10, 50 seeds; with --calibrate, and with --calibrate --lambda-max 2,
which meets every one) and the pair design at the same effort (20 seeds)."""

from __future__ import annotations

from typing import Any

import pytest
from shared_data import shared_path

from poolkit.app.ppi_replay import PPIReplayRequest, ppi_replay

JUDGES = ("llama-3.3-70b", "flan-t5-large")


def _replay(judge: str, design: str, seeds: int, calibrate: bool = False,
            lambda_max: float = 1.0) -> dict[str, dict[str, Any]]:
    folder = shared_path("collections", "dl19-passage-pool")
    report = ppi_replay(PPIReplayRequest(
        folder / "qrels.full.txt", folder / "judges" / f"{judge}.4prompts.qrels",
        sorted((folder / "runs").glob("*.run")), n="10", seeds=seeds, design=design,
        calibrate=calibrate, lambda_max=lambda_max))
    return {r["measure"]: r for r in report.results}


@pytest.fixture(scope="module")
def queries() -> dict[str, dict[str, dict[str, Any]]]:
    return {judge: _replay(judge, "queries", 50) for judge in JUDGES}


@pytest.fixture(scope="module")
def calibrated() -> dict[str, dict[str, dict[str, Any]]]:
    return {judge: _replay(judge, "queries", 50, calibrate=True) for judge in JUDGES}


@pytest.fixture(scope="module")
def unclipped() -> dict[str, dict[str, dict[str, Any]]]:
    return {judge: _replay(judge, "queries", 50, calibrate=True, lambda_max=2.0)
            for judge in JUDGES}


def _meets(r: dict[str, Any], judge: str, flan_ap_pairs: float) -> None:
    """The issue's n = 10 targets; FLAN-T5's AP differences against ``flan_ap_pairs``."""
    s, p = r["summary"], r["pairs"]
    assert s["max_abs_bias"] < 0.02 and s["coverage"] >= 0.90
    assert s["max_width_ratio"] <= 1.0
    assert p["coverage"] >= 0.90
    if judge == "llama-3.3-70b":
        assert s["width_ratio"] < 0.85 and p["width_ratio"] < 0.8
    else:
        assert p["width_ratio"] < (0.85 if r["measure"] == "nDCG@10" else flan_ap_pairs)


@pytest.mark.parametrize("judge", JUDGES)
@pytest.mark.parametrize("measure", ["nDCG@10", "AP"])
def test_query_design_meets_the_acceptance_at_n_10(queries: Any, calibrated: Any, judge: str,
                                                   measure: str) -> None:
    """Raw grades: every target but FLAN-T5's AP differences (0.89x, short of 0.85x).
    --calibrate: those at 0.84x and every other target kept with both judges (the 70B
    judge's AP width 0.849x, at the edge; README)."""
    _meets(queries[judge][measure], judge, 0.95)
    _meets(calibrated[judge][measure], judge, 0.85)


@pytest.mark.parametrize("judge", JUDGES)
@pytest.mark.parametrize("measure", ["nDCG@10", "AP"])
def test_calibrate_with_lambda_up_to_2_meets_every_target_at_n_10(unclipped: Any, calibrated: Any,
                                                                  judge: str,
                                                                  measure: str) -> None:
    """--calibrate --lambda-max 2: every n = 10 target with both judges, FLAN-T5's AP
    differences at 0.81x (0.83x over 200 draws, README); AP's differences never wider than
    with the clip at 1 (the soft labels shrink them: the people's slope on them is above
    1)."""
    r = unclipped[judge][measure]
    _meets(r, judge, 0.85)
    if measure == "AP":
        assert r["pairs"]["width_ratio"] <= calibrated[judge][measure]["pairs"]["width_ratio"]
    if judge == "flan-t5-large" and measure == "AP":
        assert r["pairs"]["width_ratio"] < 0.82


def test_the_70b_judge_alone_is_far_off(queries: Any) -> None:
    assert queries["llama-3.3-70b"]["nDCG@10"]["summary"]["machine_max_abs_bias"] > 0.15


@pytest.mark.parametrize("judge", JUDGES)
def test_pair_design_is_narrower_than_0_6_of_human_only(judge: str) -> None:
    for r in _replay(judge, "pairs", 20).values():
        assert r["summary"]["width_ratio"] <= 0.6
        assert r["summary"]["max_abs_bias"] < 0.02
        assert r["pairs"]["coverage"] >= 0.85


@pytest.mark.parametrize("judge", JUDGES)
@pytest.mark.parametrize("design", ["active", "strat"])
def test_two_round_designs_spend_the_pair_designs_judgments_at_half_the_width(
        judge: str, design: str) -> None:
    """10 seeds (docs/results/ppi.md has 200): the same human judgments as the pair design
    (both rounds together), at most half human-only's width, a small bias; coverage over
    10 seeds x 6 runs is loose (at least 0.85)."""
    pairs = _replay(judge, "pairs", 2)
    for measure, r in _replay(judge, design, 10).items():
        assert r["judgments"] == pairs[measure]["judgments"]
        assert r["summary"]["width_ratio"] <= 0.5
        assert r["summary"]["max_abs_bias"] < 0.03
        assert r["summary"]["coverage"] >= 0.85 and r["pairs"]["coverage"] >= 0.85
