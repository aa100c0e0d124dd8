"""Paired tests and multiple-comparison control, against scipy, statsmodels and enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import oracle_cache
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import PoolkitError
from poolkit.score import significance as sig


def _paired_samples(seed: int, count: int):
    """Random paired per-query scores of the shapes IR measures take: continuous values,
    values on a coarse grid (many ties and zero differences), and a shifted second run."""
    rng = np.random.default_rng(seed)
    for trial in range(count):
        n = int(rng.integers(2, 120))
        a, b = rng.random(n), rng.random(n)
        kind = trial % 4
        if kind == 1:
            a, b = np.round(a, 1), np.round(b, 1)
        elif kind == 2:
            a, b = np.round(a * 3) / 3, np.round(b * 3) / 3
        elif kind == 3:
            b = a + rng.normal(0.05, 0.2, n)
        yield a, b


# --- t-test and Wilcoxon: equal to scipy's -----------------------------------------------------

def _scipy(name: str, inputs: list) -> list[float]:
    """scipy.stats.NAME(a, b).pvalue for each pair, kept between sessions (oracle_cache)."""
    scipy = pytest.importorskip("scipy")
    test = getattr(pytest.importorskip("scipy.stats"), name)
    return oracle_cache.answers(f"scipy.stats.{name}", scipy.__version__, inputs,
                                lambda a, b: test(a, b).pvalue)


def test_t_test_equals_scipy_ttest_rel() -> None:
    checked = 0
    samples = list(_paired_samples(1, 400))
    for (a, b), expected in zip(samples, _scipy("ttest_rel", samples), strict=True):
        if np.isnan(expected):  # every difference 0: poolkit says p = 1 (nothing to test)
            assert sig.t_test(a - b) == 1.0
            continue
        assert sig.t_test(a - b) == pytest.approx(expected, abs=1e-9, rel=0)
        checked += 1
    assert checked > 330


@pytest.mark.parametrize("n", [2, 3, 30, 1000, 20000])
def test_t_test_equals_scipy_at_small_and_large_n(n: int) -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(n)
    for shift in (0.0, 0.01, 0.3):
        a = rng.random(n)
        b = a - shift + rng.normal(0, 0.2, n)
        assert sig.t_test(a - b) == pytest.approx(stats.ttest_rel(a, b).pvalue, abs=1e-9, rel=0)


def test_incomplete_beta_equals_scipy() -> None:
    special = pytest.importorskip("scipy.special")
    rng = np.random.default_rng(3)
    for _ in range(500):
        a, b, x = rng.uniform(0.2, 500), rng.uniform(0.2, 50), rng.random()
        assert sig.betainc(a, b, x) == pytest.approx(special.betainc(a, b, x), abs=1e-12)


def test_wilcoxon_equals_scipy_on_every_null_distribution() -> None:
    """Exact (no ties or zeros, n <= 50), sign-flip (ties or zeros, n <= 13) and normal
    approximation with tie correction (the rest), as scipy's method='auto' picks them."""
    paths = {"exact": 0, "sign-flip": 0, "normal": 0}
    # Short samples, n from 2 to 13 (the last n on the sign-flip path). scipy's sign-flip
    # enumerates the 2^n signs one call at a time (11 s at n = 13 on a busy machine), so from
    # n = 9 on each of the four shapes comes once rather than twice: that keeps every n with
    # and without zeros that eight per n reached, and 46 sign-flip cases (56 before), for
    # 40% fewer sign vectors for scipy to enumerate (sum of 2^n over the cases).
    # scipy's answers are kept between sessions (oracle_cache): later sessions compute
    # only poolkit's, on every case.
    cases = list(itertools.chain(_paired_samples(2, 300),
                                 ((a[:k], b[:k]) for k in range(2, 14)
                                  for a, b in _paired_samples(k, 8 if k <= 8 else 4))))
    for a, b in cases:
        if not np.any(a - b):
            assert sig.wilcoxon(a - b) == 1.0
    tested = [(a, b) for a, b in cases if np.any(a - b)]  # scipy is asked about these
    for (a, b), expected in zip(tested, _scipy("wilcoxon", tested), strict=True):
        d = a - b
        ties = len(np.unique(np.abs(d[d != 0]))) < np.count_nonzero(d) or not np.all(d)
        path = ("exact" if d.size <= 50 and not ties else
                "sign-flip" if d.size <= 13 else "normal")
        paths[path] += 1
        assert sig.wilcoxon(d) == pytest.approx(expected, abs=1e-9, rel=0), (path, d.size)
    assert min(paths.values()) >= 20, paths


