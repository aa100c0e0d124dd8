"""Several outputs of one command, visible together or not at all.

Each output is written whole to a locked temporary file beside its target
(``atomic.temp_beside``) and fsynced; ``publish`` renames them all over their targets only
once every one was written, with SIGINT and SIGTERM held off until the last rename. A
failure on any output (a full disk under ``--sample``) leaves every target as it was and no
temporary file; a kill leaves unlocked temporaries that the next write of the same targets
removes.

A target that exists and is not a regular file (``/dev/null``, a FIFO) cannot be replaced:
its content is kept in memory and written in place at ``publish``.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from poolkit.io.atomic import _errors, _fsync_dir, temp_beside


@dataclass
class _Staged:
    given: str            # the path as the user gave it (what messages name)
    target: Path          # where it goes (a symlink's target)
    tmp: str | None       # the written temporary file; None for a device, written in place
    lock: int | None      # the fd holding the temporary file's lock
    data: bytes = b""     # a device's content


class StagedOutputs:
    """Outputs written beside their targets, renamed over them together by ``publish``.

    Use as a context manager: leaving the block without ``publish`` (an error, a signal)
    removes every temporary file and changes no target."""

    def __init__(self) -> None:
        self._files: list[_Staged] = []
        self.published = False

    def __enter__(self) -> StagedOutputs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()

    @property
    def files(self) -> list[tuple[str, Path]]:
        """(temporary file, target) of every output staged in a file."""
        return [(f.tmp, f.target) for f in self._files if f.tmp is not None]

    def write(self, path: str | Path, data: str | bytes, encoding: str = "utf-8") -> None:
        """Stage ``data`` for ``path``; OS errors become one OutputError naming ``path``."""
        blob = data.encode(encoding) if isinstance(data, str) else data
        target = Path(os.path.realpath(path))
        if target.exists() and not target.is_file():
            self._files.append(_Staged(str(path), target, None, None, blob))
            return
        staged = None
        with _errors(path):
            fd, tmp, lock = temp_beside(target)
            staged = _Staged(str(path), target, tmp, lock)
            self._files.append(staged)  # from here on discard() removes it
            with os.fdopen(fd, "wb") as fh:
                fh.write(blob)
                fh.flush()
                os.fsync(fh.fileno())

    def publish(self) -> None:
        """Rename every staged output over its target (devices written in place)."""
        with held_signals():
            for f in self._files:
                with _errors(f.given):
                    if f.tmp is None:
                        with open(f.target, "wb") as fh:
                            fh.write(f.data)
                        continue
                    os.replace(f.tmp, f.target)
                    f.tmp = None
            for folder in {f.target.parent for f in self._files}:
                _fsync_dir(folder)
            self.published = True
            self.release()

    def discard(self) -> None:
        """Remove every temporary file not renamed yet."""
        for f in self._files:
            if f.tmp is not None:
                try:
                    os.unlink(f.tmp)
                except OSError:
                    pass
                f.tmp = None
        self.release()

    def release(self) -> None:
        """Let go of the temporary files' locks (left, they are a dead writer's)."""
        for f in self._files:
            if f.lock is not None:
                os.close(f.lock)
                f.lock = None


@contextmanager
def held_signals() -> Iterator[None]:
    """SIGINT and SIGTERM delivered only when the block is done (a few renames that must
    happen together); outside the main thread, where no handler can be set, a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        caught.append(signum)

    previous: dict[int, Any] = {s: signal.signal(s, hold)
                                for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for s in caught:
            signal.raise_signal(s)
