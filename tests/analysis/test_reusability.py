"""reusability: leave-one-run-out / group-out on a hand-computed pool."""

from __future__ import annotations

import math

import pytest

from poolkit.analysis.reusability import reusability
from poolkit.io import Qrels, Run
from poolkit.io.provenance import PoolProvenance
from poolkit.policies import Labels
from poolkit.score.measures import parse_measures

# depth-2 pool of r1 and r2: a by both, b only r1, d only r2; c judged but never pooled.
GRADES = {"q1": {"a": 1, "b": 1, "c": 0, "d": 1}}
RUNS = {"r1": ["a", "b", "c"], "r2": ["a", "d", "c"], "r3": ["c", "a", "b"]}


@pytest.fixture
def setup():
    runs = {n: Run.from_mapping({"q1": r}, name=n) for n, r in RUNS.items()}
    labels = Labels.of_qrels(Qrels.from_mapping(GRADES, name="g"), {"kind": "file", "path": "g"})
    sources = PoolProvenance.from_runs({n: runs[n] for n in ("r1", "r2")}, 2)
    return labels, runs, sources


def test_pool_from_runs(setup):
    _, _, sources = setup
    assert sources.systems_by_pair() == {("q1", "a"): {"r1", "r2"}, ("q1", "b"): {"r1"},
                                         ("q1", "d"): {"r2"}}


def test_leave_one_run_out(setup):
    labels, runs, sources = setup
    doc = reusability(labels, runs, sources, parse_measures(["AP"]))
    loo = doc["leave_one_run_out"]["runs"]
    # r1 without b: |Rel| = {a, d}; r1 = [a, b, c] -> AP = 1/2. Full: (1 + 1) / 3.
    r1 = loo["r1"]["runs"]["r1"]["AP"]
    assert (r1["full"], r1["left_out"]) == (pytest.approx(2 / 3), 0.5)
    assert r1["change"] == pytest.approx(0.5 - 2 / 3)
    assert (loo["r1"]["removed_judged"], loo["r1"]["removed_relevant"]) == (1, 1)
    # r3 brought nothing into the pool: nothing to leave out, no change
    assert loo["r3"]["runs"]["r3"]["AP"]["change"] == 0.0
    assert doc["not_pooled"] == ["r3"]
    # ranks: full r1 = r2 = 2/3, r3 = [c, a, b] -> (1/2 + 2/3) / 3 = 0.389
    assert r1["rank"] == {"full": 1, "left_out": 2, "change": -1}
    s = doc["leave_one_run_out"]["summary"]["AP"]
    assert s["max_abs_change"] == pytest.approx(2 / 3 - 0.5)
    assert s["mean_abs_change"] == pytest.approx(2 * (2 / 3 - 0.5) / 3)
    assert doc["labels"]["judged_outside_pool"] == 1  # c


def test_single_run_share_warns(setup):
    labels, runs, sources = setup
    doc = reusability(labels, runs, sources, parse_measures(["AP"]), warn_unique=0.5)
    assert doc["single_run"] == {"relevant_pooled": 3, "found_by_one": 2, "share": 2 / 3,
                                 "by_run": {"r1": 1, "r2": 1}}
    assert doc["warnings"] and "67% of the relevant pooled documents" in doc["warnings"][0]
    quiet = reusability(labels, runs, sources, parse_measures(["AP"]), warn_unique=0.7)
    assert quiet["warnings"] == []


def test_leave_one_group_out(setup):
    labels, runs, sources = setup
    doc = reusability(labels, runs, sources, parse_measures(["AP"]),
                      groups={"r1": "g", "r2": "g"})
    group = doc["leave_one_group_out"]["groups"]["g"]
    # the whole pool goes: only c (non-relevant) is left, so the query has no relevant doc
    assert (group["removed_judged"], group["removed_relevant"]) == (3, 3)
    assert group["runs"]["r1"]["AP"]["left_out"] == 0.0
    assert set(doc["leave_one_group_out"]["groups"]) == {"g", "r3"}
    assert doc["single_group"]["found_by_one"] == 3
    table = doc.render("table")
    assert "Leave one group out" in table and "WARNING" in table


def test_tau_na_is_explained(setup):
    """A tau of n/a says why, in the words compare uses (shared helper)."""
    labels, runs, sources = setup
    twins = {n: Run.from_mapping({"q1": RUNS["r1"]}, name=n) for n in ("t1", "t2")}
    doc = reusability(labels, twins, PoolProvenance.from_runs(twins, 2), parse_measures(["AP"]))
    assert math.isnan(doc["leave_one_run_out"]["summary"]["AP"]["kendall_tau"])
    table = doc.render("table")
    assert "tau n/a: every run scored the same on one side, so there is no order" in table
    alone = reusability(labels, {"r1": runs["r1"]}, sources, parse_measures(["AP"]))
    assert "tau n/a: only one run, so there is no order to compare" in alone.render("table")
    full = reusability(labels, runs, sources, parse_measures(["AP"])).render("table")
    assert "tau n/a" not in full
