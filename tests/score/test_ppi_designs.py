"""The active and strat designs: inclusion probabilities that sum to the round's budget and
come from the machine's view alone (a human label cannot reach the sampler, by type and at
run time), rounds whose combined estimate stays exact when the machine is right, unbiased
and covering in simulation."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.score.measures import QueryFacts, parse_measure
from poolkit.score.ppi_designs import (
    DESIGNS,
    FLOOR,
    JUDGED,
    MachineView,
    cells,
    inclusion,
    query_group,
    spread,
    two_rounds,
)
from poolkit.score.ppi_pairs import QueryPool, Rounds, combine, estimate_query

REPO = Path(__file__).resolve().parents[2]


def _truth_value(text: str, truth: dict[str, int], ranking: list[str], level: int) -> float:
    return parse_measure(text).from_facts(QueryFacts(ranking, truth), level)


def _query(rng: np.random.Generator, size: int = 60, noise: float = 0.6
           ) -> tuple[dict[str, int], dict[str, int], dict[str, list[str]]]:
    docs = [f"d{i}" for i in range(size)]
    truth = {d: int(rng.integers(0, 4)) for d in docs}
    machine = {d: (g if rng.random() > noise else int(rng.integers(0, 4)))
               for d, g in truth.items()}
    runs = {name: list(rng.permutation(docs))[:30] for name in ("a", "b")}
    return truth, machine, runs


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(5, 80), budget=st.integers(1, 80),
       judged_share=st.floats(0.0, 0.5))
def test_inclusion_probabilities_sum_to_the_sample_size(seed: int, size: int, budget: int,
                                                         judged_share: float) -> None:
    """Sum of pi over the unjudged pairs = the pairs the round draws: the budget, unless the
    floor (two a stratum) asks for more or the budget is more than there is to draw."""
    rng = np.random.default_rng(seed)
    truth, machine, runs = _query(rng, size)
    view = MachineView.of(QueryPool.of(truth, machine, runs))
    labels = cells(view)
    judged = rng.random(view.size) < judged_share
    rates = {c: float(rng.uniform(0.1, 5)) for c in set(labels.tolist())}
    plan = inclusion(view, budget, rates, labels, judged)
    drawn = sum(n for g, _, n in plan.sizes if g != JUDGED)
    assert plan.pi.sum() == pytest.approx(drawn)
    free = int((~judged).sum())
    strata = len({c for c, j in zip(labels.tolist(), judged) if not j})
    assert drawn == (free if budget >= free else max(budget, drawn))
    assert drawn <= max(budget, 2 * strata)
    assert np.all(plan.pi[judged] == 0) and np.all(plan.pi[~judged] > 0)  # the floor


def test_a_sampler_handed_human_labels_is_refused_at_run_time() -> None:
    rng = np.random.default_rng(0)
    pool = QueryPool.of(*_query(rng))
    with pytest.raises(TypeError, match="MachineView"):
        inclusion(pool, 10, {}, np.zeros(pool.size, dtype=np.int64))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="MachineView"):
        cells(pool)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="MachineView"):
        query_group([pool])  # type: ignore[list-item]
    assert not hasattr(MachineView.of(pool), "truth")


def test_a_sampler_handed_human_labels_is_a_type_error(tmp_path: Path) -> None:
    """mypy, as the project runs it, rejects a QueryPool (it has the truth) where the
    sampler takes a MachineView, and accepts the view."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text(textwrap.dedent("""\
        import numpy as np
        from poolkit.score.ppi_designs import MachineView, inclusion
        from poolkit.score.ppi_pairs import QueryPool

        pool = QueryPool.of({"d": 1}, {"d": 2}, {"r": ["d"]})
        labels = np.zeros(1, dtype=np.int64)
        inclusion(MachineView.of(pool), 1, {}, labels)
        inclusion(pool, 1, {}, labels)
        """))
    out = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental",
                          "--config-file", str(REPO / "pyproject.toml"), str(snippet)],
                         capture_output=True, text=True, cwd=REPO)
    errors = [line for line in out.stdout.splitlines()
              if ": error:" in line and "snippet.py" in line]
    assert len(errors) == 1, out.stdout
    assert 'snippet.py:8: error: Argument 1 to "inclusion" has incompatible type ' \
           '"QueryPool"; expected "MachineView"' in errors[0]


def test_neyman_rates_follow_the_spread_and_keep_the_floor() -> None:
    rates = spread({1: [0.0, 0.0, 0.0], 2: [-1.0, 1.0, -1.0, 1.0], 3: [2.0]},
                   {1: 1.0, 2: 1.0, 3: 4.0, 4: 1.0})
    assert rates[1] == pytest.approx(FLOOR * max(rates.values()))  # no spread: the floor
    assert rates[2] == pytest.approx(float(np.std([-1, 1, -1, 1], ddof=1)))
    pooled = float(np.std([0, 0, 0, -1, 1, -1, 1, 2], ddof=1))
    assert rates[3] == pytest.approx(4.0 * pooled)  # one pair: the pooled spread, weighted
    assert rates[4] == pytest.approx(pooled)  # nothing judged there yet


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), design=st.sampled_from(DESIGNS),
       text=st.sampled_from(["nDCG@10", "AP"]), budget=st.integers(4, 40))
def test_a_machine_equal_to_the_truth_gives_the_truth_in_every_round(
        seed: int, design: str, text: str, budget: int) -> None:
    rng = np.random.default_rng(seed)
    queries = [_query(rng, 30) for _ in range(4)]
    pools = [QueryPool.of(t, t, r) for t, _, r in queries]
    for (t, _, r), pool, d in zip(queries, pools, two_rounds(design, pools, budget, 2, rng)):
        assert isinstance(d, Rounds) and sum(d.coefs) == pytest.approx(1.0)
        est = estimate_query(parse_measure(text), pool, "a", d, 2)
        assert np.allclose(est.value, _truth_value(text, t, r["a"], 2), atol=1e-12)


@settings(max_examples=2, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), design=st.sampled_from(DESIGNS),
       text=st.sampled_from(["nDCG@10", "AP"]))
def test_each_design_is_unbiased_and_covers_in_simulation(seed: int, design: str,
                                                          text: str) -> None:
    """30 queries of a noisy machine, 120 draws of 15 pairs per query in two rounds.
    Tolerance: coverage of the nominal 95% at least 0.88 (the binomial standard error of
    120 draws is 0.02, and the ratio's and the jackknife's small-sample errors cost a
    point or two), and |mean estimate - truth| under 0.01 and under half the mean
    interval's half-width (an unbiased estimate's mean over 120 draws is within a tenth of
    a standard error times 3 of the truth)."""
    rng = np.random.default_rng(seed)
    queries = [_query(rng) for _ in range(30)]
    pools = [QueryPool.of(t, m, r) for t, m, r in queries]
    truth = np.mean([_truth_value(text, t, r["a"], 2) for t, _, r in queries])
    estimates, low, high = [], [], []
    for _ in range(120):
        draws = two_rounds(design, pools, 15, 2, rng)
        iv = combine([(estimate_query(parse_measure(text), p, "a", d, 2), d)
                      for p, d in zip(pools, draws)])
        estimates.append(float(iv.estimate[0]))
        low.append(float(iv.low[0]))
        high.append(float(iv.high[0]))
    covered = np.mean((np.array(low) <= truth) & (truth <= np.array(high)))
    bias = abs(float(np.mean(estimates)) - truth)
    half = float(np.mean(np.array(high) - np.array(low))) / 2
    assert covered >= 0.88
    assert bias < 0.01 and bias < half / 2


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 25), width=st.floats(0.02, 0.5))
def test_queries_for_width_is_the_fewest_whose_projected_interval_fits(
        seed: int, n: int, width: float) -> None:
    """--target-width's projection: se^2 = A + B / n with A the machine term and B the
    rectifier's variance per query, the quantile the interval rule uses at n'; the answer
    is the smallest n' >= n (at most N) with 2 q(n') se(n') <= width."""
    from poolkit.score.ppi import T_BELOW, normal_ppf, ppi_mean, queries_for_width, t_ppf

    rng = np.random.default_rng(seed)
    N = 60
    m = rng.uniform(0, 1, N)
    h = np.clip(m[:n] + rng.normal(0, 0.15, n), 0, 1)
    est = ppi_mean(m, h, m[:n])
    a = est.machine_se ** 2
    b = n * (est.se ** 2 - a)
    assert est.width == pytest.approx(2 * t_ppf(0.975, n - 1) * np.sqrt(a + b / n))

    def projected(k: int) -> float:
        q = t_ppf(0.975, k - 1) if k < T_BELOW else normal_ppf(0.975)
        return float(2 * q * np.sqrt(a + max(b, 0) / k))

    got = queries_for_width(est, width)
    if got is None:
        assert projected(N) > width
    else:
        assert n <= got <= N and projected(got) <= width
        assert got == n or projected(got - 1) > width
