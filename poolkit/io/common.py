"""Small helpers shared by the readers: content hashes and whole-file reads with clear errors."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from poolkit.errors import InputError


@contextmanager
def _file_errors(p: Path) -> Iterator[None]:
    """Turn the OS's errors on opening or reading ``p`` into InputErrors that name it."""
    try:
        yield
    except FileNotFoundError:
        raise InputError(p, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(p, None, "is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(p, None, f"cannot read: {exc.strerror}") from None


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes, or an InputError that names it (missing, a directory, empty)."""
    p = Path(path)
    with _file_errors(p):
        data = p.read_bytes()
    if not data.strip():
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
    with _file_errors(p), p.open("rb") as f:
        carry = b""
        while True:
            block = f.read(size)
            if not block:
                break
            cut = block.rfind(b"\n") + 1
            if not cut:
                carry += block
                continue
            yield carry + block[:cut] if carry else block[:cut]
            carry = block[cut:]
        if carry:
            yield carry
