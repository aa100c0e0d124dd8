"""The sample-replay verb on TREC DL 2019: its bookkeeping, exactness at full sampling, and
its report."""

from __future__ import annotations

from pathlib import Path

import pytest

from poolkit.app.sample_replay import (
    SampleReplayReport,
    SampleReplayRequest,
    design_for,
    replay,
    sample_replay,
)
from poolkit.io import read_qrels, read_run

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def dl19(shared_dir: Path):
    folder = shared_dir / "collections" / "dl19-passage-pool"
    runs = {p.stem: read_run(p) for p in sorted((folder / "runs").glob("*.run"))}
    return runs, read_qrels(folder / "qrels.full.txt").grades


def test_design_scales_the_stratum_shape() -> None:
    design = design_for(0.1, 100, 7)
    assert [(s.first, s.last, s.rate) for s in design.strata] == [
        (1, 10, pytest.approx(0.4)), (11, 30, pytest.approx(0.15)),
        (31, 100, pytest.approx(0.045))]
    assert [s.rate for s in design_for(0.3, 100, 7).strata][0] == 1.0


def test_sampling_everything_estimates_the_fully_judged_pool_exactly(dl19) -> None:
    runs, truth = dl19
    (full,) = replay(runs, truth, [10.0], [0])  # every stratum rate capped at 1
    for label in ("statAP", "nDCG@10"):
        for cell in full.sampled[label].values():
            assert cell.pool_bias == pytest.approx(0.0, abs=1e-12)
            assert cell.pool_coverage == 1.0
    for cell in full.sampled["MAP"].values():  # xinfAP keeps infAP's 1e-5 smoothing
        assert cell.pool_bias == pytest.approx(0.0, abs=1e-4)
    assert full.depth_k == 100 and full.depth_k_judgments == full.judgments == 11857


def test_ten_percent_costs_a_tenth_of_the_pool_and_names_depth_k(dl19, capsys) -> None:
    runs, truth = dl19
    (r,) = replay(runs, truth, [0.1], [0, 1])
    assert 0.09 * 11857 < r.judgments < 0.11 * 11857
    assert abs(r.depth_k_judgments - r.judgments) < 200
    assert all(len(c.estimates) == 2 for c in r.sampled["MAP"].values())
    assert all(-1.0 <= t <= 1.0 for t in r.taus["nDCG@10"])


def test_the_verb_reads_the_folder_and_its_report_is_markdown(shared_dir: Path) -> None:
    folder = shared_dir / "collections" / "dl19-passage-pool"
    report = sample_replay(SampleReplayRequest(folder, rates=(0.2,), seeds=1, depth=10))
    assert isinstance(report, SampleReplayReport) and report.formats == ("markdown",)
    assert [r.rate for r in report.results] == [0.2] and report.seeds == 1
    text = report.render("markdown")
    assert text.startswith("Sample: 1 seeds per rate;") and text.endswith("|\n")
    assert "pool: the depth-10 pool judged in full" in text
