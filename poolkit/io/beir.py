"""BEIR qrels: a TSV ``query-id<TAB>corpus-id<TAB>score`` with that header line (BEIR's
``qrels/test.tsv``). Scores are integer grades; the header may be absent when the format is
forced (``--qrels-format beir``). The same rules as TREC qrels: a pair listed twice with the
same grade is tolerated, with different grades it is an error naming both lines.
"""

from __future__ import annotations

from pathlib import Path

from poolkit.errors import InputError, shown
from poolkit.io.common import decode, read_bytes, sha256_hex
from poolkit.io.qrels import Qrels, add_graded_line

BEIR_HEADER = ("query-id", "corpus-id", "score")


def is_beir_header(line: str) -> bool:
    return tuple(line.lower().split()) == BEIR_HEADER


def read_beir_qrels(path: str | Path) -> Qrels:
    data = read_bytes(path)
    text = decode(path, data)
    grades: dict[str, dict[str, int]] = {}
    lines: dict[tuple[str, str], int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts or (lineno == 1 and is_beir_header(line)):
            continue
        if len(parts) != 3:
            raise InputError(path, lineno, f"expected 3 columns 'query-id corpus-id score', "
                                           f"found {len(parts)}: {shown(line.strip())}")
        qid, docid, grade_s = parts
        add_graded_line(grades, lines, path, lineno, qid, docid, grade_s,
                        "score {!r} is not an integer grade")
    if not grades:
        raise InputError(path, None, "no qrels lines found (only the header)")
    return Qrels(grades, name=Path(path).name, sha256=sha256_hex(data), path=str(path),
                 source_lines=lines)
