"""A corpus read again without parsing it again: the snapshot in ``cache_dir``.

Parsing a million-line corpus (a ``json.loads`` per line, every id checked) and hashing its
content take seconds; reading and hashing its bytes takes a fraction of one. So once a corpus
file has been parsed in full and found valid, ``load_corpus`` keeps a snapshot of what the
parse found, named by the SHA-256 of the file's (decompressed) bytes:
``corpus-<bytes hash>/`` holding

- ``ids.txt``: the ids, one a line (an id holds no whitespace, so none holds a newline);
- ``lines.npy``: each document's line as (start, end) byte offsets into the file's bytes;
- ``snapshot.json``, written last: the bytes hash, the content hash (``Corpus.sha256``), the
  number of documents and the SHA-256 of the two files above.

A later read hashes the file's bytes; when a snapshot of exactly those bytes checks out
(every hash and shape), the corpus is its ids and content hash, and a passage's title and
text are parsed from its own line only when some stage asks for it. Any other outcome
(no snapshot, another file, a damaged or partial snapshot) is a full parse, with every check
the reader makes, and a new snapshot. The bytes the passages are parsed from are the bytes
that were hashed (held in memory), so the file changing meanwhile cannot leak in.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np

from poolkit.errors import PoolkitError
from poolkit.io.common import read_bytes
from poolkit.io.corpus import Corpus, parse_corpus

FORMAT = 1  # the snapshot layout; a change makes every old snapshot a miss
MANIFEST = "snapshot.json"


def load_corpus(path: str | Path, cache_dir: str | Path | None,
                ) -> tuple[Corpus, Callable[[], None]]:
    """The corpus in ``path``: from its snapshot in ``cache_dir`` when one of exactly these
    bytes checks out, else parsed in full; and what writes the snapshot of a full parse
    (nothing after a hit, or without ``cache_dir``). Call that once the command has
    succeeded: a command refused for bad input leaves nothing new on disk."""
    data = read_bytes(path)
    digest = hashlib.sha256(data).hexdigest()
    folder = Path(cache_dir) / f"corpus-{digest[:16]}" if cache_dir is not None else None
    if folder is not None:
        corpus = _load(folder, digest, path, data)
        if corpus is not None:
            return corpus, _nothing
    corpus, linenos = parse_corpus(path, data)
    if folder is None:
        return corpus, _nothing
    spans = _line_spans(data, linenos)  # now: the file's bytes are not kept for the write

    def save() -> None:
        try:
            _save(folder, digest, corpus, spans)
        except (OSError, PoolkitError):
            pass  # a cache that cannot be written costs the next read a parse, nothing else

    return corpus, save


def _nothing() -> None:
    return None


def _line_spans(data: bytes, linenos: list[int]) -> np.ndarray:
    """(start, end) byte offsets of the given 1-based lines, "\\n" excluded (a UTF-8 "\\n"
    byte is always the character, so these are the lines the reader split)."""
    lengths = np.fromiter(map(len, data.split(b"\n")), dtype=np.int64)
    ends = np.cumsum(lengths + 1) - 1
    starts = ends - lengths
    if data.startswith(codecs.BOM_UTF8):
        starts[0] += len(codecs.BOM_UTF8)  # decoding as utf-8-sig drops it
    rows = np.asarray(linenos, dtype=np.int64) - 1
    return np.stack([starts[rows], ends[rows]], axis=1) if len(rows) else \
        np.zeros((0, 2), dtype=np.int64)


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _save(folder: Path, digest: str, corpus: Corpus, spans: np.ndarray) -> None:
    from poolkit.io.atomic import check_writable_folder, write_bytes, write_text

    check_writable_folder(folder)
    ids = "\n".join(corpus.ids).encode()
    lines = _npy_bytes(spans)
    write_bytes(folder / "ids.txt", ids)
    write_bytes(folder / "lines.npy", lines)
    manifest = {"format": FORMAT, "bytes_sha256": digest, "sha256": corpus.sha256,
                "docs": len(corpus), "ids_sha256": hashlib.sha256(ids).hexdigest(),
                "lines_sha256": hashlib.sha256(lines).hexdigest()}
    write_text(folder / MANIFEST, json.dumps(manifest, indent=2) + "\n")


def _load(folder: Path, digest: str, path: str | Path, data: bytes) -> Corpus | None:
    """The corpus from ``folder``'s snapshot, or None when it is missing or does not check
    out in every part (never trusted half-way)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        ids_bytes = (folder / "ids.txt").read_bytes()
        lines_bytes = (folder / "lines.npy").read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or any(manifest.get(k) != v for k, v in (
            ("format", FORMAT), ("bytes_sha256", digest),
            ("ids_sha256", hashlib.sha256(ids_bytes).hexdigest()),
            ("lines_sha256", hashlib.sha256(lines_bytes).hexdigest()))):
        return None
    sha256, n_docs = manifest.get("sha256"), manifest.get("docs")
    try:
        spans = np.load(io.BytesIO(lines_bytes), allow_pickle=False)
        ids = ids_bytes.decode("utf-8").split("\n") if ids_bytes else []
    except (OSError, ValueError):
        return None
    if (not isinstance(sha256, str) or not isinstance(n_docs, int) or len(ids) != n_docs
            or spans.dtype != np.int64 or spans.shape != (n_docs, 2)
            or (n_docs and (spans.min() < 0 or spans.max() > len(data)
                            or bool((spans[:, 0] > spans[:, 1]).any())))):
        return None
    rows = _Rows(data, spans)
    return Corpus(ids, _Column(rows, 0), _Column(rows, 1), path=str(path),
                  known_sha256=sha256)


class _Rows:
    """Each document's (title, text), parsed from its own line of the file's bytes when
    asked for; the last one is kept, as a passage asks for both halves in turn."""

    def __init__(self, data: bytes, spans: np.ndarray) -> None:
        self.data = data
        self.spans = spans
        self.last: tuple[int, tuple[str, str]] = (-1, ("", ""))

    def __len__(self) -> int:
        return len(self.spans)

    def __getitem__(self, i: int) -> tuple[str, str]:
        if self.last[0] == i:
            return self.last[1]
        start, end = int(self.spans[i, 0]), int(self.spans[i, 1])
        obj: dict[str, Any] = json.loads(self.data[start:end].decode("utf-8").rstrip("\r"))
        # The parse that made the snapshot checked these: a string, or a title absent/null.
        row = (obj.get("title") or "", obj["text"])
        self.last = (i, row)
        return row


class _Column(Sequence[str]):
    """The titles (``field`` 0) or texts (1) of a snapshot's documents, materialised on
    access."""

    def __init__(self, rows: _Rows, field: int) -> None:
        self.rows = rows
        self.field = field

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self.rows[j][self.field] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.rows[i][self.field]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]