def test_degenerate_differences() -> None:
    for test in sig.TESTS.values():
        assert math.isnan(test(np.array([0.3])))       # one query: nothing to test
        assert math.isnan(test(np.array([])))
        assert test(np.zeros(5)) == 1.0                 # identical runs
        assert test(np.zeros(500)) == 1.0
    assert sig.t_test(np.full(8, 0.1)) == 0.0           # same non-zero change everywhere


# --- the randomization test ----------------------------------------------------------------------

def _enumerated(d: np.ndarray) -> float:
    """Two-sided p over all 2^n sign assignments, by brute force in pure Python."""
    observed = abs(sum(d))
    hits = sum(1 for signs in itertools.product((1, -1), repeat=len(d))
               if abs(sum(s * x for s, x in zip(signs, d))) >= observed - 1e-12)
    return hits / 2 ** len(d)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0, -0.1, -0.25, -0.5, -1.0, 0.333]),
                min_size=2, max_size=12))
def test_randomization_is_exact_enumeration_on_small_n(values: list[float]) -> None:
    d = np.array(values)
    assert sig.randomization(d) == pytest.approx(_enumerated(d), abs=1e-12)


def test_randomization_monte_carlo_agrees_with_enumeration() -> None:
    """n = 16: 65,536 assignments, more than 10,000 draws, so the p-value is sampled."""
    rng = np.random.default_rng(7)
    for shift in (0.0, 0.05, 0.1, 0.2):
        d = rng.normal(shift, 0.3, 16)
        exact = _enumerated(d)
        drawn = sig.randomization(d)
        se = math.sqrt(max(exact * (1 - exact), 1e-4) / sig.PERMUTATIONS)
        assert abs(drawn - exact) < 4 * se + 1 / sig.PERMUTATIONS, (shift, exact, drawn)


def test_randomization_is_reproducible_and_seeded() -> None:
    d = np.random.default_rng(11).normal(0.05, 0.3, 43)
    assert sig.randomization(d) == sig.randomization(d)
    assert len({sig.randomization(d, seed=s) for s in range(5)}) > 1
    p = sig.randomization(d, permutations=500)
    assert p * 501 == pytest.approx(round(p * 501))      # (b + 1) / (B + 1)


def test_randomization_columns_share_draws_like_single_calls() -> None:
    rng = np.random.default_rng(5)
    diffs = rng.normal(0.02, 0.3, (40, 6))
    together = sig.randomization_many(diffs)
    alone = [sig.randomization(diffs[:, j]) for j in range(diffs.shape[1])]
    assert together.tolist() == alone


@pytest.mark.parametrize("jobs", [2, 3])
def test_randomization_is_the_same_on_threads(jobs: int) -> None:
    """Chunks of sign vectors counted on threads (and a last chunk shorter than the rest):
    the p-values of one thread, to the bit."""
    diffs = np.random.default_rng(6).normal(0.01, 0.3, (40, 5))
    one = sig.randomization_many(diffs, permutations=2500)
    assert sig.randomization_many(diffs, permutations=2500, jobs=jobs).tobytes() == \
        one.tobytes()


def _average_ranks_by_group(x: np.ndarray) -> np.ndarray:
    """Mid-ranks tie group by tie group: the plain loop the vectorised ranks must equal."""
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(x.size)
    s = 0
    while s < x.size:
        e = s
        while e < x.size and x[order[e]] == x[order[s]]:
            e += 1
        ranks[order[s:e]] = (s + e + 1) / 2.0
        s = e
    return ranks


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0, 0.333, 2.0]), max_size=60))
def test_mid_ranks_equal_the_loop_over_tie_groups(values: list[float]) -> None:
    x = np.array(values, dtype=float)
    assert sig._average_ranks(x).tobytes() == _average_ranks_by_group(x).tobytes()


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 25))
def test_differences_of_runs_in_one_order_equal_the_paired_ones(data, n: int) -> None:
    """Two runs on the same queries in the same order pair by subtracting arrays; any other
    two (another order, a query left out) by query id: either way what ``paired`` gives."""
    values = st.floats(-1, 1, allow_nan=False)
    qids = [f"q{i}" for i in range(n)]
    a = dict(zip(qids, data.draw(st.lists(values, min_size=n, max_size=n))))
    b_ids = data.draw(st.permutations(qids))
    b_ids = b_ids[:data.draw(st.integers(0, n))] if data.draw(st.booleans()) else b_ids
    same_order = data.draw(st.booleans())
    b_ids = [q for q in qids if q in set(b_ids)] if same_order else b_ids
    b = {q: data.draw(values) for q in b_ids}
    columns = sig._Columns({"a": {"m": a}, "b": {"m": b}}, "m")
    assert columns.differences("a", "b").tobytes() == sig.paired(a, b)[1].tobytes()


