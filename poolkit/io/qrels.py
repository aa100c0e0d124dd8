"""TREC qrels: ``qid iter docid grade`` per line, whitespace separated.

Column 2 (``0`` or ``Q0`` by convention) is ignored for grading, as trec_eval does; where it
holds ``JUDGE@VERSION`` (what ``poolkit export --with-machine`` writes on a machine judge's
line) the pair is kept in ``Qrels.machine``, so no command takes that grade for a person's
unawares (``app.machine_files``). Grades are
integers and may be negative (TREC's -1). A line starting with ``#`` and a space (or a lone
``#``) is a comment; ``#7 0 d1 1`` is data, since ids may start with ``#``. A pair listed
twice with the same grade is tolerated; listed twice with different grades it is an error,
because no reader can know which one was meant.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from urllib.parse import quote, unquote

from poolkit.errors import InputError, shown
from poolkit.io.common import decode, read_bytes, sha256_hex
from poolkit.io.validate import INTEGER as _INT
from poolkit.io.validate import check_id, grade_size_problem, has_control_chars
from poolkit.threads import cache_lock


@dataclass
class Qrels:
    """Judged grades per query: ``grades[qid][docid] -> int``.

    ``name`` and ``sha256`` identify the label set in every report; ``source_lines`` maps
    a (qid, docid) pair to the line it came from, for error messages further down.
    """

    grades: dict[str, dict[str, int]]
    name: str = "<memory>"
    sha256: str = ""
    path: str | None = None
    source_lines: Mapping[tuple[str, str], int] = field(default_factory=dict, repr=False)
    #: (qid, docid) -> ``JUDGE@VERSION``: the pairs the file says a machine judge graded
    machine: Mapping[tuple[str, str], str] = field(default_factory=dict, repr=False)

    @classmethod
    def from_mapping(cls, grades: Mapping[str, Mapping[str, int]], name: str = "<memory>") -> Qrels:
        copy = {str(q): {str(d): int(g) for d, g in docs.items()} for q, docs in grades.items()}
        return cls(copy, name=name, sha256=sha256_hex(qrels_text(copy).encode()))

    def relevant(self, qid: str, level: int = 1) -> set[str]:
        return {d for d, g in self.grades.get(qid, {}).items() if g >= level}

    @property
    def query_ids(self) -> list[str]:
        return list(self.grades)

    def __len__(self) -> int:
        return sum(len(d) for d in self.grades.values())

    def without(self, pairs: Iterable[tuple[str, str]], name: str) -> Qrels:
        """These grades with the given pairs' judgments removed (they become unjudged)."""
        drop: dict[str, set[str]] = {}
        for q, d in pairs:
            drop.setdefault(q, set()).add(d)
        grades = {q: {d: g for d, g in docs.items() if d not in drop.get(q, ())}
                  for q, docs in self.grades.items()}
        return Qrels(grades, name=name, sha256="")


def read_qrels(path: str | Path) -> Qrels:
    """Read a TREC qrels file; strict, with errors naming file and line.

    Speed (a qrels file can hold millions of lines): a file of plain four-column ASCII lines
    is parsed a block at a time by whole-block string operations, a query's grades built by
    one ``dict`` call. Anything else (comments, blank lines, ``#`` anywhere, a bad grade, a
    conflicting repeat) sends the whole file through the careful line-by-line reader, which
    words the error. ``source_lines`` is then computed only if someone asks for it.
    """
    data = read_bytes(path)
    text = decode(path, data)
    grades = _fast_grades(text)
    lines: Mapping[tuple[str, str], int]
    machine: dict[tuple[str, str], str] = {}
    if grades is None:
        grades, lines, machine = _careful_grades(path, text)
    else:
        lines = _SourceLines(path, text)
    if not grades:
        raise InputError(path, None, "no qrels lines found (only comments or blank lines)")
    return Qrels(grades, name=Path(path).name, sha256=sha256_hex(data), path=str(path),
                 source_lines=lines, machine=machine)


#: In column 2, what marks a machine judge's line (``JUDGE@VERSION``; TREC's is ``0``).
MARK = "@"

_BLOCK = 1 << 16  # characters; small enough that a block's tokens stay in the CPU cache
# Characters for which "split at \n, then at spaces and tabs" is not what splitlines() and
# split() do, plus NUL (the fast path's line marker) and '#' (comments need the careful path).
_AWKWARD = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x00", "#")


