"""The dashboard's per-assessor laws (``analysis.team``): the pace trend does not depend on
the unit of time, and between two people the grade-share flags mirror each other."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolkit.analysis.team import FLAG_MIN, TREND_MIN, pace_trend, with_flags

SECONDS = st.lists(st.floats(0.5, 600, allow_nan=False), min_size=0, max_size=60)


@given(SECONDS, st.sampled_from([0.5, 2.0, 60.0]))
def test_the_trend_is_the_same_in_any_unit_of_time(seconds, factor):
    trend, scaled = pace_trend(seconds), pace_trend([s * factor for s in seconds])
    assert (trend is None) == (scaled is None) == (len(seconds) < 2 * TREND_MIN)
    if trend is not None and scaled is not None:
        assert scaled["direction"] == trend["direction"]
        assert scaled["last_s"] == pytest.approx(trend["last_s"] * factor, rel=1e-3, abs=1e-2)


@given(st.integers(TREND_MIN, 20), st.floats(1, 100))
def test_the_same_pace_is_steady_and_a_doubled_one_is_slower(k, s):
    assert pace_trend([s] * (2 * k))["direction"] == "steady"  # type: ignore[index]
    assert pace_trend([s] * k + [2 * s] * k)["direction"] == "slower"  # type: ignore[index]
    assert pace_trend([2 * s] * k + [s] * k)["direction"] == "faster"  # type: ignore[index]


HIST = st.lists(st.integers(0, 40), min_size=4, max_size=4)


@given(HIST, HIST)
def test_between_two_people_one_is_lenient_exactly_when_the_other_is_harsh(a, b):
    counts = {n: {"grades": {str(g): v for g, v in enumerate(h)}, "fast": False}
              for n, h in (("a", a), ("b", b))}
    out = with_flags({"a": {}, "b": {}}, counts, top=3)
    flagged = sum(a) >= FLAG_MIN and sum(b) >= FLAG_MIN
    assert ("lenient" in out["a"]["flags"]) == ("harsh" in out["b"]["flags"])
    assert ("harsh" in out["a"]["flags"]) == ("lenient" in out["b"]["flags"])
    assert flagged or not (out["a"]["flags"] or out["b"]["flags"])
    for name, h in (("a", a), ("b", b)):
        share = out[name]["grade_share"]
        assert (share is None) == (sum(h) == 0)
        assert share is None or sum(share.values()) == pytest.approx(1, abs=1e-3)
