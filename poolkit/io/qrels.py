"""TREC qrels: ``qid iter docid grade`` per line, whitespace separated.

Column 2 (``0`` or ``Q0`` by convention) is read and ignored, as trec_eval does. Grades are
integers and may be negative (TREC's -1). A line starting with ``#`` and a space (or a lone
``#``) is a comment; ``#7 0 d1 1`` is data, since ids may start with ``#``. A pair listed twice with the same grade is
tolerated; listed twice with different grades it is an error, because no reader can know
which one was meant.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import re
from dataclasses import dataclass, field
from pathlib import Path

from poolkit.errors import InputError
from poolkit.io.common import decode, read_bytes, sha256_hex

_INT = re.compile(r"[+-]?[0-9]+\Z")


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
    source_lines: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)

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


def read_qrels(path: str | Path) -> Qrels:
    data = read_bytes(path)
    text = decode(path, data)
    grades: dict[str, dict[str, int]] = {}
    lines: dict[tuple[str, str], int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts or parts[0] == "#" or line.lstrip().startswith("# "):
            continue
        if len(parts) != 4:
            raise InputError(
                path, lineno,
                f"expected 4 columns 'qid iter docid grade', found {len(parts)}: {line.strip()!r}",
            )
        qid, _iter, docid, grade_s = parts
        if not _INT.match(grade_s):  # int() would also take '1_0' and non-ASCII digits
            raise InputError(path, lineno, f"grade {grade_s!r} is not an integer")
        grade = int(grade_s)
        docs = grades.setdefault(qid, {})
        if docid in docs:
            if docs[docid] != grade:
                raise InputError(
                    path, lineno,
                    f"query {qid!r} doc {docid!r} graded {grade} here but {docs[docid]} "
                    f"on line {lines[(qid, docid)]}",
                )
            continue
        docs[docid] = grade
        lines[(qid, docid)] = lineno
    if not grades:
        raise InputError(path, None, "no qrels lines found (only comments or blank lines)")
    return Qrels(grades, name=Path(path).name, sha256=sha256_hex(data), path=str(path),
                 source_lines=lines)


def qrels_text(grades: Mapping[str, Mapping[str, int]]) -> str:
    out = []
    for qid, docs in grades.items():
        for docid, grade in docs.items():
            out.append(f"{qid} 0 {docid} {grade}\n")
    return "".join(out)


def write_qrels(grades: Mapping[str, Mapping[str, int]] | Qrels, path: str | Path) -> None:
    if isinstance(grades, Qrels):
        grades = grades.grades
    Path(path).write_text(qrels_text(grades), encoding="utf-8")


def merge(parts: Iterable[Qrels], name: str) -> Qrels:
    merged: dict[str, dict[str, int]] = {}
    for q in parts:
        for qid, docs in q.grades.items():
            merged.setdefault(qid, {}).update(docs)
    return Qrels.from_mapping(merged, name=name)
