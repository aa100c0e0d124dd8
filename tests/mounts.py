"""Real file-system faults for tests: a tiny tmpfs (a full disk) and a read-only mount.

Mounting needs root (CI runs as root); elsewhere the tests that need one skip. Permission
bits alone cannot make a read-only store for root, and a full disk cannot be faked honestly.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@contextmanager
def tmpfs(where: Path, size_kb: int = 512) -> Iterator[Path]:
    """A fresh tmpfs of ``size_kb`` mounted at ``where`` (skips the test if it cannot)."""
    where.mkdir(parents=True, exist_ok=True)
    if not _mount("-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(where)):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def remount_read_only(where: Path) -> None:
    assert _mount("-o", "remount,ro", str(where)), f"cannot remount {where} read-only"


def fill(where: Path) -> None:
    """Fill the file system at ``where`` to the last byte (files ``filler-*``)."""
    for n, size in enumerate((1 << 16, 4096, 1)):
        fd = os.open(where / f"filler-{n}", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while True:
                os.write(fd, b"\0" * size)
        except OSError:
            pass
        finally:
            os.close(fd)


def unfill(where: Path) -> None:
    for filler in where.glob("filler-*"):
        filler.unlink()
