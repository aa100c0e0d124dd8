"""MS MARCO runs: ``qid<TAB>pid<TAB>rank`` per line, no scores. The ranking is the rank
column ascending (ties keep line order); repeats are kept, as for every run.
"""

from __future__ import annotations

from pathlib import Path

from poolkit.errors import InputError, shown
from poolkit.io.common import decode, read_bytes, sha256_hex
from poolkit.io.run import Run
from poolkit.io.validate import INTEGER as _INT
from poolkit.io.validate import check_id


def read_msmarco_run(path: str | Path, name: str | None = None) -> Run:
    data = read_bytes(path)
    text = decode(path, data)
    rows: dict[str, list[tuple[int, str]]] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 3:
            raise InputError(path, lineno, f"expected 3 columns 'qid pid rank', found "
                                           f"{len(parts)}: {shown(line.strip())}")
        qid, docid, rank_s = parts
        check_id(path, lineno, qid, "query id")
        check_id(path, lineno, docid, "doc id")
        if not _INT.match(rank_s):
            raise InputError(path, lineno, f"rank {rank_s!r} is not an integer")
        rows.setdefault(qid, []).append((int(rank_s), docid))
    if not rows:
        raise InputError(path, None, "file is empty")
    # sorted() is stable: equal ranks keep their line order.
    rankings = {q: [d for _, d in sorted(r, key=lambda x: x[0])] for q, r in rows.items()}
    run = Run.from_mapping(rankings, name=name or Path(path).name)
    run.sha256 = sha256_hex(data)
    run.path = str(path)
    return run
