"""Sample files and the sample-design record (poolkit.io.sample)."""

from __future__ import annotations

from pathlib import Path

from poolkit.io.sample import PoolSample, SampledPair, read_sample, sample_lines


def test_sample_file_round_trips(tmp_path: Path) -> None:
    pairs = [SampledPair("q1", "a", "1-10", 1.0, True),
             SampledPair("q1", "b", "11-30", 0.25, False)]
    rows = [(p.qid, p.docid, p.stratum, p.inclusion) for p in pairs]
    (tmp_path / "s").write_text("\n".join(sample_lines(rows)) + "\n")
    samples = {"q1": PoolSample({"a": "1-10", "b": "11-30"}, {"a": 1.0, "b": 0.25})}
    assert read_sample(tmp_path / "s") == samples == {"q1": PoolSample.of(pairs)}


def test_a_query_design_keeps_the_records_order() -> None:
    pairs = [SampledPair("q", d, "s", 0.5, d != "b") for d in ("c", "a", "b")]
    design = PoolSample.of(pairs)
    assert list(design.strata) == ["c", "a", "b"] and set(design.inclusion.values()) == {0.5}
