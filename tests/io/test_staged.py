"""Temporary files are locked while their writer lives, swept once it is dead, and several
outputs are renamed together (poolkit.io.atomic.temp_beside / sweep_stale,
poolkit.io.staged)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from poolkit.errors import OutputError
from poolkit.io.atomic import sweep_stale, temp_beside, write_text
from poolkit.io.staged import StagedOutputs, held_signals


def names(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_dead_writer_s_temporary_is_swept_by_the_next_write(tmp_path):
    target = tmp_path / "out.qrels"
    script = ("import os, sys; from pathlib import Path; from poolkit.io.atomic import "
              "temp_beside; fd, tmp, lock = temp_beside(Path(sys.argv[1])); "
              "os.write(fd, b'half'); os.kill(os.getpid(), 9)")
    done = subprocess.run([sys.executable, "-c", script, str(target)])
    assert done.returncode == -signal.SIGKILL
    [left] = names(tmp_path)
    assert left.startswith(".out.qrels.") and left.endswith(".tmp")
    write_text(target, "whole\n")
    assert names(tmp_path) == ["out.qrels"]


def test_a_living_writer_s_temporary_is_not_swept(tmp_path):
    target = tmp_path / "out.qrels"
    fd, tmp, lock = temp_beside(target)
    try:
        assert sweep_stale(target) == []
        write_text(target, "other\n")
        assert os.path.exists(tmp)
    finally:
        os.close(fd)
        os.close(lock)
    assert [p.name for p in sweep_stale(target)] == [os.path.basename(tmp)]


def test_files_of_other_names_are_never_swept(tmp_path):
    target = tmp_path / "out.qrels"
    keep = [".out.qrels.mine.tmp", ".out.qrels.abcdefgh.tmp.bak", "out.qrels.abcdefgh.tmp",
            ".other.abcdefgh.tmp"]
    for name in keep:
        (tmp_path / name).write_text("x")
    (tmp_path / ".out.qrels.folder00.tmp").mkdir()
    assert sweep_stale(target) == []
    assert names(tmp_path) == sorted([*keep, ".out.qrels.folder00.tmp"])


def test_outputs_are_renamed_together_or_not_at_all(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old a\n")
    with pytest.raises(OutputError, match=r"missing/b.txt: cannot write: folder"):
        with StagedOutputs() as out:
            out.write(a, "new a\n")
            out.write(tmp_path / "missing" / "b.txt", "new b\n")
            out.publish()
    assert names(tmp_path) == ["a.txt"] and a.read_text() == "old a\n"
    with StagedOutputs() as out:
        out.write(a, "new a\n")
        out.write(b, "new b\n")
        assert a.read_text() == "old a\n" and not b.exists()
        out.publish()
    assert names(tmp_path) == ["a.txt", "b.txt"] and a.read_text() == "new a\n"


def test_a_signal_in_a_held_block_arrives_when_it_ends():
    seen = []
    with pytest.raises(KeyboardInterrupt):
        with held_signals():
            os.kill(os.getpid(), signal.SIGINT)
            seen.append("still running")
    assert seen == ["still running"]
