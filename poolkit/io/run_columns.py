"""A TREC run held as columns (NumPy arrays), read without one Python object per line.

A run file of 10M lines is the normal input of ``poolkit score``; as Python strings and lists
its doc ids alone take about 650 MB and most of the time. Here the file is read in large
blocks, each block cut into tokens by vectorised byte operations, and the run is kept as:

* ``qids``: the query ids in order of first appearance;
* ``starts``: query ``i``'s rows are ``starts[i]:starts[i + 1]``, already in the requested order;
* ``docids``: fixed-width byte strings (``S<w>``: NUL-padded, which is exact because a doc id
  on this path never holds a NUL);
* ``scores``: float64, equal to Python's ``float`` of the text (see :func:`_parse_decimals`).

Only plain files take this path: ASCII, spaces or tabs between columns, exactly six columns
on every line, no blank lines, no control characters, every score a number and every rank an
integer. :func:`read_run_columns` returns None for anything else, and the caller reads the
file with the line-by-line reader, which words the error (file and line) or accepts what this
path does not handle; so both paths give the same run or the same error, by construction.
"""

from __future__ import annotations

import hashlib
import re
from codecs import BOM_UTF8
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from poolkit.io.common import iter_chunks
from poolkit.threads import ordered_imap, ordered_map, part_jobs

_BLOCK = 1 << 21  # bytes per block: large enough for NumPy to pay, small enough that the
# block's temporaries stay in the cache and are reused (larger blocks only cost page faults)
_MAX_WIDTH = 256  # wider tokens go the line-by-line way (a matrix row per token is this wide)
_SPACES = re.compile(rb"[ \t]+")
_EDGE_SPACES = re.compile(rb"(?m)^ | $")


@dataclass
class RunColumns:
    """One run's rows, grouped by query and ordered within each (see the module docstring)."""

    qids: list[str]
    starts: np.ndarray  # int64, len(qids) + 1
    docids: np.ndarray  # S<w>
    scores: np.ndarray  # float64
    _hashes: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.docids)

    def docs(self, i: int) -> list[str]:
        """Query ``i``'s doc ids as Python strings, in rank order."""
        return [d.decode("ascii") for d in self.docids[self.starts[i]:self.starts[i + 1]].tolist()]

    def score_list(self, i: int) -> list[float]:
        return self.scores[self.starts[i]:self.starts[i + 1]].tolist()  # type: ignore[no-any-return]

    def lengths(self) -> np.ndarray:
        return np.diff(self.starts)

    def hashes(self) -> np.ndarray:
        """A 64-bit hash of every doc id (cached; every evaluation of this run shares it)."""
        if self._hashes is None:
            self._hashes = bytes_hashes(self.docids)
        return self._hashes