@pytest.mark.parametrize("jobs", [2, 3])
def test_pairwise_tests_are_the_same_on_threads(jobs: int) -> None:
    scores = _scores()
    del scores["rerank"]["P@10"]["q0"]     # another query count: its own draw
    scores["dense"]["nDCG@10"] = dict(reversed(scores["dense"]["nDCG@10"].items()))
    measures = ["nDCG@10", "P@10"]
    one = sig.pairwise_tests(scores, measures)
    assert sig.pairwise_tests(scores, measures, jobs=jobs) == one


def test_randomization_never_reports_zero() -> None:
    d = np.full(60, 0.5) + np.random.default_rng(1).normal(0, 0.01, 60)
    assert sig.randomization(d) == 1 / (sig.PERMUTATIONS + 1)


# --- Holm and Benjamini-Hochberg ----------------------------------------------------------------

def test_holm_and_bh_by_hand() -> None:
    # sorted: 0.005 0.01 0.03 0.04 (m = 4)
    # Holm: 4*0.005=0.02, 3*0.01=0.03, 2*0.03=0.06, max(1*0.04, 0.06)=0.06
    # BH: 0.005*4/1=0.02, 0.01*4/2=0.02, 0.03*4/3=0.04, 0.04*4/4=0.04 (running min from the top)
    p = [0.01, 0.04, 0.03, 0.005]
    assert sig.holm(p).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    assert sig.benjamini_hochberg(p).tolist() == pytest.approx([0.02, 0.04, 0.04, 0.02],
                                                               abs=1e-15)
    assert sig.holm([0.6, 0.5]).tolist() == [1.0, 1.0]   # capped at 1


def test_nan_p_values_stay_out_of_the_family() -> None:
    p = [0.01, math.nan, 0.04]
    holm, bh = sig.holm(p), sig.benjamini_hochberg(p)
    assert holm[0] == pytest.approx(0.02) and math.isnan(holm[1]) and holm[2] == 0.04
    assert bh[0] == pytest.approx(0.02) and math.isnan(bh[1]) and bh[2] == 0.04
    assert sig.holm([]).size == 0


