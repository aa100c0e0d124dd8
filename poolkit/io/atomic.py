"""Every file poolkit writes is replaced whole or not at all.

The new content goes to a temporary file in the target's folder (same file system, so the
rename is atomic), is flushed and fsynced, then renamed over the target; the folder is
fsynced so the rename itself survives a power cut. A failed write (full disk, read-only
folder, a kill) leaves the previous file untouched and no partial file beside it.

A target that exists and is not a regular file (``/dev/null``, a FIFO, a terminal) cannot be
replaced; it is written in place.

A temporary file is named ``.NAME.XXXXXXXX.tmp`` and held under an exclusive ``flock`` for as
long as its writer lives: a writer killed by SIGKILL (nothing can clean up after that) leaves
one unlocked, and the next write of the same target removes it (``sweep_stale``).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from poolkit.errors import OutputError
from poolkit.io.links import resolve_output


def write_text(path: str | Path, text: str, encoding: str = "utf-8") -> None:
    """Atomically replace ``path`` with ``text``."""
    write_bytes(path, text.encode(encoding))


def write_bytes(path: str | Path, data: bytes) -> None:
    """Atomically replace ``path`` with ``data``."""
    with atomic_writer(path, "wb") as fh:
        fh.write(data)


@contextmanager
def atomic_writer(path: str | Path, mode: str = "w", encoding: str = "utf-8") -> Iterator[IO[Any]]:
    """A file handle whose content replaces ``path`` when the block ends without error.

    OS errors (here or in the block) become one :class:`OutputError` naming ``path``.
    """
    target = resolve_output(path)  # a symlink's target is replaced, not the link (see links)
    if target.exists() and not target.is_file():
        with _errors(path), open(target, mode, **_text_args(mode, encoding)) as fh:
            yield fh
        return
    tmp: str | None = None
    lock: int | None = None
    try:
        with _errors(path):
            fd, tmp, lock = temp_beside(target)
            with os.fdopen(fd, mode, **_text_args(mode, encoding)) as fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
            tmp = None
            _fsync_dir(target.parent)
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        if lock is not None:
            os.close(lock)


def temp_beside(target: Path) -> tuple[int, str, int]:
    """A new temporary file beside ``target`` (its mode that of the file it will replace),
    locked: (fd to write, its path, a second fd that holds the lock until closed, so that the
    lock outlives closing the written file until the rename). A dead writer's leftovers of
    the same target are removed first. Raises OSError."""
    sweep_stale(target)
    while True:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits only if a sweeper has it, to unlink it
        try:
            linked = os.stat(tmp).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            linked = False
        if linked:
            break
        os.close(fd)  # a sweeper took it between mkstemp and flock: make another
    try:
        os.fchmod(fd, _mode_for(target))
        return fd, tmp, os.dup(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise


def sweep_stale(target: str | Path) -> list[Path]:
    """Remove the temporary files of ``target`` (``.NAME.XXXXXXXX.tmp`` beside it) that no
    living writer holds; the ones removed. A file of that name that poolkit did not make
    (another length of random part, or a folder) is left alone."""
    target = Path(target)
    pattern = re.compile(re.escape(f".{target.name}.") + r"[a-z0-9_]{8}\.tmp")
    removed: list[Path] = []
    try:
        names = [n for n in os.listdir(target.parent) if pattern.fullmatch(n)]
    except OSError:
        return removed
    for name in names:
        path = target.parent / name
        fd = lock_if_abandoned(path)
        if fd is None:
            continue
        try:
            if os.fstat(fd).st_ino == os.lstat(path).st_ino:
                os.unlink(path)
                removed.append(path)
        except OSError:
            pass  # gone already
        finally:
            os.close(fd)
    return removed


def lock_if_abandoned(path: Path) -> int | None:
    """A descriptor of ``path`` holding its exclusive lock when no living writer holds it
    (never through a symlink); None when it is held, gone or a link. The caller closes it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None  # a living writer's
    return fd


