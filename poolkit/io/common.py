"""Small helpers shared by the readers: content hashes and whole-file reads with clear errors."""

from __future__ import annotations

import hashlib
from pathlib import Path

from poolkit.errors import InputError


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes, or an InputError that names it (missing, a directory, empty)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(p, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(p, None, "is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(p, None, f"cannot read: {exc.strerror}") from None
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
