"""The sampled-pool replay on TREC DL 2019: its bookkeeping, and exactness at full sampling."""

from __future__ import annotations

from pathlib import Path

import pytest

from poolkit.cli import main
from poolkit.cli.sample_replay import design_for, replay
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


def test_the_command_reports_bad_input_in_one_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    assert main(["sample-replay", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().endswith("no *.run files")
    assert main(["sample-replay", str(tmp_path), "--rates", "0.1,x"]) == 2
    assert "expected numbers" in capsys.readouterr().err
