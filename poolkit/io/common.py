"""Small helpers shared by the readers: content hashes and whole-file reads with clear errors.

Every read goes through :func:`open_binary`, which sees through gzip, bzip2 and xz by their
magic bytes (not the file name), so every reader takes compressed files. Hashes are of the
content, so a file and its compressed copy hash alike.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from poolkit.errors import InputError

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
        raise InputError(p, None, f"cannot read: {exc.strerror}") from None
    except Exception as exc:
        # lzma and zlib (gzip's inflater) are imported only when such a file was opened;
        # their own error classes are not OSErrors.
        damaged = tuple(getattr(sys.modules.get(m), e, None) for m, e in (
            ("lzma", "LZMAError"), ("zlib", "error")))
        if isinstance(exc, tuple(cls for cls in damaged if isinstance(cls, type))):
            raise InputError(p, None, f"compressed file is damaged: {exc}") from None
        raise


def compression_of(head: bytes) -> str | None:
    """'gzip', 'bzip2' or 'xz' when ``head`` (a file's first bytes) starts with its magic."""
    for magic, (name, _module) in COMPRESSIONS.items():
        if head.startswith(magic):
            return name
    return None


def open_binary(p: Path) -> IO[bytes]:
    """``p`` opened for reading bytes, decompressed when its content is gzip, bzip2 or xz."""
    with p.open("rb") as f:
        head = f.read(6)
    for magic, (_name, module) in COMPRESSIONS.items():
        if head.startswith(magic):
            return importlib.import_module(module).open(p, "rb")  # type: ignore[no-any-return]
    return p.open("rb")


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
