"""Inputs at scale (issue 22, items 17 and 18): the work of reading a file follows its size.

No timed assertions: the tests count the work (bytes copied by concatenation) or bound the
memory from outside (an address-space limit on a subprocess).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

import poolkit.io.common as common
from poolkit.io import read_run


class CountingBytes(bytes):
    """bytes that count what every ``+`` with them copies (in ``copied``, shared)."""

    copied = [0]
    concatenations = [0]

    def _count(self, other: bytes) -> None:
        CountingBytes.copied[0] += len(self) + len(other)
        CountingBytes.concatenations[0] += 1

    def __add__(self, other: Any) -> CountingBytes:
        self._count(other)
        return CountingBytes(bytes(self) + bytes(other))

    def __radd__(self, other: Any) -> CountingBytes:
        self._count(other)
        return CountingBytes(bytes(other) + bytes(self))


class CountingFile(io.RawIOBase):
    """A file whose reads hand out CountingBytes blocks."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> CountingBytes:  # type: ignore[override]
        return CountingBytes(self._data.read(size))


def _counted_chunks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, data: bytes,
                    size: int) -> list[bytes]:
    path = tmp_path / "in.run"
    path.write_bytes(data)
    monkeypatch.setattr(common, "open_binary", lambda p: CountingFile(data))
    CountingBytes.copied[0] = CountingBytes.concatenations[0] = 0
    return [bytes(c) for c in common.iter_chunks(path, size)]


def test_a_line_longer_than_many_blocks_is_copied_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # One line of 200 blocks: joining it block by block (carry += block) copied ~100x it.
    size = 1 << 10
    line = b"q1 Q0 " + b"d" * (200 * size) + b" 1 1.0 t\n"
    data = b"q0 Q0 a 1 2.0 t\n" + line + b"q2 Q0 b 1 1.0 t\n"
    chunks = _counted_chunks(monkeypatch, tmp_path, data, size)
    assert b"".join(chunks) == data
    assert all(c.endswith(b"\n") for c in chunks)
    assert any(line in c for c in chunks)  # chunks end at line ends: never cut inside it
    assert CountingBytes.copied[0] <= 2 * len(data), CountingBytes.copied[0]
    assert CountingBytes.concatenations[0] <= 2


def test_chunks_end_at_line_ends_for_every_block_size(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    data = b"".join(b"q%d Q0 d%d 1 %d t\n" % (i, i * 7919, i) for i in range(300)) + b"tail"
    for size in (1, 2, 7, 16, 64, 1000, 1 << 16):
        chunks = _counted_chunks(monkeypatch, tmp_path, data, size)
        assert b"".join(chunks) == data
        assert all(c.endswith(b"\n") for c in chunks[:-1]) and chunks[-1] == b"tail"
        assert all(chunks)
        assert CountingBytes.copied[0] <= 2 * len(data)


def test_a_run_with_one_huge_line_reads_as_it_did(tmp_path: Path) -> None:
    path = tmp_path / "long.run"
    doc = "d" * (3 << 20)  # wider than any block of either reader
    path.write_text(f"q1 Q0 a 1 2.0 t\nq1 Q0 {doc} 2 1.0 t\n")
    run = read_run(path)
    assert run.rankings["q1"] == ["a", doc]


def test_the_last_lines_tag_is_found_without_copying_a_long_line_per_block(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import poolkit.io.formats as formats

    data = (b"q0 Q0 a 1 2.0 first\nq1 Q0 " + b"d" * (40 << 20) + b" 2 1.0 long\n"
            + b"q1 Q0 " + b"e" * (5 << 20) + b" 3 0.5 last")
    path = tmp_path / "long.run"
    path.write_bytes(b"x")  # what is read comes from the counting file below
    monkeypatch.setattr(formats, "open_binary", lambda p: CountingFile(data))
    CountingBytes.copied[0] = 0
    assert formats.run_tag_of_last_line(path) == "last"
    assert CountingBytes.copied[0] <= 2 * len(data), CountingBytes.copied[0]
