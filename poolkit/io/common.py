"""Small helpers shared by the readers: content hashes and whole-file reads with clear errors.

Every read goes through :func:`open_binary`, which sees through gzip, bzip2 and xz by their
magic bytes (not the file name), so every reader takes compressed files. Hashes are of the
content, so a file and its compressed copy hash alike. A compressed file that decompresses to
more than 200 times the compressed bytes read (past the first 64 MiB) is refused as a likely
decompression bomb; ``POOLKIT_MAX_EXPANSION`` sets another ratio, 0 none (:class:`Expansion`).
"""

from __future__ import annotations

import errno
import hashlib
import importlib
import io
import json
import os
import stat
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from poolkit.errors import InputError, PoolkitError, too_many_open_files

# magic bytes -> (name, the standard-library module whose open() reads it; imported on use)
COMPRESSIONS: dict[bytes, tuple[str, str]] = {
    b"\x1f\x8b": ("gzip", "gzip"),
    b"BZh": ("bzip2", "bz2"),
    b"\xfd7zXZ\x00": ("xz", "lzma"),
}


@contextmanager
def _file_errors(p: Path) -> Iterator[None]:
    """Turn the OS's errors on opening or reading ``p`` into InputErrors that name it."""
    try:
        yield
    except FileNotFoundError:
        raise InputError(p, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(p, None, "is a directory, expected a file") from None
    except EOFError:
        raise InputError(p, None, "compressed file is cut short") from None
    except OSError as exc:
        if exc.strerror is None:  # gzip, bz2 and lzma report bad data as a bare OSError
            raise InputError(p, None, f"compressed file is damaged: {exc}") from None
        if exc.errno in (errno.EMFILE, errno.ENFILE):
            raise InputError(p, None, f"cannot open: {too_many_open_files()}") from None
        raise InputError(p, None, f"cannot read: {exc.strerror}") from None
    except Exception as exc:
        # lzma and zlib (gzip's inflater) are imported only when such a file was opened;
        # their own error classes are not OSErrors.
        damaged = tuple(getattr(sys.modules.get(m), e, None) for m, e in (
            ("lzma", "LZMAError"), ("zlib", "error")))
        if isinstance(exc, tuple(cls for cls in damaged if isinstance(cls, type))):
            raise InputError(p, None, f"compressed file is damaged: {exc}") from None
        raise


def open_binary(p: Path) -> IO[bytes]:
    """``p`` opened for reading bytes, decompressed when its content is gzip, bzip2 or xz
    (then bounded: see :class:`Expansion`).

    A pipe (a FIFO, ``<(cmd)``'s ``/dev/fd/N``) or a device is read once, on its first open,
    into a temporary file that every later open of the same path reads (see :func:`_spool`):
    telling its format reads it before its reader does, and a pipe cannot be read twice."""
    spool = _spool(p)
    if spool is not None:
        reader = io.BufferedReader(_SpoolReader(spool))
        head = reader.peek(6)[:6]
        for magic, (_name, module) in COMPRESSIONS.items():
            if head.startswith(magic):
                return Expansion.bounded(p, importlib.import_module(module), reader)
        return reader
    with p.open("rb") as f:
        head = f.read(6)
    for magic, (_name, module) in COMPRESSIONS.items():
        if head.startswith(magic):
            return Expansion.bounded(p, importlib.import_module(module))
    return p.open("rb")


# (path as given, device, inode) of a pipe or device -> the temporary file holding what it
# gave. The path is part of the key so that a FIFO made again at a new path (its inode
# reused) is read anew; a pipe's inode is never reused while the process lives.
_SPOOLS: dict[tuple[str, int, int], IO[bytes]] = {}
_SPOOL_LOCK = threading.Lock()


def _spool(p: Path) -> IO[bytes] | None:
    """The temporary file holding the content of ``p`` when ``p`` is not a regular file or a
    directory, reading it whole the first time; None for a regular file (or a missing one:
    the caller's open says so)."""
    try:
        st = os.stat(p)
    except OSError:
        return None
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return None
    key = (os.fspath(p), st.st_dev, st.st_ino)
    with _SPOOL_LOCK:
        held = _SPOOLS.get(key)
        if held is None:
            import shutil  # here: only a pipe needs them, and `score` starts sooner without
            import tempfile

            held = tempfile.TemporaryFile(prefix="poolkit-input-")
            try:
                with p.open("rb") as source:
                    shutil.copyfileobj(source, held, 1 << 20)
                held.flush()  # readers pread the descriptor, below the buffer
            except BaseException:
                held.close()
                raise
            _SPOOLS[key] = held
    return held


class _SpoolReader(io.RawIOBase):
    """An independent reading position over a spooled file (``os.pread``: no shared offset,
    so readers on threads and nested opens never disturb each other)."""

    def __init__(self, held: IO[bytes]) -> None:
        super().__init__()
        self._fd = held.fileno()
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = os.pread(self._fd, len(buffer), self._pos)
        buffer[:len(data)] = data
        self._pos += len(data)
        return len(data)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos,
                io.SEEK_END: os.fstat(self._fd).st_size}[whence]
        self._pos = max(base + offset, 0)
        return self._pos

    def tell(self) -> int:
        return self._pos