def _fast_grades(text: str) -> dict[str, dict[str, int]] | None:
    """The grades of a file of plain 4-column lines, or None when it needs the careful path.

    Every line end becomes a marker token, so a block is N lines of 4 columns exactly when it
    splits into 5N tokens with a marker at every 5th place; each column is then a slice.
    """
    if not text.isascii() or any(c in text for c in _AWKWARD) or has_control_chars(text):
        return None
    grades: dict[str, dict[str, int]] = {}
    start = 0
    while start < len(text):
        end = text.find("\n", start + _BLOCK) + 1 or len(text)
        block = text[start:end]
        start = end
        n = block.count("\n")
        toks = block.replace("\n", " \x00 ").split()
        if not block.endswith("\n"):
            toks.append("\x00")
            n += 1
        if len(toks) != 5 * n or toks[4::5].count("\x00") != n:
            return None  # blank lines, or a line without exactly 4 columns
        if any(MARK in it for it in set(toks[1::5])):
            return None  # a machine judge's line: the careful path keeps the mark
        grade_s = toks[3::5]
        if not "".join(grade_s).isdigit() and not all(map(_INT.match, grade_s)):
            return None
        if max(map(len, grade_s), default=0) > 9:
            return None  # maybe a grade out of range: the careful path words the error
        qids, docids, values = toks[0::5], toks[2::5], list(map(int, grade_s))
        i = 0
        for qid, group in groupby(qids):
            j = i + len(list(group))
            docs = dict(zip(docids[i:j], values[i:j]))
            if len(docs) == j - i and qid not in grades:  # the usual case: a new query
                grades[qid] = docs
            else:  # repeats a pair, or continues a query seen before
                known = grades.setdefault(qid, {})
                for docid, grade in zip(docids[i:j], values[i:j]):
                    if known.setdefault(docid, grade) != grade:
                        return None  # conflicting grades: the careful path words the error
            i = j
    return grades


def _careful_grades(path: str | Path, text: str,
                    ) -> tuple[dict[str, dict[str, int]], dict[tuple[str, str], int],
                               dict[tuple[str, str], str]]:
    """Grades, the line of each (qid, docid) and the machine judge column 2 names, line by
    line; the first bad line raises."""
    grades: dict[str, dict[str, int]] = {}
    lines: dict[tuple[str, str], int] = {}
    machine: dict[tuple[str, str], str] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts or parts[0] == "#" or line.lstrip().startswith("# "):
            continue
        if len(parts) != 4:
            raise InputError(
                path, lineno,
                f"expected 4 columns 'qid iter docid grade', found {len(parts)}: "
                f"{shown(line.strip())}",
            )
        qid, iteration, docid, grade_s = parts
        add_graded_line(grades, lines, path, lineno, qid, docid, grade_s,
                        "grade {!r} is not an integer")
        if MARK in iteration:
            machine.setdefault((qid, docid), unquote(iteration))
    return grades, lines, machine


def add_graded_line(grades: dict[str, dict[str, int]], lines: dict[tuple[str, str], int],
                    path: str | Path, lineno: int, qid: str, docid: str, grade_s: str,
                    not_integer: str) -> None:
    """One qrels line's rules, for every qrels format: valid ids, an integer grade (else
    ``not_integer``, formatted with the text, is the error), and a pair listed again only
    with the same grade (the repeat is ignored; a different grade is an error naming both
    lines)."""
    check_id(path, lineno, qid, "query id")
    check_id(path, lineno, docid, "doc id")
    if not _INT.match(grade_s):
        raise InputError(path, lineno, not_integer.format(grade_s))
    grade = int(grade_s)
    too_large = grade_size_problem(grade)
    if too_large is not None:
        raise InputError(path, lineno, f"query {qid!r} doc {docid!r}: {too_large}")
    docs = grades.setdefault(qid, {})
    if docid in docs:
        if docs[docid] != grade:
            raise InputError(path, lineno, f"query {qid!r} doc {docid!r} graded {grade} here "
                                           f"but {docs[docid]} on line {lines[(qid, docid)]}")
        return
    docs[docid] = grade
    lines[(qid, docid)] = lineno


class _SourceLines(Mapping[tuple[str, str], int]):
    """``(qid, docid) -> line`` of a qrels text, built on first use (most runs never ask, and
    a dict with a tuple key per line costs more time and memory than the grades)."""

    def __init__(self, path: str | Path, text: str) -> None:
        self._path = path
        self._text: str | None = text
        self._lines: dict[tuple[str, str], int] = {}

    def _index(self) -> dict[tuple[str, str], int]:
        if self._text is not None:
            with cache_lock:  # runs scored on threads may ask at once
                if self._text is not None:
                    self._lines = _careful_grades(self._path, self._text)[1]
                    self._text = None
        return self._lines

    def __getitem__(self, key: tuple[str, str]) -> int:
        return self._index()[key]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._index())

    def __len__(self) -> int:
        return len(self._index())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._index()!r})"


def machine_mark(judge: str, version: str) -> str:
    """Column 2 of machine judge ``judge``'s line: ``JUDGE@VERSION`` as one token (a space in
    a judge's name, or a ``%``, percent-encoded; the reader decodes it)."""
    return "".join(quote(c, safe="") if c.isspace() or c == "%" else c
                   for c in f"{judge}{MARK}{version}")


def qrels_text(grades: Mapping[str, Mapping[str, int]],
               machine: Mapping[str, Mapping[str, str]] | None = None) -> str:
    """The qrels lines; ``machine[qid][docid]`` (``machine_mark``) goes in column 2 of a
    machine judge's line in place of ``0`` (every qrels reader, trec_eval's too, skips that
    column), so the file itself says which grades are a machine's."""
    out = []
    for qid, docs in grades.items():
        marks = (machine or {}).get(qid, {})
        for docid, grade in docs.items():
            out.append(f"{qid} {marks.get(docid, 0)} {docid} {grade}\n")
    return "".join(out)


def write_qrels(grades: Mapping[str, Mapping[str, int]] | Qrels, path: str | Path) -> None:
    if isinstance(grades, Qrels):
        grades = grades.grades
    from poolkit.io.atomic import write_text

    write_text(path, qrels_text(grades))
