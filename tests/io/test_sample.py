"""Sample files and the sample-design record (poolkit.io.sample)."""

from __future__ import annotations

from pathlib import Path

import pytest

from poolkit.errors import InputError
from poolkit.io.sample import PoolSample, SampledPair, read_sample, sample_lines


def test_sample_file_round_trips(tmp_path: Path) -> None:
    pairs = [SampledPair("q1", "a", "1-10", 1.0, True),
             SampledPair("q1", "b", "11-30", 0.25, False)]
    rows = [(p.qid, p.docid, p.stratum, p.inclusion, int(p.sampled)) for p in pairs]
    (tmp_path / "s").write_text("\n".join(sample_lines(rows)) + "\n")
    samples = {"q1": PoolSample({"a": "1-10", "b": "11-30"}, {"a": 1.0, "b": 0.25},
                                {"a": 1, "b": 0})}
    assert read_sample(tmp_path / "s") == samples == {"q1": PoolSample.of(pairs)}


def test_a_four_column_file_does_not_say_what_was_drawn(tmp_path: Path) -> None:
    (tmp_path / "s").write_text("q1 a 1-10 1.0\nq1 b 11-30 0.25\n")
    design = read_sample(tmp_path / "s")["q1"]
    assert design.drawn is None and design.was_drawn("b")


@pytest.mark.parametrize("text, message", [
    ("q1 a s 0.5 1\nq1 b s 0.5\n", "2: expected 5 columns"),
    ("q1 a s 0.5 yes\n", r"1: drawn .yes. is not 0 \(not drawn\) or a place"),
    ("q1 a s 0.5 -1\n", "1: drawn '-1' is not 0"),
])
def test_a_bad_drawn_column_names_its_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "s").write_text(text)
    with pytest.raises(InputError, match=message):
        read_sample(tmp_path / "s")


def test_a_query_design_keeps_the_records_order() -> None:
    pairs = [SampledPair("q", d, "s", 0.5, d != "b") for d in ("c", "a", "b")]
    design = PoolSample.of(pairs)
    assert list(design.strata) == ["c", "a", "b"] and set(design.inclusion.values()) == {0.5}
    assert design.drawn == {"c": 1, "a": 2, "b": 0}