def check_writable_folder(folder: str | Path) -> list[Path]:
    """Create ``folder`` if needed and prove a file can be made in it (a command that will
    write there after a long computation asks first); an OutputError says why not. The
    folders it made, outermost first (:func:`remove_empty_folders` takes them away again
    when the command fails)."""
    folder = Path(folder)
    real = resolve_output(folder)  # no folder made through another user's planted link
    made = [p for p in (real, *real.parents) if not p.exists()][::-1]
    try:
        real.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        remove_empty_folders(made)
        raise OutputError(f"{folder}: cannot create the folder: {_why_no_folder(folder, exc)}"
                          ) from None
    try:
        with _errors(folder / "."):
            fd, tmp = tempfile.mkstemp(prefix=".poolkit-probe.", dir=folder)
            os.close(fd)
            os.unlink(tmp)
    except OutputError:
        remove_empty_folders(made)
        raise
    return made


def remove_empty_folders(made: list[Path]) -> None:
    """Remove the folders in ``made`` (each outermost first) that are still empty, innermost
    first: what a failed command made and nothing has been put in since."""
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:  # not empty (another process's files), or already gone
            pass


def _why_no_folder(folder: Path, exc: OSError) -> str:
    """Why ``mkdir -p folder`` failed, said of the deepest part that exists (the errno alone
    misleads: /proc answers ENOENT, "no such file", though /proc is there)."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if isinstance(exc, PermissionError):
        return f"permission denied in {existing}"
    if exc.errno == errno.EROFS:
        return f"{existing} is on a read-only file system"
    if isinstance(exc, FileNotFoundError):  # the parent is there, yet "no such file"
        return f"{existing} does not allow new folders in it (a virtual file system?)"
    return f"{exc.strerror or exc} (in {existing})"


def check_outputs(outputs: Mapping[str, str | Path | None],
                  inputs: Mapping[str, str | Path | None], *,
                  advice: str = "name another file", folders_made: bool = False) -> None:
    """Before a command writes anything: no output (option -> path) is one of its inputs
    (what -> path: the store, the config, a file it read) or another output, is a folder, or
    sits in a missing folder (unless ``folders_made``: the command makes its folders). An
    output aimed at the store would replace every judgment with a text file; one failing
    after another was written would leave half a result. ``advice`` ends the message of an
    output that is an input."""
    protected: dict[Path, str] = {}
    for what, where in inputs.items():
        if where is not None:
            real = _real(where)
            protected[real] = what
            if what == "the store":  # SQLite's companions are the store too
                for suffix in ("-wal", "-shm", "-journal"):
                    protected[real.with_name(real.name + suffix)] = what
    taken: dict[Path, str] = {}
    for option, out in outputs.items():
        if out is None:
            continue
        real = resolve_output(out)
        if real in protected:
            raise OutputError(f"{out}: {option} would overwrite {protected[real]}; "
                              f"{advice}")
        if real in taken:
            raise OutputError(f"{out}: given to both {taken[real]} and {option}; name two files")
        taken[real] = option
        if real.is_dir():
            raise OutputError(f"{out}: cannot write: {option} names a folder, not a file")
        if not folders_made and not real.parent.is_dir():
            raise OutputError(f"{out}: cannot write: folder {Path(out).parent} does not exist")


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


def _text_args(mode: str, encoding: str) -> dict[str, Any]:
    return {} if "b" in mode else {"encoding": encoding, "newline": ""}


@contextmanager
def _errors(path: str | Path) -> Iterator[None]:
    try:
        yield
    except FileNotFoundError:
        raise OutputError(f"{path}: cannot write: folder {Path(path).parent} does not exist"
                          ) from None
    except PermissionError:
        raise OutputError(f"{path}: cannot write: permission denied (read-only file or "
                          f"folder?)") from None
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _mode_for(target: Path) -> int:
    """The existing file's permissions, or what a plain ``open(path, 'w')`` would give."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a folder; the rename is still atomic
    finally:
        os.close(fd)
