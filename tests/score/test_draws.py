"""``map_draws``: a random stream's chunks worked on threads, the loop's results for any jobs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.score.draws import map_draws


def _stream(seed: int, chunks: int):
    rng = np.random.default_rng(seed)
    for _ in range(chunks):
        yield rng.integers(0, 100, size=7)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 5), chunks=st.integers(0, 12), jobs=st.integers(1, 5))
def test_the_loops_results_in_draw_order_for_any_jobs(seed: int, chunks: int,
                                                      jobs: int) -> None:
    def work(x: np.ndarray) -> bytes:
        return (x * x).tobytes()

    loop = [work(x) for x in _stream(seed, chunks)]
    assert map_draws(_stream(seed, chunks), work, jobs) == loop


def test_an_error_in_the_work_is_raised() -> None:
    def work(x: int) -> int:
        if x == 3:
            raise ValueError("bad chunk")
        return x

    for jobs in (1, 2, 4):
        with pytest.raises(ValueError, match="bad chunk"):
            map_draws(iter(range(6)), work, jobs)