def test_holm_and_bh_equal_statsmodels(monkeypatch: pytest.MonkeyPatch) -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    # statsmodels' Holm branch runs gc.collect() on every call: 0.2-0.5 s each in a process
    # that holds torch, 50 s for this test; it has no part in the answer.
    monkeypatch.setattr("gc.collect", lambda *args: 0)
    rng = np.random.default_rng(13)
    # 30 trials (10 on the tie grid, 20 continuous, m from 4 to 59). Seeded mutants of
    # holm (no running max, no cap at 1, multipliers m - j, m - j + 2 or m) and of
    # benjamini_hochberg (no running min, the min taken from the bottom, ranks j + 1 or
    # j - 1, m - 1 for m) each fail on the first trial of each kind (trials 0 and 1), so 30
    # is a wide margin: the 90 more trials this ran before caught nothing these 30 do not.
    for trial in range(30):
        m = int(rng.integers(1, 60))
        p = rng.random(m) ** rng.uniform(1, 6)          # many small p-values, as in reports
        if trial % 3 == 0:                              # ties, zeros and ones
            p = rng.choice([0.0, 1e-4, 0.01, 0.05, 0.5, 1.0], m)
        for method, ours in (("holm", sig.holm), ("fdr_bh", sig.benjamini_hochberg)):
            expected = multitest.multipletests(p, method=method)[1]
            np.testing.assert_allclose(ours(p), expected, atol=1e-12, rtol=0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_adjustments_are_ordered(p: list[float]) -> None:
    """Each adjusted p is at least the raw one, BH never above Holm, both keep the order."""
    holm, bh = sig.holm(p), sig.benjamini_hochberg(p)
    raw = np.asarray(p)
    assert np.all(holm >= raw - 1e-15) and np.all(bh >= raw - 1e-15)
    assert np.all(bh <= holm + 1e-15)
    order = np.argsort(raw, kind="mergesort")
    assert np.all(np.diff(holm[order]) >= -1e-15) and np.all(np.diff(bh[order]) >= -1e-15)


# --- every pair on every measure -----------------------------------------------------------------

def _scores() -> dict[str, dict[str, dict[str, float]]]:
    rng = np.random.default_rng(9)
    qids = [f"q{i}" for i in range(30)]
    base = rng.random(30)
    runs = {"bm25": base, "dense": base + 0.15 + rng.normal(0, 0.1, 30),
            "rerank": base + 0.01 + rng.normal(0, 0.1, 30)}
    return {name: {"nDCG@10": dict(zip(qids, v)), "P@10": dict(zip(qids, np.round(v, 1)))}
            for name, v in runs.items()}


def test_pairwise_tests_cover_every_pair_and_adjust_over_the_whole_family() -> None:
    scores = _scores()
    del scores["rerank"]["P@10"]["q0"]     # a query rerank is not scored on: left unpaired
    report = sig.pairwise_tests(scores, ["nDCG@10", "P@10"])
    doc = report.to_dict()
    assert list(doc) == ["nDCG@10", "P@10"]
    assert [(t["a"], t["b"]) for t in doc["nDCG@10"]] == [
        ("bm25", "dense"), ("bm25", "rerank"), ("dense", "rerank")]
    ndcg = doc["nDCG@10"][0]
    assert set(ndcg) >= {"a", "b", "n", "diff", "ci", "p", "p_adjusted"}
    assert set(ndcg["p"]) == {"t", "randomization", "wilcoxon"}
    assert set(ndcg["p_adjusted"]) == {"holm", "bh"}
    d = np.array([scores["bm25"]["nDCG@10"][q] - scores["dense"]["nDCG@10"][q]
                  for q in scores["bm25"]["nDCG@10"]])
    assert ndcg["n"] == 30 and ndcg["diff"] == pytest.approx(d.mean())
    assert ndcg["ci"][0] < ndcg["diff"] < ndcg["ci"][1] < 0
    assert ndcg["p"]["t"] == sig.t_test(d) and ndcg["p"]["wilcoxon"] == sig.wilcoxon(d)
    assert ndcg["p"]["randomization"] == sig.randomization(d)
    assert [t["n"] for t in doc["P@10"]] == [30, 29, 29]
    flat = [t for m in doc.values() for t in m]
    raw = [t["p"]["randomization"] for t in flat]
    assert [t["p_adjusted"]["holm"] for t in flat] == pytest.approx(sig.holm(raw).tolist())
    assert [t["p_adjusted"]["bh"] for t in flat] == pytest.approx(
        sig.benjamini_hochberg(raw).tolist())
    assert report.settings()["family"] == 6
    assert ndcg["significant"] and ndcg["p_adjusted"]["holm"] < 0.05


def test_options_choose_the_marked_p() -> None:
    scores = _scores()
    t_none = sig.pairwise_tests(scores, ["nDCG@10"], sig.TestOptions(test="t", correction="none"))
    for t in t_none.by_measure["nDCG@10"]:
        assert t_none.marked_p(t) == t.p["t"]
        assert t.significant == (t.p["t"] is not None and t.p["t"] < 0.05)
    strict = sig.pairwise_tests(scores, ["nDCG@10"], sig.TestOptions(alpha=1e-12))
    assert not any(t.significant for t in strict.by_measure["nDCG@10"])


@pytest.mark.parametrize("kwargs, message", [
    ({"test": "ttest"}, "--test: unknown test 'ttest'; valid: randomization, t, wilcoxon"),
    ({"correction": "bonf"}, "--correction: unknown correction 'bonf'; valid: bh, holm, none"),
    ({"alpha": 1.5}, "--alpha must be between 0 and 1 (exclusive), got 1.5"),
])
def test_bad_options_are_one_line_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(PoolkitError) as err:
        sig.TestOptions(**kwargs)
    assert str(err.value).startswith(message)


def test_shifts_between_two_label_sets() -> None:
    def pt(diff: float, significant: bool) -> sig.PairTest:
        return sig.PairTest("m", "a", "b", 10, diff, None, {}, {}, significant)

    assert sig.shift(pt(0.1, True), pt(0.2, True)) == "survived"
    assert sig.shift(pt(0.1, True), pt(-0.2, True)) == "reversed"
    assert sig.shift(pt(0.1, True), pt(0.1, False)) == "lost"
    assert sig.shift(pt(0.1, False), pt(0.1, True)) == "gained"
    assert sig.shift(pt(0.1, False), pt(-0.1, False)) is None
