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


# --- item 17: a compressed file that expands without bound --------------------------------

def _gzip_bomb(path: Path, line: bytes, total: int) -> Path:
    """``total`` bytes of ``line`` repeated, gzipped: one member written again and again (a
    valid multi-member gzip stream), so the file stays ~500 times smaller and is made fast."""
    import gzip

    block = line * ((4 << 20) // len(line))
    member = gzip.compress(block, 6)
    with path.open("wb") as f:
        for _ in range(total // len(block)):
            f.write(member)
    return path


def _limited_poolkit(args: list[str], cwd: Path, address_space: int,
                     env: dict[str, str] | None = None) -> Any:
    """``python -m poolkit ARGS`` under an RLIMIT_AS: whatever it does, it cannot take more
    than ``address_space`` bytes of this (shared) machine."""
    import os
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    full_env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "poolkit", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, preexec_fn=limit, timeout=600)


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_a_gzip_bomb_of_valid_lines_is_refused_in_one_line(tmp_path: Path, which: str) -> None:
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    if which == "qrels":
        bomb = _gzip_bomb(tmp_path / "bomb.qrels.gz", b"q1 0 d1 1\n", 1 << 30)
        args = ["score", str(bomb), str(run), "--format", "json"]
    else:
        bomb = _gzip_bomb(tmp_path / "bomb.run.gz", b"q1 Q0 d1 1 1.0 t\n", 1 << 30)
        args = ["score", str(qrels), str(bomb), "--format", "json"]
    before = bomb.read_bytes()
    assert len(before) < 4 << 20  # 1 GiB of lines, a few MB on disk
    done = _limited_poolkit(args, tmp_path, 768 << 20)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith(f"poolkit score: error: {bomb}: decompresses to more than 200 "
                               f"times its compressed size (")
    assert lines[0].endswith("a decompression bomb? Set POOLKIT_MAX_EXPANSION=0 (no limit) "
                             "or a higher ratio to read it anyway")
    assert bomb.read_bytes() == before


def test_the_expansion_limit_is_overridden_by_its_environment_variable(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from poolkit.errors import InputError, PoolkitError
    from poolkit.io import read_qrels

    monkeypatch.setattr(common, "EXPANSION_FLOOR", 1 << 20)
    bomb = _gzip_bomb(tmp_path / "small-bomb.qrels.gz", b"q1 0 d1 1\n", 8 << 20)
    monkeypatch.delenv("POOLKIT_MAX_EXPANSION", raising=False)
    with pytest.raises(InputError, match="decompresses to more than 200 times"):
        read_qrels(bomb)
    monkeypatch.setenv("POOLKIT_MAX_EXPANSION", "0")  # no limit
    assert read_qrels(bomb).grades == {"q1": {"d1": 1}}
    monkeypatch.setenv("POOLKIT_MAX_EXPANSION", "100000")
    assert read_qrels(bomb).grades == {"q1": {"d1": 1}}
    monkeypatch.setenv("POOLKIT_MAX_EXPANSION", "400")
    with pytest.raises(InputError, match="more than 400 times"):
        read_qrels(bomb)
    monkeypatch.setenv("POOLKIT_MAX_EXPANSION", "lots")
    with pytest.raises(PoolkitError, match="POOLKIT_MAX_EXPANSION='lots': give a whole number"):
        read_qrels(bomb)


def test_real_compressed_labels_and_runs_stay_far_below_the_limit(tmp_path: Path) -> None:
    import bz2
    import gzip
    import lzma

    from shared_data import shared_path

    from poolkit.io import read_qrels

    folder = shared_path("collections", "dl19-passage-pool")
    plain_qrels = read_qrels(folder / "qrels.full.txt")
    run_file = sorted((folder / "runs").iterdir())[0]
    plain_run = read_run(run_file)
    for suffix, compress in (("gz", gzip.compress), ("bz2", bz2.compress),
                             ("xz", lzma.compress)):
        q = tmp_path / f"qrels.{suffix}"
        raw = (folder / "qrels.full.txt").read_bytes()
        q.write_bytes(compress(raw))
        assert len(raw) / q.stat().st_size < common.MAX_EXPANSION / 10
        assert read_qrels(q).grades == plain_qrels.grades
        r = tmp_path / f"run.{suffix}"
        r.write_bytes(compress(run_file.read_bytes()))
        assert dict(read_run(r).rankings) == dict(plain_run.rankings)
