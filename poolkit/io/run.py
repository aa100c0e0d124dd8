"""TREC run files: ``qid Q0 docid rank score tag`` per line.

Order. By default a run is ordered the way trec_eval orders it, ignoring the rank column:
score descending, ties broken by doc id descending (byte order). ``order="rank"`` takes the
rank column (ties by line order) and ``order="file"`` the order of the lines. Columns past
the sixth are ignored, as trec_eval ignores them.

A doc id repeated within one query is kept: it holds its slot, and the scorer counts it.
"""

from __future__ import annotations

import hashlib
import math
from array import array
from codecs import BOM_UTF8
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, groupby, islice
from operator import eq, ge, gt, le
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from poolkit.errors import InputError, PoolkitError, one_of, shown
from poolkit.io.common import iter_chunks, sha256_hex
from poolkit.io.validate import INTEGER, check_id, has_control_bytes, number_of

if TYPE_CHECKING:
    from poolkit.io.run_columns import RunColumns

RUN_ORDERS = {
    "score": "score descending, ties by doc id descending (trec_eval's order; the default)",
    "rank": "the rank column ascending, ties by line order",
    "file": "the order of the lines in the file",
}


@dataclass
class Run:
    """Ranked doc ids per query: ``rankings[qid]`` is a list in rank order (repeats kept).

    ``scores[qid]`` runs parallel to ``rankings[qid]`` when the source had scores (a
    mapping of lists; ``read_run`` gives a :class:`RunScores`, which packs them).
    """

    rankings: MutableMapping[str, list[str]]
    name: str = "<memory>"
    sha256: str = ""
    path: str | None = None
    tag: str | None = None
    scores: MutableMapping[str, list[float]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_mapping(cls, rankings: Mapping[str, Sequence[str]], name: str = "<memory>",
                     scores: Mapping[str, Sequence[float]] | None = None) -> Run:
        ranks = {str(q): [str(d) for d in docs] for q, docs in rankings.items()}
        if scores is None:
            sc = {q: [float(len(d) - i) for i in range(len(d))] for q, d in ranks.items()}
        else:
            sc = {str(q): [float(s) for s in v] for q, v in scores.items()}
        return cls(ranks, name=name, sha256=sha256_hex(run_text(ranks, sc, name).encode()),
                   scores=sc)

    @property
    def query_ids(self) -> list[str]:
        return list(self.rankings)

    @property
    def columns(self) -> RunColumns | None:
        """The run as NumPy columns when it was read so and not changed since (the scorer's
        fast path), else None."""
        r = self.rankings
        return r.columns if isinstance(r, ColumnRankings) and not r.modified else None

    def truncated(self, depth: int) -> Run:
        """The same run cut to its top ``depth`` per query (a fetch list → a keep list)."""
        return Run({q: d[:depth] for q, d in self.rankings.items()}, name=f"{self.name}@{depth}",
                   sha256=self.sha256, path=self.path, tag=self.tag,
                   scores={q: s[:depth] for q, s in self.scores.items()})


class RunScores(MutableMapping[str, list[float]]):
    """``qid -> list of scores``, held as packed doubles until a query's list is asked for.

    A run file of 10M lines has 10M scores; as Python floats in lists they take about 40 bytes
    each, as doubles 8. Scoring never reads them (the order is settled while reading), so
    each query's list is made (once, then kept) only when someone looks at it.
    """

    def __init__(self) -> None:
        self._data: dict[str, array | list[float]] = {}

    def set_packed(self, qid: str, values: array) -> None:
        self._data[qid] = values

    def __getitem__(self, qid: str) -> list[float]:
        value = self._data[qid]
        if isinstance(value, array):
            value = self._data[qid] = value.tolist()
        return value

    def __setitem__(self, qid: str, value: list[float]) -> None:
        self._data[qid] = value

    def __delitem__(self, qid: str) -> None:
        del self._data[qid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, qid: object) -> bool:
        return qid in self._data

    def __repr__(self) -> str:
        return repr(dict(self.items()))


T = TypeVar("T")


class ColumnRankings(MutableMapping[str, list[T]], Generic[T]):
    """``qid -> list`` over a :class:`RunColumns`: a query's list is made (once, then kept)
    only when asked for, so scoring 10M lines never builds 10M Python strings. A write marks
    the mapping ``modified``: the columns no longer describe it."""

    def __init__(self, columns: RunColumns, pick: str) -> None:
        self.columns = columns
        self.modified = False
        self._pick: Callable[[int], list[Any]] = (columns.docs if pick == "docs"
                                                   else columns.score_list)
        self._index = {q: i for i, q in enumerate(columns.qids)}
        self._made: dict[str, list[T]] = {}

    def __getitem__(self, qid: str) -> list[T]:
        made = self._made.get(qid)
        if made is None:
            made = self._made[qid] = self._pick(self._index[qid])  # KeyError if unknown
        return made

    def __setitem__(self, qid: str, value: list[T]) -> None:
        self.modified = True
        if qid not in self._index:
            self._index[qid] = -1
        self._made[qid] = value

    def __delitem__(self, qid: str) -> None:
        self.modified = True
        del self._index[qid]
        self._made.pop(qid, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, qid: object) -> bool:
        return qid in self._index

    def __repr__(self) -> str:
        return repr(dict(self.items()))


def read_run(path: str | Path, order: str = "score", name: str | None = None) -> Run:
    """Read a TREC run file, ordered by ``order`` (see ``RUN_ORDERS``; trec_eval's by default).

    Strict: a line with fewer than 6 columns, a score that is not a number (NaN included) or
    a rank that is not an integer is an InputError naming file and line.

    Speed (10M lines is a normal run file). A plain file (ASCII, six columns on every line)
    is read as NumPy columns (:mod:`poolkit.io.run_columns`): no Python object per line, and
    ``rankings``/``scores`` make a query's lists only when asked for. Any other file, and
    every error, goes through the line-by-line reader below, so both give the same run or
    the same error. That reader parses a block of plain lines by whole-block string
    operations and sends any other block through the careful path; a query whose lines are
    already in the requested order is kept as read; only a query out of order is sorted.
    """
    if order not in RUN_ORDERS:
        raise PoolkitError(one_of(order, RUN_ORDERS, "run order"))
    from poolkit.io.run_columns import read_run_columns  # NumPy: only when a run is read

    fast = read_run_columns(path, order)
    if fast is not None:
        cols, sha, first_tag, _ranks = fast
        docs: ColumnRankings[str] = ColumnRankings(cols, "docs")
        scores: ColumnRankings[float] = ColumnRankings(cols, "scores")
        return Run(docs, name=name or Path(path).name, sha256=sha, path=str(path),
                   tag=first_tag, scores=scores)
    return _read_run_lines(path, order, name)


def _read_run_lines(path: str | Path, order: str, name: str | None) -> Run:
    """The line-by-line reader: every file the columnar path does not take, and every error."""
    want_ranks = order == "rank"
    queries: dict[str, _Query] = {}
    digest = hashlib.sha256()
    tag: str | None = None
    lines = newlines = 0  # before this block: lines as splitlines() counts them, and b"\n"
    blank = True
    for i, raw in enumerate(iter_chunks(path, _BLOCK)):
        digest.update(raw)
        body = raw[len(BOM_UTF8):] if i == 0 and raw.startswith(BOM_UTF8) else raw
        n = raw.count(b"\n")
        block = None
        if body.isascii() and not any(b in body for b in _AWKWARD) \
                and not has_control_bytes(body):
            block = _fast_block(body.decode("ascii"), n + (not raw.endswith(b"\n")), want_ranks)
        if block is None:
            block = _careful_block(path, _decode_block(path, body, newlines), lines, want_ranks)
        qids, docids, scores, ranks, count, first_tag = block
        if qids:
            if tag is None:
                tag = first_tag
            _collect(queries, order, qids, docids, scores, ranks)
        if blank:
            blank = not raw.strip()
        lines += count
        newlines += n
    if blank:
        raise InputError(path, None, "file is empty")
    rankings: dict[str, list[str]] = {}
    scores_by_q = RunScores()
    for qid, q in queries.items():
        docs, scs = q.docids, q.scores
        if not q.in_order:
            if order == "score":
                pairs = sorted(zip(scs, docs), reverse=True)  # ties: doc id descending
                scs = array("d", [p[0] for p in pairs])
                docs = [p[1] for p in pairs]
            elif q.ranks is not None:
                ranks = q.ranks
                idx = sorted(range(len(ranks)), key=ranks.__getitem__)  # ties by line order
                docs = [docs[i] for i in idx]
                scs = array("d", [scs[i] for i in idx])
        rankings[qid] = docs
        scores_by_q.set_packed(qid, scs)
    return Run(rankings, name=name or Path(path).name, sha256=digest.hexdigest(),
               path=str(path), tag=tag, scores=scores_by_q)


# A block is parsed by whole-block operations only when "split at \n, then at spaces and tabs"
# is exactly what splitlines() and split() do: no other line breaks or separators, and no NUL
# (the fast path's line marker).
_BLOCK = 1 << 16  # bytes; small enough that a block's tokens stay in the CPU cache
_AWKWARD = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f", b"\x00")
# (qids, docids, scores, ranks or None, lines in the block, tag of its first line)
_Block = tuple[list[str], list[str], list[float], "list[int] | None", int, "str | None"]


class _Query:
    """One query's rows in line order, and whether they are already in the wanted order."""

    __slots__ = ("docids", "scores", "ranks", "in_order")

    def __init__(self, docids: list[str], scores: list[float], ranks: list[int] | None,
                 in_order: bool) -> None:
        self.docids = docids
        self.scores = array("d", scores)  # packed: the floats of a block are freed with it
        self.ranks = ranks
        self.in_order = in_order


def _fast_block(text: str, n: int, want_ranks: bool) -> _Block | None:
    """Columns of a block of ``n`` lines of 6 columns, or None to send it the careful way.

    Every line end becomes a marker token, so the block is exactly n lines of 6 columns iff
    it splits into 7n tokens with a marker at every 7th place; each column is then a slice.
    """
    toks = text.replace("\n", " \x00 ").split()
    if not text.endswith("\n"):
        toks.append("\x00")
    if len(toks) != 7 * n or toks[6::7].count("\x00") != n:
        return None  # blank lines, extra or missing columns
    score_s, rank_s = toks[4::7], toks[3::7]
    if "_" in "".join(score_s) or "_" in "".join(rank_s):
        return None  # float() and int() take '1_000'; trec_eval does not (see NUMBER)
    try:
        scores = list(map(float, score_s))
        ranks = None
        if want_ranks:
            ranks = list(map(int, rank_s))
        elif not "".join(rank_s).isdigit():  # plain digits are integers: no need to convert
            list(map(int, rank_s))  # only to validate
    except ValueError:
        return None
    total = sum(scores)
    if total != total:  # a NaN somewhere (or inf - inf): the careful path decides
        return None
    return toks[0::7], toks[2::7], scores, ranks, n, toks[5]


def _careful_block(path: str | Path, text: str, line0: int, want_ranks: bool) -> _Block:
    """Columns of a block, line by line: extra columns and blank lines are fine; the first
    malformed line raises an InputError naming file and line (``line0`` lines came before)."""
    qids: list[str] = []
    docids: list[str] = []
    scores: list[float] = []
    ranks: list[int] = []
    tag = None
    lines = text.splitlines()
    for lineno, line in enumerate(lines, start=line0 + 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 6:
            raise InputError(
                path, lineno,
                f"expected 6 columns 'qid Q0 docid rank score tag', found {len(parts)}: "
                f"{shown(line.strip())}",
            )
        qid, _q0, docid, rank_s, score_s = parts[:5]
        check_id(path, lineno, qid, "query id")
        check_id(path, lineno, docid, "doc id")
        score = number_of(score_s)
        if score is None:  # NaN has no place in a sort by score; see NUMBER for the rest
            raise InputError(path, lineno, f"score {score_s!r} is not a number")
        if not INTEGER.match(rank_s):
            raise InputError(path, lineno, f"rank {rank_s!r} is not an integer")
        rank = int(rank_s)
        if tag is None:
            tag = parts[5]
        qids.append(qid)
        docids.append(docid)
        scores.append(score)
        ranks.append(rank)
    return qids, docids, scores, ranks if want_ranks else None, len(lines), tag


def _decode_block(path: str | Path, body: bytes, newlines: int) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = newlines + body[: exc.start].count(b"\n") + 1
        raise InputError(path, line, "not valid UTF-8") from None


def _collect(queries: dict[str, _Query], order: str, qids: list[str], docids: list[str],
             scores: list[float], ranks: list[int] | None) -> None:
    """Append a block's rows to their queries, a run of equal qids at a time (line order
    kept), noting whether each query is still in order: scores strictly descending for
    ``order="score"`` (a tie needs the doc-id tie-break), ranks ascending for ``"rank"``."""
    i = 0
    for qid, group in groupby(qids):
        j = i + len(list(group))
        sc = scores[i:j]
        rk = None if ranks is None else ranks[i:j]
        if order == "score":
            in_order = all(map(gt, sc, islice(sc, 1, None)))
        elif rk is not None:
            in_order = all(map(le, rk, islice(rk, 1, None)))
        else:
            in_order = True
        q = queries.get(qid)
        if q is None:
            queries[qid] = _Query(docids[i:j], sc, rk, in_order)
        else:
            if q.in_order:
                if order == "score":
                    in_order = in_order and q.scores[-1] > sc[0]
                elif rk is not None and q.ranks is not None:
                    in_order = in_order and q.ranks[-1] <= rk[0]
                q.in_order = in_order
            q.docids.extend(docids[i:j])
            q.scores.fromlist(sc)
            if rk is not None and q.ranks is not None:
                q.ranks.extend(rk)
        i = j


def run_text(rankings: Mapping[str, Sequence[str]], scores: Mapping[str, Sequence[float]],
             tag: str) -> str:
    """A TREC run whose lines, read back in trec_eval's order, give exactly ``rankings``.

    Each score is written exactly (``repr``: the shortest text that reads back as the same
    double), never rounded: rounding merges near-equal scores into ties, which trec_eval's
    tie-break (doc id descending) then reorders. See :func:`written_scores` for a ranking
    that its own scores do not order.
    """
    out = []
    tag = "_".join(tag.split()) or "poolkit"
    for qid, docs in rankings.items():
        sc = scores.get(qid)
        if sc is not None and len(sc) >= len(docs):
            given = list(sc[:len(docs)])
        else:
            given = [sc[i] if sc is not None and i < len(sc) else float(len(docs) - i)
                     for i in range(len(docs))]
        for i, (docid, s) in enumerate(zip(docs, written_scores(docs, given))):
            out.append(f"{qid} Q0 {docid} {i + 1} {s!r} {tag}\n")
    return "".join(out)


def written_scores(docs: Sequence[str], scores: Sequence[float]) -> list[float]:
    """The scores to write so that trec_eval's order (score descending, ties by doc id
    descending) reproduces ``docs``' order: each score as given wherever that already holds
    (every ranking poolkit makes, and every run read in score order), else the largest double
    below the previous written score (a rank- or file-ordered run whose scores disagree)."""
    given = [float(s) for s in scores]
    # Fast path (every ranking poolkit makes): scores never rise, and every tie is already
    # in doc id descending order; checked pairwise in C, the ties alone in Python.
    if all(map(ge, given, islice(given, 1, None))) and all(
            docs[i + 1] <= docs[i]
            for i in compress(range(len(given) - 1), map(eq, given, islice(given, 1, None)))):
        return given
    out: list[float] = []
    for i, s in enumerate(given):
        s = float(s)
        if i and not (s < out[-1] or (s == out[-1] and docs[i] <= docs[i - 1])):
            s = math.nextafter(out[-1], -math.inf)
        out.append(s)
    return out


def write_run(run: Run, path: str | Path, tag: str | None = None) -> None:
    """Write ``run`` as a TREC run file, atomically (see :mod:`poolkit.io.atomic`)."""
    from poolkit.io.atomic import write_text

    write_text(path, run_text(run.rankings, run.scores, tag or run.tag or run.name))
