"""A judge's agreement with itself (``analysis.repeatability``): Krippendorff's alpha against
the ``krippendorff`` package, the flip share by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.analysis.repeatability import Repeatability, krippendorff_alpha

krippendorff = pytest.importorskip("krippendorff")

#: each unit (pair) 1 to 4 readings of grades 0..3
UNITS = st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=4), min_size=1, max_size=30)


def oracle(units: list[list[int]], level: str) -> float | None:
    """The package's alpha: readings as coders (rows), units as columns, nan where a unit
    has fewer readings."""
    width = max(len(u) for u in units)
    data = np.full((width, len(units)), np.nan)
    for j, unit in enumerate(units):
        data[:len(unit), j] = unit
    try:
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    except ValueError:  # one value in the domain
        return None


@pytest.mark.parametrize("level", ["ordinal", "interval"])
@settings(max_examples=150, deadline=None)
@given(units=UNITS)
def test_alpha_is_the_krippendorff_packages(level, units):
    paired = [u for u in units if len(u) >= 2]
    ours = krippendorff_alpha(units, level)
    if len({g for u in paired for g in u}) < 2:
        assert ours is None
        return
    theirs = oracle(paired, level)
    assert theirs is not None and not math.isnan(theirs)
    assert ours == pytest.approx(theirs, abs=1e-9)


def test_a_known_case_and_the_undefined_ones():
    # perfect agreement on varied grades: 1; every reading one grade: undefined
    assert krippendorff_alpha([[0, 0], [3, 3], [1, 1]]) == pytest.approx(1.0)
    assert krippendorff_alpha([[2, 2, 2], [2, 2]]) is None
    assert krippendorff_alpha([[1], [2]]) is None  # no unit read twice
    with pytest.raises(ValueError, match="nominal"):
        krippendorff_alpha([[0, 1]], "nominal")


def test_repeatability_counts_pairs_read_twice_and_their_flips():
    found = Repeatability.of({("q", "a"): [3, 3, 3], ("q", "b"): [1, 2, 1],
                              ("q", "c"): [0, 0, 0], ("q", "d"): [2]})
    assert (found.pairs, found.readings, found.flip_share) == (3, 3, pytest.approx(1 / 3))
    assert found.alpha == pytest.approx(oracle([[3, 3, 3], [1, 2, 1], [0, 0, 0]], "ordinal"))
    doc = found.as_dict()
    assert doc["measured"] is True and doc["level"] == "ordinal"
    once = Repeatability.of({("q", "a"): [3], ("q", "b"): [1]})
    assert once.as_dict() == {"measured": False, "alpha": None, "flip_share": None,
                              "pairs": 0, "readings": 1, "level": "ordinal"}