#: A compressed input may decompress to at most this many times the compressed bytes read
#: so far (once past EXPANSION_FLOOR); the environment variable overrides it, 0 lifts it.
MAX_EXPANSION = 200
EXPANSION_FLOOR = 64 << 20
EXPANSION_ENV = "POOLKIT_MAX_EXPANSION"
_PIECE = 1 << 20  # bytes decompressed at a time by a read of the whole file


def max_expansion() -> int:
    """The expansion limit in force (``POOLKIT_MAX_EXPANSION``, else MAX_EXPANSION)."""
    text = os.environ.get(EXPANSION_ENV, "").strip()
    if not text:
        return MAX_EXPANSION
    if not text.isdigit():
        raise PoolkitError(f"{EXPANSION_ENV}={text!r}: give a whole number of times the "
                           f"compressed size (0 for no limit)")
    return int(text)


class _Counted:
    """A file that counts the bytes read from it (the decompressor's input)."""

    def __init__(self, f: IO[bytes]) -> None:
        self.f = f
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data = self.f.read(size)
        self.count += len(data)
        return data

    def __getattr__(self, name: str) -> object:
        return getattr(self.f, name)


class Expansion(io.RawIOBase):
    """A decompressed stream refused (an InputError naming the file) once it has put out
    more than ``limit`` times the compressed bytes it has taken in, past a floor.

    Real qrels and runs compress 4-10 fold (synthetic sequential ids under xz about 85); a
    gzip bomb of valid lines expands 500-1000 fold. Every reader keeps what it parses (a
    run keeps every row, repeats included), so without a bound an 8 MB file could ask for
    16 GB. Checked on every read, with whole-file reads taken a piece at a time, so what
    is held when it is refused is bounded by the limit times the file's size."""

    def __init__(self, path: Path, raw: _Counted, inner: IO[bytes], limit: int) -> None:
        self.path, self._raw, self._inner, self.limit = path, raw, inner, limit
        self.out = 0

    @classmethod
    def bounded(cls, path: Path, module: Any, source: IO[bytes] | None = None) -> IO[bytes]:
        """``module``'s decompressing reader over ``source`` (default: ``path`` opened),
        bounded by the limit in force."""
        source = source if source is not None else path.open("rb")
        limit = max_expansion()
        if not limit:
            return module.open(source, "rb")  # type: ignore[no-any-return]
        raw = _Counted(source)
        return cls(path, raw, module.open(raw, "rb"), limit)  # type: ignore[return-value]

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        if size is not None and size >= 0:
            return self._checked(self._inner.read(size))
        pieces = []
        while piece := self._checked(self._inner.read(_PIECE)):
            pieces.append(piece)
        return b"".join(pieces)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def _checked(self, data: bytes) -> bytes:
        self.out += len(data)
        if self.out > EXPANSION_FLOOR and self.out > self.limit * self._raw.count:
            raise InputError(self.path, None,
                             f"decompresses to more than {self.limit} times its compressed "
                             f"size ({self.out:,} bytes from {self._raw.count:,}): a "
                             f"decompression bomb? Set {EXPANSION_ENV}=0 (no limit) or a "
                             f"higher ratio to read it anyway")
        return data

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._raw.f.close()
            super().close()


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes (decompressed), or an InputError that names it (missing, a directory,
    empty, damaged compression)."""
    p = Path(path)
    with _file_errors(p), open_binary(p) as f:
        data = f.read()
    if not data or data.isspace():  # data.strip() would copy the whole file
        raise InputError(p, None, "file is empty")
    return data


def decode(path: str | Path, data: bytes) -> str:
    try:
        # utf-8-sig: a byte-order mark (Windows editors) must not become part of the first id.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(path, line, "not valid UTF-8") from None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def short_hash(digest: str) -> str:
    """The 12-character prefix printed in reports (enough to tell files apart)."""
    return digest[:12]


def iter_chunks(path: str | Path, size: int = 1 << 21) -> Iterator[bytes]:
    """The file's bytes in blocks of about ``size`` that end just after a ``\\n`` (the last
    block may not), with the same errors as :func:`read_bytes` for a missing file or a
    directory. Readers of big files (runs) parse block by block so that the whole file never
    sits in memory twice (bytes and text) beside what is built from it.
    """
    p = Path(path)
    with _file_errors(p), open_binary(p) as f:
        # The bytes since the last line end, as pieces joined once a line end arrives: a
        # line longer than a block (one 100 MB line) is copied once, not once per block
        # (``carry += block`` copied everything before it again each time: quadratic).
        pending: list[bytes] = []
        while True:
            block = f.read(size)
            if not block:
                break
            cut = block.rfind(b"\n") + 1
            if not cut:
                pending.append(block)
                continue
            if pending:
                pending.append(block[:cut])
                yield b"".join(pending)
            else:
                yield block[:cut]
            pending = [block[cut:]] if cut < len(block) else []
        if pending:
            yield b"".join(pending)


def json_problem(exc: json.JSONDecodeError) -> str:
    """A JSON parse error as one whole sentence with its column (the caller names the file
    and line: a JSONL line is parsed on its own). ``json`` leaves some messages where its
    position was to follow ('Unterminated string starting at'); the column completes them."""
    return f"not valid JSON: {exc.msg.removesuffix(' at')} at column {exc.colno}"