def bytes_hashes(values: np.ndarray, chunk: int = 1 << 20) -> np.ndarray:
    """A 64-bit hash of each fixed-width byte string (equal strings, equal hashes).

    Only ever used to find candidates: every match it suggests is checked on the bytes.
    Computed ``chunk`` strings at a time (on threads), so the temporaries stay small."""
    n = len(values)
    w = values.dtype.itemsize
    words = -(-w // 8)
    out = np.empty(n, np.uint64)
    raw = np.ascontiguousarray(values).view(np.uint8).reshape(n, w)

    def hash_rows(a: int) -> None:
        b = min(a + chunk, n)
        if w % 8:
            mat = np.zeros((b - a, words * 8), np.uint8)
            mat[:, :w] = raw[a:b]
        else:  # already whole 64-bit words: read them in place
            mat = raw[a:b]
        cols = mat.view(np.uint64)
        h = cols[:, 0].copy()
        for j in range(1, words):
            h *= np.uint64(0x9E3779B97F4A7C15)
            h ^= cols[:, j]
        out[a:b] = mix64(h)

    ordered_map(hash_rows, range(0, n, chunk), part_jobs())
    return out


def mix64(h: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser, in place: spreads every input bit over the output."""
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


def read_run_columns(path: str | Path,
                     order: str) -> tuple[RunColumns, str, str, np.ndarray | None] | None:
    """(columns, sha256, tag of the first line, ranks or None) or None (see module docstring).

    Ranks are returned only for ``order="rank"`` (in the columns' order)."""
    digest = hashlib.sha256()
    want_ranks = order == "rank"
    store = _Columns(Path(path).stat().st_size if Path(path).is_file() else 0)
    run_qids: list[bytes] = []  # consecutive lines of one query form a run
    run_lengths: list[int] = []
    tag: str | None = None

    def bodies() -> Iterator[bytes]:  # read and hashed in order, on this thread
        for i, raw in enumerate(iter_chunks(path, _BLOCK)):
            digest.update(raw)
            yield raw[len(BOM_UTF8):] if i == 0 and raw.startswith(BOM_UTF8) else raw

    jobs = part_jobs()  # NumPy's loops let go of the GIL: blocks parse side by side
    with closing(ordered_imap(partial(_block_rows, want_ranks=want_ranks), bodies(), jobs,
                              ahead=2 * jobs)) as blocks:
        for block in blocks:
            if block is None:
                return None
            names, lengths, docids, scores, ranks, first_tag, size = block
            if tag is None:
                tag = first_tag
            if run_qids and names[0] == run_qids[-1]:  # a query going on across blocks
                run_lengths[-1] += lengths.pop(0)
                names.pop(0)
            run_qids += names
            run_lengths += lengths
            store.append(docids, scores, ranks, size)
    if tag is None:
        return None  # empty file: the line-by-line reader says so
    docids, scores, ranks = store.arrays()

    # Group rows by query (first appearance order), keeping line order within a query.
    index: dict[str, int] = {}
    run_index = [index.setdefault(q.decode("ascii"), len(index)) for q in run_qids]
    query_ids = list(index)
    if len(query_ids) != len(run_qids):  # some query's lines are not together: regroup, stably
        qidx = np.repeat(np.array(run_index, np.int64), run_lengths)
        perm = np.argsort(qidx, kind="stable")
        docids, scores = docids[perm], scores[perm]
        if ranks is not None:
            ranks = ranks[perm]
        counts = np.bincount(qidx, minlength=len(query_ids))
        del qidx, perm
    else:
        counts = np.array(run_lengths, np.int64)
    starts = np.zeros(len(query_ids) + 1, np.int64)
    np.cumsum(counts, out=starts[1:])
    cols = RunColumns(query_ids, starts, docids, scores)
    _order_within_queries(cols, order, ranks)
    return cols, digest.hexdigest(), tag, ranks


class _Columns:
    """Growable doc id, score (and rank) columns, allocated once for the file's likely row
    count (pages never written cost no memory), so the run is never held twice."""

    def __init__(self, file_size: int) -> None:
        self.file_size = file_size
        self.n = 0
        self.bytes_seen = 0
        self.docids: np.ndarray | None = None
        self.scores = np.zeros(0)
        self.ranks: np.ndarray | None = None

    def append(self, docids: np.ndarray, scores: np.ndarray, ranks: np.ndarray | None,
               size: int) -> None:
        self.bytes_seen += size
        end = self.n + len(docids)
        width = docids.dtype.itemsize
        if self.docids is None or end > len(self.docids) or width > self.docids.dtype.itemsize:
            # Room for the rest of the file at this block's bytes per line, and a margin.
            rest = max(self.file_size - self.bytes_seen, 0)
            capacity = end + int(rest / max(size, 1) * len(docids) * 1.25) + 1024
            self.docids = _grown(self.docids, self.n, capacity,
                                 max(width, 0 if self.docids is None else
                                     self.docids.dtype.itemsize))
            self.scores = _grown(self.scores, self.n, capacity, 0)
            if ranks is not None:
                self.ranks = _grown(self.ranks, self.n, capacity, 0, np.int64)
        self.docids[self.n:end] = docids
        self.scores[self.n:end] = scores
        if ranks is not None and self.ranks is not None:
            self.ranks[self.n:end] = ranks
        self.n = end

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        assert self.docids is not None
        n = self.n
        return (self.docids[:n], self.scores[:n],
                None if self.ranks is None else self.ranks[:n])


def _grown(old: np.ndarray | None, n: int, capacity: int, width: int,
           dtype: type = np.float64) -> np.ndarray:
    new = np.empty(capacity, f"S{width}" if width else dtype)
    if old is not None and n:
        new[:n] = old[:n]
    return new


def _order_within_queries(cols: RunColumns, order: str, ranks: np.ndarray | None) -> None:
    """Sort, in place, the rows not already in ``order`` (most files are written in it).

    ``score``: score descending, ties by doc id descending (byte order), equal rows in line
    order, exactly as ``sorted(zip(scores, docids), reverse=True)``. ``rank``: the rank
    column ascending, ties in line order.

    Only what is out of order is sorted: a query whose scores rise somewhere is sorted by
    score (a numeric sort), and then only the groups of tied scores whose doc ids do not
    descend are sorted by doc id. Runs written with 4-decimal scores tie often, and most
    writers break ties by doc id ascending, so sorting every such query whole by (score,
    doc id) cost more than reading the file."""
    n = len(cols.scores)
    if n < 2 or order == "file":
        return
    boundary = cols.starts[1:-1] - 1  # a query's last row (its link to the next query)
    if order == "rank":
        assert ranks is not None
        bad = ranks[1:] < ranks[:-1]
        bad[boundary] = False
        if bad.any():
            rows, qrow = _rows_of(cols.starts, _queries_at(cols.starts, bad))
            picked = rows[np.lexsort((ranks[rows], qrow))]
            ranks[rows] = ranks[picked]
            _move(cols, rows, picked)
        return
    scores = cols.scores
    rising = scores[1:] > scores[:-1]
    rising[boundary] = False
    if rising.any():  # stable by score descending (ties keep line order, fixed below)
        rows, qrow = _rows_of(cols.starts, _queries_at(cols.starts, rising))
        _move(cols, rows, rows[np.lexsort((-scores[rows], qrow))])
    tie = scores[1:] == scores[:-1]
    tie[boundary] = False
    links = np.flatnonzero(tie)  # row i tied to row i + 1 (few, however long the run)
    wrong = links[cols.docids[links + 1] > cols.docids[links]]
    if not len(wrong):
        return
    # Groups of tied rows: each run of consecutive links i..j ties rows i..j + 1.
    first = np.flatnonzero(np.concatenate(([True], np.diff(links) != 1)))
    lo, hi = links[first], links[np.append(first[1:], len(links)) - 1] + 2
    groups = np.unique(np.searchsorted(lo, wrong, side="right") - 1)
    rows, grow = _ranges(lo[groups], hi[groups])
    # Stable descending by doc id within each group: reverse, sort ascending on
    # (-group, doc id), reverse back (equal rows keep line order).
    rev = rows[::-1]
    picked = rev[np.lexsort((cols.docids[rev], -grow[::-1]))][::-1]
    _move(cols, rows, picked)


def _queries_at(starts: np.ndarray, links: np.ndarray) -> np.ndarray:
    """The queries holding the rows ``i`` where ``links[i]`` (a link from row i to i + 1)."""
    return np.unique(np.searchsorted(starts, np.flatnonzero(links), side="right") - 1)


def _rows_of(starts: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every row of ``queries``, and the query of each."""
    return _ranges(starts[queries], starts[queries + 1], queries)


def _ranges(lo: np.ndarray, hi: np.ndarray,
            labels: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The rows ``lo[j]:hi[j]`` for every j, concatenated, and each row's label (``labels[j]``,
    by default j), without a Python loop over the ranges."""
    sizes = hi - lo
    label = np.repeat(np.arange(len(lo)) if labels is None else labels, sizes)
    offsets = np.repeat(lo - np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes)
    return np.arange(int(sizes.sum())) + offsets, label


def _move(cols: RunColumns, rows: np.ndarray, picked: np.ndarray) -> None:
    cols.docids[rows] = cols.docids[picked]
    cols.scores[rows] = cols.scores[picked]


_Parsed = tuple[np.ndarray, np.ndarray, np.ndarray, "np.ndarray | None", str]
_Rows = tuple[list[bytes], list[int], np.ndarray, np.ndarray, "np.ndarray | None", str, int]


def _block_rows(body: bytes, want_ranks: bool) -> _Rows | None:
    """A block's rows, on a worker thread: (query of each run of consecutive lines, the
    run's length, doc ids, scores, ranks or None, tag of the first line, bytes), or None."""
    block = _parse_block(body, want_ranks)
    if block is None:
        return None
    qids, docids, scores, ranks, tag = block
    change = np.flatnonzero(qids[1:] != qids[:-1]) + 1
    bounds = np.concatenate(([0], change, [len(qids)]))
    return (qids[bounds[:-1]].tolist(), np.diff(bounds).tolist(), docids, scores, ranks, tag,
            len(body))


def _parse_block(body: bytes, want_ranks: bool) -> _Parsed | None:
    """(qids, docids, scores, ranks, tag of the first line) of a block, or None."""
    if not body.isascii() or b"\x7f" in body:
        return None
    if not body.endswith(b"\n"):
        body += b"\n"
    buf = np.frombuffer(body, np.uint8)
    sep = np.flatnonzero(buf <= 32)
    if not _regular(buf, sep):
        # Tabs, runs of spaces, spaces at a line's ends: make them single spaces (the line
        # breaks stay where they are), then the block must be regular.
        if b"\n\n" in body or body.startswith(b"\n"):
            return None  # blank lines
        body = _EDGE_SPACES.sub(b"", _SPACES.sub(b" ", body))
        buf = np.frombuffer(body, np.uint8)
        sep = np.flatnonzero(buf <= 32)
        if not _regular(buf, sep):
            return None
    if len(sep) % 6:
        return None
    lines = len(sep) // 6
    ends = sep.reshape(lines, 6)
    if not (buf[ends[:, 5]] == 10).all() or np.count_nonzero(buf[sep] == 10) != lines:
        return None  # some line has more or fewer than 6 columns
    padded = np.concatenate((buf, np.zeros(_MAX_WIDTH + 1, np.uint8)))
    starts0 = np.empty(lines, np.int64)
    starts0[0] = 0
    starts0[1:] = ends[:-1, 5] + 1
    token_starts = {0: starts0, **{k: ends[:, k - 1] + 1 for k in (2, 3, 4)}}
    mats = {}
    for k, st in token_starts.items():
        mat = _matrix(padded, st, ends[:, k] - st)
        if mat is None:
            return None
        mats[k] = mat
    rank_values = _parse_integers(*mats[3], want_ranks)
    if rank_values is None:
        return None
    scores = _parse_decimals(*mats[4])
    if scores is None:
        return None
    tag = body[int(ends[0, 4]) + 1:int(ends[0, 5])].decode("ascii")
    return (_as_bytes(*mats[0]), _as_bytes(*mats[2]), scores,
            rank_values if want_ranks else None, tag)


def _regular(buf: np.ndarray, sep: np.ndarray) -> bool:
    """Whether every byte <= 32 is a space or a line feed, no two are adjacent and none
    starts the block: then the separators alone delimit the tokens."""
    if not len(sep) or sep[0] == 0:
        return False
    chars = buf[sep]
    if not ((chars == 32) | (chars == 10)).all():
        return False  # tabs or control characters
    return not (np.diff(sep) == 1).any()


def _matrix(padded: np.ndarray, starts: np.ndarray,
            lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Each token as a row of a (rows, widest + 1) uint8 matrix: its bytes, then whatever
    follows it (the caller reads a row only up to the token's length), and its lengths."""
    width = int(lengths.max())
    if width > _MAX_WIDTH:
        return None
    view = np.lib.stride_tricks.as_strided(padded, shape=(len(padded) - width, width + 1),
                                           strides=(1, 1), writeable=False)
    return view[starts], lengths


def _as_bytes(mat: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The tokens as NUL-padded fixed-width byte strings."""
    width = mat.shape[1] - 1
    out = np.ascontiguousarray(mat[:, :width])
    if int(lengths.min()) != width:
        out[np.arange(width) >= lengths[:, None]] = 0
    return out.view(f"S{width}").ravel()


def _parse_integers(mat: np.ndarray, lengths: np.ndarray,
                    want_values: bool) -> np.ndarray | None:
    """Checks every token is ``[+-]?[0-9]+`` of at most 18 digits; their values when wanted
    (else an empty array); None when a token is not such an integer."""
    width = mat.shape[1] - 1
    digit = (mat - np.uint8(48)) < 10
    signed = (mat[:, 0] == 43) | (mat[:, 0] == 45)
    # Each token is followed by a separator (not a digit): its first non-digit after an
    # optional sign must be at its length.
    first_other = np.argmin(digit[:, 1:], axis=1) + 1
    if not ((first_other == lengths) & (digit[:, 0] | (signed & (lengths > 1)))).all():
        return None
    if width > 18 + signed.any():
        return None
    if not want_values:
        return np.zeros(0, np.int64)
    value = np.zeros(len(mat), np.int64)
    for j in range(width):
        d = digit[:, j] & (j < lengths)
        value = np.where(d, value * 10 + mat[:, j].astype(np.int64) - 48, value)
    return np.where(mat[:, 0] == 45, -value, value)


def _parse_decimals(mat: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """float64 of every score token, each equal to Python's ``float(token)``; None when a
    token is not a number (NaN included: the line-by-line reader words the error).

    ``[+-]?digits[.digits]`` with at most 15 digits is computed as mantissa / 10**fraction:
    both are exact doubles, so one IEEE division rounds the exact decimal value correctly,
    which is what ``float`` returns (the classic fast path of decimal conversion). Longer
    plain decimals (17-digit reprs) go through NumPy's correctly rounded string conversion,
    anything else (exponents, inf) through ``float`` itself.
    """
    n, width = mat.shape[0], mat.shape[1] - 1
    cols = np.ascontiguousarray(mat[:, :width].T)  # one contiguous row per character place
    inside = np.arange(width)[:, None] < lengths
    sign = (cols[0] == 43) | (cols[0] == 45)
    digit = ((cols - np.uint8(48)) < 10) & inside
    dot = (cols == 46) & inside
    ndig = np.count_nonzero(digit, axis=0)
    ndot = np.count_nonzero(dot, axis=0)
    plain = (ndig + ndot + sign == lengths) & (ndot <= 1) & (ndig >= 1)
    fast = plain & (ndig <= 15)
    # The digits as one integer (exact below 2**53, which 15 digits are), as float64.
    mant = np.zeros(n)
    for j in range(width):
        d = digit[j]
        np.multiply(mant, 10.0, out=mant, where=d)
        np.add(mant, cols[j] - np.uint8(48), out=mant, where=d)
    frac = np.where(ndot > 0, lengths - 1 - np.argmax(dot, axis=0), 0)
    values = mant / np.power(10.0, frac)
    np.negative(values, out=values, where=cols[0] == 45)
    if fast.all():
        return values
    slow = np.flatnonzero(~fast)
    tokens = _as_bytes(mat[slow], lengths[slow])
    long_plain = plain[slow]
    if long_plain.any():
        try:
            values[slow[long_plain]] = tokens[long_plain].astype(np.float64)
        except ValueError:
            return None
    for i, tok in zip(slow[~long_plain].tolist(), tokens[~long_plain].tolist()):
        if b"_" in tok:
            return None  # float() takes '1_000', trec_eval does not (validate.NUMBER)
        try:
            v = float(tok)
        except ValueError:
            return None
        if v != v:
            return None
        values[i] = v
    return values
